// SPDX-License-Identifier: GPL-2.0
/*
 * Handing perf a sample: the one place that depends on perf internals, with
 * one route for each kind of kernel (Kbuild picks it).
 */
#include <linux/hardirq.h>
#include <linux/moduleparam.h>
#include <asm/irq_regs.h>
#include <linux/perf_event.h>
#include <linux/rculist.h>
#include <linux/sysfs.h>
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
 *  - perf_swevent_event() adds its nr to event->count; with
 *    PERF_SAMPLE_PERIOD and a fixed period (!attr.freq) it takes one
 *    sample of period nr, otherwise it takes one sample per sample_period
 *    found in hw.period_left (kept in [-period, 0] there), each of period
 *    hw.last_period, and its loop throttles from the second sample on and
 *    stops when __perf_event_overflow() returns 1 (throttle: from 7.x by
 *    stopping the group, see qpiu_event_stop(); refresh limit:
 *    event_limit reaches 0);
 *  - __perf_event_account_interrupt() adjusts a frequency event's period
 *    only when less than two ticks passed since hw.freq_time_stamp, and
 *    perf_adjust_period() then changes only hw.sample_period while
 *    hw.period_left is at most 8 periods.
 * The driver always passes nr 0, so event->count, which readers on other
 * CPUs load with no lock after their IPI, only ever moves by its own
 * updates.  Those are not made while perf has the event: a read on another
 * CPU of the socket runs pmu->read there (PERF_EV_CAP_READ_ACTIVE_PKG),
 * and perf's add of nr (a plain RMW on x86) and the bracket below would
 * lose what it folds (qpiu_sample_emit(), QPIU_HWF_DELIVER).
 * hw.period_left, hw.last_period, hw.freq_time_stamp, PERF_HES_STOPPED
 * and, for PERF_SAMPLE_PERIOD, attr.freq and hw.sample_period are
 * bracketed around the call: the rest of the driver keeps x86's meaning (events left
 * until the next sample).  Of the readers of attr.freq, only
 * PERF_EVENT_IOC_PERIOD runs on another CPU unserialised with the sample:
 * racing one, a period above kernel.perf_event_max_sample_rate is
 * refused with EINVAL (retry); all others run on the event's CPU with
 * interrupts off.
 *
 * A kernel that exports perf_event_overflow() (an in-tree build, or one
 * patched to export it) is used directly; Kbuild finds out at build time.
 */

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

/*
 * perf_event_overflow() returned 1: perf throttled the event or it reached
 * its PERF_EVENT_IOC_REFRESH limit (and perf disables it from irq_work).
 * Stop it as a hardware PMU does (x86: x86_pmu_stop(event, 0)), so that
 * no further sample is offered before perf acts; qpiu_event_stop() keeps a
 * throttled event counting.  Both sample routes use it; a build with none
 * (QPIU_SAMPLE_ROUTE=none) does not.
 */
static void __maybe_unused qpiu_sample_stop(struct perf_event *event)
{
	event->pmu->stop(event, 0);
}

#if defined(QPIU_HAVE_PERF_EVENT_OVERFLOW)

const char *const qpiu_sample_route = "perf_event_overflow";

/*
 * Pacing (qpi_uncore_look.c) keeps an event's samples of a tick below
 * perf's limit.  On this route perf checks every sample, the first of a
 * look too, so the look must know whether hw.interrupts is perf's count
 * of this tick or one its tick has ended (the next sample then counts
 * from 1): whether hw.interrupts_seq, the copy of the CPU's
 * perf_throttled_seq that perf took at the event's last sample, is still
 * the CPU's.  That sequence is private to perf, but any sampling event
 * handed to perf_event_overflow() takes a copy of it
 * (__perf_event_account_interrupt(), 6.1 core.c:9376-9382, the same from
 * 5.10 to 7.3).  So the driver keeps a probe: a disabled software dummy
 * event of sample period 1, never scheduled, whose overflow handler
 * writes nothing; handed to perf_event_overflow() under a lock (its
 * hw.interrupts* are plain fields), it gives this CPU's sequence now.
 * Its own count is reset after each use, so it never reaches perf's
 * limit (at a limit of 1 a tick it would throttle: a THROTTLE record
 * into no buffer, an extra tick).  Made where the driver reads perf's
 * limit (a work, no perf lock held), first when a sampling event opens;
 * released at module exit, when no box timer can use it.
 */
static DEFINE_RAW_SPINLOCK(qpiu_probe_lock);
static DEFINE_MUTEX(qpiu_probe_mutex);
static struct perf_event *qpiu_probe;

