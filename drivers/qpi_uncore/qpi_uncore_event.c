// SPDX-License-Identifier: GPL-2.0
/*
 * The perf side of an event: event_init, add/del/start/stop/read, the
 * box timer that folds counts and takes overflow samples, and the
 * pmu_enable/pmu_disable freeze.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include "qpi_uncore.h"

/*
 * Overflows are looked for from the box timer, so a sample is taken at most
 * this long after the counter carried out of its top bit.
 */
static unsigned int qpiu_poll_us = 1000;
static struct qpiu_uint_param qpiu_poll_us_param = {
	.val = &qpiu_poll_us, .min = 100, .max = 100000,
};
module_param_cb(sample_poll_us, &qpiu_uint_param_ops, &qpiu_poll_us_param,
		0644);
MODULE_PARM_DESC(sample_poll_us,
		 "Sampling: how often (us, 100..100000) each box is checked for overflows; the longest delay from overflow to sample");

static bool qpiu_use_ov_en = true;
module_param_named(ov_en, qpiu_use_ov_en, bool, 0444);
MODULE_PARM_DESC(ov_en,
		 "Sampling: set ov_en on counters that have it, so BOX_STATUS and the UBox see each overflow (default on)");

/*
 * How looks are scheduled (Documentation/qpi_uncore.rst, "Sampling"): the
 * next look comes when the first sampling event of the box is expected to
 * complete its period at the rate it counted since the last look, plus a
 * quarter of sample_poll_us, so that at a steady rate the look finds the
 * period just complete; never sooner than sample_poll_us after the last.
 * Without traffic the interval doubles up to QPIU_LOOK_MAX_NS, which bounds
 * the delay from an overflow to its sample after a burst from idle and the
 * cost of an idle sampling event: 10 looks of 3 config reads a second.
 */
#define QPIU_LOOK_MAX_NS	(100 * NSEC_PER_MSEC)

/*
 * Work per look: at most this many samples per box; periods beyond it are
 * carried over, in order, to a look QPIU_CARRY_NS later (but see
 * QPIU_PACE_MAX).
 */
#define QPIU_LOOK_SAMPLES	64
#define QPIU_CARRY_NS		(20 * NSEC_PER_USEC)

/*
 * perf counts an event's samples between two ticks of its CPU, throttles
 * it at max_samples_per_tick (a THROTTLE record) and lifts the throttle at
 * the next tick (UNTHROTTLE).  An idle NO_HZ reader CPU may take no tick
 * for seconds: perf's count would then never start afresh, and a throttle
 * never end.  So after the box offered samples, a timer gives the reader
 * CPU its next tick (qpiu_box_want_tick()).  And as a look may find the
 * periods of several bursts at once, the box offers at most half of
 * perf's default limit (DIV_ROUND_UP(100000, HZ); the live value is not
 * visible to modules) between two runs of that timer and carries the rest
 * over.  The timer runs after perf's part of a tick, but a look may come
 * in between, so one tick of perf's may hold the samples of two of the
 * box's windows: two halves stay below the limit.  Up to QPIU_PACE_MAX
 * periods of an event are paced so; more are offered at once, and perf
 * throttles as it would.
 */
#define QPIU_TICK_SAMPLES	((DIV_ROUND_UP(100000, HZ) - 1) / 2)
#define QPIU_PACE_MAX		(16 * QPIU_TICK_SAMPLES)

static u64 qpiu_poll_ns(void)
{
	return (u64)READ_ONCE(qpiu_poll_us) * NSEC_PER_USEC;
}

/* A sampling event that completed @n periods of @period events. */
struct qpiu_due {
	struct perf_event *event;
	u64 period;
	u64 n;
};

static bool qpiu_running(const struct perf_event *event)
{
	return event && !(event->hw.state & PERF_HES_STOPPED);
}

/*
 * The whole periods that @event completed, at most @max of them: n of the
 * one armed; what came after the last of them starts the next period, as
 * on x86, where period_left <= 0 means "overflowed by that much".  Periods
 * beyond @max stay in hw.period_left for the next look.  They are no
 * longer carried (QPIU_HES_DUE) once taken.
 */
