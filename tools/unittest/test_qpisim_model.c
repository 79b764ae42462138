// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of the qpisim model: the same C files that run in the
 * guest, exercised through their config-space and inject entry points, and
 * the closed-form counting checked against a cycle-by-cycle reference.
 */
#include <string.h>

#include "qpisim_model.h"
#include "ktap.h"

static struct qsim sim;

static void setup(const char *plat, int sockets, int ports, int links)
{
	struct qsim_config cfg = { 0 };
	char err[QSIM_ERR_LEN];
	int s;

	cfg.plat = qsim_platform_find(plat);
	cfg.nr_sockets = sockets;
	cfg.nr_ports = ports;
	cfg.nr_links = links;
	cfg.qpi_rate = 5;
	for (s = 0; s < sockets; s++) {
		cfg.node_ids[s] = s;
		cfg.buses[s] = qsim_default_bus(sockets, s);
	}
	if (qsim_init(&sim, &cfg, err, sizeof(err))) {
		printf("# setup: %s\n", err);
		exit(2);
	}
}

static struct qsim_fn *fn_at(int s, int slot, int func)
{
	return qsim_find_fn(&sim, sim.sock[s].bus, PCI_DEVFN(slot, func));
}

static int run(const char *cmd)
{
	char buf[256], err[QSIM_ERR_LEN];
	int ret;

	snprintf(buf, sizeof(buf), "%s", cmd);
	ret = qsim_exec(&sim, buf, err, sizeof(err));
	if (ret)
		printf("# inject '%s': %s\n", cmd, err);
	return ret;
}

static u64 rd64(struct qsim_fn *fn, int i)
{
	u64 lo = qsim_cfg_read(fn, UNC_PCI_PMON_CTR(i), 4);

	return lo | (u64)qsim_cfg_read(fn, UNC_PCI_PMON_CTR(i) + 4, 4) << 32;
}

static void wr(struct qsim_fn *fn, int where, u32 val)
{
	qsim_cfg_write(fn, where, 4, val);
}

#define EN	UNC_CTL_EN
#define EXT	UNC_CTL_EV_SEL_EXT
#define TH(t)	((u32)(t) << UNC_CTL_THRESH_SHIFT)
#define UM(u)	((u32)(u) << UNC_CTL_UMASK_SHIFT)

/* ---- counting engine against a cycle-by-cycle reference ---- */

static u64 ref_eval(u32 ctl, const u8 *inc, u64 n, bool *cmp)
{
	unsigned int t = ctl >> 24;
	bool inv = ctl & UNC_CTL_INVERT, edge = ctl & UNC_CTL_EDGE_DET;
	u64 c = 0, i;

	for (i = 0; i < n; i++) {
		bool raw, cond, prev;

		if (!t) {
			c += inc[i];
			continue;
		}
		raw = inc[i] >= t;
		cond = raw != inv;
		prev = *cmp != inv;
		c += edge ? (cond && !prev) : cond;
		*cmp = raw;
	}
	return c;
}

static unsigned int rnd_state = 12345;

static unsigned int rnd(unsigned int n)
{
	rnd_state = rnd_state * 1103515245 + 12345;
	return (rnd_state >> 8) % n;
}

static void test_eval_matches_reference(void)
{
	static u8 pat[3][8], flat[3 * 8 * 20];
	int iter;

	for (iter = 0; iter < 20000; iter++) {
		struct qsim_seg segs[3];
		bool c1 = rnd(2), c2 = c1;
		u32 ctl = TH(rnd(4)) | (rnd(2) ? UNC_CTL_INVERT : 0) |
			  (rnd(2) ? UNC_CTL_EDGE_DET : 0);
		unsigned int s, k, n = 0, nsegs = 1 + rnd(3);
		u64 r;

		for (s = 0; s < nsegs; s++) {
			segs[s].len = 1 + rnd(8);
			segs[s].repeat = rnd(20);
			segs[s].pattern = pat[s];
			for (k = 0; k < segs[s].len; k++)
				pat[s][k] = rnd(4);
			for (r = 0; r < segs[s].repeat; r++)
				for (k = 0; k < segs[s].len; k++)
					flat[n++] = pat[s][k];
		}
		EXPECT_EQ(qsim_eval(ctl, segs, nsegs, &c1),
			  ref_eval(ctl, flat, n, &c2));
		EXPECT_EQ(c1, c2);
		if (ktap_cur_failed) {
			printf("# iteration %d ctl 0x%08x\n", iter, ctl);
			return;
		}
	}
}

static void test_eval_large_repeat(void)
{
	static const u8 two[1] = { 2 };
	struct qsim_seg seg = { two, 1, 1ULL << 47 };
	bool cmp = false;

	EXPECT_EQ(qsim_eval(0, &seg, 1, &cmp), 1ULL << 48);
	EXPECT_EQ(qsim_eval(TH(2), &seg, 1, &cmp), 1ULL << 47);
	cmp = false;
	EXPECT_EQ(qsim_eval(TH(2) | UNC_CTL_EDGE_DET, &seg, 1, &cmp), 1);
}

/* ---- topology ---- */

static void test_topology_snbep(void)
{
	static const struct { int slot, func; u16 dev; } want[] = {
		{ 0x0b, 0, 0x3ce0 }, { 0x08, 0, 0x3c80 }, { 0x08, 2, 0x3c41 },
		{ 0x08, 6, 0x3c86 }, { 0x09, 0, 0x3c90 }, { 0x09, 2, 0x3c42 },
		{ 0x09, 6, 0x3c96 }, { 0x13, 0, 0x3ce4 }, { 0x13, 5, 0x3c44 },
		{ 0x13, 6, 0x3c45 },
	};
	unsigned int i, s;

	setup("snbep", 2, 2, 2);
	EXPECT_EQ(sim.sock[0].bus, 0x7f);
	EXPECT_EQ(sim.sock[1].bus, 0xff);
	for (s = 0; s < 2; s++) {
		EXPECT_EQ(sim.sock[s].nr_fns, ARRAY_SIZE(want));
		for (i = 0; i < ARRAY_SIZE(want); i++) {
			struct qsim_fn *fn = fn_at(s, want[i].slot,
						   want[i].func);

			EXPECT_TRUE(fn);
			if (fn)
				EXPECT_EQ(qsim_cfg_read(fn, 0, 4),
					  (u32)want[i].dev << 16 | 0x8086);
		}
	}
	EXPECT_TRUE(!fn_at(0, 0x0a, 2));
}

static void test_topology_ivbep_three_links(void)
{
	setup("ivbep", 4, 3, 3);
	EXPECT_EQ(sim.sock[0].bus, 0x3f);
	EXPECT_EQ(sim.sock[3].bus, 0xff);
	EXPECT_EQ(qsim_cfg_read(fn_at(2, 0x18, 2), 0, 4), 0x0e3a8086);
	EXPECT_EQ(qsim_cfg_read(fn_at(2, 0x12, 5), 0, 4), 0x0e3e8086);
	EXPECT_EQ(qsim_cfg_read(fn_at(2, 0x12, 0), 0, 2), 0x8086);
	/* No mask/match function is known for port 2. */
	EXPECT_TRUE(!fn_at(2, 0x18, 6));
	/* Multi-function header, PCIe capability at 0x60. */
	EXPECT_EQ(qsim_cfg_read(fn_at(0, 0x18, 0), PCI_CACHE_LINE_SIZE, 1), 0);
	EXPECT_EQ(qsim_cfg_read(fn_at(0, 0x18, 0), PCI_HEADER_TYPE, 1), 0x80);
	EXPECT_EQ(qsim_cfg_read(fn_at(0, 0x18, 2), PCI_HEADER_TYPE, 1), 0x80);
	EXPECT_EQ(qsim_cfg_read(fn_at(0, 0x18, 0), PCI_CAPABILITY_LIST, 1),
		  0x60);
	EXPECT_EQ(qsim_cfg_read(fn_at(0, 0x18, 0), 0x60, 1), PCI_CAP_ID_EXP);
}

static void test_ubox_nodeid_map(void)
{
	struct qsim_config cfg = { 0 };
	char err[QSIM_ERR_LEN];

	cfg.plat = qsim_platform_find("snbep");
	cfg.nr_sockets = 2;
	cfg.nr_ports = 2;
	cfg.nr_links = 2;
	cfg.node_ids[0] = 5;
	cfg.node_ids[1] = 2;
	cfg.buses[0] = 0x7f;
	cfg.buses[1] = 0xff;
	EXPECT_EQ(qsim_init(&sim, &cfg, err, sizeof(err)), 0);
	EXPECT_EQ(qsim_cfg_read(fn_at(1, 0x0b, 0), UBOX_CPUNODEID, 4), 2);
	/* groups: 5, 2, then the unused ids 0, 1, 3, 4, 6, 7 */
	EXPECT_EQ(qsim_cfg_read(fn_at(0, 0x0b, 0), UBOX_GIDNIDMAP, 4),
		  5 | 2 << 3 | 0 << 6 | 1 << 9 | 3 << 12 | 4 << 15 |
		  6 << 18 | 7 << 21);
	cfg.node_ids[1] = 5;
	EXPECT_EQ(qsim_init(&sim, &cfg, err, sizeof(err)), -1);
	EXPECT_TRUE(strstr(err, "node_ids"));
	cfg.node_ids[1] = 1;
	cfg.buses[0] = 0x80;
	cfg.buses[1] = 0x80;
	EXPECT_EQ(qsim_init(&sim, &cfg, err, sizeof(err)), -1);
	EXPECT_TRUE(strstr(err, "buses"));
	cfg.nr_ports = 3;
	cfg.buses[1] = 0x81;
	EXPECT_EQ(qsim_init(&sim, &cfg, err, sizeof(err)), -1);
	EXPECT_TRUE(strstr(err, "qpi_ports"));
}

/* ---- register semantics ---- */

