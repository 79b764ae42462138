// SPDX-License-Identifier: GPL-2.0
/*
 * Handing perf a sample: the one place that depends on perf internals, with
 * one route for each kind of kernel (Kbuild picks it).
 */
#include <linux/hardirq.h>
#include <asm/irq_regs.h>
#include <linux/perf_event.h>
#include <linux/rculist.h>
#include <linux/trace_events.h>

#include "qpi_uncore.h"
#include "qpi_uncore_compat.h"

/*
 * A PMU delivers samples with perf_event_overflow(), which stock kernels do
 * not export to modules (no Debian kernel from 5.10 to 7.3 does).  What they export,
 * GPL, is the tracepoint path: perf_tp_event() runs perf's software-event
 * overflow code (perf_swevent_event -> perf_swevent_overflow ->
 * __perf_event_overflow) for each event on the list it is given, which
 * writes the sample, honours sample_period and freq, throttles, and drops
 * the recursion context taken with perf_swevent_get_recursion_context().
 *
 * What this relies on, read in kernel/events/core.c of every kernel from
 * 5.10 to 7.3 and unchanged there:
 *  - perf_tp_event() walks @head by perf_event.hlist_entry, which a PMU
 *    that is not a software PMU never uses, so a one-entry list on the stack
 *    is ours to build;
 *  - it skips events whose hw.state has PERF_HES_STOPPED, events with
 *    exclude_kernel in kernel mode (refused at event_init) and events with
 *    a tracepoint filter (ours cannot have one);
 *  - perf_swevent_event() adds @count to event->count; with
 *    PERF_SAMPLE_PERIOD and a fixed period it takes one sample of period
 *    @count, otherwise it takes one sample per sample_period found in
 *    hw.period_left (kept in [-period, 0] there), each of period
 *    hw.last_period, and its loop stops when perf throttles the event
 *    (from 7.x by stopping the group: see qpiu_event_stop()).
 * Both uses of hw.period_left and event->count are bracketed here: the
 * rest of the driver keeps x86's meaning (events left until the next
 * sample) and its own exact count.
 *
 * A kernel that exports perf_event_overflow() (an in-tree build, or one
 * patched to export it) is used directly; Kbuild finds out at build time.
 */

/*
 * perf's default limit (kernel.perf_event_max_sample_rate 100000) per tick;
 * the live value is not visible to modules.  Used only where perf itself
 * does not throttle: see qpiu_sample_emit().
 */
#define QPIU_MAX_SAMPLES_PER_TICK	DIV_ROUND_UP(100000, HZ)

#if defined(QPIU_HAVE_PERF_EVENT_OVERFLOW)

const char *const qpiu_sample_route = "perf_event_overflow";

static unsigned int qpiu_deliver(struct perf_event *event, u64 count,
				 u64 period, u64 n, struct pt_regs *regs)
{
	struct perf_sample_data data;
	unsigned int done = 0;

	local64_set(&event->count, count);
	while (n--) {
		perf_sample_data_init(&data, 0, period);
		done++;
		if (perf_event_overflow(event, &data, regs))
			break;
	}
	return done;
}

#elif defined(QPIU_HAVE_PERF_TP_EVENT)

const char *const qpiu_sample_route = "perf_tp_event";

/* perf_tp_event() stamps a trace_entry header into @rec. */
static void qpiu_tp_one(struct perf_event *event, struct hlist_head *head,
			u64 nr, struct pt_regs *regs)
{
	struct trace_entry rec = { };
	int rctx;

	rctx = perf_swevent_get_recursion_context();
	if (rctx < 0)
		return;
	perf_tp_event(0, nr, &rec, sizeof(rec), regs, head, rctx, NULL);
}

static unsigned int qpiu_deliver(struct perf_event *event, u64 count,
				 u64 period, u64 n, struct pt_regs *regs)
{
	struct hw_perf_event *hwc = &event->hw;
	s64 left = local64_read(&hwc->period_left);
	u64 last = hwc->last_period;
	unsigned int done = 0;
	HLIST_HEAD(head);

	hlist_add_head_rcu(&event->hlist_entry, &head);
	rcu_read_lock();
	if ((event->attr.sample_type & PERF_SAMPLE_PERIOD) &&
	    !event->attr.freq) {
		/*
		 * One sample per call, of period @nr, and no throttling on
		 * the first sample of a call: so count calls per tick here.
		 * hw.interrupts is perf's count of this event's samples in
		 * the current tick (reset on the first sample of the next).
		 */
		while (n-- && (done == 0 ||
			       hwc->interrupts < QPIU_MAX_SAMPLES_PER_TICK)) {
			local64_set(&event->count, count - period);
			qpiu_tp_one(event, &head, period, regs);
			done++;
		}
	} else {
		/*
		 * n periods at once: perf_swevent_set_period() finds them in
		 * period_left and takes them in one loop that stops when it
		 * throttles.
		 */
		local64_set(&event->count, count);
		hwc->last_period = period;
		local64_set(&hwc->period_left, (n - 1) * period);
		qpiu_tp_one(event, &head, 0, regs);
		done = n;
	}
	rcu_read_unlock();
	hlist_del_init_rcu(&event->hlist_entry);
	local64_set(&event->count, count);
	local64_set(&hwc->period_left, left);
	hwc->last_period = last;
	return done;
}

#else

const char *const qpiu_sample_route;

static unsigned int qpiu_deliver(struct perf_event *event, u64 count,
				 u64 period, u64 n, struct pt_regs *regs)
{
	return 0;
}

#endif

/*
 * perf's MAX_INTERRUPTS (private to kernel/events/core.c, the same from
 * 5.10 to 7.3): what hw.interrupts holds while perf throttles the event.
 */
#define QPIU_PERF_THROTTLED	(~0ULL)

/* Whether perf throttles @event now: see qpiu_event_stop(). */
bool qpiu_sample_throttled(const struct perf_event *event)
{
	return event->hw.interrupts == QPIU_PERF_THROTTLED;
}

/**
 * qpiu_sample_emit - take @n samples of @event, each of @period events
 * @event: a sampling event, active on this CPU
 * @count: its exact count now, which the samples report
 * @period: events per sample
 * @n: samples due
 *
 * Called from the box timer, in hard interrupt context on the event's CPU,
 * without the box lock: perf reads the other members of a sampling group
 * through their pmu->read().  Returns how many samples were offered to perf
 * (it may still drop them while throttled).
 */
unsigned int qpiu_sample_emit(struct perf_event *event, u64 count, u64 period,
			      u64 n)
{
	struct pt_regs *regs = get_irq_regs();
	struct pt_regs caller;

	lockdep_assert_irqs_disabled();
	if (!regs) {
		perf_fetch_caller_regs(&caller);
		regs = &caller;
	}
	return qpiu_deliver(event, count, period, n, regs);
}
