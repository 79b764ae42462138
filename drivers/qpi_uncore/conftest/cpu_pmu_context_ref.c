// SPDX-License-Identifier: GPL-2.0
/*
 * struct pmu's per-CPU pointer to a struct perf_cpu_pmu_context, allocated
 * per CPU and reference counted, which holds perf's multiplexing timer
 * (6.15).
 */
#include <linux/perf_event.h>

void qpiu_conftest(struct pmu *pmu, int cpu, struct hrtimer **timer,
		   raw_spinlock_t **lock, unsigned int **active);

void qpiu_conftest(struct pmu *pmu, int cpu, struct hrtimer **timer,
		   raw_spinlock_t **lock, unsigned int **active)
{
	struct perf_cpu_pmu_context *ctx = *per_cpu_ptr(pmu->cpu_pmu_context,
							cpu);

	*timer = &ctx->hrtimer;
	*lock = &ctx->hrtimer_lock;
	*active = &ctx->hrtimer_active;
}