static void test_ctl_reserved_bits(void)
{
	struct qsim_fn *q, *r;

	setup("snbep", 2, 2, 2);
	q = fn_at(0, 0x08, 2);
	r = fn_at(0, 0x13, 5);
	wr(q, UNC_PCI_PMON_CTL(0), 0xffffffff);
	/* bits 16, 19 and 20 reserved; rst (17) reads back 0 */
	EXPECT_EQ(qsim_cfg_read(q, UNC_PCI_PMON_CTL(0), 4), 0xffe4ffff);
	EXPECT_EQ(q->rsvd_writes, 1);
	wr(q, UNC_PCI_PMON_CTL(1), EN | 0x14);
	EXPECT_EQ(q->rsvd_writes, 1);
	wr(r, UNC_PCI_PMON_CTL(2), 0xffffffff);
	/* R3QPI: no invert, no ev_sel_ext, and no ov_en on SNB-EP */
	EXPECT_EQ(qsim_cfg_read(r, UNC_PCI_PMON_CTL(2), 4), 0xff44ffff);
	/* R3QPI has three counters: CTL3 and CTR3 are not registers. */
	wr(r, UNC_PCI_PMON_CTL(3), 0x1);
	EXPECT_EQ(r->rsvd_writes, 2);
	EXPECT_EQ(qsim_cfg_read(r, UNC_PCI_PMON_CTL(3), 4), 0);
	EXPECT_EQ(q->writes, 2);
	EXPECT_EQ(q->reads, 1);
	/* edge with thresh 0 is undefined in the guides */
	wr(q, UNC_PCI_PMON_CTL(2), EN | UNC_CTL_EDGE_DET);
	EXPECT_EQ(q->undef_writes, 1);

	setup("ivbep", 2, 2, 2);
	r = fn_at(0, 0x13, 5);
	wr(r, UNC_PCI_PMON_CTL(0), 0xffffffff);
	EXPECT_EQ(qsim_cfg_read(r, UNC_PCI_PMON_CTL(0), 4), 0xff54ffff);
}

static void test_box_ctl_reset_and_wo(void)
{
	struct qsim_fn *q;

	setup("snbep", 2, 2, 2);
	q = fn_at(1, 0x09, 2);
	wr(q, UNC_PCI_PMON_CTL(3), EN | 0x14);
	wr(q, UNC_PCI_PMON_CTR(3), 0x1234);
	wr(q, UNC_PCI_PMON_CTR(3) + 4, 0x56);
	EXPECT_EQ(rd64(q, 3), 0x5600001234ULL);
	wr(q, UNC_PCI_PMON_BOX_CTL, UNC_BOX_CTL_FRZ_EN | UNC_BOX_CTL_FRZ);
	EXPECT_EQ(qsim_cfg_read(q, UNC_PCI_PMON_BOX_CTL, 4), 0);
	EXPECT_TRUE(sim.sock[1].qpi[1].frz && sim.sock[1].qpi[1].frz_en);
	wr(q, UNC_PCI_PMON_BOX_CTL, UNC_BOX_CTL_RST_CTRS);
	EXPECT_EQ(rd64(q, 3), 0);
	EXPECT_EQ(qsim_cfg_read(q, UNC_PCI_PMON_CTL(3), 4), EN | 0x14);
	EXPECT_TRUE(!sim.sock[1].qpi[1].frz);
	wr(q, UNC_PCI_PMON_BOX_CTL, UNC_BOX_CTL_RST_CTRL);
	EXPECT_EQ(qsim_cfg_read(q, UNC_PCI_PMON_CTL(3), 4), 0);
	wr(q, UNC_PCI_PMON_BOX_CTL, BIT(4));
	EXPECT_EQ(q->rsvd_writes, 1);
	/* per-counter rst clears that counter only */
	wr(q, UNC_PCI_PMON_CTR(0), 7);
	wr(q, UNC_PCI_PMON_CTR(1), 9);
	wr(q, UNC_PCI_PMON_CTL(1), UNC_CTL_RST | EN | 0x14);
	EXPECT_EQ(rd64(q, 0), 7);
	EXPECT_EQ(rd64(q, 1), 0);
	EXPECT_EQ(qsim_cfg_read(q, UNC_PCI_PMON_CTL(1), 4), EN | 0x14);
	/* a high dword write beyond the width is a reserved-bit write */
	wr(q, UNC_PCI_PMON_CTR(2) + 4, 0xffffffff);
	EXPECT_EQ(rd64(q, 2), 0xffff00000000ULL);
	EXPECT_EQ(q->rsvd_writes, 2);
}

static void test_inject_counts_and_freeze(void)
{
	struct qsim_fn *q;

	setup("snbep", 2, 2, 2);
	q = fn_at(0, 0x08, 2);
	wr(q, UNC_PCI_PMON_CTL(0), EN | 0x14);
	wr(q, UNC_PCI_PMON_CTL(1), 0x14);	/* not enabled */
	wr(q, UNC_PCI_PMON_CTL(2), EN | UM(2) | 0x01);
	wr(q, UNC_PCI_PMON_CTL(3), EN | EXT | UM(8) | 0x02);
	EXPECT_EQ(run("event socket=0 box=qpi0 event=0x14 count=1000"), 0);
	EXPECT_EQ(rd64(q, 0), 1000);
	EXPECT_EQ(rd64(q, 1), 0);
	EXPECT_EQ(rd64(q, 2), 0);
	/* the other socket and port see nothing */
	EXPECT_EQ(sim.sock[1].qpi[0].ctr[0], 0);
	EXPECT_EQ(run("event socket=0 box=qpi0 event=0x01 umask=0x2 count=10 per_cycle=2"), 0);
	EXPECT_EQ(rd64(q, 2), 10);
	EXPECT_EQ(rd64(q, 0), 1005);
	/* umask with no common bit, and ev_sel_ext, select other events */
	EXPECT_EQ(run("event socket=0 box=qpi0 event=0x01 umask=0x4 count=10"), 0);
	EXPECT_EQ(run("event socket=0 box=qpi0 event=0x02 umask=0x8 count=3"), 0);
	EXPECT_EQ(rd64(q, 2), 10);
	EXPECT_EQ(rd64(q, 3), 0);
	EXPECT_EQ(run("event socket=0 box=qpi0 event=0x02 ext=1 umask=0x8 count=3"), 0);
	EXPECT_EQ(rd64(q, 3), 3);
	/* frz without frz_en is ignored, with it the box stops */
	wr(q, UNC_PCI_PMON_BOX_CTL, UNC_BOX_CTL_FRZ);
	EXPECT_EQ(run("event socket=0 box=qpi0 event=0x14 count=5"), 0);
	EXPECT_EQ(rd64(q, 0), 1021 + 5);
	wr(q, UNC_PCI_PMON_BOX_CTL, UNC_BOX_CTL_FRZ | UNC_BOX_CTL_FRZ_EN);
	EXPECT_EQ(run("event socket=0 box=qpi0 event=0x14 count=5"), 0);
	EXPECT_EQ(rd64(q, 0), 1026);
	/* the UBox freeze signal acts only where frz_en is set */
	wr(q, UNC_PCI_PMON_BOX_CTL, UNC_BOX_CTL_FRZ_EN);
	sim.sock[0].freeze = true;
	EXPECT_EQ(run("event socket=0 box=qpi0 event=0x14 count=5"), 0);
	EXPECT_EQ(rd64(q, 0), 1026);
	wr(q, UNC_PCI_PMON_BOX_CTL, 0);
	EXPECT_EQ(run("event socket=0 box=qpi0 event=0x14 count=5"), 0);
	EXPECT_EQ(rd64(q, 0), 1031);
}

static void test_wrap_and_overflow(void)
{
	struct qsim_fn *q, *r;

	setup("ivbep", 2, 3, 3);
	q = fn_at(1, 0x18, 2);
	r = fn_at(1, 0x12, 5);
	wr(q, UNC_PCI_PMON_CTR(1), 0xfffffffb);
	wr(q, UNC_PCI_PMON_CTR(1) + 4, 0xffff);
	wr(q, UNC_PCI_PMON_CTL(1), EN | 0x14);
	EXPECT_EQ(run("event socket=1 box=qpi2 event=0x14 count=10"), 0);
	EXPECT_EQ(rd64(q, 1), 5);
	/* no ov_en: the wrap leaves no trace in BOX_STATUS */
	EXPECT_EQ(qsim_cfg_read(q, UNC_PCI_PMON_BOX_STATUS, 4), 0);
	EXPECT_EQ(sim.sock[1].qpi[2].overflows, 1);

	wr(r, UNC_PCI_PMON_CTR(2), 0xfffffffe);
	wr(r, UNC_PCI_PMON_CTR(2) + 4, 0xfff);
	wr(r, UNC_PCI_PMON_CTL(2), EN | UNC_CTL_OV_EN | 0x01);
	EXPECT_EQ(run("event socket=1 box=r3qpi2 event=0x01 count=3"), 0);
	EXPECT_EQ(rd64(r, 2), 1);
	EXPECT_EQ(qsim_cfg_read(r, UNC_PCI_PMON_BOX_STATUS, 4), 4);
	EXPECT_EQ(sim.sock[1].ubox_ov, BIT(8 + 2));
	/* write 1 to clear; other bits are untouched */
	wr(r, UNC_PCI_PMON_BOX_STATUS, 1);
	EXPECT_EQ(qsim_cfg_read(r, UNC_PCI_PMON_BOX_STATUS, 4), 4);
	wr(r, UNC_PCI_PMON_BOX_STATUS, 4);
	EXPECT_EQ(qsim_cfg_read(r, UNC_PCI_PMON_BOX_STATUS, 4), 0);
	wr(r, UNC_PCI_PMON_BOX_STATUS, 8);
	EXPECT_EQ(r->rsvd_writes, 1);

	/* freeze on overflow: the batch completes, then the socket freezes */
	sim.sock[1].freeze_on_ov = true;
	wr(r, UNC_PCI_PMON_BOX_CTL, UNC_BOX_CTL_FRZ_EN);
	wr(r, UNC_PCI_PMON_CTR(2), 0xfffffff0);
	wr(r, UNC_PCI_PMON_CTR(2) + 4, 0xfff);
	EXPECT_EQ(run("event socket=1 box=r3qpi2 event=0x01 count=20"), 0);
	EXPECT_EQ(rd64(r, 2), 4);
	EXPECT_TRUE(sim.sock[1].freeze);
	EXPECT_EQ(run("event socket=1 box=r3qpi2 event=0x01 count=20"), 0);
	EXPECT_EQ(rd64(r, 2), 4);
	/* 2^44 * 3 + 1 events: three wraps counted, one more event */
	sim.sock[1].freeze = false;
	wr(r, UNC_PCI_PMON_BOX_CTL, UNC_BOX_CTL_RST_CTRS);
	EXPECT_EQ(run("event socket=1 box=r3qpi2 event=0x01 count=52776558133249"), 0);
	EXPECT_EQ(rd64(r, 2), 1);
}

