/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Xeon 7500 (Nehalem-EX) S-Box: the MSRs of its PMON boxes and packet
 * MATCH/MASK facility (323535, section 2.5.3), and sbox_hw.c's interface.
 */
#ifndef _QPI_UNCORE_SBOX_H
#define _QPI_UNCORE_SBOX_H

#include "qpi_types.h"

#define SBOX_NR_BOXES		2
#define SBOX_NR_CTRS		4
#define SBOX_CTR_WIDTH		48

/* PMON MSRs of S-Box 0; S-Box 1 at +0x80 (public tools; 323535 unverified) */
#define SBOX_MSR_GLOBAL_CTL	0xc40
#define SBOX_MSR_CTL0		0xc50	/* CTLn at 0xc50 + 2n */
#define SBOX_MSR_CTR0		0xc51	/* CTRn at 0xc51 + 2n */
#define SBOX_MSR_STRIDE		0x80
/* Mask/match MSRs of S-Box 0; S-Box 1 at +0x10 (seed 001) */
#define SBOX_MSR_MM_CFG		0xe48
#define SBOX_MSR_MATCH		0xe49
#define SBOX_MSR_MASK		0xe4a
#define SBOX_MM_STRIDE		0x10

#define SBOX_MM_CFG_EN		BIT_ULL(63)	/* MATCH/MASK writes #GP while set */
#define SBOX_GLOBAL_CTL_EN	(BIT(SBOX_NR_CTRS) - 1)	/* counter enables */
#define SBOX_EV_TO_R_PROG_EV	0x00	/* counts mask/match hits */

/*
 * Counter control as the other uncore boxes: ev_sel, umask, edge (18),
 * en (22), invert (23), thresh; bit 20 (PMI) stays ours.
 */
#define SBOX_CTL_EN		BIT(22)
#define SBOX_CFG_VALID		(GENMASK(15, 0) | BIT(18) | BIT(23) | \
				 GENMASK(31, 24))

enum sbox_reg {
	SBOX_GLOBAL_CTL,
	SBOX_CTL,
	SBOX_CTR,
	SBOX_MM_CFG,
	SBOX_MATCH,
	SBOX_MASK,
};

/*
 * sbox_hw.c reaches the MSRs only through these, so the host unit tests can
 * run it on a register file that faults as the hardware does.
 */
struct qpiu_msr_ops {
	/* 0, or a negative errno when the access faulted */
	int (*rd)(void *ctx, u32 msr, u64 *val);
	int (*wr)(void *ctx, u32 msr, u64 val);
};

struct qpiu_sbox {
	const struct qpiu_msr_ops *ops;
	void *ctx;
	unsigned int idx;		/* S-Box 0 or 1 */
	bool mm_on;			/* MM_CFG.mm_en as we last wrote it */
};

u32 qpiu_sbox_msr(unsigned int idx, enum sbox_reg reg, unsigned int ctr);
int qpiu_sbox_init(struct qpiu_sbox *sb);
int qpiu_sbox_freeze(struct qpiu_sbox *sb, bool freeze);
int qpiu_sbox_set_filter(struct qpiu_sbox *sb, u64 match, u64 mask);
int qpiu_sbox_start(struct qpiu_sbox *sb, unsigned int ctr, u32 ctl,
		    bool mm);
int qpiu_sbox_stop(struct qpiu_sbox *sb, unsigned int ctr, u32 ctl);
int qpiu_sbox_read(struct qpiu_sbox *sb, unsigned int ctr, u64 *val);
int qpiu_sbox_read_ctl(struct qpiu_sbox *sb, unsigned int ctr, u32 *ctl);
int qpiu_sbox_probe_regs(struct qpiu_sbox *sb, u64 pattern, u64 *readback);

#endif /* _QPI_UNCORE_SBOX_H */
