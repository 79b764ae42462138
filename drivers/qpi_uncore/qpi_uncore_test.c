// SPDX-License-Identifier: GPL-2.0
/*
 * Test builds only (make QPIU_TEST_HOOKS=1; the VM bench builds so, the
 * install, DKMS and package builds never do): knobs that hold a race
 * window open long enough for a selftest to hit it every time, where
 * nothing in qpisim could.
 */
#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/irq_work.h>
#include <linux/moduleparam.h>
#include <linux/smp.h>

#include "qpi_uncore.h"
#include "qpi_uncore_compat.h"

/*
 * How long an event's destroy() sleeps after the event is no longer
 * counted in its PMU's nr_events: perf has not yet made its last use of
 * the PMU (qpiu_perf_done_with_events() says which).
 */
static unsigned int qpiu_test_destroy_ms;
module_param_named(test_destroy_delay_ms, qpiu_test_destroy_ms, uint, 0644);
MODULE_PARM_DESC(test_destroy_delay_ms,
		 "test builds: sleep this long at the end of an event's destroy()");

/* A read-only parameter that shows an atomic_t: what a test waits for. */
static int qpiu_test_get_atomic(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(kp->arg));
}

static const struct kernel_param_ops qpiu_test_atomic_ops = {
	.get = qpiu_test_get_atomic,
};

/* destroy() calls that slept: a test waits for this before it races */
static atomic_t qpiu_test_destroy_sleeping = ATOMIC_INIT(0);
module_param_cb(test_destroy_sleeping, &qpiu_test_atomic_ops,
		&qpiu_test_destroy_sleeping, 0444);

/* Sleep @ms (0: not at all), counted in @sleeping meanwhile. */
static void qpiu_test_sleep(unsigned int ms, atomic_t *sleeping)
{
	if (!ms)
		return;
	atomic_inc(sleeping);
	msleep(ms);
	atomic_dec(sleeping);
}

void qpiu_test_destroy_delay(void)
{
	qpiu_test_sleep(READ_ONCE(qpiu_test_destroy_ms),
			&qpiu_test_destroy_sleeping);
}

/*
 * How long the registry sleeps after it read the event counts of PMUs
 * that lost their last box and found events open, before it records that
 * such a PMU waits to retire: a last close meanwhile must still retire
 * the PMU.  How many sleep: a test closes the event while one does.
 */
static unsigned int qpiu_test_retire_ms;
module_param_named(test_retire_delay_ms, qpiu_test_retire_ms, uint, 0644);
MODULE_PARM_DESC(test_retire_delay_ms,
		 "test builds: sleep this long after finding a boxless PMU with open events");

static atomic_t qpiu_test_retire_sleeping = ATOMIC_INIT(0);
module_param_cb(test_retire_sleeping, &qpiu_test_atomic_ops,
		&qpiu_test_retire_sleeping, 0444);

void qpiu_test_retire_delay(void)
{
	qpiu_test_sleep(READ_ONCE(qpiu_test_retire_ms),
			&qpiu_test_retire_sleeping);
}

/*
 * How long, at most, event_init waits between choosing the socket's reader
 * CPU and returning, i.e. before perf installs the event there: until the
 * reader changes, so that the window is hit however slow the kernel (a
 * debug build under TCG).  How many waited (a test offlines the reader
 * while one does) and saw the reader change (the test's proof that it
 * hit the window).
 */
static unsigned int qpiu_test_open_ms;
module_param_named(test_open_delay_ms, qpiu_test_open_ms, uint, 0644);
MODULE_PARM_DESC(test_open_delay_ms,
		 "test builds: in event_init, wait up to this long for the chosen reader CPU to change");

static atomic_t qpiu_test_open_sleeping = ATOMIC_INIT(0);
static atomic_t qpiu_test_open_raced = ATOMIC_INIT(0);
module_param_cb(test_open_sleeping, &qpiu_test_atomic_ops,
		&qpiu_test_open_sleeping, 0444);
module_param_cb(test_open_raced, &qpiu_test_atomic_ops,
		&qpiu_test_open_raced, 0444);

