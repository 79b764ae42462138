/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel APIs that differ across the kernels qpi_uncore builds for,
 * mapped from the feature tests of conftest.sh (never from version
 * numbers): the rest of the driver calls only the qpiu_ names below.
 */
#ifndef _QPI_UNCORE_COMPAT_H
#define _QPI_UNCORE_COMPAT_H

#include <linux/irq_work.h>

#include <linux/hrtimer.h>
#include <linux/perf_event.h>
#include <linux/timer.h>
#include <linux/workqueue.h>
#include <asm/msr.h>

#include "generated/qpi_uncore_features.h"

static inline void qpiu_hrtimer_setup(struct hrtimer *timer,
				      enum hrtimer_restart (*fn)(struct hrtimer *),
				      clockid_t clock, enum hrtimer_mode mode)
{
#ifdef QPIU_HAVE_HRTIMER_SETUP
	hrtimer_setup(timer, fn, clock, mode);
#else
	hrtimer_init(timer, clock, mode);
	timer->function = fn;
#endif
}

#ifdef QPIU_HAVE_MSR_Q
#define qpiu_rdmsr_safe(msr, val)		rdmsrq_safe(msr, val)
#define qpiu_wrmsr_safe(msr, val)		wrmsrq_safe(msr, val)
#define qpiu_rdmsr_safe_on_cpu(cpu, msr, val)	rdmsrq_safe_on_cpu(cpu, msr, val)
#define qpiu_wrmsr_safe_on_cpu(cpu, msr, val)	wrmsrq_safe_on_cpu(cpu, msr, val)
#else
#define qpiu_rdmsr_safe(msr, val)		rdmsrl_safe(msr, val)
#define qpiu_wrmsr_safe(msr, val)		wrmsrl_safe(msr, val)
#define qpiu_rdmsr_safe_on_cpu(cpu, msr, val)	rdmsrl_safe_on_cpu(cpu, msr, val)
#define qpiu_wrmsr_safe_on_cpu(cpu, msr, val)	wrmsrl_safe_on_cpu(cpu, msr, val)
#endif

#ifdef QPIU_HAVE_TIMER_DELETE_SYNC
#define qpiu_timer_delete_sync(timer)	timer_delete_sync(timer)
#else
#define qpiu_timer_delete_sync(timer)	del_timer_sync(timer)
#endif

/* The system's per-CPU workqueue, what schedule_work() uses. */
#ifdef QPIU_HAVE_SYSTEM_PERCPU_WQ
#define qpiu_system_wq	system_percpu_wq
#else
#define qpiu_system_wq	system_wq
#endif

/*
 * Queue @work, a per-CPU irq_work of this CPU, set up on its first use
 * here (interrupts off): to run in hard interrupt context on PREEMPT_RT
 * too (5.10 has no flag for it, and no RT kernel in the matrix).  Set up
 * at run time, not by a static per-CPU initializer: kernels before 6.16
 * copy a module's per-CPU template to every CPU without applying its
 * relocations (apply_relocations() skips .data..percpu), so func would be
 * NULL there, called by irq_work_single().  Only its CPU writes @work,
 * with interrupts off, and only before the first queueing: func never
 * changes after, so a queued work is never set up again.
 */
static inline void qpiu_irq_work_queue_hard(struct irq_work *work,
					    void (*fn)(struct irq_work *))
{
	if (unlikely(work->func != fn)) {
#ifdef IRQ_WORK_INIT_HARD
		*work = IRQ_WORK_INIT_HARD(fn);
#else
		init_irq_work(work, fn);
#endif
	}
	irq_work_queue(work);
}

/*
 * perf's multiplexing timer in @pmu's context of @cpu, with the lock and
 * the flag perf arms it under (perf_mux_hrtimer_restart() in
 * kernel/events/core.c).  The context's type, and how struct pmu points
 * to it, changed twice; the members kept their names.  False: @cpu has no
 * context.
 */
struct qpiu_mux_timer {
	struct hrtimer *timer;
	raw_spinlock_t *lock;
	unsigned int *active;
};

static inline bool qpiu_mux_timer(struct pmu *pmu, int cpu,
				  struct qpiu_mux_timer *mux)
{
#if defined(QPIU_HAVE_PMU_CPU_CONTEXT)
	struct perf_cpu_context *ctx = per_cpu_ptr(pmu->pmu_cpu_context, cpu);
#elif defined(QPIU_HAVE_CPU_PMU_CONTEXT)
	struct perf_cpu_pmu_context *ctx = per_cpu_ptr(pmu->cpu_pmu_context,
						       cpu);
#else
	/* conftest.sh refuses to build without one of the three */
	struct perf_cpu_pmu_context *ctx = *per_cpu_ptr(pmu->cpu_pmu_context,
							cpu);
#endif

	if (!ctx)
		return false;
	mux->timer = &ctx->hrtimer;
	mux->lock = &ctx->hrtimer_lock;
	mux->active = &ctx->hrtimer_active;
	return true;
}

#endif /* _QPI_UNCORE_COMPAT_H */
