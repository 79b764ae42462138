/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qpi_uncore: the hardware-independent rules of the driver (what a config may
 * contain, which counters an event may use, how counters are assigned, read
 * and folded), kept free of kernel APIs so the host unit tests run them as is.
 */
#ifndef _QPI_UNCORE_LOGIC_H
#define _QPI_UNCORE_LOGIC_H

#include "qpi_uncore_regs.h"

#define QPIU_MAX_GROUP		8	/* events one box can be asked to hold */
#define QPIU_MSG_LEN		160

enum qpiu_platform_id {
	QPIU_SNBEP,		/* Xeon E5-2600 (Sandy Bridge-EP) */
	QPIU_IVBEP,		/* Xeon E5-2600 v2 (Ivy Bridge-EP) */
	QPIU_HSWEP,		/* Xeon E5 v3 (Haswell-EP) */
	QPIU_BDX,		/* Xeon E5 v4 (Broadwell-EP) */
	QPIU_NR_PLATFORMS,
};

enum qpiu_box_kind {
	QPIU_BOX_QPI,
	QPIU_BOX_R3QPI,
	QPIU_BOX_SBOX,		/* Xeon 7500, MSR based */
	QPIU_NR_BOX_KINDS,
};

/* Events (ev_sel | ev_sel_ext << 8) first..last may only use @mask. */
struct qpiu_constraint {
	u16 first;
	u16 last;
	u8 mask;
};

/* What one kind of box on one platform can do. */
struct qpiu_box_desc {
	const char *name;		/* "qpi" or "r3qpi": PMU uncore_<name>_<n> */
	enum qpiu_box_kind kind;
	u8 nr_ctrs;
	u8 width;
	u32 cfg_valid;			/* config bits a user may set */
	/*
	 * A mask/match filter in config1 and config2, used by one event:
	 * @filter_event (ev_sel | ev_sel_ext << 8), named @filter_name.
	 */
	bool has_filter;
	u16 filter_event;
	u64 filter_valid;		/* bits config1/config2 may set */
	const char *filter_name;
	/*
	 * Upper bounds of the counting rate, for the fold timer: the largest
	 * increment per cycle of any event, and the box clock.
	 */
	u16 max_inc;
	u16 max_mhz;
	/*
	 * The counter controls have ov_en (bit 20) and BOX_STATUS records
	 * overflows, as the guide we have for this box documents.
	 */
	bool has_ov_en;
	const struct qpiu_constraint *constraints;	/* ends with mask 0 */
};

extern const struct qpiu_box_desc
	qpiu_box_descs[QPIU_NR_PLATFORMS][QPIU_NR_BOX_KINDS];
extern const struct qpiu_box_desc qpiu_sbox_desc;

/*
 * Events the driver counts itself, with no hardware counter: config bits
 * 56-63 (format "driver_event"), far above every control field, so that no
 * hardware event can be taken for one.  Such an event sets no other bit.
 */
#define QPIU_CFG_DRIVER			GENMASK_ULL(63, 56)
#define QPIU_CFG_DRIVER_SHIFT		56
#define QPIU_DRV_FOREIGN_WRITES		1	/* episodes, see foreign.c */
#define QPIU_CFG_FOREIGN_WRITES		((u64)QPIU_DRV_FOREIGN_WRITES << \
					 QPIU_CFG_DRIVER_SHIFT)

/* Config bits existing tools set that the driver owns: accepted, ignored. */
#define QPIU_CFG_IGNORED	(UNC_CTL_EN | UNC_CTL_RST)

/* config1 = MATCH1 << 32 | MATCH0, config2 = MASK1 << 32 | MASK0 */
#define QPIU_FILTER_VALID	((u64)QPI_MM1_VALID << 32 | QPI_MM0_VALID)

int qpiu_check_config(const struct qpiu_box_desc *d, u64 config, u64 config1,
		      u64 config2, char *msg, size_t len);
u32 qpiu_ctl_bits(const struct qpiu_box_desc *d, u64 config);
bool qpiu_uses_filter(const struct qpiu_box_desc *d, u32 ctl);
u8 qpiu_counter_mask(const struct qpiu_box_desc *d, u32 ctl);
int qpiu_assign(const u8 *masks, unsigned int n, unsigned int nr_ctrs,
		const s8 *prefer, s8 *out);
u64 qpiu_delta(u64 prev, u64 now, u8 width);
u64 qpiu_fold_interval_ns(const struct qpiu_box_desc *d);
u64 qpiu_pace_room(u64 count, unsigned int limit, unsigned int spare);

/*
 * A 64-bit counter is two config dwords; qpiu_read_counter() returns a value
 * the counter really held, or an error when the device answers with bits the
 * hardware cannot set (a removed or failing function reads all ones).
 */
typedef u32 (*qpiu_rd_fn)(void *ctx, unsigned int off);
int qpiu_read_counter(qpiu_rd_fn rd, void *ctx, unsigned int off, u8 width,
		      u64 *val);

#endif /* _QPI_UNCORE_LOGIC_H */
