// SPDX-License-Identifier: GPL-2.0
/*
 * Foreign writers: another tool (PCM, likwid in direct access mode) or a
 * BIOS SMI reprogramming the counter controls behind perf's back.  The box
 * timer reads each running counter's control back now and then; one that
 * is not what we wrote is counted in sysfs and in the box's foreign_writes
 * events, logged, marked on its event, and written again; then perf is
 * made to schedule the marked events again, so that the mark shows.
 * Callers hold box->lock, except where a function says otherwise.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/module.h>

#include "qpi_uncore.h"
#include "qpi_uncore_compat.h"

/*
 * One config read (S-Box: one MSR read) per running counter per interval,
 * on the box timer, which runs at least this often while the box counts.
 */
static unsigned int qpiu_foreign_ms = 1000;
static struct qpiu_uint_param qpiu_foreign_ms_param = {
	.val = &qpiu_foreign_ms, .min = 10, .max = 3600000, .zero_off = true,
};
module_param_cb(foreign_check_ms, &qpiu_uint_param_ops,
		&qpiu_foreign_ms_param, 0644);
MODULE_PARM_DESC(foreign_check_ms,
		 "How often (ms, 10..3600000; 0 off) each counting box reads its counter controls back to catch other tools reprogramming them (default 1000)");

/* 0: off */
u64 qpiu_foreign_interval_ns(void)
{
	return (u64)READ_ONCE(qpiu_foreign_ms) * NSEC_PER_MSEC;
}

/*
 * The box's last event closed: an episode of its events is over, and the
 * next event's count of episodes starts afresh.
 */
void qpiu_foreign_box_unused(struct qpiu_box *box)
{
	box->foreign = false;
}

/*
 * A read-back found @nr counters not as written, the first of them
 * @first, while no episode was open: one starts, counted and logged once.
 */
static void qpiu_foreign_episode(struct qpiu_box *box, int first, u32 want,
				 u32 found, unsigned int nr)
{
	box->foreign = true;
	box->foreign_episodes++;
	atomic_long_inc(&box->pmu->foreign_writes);
	/* all zero: cleared by a tool, or never taken (qpistat --check) */
	pr_warn_ratelimited("%s: socket %u: counter %d control is 0x%08x, expected 0x%08x (%u counter%s): another tool reprograms these registers (PCM, likwid in direct access mode, or a BIOS SMI)%s; counts of this box are unreliable, counters reprogrammed\n",
			    box->pmu->name, box->socket, first, found,
			    want, nr, nr == 1 ? "" : "s",
			    found ? "" :
			    ", or they ignore writes (a firmware lock, a hypervisor)");
}

/* Mark @event, whose counter a foreign writer reprogrammed. */
static bool qpiu_foreign_mark(struct qpiu_box *box, struct perf_event *event)
{
	bool resched = !qpiu_group_pinned(event) &&
		       !(event->hw.flags & QPIU_HWF_FOREIGN);

	event->hw.flags |= QPIU_HWF_FOREIGN;
	return resched;
}

/*
 * Read back the control of every running counter of @box.  A box we froze
 * ourselves is skipped: perf is scheduling a group on it, or its events
 * are moving to other counters (qpi_uncore_event.c, "When the box
 * freezes"; neither can interleave with the timer, which runs on the
 * reader CPU under box->lock, but a frozen box is not counting anyway).
 *
 * A counter that is not what we wrote: its event's count so far includes
 * whatever the other tool made it count, so the event is marked
 * (QPIU_HWF_FOREIGN), and the counter is stopped, folded and started again
 * as we program it, so counting resumes.  An episode is one or more
 * consecutive read-backs of the box that find such counters: it is counted
 * once in the PMU's foreign_writes and logged once (rate-limited, as a
 * tool that keeps writing makes every later read-back find one), and ends
 * at the first read-back that finds every control as we wrote it, or when
 * the box's last event closes (qpiu_foreign_box_unused()).  A read-back
 * with no running counter (marked events perf has not scheduled again
 * yet) says nothing either way.
 *
 * Returns true when an event that perf may refuse (not in a pinned group)
 * was newly marked: the caller then has perf schedule the box's events
 * again with qpiu_foreign_resched(), once it has dropped box->lock.
 */
bool qpiu_foreign_check(struct qpiu_box *box)
{
	unsigned int i, nr = 0, checked = 0;
	u32 want, found, first_want = 0, first_found = 0;
	bool resched = false;
	int first = -1;

	if (box->dead || (box->box_ctl & UNC_BOX_CTL_FRZ))
		return false;
	for (i = 0; i < box->pmu->desc->nr_ctrs; i++) {
		struct perf_event *event = box->events[i];

		/*
		 * Being handed to perf (QPIU_HWF_DELIVER), on the reader CPU
		 * while this timer runs on another (an hrtimer keeps its CPU
		 * while its callback runs, and through a reader change): the
		 * stop and start would fold nothing and re-arm a period
		 * perf's delivery then puts back.  The next read-back.
		 */
		if (!event || (event->hw.state & PERF_HES_STOPPED) ||
		    (event->hw.flags & QPIU_HWF_DELIVER))
			continue;
		checked++;
		if (qpiu_box_ctl_holds(box, i, event->hw.config, &want,
				       &found))
			continue;
		if (first < 0) {
			first = i;
			first_want = want;
			first_found = found;
		}
		nr++;
		resched |= qpiu_foreign_mark(box, event);
		qpiu_event_stop_locked(box, event, PERF_EF_UPDATE);
		qpiu_event_start_locked(box, event);
	}
	/* under box->lock, so that a test sees it with the rewrite */
	if (resched && !test_and_set_bit(box->socket, box->pmu->resched))
		qpiu_test_resched_asked(1);
	if (!checked)
		return false;
	qpiu_test_foreign_checked();
	if (!nr || box->foreign) {
		box->foreign = nr;
		return resched;
	}
	qpiu_foreign_episode(box, first, first_want, first_found, nr);
	return resched;
}

