// SPDX-License-Identifier: GPL-2.0
/* rdmsrl_safe() and friends: the 64-bit MSR accessors before 6.16. */
#include <asm/msr.h>

int qpiu_conftest(int cpu, u32 msr, u64 *val);

int qpiu_conftest(int cpu, u32 msr, u64 *val)
{
	return rdmsrl_safe(msr, val) ?: wrmsrl_safe(msr, *val) ?:
	       rdmsrl_safe_on_cpu(cpu, msr, val) ?:
	       wrmsrl_safe_on_cpu(cpu, msr, *val);
}