static void test_threshold_invert_edge(void)
{
	struct qsim_fn *q;

	setup("snbep", 1, 2, 2);
	q = fn_at(0, 0x08, 2);
	wr(q, UNC_PCI_PMON_CTL(0), EN | UM(2) | 0x01 | TH(2));
	wr(q, UNC_PCI_PMON_CTL(1), EN | UM(2) | 0x01 | TH(2) | UNC_CTL_INVERT);
	wr(q, UNC_PCI_PMON_CTL(2), EN | UM(2) | 0x01 | TH(1) | UNC_CTL_EDGE_DET);
	wr(q, UNC_PCI_PMON_CTL(3), EN | UM(2) | 0x01 | TH(3));
	/* 11 events at 2 per cycle over 10 cycles: 2,2,2,2,2,1,0,0,0,0 */
	EXPECT_EQ(run("event socket=0 box=qpi0 event=1 umask=2 count=11 per_cycle=2 cycles=10"), 0);
	EXPECT_EQ(rd64(q, 0), 5);
	EXPECT_EQ(rd64(q, 1), 5);
	EXPECT_EQ(rd64(q, 2), 1);
	EXPECT_EQ(rd64(q, 3), 0);
	/* another burst is a second rising edge; idle cycles of an unrelated
	 * event count for the inverted counter
	 */
	EXPECT_EQ(run("event socket=0 box=qpi0 event=1 umask=2 count=4 per_cycle=2"), 0);
	EXPECT_EQ(rd64(q, 2), 2);
	EXPECT_EQ(run("event socket=0 box=qpi0 event=0x14 count=7"), 0);
	EXPECT_EQ(rd64(q, 1), 12);
	EXPECT_EQ(rd64(q, 0), 7);
}

static void test_packets_flits(void)
{
	struct qsim_fn *q;
	int i;

	setup("snbep", 2, 2, 2);
	q = fn_at(1, 0x09, 2);
	wr(q, UNC_PCI_PMON_CTL(0), EN | 0x14);
	wr(q, UNC_PCI_PMON_CTL(1), EN | UM(QPI_G0_DATA) | QPI_EV_RXL_FLITS_G0);
	wr(q, UNC_PCI_PMON_CTL(2), EN | UM(QPI_G0_NON_DATA) |
	   QPI_EV_RXL_FLITS_G0);
	wr(q, UNC_PCI_PMON_CTL(3), EN | EXT | UM(QPI_G1_DRS_DATA) |
	   QPI_EV_RXL_FLITS_G1);
	EXPECT_EQ(run("packet socket=1 port=1 dir=rx mc=drs count=3"), 0);
	EXPECT_EQ(rd64(q, 0), 14);	/* 27 flits at 2 per cycle */
	EXPECT_EQ(rd64(q, 1), 24);
	EXPECT_EQ(rd64(q, 2), 3);
	EXPECT_EQ(rd64(q, 3), 24);
	/* transmitted flits do not move Rx counters */
	EXPECT_EQ(run("packet socket=1 port=1 dir=tx mc=drs count=3"), 0);
	EXPECT_EQ(rd64(q, 1), 24);
	EXPECT_EQ(rd64(q, 0), 28);
	for (i = 0; i < 4; i++)
		wr(q, UNC_PCI_PMON_CTR(i), 0);
	wr(q, UNC_PCI_PMON_CTL(1), EN | UM(QPI_G0_DATA | QPI_G0_NON_DATA) |
	   QPI_EV_TXL_FLITS_G0);
	wr(q, UNC_PCI_PMON_CTL(2), EN | EXT | UM(QPI_G2_NCB_DATA) |
	   QPI_EV_TXL_FLITS_G2);
	wr(q, UNC_PCI_PMON_CTL(3), EN | EXT | UM(QPI_G1_SNP | QPI_G1_HOM_REQ) |
	   QPI_EV_TXL_FLITS_G1);
	EXPECT_EQ(run("packet socket=1 port=1 dir=tx mc=ncb flits=11 count=5"), 0);
	EXPECT_EQ(run("packet socket=1 port=1 dir=tx mc=snp count=7"), 0);
	EXPECT_EQ(run("packet socket=1 port=1 dir=tx mc=hom_req count=2"), 0);
	EXPECT_EQ(run("packet socket=1 port=1 dir=tx mc=ndr ring=ak count=1"), 0);
	EXPECT_EQ(rd64(q, 1), 55 + 7 + 2 + 1);
	EXPECT_EQ(rd64(q, 2), 50);
	EXPECT_EQ(rd64(q, 3), 9);
	EXPECT_EQ(rd64(q, 0), 28 + 4 + 1 + 1);
}

/* Data flits of odd-sized packets at two per cycle, through a threshold. */
static void test_packets_threshold(void)
{
	struct qsim_fn *q;

	setup("snbep", 1, 2, 2);
	q = fn_at(0, 0x08, 2);
	/* 9-flit DRS: cycles hold H D | D D | D D | D D | D H | D D ... */
	wr(q, UNC_PCI_PMON_CTL(0), EN | UM(QPI_G0_DATA) | QPI_EV_RXL_FLITS_G0 |
	   TH(2));
	wr(q, UNC_PCI_PMON_CTL(1), EN | UM(QPI_G0_DATA) | QPI_EV_RXL_FLITS_G0 |
	   TH(1) | UNC_CTL_INVERT);
	wr(q, UNC_PCI_PMON_CTL(2), EN | UM(QPI_G0_NON_DATA) |
	   QPI_EV_RXL_FLITS_G0 | TH(1) | UNC_CTL_EDGE_DET);
	EXPECT_EQ(run("packet socket=0 port=0 dir=rx mc=drs count=3"), 0);
	/*
	 * 27 flits in 14 cycles; headers at flits 0, 9, 18 are in cycles
	 * 0, 4, 9.  Cycles with two data flits: 14 - 3 - 1 (last: one flit).
	 */
	EXPECT_EQ(rd64(q, 0), 10);
	EXPECT_EQ(rd64(q, 1), 0);
	EXPECT_EQ(rd64(q, 2), 3);
}

static void test_mask_match(void)
{
	struct qsim_fn *q, *mm;

	setup("snbep", 2, 2, 2);
	q = fn_at(0, 0x08, 2);
	mm = fn_at(0, 0x08, 6);
	wr(q, UNC_PCI_PMON_CTL(0), EN | EXT | QPI_EV_CTO_COUNT);
	/* zero mask: every received packet matches */
	EXPECT_EQ(run("packet socket=0 port=0 dir=rx mc=snp count=4"), 0);
	EXPECT_EQ(rd64(q, 0), 4);
	/* DRS in M state to node 1 */
	wr(mm, QPI_MM_MATCH0, QPI_MC_DRS << QPI_MM0_MC_SHIFT |
	   1 << QPI_MM0_DNID_SHIFT);
	wr(mm, QPI_MM_MASK0, QPI_MM0_MC | QPI_MM0_DNID);
	wr(mm, QPI_MM_MATCH1, QPI_RDS_M << QPI_MM1_RDS_SHIFT);
	wr(mm, QPI_MM_MASK1, QPI_MM1_RDS);
	EXPECT_EQ(mm->rsvd_writes, 0);
	EXPECT_EQ(run("packet socket=0 port=0 dir=rx mc=drs dnid=1 rds=8 count=5"), 0);
	EXPECT_EQ(run("packet socket=0 port=0 dir=rx mc=drs dnid=1 rds=4 count=6"), 0);
	EXPECT_EQ(run("packet socket=0 port=0 dir=rx mc=drs dnid=2 rds=8 count=7"), 0);
	EXPECT_EQ(run("packet socket=0 port=0 dir=rx mc=ncb dnid=1 count=8"), 0);
	/* rds is not carried by opcode 3 */
	EXPECT_EQ(run("packet socket=0 port=0 dir=rx mc=drs opc=3 dnid=1 rds=8 count=9"), 0);
	EXPECT_EQ(run("packet socket=0 port=0 dir=tx mc=drs dnid=1 rds=8 count=10"), 0);
	EXPECT_EQ(rd64(q, 0), 4 + 5);
	/* port 1 has its own registers */
	EXPECT_EQ(sim.sock[0].qpi[1].mask[0], 0);
	/* RNID spans both registers */
	wr(mm, QPI_MM_MATCH0, QPI_MM0_RNID4);
	wr(mm, QPI_MM_MASK0, QPI_MM0_RNID4);
	wr(mm, QPI_MM_MATCH1, 0x3);
	wr(mm, QPI_MM_MASK1, QPI_MM1_RNID30);
	wr(q, UNC_PCI_PMON_CTR(0), 0);
	EXPECT_EQ(run("packet socket=0 port=0 dir=rx mc=hom_req rnid=19 count=2"), 0);
	EXPECT_EQ(run("packet socket=0 port=0 dir=rx mc=hom_req rnid=3 count=3"), 0);
	EXPECT_EQ(rd64(q, 0), 2);
	wr(mm, QPI_MM_MATCH0, 0x7);
	EXPECT_EQ(mm->rsvd_writes, 1);
	EXPECT_EQ(qsim_cfg_read(mm, QPI_MM_MATCH0, 4), 0);
}

static void test_fast_count_and_faults(void)
{
	struct qsim_fn *q;
	u32 lo, hi;

	setup("snbep", 2, 2, 2);
	q = fn_at(0, 0x08, 2);
	wr(q, UNC_PCI_PMON_CTL(0), EN | 0x14);
	wr(q, UNC_PCI_PMON_CTL(1), 0x14);
	sim.fast_count = 0x40000000;
	lo = qsim_cfg_read(q, UNC_PCI_PMON_CTR(0), 4);
	hi = qsim_cfg_read(q, UNC_PCI_PMON_CTR(0) + 4, 4);
	/* one step before the low read, one before the high read */
	EXPECT_EQ(lo, 0x40000000);
	EXPECT_EQ(hi, 0);
	lo = qsim_cfg_read(q, UNC_PCI_PMON_CTR(0), 4);
	hi = qsim_cfg_read(q, UNC_PCI_PMON_CTR(0) + 4, 4);
	EXPECT_EQ(lo, 0xc0000000);
	EXPECT_EQ(hi, 1);
	EXPECT_EQ(qsim_cfg_read(q, UNC_PCI_PMON_CTR(1), 4), 0);
	sim.fast_count = 0;

	q->all_ones = true;
	EXPECT_EQ(qsim_cfg_read(q, 0, 4), 0xffffffff);
	EXPECT_EQ(qsim_cfg_read(q, 0, 2), 0xffff);
	wr(q, UNC_PCI_PMON_CTL(0), 0);
	q->all_ones = false;
	EXPECT_EQ(qsim_cfg_read(q, UNC_PCI_PMON_CTL(0), 4), EN | 0x14);
	q->present = false;
	EXPECT_TRUE(!fn_at(0, 0x08, 2));
}

