// SPDX-License-Identifier: GPL-2.0
/*
 * Foreign writers: another tool (PCM, likwid in direct access mode) or a
 * BIOS SMI reprogramming the counter controls behind perf's back.  The box
 * timer reads each running counter's control back now and then; one that
 * is not what we wrote is counted in sysfs, logged, marked on its event,
 * and written again.  Callers hold box->lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include "qpi_uncore.h"

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
 * Read back the control of every running counter of @box.  A box we froze
 * ourselves is skipped: perf's pmu_disable() bracket or a sampling look is
 * reprogramming it (neither can interleave with the timer, which runs on
 * the reader CPU under box->lock, but a frozen box is not counting anyway).
 *
 * A counter that is not what we wrote: its event's count so far includes
 * whatever the other tool made it count, so the event is marked
 * (QPIU_HWF_FOREIGN), and the counter is stopped, folded and started again
 * as we program it, so counting resumes.  An episode is one or more
 * consecutive read-backs of the box that find such counters: it is counted
 * once in the PMU's foreign_writes and logged once (rate-limited, as a
 * tool that keeps writing makes every later read-back find one), and ends
 * at the first read-back that finds every control as we wrote it.
 */
void qpiu_foreign_check(struct qpiu_box *box)
{
	unsigned int i, nr = 0;
	u32 want, found, first_want = 0, first_found = 0;
	int first = -1;

	if (box->dead || (box->box_ctl & UNC_BOX_CTL_FRZ))
		return;
	for (i = 0; i < box->pmu->desc->nr_ctrs; i++) {
		struct perf_event *event = box->events[i];

		if (!event || (event->hw.state & PERF_HES_STOPPED) ||
		    qpiu_box_ctl_holds(box, i, event->hw.config, &want,
				       &found))
			continue;
		if (first < 0) {
			first = i;
			first_want = want;
			first_found = found;
		}
		nr++;
		event->hw.flags |= QPIU_HWF_FOREIGN;
		qpiu_event_stop_locked(box, event, PERF_EF_UPDATE);
		qpiu_event_start_locked(box, event);
	}
	if (!nr || box->foreign) {
		box->foreign = nr;
		return;
	}
	box->foreign = true;
	atomic_long_inc(&box->pmu->foreign_writes);
	/* all zero: cleared by a tool, or never taken (qpistat --check) */
	pr_warn_ratelimited("%s: socket %u: counter %d control is 0x%08x, expected 0x%08x (%u counter%s): another tool reprograms these registers (PCM, likwid in direct access mode, or a BIOS SMI)%s; counts of this box are unreliable, counters reprogrammed\n",
			    box->pmu->name, box->socket, first, first_found,
			    first_want, nr, nr == 1 ? "" : "s",
			    first_found ? "" :
			    ", or they ignore writes (a firmware lock, a hypervisor)");
}
