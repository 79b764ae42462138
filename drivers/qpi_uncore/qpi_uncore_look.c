// SPDX-License-Identifier: GPL-2.0
/*
 * The look engine: the box timer, which folds counts, reads counter
 * controls back and looks for sampling events that completed a period;
 * what it collects and re-arms, when it looks next, and the tick that
 * paces samples to perf's limit.  The perf callbacks (qpi_uncore_event.c)
 * start it and hand it what they stop.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/module.h>
#include <linux/smp.h>
#include <linux/sysfs.h>

#include "qpi_uncore.h"
#include "qpi_uncore_compat.h"

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
 * Work per look: at most this many samples per paced event (and at most
 * QPIU_CALL_SAMPLES over the box); periods beyond it are carried over to
 * a look QPIU_CARRY_NS later.  Each event has its own, as perf's limit is
 * per event: an event at its limit holds back no other.
 */
#define QPIU_LOOK_SAMPLES	64
#define QPIU_CARRY_NS		(20 * NSEC_PER_USEC)

/*
 * perf counts an event's samples between two ticks of its CPU in
 * hw.interrupts: the first sample after a tick (perf_event_task_tick()
 * moved the CPU's perf_throttled_seq) sets it to 1, each later one adds 1,
 * and the sample that brings it to max_samples_per_tick throttles the
 * event (a THROTTLE record) until the next tick (UNTHROTTLE).  In the
 * perf_tp_event route the first sample of a call is not checked, so a call
 * of one sample never throttles; in the perf_event_overflow route every
 * sample is.  An idle NO_HZ reader CPU may take no tick for seconds:
 * perf's count would then never start afresh, and a throttle never end.
 * So after the box offered samples, a timer gives the reader CPU its next
 * tick (qpiu_box_want_tick()).
 *
 * That timer's run is no proof that perf's tick came: on a busy machine
 * jiffies can move on by more than one between two ticks of the reader
 * CPU, and the timer then runs two or three times between two of perf's
 * ticks.  So the box follows perf's own count instead: a look that finds
 * more than one period of a paced event offers one sample first, reads
 * hw.interrupts, and offers only as many more as keep that count below
 * perf's limit of a tick (qpiu_tick_limit()).  The periods not offered are
 * carried (QPIU_HES_DUE), and the box offers no paced sample until the
 * timer's next run (the event's bit in tick_wait; other events of the
 * box go on), whose look asks perf again: one sample
 * more for a run that came before perf's tick.  Up to qpiu_pace_max()
 * periods of an event (8 ticks' worth) are paced so; more are offered
 * QPIU_CALL_SAMPLES at a time, and perf throttles as it would.
 */

/*
 * perf's limit of a tick, max_samples_per_tick, is private to perf, and it
 * moves: a write of kernel.perf_event_max_sample_rate sets it to
 * DIV_ROUND_UP(rate, HZ) (perf_proc_update_handler()), and
 * perf_sample_event_took() lowers it to some max whenever perf's
 * interrupts run long, writing max * HZ into that same sysctl.  So
 * DIV_ROUND_UP(the sysctl, HZ) is perf's limit either way, on every
 * kernel from 5.10 to 7.3 (Documentation/qpi_uncore.rst, "The contract
 * with perf").  No kernel exports the variable, and a kernel thread
 * cannot count on reaching the sysctl's file (7.x gives it a root of its
 * own).  What perf does export is perf_event_period(), which refuses a
 * frequency-mode event a sample_freq above the sysctl: the driver keeps a
 * disabled frequency-mode dummy event (no counter, no sample; perf's tick
 * looks at it on its CPU) and asks it, from a work: whether the rate it
 * knows is still taken and one more refused (two calls), else the largest
 * taken (a binary search).  When a sampling event opens, and queued by
 * the box timer while samples flow (every QPIU_LIMIT_FRESH_BUSY) or idle
 * (QPIU_LIMIT_FRESH_IDLE).  Until a change is read, pacing to the old
 * limit may let perf throttle once.
 */
#define QPIU_LIMIT_FRESH_BUSY	(HZ / 10 ?: 1)
#define QPIU_LIMIT_FRESH_IDLE	HZ