static void test_narrow_access_and_log(void)
{
	struct qsim_fn *q;

	setup("snbep", 2, 2, 2);
	q = fn_at(1, 0x08, 2);
	qsim_log_clear(&sim);
	qsim_cfg_write(q, UNC_PCI_PMON_CTL(0) + 1, 1, 0x12);
	qsim_cfg_write(q, UNC_PCI_PMON_CTL(0), 2, 0x3456);
	EXPECT_EQ(qsim_cfg_read(q, UNC_PCI_PMON_CTL(0), 4), 0x3456);
	qsim_cfg_write(q, UNC_PCI_PMON_CTL(0) + 2, 2, 0x0040);
	EXPECT_EQ(qsim_cfg_read(q, UNC_PCI_PMON_CTL(0), 4), 0x403456);
	EXPECT_EQ(qsim_cfg_read(q, UNC_PCI_PMON_CTL(0) + 1, 1), 0x34);
	EXPECT_EQ(sim.log_seq, 3);
	EXPECT_EQ(sim.log[2].where, UNC_PCI_PMON_CTL(0) + 2);
	EXPECT_EQ(sim.log[2].size, 2);
	EXPECT_EQ(sim.log[2].val, 0x40);
	EXPECT_EQ(sim.log[2].bus, 0xff);
	EXPECT_EQ(sim.log[2].devfn, PCI_DEVFN(8, 2));
	/* QPI_RATE_STATUS on function 0 of the port */
	EXPECT_EQ(qsim_cfg_read(fn_at(1, 0x08, 0), QPI_RATE_STATUS, 4), 5);
}

static void test_inject_errors(void)
{
	static const char *const bad[] = {
		"", "bogus socket=0", "event socket=2 box=qpi0 event=1 count=1",
		"event socket=0 box=qpi2 event=1 count=1",
		"event socket=0 box=r3qpi0 event=1 ext=1 count=1",
		"event socket=0 box=qpi0 event=0x100 count=1",
		"event socket=0 box=qpi0 event=1",
		"event socket=0 box=qpi0 event=1 count=10 per_cycle=2 cycles=4",
		"event socket=0 box=qpi0 event=1 count=1 per_cycle=0",
		"event socket=0 box=qpi0 event=1 count=1 color=red",
		"event socket=0 box=qpi0 event=1 count=1 count=2",
		"event socket=0 box=qpi0 event=1 count=12abc",
		"event socket=0 box=qpi0 event=1 count=99999999999999999999",
		"packet socket=0 port=0 dir=up mc=drs count=1",
		"packet socket=0 port=0 dir=rx mc=xyz count=1",
		"packet socket=0 port=0 dir=rx mc=drs flits=17 count=1",
		"packet socket=0 port=0 dir=rx mc=drs flits=0 count=1",
		"packet socket=0 port=0 dir=rx mc=drs dnid=32 count=1",
		"packet socket=0 port=2 dir=rx mc=drs count=1",
		"packet socket=0 port=0 mc=drs count=1",
	};
	char buf[128], err[QSIM_ERR_LEN];
	unsigned int i;

	setup("snbep", 2, 2, 2);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		snprintf(buf, sizeof(buf), "%s", bad[i]);
		err[0] = 0;
		EXPECT_EQ(qsim_exec(&sim, buf, err, sizeof(err)), -1);
		EXPECT_TRUE(err[0]);
	}
	snprintf(buf, sizeof(buf), "event socket=0 box=qpi0 count=1");
	qsim_exec(&sim, buf, err, sizeof(err));
	EXPECT_TRUE(!strcmp(err, "event= is required"));
}

/* ---- traffic at a rate, frozen time ---- */

static void test_accrue_exact_however_split(void)
{
	static const u64 rates[] = { 1, 999999, 1000000, 333333333,
				     QSIM_MAX_RATE };
	static const u64 steps[] = { 1, 7, 999, 1000000007, 3 };
	unsigned int r, k;

	for (r = 0; r < ARRAY_SIZE(rates); r++) {
		struct qsim_stream st = { .used = true, .per_s = rates[r] };
		u64 t = 0, sum = 0;

		for (k = 0; k < 5000; k++) {
			u64 dt = steps[k % ARRAY_SIZE(steps)] * (k % 13 + 1);

			sum += qsim_accrue(&st, dt);
			t += dt;
		}
		EXPECT_EQ(sum, (u64)((unsigned __int128)t * rates[r] /
				     QSIM_NS_PER_S));
		EXPECT_TRUE(st.frac < QSIM_NS_PER_S);
	}
	/* an hour in one step at the highest rate does not overflow */
	{
		struct qsim_stream st = { .used = true, .per_s = QSIM_MAX_RATE };

		EXPECT_EQ(qsim_accrue(&st, 3600 * QSIM_NS_PER_S + 1),
			  3600 * QSIM_MAX_RATE + 4);
	}
}

static u64 stream_of(struct qsim_box *box, u8 event, bool lost)
{
	unsigned int k;

	for (k = 0; k < QSIM_MAX_STREAMS; k++)
		if (box->streams[k].used && box->streams[k].event == event)
			return lost ? box->streams[k].lost :
				      box->streams[k].arrived;
	return ~0ULL;
}

static void test_rate_counts_and_freeze_loses(void)
{
	struct qsim_box *box;
	struct qsim_fn *q;

	setup("snbep", 2, 2, 2);
	q = fn_at(0, 0x08, 2);
	box = q->box;
	qsim_advance(&sim, 1000000);
	wr(q, UNC_PCI_PMON_CTL(0), EN | 0x14);
	wr(q, UNC_PCI_PMON_CTL(1), EN | UM(2) | 0x01);
	wr(q, UNC_PCI_PMON_CTL(2), EN | TH(1) | 0x14);
	EXPECT_EQ(run("rate socket=0 box=qpi0 event=0x14 per_s=1000000"), 0);
	EXPECT_EQ(run("rate socket=0 box=qpi0 event=0x01 umask=0x2 per_s=500000"), 0);
	qsim_advance(&sim, 1010000);
	EXPECT_EQ(rd64(q, 0), 10);
	EXPECT_EQ(rd64(q, 1), 5);
	EXPECT_EQ(rd64(q, 2), 0);	/* thresholds see no rate traffic */
	EXPECT_EQ(sim.sock[0].qpi[1].ctr[0], 0);	/* nor other boxes */
	EXPECT_EQ(box->frozen.accesses, 0);

	/* 3 us frozen: what arrives is lost; accesses are counted */
	wr(q, UNC_PCI_PMON_BOX_CTL, UNC_BOX_CTL_FRZ | UNC_BOX_CTL_FRZ_EN);
	qsim_advance(&sim, 1012000);
	EXPECT_EQ(rd64(q, 0), 10);
	qsim_advance(&sim, 1013000);
	wr(q, UNC_PCI_PMON_BOX_CTL, 0);
	EXPECT_EQ(box->frozen.windows, 1);
	EXPECT_EQ(box->frozen.ns, 3000);
	EXPECT_EQ(box->frozen.accesses, 3);	/* two reads, the unfreeze */
	EXPECT_EQ(box->frozen.max_accesses, 3);
	EXPECT_EQ(box->frozen.max_ns, 3000);
	EXPECT_EQ(box->frozen.hist[3], 1);
	EXPECT_EQ(stream_of(box, 0x14, true), 3);
	EXPECT_EQ(stream_of(box, 0x01, true), 1);	/* 1.5 of them */

	qsim_advance(&sim, 1015000);
	EXPECT_EQ(stream_of(box, 0x14, false), 15);
	EXPECT_EQ(stream_of(box, 0x01, false), 7);
	EXPECT_EQ(rd64(q, 0), 15 - 3);
	EXPECT_EQ(rd64(q, 1), 7 - 1);
	/* each counter: what its control selects, and what it missed */
	EXPECT_EQ(box->ctr_arrived[0], 15);
	EXPECT_EQ(box->ctr_lost[0], 3);
	EXPECT_EQ(box->ctr_arrived[1], 7);
	EXPECT_EQ(box->ctr_lost[1], 1);
	EXPECT_EQ(box->ctr_arrived[2], 0);	/* a threshold selects none */
	EXPECT_EQ(box->ctr_arrived[3], 0);	/* nor a control of 0 */

	/* the UBox freeze acts with frz_en: a second, shorter window */
	wr(q, UNC_PCI_PMON_BOX_CTL, UNC_BOX_CTL_FRZ_EN);
	sim.sock[0].freeze = true;
	qsim_freeze_track(&sim.sock[0]);
	qsim_advance(&sim, 1016000);
	sim.sock[0].freeze = false;
	qsim_freeze_track(&sim.sock[0]);
	EXPECT_EQ(box->frozen.windows, 2);
	EXPECT_EQ(box->frozen.ns, 4000);
	EXPECT_EQ(box->frozen.accesses, 3);
	EXPECT_EQ(box->frozen.max_ns, 3000);
	EXPECT_EQ(box->frozen.hist[0], 1);
	EXPECT_EQ(stream_of(box, 0x14, true), 4);
	/*
	 * a disabled counter does not count; the stream's loss is the box's
	 * frozen time only, the counter's includes its own disabled time
	 */
	wr(q, UNC_PCI_PMON_CTL(0), 0x14);
	qsim_advance(&sim, 1020000);
	EXPECT_EQ(rd64(q, 0), 12);
	EXPECT_EQ(stream_of(box, 0x14, false), 20);
	EXPECT_EQ(stream_of(box, 0x14, true), 4);
	EXPECT_EQ(box->ctr_arrived[0], 20);
	EXPECT_EQ(box->ctr_lost[0], 4 + 4);
	EXPECT_EQ(box->ctr_arrived[1], 10);
	EXPECT_EQ(box->ctr_lost[1], 2);
	EXPECT_EQ(rd64(q, 1), 10 - 2);

	/* stop one stream, reset: the stopped one is forgotten */
	EXPECT_EQ(run("rate socket=0 box=qpi0 event=0x14 per_s=0"), 0);
	qsim_advance(&sim, 1030000);
	EXPECT_EQ(stream_of(box, 0x14, false), 20);
	qsim_frozen_reset(box);
	EXPECT_EQ(stream_of(box, 0x14, false), ~0ULL);
	EXPECT_EQ(stream_of(box, 0x01, false), 0);
	EXPECT_EQ(box->frozen.windows, 0);
	EXPECT_EQ(box->frozen.ns, 0);
	EXPECT_EQ(box->ctr_arrived[1], 0);
	EXPECT_EQ(box->ctr_lost[0], 0);
	/* time never goes backwards */
	qsim_advance(&sim, 5);
	EXPECT_EQ(sim.now, 1030000);
}