static bool qpiu_take_due(struct perf_event *event, struct qpiu_due *due,
			  u64 max)
{
	struct hw_perf_event *hwc = &event->hw;
	s64 left = local64_read(&hwc->period_left);
	u64 period = hwc->last_period;
	u64 n;

	hwc->state &= ~QPIU_HES_DUE;
	if (left > 0 || !period)
		return false;
	n = 1 + (u64)-left / period;
	if (n > max) {
		/* the rest, for qpiu_event_arm() and the next look */
		hwc->state |= QPIU_HES_DUE;
		if (!max)
			return false;
		n = max;
		local64_add(n * period, &hwc->period_left);
	} else {
		local64_set(&hwc->period_left, -(s64)((u64)-left % period));
	}
	due->event = event;
	due->period = period;
	due->n = n;
	return true;
}

/*
 * Look for sampling events that completed a period.  When one has, freeze
 * the box and bring every count up to date, so that the counts are of one
 * instant; the box stays frozen until qpiu_box_rearm(), which the caller
 * runs at once: every counter of the box stops while frozen, counting ones
 * included.  @seen gets each sampling counter's hw.period_left before any
 * period is taken.  Returns the number of entries in @due.
 */
static unsigned int qpiu_box_collect(struct qpiu_box *box,
				     struct qpiu_due *due, s64 *seen)
{
	const struct qpiu_box_desc *desc = box->pmu->desc;
	unsigned int i, nr = 0;
	u32 status = 0, armed = 0, over = 0, carried = 0;
	u64 budget = QPIU_LOOK_SAMPLES, paced = box->tick_budget, max;
	bool any = false;

	box->carried = false;
	for (i = 0; i < desc->nr_ctrs; i++) {
		struct perf_event *event = box->events[i];

		if (!qpiu_running(event) || !is_sampling_event(event))
			continue;
		qpiu_event_update(box, event);
		seen[i] = local64_read(&event->hw.period_left);
		any |= seen[i] <= 0;
	}
	if (!any || box->dead)
		return 0;

	qpiu_box_freeze(box, true);
	for (i = 0; i < desc->nr_ctrs; i++) {
		struct perf_event *event = box->events[i];

		if (!qpiu_running(event))
			continue;
		qpiu_event_update(box, event);
		if (!(event->hw.config & UNC_CTL_OV_EN))
			continue;
		armed |= BIT(i);
		/* its period completed before a restart: BOX_STATUS has no bit */
		if (event->hw.state & QPIU_HES_DUE)
			carried |= BIT(i);
	}
	if (armed)
		status = qpiu_box_read_status(box);

	for (i = 0; i < desc->nr_ctrs; i++) {
		struct perf_event *event = box->events[i];
		s64 left;

		if (!qpiu_running(event) || !is_sampling_event(event) ||
		    local64_read(&event->hw.period_left) > 0)
			continue;
		left = local64_read(&event->hw.period_left);
		over |= BIT(i);
		/* perf writes a sample on the event's own CPU only */
		if (event->oncpu != smp_processor_id())
			continue;
		/*
		 * Throttled: perf drops them all until its next tick.  Past
		 * QPIU_PACE_MAX: perf throttles them, in one call, after its
		 * limit of a tick.  Nothing to pace either way.
		 */
		if (qpiu_sample_throttled(event) ||
		    (event->hw.last_period &&
		     (u64)-left / event->hw.last_period >= QPIU_PACE_MAX))
			max = U64_MAX;
		else
			max = min(budget, paced);
		if (qpiu_take_due(event, &due[nr], max)) {
			if (max != U64_MAX) {
				budget -= due[nr].n;
				paced -= min(paced, due[nr].n);
			}
			nr++;
		}
		box->carried |= !!(event->hw.state & QPIU_HES_DUE);
	}
	box->tick_budget = paced;

	/*
	 * The counter is the record; BOX_STATUS must agree with it.  A box
	 * that disagrees is not behaving as the guide says: say so once.
	 * Periods carried over by the last look have no bit any more.
	 */
	if ((status ^ over) & armed & ~carried && !box->warned_status) {
		box->warned_status = true;
		pr_warn("%s: socket %u: BOX_STATUS 0x%x, but counters 0x%x completed their period\n",
			box->pmu->name, box->socket, status & armed,
			over & armed);
	}
	qpiu_box_clear_status(box, status & armed);
	return nr;
}

/* Start the next periods of the events in @due; unfreeze the box. */
static void qpiu_box_rearm(struct qpiu_box *box, struct qpiu_due *due,
			   unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < nr; i++) {
		struct perf_event *event = due[i].event;
		struct hw_perf_event *hwc = &event->hw;
		u64 start;

		if (!qpiu_running(event) || hwc->idx < 0 ||
		    box->events[hwc->idx] != event)
			continue;
		start = qpiu_event_arm(box, event);
		local64_set(&hwc->prev_count, start);
		qpiu_box_write_counter(box, hwc->idx, start);
	}
	qpiu_box_freeze(box, false);
}