void qpiu_test_open_delay(struct qpiu_box *box, int cpu)
{
	unsigned int ms = READ_ONCE(qpiu_test_open_ms), waited = 0;

	if (!ms)
		return;
	atomic_inc(&qpiu_test_open_sleeping);
	while (waited < ms && READ_ONCE(box->cpu) == cpu) {
		msleep(20);
		waited += 20;
	}
	atomic_dec(&qpiu_test_open_sleeping);
	if (READ_ONCE(box->cpu) != cpu)
		atomic_inc(&qpiu_test_open_raced);
}

/*
 * How long a reader change sleeps after it moved the events, before perf
 * tears the old reader's contexts down: an open that chose the old reader
 * installs its event there meanwhile.
 */
static unsigned int qpiu_test_reader_ms;
module_param_named(test_reader_delay_ms, qpiu_test_reader_ms, uint, 0644);
MODULE_PARM_DESC(test_reader_delay_ms,
		 "test builds: sleep this long after a reader change moved the events");

void qpiu_test_reader_delay(void)
{
	unsigned int ms = READ_ONCE(qpiu_test_reader_ms);

	if (ms)
		msleep(ms);
}

/*
 * Reschedules a foreign writer's mark asked for (qpi_uncore_foreign.c) and
 * not yet made: a test injects traffic only once it reads 0, when the
 * refused events are back after perf's rotation.
 */
static atomic_t qpiu_test_resched_pending = ATOMIC_INIT(0);
module_param_cb(test_resched_busy, &qpiu_test_atomic_ops,
		&qpiu_test_resched_pending, 0444);
MODULE_PARM_DESC(test_resched_busy,
		 "test builds: reschedules asked for by a foreign writer's mark and not yet made");

void qpiu_test_resched_asked(int n)
{
	atomic_add(n, &qpiu_test_resched_pending);
}

/*
 * How long, at most, a sample's delivery on the perf_tp_event route waits
 * inside its window, while perf has the event's hw.period_left, for a read
 * of the event from another CPU of its socket (PERF_EV_CAP_READ_ACTIVE_PKG
 * runs pmu->read there).  Reads from another CPU while it is set, and the
 * deliveries that such a read came into (the test's proof that it hit the
 * window).
 */
static unsigned int qpiu_test_deliver_ms;
module_param_named(test_deliver_wait_ms, qpiu_test_deliver_ms, uint, 0644);
MODULE_PARM_DESC(test_deliver_wait_ms,
		 "test builds: a sample's delivery waits up to this long for a read from another CPU");

static atomic_t qpiu_test_reads_other = ATOMIC_INIT(0);
static atomic_t qpiu_test_deliver_raced = ATOMIC_INIT(0);
module_param_cb(test_deliver_raced, &qpiu_test_atomic_ops,
		&qpiu_test_deliver_raced, 0444);

void qpiu_test_read(const struct perf_event *event)
{
	if (READ_ONCE(qpiu_test_deliver_ms) &&
	    READ_ONCE(event->oncpu) != raw_smp_processor_id())
		atomic_inc(&qpiu_test_reads_other);
}

/*
 * The box timer's callback on another CPU than the reader, while the
 * reader hands a sampling event to perf (qpi_uncore_look.c,
 * qpiu_look_elsewhere()): a write of a control value arms it for the next
 * sample the box timer offers.  That CPU then writes the value into the
 * event's counter control (a foreign tool's write), moves the counter by
 * test_elsewhere_events (traffic arriving meanwhile) and runs the box
 * timer's callback, with the read-back due, while the delivery waits.
 */
static unsigned int qpiu_test_elsewhere_ctl;
module_param_named(test_elsewhere_ctl, qpiu_test_elsewhere_ctl, uint, 0644);
MODULE_PARM_DESC(test_elsewhere_ctl,
		 "test builds: the next sample has another CPU write this counter control and run the box timer's callback");
static unsigned int qpiu_test_elsewhere_ev;
module_param_named(test_elsewhere_events, qpiu_test_elsewhere_ev, uint, 0644);
MODULE_PARM_DESC(test_elsewhere_events,
		 "test builds: and move the counter by this many events");

