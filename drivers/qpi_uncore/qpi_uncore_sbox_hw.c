// SPDX-License-Identifier: GPL-2.0
/*
 * The Xeon 7500 S-Box's registers as operations, over the MSR accessors
 * its caller passes in (struct qpiu_msr_ops): cfg.c's, or a test's.
 */
#include "qpi_uncore_sbox.h"

#ifdef __KERNEL__
#include <linux/errno.h>
#else
#include <errno.h>
#endif

u32 qpiu_sbox_msr(unsigned int idx, enum sbox_reg reg, unsigned int ctr)
{
	u32 pmon = idx * SBOX_MSR_STRIDE, mm = idx * SBOX_MM_STRIDE;

	switch (reg) {
	case SBOX_GLOBAL_CTL:
		return SBOX_MSR_GLOBAL_CTL + pmon;
	case SBOX_CTL:
		return SBOX_MSR_CTL0 + pmon + 2 * ctr;
	case SBOX_CTR:
		return SBOX_MSR_CTR0 + pmon + 2 * ctr;
	case SBOX_MM_CFG:
		return SBOX_MSR_MM_CFG + mm;
	case SBOX_MATCH:
		return SBOX_MSR_MATCH + mm;
	case SBOX_MASK:
		return SBOX_MSR_MASK + mm;
	}
	return 0;
}

static int sb_rd(struct qpiu_sbox *sb, enum sbox_reg reg, unsigned int ctr,
		 u64 *val)
{
	return sb->ops->rd(sb->ctx, qpiu_sbox_msr(sb->idx, reg, ctr), val) ?
	       -EIO : 0;
}

static int sb_wr(struct qpiu_sbox *sb, enum sbox_reg reg, unsigned int ctr,
		 u64 val)
{
	return sb->ops->wr(sb->ctx, qpiu_sbox_msr(sb->idx, reg, ctr), val) ?
	       -EIO : 0;
}

/* Counters enabled box-wide, mask/match off. */
int qpiu_sbox_init(struct qpiu_sbox *sb)
{
	sb->mm_on = false;
	return sb_wr(sb, SBOX_MM_CFG, 0, 0) ?:
	       sb_wr(sb, SBOX_GLOBAL_CTL, 0, SBOX_GLOBAL_CTL_EN);
}

/* The box-wide enables are the S-Box's freeze. */
int qpiu_sbox_freeze(struct qpiu_sbox *sb, bool freeze)
{
	return sb_wr(sb, SBOX_GLOBAL_CTL, 0, freeze ? 0 : SBOX_GLOBAL_CTL_EN);
}

/*
 * The mask/match facility is programmed in the order the uncore guide
 * prescribes (seed 001, 323535 section 2.5.3.4):
 *
 *   a) MM_CFG bit 63 = 0 (MATCH/MASK writes raise #GP while it is set)
 *   b) MATCH and MASK
 *   c) the counter's control, event 0x00 (TO_R_PROG_EV)
 *   d) MM_CFG bit 63 = 1
 *
 * Here steps a) and b).  The caller guarantees no counting event uses them.
 */
int qpiu_sbox_set_filter(struct qpiu_sbox *sb, u64 match, u64 mask)
{
	int ret = sb_wr(sb, SBOX_MM_CFG, 0, 0);

	if (ret)
		return ret;
	sb->mm_on = false;
	return sb_wr(sb, SBOX_MATCH, 0, match) ?:
	       sb_wr(sb, SBOX_MASK, 0, mask);
}

/*
 * Start counter @ctr from zero; for a mask/match event, steps c) and d).
 * The counter is cleared by writing it while it is disabled.
 */
int qpiu_sbox_start(struct qpiu_sbox *sb, unsigned int ctr, u32 ctl, bool mm)
{
	int ret = sb_wr(sb, SBOX_CTR, ctr, 0) ?:
		  sb_wr(sb, SBOX_CTL, ctr, ctl | SBOX_CTL_EN);

	if (ret || !mm || sb->mm_on)
		return ret;
	ret = sb_wr(sb, SBOX_MM_CFG, 0, SBOX_MM_CFG_EN);
	if (!ret)
		sb->mm_on = true;
	return ret;
}

int qpiu_sbox_stop(struct qpiu_sbox *sb, unsigned int ctr, u32 ctl)
{
	return sb_wr(sb, SBOX_CTL, ctr, ctl & ~SBOX_CTL_EN);
}

/* One 64-bit MSR read: no torn values; bits above 47 read as zero. */
int qpiu_sbox_read(struct qpiu_sbox *sb, unsigned int ctr, u64 *val)
{
	u64 v;

	if (sb_rd(sb, SBOX_CTR, ctr, &v))
		return -EIO;
	if (v >> SBOX_CTR_WIDTH)
		return -EIO;
	*val = v;
	return 0;
}

/* Counter @ctr's control; bits 63:32 are reserved and read as zero. */
int qpiu_sbox_read_ctl(struct qpiu_sbox *sb, unsigned int ctr, u32 *ctl)
{
	u64 v;

	if (sb_rd(sb, SBOX_CTL, ctr, &v))
		return -EIO;
	*ctl = (u32)v;
	return 0;
}

/*
 * Whether the MSRs hold values: a hypervisor can show the CPU model without
 * them (the accesses fault, or read zero and drop writes).  Someone else's
 * filter may be live here (intel_uncore's, a user's msr tool), so nothing
 * is left changed: MM_CFG is only read; with mm_en set the registers answer
 * already; with it clear MATCH is plain read-write, so @pattern written to
 * it must read back (*@readback), and its old value goes back.
 *
 * Return: 0 when they hold values, -ENODEV when MATCH did not keep
 * @pattern, -EIO when an access faulted.
 */
int qpiu_sbox_probe_regs(struct qpiu_sbox *sb, u64 pattern, u64 *readback)
{
	u64 cfg, match;
	int ret;

	*readback = 0;
	ret = sb_rd(sb, SBOX_MM_CFG, 0, &cfg);
	if (ret)
		return ret;
	if (cfg & SBOX_MM_CFG_EN) {
		*readback = pattern;
		return 0;
	}
	ret = sb_rd(sb, SBOX_MATCH, 0, &match);
	if (ret)
		return ret;
	ret = sb_wr(sb, SBOX_MATCH, 0, pattern) ?:
	      sb_rd(sb, SBOX_MATCH, 0, readback);
	if (sb_wr(sb, SBOX_MATCH, 0, match) && !ret)
		ret = -EIO;
	if (ret)
		return ret;
	return *readback == pattern ? 0 : -ENODEV;
}
