// SPDX-License-Identifier: GPL-2.0
/*
 * qpi_uncore rules that do not touch hardware or kernel state.  Shared by the
 * module and the host unit tests (tools/unittest/test_qpi_uncore_logic.c).
 */
#include "qpi_uncore_logic.h"

#ifdef __KERNEL__
#include <linux/errno.h>
#include <linux/kernel.h>
#else
#include <errno.h>
#include <stdio.h>
#endif

#define QPIU_READ_TRIES		4

/* A driver event: the one it names, and nothing else set. */
static int qpiu_check_driver_event(u64 config, u64 config1, u64 config2,
				   char *msg, size_t len)
{
	unsigned int drv = config >> QPIU_CFG_DRIVER_SHIFT;

	if (drv != QPIU_DRV_FOREIGN_WRITES) {
		snprintf(msg, len,
			 "driver_event=%u: no such driver event (1: foreign_writes)",
			 drv);
		return -EINVAL;
	}
	if ((config & ~QPIU_CFG_DRIVER) || config1 || config2) {
		snprintf(msg, len,
			 "driver_event=%u (foreign_writes): counts in the driver, not in a counter; event, umask, edge, inv, thresh, config1 and config2 must be 0",
			 drv);
		return -EINVAL;
	}
	return 0;
}

int qpiu_check_config(const struct qpiu_box_desc *d, u64 config, u64 config1,
		      u64 config2, char *msg, size_t len)
{
	u64 bad = config & ~(u64)(d->cfg_valid | QPIU_CFG_IGNORED);
	u8 thresh = (config & UNC_CTL_THRESH) >> UNC_CTL_THRESH_SHIFT;

	if (config & QPIU_CFG_DRIVER)
		return qpiu_check_driver_event(config, config1, config2, msg,
					       len);
	if (bad) {
		snprintf(msg, len,
			 "config=0x%llx: bits 0x%llx are reserved on uncore_%s (allowed 0x%08x)",
			 (unsigned long long)config, (unsigned long long)bad,
			 d->name, (u32)(d->cfg_valid | QPIU_CFG_IGNORED));
		return -EINVAL;
	}
	/* 327043 Table 2-86: invert and edge_det act after the threshold. */
	if ((config & (UNC_CTL_EDGE_DET | UNC_CTL_INVERT)) && !thresh) {
		snprintf(msg, len,
			 "config=0x%llx: edge and inv need thresh > 0 (use thresh=1 for events that count at most 1 per cycle)",
			 (unsigned long long)config);
		return -EINVAL;
	}
	if (!config1 && !config2)
		return 0;
	if (!d->has_filter) {
		snprintf(msg, len, "%s=0x%llx: uncore_%s has no packet filter",
			 config1 ? "config1" : "config2",
			 (unsigned long long)(config1 ? config1 : config2),
			 d->name);
		return -EINVAL;
	}
	if (!qpiu_uses_filter(d, (u32)config)) {
		snprintf(msg, len,
			 "config1/config2: only %s counts through the packet filter, not event 0x%llx",
			 d->filter_name,
			 (unsigned long long)((config & UNC_CTL_EV_SEL) |
			 ((config & UNC_CTL_EV_SEL_EXT) ? 0x100 : 0)));
		return -EINVAL;
	}
	bad = config1 & ~d->filter_valid;
	if (bad || (config2 & ~d->filter_valid)) {
		snprintf(msg, len,
			 "%s=0x%llx: bits 0x%llx are reserved in %s (allowed 0x%llx)",
			 bad ? "config1" : "config2",
			 (unsigned long long)(bad ? config1 : config2),
			 (unsigned long long)(bad ? bad :
					      config2 & ~d->filter_valid),
			 bad ? "MATCH1:MATCH0" : "MASK1:MASK0",
			 (unsigned long long)d->filter_valid);
		return -EINVAL;
	}
	return 0;
}

/* The filter event reads MATCH/MASK, even when they are 0. */
bool qpiu_uses_filter(const struct qpiu_box_desc *d, u32 ctl)
{
	u16 code = (ctl & UNC_CTL_EV_SEL) |
		   ((ctl & UNC_CTL_EV_SEL_EXT) ? 0x100 : 0);

	return d->has_filter && code == d->filter_event;
}

/* The control bits an accepted config programs, without en and rst. */
u32 qpiu_ctl_bits(const struct qpiu_box_desc *d, u64 config)
{
	return (u32)config & d->cfg_valid;
}

u8 qpiu_counter_mask(const struct qpiu_box_desc *d, u32 ctl)
{
	u16 code = (ctl & UNC_CTL_EV_SEL) | ((ctl & UNC_CTL_EV_SEL_EXT) ? 0x100 : 0);
	const struct qpiu_constraint *c;

	for (c = d->constraints; c && c->mask; c++)
		if (code >= c->first && code <= c->last)
			return c->mask;
	return BIT(d->nr_ctrs) - 1;
}

struct assign_state {
	const u8 *masks;
	const s8 *prefer;
	u8 claimed;		/* counters some event already holds */
	s8 *out;
	u8 order[QPIU_MAX_GROUP];
	unsigned int n;
	unsigned int nr_ctrs;
};

static bool try_counter(struct assign_state *st, unsigned int k, u8 used,
			int c);