/*
 * When to look next, @now being this look: see QPIU_LOOK_MAX_NS.  @seen
 * holds what each sampling counter had left of its period at this look,
 * before its completed periods were taken.
 */
static u64 qpiu_box_plan(struct qpiu_box *box, u64 now, const s64 *seen)
{
	u64 poll = qpiu_poll_ns(), cap = max_t(u64, poll, QPIU_LOOK_MAX_NS);
	u64 gap = now - box->look_ns, next = U64_MAX;
	bool moved = false, unknown = false;
	unsigned int i;

	for (i = 0; i < box->pmu->desc->nr_ctrs; i++) {
		struct perf_event *event = box->events[i];
		s64 left;

		if (!qpiu_running(event) || !is_sampling_event(event)) {
			box->look_ev[i] = NULL;
			continue;
		}
		left = local64_read(&event->hw.period_left);
		if (box->look_ev[i] != event) {
			unknown = true;
		} else if (seen[i] < box->look_left[i]) {
			u64 used = box->look_left[i] - seen[i];

			moved = true;
			/* at the same rate, the period completes in left/rate */
			if (left > 0)
				next = min(next, mul_u64_u64_div_u64(left, gap,
								     used));
			else
				next = 0;
		}
		box->look_ev[i] = event;
		box->look_left[i] = left;
	}
	box->look_ns = now;
	/* out of budget: qpiu_box_tick() restarts the timer */
	if (box->carried)
		return box->tick_budget ? QPIU_CARRY_NS : TICK_NSEC;
	if (moved)
		next = clamp(next + poll / 4, poll, cap);
	else if (unknown)
		next = poll;
	else
		next = clamp(2 * box->look_gap, poll, cap);
	box->look_gap = next;
	return next;
}

/*
 * The timer runs in a tick of the reader CPU, after perf started its count
 * of samples afresh and lifted throttles: the box may offer a tick's worth
 * again, and takes what it carries over now.
 */
static void qpiu_box_tick(struct timer_list *t)
{
	struct qpiu_box *box = container_of(t, struct qpiu_box, tick_timer);
	unsigned long flags;

	raw_spin_lock_irqsave(&box->lock, flags);
	box->tick_budget = QPIU_TICK_SAMPLES;
	if (box->carried && box->n_sampling && !box->dead &&
	    box->cpu == smp_processor_id())
		hrtimer_start(&box->hrtimer, 0, HRTIMER_MODE_REL_PINNED_HARD);
	raw_spin_unlock_irqrestore(&box->lock, flags);
}

/*
 * After samples were offered, or while perf throttles an event of the
 * box: a timer for the next jiffy on this, the reader, CPU.  A NO_HZ idle
 * CPU programs its tick for its next timer, so that jiffy brings a tick,
 * and perf its part of it.
 */
static void qpiu_box_want_tick(struct qpiu_box *box)
{
	if (!box->tick_timer_ready || timer_pending(&box->tick_timer))
		return;
	mod_timer(&box->tick_timer, jiffies + 1);
}

static bool qpiu_box_throttled(const struct qpiu_box *box)
{
	unsigned int i;

	for (i = 0; i < box->pmu->desc->nr_ctrs; i++)
		if (box->events[i] && is_sampling_event(box->events[i]) &&
		    qpiu_sample_throttled(box->events[i]))
			return true;
	return false;
}

/*
 * perf throttled an event while it was handed its samples: the periods it
 * still carries are dropped now, as perf drops whatever comes until its
 * next tick, which may come before the next look.  perf's THROTTLE record
 * accounts for them.
 */
static void qpiu_box_drop_carried(struct qpiu_box *box)
{
	struct qpiu_due due;
	unsigned long flags;
	unsigned int i;

	raw_spin_lock_irqsave(&box->lock, flags);
	for (i = 0; i < box->pmu->desc->nr_ctrs; i++) {
		struct perf_event *event = box->events[i];

		if (event && is_sampling_event(event) &&
		    qpiu_sample_throttled(event) &&
		    (event->hw.state & QPIU_HES_DUE) &&
		    qpiu_take_due(event, &due, U64_MAX))
			/* the counter is armed for the boundary after them */
			local64_add(due.period, &event->hw.period_left);
	}
	raw_spin_unlock_irqrestore(&box->lock, flags);
}

