// SPDX-License-Identifier: GPL-2.0
/*
 * What the boxes of each platform can do: counters, widths, config bits,
 * counting rate bounds, and which counters each event may use.
 */
#include "qpi_uncore_logic.h"
#include "qpi_uncore_sbox.h"

/*
 * Pure data, shared with the host unit tests, which check it against the
 * event tables in tools/events.
 */
#define QPI_CFG		(UNC_CTL_EV_SEL | UNC_CTL_UMASK | UNC_CTL_EDGE_DET | \
			 UNC_CTL_EV_SEL_EXT | UNC_CTL_INVERT | UNC_CTL_THRESH)
#define R3QPI_CFG	(UNC_CTL_EV_SEL | UNC_CTL_UMASK | UNC_CTL_EDGE_DET | \
			 UNC_CTL_THRESH)

/*
 * 327043: QPI counters "can increment by a maximum of 6b per cycle"; the
 * link layer clock stays below 4.8 GHz (9.6 GT/s).  No R3QPI event is
 * documented above 8 bits per cycle (the threshold compares 8 bits), and the
 * uncore clock stays below 3 GHz.
 */
#define QPI_MAX_INC	63
#define QPI_MAX_MHZ	4800
#define R3_MAX_INC	255
#define R3_MAX_MHZ	3000

/*
 * Which counters an event may use: the "Register Restrictions" of the
 * uncore guides.  SNB-EP and IVB-EP, 327043 and 329468: R3QPI.
 */
static const struct qpiu_constraint snbep_r3qpi_constraints[] = {
	{ 0x10, 0x12, 0x3 },
	{ 0x13, 0x13, 0x1 },
	{ 0x20, 0x26, 0x3 },
	{ 0x28, 0x34, 0x3 },
	{ 0x36, 0x39, 0x3 },
	{ }
};

/*
 * HSX and BDX, from the event tables' counter lists; 0x13, 0x2a and 0x2b are
 * listed as "0-3" on a three-counter box, which the guides' counter-0-only
 * restriction explains.
 */
static const struct qpiu_constraint hswep_r3qpi_constraints[] = {
	{ 0x10, 0x12, 0x3 },
	{ 0x13, 0x13, 0x1 },
	{ 0x14, 0x15, 0x3 },
	{ 0x1f, 0x26, 0x3 },
	{ 0x28, 0x29, 0x3 },
	{ 0x2a, 0x2b, 0x1 },
	{ 0x2c, 0x34, 0x3 },
	{ 0x36, 0x39, 0x3 },
	{ }
};

#define QPI_BOX {							\
	.name = "qpi", .kind = QPIU_BOX_QPI, .nr_ctrs = UNC_QPI_NUM_CTRS, \
	.width = UNC_QPI_CTR_WIDTH, .cfg_valid = QPI_CFG, .has_filter = true, \
	.filter_event = 0x100 | QPI_EV_CTO_COUNT,			\
	.filter_valid = QPIU_FILTER_VALID,				\
	.filter_name = "cto_count (event=0x138)",			\
	.max_inc = QPI_MAX_INC, .max_mhz = QPI_MAX_MHZ,			\
}

#define R3QPI_BOX(_width, _constraints, _ov) {				\
	.name = "r3qpi", .kind = QPIU_BOX_R3QPI,			\
	.nr_ctrs = UNC_R3QPI_NUM_CTRS, .width = (_width),		\
	.cfg_valid = R3QPI_CFG, .max_inc = R3_MAX_INC,			\
	.max_mhz = R3_MAX_MHZ, .constraints = (_constraints),		\
	.has_ov_en = (_ov),						\
}

/*
 * ov_en: Table 2-192 of 329468 documents it for the IVB-EP R3QPI counters.
 * Table 2-86 of 327043 makes bit 20 reserved on SNB-EP QPI; for the other
 * boxes we have no text, so their overflows are found from the counter
 * alone.  On HSX and BDX the overflow message would also freeze every box
 * that honours the UBox freeze, and where that is undone (the UBox global
 * control MSR) is not in our sources.
 */
const struct qpiu_box_desc qpiu_box_descs[QPIU_NR_PLATFORMS][QPIU_NR_BOX_KINDS] = {
	[QPIU_SNBEP] = { QPI_BOX, R3QPI_BOX(UNC_R3QPI_CTR_WIDTH,
					     snbep_r3qpi_constraints, false) },
	[QPIU_IVBEP] = { QPI_BOX, R3QPI_BOX(UNC_R3QPI_CTR_WIDTH,
					     snbep_r3qpi_constraints, true) },
	[QPIU_HSWEP] = { QPI_BOX, R3QPI_BOX(UNC_R3QPI_CTR_WIDTH,
					     hswep_r3qpi_constraints, false) },
	/* Broadwell-EP widened the R3QPI counters to 48 bits. */
	[QPIU_BDX] = { QPI_BOX, R3QPI_BOX(48, hswep_r3qpi_constraints,
					   false) },
};

/*
 * Xeon 7500 S-Box: 48-bit counters at the uncore clock (below 3 GHz); the
 * layout of its MATCH and MASK is not in our sources, so all 64 bits pass.
 */
const struct qpiu_box_desc qpiu_sbox_desc = {
	.name = "sbox", .kind = QPIU_BOX_SBOX, .nr_ctrs = SBOX_NR_CTRS,
	.width = SBOX_CTR_WIDTH, .cfg_valid = SBOX_CFG_VALID,
	.has_filter = true, .filter_event = SBOX_EV_TO_R_PROG_EV,
	.filter_valid = ~0ULL, .filter_name = "event 0x00 (TO_R_PROG_EV)",
	.max_inc = R3_MAX_INC, .max_mhz = R3_MAX_MHZ,
};
