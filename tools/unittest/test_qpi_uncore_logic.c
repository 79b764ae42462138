// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of the qpi_uncore rules: config validation, counter
 * restrictions against the event tables, counter assignment against an
 * exhaustive search, deltas, fold intervals, and the consistent 64-bit read
 * against a simulated counter that moves between accesses.
 */
#include <errno.h>
#include <string.h>

#include "qpi_uncore_logic.h"
#include "ktap.h"

#ifndef EVENTS_DIR
#define EVENTS_DIR "../events"
#endif

static const struct qpiu_box_desc *qpi = &qpiu_box_descs[QPIU_SNBEP][QPIU_BOX_QPI];
static const struct qpiu_box_desc *r3 = &qpiu_box_descs[QPIU_IVBEP][QPIU_BOX_R3QPI];

static int check(const struct qpiu_box_desc *d, u64 c, u64 c1, u64 c2,
		 const char *want_msg)
{
	char msg[QPIU_MSG_LEN] = "";
	int ret = qpiu_check_config(d, c, c1, c2, msg, sizeof(msg));

	if (want_msg && !strstr(msg, want_msg)) {
		printf("# message '%s' lacks '%s'\n", msg, want_msg);
		ktap_cur_failed = 1;
	}
	return ret;
}

static void test_config_validation(void)
{
	EXPECT_EQ(check(qpi, 0x14, 0, 0, NULL), 0);
	EXPECT_EQ(check(qpi, 0xff20ffff | UNC_CTL_INVERT | UNC_CTL_EDGE_DET,
			0, 0, NULL), 0);
	/* en and rst, as PCM sets them, are accepted */
	EXPECT_EQ(check(qpi, 0x420014, 0, 0, NULL), 0);
	EXPECT_EQ(qpiu_ctl_bits(qpi, 0x420014), 0x14);
	EXPECT_EQ(check(qpi, BIT(16) | 0x14, 0, 0, "bits 0x10000 are reserved on uncore_qpi"), -EINVAL);
	EXPECT_EQ(check(qpi, BIT(19), 0, 0, "bits 0x80000"), -EINVAL);
	EXPECT_EQ(check(qpi, BIT(20), 0, 0, "bits 0x100000"), -EINVAL);
	EXPECT_EQ(check(qpi, 1ULL << 32, 0, 0, "bits 0x100000000"), -EINVAL);
	EXPECT_EQ(check(r3, UNC_CTL_INVERT | (1 << 24), 0, 0, "reserved on uncore_r3qpi"), -EINVAL);
	EXPECT_EQ(check(r3, UNC_CTL_EV_SEL_EXT, 0, 0, "bits 0x200000"), -EINVAL);
	EXPECT_EQ(check(qpi, UNC_CTL_EDGE_DET | 0x14, 0, 0, "edge and inv need thresh > 0"), -EINVAL);
	EXPECT_EQ(check(qpi, UNC_CTL_INVERT | 0x14, 0, 0, "edge and inv need thresh > 0"), -EINVAL);
	EXPECT_EQ(check(r3, UNC_CTL_EDGE_DET | (1 << 24), 0, 0, NULL), 0);
	/* the packet filter: cto_count only, valid MATCH/MASK bits only */
	EXPECT_EQ(check(qpi, 0x200038, 0x1c00, 0x1e00, NULL), 0);
	EXPECT_EQ(check(qpi, 0x200038, QPIU_FILTER_VALID, QPIU_FILTER_VALID, NULL), 0);
	EXPECT_EQ(check(qpi, 0x38, 0x1c00, 0, "only cto_count (event=0x138)"), -EINVAL);
	EXPECT_EQ(check(qpi, 0x200014, 0, 0x1e00, "not event 0x114"), -EINVAL);
	EXPECT_EQ(check(qpi, 0x200038, 0x7, 0, "config1=0x7: bits 0x7 are reserved in MATCH1:MATCH0"), -EINVAL);
	EXPECT_EQ(check(qpi, 0x200038, 0, 1ULL << 40, "config2=0x10000000000: bits 0x10000000000"), -EINVAL);
	EXPECT_EQ(check(qpi, 0x200038, 1ULL << 30, 0, "bits 0x40000000"), -EINVAL);
	/* driver events: foreign_writes, alone, on every kind of box */
	EXPECT_EQ(check(qpi, QPIU_CFG_FOREIGN_WRITES, 0, 0, NULL), 0);
	EXPECT_EQ(check(r3, 1ULL << 56, 0, 0, NULL), 0);
	EXPECT_EQ(check(&qpiu_sbox_desc, QPIU_CFG_FOREIGN_WRITES, 0, 0, NULL), 0);
	EXPECT_EQ(check(qpi, 2ULL << 56, 0, 0, "driver_event=2: no such driver event (1: foreign_writes)"), -EINVAL);
	EXPECT_EQ(check(qpi, 0xffULL << 56, 0, 0, "driver_event=255: no such"), -EINVAL);
	EXPECT_EQ(check(qpi, QPIU_CFG_FOREIGN_WRITES | 0x14, 0, 0, "driver_event=1 (foreign_writes): counts in the driver, not in a counter; event, umask, edge, inv, thresh, config1 and config2 must be 0"), -EINVAL);
	EXPECT_EQ(check(qpi, QPIU_CFG_FOREIGN_WRITES | UNC_CTL_EN, 0, 0, "must be 0"), -EINVAL);
	EXPECT_EQ(check(qpi, QPIU_CFG_FOREIGN_WRITES, 0x1c00, 0, "must be 0"), -EINVAL);
	EXPECT_EQ(check(qpi, QPIU_CFG_FOREIGN_WRITES, 0, 1, "must be 0"), -EINVAL);
	/* bits 32-55 stay reserved */
	EXPECT_EQ(check(qpi, 1ULL << 55, 0, 0, "bits 0x80000000000000 are reserved"), -EINVAL);
	EXPECT_TRUE(qpiu_uses_filter(qpi, 0x200038));
	EXPECT_TRUE(!qpiu_uses_filter(qpi, 0x38));
	EXPECT_TRUE(!qpiu_uses_filter(r3, 0x200038));
	EXPECT_EQ(check(r3, 0x1, 0, 1, "config2=0x1: uncore_r3qpi has no packet filter"), -EINVAL);
}

