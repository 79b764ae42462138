// SPDX-License-Identifier: GPL-2.0
/*
 * uncore_sbox_0 and uncore_sbox_1: the two S-Boxes of each Xeon 7500 (and
 * E7) socket, MSR based, with the mask/match facility on event 0x00.  Only
 * on those CPU models, and only when their MSRs answer.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <asm/cpu_device_id.h>

#include "qpi_uncore.h"

/* Family 6 models 0x2e (Nehalem-EX) and 0x2f (Westmere-EX), spelled so that
 * they build on kernels before and after the intel-family.h rework (6.10).
 */
static const struct x86_cpu_id qpiu_sbox_cpus[] = {
	X86_MATCH_VENDOR_FAM_MODEL(INTEL, 6, 0x2e, NULL),
	X86_MATCH_VENDOR_FAM_MODEL(INTEL, 6, 0x2f, NULL),
	{ }
};

/* qpiu_reg_mutex */
static struct qpiu_box *qpiu_sboxes[QPIU_MAX_SOCKETS][SBOX_NR_BOXES];

#define SBOX_PROBE_PATTERN	0x5a5a5a5aa5a5a5a5ULL

/* Before any box exists: the MSRs of the CPU in @ctx. */
static int qpiu_sbox_probe_rd(void *ctx, u32 msr, u64 *val)
{
	return qpiu_cfg_msr_read_on(*(int *)ctx, msr, val);
}

static int qpiu_sbox_probe_wr(void *ctx, u32 msr, u64 val)
{
	return qpiu_cfg_msr_write_on(*(int *)ctx, msr, val);
}

static const struct qpiu_msr_ops qpiu_sbox_probe_ops = {
	.rd = qpiu_sbox_probe_rd,
	.wr = qpiu_sbox_probe_wr,
};

static int qpiu_sbox_msrs_work(int cpu)
{
	struct qpiu_sbox sb = { .ops = &qpiu_sbox_probe_ops, .ctx = &cpu };
	u32 match = qpiu_sbox_msr(0, SBOX_MATCH, 0);
	u64 val;
	int ret;

	ret = qpiu_sbox_probe_regs(&sb, SBOX_PROBE_PATTERN, &val);
	if (ret == -ENODEV)
		pr_info("Xeon 7500 S-Box MSRs do not hold values on CPU %d (MATCH 0x%x read back 0x%llx, not 0x%llx): no uncore_sbox PMUs\n",
			cpu, match, val, SBOX_PROBE_PATTERN);
	else if (ret)
		pr_info("Xeon 7500 S-Box MSRs do not answer on CPU %d (an access to 0x%x-0x%x faulted): no uncore_sbox PMUs\n",
			cpu, SBOX_MSR_MM_CFG, match);
	return ret ? -ENODEV : 0;
}

int qpiu_sbox_probe(void)
{
	unsigned int socket, idx;
	int ret = 0;

	if (!x86_match_cpu(qpiu_sbox_cpus))
		return 0;
	mutex_lock(&qpiu_reg_mutex);
	/*
	 * intel_uncore drives these boxes under the same names: find out
	 * before touching an MSR, its events may be counting.
	 */
	for (idx = 0; idx < SBOX_NR_BOXES; idx++) {
		ret = qpiu_pmu_name_check(&qpiu_sbox_platform, QPIU_BOX_SBOX,
					  idx);
		if (ret)
			goto out;
	}
	for (socket = 0; socket < QPIU_MAX_SOCKETS; socket++) {
		int cpu;

		mutex_lock(&qpiu_mutex);
		cpu = qpiu_socket_reader(socket);
		mutex_unlock(&qpiu_mutex);
		if (cpu < 0)
			continue;
		if (qpiu_sbox_msrs_work(cpu))
			goto out;
		for (idx = 0; idx < SBOX_NR_BOXES; idx++) {
			struct qpiu_pmu *qpmu;
			struct qpiu_box *box;

			qpmu = qpiu_pmu_get(&qpiu_sbox_platform, QPIU_BOX_SBOX,
					    idx);
			if (IS_ERR(qpmu)) {
				ret = PTR_ERR(qpmu);
				goto out;
			}
			box = qpiu_pmu_add_msr_box(qpmu, socket);
			if (IS_ERR(box)) {
				ret = PTR_ERR(box);
				goto out;
			}
			qpiu_sboxes[socket][idx] = box;
		}
	}
out:
	mutex_unlock(&qpiu_reg_mutex);
	if (ret)
		qpiu_sbox_remove();
	return ret;
}

void qpiu_sbox_remove(void)
{
	unsigned int socket, idx;

	mutex_lock(&qpiu_reg_mutex);
	for (socket = 0; socket < QPIU_MAX_SOCKETS; socket++) {
		for (idx = 0; idx < SBOX_NR_BOXES; idx++) {
			if (!qpiu_sboxes[socket][idx])
				continue;
			qpiu_pmu_remove_box(qpiu_sboxes[socket][idx]);
			qpiu_sboxes[socket][idx] = NULL;
		}
	}
	mutex_unlock(&qpiu_reg_mutex);
}