#define QPIU_DEFAULT_TICK_LIMIT	DIV_ROUND_UP(100000, HZ)

static unsigned int qpiu_perf_tick_limit = QPIU_DEFAULT_TICK_LIMIT;
static unsigned long qpiu_limit_read_at;	/* jiffies */
static bool qpiu_limit_read_once;
/* the dummy event and the rate it last found, under qpiu_limit_mutex */
static DEFINE_MUTEX(qpiu_limit_mutex);
static struct perf_event *qpiu_limit_ev;
static u64 qpiu_perf_rate = 100000;

static bool qpiu_rate_taken(u64 rate)
{
	return !perf_event_period(qpiu_limit_ev, rate);
}

static void qpiu_limit_fn(struct work_struct *work)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_DUMMY,
		.freq = 1,
		.sample_freq = 1,
		.disabled = 1,
	};
	u64 lo, hi, rate;

	WRITE_ONCE(qpiu_limit_read_at, jiffies);
	WRITE_ONCE(qpiu_limit_read_once, true);
	/* the sample route's own kernel event, if it needs one, likewise */
	qpiu_sample_prepare();
	mutex_lock(&qpiu_limit_mutex);
	if (!qpiu_limit_ev) {
		struct perf_event *event;

		event = perf_event_create_kernel_counter(&attr,
							 raw_smp_processor_id(),
							 NULL, NULL, NULL);
		if (IS_ERR(event))
			goto out;
		qpiu_limit_ev = event;
	}
	rate = qpiu_perf_rate;
	if (!qpiu_rate_taken(rate) || qpiu_rate_taken(rate + 1)) {
		/* the largest rate taken, in [1, INT_MAX] (an int sysctl) */
		lo = 1;
		hi = INT_MAX;
		if (!qpiu_rate_taken(lo))
			goto out;
		while (lo < hi) {
			u64 mid = lo + (hi - lo + 1) / 2;

			if (qpiu_rate_taken(mid))
				lo = mid;
			else
				hi = mid - 1;
		}
		rate = lo;
		qpiu_perf_rate = rate;
	}
	WRITE_ONCE(qpiu_perf_tick_limit, max_t(u64, DIV_ROUND_UP_ULL(rate, HZ),
					       1));
out:
	mutex_unlock(&qpiu_limit_mutex);
}

static DECLARE_WORK(qpiu_limit_work, qpiu_limit_fn);

/* perf's max_samples_per_tick as last read */
static unsigned int qpiu_tick_limit(void)
{
	return READ_ONCE(qpiu_perf_tick_limit);
}

/*
 * The most periods of an event paced to perf's limit: 8 ticks' worth, at
 * most 8 ticks at perf's default limit (a backlog past that is offered
 * QPIU_CALL_SAMPLES a callback, bounded work however far the limit is
 * raised).
 */
static u64 qpiu_pace_max(void)
{
	unsigned int limit = clamp(qpiu_tick_limit(), 2U,
				   (unsigned int)QPIU_DEFAULT_TICK_LIMIT);

	return 8 * ((u64)limit - 1);
}

/*
 * A sampling event opens: perf's limit now, before its first sample.
 * Process context, no perf lock held (the work takes the dummy event's
 * context mutex).
 */
void qpiu_look_read_limit(void)
{
	queue_work(qpiu_system_wq, &qpiu_limit_work);
	flush_work(&qpiu_limit_work);
}

/* Any context: read perf's limit again if the last read is older than @age. */
static void qpiu_look_limit_fresh(unsigned long age)
{
	if (!READ_ONCE(qpiu_limit_read_once) ||
	    time_after(jiffies, READ_ONCE(qpiu_limit_read_at) + age))
		queue_work(qpiu_system_wq, &qpiu_limit_work);
}

static int qpiu_tick_limit_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%u\n", qpiu_tick_limit());
}

static const struct kernel_param_ops qpiu_tick_limit_ops = {
	.get = qpiu_tick_limit_get,
};
module_param_cb(sample_tick_limit, &qpiu_tick_limit_ops, NULL, 0444);
MODULE_PARM_DESC(sample_tick_limit,
		 "Sampling: perf's limit of samples per event per tick, as the driver last read it (kernel.perf_event_max_sample_rate / HZ); samples are paced to stay below it");