static void test_rate_errors(void)
{
	static const char *const bad[] = {
		"rate socket=0 box=qpi0 event=0x14",
		"rate socket=0 box=qpi0 per_s=1",
		"rate socket=0 box=qpi0 event=0x14 per_s=4000000001",
		"rate socket=0 box=r3qpi0 event=0x01 ext=1 per_s=1",
		"rate socket=0 box=qpi9 event=0x14 per_s=1",
		"rate socket=0 box=qpi0 event=0x14 per_s=1 count=3",
		"rate socket=0 box=qpi0 event=0x05 per_s=1",
	};
	char buf[128], err[QSIM_ERR_LEN];
	unsigned int i;

	setup("snbep", 1, 2, 2);
	EXPECT_EQ(run("rate socket=0 box=qpi0 event=0x01 per_s=1"), 0);
	EXPECT_EQ(run("rate socket=0 box=qpi0 event=0x02 per_s=1"), 0);
	EXPECT_EQ(run("rate socket=0 box=qpi0 event=0x03 per_s=1"), 0);
	EXPECT_EQ(run("rate socket=0 box=qpi0 event=0x04 per_s=1"), 0);
	/* a new rate for a known stream, and stopping an unknown one */
	EXPECT_EQ(run("rate socket=0 box=qpi0 event=0x04 per_s=2"), 0);
	EXPECT_EQ(run("rate socket=0 box=qpi0 event=0x06 per_s=0"), 0);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		snprintf(buf, sizeof(buf), "%s", bad[i]);
		err[0] = 0;
		EXPECT_EQ(qsim_exec(&sim, buf, err, sizeof(err)), -1);
		EXPECT_TRUE(err[0]);
	}
	snprintf(buf, sizeof(buf), "rate socket=0 box=qpi0 event=0x14 per_s=4000000001");
	qsim_exec(&sim, buf, err, sizeof(err));
	EXPECT_TRUE(!strcmp(err, "per_s=4000000001: must be a number 0..4000000000"));
	EXPECT_EQ(sim.sock[0].qpi[0].streams[3].per_s, 2);
}

/* The knobs qpistat --check's selftest plays failures with. */
static void test_check_knobs(void)
{
	struct qsim_config cfg = { 0 };
	char err[QSIM_ERR_LEN];
	struct qsim_fn *q, *q1, *r, *misc;

	setup("snbep", 2, 2, 2);
	q = fn_at(0, 0x08, 2);
	q1 = fn_at(0, 0x09, 2);
	misc = fn_at(0, 0x09, 0);

	/* the link clock: speed / 8, exact over any split of time */
	EXPECT_EQ(qsim_link_clock_hz(2), 700000000);
	EXPECT_EQ(qsim_link_clock_hz(5), 1000000000);
	EXPECT_EQ(qsim_link_clock_hz(7), 1200000000);
	EXPECT_EQ(qsim_link_clock_hz(0), 0);
	qsim_advance(&sim, 1000);
	qsim_set_link_clock(&sim, true);
	wr(q, UNC_PCI_PMON_CTL(0), EN | 0x14);
	wr(q1, UNC_PCI_PMON_CTL(0), EN | 0x14);
	qsim_advance(&sim, 1000 + 333);
	qsim_advance(&sim, 1000 + 1000000);
	EXPECT_EQ(rd64(q, 0), 1000000);		/* 1 ms at 1 GHz */
	EXPECT_EQ(rd64(q1, 0), 1000000);

	/* a link down: no rate, no clock; the other port runs on */
	EXPECT_EQ(qsim_cfg_read(misc, QPI_RATE_STATUS, 4), 5);
	qsim_set_link_down(&sim.sock[0].qpi[1], true);
	EXPECT_EQ(qsim_cfg_read(misc, QPI_RATE_STATUS, 4), 0);
	qsim_advance(&sim, 1000 + 2000000);
	EXPECT_EQ(rd64(q, 0), 2000000);
	EXPECT_EQ(rd64(q1, 0), 1000000);
	qsim_set_link_down(&sim.sock[0].qpi[1], false);
	qsim_set_link_clock(&sim, false);
	qsim_advance(&sim, 1000 + 3000000);
	EXPECT_EQ(rd64(q, 0), 2000000);

	/* a foreign writer: enabled controls become its value */
	q->foreign_ctl = EN | UM(2) | 0x00;
	wr(q, UNC_PCI_PMON_CTL(1), EN | 0x14);
	EXPECT_EQ(qsim_cfg_read(q, UNC_PCI_PMON_CTL(0), 4), EN | UM(2));
	EXPECT_EQ(qsim_cfg_read(q, UNC_PCI_PMON_CTL(1), 4), EN | UM(2));
	EXPECT_EQ(qsim_cfg_read(q, UNC_PCI_PMON_CTL(2), 4), 0);	/* disabled */
	q->foreign_ctl = 0;

	/* writes ignored: the registers keep their value, and are counted */
	r = fn_at(1, 0x13, 5);
	r->ignore_writes = true;
	wr(r, UNC_PCI_PMON_CTL(0), EN | 0x01);
	wr(r, UNC_PCI_PMON_CTR(0), 5);
	EXPECT_EQ(qsim_cfg_read(r, UNC_PCI_PMON_CTL(0), 4), 0);
	EXPECT_EQ(rd64(r, 0), 0);
	EXPECT_EQ(r->ignored_writes, 2);
	EXPECT_EQ(r->rsvd_writes, 0);

	/* hidden functions are not created; the UBox and function 0 stay */
	cfg.plat = qsim_platform_find("snbep");
	cfg.nr_sockets = 1;
	cfg.nr_ports = 2;
	cfg.nr_links = 2;
	cfg.buses[0] = 0xff;
	cfg.hide = 1u << QSIM_FN_QPI_PMON | 1u << QSIM_FN_R3QPI;
	EXPECT_EQ(qsim_init(&sim, &cfg, err, sizeof(err)), 0);
	EXPECT_TRUE(!fn_at(0, 0x08, 2) && !fn_at(0, 0x13, 5));
	EXPECT_TRUE(fn_at(0, 0x08, 6) && fn_at(0, 0x08, 0) && fn_at(0, 0x0b, 0));
	EXPECT_TRUE(!fn_at(0, 0x13, 0));	/* no filler for an empty slot */
}

/* ---- link map, what a port sends arriving at the far end, residency ---- */

static int links_are(const char *want)
{
	char got[256];

	qsim_links_show(&sim, got, sizeof(got));
	if (!strcmp(got, want))
		return 1;
	printf("# links:\n%s# want:\n%s", got, want);
	return 0;
}

static int links(const char *cmd)
{
	char err[QSIM_ERR_LEN];
	int ret = qsim_links_write(&sim, cmd, err, sizeof(err));

	if (ret)
		printf("# links '%s': %s\n", cmd, err);
	return ret;
}

/* The default wiring of each board size (Documentation/qpisim.rst). */
static void test_links_default(void)
{
	static const struct {
		const char *plat;
		int sockets, ports;
		const char *links;
	} boards[] = {
		{ "snbep", 1, 2, "" },
		{ "snbep", 2, 2, "0.0 1.0\n0.1 1.1\n" },
		{ "hswep", 2, 3, "0.0 1.0\n0.1 1.1\n0.2 1.2\n" },
		/* a ring, port 0 to the next socket's port 1 */
		{ "snbep", 4, 2, "0.0 1.1\n0.1 3.0\n1.0 2.1\n2.0 3.1\n" },
		/* a full mesh where it fits: 3 sockets of 2 ports, 4 of 3 */
		{ "snbep", 3, 2, "0.0 1.1\n0.1 2.0\n1.0 2.1\n" },
		{ "hswep", 4, 3,
		  "0.0 1.2\n0.1 2.1\n0.2 3.0\n1.0 2.2\n1.1 3.1\n2.0 3.2\n" },
		{ "bdx", 3, 3, "0.0 1.1\n0.1 2.0\n1.0 2.1\n" },
		/* 8 sockets of 3 ports: the ring and a link across on port 2 */
		{ "ivbep", 8, 3,
		  "0.0 1.1\n0.1 7.0\n0.2 4.2\n1.0 2.1\n1.2 5.2\n2.0 3.1\n"
		  "2.2 6.2\n3.0 4.1\n3.2 7.2\n4.0 5.1\n5.0 6.1\n6.0 7.1\n" },
		/* one port: pairs; the odd socket out has no link */
		{ "snbep", 5, 1, "0.0 1.0\n2.0 3.0\n" },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(boards); i++) {
		setup(boards[i].plat, boards[i].sockets, boards[i].ports,
		      boards[i].ports);
		EXPECT_TRUE(links_are(boards[i].links));
	}
}

static void test_links_write(void)
{
	static const char *const bad[] = {
		"0.0 2.0",		/* socket out of range */
		"0.2 1.0",		/* port out of range */
		"0.0 0.1",		/* same socket */
		"0.0",
		"0.0 1.0 1.1",
		"0 1",
		"0.0 1.x",
		"0.0 nothing",
		"0.-1 none",
		"0.1000 none",
		"clear all",
		"wire 0.0 1.0",
		"0.0 1.0\n0.1 1.5",	/* the first line must not apply */
	};
	unsigned int i;

	setup("snbep", 2, 2, 2);
	EXPECT_EQ(links("0.0 none\n"), 0);
	EXPECT_TRUE(links_are("0.1 1.1\n"));
	/* rewiring an end unwires what it had: 1.1's old peer 0.1 is free */
	EXPECT_EQ(links("1.1 0.0"), 0);
	EXPECT_TRUE(links_are("0.0 1.1\n"));
	EXPECT_TRUE(!sim.sock[0].qpi[1].peer && !sim.sock[1].qpi[0].peer);
	EXPECT_EQ(links("clear\n\n0.1 1.0\n  0.0\t1.1  \n"), 0);
	EXPECT_TRUE(links_are("0.0 1.1\n0.1 1.0\n"));
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		char err[QSIM_ERR_LEN] = "";

		EXPECT_EQ(qsim_links_write(&sim, bad[i], err, sizeof(err)), -1);
		EXPECT_TRUE(!strncmp(err, "links: ", 7));
	}
	EXPECT_TRUE(links_are("0.0 1.1\n0.1 1.0\n"));
	EXPECT_EQ(links("clear"), 0);
	EXPECT_TRUE(links_are(""));
}