/*
 * A sampling look is about to re-arm counter @idx: it disables the counter
 * and enables it again with the control as we program it, which would
 * write over a foreign write before any read-back saw it.  So its control
 * is read back first (one config read), while read-backs are on, and a
 * counter not as written is reported as a read-back would: marked, and
 * an episode counted and logged unless one is open.  The next read-back
 * that finds every control as written ends it, as ever.  Returns true when
 * perf should schedule the box's events again (qpiu_foreign_resched()).
 */
bool qpiu_foreign_look(struct qpiu_box *box, int idx)
{
	struct perf_event *event = box->events[idx];
	u32 want, found;
	bool resched;

	if (!qpiu_foreign_interval_ns() || box->dead ||
	    (box->box_ctl & UNC_BOX_CTL_FRZ) ||
	    qpiu_box_ctl_holds(box, idx, event->hw.config, &want, &found))
		return false;
	resched = qpiu_foreign_mark(box, event);
	if (resched && !test_and_set_bit(box->socket, box->pmu->resched))
		qpiu_test_resched_asked(1);
	if (!box->foreign)
		qpiu_foreign_episode(box, idx, want, found, 1);
	return resched;
}

/*
 * perf calls pmu->add, where a marked event is refused, only when it
 * schedules the PMU's events on the reader CPU again, and in a plain
 * perf stat nothing makes it.  Installing an enabled event does, on every
 * kernel from 5.10 on: __perf_install_in_context() runs ctx_resched() for
 * the new event's PMU, which schedules that PMU's flexible groups out and
 * in again on that CPU.  So the work creates a foreign_writes event of
 * the PMU on the socket's reader (it takes no counter) and releases it at
 * once.  perf keeps a refused flexible event inactive until its next
 * rotation of the PMU's events, and marks the context for that rotation.
 * Only perf's exported interface is used; the driver never writes perf's
 * event state or times.  Process context, no lock held.
 */
static void qpiu_foreign_resched_fn(struct work_struct *work)
{
	struct qpiu_pmu *qpmu = container_of(work, struct qpiu_pmu,
					     resched_work);
	struct perf_event_attr attr = {
		.type = qpmu->pmu.type,
		.size = sizeof(attr),
		.config = QPIU_CFG_FOREIGN_WRITES,
	};
	unsigned int s;

	for (s = 0; s < QPIU_MAX_SOCKETS; s++) {
		struct perf_event *event;
		struct qpiu_box *box;
		int cpu = -1;

		if (!test_and_clear_bit(s, qpmu->resched))
			continue;
		rcu_read_lock();
		box = rcu_dereference(qpmu->boxes[s]);
		if (box && !READ_ONCE(box->dead))
			cpu = READ_ONCE(box->cpu);
		rcu_read_unlock();
		/* the reader going offline meanwhile: nothing to schedule */
		if (cpu >= 0) {
			event = perf_event_create_kernel_counter(&attr, cpu,
								 NULL, NULL,
								 NULL);
			if (!IS_ERR(event))
				perf_event_release_kernel(event);
		}
		qpiu_test_resched_asked(-1);
	}
}

/* After qpiu_foreign_check() asked for it, box->lock dropped; any context. */
void qpiu_foreign_resched(struct qpiu_box *box)
{
	queue_work(qpiu_system_wq, &box->pmu->resched_work);
}

void qpiu_foreign_pmu_init(struct qpiu_pmu *qpmu)
{
	INIT_WORK(&qpmu->resched_work, qpiu_foreign_resched_fn);
}

/*
 * @qpmu retires: it has no boxes, so no timer queues the work again, and
 * the work takes none of the driver's locks.
 */
void qpiu_foreign_pmu_exit(struct qpiu_pmu *qpmu)
{
	cancel_work_sync(&qpmu->resched_work);
	/* requests the cancelled work will not serve */
	qpiu_test_resched_asked(-(int)bitmap_weight(qpmu->resched,
						    QPIU_MAX_SOCKETS));
}

/*
 * The foreign_writes event (driver_event=1): no counter; it counts the
 * episodes of its box while it runs, so a perf stat beside the hardware
 * events shows whether a foreign writer spoiled them, on every kernel.
 */
void qpiu_foreign_ev_read(struct qpiu_box *box, struct perf_event *event)
{
	u64 now = box->foreign_episodes;

	if (event->hw.state & PERF_HES_STOPPED)
		return;
	local64_add(now - local64_xchg(&event->hw.prev_count, now),
		    &event->count);
}

/*
 * 6.16 and later start every member of a group again when perf lifts a
 * throttle (perf_event_unthrottle_group()), and the driver keeps a
 * throttled group running (qpiu_event_stop()): a running event keeps the
 * episodes it has not folded yet.  A stopped one folded at its stop and
 * starts from the box's episodes now.
 */
void qpiu_foreign_ev_start(struct qpiu_box *box, struct perf_event *event)
{
	if (!(event->hw.state & PERF_HES_STOPPED))
		return;
	local64_set(&event->hw.prev_count, box->foreign_episodes);
	event->hw.state = 0;
}

void qpiu_foreign_ev_stop(struct qpiu_box *box, struct perf_event *event)
{
	/* nothing is lost by folding at every stop */
	qpiu_foreign_ev_read(box, event);
	event->hw.state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
}