/*
 * The most samples offered perf in one interrupt of a CPU, over the box
 * timer callbacks, del()s and stop()s it runs: one more than perf's default
 * limit of a tick, enough for perf to throttle an event at that limit in
 * one call.  Per CPU, not per box: a socket's boxes share a reader CPU,
 * whose tick timers restart their box timers together, and a rotation
 * del()s the events of every box in one callback.
 * perf stops a hand-over once it throttles, but the limit is a sysctl
 * (kernel.perf_event_max_sample_rate) with no upper bound: raised, perf
 * would take a whole backlog, counters x periods, with interrupts off.
 * The timer carries the rest over (QPIU_HES_DUE) to a look QPIU_CARRY_NS
 * later; del() and stop() drop it (qpiu_take_due_last()).
 */
#define QPIU_CALL_SAMPLES	(DIV_ROUND_UP(100000, HZ) + 1)

/*
 * The samples taken for perf in the current interrupt of this CPU: reset
 * by a hard irq_work queued with the first, which runs once the interrupt
 * (or the section with interrupts off) is over.
 */
static DEFINE_PER_CPU(unsigned int, qpiu_cpu_taken);

static void qpiu_cpu_taken_reset(struct irq_work *work)
{
	this_cpu_write(qpiu_cpu_taken, 0);
}

static DEFINE_PER_CPU(struct irq_work, qpiu_cpu_taken_work);

/* What this CPU may still take in this interrupt; interrupts off. */
static u64 qpiu_cpu_room(void)
{
	unsigned int taken = this_cpu_read(qpiu_cpu_taken);

	return taken < QPIU_CALL_SAMPLES ? QPIU_CALL_SAMPLES - taken : 0;
}

/* @n samples taken on this CPU in this interrupt; interrupts off. */
static void qpiu_cpu_take(u64 n)
{
	if (!n)
		return;
	if (!this_cpu_read(qpiu_cpu_taken))
		qpiu_irq_work_queue_hard(this_cpu_ptr(&qpiu_cpu_taken_work),
					 qpiu_cpu_taken_reset);
	this_cpu_add(qpiu_cpu_taken, n);
}

static u64 qpiu_poll_ns(void)
{
	return (u64)READ_ONCE(qpiu_poll_us) * NSEC_PER_USEC;
}

/*
 * The whole periods that @event completed, at most @max of them: n of the
 * one armed; what came after the last of them starts the next period, as
 * on x86, where period_left <= 0 means "overflowed by that much".  Periods
 * beyond @max stay in hw.period_left for the next look.  They are no
 * longer carried (QPIU_HES_DUE) once taken.
 */
bool qpiu_take_due(struct perf_event *event, struct qpiu_due *due, u64 max)
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
 * del() and stop(): the event leaves its counter, or its period changes
 * (PERF_EVENT_IOC_PERIOD, after which perf resets hw.period_left), so its
 * periods cannot be carried to a later look.  At most what this CPU may
 * still offer in this interrupt (QPIU_CALL_SAMPLES) go to @due; the rest
 * are dropped, as perf at its default limit would drop them, throttled.
 */
bool qpiu_take_due_last(struct perf_event *event, struct qpiu_due *due,
			bool keep)
{
	struct qpiu_due rest;

	if (!keep) {
		qpiu_take_due(event, &rest, U64_MAX);
		return false;
	}
	if (!qpiu_take_due(event, due, qpiu_cpu_room())) {
		/* none taken (no room left): drop them all */
		if (event->hw.state & QPIU_HES_DUE)
			qpiu_take_due(event, &rest, U64_MAX);
		return false;
	}
	qpiu_cpu_take(due->n);
	if (event->hw.state & QPIU_HES_DUE)
		qpiu_take_due(event, &rest, U64_MAX);
	return true;
}