/* ---- the link layer's registers, from the link map ---- */

static u32 lreg(int s, int p, int where)
{
	struct qsim_fn *fn = qsim_find_fn(&sim, sim.sock[s].bus,
					  sim.plat->qpi_misc[p].devfn);

	if (!fn || fn->kind != QSIM_FN_QPI_MISC) {
		printf("# no function 0 of port %d.%d\n", s, p);
		ktap_cur_failed = 1;
		return 0xdeadbeef;
	}
	return qsim_cfg_read(fn, where, 4);
}

/* s.p in normal operation facing t.q: every register, exact */
static int faces(int s, int p, int t, int q)
{
	unsigned int node = sim.sock[t].node_id;
	u32 lp0 = q | 1 << 5 | (node >> 2) << 8 | 0x80 << 16;
	u32 lp2 = 0x0fU << (8 * (3 - (node & 3)));
	int bad = 0;

	bad |= lreg(s, p, QPI_QPILS) != 0x06000000;
	bad |= lreg(s, p, QPI_QPIPCSTS) != 0x6;
	bad |= lreg(s, p, QPI_QPILP0) != lp0;
	bad |= lreg(s, p, QPI_QPILP2) != lp2;
	if (bad)
		printf("# %d.%d facing %d.%d: QPILS 0x%08x LP0 0x%08x (want 0x%08x) LP2 0x%08x (want 0x%08x) PCSTS 0x%x\n",
		       s, p, t, q, lreg(s, p, QPI_QPILS), lreg(s, p, QPI_QPILP0),
		       lp0, lreg(s, p, QPI_QPILP2), lp2,
		       lreg(s, p, QPI_QPIPCSTS));
	return !bad;
}

/* s.p out of normal operation in @state: parameters cleared */
static int left(int s, int p, u32 state)
{
	if (lreg(s, p, QPI_QPILS) == state << 24 &&
	    lreg(s, p, QPI_QPIPCSTS) == state &&
	    !lreg(s, p, QPI_QPILP0) && !lreg(s, p, QPI_QPILP2))
		return 1;
	printf("# %d.%d: QPILS 0x%08x LP0 0x%08x LP2 0x%08x, want state 0x%x and no parameters\n",
	       s, p, lreg(s, p, QPI_QPILS), lreg(s, p, QPI_QPILP0),
	       lreg(s, p, QPI_QPILP2), state);
	return 0;
}

/* Every port of the model: as the link map says. */
static int all_as_map(void)
{
	unsigned int s, p;
	int ok = 1;

	for (s = 0; s < sim.nr_sockets; s++) {
		for (p = 0; p < sim.sock[s].nr_ports; p++) {
			const struct qsim_box *peer = sim.sock[s].qpi[p].peer;

			if (!peer)
				ok &= left(s, p, 0);
			else if (sim.sock[s].qpi[p].ll_down)
				ok &= left(s, p, 8);
			else
				ok &= faces(s, p, peer->sock->id, peer->idx);
		}
	}
	return ok;
}

static void test_link_regs_default_maps(void)
{
	/* one socket: no link, every port waits for its physical layer */
	setup("snbep", 1, 2, 2);
	EXPECT_TRUE(left(0, 0, 0) && left(0, 1, 0));
	/* two sockets: port p to port p; literal values of 0.1 and 1.0 */
	setup("snbep", 2, 2, 2);
	EXPECT_EQ(lreg(0, 1, QPI_QPILS), 0x06000000);
	EXPECT_EQ(lreg(0, 1, QPI_QPILP0), 0x00800021);
	EXPECT_EQ(lreg(0, 1, QPI_QPILP2), 0x000f0000);
	EXPECT_EQ(lreg(1, 0, QPI_QPILP0), 0x00800020);
	EXPECT_EQ(lreg(1, 0, QPI_QPILP2), 0x0f000000);
	EXPECT_EQ(lreg(1, 0, QPI_QPIPCSTS), 0x6);
	EXPECT_TRUE(faces(0, 0, 1, 0) && faces(1, 1, 0, 1));
	EXPECT_TRUE(all_as_map());
	/* four sockets: the ring of SNB-EP, the full mesh of HSX */
	setup("snbep", 4, 2, 2);
	EXPECT_TRUE(faces(0, 0, 1, 1) && faces(0, 1, 3, 0) &&
		    faces(3, 0, 0, 1) && faces(2, 0, 3, 1));
	EXPECT_EQ(lreg(0, 1, QPI_QPILP2), 0x0000000f);	/* node 3 */
	EXPECT_TRUE(all_as_map());
	setup("hswep", 4, 3, 3);
	EXPECT_TRUE(faces(0, 2, 3, 0) && faces(3, 0, 0, 2) &&
		    faces(1, 1, 3, 1));
	EXPECT_EQ(lreg(3, 0, QPI_QPILP0), 0x00800022);
	EXPECT_TRUE(all_as_map());
	/* eight sockets: node ids 4..7 put NodeID[9:3] = 1 in QPILP0 */
	setup("bdx", 8, 3, 3);
	EXPECT_EQ(lreg(3, 2, QPI_QPILP0), 0x00800122);	/* 7.2 */
	EXPECT_EQ(lreg(3, 2, QPI_QPILP2), 0x0000000f);
	EXPECT_EQ(lreg(7, 0, QPI_QPILP0), 0x00800021);	/* 0.1 */
	EXPECT_EQ(lreg(7, 0, QPI_QPILP2), 0x0f000000);
	EXPECT_EQ(lreg(5, 1, QPI_QPILP0), 0x00800120);	/* 4.0 */
	EXPECT_EQ(lreg(5, 1, QPI_QPILP2), 0x0f000000);
	EXPECT_TRUE(faces(0, 2, 4, 2) && faces(6, 0, 7, 1));
	EXPECT_TRUE(all_as_map());
}

/* Node ids other than the socket number: GIDNIDMAP's, in both registers. */
static void test_link_regs_node_ids(void)
{
	struct qsim_config cfg = { 0 };
	char err[QSIM_ERR_LEN];

	cfg.plat = qsim_platform_find("ivbep");
	cfg.nr_sockets = 2;
	cfg.nr_ports = 3;
	cfg.nr_links = 3;
	cfg.node_ids[0] = 5;
	cfg.node_ids[1] = 2;
	cfg.buses[0] = 0x7f;
	cfg.buses[1] = 0xff;
	EXPECT_EQ(qsim_init(&sim, &cfg, err, sizeof(err)), 0);
	/* socket 1 sees node 5: NodeID[9:3] 1, NID 1 in byte 2 */
	EXPECT_EQ(lreg(1, 2, QPI_QPILP0), 0x00800122);
	EXPECT_EQ(lreg(1, 2, QPI_QPILP2), 0x000f0000);
	/* socket 0 sees node 2: NID 2 in byte 1 */
	EXPECT_EQ(lreg(0, 0, QPI_QPILP0), 0x00800020);
	EXPECT_EQ(lreg(0, 0, QPI_QPILP2), 0x00000f00);
	EXPECT_TRUE(all_as_map());
}

static void test_link_regs_rewire_and_down(void)
{
	struct qsim_fn *fn0;
	char err[QSIM_ERR_LEN];

	setup("snbep", 2, 2, 2);
	/* unwire one end: both wait for their physical layer */
	EXPECT_EQ(links("0.0 none"), 0);
	EXPECT_TRUE(left(0, 0, 0) && left(1, 0, 0) && faces(0, 1, 1, 1));
	/* rewire: 1.1 to 0.0 leaves 0.1 without a link */
	EXPECT_EQ(links("1.1 0.0"), 0);
	EXPECT_TRUE(faces(0, 0, 1, 1) && faces(1, 1, 0, 0));
	EXPECT_TRUE(left(0, 1, 0) && left(1, 0, 0));
	/* a crossed board: port 0 facing port 1 */
	EXPECT_EQ(links("clear\n0.0 1.1\n0.1 1.0"), 0);
	EXPECT_EQ(lreg(0, 0, QPI_QPILP0), 0x00800021);
	EXPECT_EQ(lreg(1, 1, QPI_QPILP0), 0x00800020);
	EXPECT_EQ(lreg(1, 1, QPI_QPILP2), 0x0f000000);
	EXPECT_TRUE(faces(0, 1, 1, 0) && faces(1, 0, 0, 1) && all_as_map());

	/* down: both ends in link abort, parameters cleared */
	EXPECT_EQ(links("0.1 down"), 0);
	EXPECT_TRUE(left(0, 1, 8) && left(1, 0, 8));
	EXPECT_EQ(lreg(1, 0, QPI_QPILS), 0x08000000);
	EXPECT_TRUE(faces(0, 0, 1, 1) && faces(1, 1, 0, 0));
	EXPECT_TRUE(links_are("0.0 1.1\n0.1 1.0 down\n"));
	EXPECT_TRUE(all_as_map());
	/* the rate does not change: that is link_down's (did not train) */
	EXPECT_EQ(lreg(0, 1, QPI_RATE_STATUS), 5);
	/* up, from either end */
	EXPECT_EQ(links("1.0 up"), 0);
	EXPECT_TRUE(faces(0, 1, 1, 0) && faces(1, 0, 0, 1));
	EXPECT_TRUE(links_are("0.0 1.1\n0.1 1.0\n"));
	/* rewiring a down link trains the new one */
	EXPECT_EQ(links("1.0 down"), 0);
	EXPECT_EQ(links("0.1 1.0"), 0);
	EXPECT_TRUE(faces(0, 1, 1, 0) && faces(1, 0, 0, 1));
	/* unwiring a down link: its ends wait for the physical layer */
	EXPECT_EQ(links("1.0 down\n0.1 none"), 0);
	EXPECT_TRUE(left(0, 1, 0) && left(1, 0, 0));
	EXPECT_TRUE(links_are("0.0 1.1\n"));
	/* down and up want a link, as the lines before leave the map */
	EXPECT_EQ(qsim_links_write(&sim, "0.1 down", err, sizeof(err)), -1);
	EXPECT_TRUE(!strcmp(err, "links: 0.1 down: port 0.1 has no link"));
	EXPECT_EQ(qsim_links_write(&sim, "0.0 down\n0.0 none\n0.0 up", err,
				   sizeof(err)), -1);
	EXPECT_TRUE(!strcmp(err, "links: 0.0 up: port 0.0 has no link"));
	/* ... and nothing of a refused write applies */
	EXPECT_TRUE(links_are("0.0 1.1\n"));
	EXPECT_TRUE(faces(0, 0, 1, 1));
	EXPECT_EQ(links("0.1 1.0\n0.1 down"), 0);
	EXPECT_TRUE(links_are("0.0 1.1\n0.1 1.0 down\n"));
	EXPECT_EQ(links("clear"), 0);
	EXPECT_TRUE(all_as_map() && left(0, 0, 0));
	/* read-only: a write changes nothing and is a violation */
	EXPECT_EQ(links("0.0 1.0"), 0);
	fn0 = qsim_find_fn(&sim, sim.sock[0].bus, sim.plat->qpi_misc[0].devfn);
	qsim_cfg_write(fn0, QPI_QPILP0, 4, 0);
	qsim_cfg_write(fn0, QPI_QPILS, 4, 0);
	EXPECT_EQ(fn0->rsvd_writes, 2);
	EXPECT_TRUE(faces(0, 0, 1, 0));
}