static void qpiu_box_fold(struct qpiu_box *box)
{
	unsigned int i;

	for (i = 0; i < box->pmu->desc->nr_ctrs; i++)
		if (qpiu_running(box->events[i]))
			qpiu_event_update(box, box->events[i]);
}

/*
 * Foreign writers: read the counter controls back when due, after any
 * sampling look has unfrozen the box.  Returns the time to the next
 * read-back, U64_MAX when off; @resched is set when perf should schedule
 * the box's events again.
 */
static u64 qpiu_box_check_due(struct qpiu_box *box, u64 now, bool *resched)
{
	u64 interval = qpiu_foreign_interval_ns();

	if (!interval)
		return U64_MAX;
	if (now >= box->check_next) {
		*resched = qpiu_foreign_check(box);
		box->check_next = now + interval;
	}
	return box->check_next - now;
}

enum hrtimer_restart qpiu_box_timer(struct hrtimer *hrtimer)
{
	struct qpiu_box *box = container_of(hrtimer, struct qpiu_box, hrtimer);
	struct qpiu_due due[UNC_MAX_CTRS];
	s64 seen[UNC_MAX_CTRS];
	unsigned int nr = 0, i;
	unsigned long flags;
	u64 now = ktime_get_ns(), next;
	bool throttled = false, resched = false;

	raw_spin_lock_irqsave(&box->lock, flags);
	if (!box->n_active || box->dead) {
		raw_spin_unlock_irqrestore(&box->lock, flags);
		return HRTIMER_NORESTART;
	}
	next = box->fold_ns;
	if (box->n_sampling) {
		nr = qpiu_box_collect(box, due, seen);
		qpiu_box_rearm(box, due, nr);
		next = qpiu_box_plan(box, now, seen);
		if (nr || box->carried || qpiu_box_throttled(box))
			qpiu_box_want_tick(box);
	}
	if (now >= box->fold_next) {
		qpiu_box_fold(box);
		box->fold_next = now + box->fold_ns;
	}
	next = min(next, box->fold_next - now);
	next = min(next, qpiu_box_check_due(box, now, &resched));
	raw_spin_unlock_irqrestore(&box->lock, flags);
	if (resched)
		qpiu_foreign_resched(box);

	/*
	 * Unlocked, and with the box counting again: perf reads group members
	 * through pmu->read(), which folds what they counted since the
	 * snapshot.
	 */
	for (i = 0; i < nr; i++) {
		qpiu_sample_emit(due[i].event, due[i].period, due[i].n);
		throttled |= qpiu_sample_throttled(due[i].event);
	}
	if (throttled)
		qpiu_box_drop_carried(box);
	hrtimer_forward_now(hrtimer, ns_to_ktime(next));
	return HRTIMER_RESTART;
}

/* The box timer's first run: a look, a fold or a read-back, the soonest. */
static u64 qpiu_box_first_ns(const struct qpiu_box *box)
{
	u64 first = box->n_sampling ? qpiu_poll_ns() : box->fold_ns;
	u64 check = qpiu_foreign_interval_ns();

	return check ? min(first, check) : first;
}