/*
 * Look for sampling events that completed a period.  Only what a sample
 * reads is stopped: each such event's own counter, disabled (en clear in
 * its control) while its count is brought up to date and, in
 * qpiu_box_rearm(), its next period written; every other counter of the
 * box counts on, so a counting event beside loses nothing.  The other
 * members of a sampling group (PERF_SAMPLE_READ) need no snapshot here:
 * perf reads them through pmu->read() as it writes the sample, after the
 * re-arm.  @seen gets each sampling counter's hw.period_left before any
 * period is taken, @stopped the counters disabled, @paced the entries of
 * @due that are paced to perf's count of a tick; @resched is set when a
 * foreign write was found (qpiu_foreign_look()).  Returns the number of
 * entries in @due.
 */
static unsigned int qpiu_box_collect(struct qpiu_box *box,
				     struct qpiu_due *due, s64 *seen,
				     u32 *stopped, u32 *paced, bool *resched)
{
	const struct qpiu_box_desc *desc = box->pmu->desc;
	unsigned int i, nr = 0;
	u32 status = 0, armed = 0, carried = 0;
	u64 room = qpiu_cpu_room(), call = room, max;
	u64 pace_max = qpiu_pace_max();
	bool any = false, pace;

	*stopped = 0;
	*paced = 0;
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

	for (i = 0; i < desc->nr_ctrs; i++) {
		struct perf_event *event = box->events[i];

		/* perf writes a sample on the event's own CPU only */
		if (!qpiu_running(event) || !is_sampling_event(event) ||
		    seen[i] > 0 || event->oncpu != smp_processor_id())
			continue;
		/* a foreign write, before the re-arm writes over it */
		*resched |= qpiu_foreign_look(box, i);
		qpiu_box_disable_counter(box, i, event->hw.config);
		*stopped |= BIT(i);
		/* what it counted since the first read */
		qpiu_event_update(box, event);
		if (!(event->hw.config & UNC_CTL_OV_EN))
			continue;
		armed |= BIT(i);
		/* its period completed before a restart: BOX_STATUS has no bit */
		if (event->hw.state & QPIU_HES_DUE)
			carried |= BIT(i);
	}
	/*
	 * The counter is the record; BOX_STATUS must agree with it for the
	 * counters stopped here, whose periods are complete: a box that
	 * disagrees is not behaving as the guide says, say so once.  Periods
	 * carried over by the last look, or across a restart, have no bit any
	 * more.  A running counter may overflow between its read and this
	 * one, so its bit says nothing yet: it is left for its own look.
	 */
	if (armed) {
		status = qpiu_box_read_status(box);
		if (armed & ~carried & ~status && !box->warned_status) {
			box->warned_status = true;
			pr_warn("%s: socket %u: BOX_STATUS 0x%x, but counters 0x%x completed their period\n",
				box->pmu->name, box->socket, status & armed,
				armed);
		}
		qpiu_box_clear_status(box, status & armed);
	}

	for (i = 0; i < desc->nr_ctrs; i++) {
		struct perf_event *event = box->events[i];
		s64 left;

		if (!(*stopped & BIT(i)))
			continue;
		left = local64_read(&event->hw.period_left);
		/*
		 * Throttled: perf drops them all until its next tick.  Past
		 * qpiu_pace_max(): perf throttles them after its limit of a
		 * tick.  Nothing to pace either way; but at most
		 * QPIU_CALL_SAMPLES in this callback, the rest carried.
		 */
		pace = !qpiu_sample_throttled(event) &&
		       !(event->hw.last_period &&
			 (u64)-left / event->hw.last_period >= pace_max);
		max = !pace ? call : (box->tick_wait & BIT(i)) ? 0 :
		      min_t(u64, QPIU_LOOK_SAMPLES, call);
		if (qpiu_take_due(event, &due[nr], max)) {
			call -= due[nr].n;
			if (pace)
				*paced |= BIT(nr);
			nr++;
		}
		box->carried |= !!(event->hw.state & QPIU_HES_DUE);
	}
	qpiu_cpu_take(room - call);
	box->cpu_full = box->carried && !call;
	return nr;
}

/*
 * Start the next periods of the events in @due, at the boundary after
 * the periods taken, and restart every counter collect stopped.
 */