/* Every row of every event table: our restriction is the listed one. */
static void test_restrictions_match_event_tables(void)
{
	static const char *const plats[] = { "snbep", "ivbep", "hswep", "bdx" };
	unsigned int p, rows = 0;

	for (p = 0; p < ARRAY_SIZE(plats); p++) {
		char path[256], line[512];
		FILE *f;

		snprintf(path, sizeof(path), "%s/events-%s.csv", EVENTS_DIR,
			 plats[p]);
		f = fopen(path, "r");
		if (!f) {
			printf("# cannot open %s\n", path);
			ktap_cur_failed = 1;
			return;
		}
		while (fgets(line, sizeof(line), f)) {
			char box[16], name[128], ctrs[32];
			unsigned int ev, um, ext, want = 0, k;
			const struct qpiu_box_desc *d;
			u8 got;

			if (sscanf(line, "%15[^,],%127[^,],%x,%x,%u,%31s", box,
				   name, &ev, &um, &ext, ctrs) != 6)
				continue;
			d = &qpiu_box_descs[p][strcmp(box, "qpi") ?
					       QPIU_BOX_R3QPI : QPIU_BOX_QPI];
			for (k = 0; ctrs[k]; k++)
				if (ctrs[k] >= '0' && ctrs[k] <= '9')
					want |= 1U << (ctrs[k] - '0');
			/*
			 * A list naming counters the box does not have (0-3 on
			 * a 3-counter R3QPI) stands for the guides' "counter 0
			 * only".
			 */
			if (want >> d->nr_ctrs)
				want = 1;
			got = qpiu_counter_mask(d, ev | (ext ? UNC_CTL_EV_SEL_EXT : 0) |
						um << UNC_CTL_UMASK_SHIFT);
			if (got != want) {
				printf("# %s %s: mask 0x%x, table says 0x%x\n",
				       plats[p], name, got, want);
				ktap_cur_failed = 1;
			}
			rows++;
		}
		fclose(f);
	}
	EXPECT_EQ(rows, 147 + 294 + 298 + 301);
}

/* Exhaustive reference: is there any assignment at all? */
static bool exists(const u8 *masks, unsigned int n, unsigned int k, u8 used)
{
	unsigned int c;

	if (k == n)
		return true;
	for (c = 0; c < 4; c++)
		if ((masks[k] & (1U << c)) && !(used & (1U << c)) &&
		    exists(masks, n, k + 1, used | (1U << c)))
			return true;
	return false;
}