static int qpiu_event_add(struct perf_event *event, int flags)
{
	struct qpiu_box *box = event->pmu_private;
	struct hw_perf_event *hwc = &event->hw;
	unsigned long irqflags;
	int ret;

	raw_spin_lock_irqsave(&box->lock, irqflags);
	/* foreign_writes: no counter, so no box timer either */
	if (qpiu_is_driver_event(event)) {
		hwc->idx = -1;
		hwc->state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
		if (flags & PERF_EF_START)
			qpiu_foreign_ev_start(box, event);
		raw_spin_unlock_irqrestore(&box->lock, irqflags);
		return 0;
	}
	/*
	 * A foreign writer reprogrammed its counter while it counted: refused
	 * once, so perf keeps it inactive until its next rotation (an
	 * interval of perf_event_mux_interval_ms) and the time it ran falls
	 * behind the time it was enabled, which perf stat shows as a
	 * percentage and read_format as time_running < time_enabled.  The
	 * foreign layer has perf schedule the event again soon after the
	 * mark (qpiu_foreign_resched()), so this comes within a read-back
	 * interval.  perf takes a refusal as a full PMU: events after it in
	 * the same pass wait for that rotation too.  Pinned events are never
	 * refused: perf would put them, and every pinned event after them, in
	 * error state for good.
	 */
	if ((hwc->flags & QPIU_HWF_FOREIGN) && !event->attr.pinned) {
		hwc->flags &= ~QPIU_HWF_FOREIGN;
		raw_spin_unlock_irqrestore(&box->lock, irqflags);
		return -EAGAIN;
	}
	/*
	 * An event of a box that is gone, or whose filter went with its
	 * mask/match function, stays scheduled with its count frozen: failing
	 * here would block every event queued behind it, and counting
	 * unfiltered would be wrong.
	 */
	if (box->dead || (qpiu_event_filtered(box, event) && !box->mm &&
			  !box->msr &&
			  (event->attr.config1 || event->attr.config2))) {
		hwc->state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
		hwc->idx = -1;
		raw_spin_unlock_irqrestore(&box->lock, irqflags);
		return 0;
	}
	ret = qpiu_box_place(box, event);
	if (!ret) {
		bool first = box->n_active++ == 0;

		hwc->state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
		if (flags & PERF_EF_START)
			qpiu_event_start_locked(box, event);
		if (first) {
			u64 now = ktime_get_ns();

			box->fold_next = now + box->fold_ns;
			box->check_next = now + qpiu_foreign_interval_ns();
		}
		/* the first sampling event shortens the timer's interval */
		if (is_sampling_event(event) && box->n_sampling++ == 0) {
			first = true;
			if (!box->tick_timer_ready) {
				timer_setup(&box->tick_timer, qpiu_box_tick,
					    TIMER_PINNED);
				box->tick_timer_ready = true;
				box->tick_budget = QPIU_TICK_SAMPLES;
			}
			box->look_gap = 0;
		}
		if (first)
			hrtimer_start(&box->hrtimer,
				      ns_to_ktime(qpiu_box_first_ns(box)),
				      HRTIMER_MODE_REL_PINNED_HARD);
	}
	raw_spin_unlock_irqrestore(&box->lock, irqflags);
	return ret;
}

static void qpiu_event_del(struct perf_event *event, int flags)
{
	struct qpiu_box *box = event->pmu_private;
	struct hw_perf_event *hwc = &event->hw;
	unsigned long irqflags;
	struct qpiu_due due;
	bool was_running, emit;

	raw_spin_lock_irqsave(&box->lock, irqflags);
	if (qpiu_is_driver_event(event)) {
		qpiu_foreign_ev_stop(box, event);
		raw_spin_unlock_irqrestore(&box->lock, irqflags);
		return;
	}
	was_running = qpiu_running(event);
	qpiu_event_stop_locked(box, event, PERF_EF_UPDATE);
	/* not after a stop(0): perf stopped it at its refresh limit */
	emit = qpiu_take_due(event, &due, U64_MAX) && was_running;
	if (hwc->idx >= 0) {
		box->events[hwc->idx] = NULL;
		hwc->idx = -1;
		if (qpiu_event_filtered(box, event))
			box->filter_ref--;
		if (is_sampling_event(event))
			box->n_sampling--;
		/* The fold timer stops itself if it is running elsewhere. */
		if (--box->n_active == 0)
			hrtimer_try_to_cancel(&box->hrtimer);
	}
	raw_spin_unlock_irqrestore(&box->lock, irqflags);
	/*
	 * Periods completed since the timer last looked (disable, close,
	 * multiplexing rotation): their samples, before perf marks the event
	 * inactive.
	 */
	if (emit)
		qpiu_sample_emit(event, due.period, due.n);
}

static void qpiu_event_start(struct perf_event *event, int flags)
{
	struct qpiu_box *box = event->pmu_private;
	unsigned long irqflags;

	raw_spin_lock_irqsave(&box->lock, irqflags);
	if (qpiu_is_driver_event(event))
		qpiu_foreign_ev_start(box, event);
	else if (event->hw.idx >= 0)
		qpiu_event_start_locked(box, event);
	raw_spin_unlock_irqrestore(&box->lock, irqflags);
}

