// SPDX-License-Identifier: GPL-2.0
/*
 * struct pmu's per-CPU struct perf_cpu_context, which holds perf's
 * multiplexing timer (up to 6.1).
 */
#include <linux/perf_event.h>

void qpiu_conftest(struct pmu *pmu, int cpu, struct hrtimer **timer,
		   raw_spinlock_t **lock, unsigned int **active);

void qpiu_conftest(struct pmu *pmu, int cpu, struct hrtimer **timer,
		   raw_spinlock_t **lock, unsigned int **active)
{
	struct perf_cpu_context *ctx = per_cpu_ptr(pmu->pmu_cpu_context, cpu);

	*timer = &ctx->hrtimer;
	*lock = &ctx->hrtimer_lock;
	*active = &ctx->hrtimer_active;
}