static void test_assign_exhaustive(void)
{
	unsigned int n, combo, cases = 0;

	/* every multiset of masks over 4 counters, up to 4 events */
	for (n = 1; n <= 5; n++) {
		unsigned int total = 1;

		for (combo = 0; combo < n; combo++)
			total *= 16;
		for (combo = 0; combo < total; combo++) {
			u8 masks[5];
			s8 out[5];
			unsigned int i, c = combo;
			int ret;

			for (i = 0; i < n; i++, c /= 16)
				masks[i] = c % 16;
			ret = qpiu_assign(masks, n, 4, NULL, out);
			EXPECT_EQ(ret == 0, n <= 4 && exists(masks, n, 0, 0));
			if (!ret) {
				u8 used = 0;

				for (i = 0; i < n; i++) {
					EXPECT_TRUE(masks[i] & (1U << out[i]));
					EXPECT_TRUE(!(used & (1U << out[i])));
					used |= 1U << out[i];
				}
			}
			cases++;
			if (ktap_cur_failed)
				return;
		}
	}
	EXPECT_EQ(cases, 16 + 256 + 4096 + 65536 + 1048576);
}

static void test_assign_keeps_counters(void)
{
	u8 masks[3] = { 0x7, 0x7, 0x1 };
	s8 prefer[3] = { 2, 1, -1 }, out[3];

	EXPECT_EQ(qpiu_assign(masks, 3, 3, prefer, out), 0);
	EXPECT_EQ(out[0], 2);
	EXPECT_EQ(out[1], 1);
	EXPECT_EQ(out[2], 0);
	/* counter 0 taken by a movable event: it moves, the other stays */
	prefer[0] = 0;
	prefer[1] = 1;
	EXPECT_EQ(qpiu_assign(masks, 3, 3, prefer, out), 0);
	EXPECT_EQ(out[0], 2);
	EXPECT_EQ(out[1], 1);
	EXPECT_EQ(out[2], 0);
	masks[1] = 0x1;
	EXPECT_EQ(qpiu_assign(masks, 3, 3, prefer, out), -ENOSPC);
}

static void test_delta_and_fold_interval(void)
{
	EXPECT_EQ(qpiu_delta(10, 25, 48), 15);
	EXPECT_EQ(qpiu_delta((1ULL << 48) - 10, 15, 48), 25);
	EXPECT_EQ(qpiu_delta((1ULL << 44) - 1, 0, 44), 1);
	/* 2^48 / (63 x 4800 MHz) / 2 and 2^44 / (255 x 3000 MHz) / 2 */
	EXPECT_EQ(qpiu_fold_interval_ns(qpi), 465401747000ULL);
	EXPECT_EQ(qpiu_fold_interval_ns(r3), 11498160500ULL);
	EXPECT_EQ(qpiu_fold_interval_ns(&qpiu_box_descs[QPIU_BDX][QPIU_BOX_R3QPI]),
		  183970573000ULL);
}

/* A counter that moves by @step before every access. */
struct fake_ctr {
	u64 val;
	u64 step;
	u8 width;
	unsigned int accesses;
	bool all_ones;
};

static u32 fake_rd(void *ctx, unsigned int off)
{
	struct fake_ctr *f = ctx;

	f->accesses++;
	if (f->all_ones)
		return ~0U;
	f->val = (f->val + f->step) & ((1ULL << f->width) - 1);
	return off & 4 ? f->val >> 32 : (u32)f->val;
}