/*
 * Or, armed instead of test_elsewhere_ctl: that CPU waits until perf
 * throttled the event in the reader's delivery and runs the throttle's
 * drop of carried periods (qpiu_box_drop_carried()) there, while the
 * reader waits after perf's call, its bracket of the event's period
 * state not yet undone.
 */
static unsigned int qpiu_test_elsewhere_drop;
module_param_named(test_elsewhere_drop, qpiu_test_elsewhere_drop, uint, 0644);
MODULE_PARM_DESC(test_elsewhere_drop,
		 "test builds: the next sample has another CPU run the throttle's drop of carried periods once perf throttled the event");

/*
 * Runs on that CPU that found the event in perf's hands (and throttled,
 * for the drop): the test's proof that it hit the window; and those that
 * did not find it so.
 */
static atomic_t qpiu_test_elsewhere_hit = ATOMIC_INIT(0);
static atomic_t qpiu_test_elsewhere_miss = ATOMIC_INIT(0);
module_param_cb(test_elsewhere_ran, &qpiu_test_atomic_ops,
		&qpiu_test_elsewhere_hit, 0444);
module_param_cb(test_elsewhere_missed, &qpiu_test_atomic_ops,
		&qpiu_test_elsewhere_miss, 0444);

/*
 * Where the reader's delivery waits for the other CPU: before perf's call
 * (test_elsewhere_ctl) or after it (test_elsewhere_drop); 0: it does not.
 */
enum { QPIU_ELSEWHERE_BEFORE = 1, QPIU_ELSEWHERE_AFTER };
static atomic_t qpiu_test_elsewhere_busy = ATOMIC_INIT(0);

/* The control to write, once; 0: not armed. */
u32 qpiu_test_elsewhere_take(void)
{
	u32 ctl = xchg(&qpiu_test_elsewhere_ctl, 0);

	if (ctl)
		atomic_set(&qpiu_test_elsewhere_busy, QPIU_ELSEWHERE_BEFORE);
	return ctl;
}

/* Whether the throttle's drop is to run elsewhere, once. */
bool qpiu_test_elsewhere_drop_take(void)
{
	if (!xchg(&qpiu_test_elsewhere_drop, 0))
		return false;
	atomic_set(&qpiu_test_elsewhere_busy, QPIU_ELSEWHERE_AFTER);
	return true;
}

u64 qpiu_test_elsewhere_events(void)
{
	return READ_ONCE(qpiu_test_elsewhere_ev);
}

void qpiu_test_elsewhere_ran(bool hit)
{
	atomic_inc(hit ? &qpiu_test_elsewhere_hit : &qpiu_test_elsewhere_miss);
	atomic_set(&qpiu_test_elsewhere_busy, 0);
}

/*
 * Hard interrupt context or interrupts off: a bounded busy wait for the
 * other CPU's run armed with @where, which itself waits for no more than
 * a second.
 */
static void qpiu_test_elsewhere_wait(int where)
{
	unsigned int us = 0;

	while (atomic_read(&qpiu_test_elsewhere_busy) == where &&
	       us < 2 * USEC_PER_SEC) {
		udelay(5);
		us += 5;
	}
}

/* hard interrupt context or interrupts off: a bounded busy wait */
void qpiu_test_deliver_window(void)
{
	unsigned int ms = READ_ONCE(qpiu_test_deliver_ms), us = 0;
	int reads = atomic_read(&qpiu_test_reads_other);

	qpiu_test_elsewhere_wait(QPIU_ELSEWHERE_BEFORE);
	if (!ms)
		return;
	while (us < ms * USEC_PER_MSEC &&
	       atomic_read(&qpiu_test_reads_other) == reads) {
		udelay(5);
		us += 5;
	}
	if (atomic_read(&qpiu_test_reads_other) != reads)
		atomic_inc(&qpiu_test_deliver_raced);
}

/*
 * After perf's call, before the delivery puts the event's period state
 * back: the other CPU's run armed by test_elsewhere_drop, which needs
 * perf to have throttled the event first.
 */
void qpiu_test_deliver_done(void)
{
	qpiu_test_elsewhere_wait(QPIU_ELSEWHERE_AFTER);
}

