// SPDX-License-Identifier: GPL-2.0
/*
 * One counter of a box: folding its count, arming a sampling period,
 * starting and stopping it.  Callers hold box->lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "qpi_uncore.h"

void qpiu_event_update(struct qpiu_box *box, struct perf_event *event)
{
	struct hw_perf_event *hwc = &event->hw;
	u64 now, prev, delta;
	int ret;

	if (hwc->idx < 0 || box->dead)
		return;
	/*
	 * perf has the event (QPIU_HWF_DELIVER): a read from another CPU of
	 * the socket (PERF_EV_CAP_READ_ACTIVE_PKG) would fold into a
	 * hw.period_left that the delivery then puts back, and race perf's
	 * unlocked add to event->count.  It folds nothing: prev_count stays,
	 * so the next update folds it all, and the read is at most one
	 * delivery behind.
	 */
	if (hwc->flags & QPIU_HWF_DELIVER)
		return;
	ret = qpiu_box_read_counter(box, hwc->idx, &now);
	if (ret) {
		if (ret != -ENODEV)
			qpiu_box_fault(box, ret, ret == -EIO ?
				       "reads bits no counter has (all ones?)" :
				       "counter moves faster than hardware can");
		return;
	}
	prev = local64_xchg(&hwc->prev_count, now);
	delta = qpiu_delta(prev, now, box->pmu->desc->width);
	local64_add(delta, &event->count);
	if (is_sampling_event(event))
		local64_sub(delta, &hwc->period_left);
}

/*
 * Sampling: the counter starts at 2^width - left, so it carries out of its
 * top bit on the event that completes the period, as the guides describe.
 * hw.period_left counts the events left, as on x86, so perf's frequency
 * code (which resets it to 0 and reloads) works unchanged.  Periods that
 * completed before a stop, or beyond what one look of the box timer
 * samples, and are not sampled yet (QPIU_HES_DUE) stay in hw.period_left
 * for the box timer, and the counter is armed for the next boundary after
 * them.
 */
u64 qpiu_event_arm(struct qpiu_box *box, struct perf_event *event)
{
	struct hw_perf_event *hwc = &event->hw;
	s64 max = BIT_ULL(box->pmu->desc->width) - 1;
	s64 period = min_t(u64, hwc->sample_period, max);
	s64 left = local64_read(&hwc->period_left);

	if (left <= 0 && (hwc->state & QPIU_HES_DUE) && hwc->last_period) {
		left = hwc->last_period - (u64)-left % hwc->last_period;
		return (max + 1 - min(left, max)) & max;
	}
	if (left <= -period) {
		left = period;
		hwc->last_period = period;
	} else if (left <= 0) {
		left += period;
		hwc->last_period = period;
	}
	left = min(left, max);
	local64_set(&hwc->period_left, left);
	return (max + 1 - left) & max;
}

void qpiu_event_start_locked(struct qpiu_box *box, struct perf_event *event)
{
	struct hw_perf_event *hwc = &event->hw;
	u64 start;

	if (!(hwc->state & PERF_HES_STOPPED))
		return;
	if (is_sampling_event(event)) {
		start = qpiu_event_arm(box, event);
		local64_set(&hwc->prev_count, start);
		qpiu_box_start_counter_at(box, hwc->idx, hwc->config, start);
	} else {
		local64_set(&hwc->prev_count, 0);
		qpiu_box_enable_counter(box, hwc->idx, hwc->config);
	}
	/*
	 * Running, and up to date from now on; but periods that completed
	 * before a stop (a move to another counter, a rewrite after a
	 * foreign write) are still carried: the counter is armed past them,
	 * and BOX_STATUS has no bit for them (qpiu_event_stop_locked()
	 * cleared it).
	 */
	hwc->state &= QPIU_HES_DUE;
}

void qpiu_event_stop_locked(struct qpiu_box *box, struct perf_event *event,
			    int flags)
{
	struct hw_perf_event *hwc = &event->hw;
	bool was_running = !(hwc->state & PERF_HES_STOPPED);

	if (was_running) {
		qpiu_box_disable_counter(box, hwc->idx, hwc->config);
		hwc->state |= PERF_HES_STOPPED;
	}
	if ((flags & PERF_EF_UPDATE) && !(hwc->state & PERF_HES_UPTODATE)) {
		qpiu_event_update(box, event);
		hwc->state |= PERF_HES_UPTODATE;
		/*
		 * A period completed since the box timer last looked: its
		 * sample is still owed, whether perf deletes the event (del()
		 * writes it) or the driver moves it (the timer will).  Its
		 * overflow bit, if any, belongs to this counter, which may
		 * get another event.
		 */
		if (was_running && is_sampling_event(event) &&
		    local64_read(&hwc->period_left) <= 0 &&
		    !(hwc->state & QPIU_HES_DUE)) {
			hwc->state |= QPIU_HES_DUE;
			if (hwc->config & UNC_CTL_OV_EN)
				qpiu_box_clear_status(box, BIT(hwc->idx));
		}
	}
}