static void test_consistent_read(void)
{
	struct fake_ctr f = { .val = 0xfffffff0, .step = 1, .width = 48 };
	u64 v;

	/* no carry: three accesses */
	f.val = 0x234500000000ULL;
	EXPECT_EQ(qpiu_read_counter(fake_rd, &f, 0xa0, 48, &v), 0);
	EXPECT_EQ(v, 0x234500000002ULL);
	EXPECT_EQ(f.accesses, 3);
	/* a carry between the high reads: one retry, two more accesses */
	f.val = 0xfffffffeULL;
	f.accesses = 0;
	EXPECT_EQ(qpiu_read_counter(fake_rd, &f, 0xa0, 48, &v), 0);
	EXPECT_EQ(v, 0x100000002ULL);
	EXPECT_EQ(f.accesses, 5);
	/* every value read is one the counter held: 1000 reads at a rate that
	 * carries every ~9 accesses
	 */
	f.step = 0x1c71c71d;
	f.val = 0;
	for (unsigned int i = 0; i < 1000; i++) {
		int ret = qpiu_read_counter(fake_rd, &f, 0xa0, 48, &v);

		if (ret == -EAGAIN)
			continue;
		EXPECT_EQ(ret, 0);
		EXPECT_EQ(v % f.step, 0);
		if (ktap_cur_failed)
			return;
	}
	/* a counter carrying on every access is not hardware */
	f.step = 1ULL << 32;
	EXPECT_EQ(qpiu_read_counter(fake_rd, &f, 0xa0, 48, &v), -EAGAIN);
	/* all ones: high bits no 48-bit counter has */
	f.all_ones = true;
	EXPECT_EQ(qpiu_read_counter(fake_rd, &f, 0xa0, 48, &v), -EIO);
	EXPECT_EQ(qpiu_read_counter(fake_rd, &f, 0xa0, 44, &v), -EIO);
}

static void test_pace_room(void)
{
	/* limit 8 a tick: 7 go through, counted from @count */
	EXPECT_EQ(qpiu_pace_room(0, 8, 0), 7);
	EXPECT_EQ(qpiu_pace_room(1, 8, 0), 6);
	EXPECT_EQ(qpiu_pace_room(6, 8, 0), 1);
	EXPECT_EQ(qpiu_pace_room(7, 8, 0), 0);
	EXPECT_EQ(qpiu_pace_room(8, 8, 0), 0);
	/* one spare for a first sample perf checks */
	EXPECT_EQ(qpiu_pace_room(0, 8, 1), 6);
	EXPECT_EQ(qpiu_pace_room(5, 8, 1), 1);
	EXPECT_EQ(qpiu_pace_room(6, 8, 1), 0);
	/* throttled: MAX_INTERRUPTS */
	EXPECT_EQ(qpiu_pace_room(~0ULL, 8, 0), 0);
	EXPECT_EQ(qpiu_pace_room(~0ULL, 8, 1), 0);
	/* a limit of 1 or 2 a tick */
	EXPECT_EQ(qpiu_pace_room(0, 1, 0), 0);
	EXPECT_EQ(qpiu_pace_room(0, 2, 0), 1);
	EXPECT_EQ(qpiu_pace_room(0, 2, 1), 0);
	EXPECT_EQ(qpiu_pace_room(0, 1, 1), 0);
	EXPECT_EQ(qpiu_pace_room(0, 0, 0), 0);
	/* perf's default at HZ 250 */
	EXPECT_EQ(qpiu_pace_room(1, 400, 0), 398);
}

/*
 * perf's count of an event's samples in a tick, as
 * __perf_event_account_interrupt() keeps it (6.1 core.c:9376-9390, the
 * same from 5.10 to 7.3), and its tick (perf_event_task_tick(): a new
 * sequence, throttled events unthrottled).
 */
struct perf_model {
	u64 seq, ev_seq, interrupts;
	unsigned int limit;
	unsigned int throttles, samples, most_in_tick, in_tick;
};

#define MODEL_THROTTLED	(~0ULL)

static void model_tick(struct perf_model *m)
{
	m->seq++;
	m->in_tick = 0;
	if (m->interrupts == MODEL_THROTTLED)
		m->interrupts = 0;
}

/* one call of @k samples; perf checks the first only if @first_checked */
static void model_call(struct perf_model *m, u64 k, bool first_checked)
{
	u64 i;

	for (i = 0; i < k; i++) {
		/* the driver offers nothing to a throttled event */
		if (m->interrupts == MODEL_THROTTLED)
			return;
		if (m->seq != m->ev_seq) {
			m->ev_seq = m->seq;
			m->interrupts = 1;
		} else {
			m->interrupts++;
		}
		m->samples++;
		if (++m->in_tick > m->most_in_tick)
			m->most_in_tick = m->in_tick;
		if ((first_checked || i) && m->interrupts >= m->limit) {
			m->interrupts = MODEL_THROTTLED;
			m->throttles++;
			return;
		}
	}
}