static void qpiu_box_rearm(struct qpiu_box *box, struct qpiu_due *due,
			   unsigned int nr, u32 stopped)
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
	for (i = 0; i < box->pmu->desc->nr_ctrs; i++)
		if (stopped & BIT(i))
			qpiu_box_start_counter(box, i,
					       box->events[i]->hw.config);
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
	bool moved = false, unknown = false, now_due = false;
	unsigned int i;

	for (i = 0; i < box->pmu->desc->nr_ctrs; i++) {
		struct perf_event *event = box->events[i];
		s64 left;

		if (!qpiu_running(event) || !is_sampling_event(event)) {
			box->look_ev[i] = NULL;
			continue;
		}
		left = local64_read(&event->hw.period_left);
		/* carried, and not waiting for the tick timer's next run */
		now_due |= (event->hw.state & QPIU_HES_DUE) &&
			   !(box->tick_wait & BIT(i));
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
	/*
	 * perf's count of the tick is spent, or this CPU's bound: in the
	 * same interrupt a look 20 us later would find no room, so
	 * qpiu_box_tick() restarts
	 */
	if (box->carried)
		return now_due && !box->cpu_full ? QPIU_CARRY_NS : TICK_NSEC;
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
 * The timer runs in a tick of the reader CPU, mostly after perf started
 * its count of samples afresh and lifted throttles (but see
 * qpiu_tick_limit()): the box may offer paced samples again, as many as
 * perf's count allows, and takes what it carries over now.
 */
static void qpiu_box_tick(struct timer_list *t)
{
	struct qpiu_box *box = container_of(t, struct qpiu_box, tick_timer);
	unsigned long flags;

	raw_spin_lock_irqsave(&box->lock, flags);
	box->tick_wait = 0;
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

		/* not one perf has on another CPU (QPIU_HWF_DELIVER) */
		if (event && is_sampling_event(event) &&
		    qpiu_sample_throttled(event) &&
		    !(event->hw.flags & QPIU_HWF_DELIVER) &&
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
		*resched |= qpiu_foreign_check(box);
		box->check_next = now + interval;
	}
	return box->check_next - now;
}

/*
 * Offer the samples of a paced event, as many as perf takes in its current
 * tick without throttling (qpiu_tick_limit(), qpiu_pace_room()).  Leaves
 * in @due->n the periods not offered, for qpiu_box_carry_back(); none if
 * perf throttled or stopped the event, which drops them (a THROTTLE record
 * accounts for them).  Returns the samples offered.
 *
 * On the perf_tp_event route perf checks no first sample of a call: one
 * goes first, after which hw.interrupts is perf's count of this tick, that
 * one included, and the rest keep it below the limit.  On the
 * perf_event_overflow route perf checks every sample, the first too: a
 * look that finds the count at the limit minus one, with perf's tick
 * still to come, must offer none.  There the route tells whether the count
 * is this tick's (qpiu_sample_tick_count()), and every sample keeps to
 * it; where it cannot, one sample goes first as on the other route, and
 * the rest leave one of the tick's samples spare, so that the next look's
 * first sample, offered before anyone knows whether perf's tick came, stays
 * below the limit too.
 */
static unsigned int qpiu_emit_paced(struct qpiu_due *due)
{
	struct perf_event *event = due->event;
	unsigned int offered = 0, limit = qpiu_tick_limit(), spare = 0;
	u64 count, room;

	if (qpiu_sample_first_checked()) {
		if (qpiu_sample_tick_count(event, &count)) {
			room = min(qpiu_pace_room(count, limit, 0), due->n);
			if (room)
				offered = qpiu_sample_emit(event, due->period,
							   room);
			due->n -= room;
			/* as below, for what is left */
			if (qpiu_sample_throttled(event) ||
			    !qpiu_running(event))
				due->n = 0;
			return offered;
		}
		spare = 1;
	}
	offered = qpiu_sample_emit(event, due->period, 1);
	due->n--;
	if (!due->n)
		return offered;
	/*
	 * perf said stop: throttled, or at its PERF_EVENT_IOC_REFRESH limit,
	 * where qpiu_sample_stop() stopped the event.  perf disables it only
	 * later, from irq_work, and writes whatever is offered meanwhile: its
	 * limit, now 0, is checked no more.
	 */
	if (qpiu_sample_throttled(event) || !qpiu_running(event)) {
		due->n = 0;
		return offered;
	}
	count = READ_ONCE(event->hw.interrupts);
	room = min(qpiu_pace_room(count, limit, spare), due->n);
	if (room)
		offered += qpiu_sample_emit(event, due->period, room);
	due->n -= room;
	return offered;
}

/*
 * The periods of @due that qpiu_emit_paced() did not offer go back into
 * hw.period_left, carried (QPIU_HES_DUE), for a look after the timer's
 * next run.  The counter stays armed for the boundary after them: the
 * re-arm left hw.period_left at what is left of that period, so k periods
 * back make it k periods less, as qpiu_take_due() reads it.  The rate
 * estimate's record of it moves the same way.  The event is still on its
 * counter: del() and perf's other callbacks run on this CPU with
 * interrupts off.  A period that changed at the re-arm (perf adjusted a
 * frequency event's) would be miscounted: those samples are offered at
 * once instead, and perf throttles as it would.  Returns the samples so
 * offered.
 */
static unsigned int qpiu_box_carry_back(struct qpiu_box *box,
					struct qpiu_due *due, unsigned int nr,
					u32 paced)
{
	unsigned int i, offered = 0;
	unsigned long flags;
	bool back = false;

	raw_spin_lock_irqsave(&box->lock, flags);
	for (i = 0; i < nr; i++) {
		struct perf_event *event = due[i].event;
		struct hw_perf_event *hwc = &event->hw;
		s64 k = due[i].n * due[i].period;

		if (!(paced & BIT(i)) || !due[i].n)
			continue;
		if (hwc->last_period != due[i].period || hwc->idx < 0 ||
		    box->events[hwc->idx] != event)
			continue;
		local64_sub(k, &hwc->period_left);
		hwc->state |= QPIU_HES_DUE;
		box->tick_wait |= BIT(hwc->idx);
		if (box->look_ev[hwc->idx] == event)
			box->look_left[hwc->idx] -= k;
		due[i].n = 0;
		back = true;
	}
	if (back) {
		box->carried = true;
		qpiu_box_want_tick(box);
	}
	raw_spin_unlock_irqrestore(&box->lock, flags);

	for (i = 0; i < nr; i++)
		if ((paced & BIT(i)) && due[i].n)
			offered += qpiu_sample_emit(due[i].event,
						    due[i].period, due[i].n);
	return offered;
}

#ifdef QPIU_TEST_HOOKS
static u64 qpiu_box_look(struct qpiu_box *box);

/*
 * Test builds: the box timer's callback run on another CPU than the
 * reader while the reader hands an event to perf, as when the hrtimer
 * stayed on the old reader through a reader change (an hrtimer keeps its
 * CPU while its callback runs), with a foreign tool writing the event's
 * counter control and traffic moving the counter meanwhile, so that the
 * read-back finds it then (qpi_uncore_test.c, test_elsewhere_ctl).  Or
 * the throttle's drop of carried periods run there once perf throttled
 * the event, with perf's call over but hw.period_left still perf's
 * (test_elsewhere_drop).  Nothing else runs the drop so: it runs at the
 * end of a look that handed perf samples of events on its own CPU, only a
 * look's delivery leaves periods carried (del() and stop() drop what they
 * cannot offer, qpiu_take_due_last()), and one box's looks never overlap
 * (one hrtimer); the hook calls it directly, to hold the drop to
 * QPIU_HWF_DELIVER should that change.  One at a time: the reader's
 * delivery waits for it (qpiu_test_deliver_window(),
 * qpiu_test_deliver_done()).  An IPI: no irq_work can be queued on
 * another CPU from a module.
 */
static struct {
	call_single_data_t csd;
	struct qpiu_box *box;
	struct perf_event *event;
	u32 ctl;
	bool drop;
} qpiu_elsewhere;

/*
 * The reader has handed @event to perf (it then waits for this CPU), and,
 * if @throttled, perf throttled it there.
 */
static bool qpiu_elsewhere_delivering(struct qpiu_box *box,
				      struct perf_event *event, bool throttled)
{
	unsigned long flags;
	bool ret;

	raw_spin_lock_irqsave(&box->lock, flags);
	ret = (event->hw.flags & QPIU_HWF_DELIVER) &&
	      (!throttled || qpiu_sample_throttled(event));
	raw_spin_unlock_irqrestore(&box->lock, flags);
	return ret;
}

static void qpiu_look_elsewhere_fn(void *info)
{
	struct qpiu_box *box = qpiu_elsewhere.box;
	struct perf_event *event = qpiu_elsewhere.event;
	bool drop = qpiu_elsewhere.drop;
	unsigned int us, idx;
	unsigned long flags;
	u64 val;

	/* at most a second */
	for (us = 0; !qpiu_elsewhere_delivering(box, event, drop); us += 5) {
		if (us >= USEC_PER_SEC) {
			qpiu_test_elsewhere_ran(false);
			return;
		}
		udelay(5);
	}
	if (drop) {
		qpiu_box_drop_carried(box);
		qpiu_test_elsewhere_ran(true);
		return;
	}
	raw_spin_lock_irqsave(&box->lock, flags);
	idx = event->hw.idx;
	if (!box->dead && event->hw.idx >= 0 && box->events[idx] == event) {
		/*
		 * the control only: a tool that also resets the counter
		 * changes the count, which no read-back can undo
		 */
		qpiu_box_start_counter(box, idx, qpiu_elsewhere.ctl);
		if (!qpiu_box_read_counter(box, idx, &val))
			qpiu_box_write_counter(box, idx,
					       (val + qpiu_test_elsewhere_events()) &
					       (BIT_ULL(box->pmu->desc->width) - 1));
	}
	/* the read-back is due in this callback */
	box->check_next = 0;
	raw_spin_unlock_irqrestore(&box->lock, flags);
	qpiu_box_look(box);
	qpiu_test_elsewhere_ran(true);
}

/* Before the box timer hands @event to perf: the hook, if armed. */
static void qpiu_look_elsewhere(struct qpiu_box *box, struct perf_event *event)
{
	unsigned int cpu;
	bool drop = false;
	u32 ctl;

	ctl = qpiu_test_elsewhere_take();
	if (!ctl)
		drop = qpiu_test_elsewhere_drop_take();
	if (!ctl && !drop)
		return;
	cpu = cpumask_any_but(cpu_online_mask, smp_processor_id());
	qpiu_elsewhere.box = box;
	qpiu_elsewhere.event = event;
	qpiu_elsewhere.ctl = ctl;
	qpiu_elsewhere.drop = drop;
	qpiu_elsewhere.csd.func = qpiu_look_elsewhere_fn;
	qpiu_elsewhere.csd.info = NULL;
	if (cpu >= nr_cpu_ids ||
	    smp_call_function_single_async(cpu, &qpiu_elsewhere.csd))
		qpiu_test_elsewhere_ran(false);
}
#else
static inline void qpiu_look_elsewhere(struct qpiu_box *box,
				       struct perf_event *event)
{
}
#endif

/*
 * The box timer's work: a sampling look, a fold, a read-back, whichever
 * is due.  Returns the time to the next, U64_MAX when the box has no
 * running event left.  Runs on the CPU the box's hrtimer is on, which is
 * not always the reader of the events it looks at (see
 * qpiu_look_elsewhere()).
 */
static u64 qpiu_box_look(struct qpiu_box *box)
{
	struct qpiu_due due[UNC_MAX_CTRS];
	s64 seen[UNC_MAX_CTRS];
	unsigned int nr = 0, i, offered = 0;
	unsigned long flags;
	u32 stopped, paced = 0;
	u64 now = ktime_get_ns(), next;
	bool throttled = false, resched = false;

	raw_spin_lock_irqsave(&box->lock, flags);
	if (!box->n_active || box->dead) {
		raw_spin_unlock_irqrestore(&box->lock, flags);
		return U64_MAX;
	}
	if (qpiu_test_looks_held()) {
		raw_spin_unlock_irqrestore(&box->lock, flags);
		return NSEC_PER_MSEC;
	}
	next = box->fold_ns;
	if (box->n_sampling) {
		nr = qpiu_box_collect(box, due, seen, &stopped, &paced,
				      &resched);
		qpiu_box_rearm(box, due, nr, stopped);
		next = qpiu_box_plan(box, now, seen);
		if (nr || box->carried || qpiu_box_throttled(box))
			qpiu_box_want_tick(box);
		/* under box->lock: see qpiu_look_sampling_gone() */
		qpiu_look_limit_fresh(nr || box->carried ?
				      QPIU_LIMIT_FRESH_BUSY :
				      QPIU_LIMIT_FRESH_IDLE);
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
	 * Unlocked, and with every counter counting again: perf reads group
	 * members through pmu->read().
	 */
	for (i = 0; i < nr; i++) {
		qpiu_look_elsewhere(box, due[i].event);
		if (paced & BIT(i))
			offered += qpiu_emit_paced(&due[i]);
		else
			offered += qpiu_sample_emit(due[i].event,
						    due[i].period, due[i].n);
		throttled |= qpiu_sample_throttled(due[i].event);
	}
	if (paced)
		offered += qpiu_box_carry_back(box, due, nr, paced);
	qpiu_test_offered(false, offered);
	if (throttled)
		qpiu_box_drop_carried(box);
	return next;
}

enum hrtimer_restart qpiu_box_timer(struct hrtimer *hrtimer)
{
	struct qpiu_box *box = container_of(hrtimer, struct qpiu_box, hrtimer);
	u64 next = qpiu_box_look(box);

	if (next == U64_MAX)
		return HRTIMER_NORESTART;
	hrtimer_forward_now(hrtimer, ns_to_ktime(next));
	return HRTIMER_RESTART;
}

/* The box timer's first run: a look, a fold or a read-back, the soonest. */
u64 qpiu_box_first_ns(const struct qpiu_box *box)
{
	u64 first = box->n_sampling ? qpiu_poll_ns() : box->fold_ns;
	u64 check = qpiu_foreign_interval_ns();

	return check ? min(first, check) : first;
}

/*
 * The box's first sampling event was added: its tick timer, set up once
 * (on the reader CPU, pinned), and a fresh rate estimate.
 */
void qpiu_look_sampling_started(struct qpiu_box *box)
{
	if (!box->tick_timer_ready) {
		timer_setup(&box->tick_timer, qpiu_box_tick, TIMER_PINNED);
		box->tick_timer_ready = true;
		box->tick_wait = 0;
	}
	box->look_gap = 0;
}

/*
 * A sampling event of the box is gone: its tick timer may still be queued.
 * perf deleted the event before; the timer is armed again only while the
 * box has sampling events, each of which passes here.
 */
void qpiu_look_sampling_gone(struct qpiu_box *box)
{
	int cpu;

	if (READ_ONCE(box->tick_timer_ready))
		qpiu_timer_delete_sync(&box->tick_timer);
	/*
	 * A box timer queues the read of perf's limit under box->lock only
	 * while the box has sampling events, and perf's del() took this one
	 * off under it: once the module's last sampling event is gone,
	 * nothing queues it again before rmmod, nor creates the dummy event
	 * released here.
	 */
	cancel_work_sync(&qpiu_limit_work);
	/* the next read creates it again, if sampling events remain */
	mutex_lock(&qpiu_limit_mutex);
	if (qpiu_limit_ev)
		perf_event_release_kernel(qpiu_limit_ev);
	qpiu_limit_ev = NULL;
	mutex_unlock(&qpiu_limit_mutex);
	/*
	 * Nor the reset of a CPU's bound (QPIU_CALL_SAMPLES): queued only on
	 * the event's CPU, by its del() or stop() or a box timer there, which
	 * perf's removal of the event (an IPI it waits for) follows.  A CPU
	 * that went offline ran its queued works as it went
	 * (smpcfd_dying_cpu()).  A NULL func: never queued since the load.
	 */
	for_each_possible_cpu(cpu)
		if (per_cpu_ptr(&qpiu_cpu_taken_work, cpu)->func)
			irq_work_sync(per_cpu_ptr(&qpiu_cpu_taken_work, cpu));
	qpiu_test_offered_sync();
}