/*
 * The "names" fault: 0.0's parameters name 1.1 while it stays wired to
 * 1.0, whose parameters still name 0.0; the links file lists it after the
 * links; it survives a rewiring and goes with "names peer" or "clear"; a
 * refused write keeps it as it was.
 */
static void test_link_regs_names(void)
{
	char err[QSIM_ERR_LEN];

	setup("snbep", 2, 2, 2);
	EXPECT_EQ(links("0.0 names 1.1"), 0);
	EXPECT_TRUE(faces(0, 0, 1, 1) && faces(1, 0, 0, 0) &&
		    faces(0, 1, 1, 1) && faces(1, 1, 0, 1));
	EXPECT_TRUE(links_are("0.0 1.0\n0.1 1.1\n0.0 names 1.1\n"));
	/* its own socket too: the driver judges it, not the model */
	EXPECT_EQ(links("0.0 names 0.1"), 0);
	EXPECT_TRUE(faces(0, 0, 0, 1));
	/* no parameters out of normal operation, the fault or not */
	EXPECT_EQ(links("0.0 down"), 0);
	EXPECT_TRUE(left(0, 0, 8));
	EXPECT_EQ(links("0.0 up\n1.0 0.1"), 0);
	EXPECT_TRUE(left(0, 0, 0) && faces(1, 0, 0, 1));
	EXPECT_EQ(links("0.0 1.1"), 0);
	EXPECT_TRUE(faces(0, 0, 0, 1) && faces(1, 1, 0, 0));
	EXPECT_EQ(qsim_links_write(&sim, "0.0 names peer\n0.0 names 2.0", err,
				   sizeof(err)), -1);
	EXPECT_TRUE(!strcmp(err, "links: 2.0: socket 2 out of range, the model has 2 sockets"));
	EXPECT_EQ(qsim_links_write(&sim, "0.0 names 1.1 1.0", err,
				   sizeof(err)), -1);
	EXPECT_TRUE(links_are("0.0 1.1\n0.1 1.0\n0.0 names 0.1\n"));
	EXPECT_EQ(links("0.0 names peer"), 0);
	EXPECT_TRUE(faces(0, 0, 1, 1) && all_as_map());
	EXPECT_TRUE(links_are("0.0 1.1\n0.1 1.0\n"));
	EXPECT_EQ(links("1.1 names 0.1\nclear\n0.0 1.0"), 0);
	EXPECT_TRUE(links_are("0.0 1.0\n") && all_as_map());
}

/*
 * 1000 DRS packets sent on 0.1 arrive at 1.1 (the default 2-socket map):
 * 8000 data flits at both ends, the far end's rx_count_pct applied, its
 * MATCH/MASK filtering CTO_COUNT; an unwired port's packets reach nobody.
 */
static void test_links_packets(void)
{
	struct qsim_fn *tx, *rx, *rx0;

	setup("snbep", 2, 2, 2);
	tx = fn_at(0, 0x09, 2);
	rx = fn_at(1, 0x09, 2);
	rx0 = fn_at(1, 0x08, 2);
	wr(tx, UNC_PCI_PMON_CTL(0), EN | UM(QPI_G0_DATA) | QPI_EV_TXL_FLITS_G0);
	wr(tx, UNC_PCI_PMON_CTL(1), EN | UM(QPI_G0_DATA) | QPI_EV_RXL_FLITS_G0);
	wr(rx, UNC_PCI_PMON_CTL(0), EN | UM(QPI_G0_DATA) | QPI_EV_RXL_FLITS_G0);
	wr(rx, UNC_PCI_PMON_CTL(1), EN | EXT | UM(QPI_G1_DRS_DATA) |
	   QPI_EV_RXL_FLITS_G1);
	wr(rx, UNC_PCI_PMON_CTL(2), EN | QPI_EV_CLOCKTICKS);
	wr(rx, UNC_PCI_PMON_CTL(3), EN | UM(QPI_G0_DATA) | QPI_EV_TXL_FLITS_G0);
	wr(rx0, UNC_PCI_PMON_CTL(0), EN | UM(QPI_G0_DATA) | QPI_EV_RXL_FLITS_G0);
	EXPECT_EQ(run("packet socket=0 port=1 dir=tx mc=drs count=1000"), 0);
	EXPECT_EQ(rd64(tx, 0), 8000);
	EXPECT_EQ(rd64(tx, 1), 0);
	EXPECT_EQ(rd64(rx, 0), 8000);
	EXPECT_EQ(rd64(rx, 1), 8000);
	EXPECT_EQ(rd64(rx, 2), 4500);	/* received in the same cycles */
	EXPECT_EQ(rd64(rx, 3), 0);
	EXPECT_EQ(rd64(rx0, 0), 0);
	/* received packets do not travel back */
	EXPECT_EQ(run("packet socket=1 port=1 dir=rx mc=drs count=10"), 0);
	EXPECT_EQ(rd64(tx, 1), 0);
	EXPECT_EQ(rd64(rx, 0), 8080);

	/* the far end's Rx events miscount by its own rx_count_pct */
	sim.sock[1].qpi[1].rx_count_pct = 110;
	EXPECT_EQ(run("packet socket=0 port=1 dir=tx mc=drs count=100"), 0);
	EXPECT_EQ(rd64(tx, 0), 8800);
	EXPECT_EQ(rd64(rx, 0), 8080 + 880);
	sim.sock[1].qpi[1].rx_count_pct = 100;

	/* CTO_COUNT with the far end's filter: DRS only */
	wr(rx, UNC_PCI_PMON_CTL(3), EN | EXT | QPI_EV_CTO_COUNT);
	sim.sock[1].qpi[1].match[0] = QPI_MC_DRS << QPI_MM0_MC_SHIFT;
	sim.sock[1].qpi[1].mask[0] = 0xf << QPI_MM0_MC_SHIFT;
	EXPECT_EQ(run("packet socket=0 port=1 dir=tx mc=drs count=7"), 0);
	EXPECT_EQ(run("packet socket=0 port=1 dir=tx mc=snp count=5"), 0);
	EXPECT_EQ(rd64(rx, 3), 7);

	/* unwired: the sends count at the sender only */
	EXPECT_EQ(links("0.1 none"), 0);
	wr(rx, UNC_PCI_PMON_BOX_CTL, UNC_BOX_CTL_RST_CTRS);
	EXPECT_EQ(run("packet socket=0 port=1 dir=tx mc=drs count=1000"), 0);
	EXPECT_EQ(rd64(rx, 0), 0);
	EXPECT_EQ(rd64(rx, 2), 0);
	EXPECT_EQ(rd64(tx, 0), 8800 + 56 + 8000);

	/* rewired to 1.0: it arrives there */
	EXPECT_EQ(links("0.1 1.0"), 0);
	EXPECT_EQ(run("packet socket=0 port=1 dir=tx mc=ncb count=3"), 0);
	EXPECT_EQ(rd64(rx0, 0), 24);
	EXPECT_EQ(rd64(rx, 0), 0);
}

/*
 * Tx flit streams arrive at the far end as Rx flit events; Rx flit streams
 * and the far end's share are scaled by rx_count_pct with the remainder
 * carried, so any split of time gives floor(total x pct / 100).
 */
static void test_links_rate(void)
{
	struct qsim_fn *tx, *rx;
	u64 t = 1000000;
	int i;

	setup("hswep", 2, 3, 3);
	tx = fn_at(0, 0x0a, 2);
	rx = fn_at(1, 0x0a, 2);
	qsim_advance(&sim, t);
	wr(tx, UNC_PCI_PMON_CTL(0), EN | UM(QPI_G0_DATA) | QPI_EV_TXL_FLITS_G0);
	wr(rx, UNC_PCI_PMON_CTL(0), EN | UM(QPI_G0_DATA) | QPI_EV_RXL_FLITS_G0);
	wr(rx, UNC_PCI_PMON_CTL(1), EN | EXT | UM(QPI_G2_NCB_DATA) |
	   QPI_EV_RXL_FLITS_G2);
	wr(rx, UNC_PCI_PMON_CTL(2), EN | TH(1) | UM(QPI_G0_DATA) |
	   QPI_EV_RXL_FLITS_G0);
	EXPECT_EQ(run("rate socket=0 box=qpi2 event=0x00 umask=0x02 per_s=1000000"), 0);
	EXPECT_EQ(run("rate socket=0 box=qpi2 event=0x01 ext=1 umask=0x04 per_s=3000000"), 0);
	qsim_advance(&sim, t += 1000000);	/* 1 ms */
	EXPECT_EQ(rd64(tx, 0), 1000);
	EXPECT_EQ(rd64(rx, 0), 1000);
	EXPECT_EQ(rd64(rx, 1), 3000);
	EXPECT_EQ(rd64(rx, 2), 0);	/* thresholds see no rate traffic */
	EXPECT_EQ(rx->box->ctr_arrived[0], 1000);

	/* 110 % at the far end, over 7 uneven steps: exactly 1.1 x 1008 */
	sim.sock[1].qpi[2].rx_count_pct = 110;
	for (i = 1; i <= 7; i++)
		qsim_advance(&sim, t += i * 36000);
	EXPECT_EQ(rd64(tx, 0), 2008);	/* 1008 more */
	EXPECT_EQ(rd64(rx, 0), 1000 + 1108);
	/* a frozen far end loses them, counted per counter */
	wr(rx, UNC_PCI_PMON_BOX_CTL, UNC_BOX_CTL_FRZ | UNC_BOX_CTL_FRZ_EN);
	qsim_advance(&sim, t += 100000);
	wr(rx, UNC_PCI_PMON_BOX_CTL, 0);
	EXPECT_EQ(rx->box->ctr_lost[0], 110);
	EXPECT_EQ(rd64(rx, 0), 2108);
	sim.sock[1].qpi[2].rx_count_pct = 100;

	/* an Rx flit stream of the port's own is scaled the same way */
	EXPECT_EQ(run("rate socket=0 box=qpi2 event=0x00 umask=0x02 per_s=0"), 0);
	EXPECT_EQ(run("rate socket=0 box=qpi2 event=0x01 ext=1 umask=0x04 per_s=0"), 0);
	wr(rx, UNC_PCI_PMON_BOX_CTL, UNC_BOX_CTL_RST_CTRS);
	qsim_frozen_reset(rx->box);
	sim.sock[1].qpi[2].rx_count_pct = 90;
	EXPECT_EQ(run("rate socket=1 box=qpi2 event=0x01 umask=0x02 per_s=1000000"), 0);
	for (i = 1; i <= 9; i++)
		qsim_advance(&sim, t += 111000);
	EXPECT_EQ(rd64(rx, 0), 899);	/* 90 % of 999 */
	EXPECT_EQ(rx->box->ctr_arrived[0], 899);
	EXPECT_EQ(rd64(tx, 0), 2108);	/* the sender saw none of it */

	/* unwired: a Tx stream reaches no Rx counter */
	EXPECT_EQ(run("rate socket=1 box=qpi2 event=0x01 umask=0x02 per_s=0"), 0);
	EXPECT_EQ(links("0.2 none"), 0);
	wr(rx, UNC_PCI_PMON_BOX_CTL, UNC_BOX_CTL_RST_CTRS);
	EXPECT_EQ(run("rate socket=0 box=qpi2 event=0x00 umask=0x02 per_s=1000000"), 0);
	qsim_advance(&sim, t += 5000000);
	EXPECT_EQ(rd64(rx, 0), 0);
	EXPECT_EQ(rd64(tx, 0), 2108 + 5000);
}