enum pace_route {
	ROUTE_TP,		/* perf_tp_event */
	ROUTE_OVF_KNOWN,	/* perf_event_overflow, the count known */
	ROUTE_OVF_SPARE,	/* perf_event_overflow, unknown: one spare */
	ROUTE_OVF_BEFORE,	/* perf_event_overflow, as before issue 34.2 */
};

/*
 * One paced look of qpiu_emit_paced() offering @n periods on @route;
 * returns the periods offered (the rest are carried to the next look).
 */
static u64 model_look(struct perf_model *m, enum pace_route route, u64 n)
{
	u64 room, count;

	if (!n)
		return 0;
	if (route == ROUTE_OVF_KNOWN) {
		/* qpiu_sample_tick_count(): 0 once perf's tick came */
		count = m->seq == m->ev_seq ? m->interrupts : 0;
		room = qpiu_pace_room(count, m->limit, 0);
		room = room < n ? room : n;
		model_call(m, room, true);
		return room;
	}
	model_call(m, 1, route != ROUTE_TP);
	room = qpiu_pace_room(m->interrupts, m->limit,
			      route == ROUTE_OVF_SPARE);
	room = room < n - 1 ? room : n - 1;
	model_call(m, room, route != ROUTE_TP);
	return 1 + room;
}

/*
 * A backlog of @backlog periods, one look per character of @plan ('L'),
 * perf's tick at each 'T': the looks that run before perf's tick are the
 * tick timer's runs that came early.
 */
static struct perf_model model_run(enum pace_route route, unsigned int limit,
				   u64 backlog, const char *plan)
{
	struct perf_model m = { .seq = 1, .limit = limit };

	for (; *plan; plan++) {
		if (*plan == 'T')
			model_tick(&m);
		else
			backlog -= model_look(&m, route, backlog);
	}
	if (backlog)
		printf("# %llu periods never offered\n",
		       (unsigned long long)backlog);
	return m;
}

static void test_pace_first_sample(void)
{
	/* at most one look before perf's tick, then two and three */
	static const char one[] = "LTLLTLTLLTLLTLTLTLLTLTLTLTLTLTLTLTLTLTLTLTLT";
	static const char three[] = "LTLLLTLLTLLLLTLLLTLTLTLTLTLTLTLTLTLTLTLTLTLTL";
	struct perf_model m;

	/* perf_tp_event: the first of each call is free, nothing throttles */
	m = model_run(ROUTE_TP, 8, 100, three);
	EXPECT_EQ(m.throttles, 0);
	EXPECT_EQ(m.samples, 100);

	/* perf_event_overflow with perf's count known: never at the limit */
	m = model_run(ROUTE_OVF_KNOWN, 8, 100, three);
	EXPECT_EQ(m.throttles, 0);
	EXPECT_EQ(m.samples, 100);
	EXPECT_EQ(m.most_in_tick, 7);
	m = model_run(ROUTE_OVF_KNOWN, 2, 15, three);
	EXPECT_EQ(m.throttles, 0);
	EXPECT_EQ(m.samples, 15);
	EXPECT_EQ(m.most_in_tick, 1);
	m = model_run(ROUTE_OVF_KNOWN, 400, 3192, one);
	EXPECT_EQ(m.throttles, 0);
	EXPECT_EQ(m.samples, 3192);

	/* unknown: one spare covers one early look a tick */
	m = model_run(ROUTE_OVF_SPARE, 8, 100, one);
	EXPECT_EQ(m.throttles, 0);
	EXPECT_EQ(m.samples, 100);
	EXPECT_EQ(m.most_in_tick, 7);

	/* as before: the first sample of an early look throttles */
	m = model_run(ROUTE_OVF_BEFORE, 8, 100, one);
	EXPECT_EQ(m.throttles > 0, 1);
}

static const struct ktap_case cases[] = {
	{ "config_validation", test_config_validation },
	{ "restrictions_match_event_tables", test_restrictions_match_event_tables },
	{ "assign_exhaustive", test_assign_exhaustive },
	{ "assign_keeps_counters", test_assign_keeps_counters },
	{ "delta_and_fold_interval", test_delta_and_fold_interval },
	{ "consistent_read", test_consistent_read },
	{ "pace_room", test_pace_room },
	{ "pace_first_sample", test_pace_first_sample },
};

int main(void)
{
	return ktap_run("qpi_uncore_logic", cases, ARRAY_SIZE(cases));
}