/*
 * An event keeps its counter when it can, and otherwise first tries
 * counters no other event holds: every move costs config accesses.
 */
static bool assign_from(struct assign_state *st, unsigned int k, u8 used)
{
	unsigned int i, c, pass;

	if (k == st->n)
		return true;
	i = st->order[k];
	if (st->prefer && st->prefer[i] >= 0 &&
	    try_counter(st, k, used, st->prefer[i]))
		return true;
	for (pass = 0; pass < 2; pass++) {
		for (c = 0; c < st->nr_ctrs; c++) {
			bool claimed = st->claimed & BIT(c);

			/* pass 0: unclaimed counters, pass 1: the others */
			if ((st->prefer && st->prefer[i] == (s8)c) ||
			    claimed == !pass)
				continue;
			if (try_counter(st, k, used, c))
				return true;
		}
	}
	return false;
}

static bool try_counter(struct assign_state *st, unsigned int k, u8 used,
			int c)
{
	unsigned int i = st->order[k];

	if (!(st->masks[i] & BIT(c)) || (used & BIT(c)))
		return false;
	st->out[i] = c;
	return assign_from(st, k + 1, used | BIT(c));
}

static unsigned int popcount8(u8 v)
{
	unsigned int n = 0;

	for (; v; v &= v - 1)
		n++;
	return n;
}

/**
 * qpiu_assign() - give each event a counter it may use
 * @masks: allowed counters of each event
 * @n: number of events
 * @nr_ctrs: counters in the box
 * @prefer: current counter of each event, or -1; may be NULL
 * @out: the assignment
 *
 * The most constrained events are placed first and every placement is
 * backtracked, so an assignment is found whenever one exists (at most four
 * counters: the search is tiny).
 *
 * Return: 0, or -ENOSPC when the events cannot count together.
 */
int qpiu_assign(const u8 *masks, unsigned int n, unsigned int nr_ctrs,
		const s8 *prefer, s8 *out)
{
	struct assign_state st = {
		.masks = masks, .prefer = prefer, .out = out, .n = n,
		.nr_ctrs = nr_ctrs,
	};
	unsigned int i, j;

	if (n > nr_ctrs || n > QPIU_MAX_GROUP)
		return -ENOSPC;
	for (i = 0; i < n; i++) {
		if (prefer && prefer[i] >= 0)
			st.claimed |= BIT(prefer[i]);
		st.order[i] = i;
		for (j = i; j > 0; j--) {
			u8 a = st.order[j - 1], b = st.order[j];

			if (popcount8(masks[a]) <= popcount8(masks[b]))
				break;
			st.order[j - 1] = b;
			st.order[j] = a;
		}
	}
	return assign_from(&st, 0, 0) ? 0 : -ENOSPC;
}

u64 qpiu_delta(u64 prev, u64 now, u8 width)
{
	return (now - prev) & (BIT_ULL(width) - 1);
}

/*
 * Deltas are taken modulo the counter width, so a counter must be read
 * before it can advance by 2^width.  Fold at half that time at the box's
 * highest possible rate.
 */
u64 qpiu_fold_interval_ns(const struct qpiu_box_desc *d)
{
	u64 per_us = (u64)d->max_inc * d->max_mhz;

	return (BIT_ULL(d->width) / per_us) * 1000 / 2;
}

/*
 * High, low, high: when both high reads agree no carry reached the high
 * dword in between, so the pair is a value the counter held.  When they
 * differ, the second high read starts the next attempt, so a retry costs two
 * accesses.  A carry into the high dword needs 2^32 events, so a second
 * retry means the device is not counting as hardware can.
 */
int qpiu_read_counter(qpiu_rd_fn rd, void *ctx, unsigned int off, u8 width,
		      u64 *val)
{
	u32 hi_valid = (u32)((BIT_ULL(width) - 1) >> 32);
	u32 hi, hi2, lo;
	int tries;

	hi = rd(ctx, off + 4);
	for (tries = 0; tries < QPIU_READ_TRIES; tries++) {
		lo = rd(ctx, off);
		hi2 = rd(ctx, off + 4);
		/* Bits above the width read as zero on a live device. */
		if ((hi | hi2) & ~hi_valid)
			return -EIO;
		if (hi == hi2) {
			*val = (u64)hi << 32 | lo;
			return 0;
		}
		hi = hi2;
	}
	return -EAGAIN;
}

/*
 * perf counts an event's samples in a tick of its CPU (hw.interrupts: 1 at
 * the first after the tick, +1 for each later one) and throttles at the
 * sample it checks that brings the count to its limit of a tick,
 * max_samples_per_tick (kernel/events/core.c, >= from 5.10 to 7.3).  So
 * from @count, at most @limit - 1 - @count more go through.  @spare of them
 * are kept back for a sample that perf checks before its count can be
 * read again: on the perf_event_overflow route, the first sample of the
 * next look when whether perf's tick came meanwhile is unknown.  A count
 * at or past the limit (MAX_INTERRUPTS while throttled) leaves none.
 */
u64 qpiu_pace_room(u64 count, unsigned int limit, unsigned int spare)
{
	u64 most = limit > spare ? (u64)limit - 1 - spare : 0;

	return count < most ? most - count : 0;
}