static void qpiu_event_stop(struct perf_event *event, int flags)
{
	struct qpiu_box *box = event->pmu_private;
	unsigned long irqflags;
	struct qpiu_due due;
	bool was_running, emit;

	/*
	 * Newer kernels (7.x: perf_event_throttle_group()) throttle by
	 * stopping every member of the group, counters and all, until a
	 * tick of the reader CPU, which an idle NO_HZ CPU may not take for
	 * long; older ones only drop the samples.  Keep counting on every
	 * kernel: perf drops a throttled event's samples itself, and its
	 * start(event, 0) at unthrottle finds the event running.
	 */
	if (!flags && qpiu_sample_throttled(event))
		return;

	raw_spin_lock_irqsave(&box->lock, irqflags);
	if (qpiu_is_driver_event(event)) {
		qpiu_foreign_ev_stop(box, event);
		raw_spin_unlock_irqrestore(&box->lock, irqflags);
		return;
	}
	was_running = qpiu_running(event);
	if (event->hw.idx >= 0)
		qpiu_event_stop_locked(box, event, flags);
	/* PERF_EVENT_IOC_PERIOD: the periods completed at the old period */
	emit = (flags & PERF_EF_UPDATE) && was_running &&
	       qpiu_take_due(event, &due, U64_MAX);
	raw_spin_unlock_irqrestore(&box->lock, irqflags);
	if (emit)
		qpiu_sample_emit(event, due.period, due.n);
}

static void qpiu_event_read(struct perf_event *event)
{
	struct qpiu_box *box = event->pmu_private;
	unsigned long irqflags;

	raw_spin_lock_irqsave(&box->lock, irqflags);
	if (qpiu_is_driver_event(event))
		qpiu_foreign_ev_read(box, event);
	else if (!(event->hw.state & PERF_HES_STOPPED))
		qpiu_event_update(box, event);
	raw_spin_unlock_irqrestore(&box->lock, irqflags);
}

/*
 * perf brackets group scheduling with pmu_disable/pmu_enable on the CPU
 * doing it: freeze the box this CPU reads, so a group starts and stops at
 * one instant.  Other CPUs of the socket must not touch it.
 */
static void qpiu_pmu_freeze(struct pmu *pmu, bool freeze)
{
	struct qpiu_pmu *qpmu = to_qpmu(pmu);
	unsigned int cpu = smp_processor_id();
	unsigned int socket = qpiu_cpu_socket(cpu);
	struct qpiu_box *box;
	unsigned long flags;

	if (socket >= QPIU_MAX_SOCKETS)
		return;
	rcu_read_lock();
	box = rcu_dereference(qpmu->boxes[socket]);
	if (box) {
		raw_spin_lock_irqsave(&box->lock, flags);
		if (box->cpu == cpu && (!freeze || box->n_active))
			qpiu_box_freeze(box, freeze);
		raw_spin_unlock_irqrestore(&box->lock, flags);
	}
	rcu_read_unlock();
}

static void qpiu_pmu_enable(struct pmu *pmu)
{
	qpiu_pmu_freeze(pmu, false);
}

static void qpiu_pmu_disable(struct pmu *pmu)
{
	qpiu_pmu_freeze(pmu, true);
}

static void qpiu_pmu_put_event(struct qpiu_pmu *qpmu)
{
	if (atomic_dec_and_test(&qpmu->nr_events))
		qpmu->idle(qpmu);
}

static void qpiu_event_destroy(struct perf_event *event)
{
	struct qpiu_box *box = event->pmu_private;
	struct qpiu_pmu *qpmu = box->pmu;
	unsigned long flags;

	qpiu_opening_del(qpmu, event);
	raw_spin_lock_irqsave(&box->lock, flags);
	if (--box->nr_events == 0)
		qpiu_foreign_box_unused(box);
	raw_spin_unlock_irqrestore(&box->lock, flags);

	/*
	 * perf deleted the event before: the tick timer is armed again only
	 * while the box has sampling events, each of which passes here.
	 */
	if (is_sampling_event(event) && READ_ONCE(box->tick_timer_ready))
		timer_delete_sync(&box->tick_timer);
	qpiu_box_put(box);
	qpiu_pmu_put_event(qpmu);
	/* test builds: widen the window before perf's last use of the PMU */
	qpiu_test_destroy_delay();
}

/*
 * What a sample of an uncore counter can hold.  IP, TID and CGROUP are of
 * whatever the reader CPU was running when the sample was taken.
 */
#define QPIU_SAMPLE_TYPES	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | \
				 PERF_SAMPLE_TIME | PERF_SAMPLE_READ | \
				 PERF_SAMPLE_ID | PERF_SAMPLE_CPU | \
				 PERF_SAMPLE_PERIOD | PERF_SAMPLE_STREAM_ID | \
				 PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_CGROUP)

static const char *const qpiu_sample_bit_names[] = {
	"IP", "TID", "TIME", "ADDR", "READ", "CALLCHAIN", "ID", "CPU",
	"PERIOD", "STREAM_ID", "RAW", "BRANCH_STACK", "REGS_USER",
	"STACK_USER", "WEIGHT", "DATA_SRC", "IDENTIFIER", "TRANSACTION",
	"REGS_INTR", "PHYS_ADDR", "AUX", "CGROUP", "DATA_PAGE_SIZE",
	"CODE_PAGE_SIZE", "WEIGHT_STRUCT",
};