static void qpiu_probe_handler(struct perf_event *event,
			       struct perf_sample_data *data,
			       struct pt_regs *regs)
{
}

void qpiu_sample_prepare(void)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_DUMMY,
		.sample_period = 1,
		.disabled = 1,
	};
	struct perf_event *event;

	mutex_lock(&qpiu_probe_mutex);
	if (!READ_ONCE(qpiu_probe)) {
		event = perf_event_create_kernel_counter(&attr,
							 raw_smp_processor_id(),
							 NULL, qpiu_probe_handler,
							 NULL);
		if (!IS_ERR(event))
			WRITE_ONCE(qpiu_probe, event);
	}
	mutex_unlock(&qpiu_probe_mutex);
}

void qpiu_sample_exit(void)
{
	if (qpiu_probe)
		perf_event_release_kernel(qpiu_probe);
	qpiu_probe = NULL;
}

bool qpiu_sample_first_checked(void)
{
	return true;
}

bool qpiu_sample_tick_count(const struct perf_event *event, u64 *count)
{
	struct perf_event *probe = READ_ONCE(qpiu_probe);
	struct perf_sample_data data;
	bool now;

	if (!probe)
		return false;
	raw_spin_lock(&qpiu_probe_lock);
	perf_sample_data_init(&data, 0, 0);
	perf_event_overflow(probe, &data, get_irq_regs());
	probe->hw.interrupts = 0;
	now = probe->hw.interrupts_seq == event->hw.interrupts_seq;
	raw_spin_unlock(&qpiu_probe_lock);
	*count = now ? event->hw.interrupts : 0;
	return true;
}

static unsigned int qpiu_deliver(struct perf_event *event, u64 period, u64 n,
				 struct pt_regs *regs)
{
	struct perf_sample_data data;
	unsigned int done = 0;

	/*
	 * perf drops a throttled event's samples (perf_swevent_overflow()
	 * does; a hardware PMU is stopped): offering one would restart the
	 * count of hw.interrupts from MAX_INTERRUPTS and end the throttle.
	 */
	if (qpiu_sample_throttled(event))
		return 0;
	while (n--) {
		perf_sample_data_init(&data, 0, period);
		done++;
		if (perf_event_overflow(event, &data, regs)) {
			qpiu_sample_stop(event);
			break;
		}
	}
	/* test builds: the throttle's drop on another CPU, as on the other route */
	qpiu_test_deliver_done();
	return done;
}

#elif defined(QPIU_HAVE_PERF_TP_EVENT)

const char *const qpiu_sample_route = "perf_tp_event";

/*
 * One call into perf's software-event overflow code, adding nothing to
 * event->count (nr 0).  perf_tp_event() stamps a trace_entry header into
 * @rec.  Returns true when perf_event_overflow() said stop: the event
 * reached its refresh limit, or perf throttles it.
 */
static bool qpiu_tp_one(struct perf_event *event, struct hlist_head *head,
			struct pt_regs *regs)
{
	int limit = atomic_read(&event->event_limit);
	struct trace_entry rec = { };
	int rctx;

	rctx = perf_swevent_get_recursion_context();
	if (rctx < 0)
		return false;
	perf_tp_event(0, 0, &rec, sizeof(rec), regs, head, rctx, NULL);
	return (limit && !atomic_read(&event->event_limit)) ||
	       qpiu_sample_throttled(event);
}

static unsigned int qpiu_deliver(struct perf_event *event, u64 period, u64 n,
				 struct pt_regs *regs)
{
	struct hw_perf_event *hwc = &event->hw;
	s64 left = local64_read(&hwc->period_left);
	u64 last = hwc->last_period;
	u64 stamp = hwc->freq_time_stamp;
	u64 sample_period = hwc->sample_period;
	bool period_type = event->attr.sample_type & PERF_SAMPLE_PERIOD;
	unsigned int done;
	bool stop;
	int stopped = hwc->state & PERF_HES_STOPPED;
	HLIST_HEAD(head);

