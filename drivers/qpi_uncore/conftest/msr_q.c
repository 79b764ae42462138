// SPDX-License-Identifier: GPL-2.0
/*
 * rdmsrq_safe() and friends: the 64-bit MSR accessors renamed from the
 * "l" (long) to the "q" (quad) suffix (6.16; the old names are gone).
 */
#include <asm/msr.h>

int qpiu_conftest(int cpu, u32 msr, u64 *val);

int qpiu_conftest(int cpu, u32 msr, u64 *val)
{
	return rdmsrq_safe(msr, val) ?: wrmsrq_safe(msr, *val) ?:
	       rdmsrq_safe_on_cpu(cpu, msr, val) ?:
	       wrmsrq_safe_on_cpu(cpu, msr, *val);
}