/*
 * L0p and L1 residency: a share of every clocktick the port gets, from
 * event and packet batches and from clock streams, remainders carried.
 */
static void test_residency(void)
{
	struct qsim_fn *q, *r;
	struct qsim_box *box;
	u64 t = 1000000;
	int i;

	setup("snbep", 2, 2, 2);
	q = fn_at(0, 0x08, 2);
	r = fn_at(0, 0x13, 5);
	box = q->box;
	wr(q, UNC_PCI_PMON_CTL(0), EN | QPI_EV_TXL0P_POWER_CYCLES);
	wr(q, UNC_PCI_PMON_CTL(1), EN | QPI_EV_RXL0P_POWER_CYCLES);
	wr(q, UNC_PCI_PMON_CTL(2), EN | UM(0xff) | QPI_EV_L1_POWER_CYCLES);
	wr(q, UNC_PCI_PMON_CTL(3), EN | QPI_EV_CLOCKTICKS);
	wr(r, UNC_PCI_PMON_CTL(0), EN | 0x0d);
	/* off by default */
	EXPECT_EQ(run("event socket=0 box=qpi0 event=0x14 count=4000"), 0);
	EXPECT_EQ(rd64(q, 0), 0);
	box->res_pct[QSIM_RES_L0P_TX] = 25;
	box->res_pct[QSIM_RES_L0P_RX] = 10;
	box->res_pct[QSIM_RES_L1] = 3;
	EXPECT_EQ(run("event socket=0 box=qpi0 event=0x14 count=4000"), 0);
	EXPECT_EQ(rd64(q, 0), 1000);
	EXPECT_EQ(rd64(q, 1), 400);
	EXPECT_EQ(rd64(q, 2), 120);
	EXPECT_EQ(rd64(q, 3), 8000);
	/* a batch of other events: its cycles count */
	EXPECT_EQ(run("event socket=0 box=qpi0 event=0x05 count=10 cycles=400"), 0);
	EXPECT_EQ(rd64(q, 0), 1100);
	/* packets: 9 DRS take 41 cycles; 3 % of 41 + 41 + 18 carries */
	EXPECT_EQ(run("packet socket=0 port=0 dir=rx mc=drs count=9"), 0);
	EXPECT_EQ(run("packet socket=0 port=0 dir=rx mc=drs count=9"), 0);
	EXPECT_EQ(run("packet socket=0 port=0 dir=rx mc=ncs count=36"), 0);
	EXPECT_EQ(rd64(q, 3), 8400 + 100);
	EXPECT_EQ(rd64(q, 2), 120 + 12 + 3);
	EXPECT_EQ(rd64(q, 1), 400 + 40 + 10);
	/* a frozen box: its counters miss them, the share goes on */
	wr(q, UNC_PCI_PMON_BOX_CTL, UNC_BOX_CTL_FRZ | UNC_BOX_CTL_FRZ_EN);
	EXPECT_EQ(run("event socket=0 box=qpi0 event=0x14 count=34"), 0);
	wr(q, UNC_PCI_PMON_BOX_CTL, 0);
	EXPECT_EQ(run("event socket=0 box=qpi0 event=0x14 count=66"), 0);
	EXPECT_EQ(rd64(q, 2), 135 + 2);	/* 3 of 100, 1 of them frozen */
	/* the sender's far end gets the cycles of received packets */
	sim.sock[1].qpi[0].res_pct[QSIM_RES_L0P_RX] = 50;
	wr(fn_at(1, 0x08, 2), UNC_PCI_PMON_CTL(0), EN | QPI_EV_RXL0P_POWER_CYCLES);
	EXPECT_EQ(run("packet socket=0 port=0 dir=tx mc=drs count=10"), 0);
	EXPECT_EQ(rd64(fn_at(1, 0x08, 2), 0), 22);	/* 50 % of 45, .5 carried */
	/* raw injections of the events themselves still work */
	wr(q, UNC_PCI_PMON_BOX_CTL, UNC_BOX_CTL_RST_CTRS);
	EXPECT_EQ(run("event socket=0 box=qpi0 event=0x0d count=7 cycles=100"), 0);
	EXPECT_EQ(rd64(q, 0), 7);
	EXPECT_EQ(rd64(q, 1), 10);
	EXPECT_EQ(rd64(r, 0), 0);	/* R3QPI has none */
	/* thresholds: the L0p cycles come first, one each */
	wr(q, UNC_PCI_PMON_CTL(0), EN | TH(1) | UNC_CTL_EDGE_DET |
	   QPI_EV_TXL0P_POWER_CYCLES);
	wr(q, UNC_PCI_PMON_CTL(1), EN | TH(1) | UNC_CTL_INVERT |
	   QPI_EV_RXL0P_POWER_CYCLES);
	EXPECT_EQ(run("event socket=0 box=qpi0 event=0x14 count=200"), 0);
	EXPECT_EQ(run("event socket=0 box=qpi0 event=0x14 count=200"), 0);
	EXPECT_EQ(rd64(q, 0), 7 + 2);	/* one entry a batch */
	EXPECT_EQ(rd64(q, 1), 10 + 360);	/* the cycles outside Rx L0p */

	/* clock streams: the link clock and rate streams of clockticks */
	wr(q, UNC_PCI_PMON_BOX_CTL, UNC_BOX_CTL_RST_CTRS | UNC_BOX_CTL_RST_CTRL);
	wr(q, UNC_PCI_PMON_CTL(0), EN | QPI_EV_TXL0P_POWER_CYCLES);
	wr(q, UNC_PCI_PMON_CTL(1), EN | TH(1) | QPI_EV_RXL0P_POWER_CYCLES);
	wr(q, UNC_PCI_PMON_CTL(3), EN | QPI_EV_CLOCKTICKS);
	memset(box->res_frac, 0, sizeof(box->res_frac));
	qsim_advance(&sim, t);
	qsim_set_link_clock(&sim, true);
	EXPECT_EQ(run("rate socket=0 box=qpi0 event=0x14 per_s=3000000"), 0);
	for (i = 1; i <= 10; i++)
		qsim_advance(&sim, t += 7 * i);	/* 385 ns in all */
	/* 385 at 1 GHz + 1155 at 3 MHz (1, carried) = 386 clockticks */
	EXPECT_EQ(rd64(q, 3), 386);
	EXPECT_EQ(rd64(q, 0), 96);	/* 25 % of 385 + 25 % of 1 */
	EXPECT_EQ(rd64(q, 1), 0);	/* no rate traffic through thresholds */
	EXPECT_EQ(box->ctr_arrived[0], 96);
	qsim_set_link_clock(&sim, false);
}

static const struct ktap_case cases[] = {
	{ "eval_matches_cycle_reference", test_eval_matches_reference },
	{ "eval_large_repeat", test_eval_large_repeat },
	{ "topology_snbep_ids_and_buses", test_topology_snbep },
	{ "topology_ivbep_third_port_and_link", test_topology_ivbep_three_links },
	{ "ubox_nodeid_map_and_config_errors", test_ubox_nodeid_map },
	{ "ctl_reserved_bits", test_ctl_reserved_bits },
	{ "box_ctl_reset_and_write_only", test_box_ctl_reset_and_wo },
	{ "inject_counts_and_freeze", test_inject_counts_and_freeze },
	{ "wrap_and_overflow", test_wrap_and_overflow },
	{ "threshold_invert_edge", test_threshold_invert_edge },
	{ "packets_flits", test_packets_flits },
	{ "packets_threshold", test_packets_threshold },
	{ "mask_match", test_mask_match },
	{ "fast_count_and_faults", test_fast_count_and_faults },
	{ "narrow_access_and_log", test_narrow_access_and_log },
	{ "inject_errors", test_inject_errors },
	{ "accrue_exact_however_split", test_accrue_exact_however_split },
	{ "rate_counts_and_freeze_loses", test_rate_counts_and_freeze_loses },
	{ "rate_errors", test_rate_errors },
	{ "check_knobs", test_check_knobs },
	{ "links_default", test_links_default },
	{ "link_regs_default_maps", test_link_regs_default_maps },
	{ "link_regs_node_ids", test_link_regs_node_ids },
	{ "link_regs_rewire_and_down", test_link_regs_rewire_and_down },
	{ "link_regs_names", test_link_regs_names },
	{ "links_write", test_links_write },
	{ "links_packets", test_links_packets },
	{ "links_rate", test_links_rate },
	{ "residency", test_residency },
};

int main(void)
{
	return ktap_run("qpisim_model", cases, ARRAY_SIZE(cases));
}