	hlist_add_head_rcu(&event->hlist_entry, &head);
	rcu_read_lock();
	/* del() and stop() hand over the due samples of an event they stop */
	hwc->state &= ~PERF_HES_STOPPED;
	/*
	 * n periods at once: perf_swevent_set_period() finds them in
	 * period_left and takes them in one loop that throttles after the
	 * first and stops when perf_event_overflow() says so.
	 */
	hwc->last_period = period;
	local64_set(&hwc->period_left, (n - 1) * period);
	if (period_type) {
		/*
		 * With PERF_SAMPLE_PERIOD and a fixed period, perf would take
		 * one sample of period nr and add nr to event->count, which
		 * a reader on another CPU would see go down when it is put
		 * back.  As a frequency event it takes the period_left path
		 * instead, with nr 0: event->count never moves.  Its first
		 * sample skips perf's frequency update (a time stamp in the
		 * future); the others change hw.sample_period, which is put
		 * back: perf_adjust_period() resets nothing else while
		 * period_left is below 8 periods, as it is here (negative).
		 */
		event->attr.freq = 1;
		hwc->freq_time_stamp = S64_MAX;
	}
	/* test builds: hold the window open for a read from another CPU */
	qpiu_test_deliver_window();
	stop = qpiu_tp_one(event, &head, regs);
	/*
	 * test builds: and after perf's call, for the throttle's drop on
	 * another CPU, while hw.period_left is still perf's
	 */
	qpiu_test_deliver_done();
	event->attr.freq = 0;
	hwc->sample_period = sample_period;
	done = n;
	hwc->state |= stopped;
	rcu_read_unlock();
	hlist_del_init_rcu(&event->hlist_entry);
	local64_set(&hwc->period_left, left);
	hwc->last_period = last;
	hwc->freq_time_stamp = stamp;
	if (stop)
		qpiu_sample_stop(event);
	return done;
}

#else

const char *const qpiu_sample_route;

#endif

#if !defined(QPIU_HAVE_PERF_EVENT_OVERFLOW)
/*
 * The perf_tp_event route checks no first sample of a call (its loop
 * throttles from the second on), and after it hw.interrupts is perf's
 * count of this tick: no probe is needed.
 */
void qpiu_sample_prepare(void)
{
}

void qpiu_sample_exit(void)
{
}

bool qpiu_sample_first_checked(void)
{
	return false;
}

bool qpiu_sample_tick_count(const struct perf_event *event, u64 *count)
{
	return false;
}
#endif

#if !defined(QPIU_HAVE_PERF_EVENT_OVERFLOW) && !defined(QPIU_HAVE_PERF_TP_EVENT)

static unsigned int qpiu_deliver(struct perf_event *event, u64 period, u64 n,
				 struct pt_regs *regs)
{
	return 0;
}

#endif

/**
 * qpiu_sample_emit - take @n samples of @event, each of @period events
 * @event: a sampling event, active on this CPU
 * @period: events per sample
 * @n: samples due
 *
 * Called from the box timer, in hard interrupt context on the event's CPU,
 * and from del() and stop() on that CPU, without the box lock: perf reads
 * the other members of a sampling group through their pmu->read().  The
 * samples report event->count, which the caller brought up to date and
 * which is never written here.  Returns how many samples were offered to
 * perf (it may still drop them while throttled).
 */
unsigned int qpiu_sample_emit(struct perf_event *event, u64 period, u64 n)
{
	struct qpiu_box *box = event->pmu_private;
	struct pt_regs *regs = get_irq_regs();
	struct pt_regs caller;
	unsigned int done;

	lockdep_assert_irqs_disabled();
	if (!regs) {
		perf_fetch_caller_regs(&caller);
		regs = &caller;
	}
	/*
	 * Nothing folds into the event meanwhile (qpiu_event_update()): a
	 * read from another CPU of the socket waits for no lock of ours
	 * and may come at any time.  The flag is set and cleared under
	 * box->lock, which orders what this CPU wrote before it against
	 * that read.
	 */
	raw_spin_lock(&box->lock);
	event->hw.flags |= QPIU_HWF_DELIVER;
	raw_spin_unlock(&box->lock);
	done = qpiu_deliver(event, period, n, regs);
	raw_spin_lock(&box->lock);
	event->hw.flags &= ~QPIU_HWF_DELIVER;
	raw_spin_unlock(&box->lock);
	return done;
}

/*
 * /sys/module/qpi_uncore/parameters/sample_route: how this build hands perf
 * its samples, which depends on what the kernel exports.  qpistat --check
 * reports it; "none" means the PMUs count but refuse sampling events.
 */
static int qpiu_sample_route_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", qpiu_sample_route ?: "none");
}

static const struct kernel_param_ops qpiu_sample_route_ops = {
	.get = qpiu_sample_route_get,
};
module_param_cb(sample_route, &qpiu_sample_route_ops, NULL, 0444);
MODULE_PARM_DESC(sample_route,
		 "how samples reach perf: perf_event_overflow, perf_tp_event or none (counting only)");