static int qpiu_check_sampling(const struct qpiu_pmu *qpmu,
			       struct perf_event *event)
{
	const struct perf_event_attr *attr = &event->attr;
	u64 bad = attr->sample_type & ~(u64)QPIU_SAMPLE_TYPES;
	u64 max = BIT_ULL(qpmu->desc->width) - 1;

	if (!qpiu_sample_route)
		return qpiu_reject(qpmu, -EOPNOTSUPP,
				   "sample_period/sample_freq: counting only; this kernel exports neither perf_event_overflow nor perf_tp_event to modules, so a module cannot deliver samples");
	if (!qpmu->box_ops->start)
		return qpiu_reject(qpmu, -EOPNOTSUPP,
				   "sample_period/sample_freq: the %s PMUs count only",
				   qpmu->box_ops->name);
	if (bad) {
		unsigned int bit = __ffs64(bad);

		return qpiu_reject(qpmu, -EINVAL,
				   "sample_type bit %u (PERF_SAMPLE_%s): an uncore counter has no such data; allowed: IP TID TIME READ ID CPU PERIOD STREAM_ID IDENTIFIER CGROUP",
				   bit, bit < ARRAY_SIZE(qpiu_sample_bit_names) ?
				   qpiu_sample_bit_names[bit] : "?");
	}
	/*
	 * perf adjusts a frequency event's period from the time between its
	 * samples and from the reader CPU's tick.  Uncore overflows arrive in
	 * batches from the box timer, mostly while the reader CPU idles with
	 * its tick stopped: the estimate would be wrong and stay wrong.
	 */
	if (attr->freq)
		return qpiu_reject(qpmu, -EINVAL,
				   "sample_freq=%llu: frequency mode (perf record -F, perf's default) is not supported on uncore counters; give a fixed period: perf record -c N",
				   attr->sample_freq);
	if (attr->precise_ip)
		return qpiu_reject(qpmu, -EINVAL,
				   "precise_ip=%u: uncore counters have no precise sampling; use 0",
				   attr->precise_ip);
	if (attr->sample_period > max)
		return qpiu_reject(qpmu, -EINVAL,
				   "sample_period=%llu: at most %llu (2^%u-1, the counter width)",
				   attr->sample_period, max, qpmu->desc->width);
	return 0;
}

/* PERF_EVENT_IOC_PERIOD: the same rule as at open. */
static int qpiu_check_period(struct perf_event *event, u64 value)
{
	struct qpiu_pmu *qpmu = to_qpmu(event->pmu);
	u64 max = BIT_ULL(qpmu->desc->width) - 1;

	if (value > max)
		return qpiu_reject(qpmu, -EINVAL,
				   "period %llu: at most %llu (2^%u-1, the counter width)",
				   value, max, qpmu->desc->width);
	return 0;
}