/*
 * The most samples offered perf in one box timer callback, and in one
 * del() or stop() (qpi_uncore_look.c, QPIU_CALL_SAMPLES); a test writes 0
 * to start afresh.  Written from hard interrupt context on any reader CPU.
 */
static unsigned int qpiu_test_offered_look, qpiu_test_offered_del;
module_param_named(test_offered_look_max, qpiu_test_offered_look, uint, 0644);
MODULE_PARM_DESC(test_offered_look_max,
		 "test builds: the most samples offered in one box timer callback");
module_param_named(test_offered_del_max, qpiu_test_offered_del, uint, 0644);
MODULE_PARM_DESC(test_offered_del_max,
		 "test builds: the most samples offered in one del() or stop()");

/*
 * And the most offered in one interrupt of a CPU, over every callback of
 * the look and every del() and stop() it ran: summed per CPU until a hard
 * irq_work queued with the first runs, once the interrupt (or the section
 * with interrupts off) is over.
 */
static unsigned int qpiu_test_offered_irq;
module_param_named(test_offered_irq_max, qpiu_test_offered_irq, uint, 0644);
MODULE_PARM_DESC(test_offered_irq_max,
		 "test builds: the most samples offered in one interrupt of a CPU");

static DEFINE_PER_CPU(unsigned int, qpiu_test_irq_sum);

static void qpiu_test_irq_end(struct irq_work *work)
{
	this_cpu_write(qpiu_test_irq_sum, 0);
}

static DEFINE_PER_CPU(struct irq_work, qpiu_test_irq_work);

static void qpiu_test_keep_max(unsigned int *max, unsigned int n)
{
	unsigned int old = READ_ONCE(*max);

	/* readers of different sockets may race: keep the larger */
	while (n > old) {
		unsigned int seen = cmpxchg(max, old, n);

		if (seen == old)
			break;
		old = seen;
	}
}

void qpiu_test_offered(bool last, unsigned int n)
{
	unsigned long flags;

	qpiu_test_keep_max(last ? &qpiu_test_offered_del :
			   &qpiu_test_offered_look, n);
	if (!n)
		return;
	local_irq_save(flags);
	if (!this_cpu_read(qpiu_test_irq_sum))
		qpiu_irq_work_queue_hard(this_cpu_ptr(&qpiu_test_irq_work),
					 qpiu_test_irq_end);
	this_cpu_add(qpiu_test_irq_sum, n);
	qpiu_test_keep_max(&qpiu_test_offered_irq,
			   this_cpu_read(qpiu_test_irq_sum));
	local_irq_restore(flags);
}

/*
 * While set, a box timer callback looks at nothing and comes back a
 * millisecond later: a test injects a backlog and has the next del() find
 * all of it, however long the host keeps the test's vCPU from its next
 * step.  The box's events keep counting; folds wait too, which a test
 * that holds for a few milliseconds can afford.
 */
static bool qpiu_test_hold_looks;
module_param_named(test_hold_looks, qpiu_test_hold_looks, bool, 0644);
MODULE_PARM_DESC(test_hold_looks,
		 "test builds: box timers look at nothing while set");

bool qpiu_test_looks_held(void)
{
	return READ_ONCE(qpiu_test_hold_looks);
}

/* No irq_work of the hooks left queued (the module's last sampling event). */
void qpiu_test_offered_sync(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		if (per_cpu_ptr(&qpiu_test_irq_work, cpu)->func)
			irq_work_sync(per_cpu_ptr(&qpiu_test_irq_work, cpu));
}

/*
 * Read-backs of counter controls that checked a running counter
 * (qpi_uncore_foreign.c): an episode of foreign writes ends at one that
 * finds every control as written, so a test waits for two more of them
 * before the next foreign write, to make that write a new episode.
 */
static atomic_t qpiu_test_foreign_checks = ATOMIC_INIT(0);
module_param_cb(test_foreign_checks, &qpiu_test_atomic_ops,
		&qpiu_test_foreign_checks, 0444);
MODULE_PARM_DESC(test_foreign_checks,
		 "test builds: read-backs of counter controls that checked a running counter");

void qpiu_test_foreign_checked(void)
{
	atomic_inc(&qpiu_test_foreign_checks);
}