static int qpiu_event_init(struct perf_event *event)
{
	struct qpiu_pmu *qpmu = to_qpmu(event->pmu);
	struct perf_event_attr *attr = &event->attr;
	char msg[QPIU_MSG_LEN];
	unsigned int socket;
	unsigned long flags;
	bool has_mm;
	struct qpiu_box *box;
	int ret, cpu;

	if (attr->type != event->pmu->type)
		return -ENOENT;
	/*
	 * perf sets exclude_guest on every event it opens and, on EINVAL,
	 * opens it again without: expected, so silent.  perf core would
	 * refuse it after us anyway (PERF_PMU_CAP_NO_EXCLUDE).
	 */
	if (attr->exclude_host || attr->exclude_guest)
		return -EINVAL;

	if (qpiu_is_driver_event(event) && is_sampling_event(event))
		return qpiu_reject(qpmu, -EINVAL,
				   "foreign_writes: counts in the driver, with no counter to overflow; count it (perf stat), do not sample it");
	if (is_sampling_event(event)) {
		ret = qpiu_check_sampling(qpmu, event);
		if (ret)
			return ret;
	}
	if (event->cpu < 0)
		return qpiu_reject(qpmu, -EINVAL,
				   "cpu=-1: uncore events count per socket; open them system-wide (perf -a), not per task");
	if (attr->exclude_user || attr->exclude_kernel || attr->exclude_hv ||
	    attr->exclude_idle)
		return qpiu_reject(qpmu, -EINVAL,
				   "exclude_*: uncore counters count at every privilege level and cannot exclude one");
	ret = qpiu_check_config(qpmu->desc, attr->config, attr->config1,
				attr->config2, msg, sizeof(msg));
	if (ret)
		return qpiu_reject(qpmu, ret, "%s", msg);

	event->hw.config = qpiu_ctl_bits(qpmu->desc, attr->config);
	if (is_sampling_event(event) && qpmu->desc->has_ov_en &&
	    qpiu_use_ov_en)
		event->hw.config |= UNC_CTL_OV_EN;
	event->hw.idx = -1;
	ret = qpiu_validate_group(qpmu, event);
	if (ret)
		return ret;

	/*
	 * No driver mutex here: perf may hold context mutexes and pmus_srcu
	 * around event_init, and qpiu_reg_mutex is held around
	 * perf_pmu_register() and perf_pmu_unregister().
	 * Boxes are freed after an RCU grace period.
	 */
	socket = qpiu_cpu_socket(event->cpu);
	/*
	 * Counted before the box is looked up, so that qpiu_pmu_remove_box()
	 * either sees this event or this lookup sees no box (both sides
	 * order their store before their load).
	 */
	atomic_inc(&qpmu->nr_events);
	/* pairs with smp_mb() in qpiu_pmu_retire_if_unused() */
	smp_mb__after_atomic();
	rcu_read_lock();
	box = socket < QPIU_MAX_SOCKETS ?
	      rcu_dereference(qpmu->boxes[socket]) : NULL;
	if (box && (READ_ONCE(box->dead) || !kref_get_unless_zero(&box->ref)))
		box = NULL;
	has_mm = box && (READ_ONCE(box->mm) || box->msr);
	rcu_read_unlock();
	if (!box) {
		qpiu_pmu_put_event(qpmu);
		return qpiu_reject(qpmu, -ENODEV,
				   "cpu=%d: socket %u has no such box, or it is gone (removed or failed)",
				   event->cpu, socket);
	}
	if (!has_mm && (attr->config1 || attr->config2)) {
		qpiu_box_put(box);
		qpiu_pmu_put_event(qpmu);
		return qpiu_reject(qpmu, -ENODEV,
				   "config1/config2: socket %u has no mask/match function for port %u, so cto_count cannot be filtered there",
				   socket, qpmu->idx);
	}
	/*
	 * Any CPU of the socket names it, as with intel_uncore; the event
	 * lives on the socket's reader, and a read from any CPU of the
	 * package is done there.  Listed before box->cpu is read, both under
	 * locks a reader change takes in the other order: it either sees
	 * this event or this reads the new reader.
	 */
	ret = qpiu_opening_add(qpmu, event);
	if (ret) {
		qpiu_box_put(box);
		qpiu_pmu_put_event(qpmu);
		return ret;
	}
	raw_spin_lock_irqsave(&box->lock, flags);
	cpu = box->cpu;
	/* undone in qpiu_event_destroy() */
	if (cpu >= 0)
		box->nr_events++;
	raw_spin_unlock_irqrestore(&box->lock, flags);
	if (cpu < 0) {
		qpiu_opening_del(qpmu, event);
		qpiu_box_put(box);
		qpiu_pmu_put_event(qpmu);
		return qpiu_reject(qpmu, -ENODEV,
				   "cpu=%d: socket %u has no online CPU to read it",
				   event->cpu, socket);
	}
	qpiu_opening_set_cpu(qpmu, event, cpu);
	/* test builds: hold the window between this choice and install */
	qpiu_test_open_delay(box, cpu);

	event->cpu = cpu;
	event->event_caps |= PERF_EV_CAP_READ_ACTIVE_PKG;
	event->pmu_private = box;
	event->destroy = qpiu_event_destroy;
	return 0;
}

void qpiu_pmu_set_callbacks(struct pmu *pmu)
{
	pmu->event_init = qpiu_event_init;
	pmu->add = qpiu_event_add;
	pmu->del = qpiu_event_del;
	pmu->start = qpiu_event_start;
	pmu->stop = qpiu_event_stop;
	pmu->read = qpiu_event_read;
	pmu->pmu_enable = qpiu_pmu_enable;
	pmu->pmu_disable = qpiu_pmu_disable;
	pmu->check_period = qpiu_check_period;
	pmu->capabilities |= PERF_PMU_CAP_NO_EXCLUDE;
}
