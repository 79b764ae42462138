// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of the Xeon 7500 S-Box box code against a register file
 * that behaves as 323535 describes: a MATCH or MASK write while MM_CFG bit 63
 * is set raises #GP (and is not performed), MM_CFG bits 62:0 read as zero,
 * counters are 48 bits.  Every access is logged, so the tests check the
 * order and value of each one.
 */
#include <errno.h>
#include <string.h>

#include "qpi_uncore_logic.h"
#include "qpi_uncore_sbox.h"
#include "ktap.h"

#define MSR_BASE	0xc00
#define MSR_SPAN	0x400

struct access {
	char op;		/* 'r', 'w', or 'G' for a write that faulted */
	u32 msr;
	u64 val;
};

struct fake {
	u64 regs[MSR_SPAN];
	struct access log[64];
	unsigned int n;
	unsigned int gp;	/* #GP faults raised */
	bool fail_rd;
	bool fail_wr;		/* every write faults */
};

static void record(struct fake *f, char op, u32 msr, u64 val)
{
	if (f->n < ARRAY_SIZE(f->log))
		f->log[f->n++] = (struct access){ op, msr, val };
}

static int fake_rd(void *ctx, u32 msr, u64 *val)
{
	struct fake *f = ctx;

	record(f, 'r', msr, 0);
	if (f->fail_rd || msr < MSR_BASE || msr >= MSR_BASE + MSR_SPAN)
		return -EIO;
	*val = f->regs[msr - MSR_BASE];
	return 0;
}

static int fake_wr(void *ctx, u32 msr, u64 val)
{
	struct fake *f = ctx;
	unsigned int b;

	if (f->fail_wr || msr < MSR_BASE || msr >= MSR_BASE + MSR_SPAN) {
		record(f, 'G', msr, val);
		f->gp++;
		return -EIO;
	}
	for (b = 0; b < SBOX_NR_BOXES; b++) {
		u32 mm = qpiu_sbox_msr(b, SBOX_MM_CFG, 0);

		if ((msr == mm + 1 || msr == mm + 2) &&
		    (f->regs[mm - MSR_BASE] & SBOX_MM_CFG_EN)) {
			record(f, 'G', msr, val);
			f->gp++;
			return -EIO;
		}
		if (msr == mm)
			val &= SBOX_MM_CFG_EN;
		if (msr >= qpiu_sbox_msr(b, SBOX_CTR, 0) &&
		    msr <= qpiu_sbox_msr(b, SBOX_CTR, 3) &&
		    (msr - qpiu_sbox_msr(b, SBOX_CTR, 0)) % 2 == 0)
			val &= (1ULL << SBOX_CTR_WIDTH) - 1;
	}
	record(f, 'w', msr, val);
	f->regs[msr - MSR_BASE] = val;
	return 0;
}

static const struct qpiu_msr_ops fake_ops = { fake_rd, fake_wr };
static struct fake f;
static struct qpiu_sbox sb;

static void setup(unsigned int idx)
{
	memset(&f, 0, sizeof(f));
	sb = (struct qpiu_sbox){ .ops = &fake_ops, .ctx = &f, .idx = idx };
}

static void expect_log(const struct access *want, unsigned int n)
{
	unsigned int i;

	EXPECT_EQ(f.n, n);
	for (i = 0; i < n && i < f.n; i++) {
		if (f.log[i].op != want[i].op || f.log[i].msr != want[i].msr ||
		    f.log[i].val != want[i].val) {
			printf("# access %u: %c 0x%x 0x%llx, want %c 0x%x 0x%llx\n",
			       i, f.log[i].op, f.log[i].msr,
			       (unsigned long long)f.log[i].val, want[i].op,
			       want[i].msr, (unsigned long long)want[i].val);
			ktap_cur_failed = 1;
		}
	}
}

static void test_msr_map(void)
{
	EXPECT_EQ(qpiu_sbox_msr(0, SBOX_GLOBAL_CTL, 0), 0xc40);
	EXPECT_EQ(qpiu_sbox_msr(0, SBOX_CTL, 3), 0xc56);
	EXPECT_EQ(qpiu_sbox_msr(0, SBOX_CTR, 3), 0xc57);
	EXPECT_EQ(qpiu_sbox_msr(1, SBOX_GLOBAL_CTL, 0), 0xcc0);
	EXPECT_EQ(qpiu_sbox_msr(1, SBOX_CTL, 0), 0xcd0);
	EXPECT_EQ(qpiu_sbox_msr(1, SBOX_CTR, 1), 0xcd3);
	EXPECT_EQ(qpiu_sbox_msr(0, SBOX_MM_CFG, 0), 0xe48);
	EXPECT_EQ(qpiu_sbox_msr(0, SBOX_MATCH, 0), 0xe49);
	EXPECT_EQ(qpiu_sbox_msr(0, SBOX_MASK, 0), 0xe4a);
	EXPECT_EQ(qpiu_sbox_msr(1, SBOX_MM_CFG, 0), 0xe58);
	EXPECT_EQ(qpiu_sbox_msr(1, SBOX_MATCH, 0), 0xe59);
	EXPECT_EQ(qpiu_sbox_msr(1, SBOX_MASK, 0), 0xe5a);
}

static void test_init_and_freeze(void)
{
	static const struct access want[] = {
		{ 'w', 0xe58, 0 }, { 'w', 0xcc0, 0xf },
		{ 'w', 0xcc0, 0 }, { 'w', 0xcc0, 0xf },
	};

	setup(1);
	f.regs[0xe58 - MSR_BASE] = SBOX_MM_CFG_EN;
	EXPECT_EQ(qpiu_sbox_init(&sb), 0);
	EXPECT_EQ(qpiu_sbox_freeze(&sb, true), 0);
	EXPECT_EQ(qpiu_sbox_freeze(&sb, false), 0);
	expect_log(want, ARRAY_SIZE(want));
}

/* The guide's sequence, access by access. */
static void test_mask_match_sequence(void)
{
	static const struct access want[] = {
		{ 'w', 0xe48, 0 },				/* a) */
		{ 'w', 0xe49, 0x1122334455667788ULL },		/* b) */
		{ 'w', 0xe4a, 0xff00ff00ff00ff00ULL },
		{ 'w', 0xc55, 0 },				/* counter 2 cleared */
		{ 'w', 0xc54, 0x00400000 | 0x0100 },		/* c) ev 0x00, en */
		{ 'w', 0xe48, SBOX_MM_CFG_EN },			/* d) */
	};

	setup(0);
	EXPECT_EQ(qpiu_sbox_set_filter(&sb, 0x1122334455667788ULL,
				       0xff00ff00ff00ff00ULL), 0);
	EXPECT_EQ(qpiu_sbox_start(&sb, 2, 0x0100, true), 0);
	expect_log(want, ARRAY_SIZE(want));
	EXPECT_EQ(f.gp, 0);
	EXPECT_TRUE(sb.mm_on);
}

/* Reprogramming while matching is on must first turn it off. */
static void test_reprogram_while_enabled(void)
{
	setup(0);
	EXPECT_EQ(qpiu_sbox_set_filter(&sb, 1, 2), 0);
	EXPECT_EQ(qpiu_sbox_start(&sb, 0, 0, true), 0);
	f.n = 0;
	EXPECT_EQ(qpiu_sbox_set_filter(&sb, 3, 4), 0);
	EXPECT_EQ(f.gp, 0);
	EXPECT_EQ(f.log[0].msr, 0xe48);
	EXPECT_EQ(f.log[0].val, 0);
	EXPECT_EQ(f.regs[0xe49 - MSR_BASE], 3);
	EXPECT_EQ(f.regs[0xe4a - MSR_BASE], 4);
	EXPECT_TRUE(!sb.mm_on);
	EXPECT_EQ(qpiu_sbox_start(&sb, 1, 0, true), 0);
	EXPECT_EQ(f.regs[0xe48 - MSR_BASE], SBOX_MM_CFG_EN);
	/* a second mask/match event on the same filter: no MM_CFG write */
	f.n = 0;
	EXPECT_EQ(qpiu_sbox_start(&sb, 3, 0, true), 0);
	EXPECT_EQ(f.n, 2);
}

/* The fake faults as the hardware does: the test bench can catch misuse. */
static void test_fake_faults_on_wrong_order(void)
{
	setup(1);
	f.regs[0xe58 - MSR_BASE] = SBOX_MM_CFG_EN;
	EXPECT_TRUE(fake_wr(&f, 0xe59, 5) != 0);
	EXPECT_EQ(f.gp, 1);
	EXPECT_EQ(f.regs[0xe59 - MSR_BASE], 0);
	/* and a fault stops the sequence before the counter is enabled */
	setup(1);
	sb.mm_on = true;
	f.regs[0xe58 - MSR_BASE] = SBOX_MM_CFG_EN;
	f.regs[0xe59 - MSR_BASE] = 0;
	EXPECT_EQ(qpiu_sbox_set_filter(&sb, 9, 9), 0);
	EXPECT_EQ(f.gp, 0);
}

static void test_plain_event_and_stop(void)
{
	static const struct access want[] = {
		{ 'w', 0xc51, 0 }, { 'w', 0xc50, 0x00c00205 },
		{ 'w', 0xc50, 0x00800205 },
	};

	setup(0);
	EXPECT_EQ(qpiu_sbox_start(&sb, 0, 0x00800205, false), 0);
	EXPECT_EQ(qpiu_sbox_stop(&sb, 0, 0x00c00205), 0);
	expect_log(want, ARRAY_SIZE(want));
	EXPECT_TRUE(!sb.mm_on);
}

static void test_read(void)
{
	u64 v;

	setup(0);
	f.regs[0xc53 - MSR_BASE] = 0xfffffffffffeULL;
	EXPECT_EQ(qpiu_sbox_read(&sb, 1, &v), 0);
	EXPECT_EQ(v, 0xfffffffffffeULL);
	EXPECT_EQ(f.n, 1);
	f.regs[0xc53 - MSR_BASE] = 1ULL << 48;
	EXPECT_EQ(qpiu_sbox_read(&sb, 1, &v), -EIO);
	f.fail_rd = true;
	EXPECT_EQ(qpiu_sbox_read(&sb, 1, &v), -EIO);
}

/* The foreign-writer read-back: what start wrote reads back, one MSR read. */
static void test_read_ctl(void)
{
	u32 ctl;

	setup(0);
	EXPECT_EQ(qpiu_sbox_start(&sb, 2, 0x00800205, false), 0);
	f.n = 0;
	EXPECT_EQ(qpiu_sbox_read_ctl(&sb, 2, &ctl), 0);
	EXPECT_EQ(ctl, 0x00c00205);
	EXPECT_EQ(f.n, 1);
	EXPECT_EQ(f.log[0].msr, 0xc54);
	f.fail_rd = true;
	EXPECT_EQ(qpiu_sbox_read_ctl(&sb, 2, &ctl), -EIO);
}

static void test_write_errors_propagate(void)
{
	setup(0);
	f.fail_wr = true;
	EXPECT_EQ(qpiu_sbox_set_filter(&sb, 1, 1), -EIO);
	EXPECT_EQ(f.n, 1);	/* stopped at the first fault */
	EXPECT_EQ(qpiu_sbox_start(&sb, 0, 0, true), -EIO);
	EXPECT_EQ(f.n, 2);
	EXPECT_TRUE(!sb.mm_on);
	EXPECT_EQ(qpiu_sbox_init(&sb), -EIO);
}

static int chk(u64 c, u64 c1, u64 c2, const char *want)
{
	char msg[QPIU_MSG_LEN] = "";
	int ret = qpiu_check_config(&qpiu_sbox_desc, c, c1, c2, msg,
				    sizeof(msg));

	if (want && !strstr(msg, want)) {
		printf("# message '%s' lacks '%s'\n", msg, want);
		ktap_cur_failed = 1;
	}
	return ret;
}

static void test_check_config(void)
{
	EXPECT_EQ(chk(0x00, 0xffffffffffffffffULL, 0x1, NULL), 0);
	EXPECT_EQ(chk(0xff84ffff, 0, 0, NULL), 0);
	EXPECT_EQ(chk(0x00400001, 0, 0, NULL), 0);	/* en accepted */
	EXPECT_EQ(chk(BIT(20), 0, 0, "bits 0x100000 are reserved on uncore_sbox"), -EINVAL);
	EXPECT_EQ(chk(BIT(16) | 1, 0, 0, "bits 0x10000"), -EINVAL);
	EXPECT_EQ(chk(1ULL << 32, 0, 0, "bits 0x100000000"), -EINVAL);
	EXPECT_EQ(chk(0x01 | BIT(18), 0, 0, "edge and inv need thresh"), -EINVAL);
	EXPECT_EQ(chk(0x01, 5, 0, "only event 0x00 (TO_R_PROG_EV)"), -EINVAL);
	EXPECT_TRUE(qpiu_uses_filter(&qpiu_sbox_desc, 0x0100));
	EXPECT_TRUE(!qpiu_uses_filter(&qpiu_sbox_desc, 0x0101));
}

#define PATTERN 0x5a5a5a5aa5a5a5a5ULL

static void expect_mm_regs(u64 cfg, u64 match, u64 mask)
{
	EXPECT_EQ(f.regs[0xe48 - MSR_BASE], cfg);
	EXPECT_EQ(f.regs[0xe49 - MSR_BASE], match);
	EXPECT_EQ(f.regs[0xe4a - MSR_BASE], mask);
}

/* intel_uncore's filter is live: the probe reads MM_CFG and nothing else. */
static void test_probe_leaves_live_filter(void)
{
	static const struct access want[] = { { 'r', 0xe48, 0 } };
	u64 rb;

	setup(0);
	f.regs[0xe48 - MSR_BASE] = SBOX_MM_CFG_EN;
	f.regs[0xe49 - MSR_BASE] = 0x1122334455667788ULL;
	f.regs[0xe4a - MSR_BASE] = 0xff00ff00ff00ff00ULL;
	EXPECT_EQ(qpiu_sbox_probe_regs(&sb, PATTERN, &rb), 0);
	expect_log(want, ARRAY_SIZE(want));
	expect_mm_regs(SBOX_MM_CFG_EN, 0x1122334455667788ULL,
		       0xff00ff00ff00ff00ULL);
	EXPECT_EQ(f.gp, 0);
}

/* mm_en clear: MATCH takes the pattern and gets its value back. */
static void test_probe_restores_match(void)
{
	static const struct access want[] = {
		{ 'r', 0xe48, 0 }, { 'r', 0xe49, 0 }, { 'w', 0xe49, PATTERN },
		{ 'r', 0xe49, 0 }, { 'w', 0xe49, 0x1234 },
	};
	u64 rb;

	setup(0);
	f.regs[0xe49 - MSR_BASE] = 0x1234;
	f.regs[0xe4a - MSR_BASE] = 0x77;
	EXPECT_EQ(qpiu_sbox_probe_regs(&sb, PATTERN, &rb), 0);
	EXPECT_EQ(rb, PATTERN);
	expect_log(want, ARRAY_SIZE(want));
	expect_mm_regs(0, 0x1234, 0x77);
}

/* No S-Box MSRs (a hypervisor): faults are -EIO, nothing changed. */
static void test_probe_faults(void)
{
	u64 rb;

	setup(0);
	f.regs[0xe49 - MSR_BASE] = 0x1234;
	f.fail_wr = true;
	EXPECT_EQ(qpiu_sbox_probe_regs(&sb, PATTERN, &rb), -EIO);
	expect_mm_regs(0, 0x1234, 0);
	setup(0);
	f.fail_rd = true;
	EXPECT_EQ(qpiu_sbox_probe_regs(&sb, PATTERN, &rb), -EIO);
	EXPECT_EQ(f.n, 1);
}

static const struct ktap_case cases[] = {
	{ "probe_leaves_live_filter", test_probe_leaves_live_filter },
	{ "probe_restores_match", test_probe_restores_match },
	{ "probe_faults", test_probe_faults },
	{ "msr_map", test_msr_map },
	{ "init_and_freeze", test_init_and_freeze },
	{ "mask_match_sequence", test_mask_match_sequence },
	{ "reprogram_while_enabled", test_reprogram_while_enabled },
	{ "fake_faults_on_wrong_order", test_fake_faults_on_wrong_order },
	{ "plain_event_and_stop", test_plain_event_and_stop },
	{ "read", test_read },
	{ "read_ctl", test_read_ctl },
	{ "write_errors_propagate", test_write_errors_propagate },
	{ "check_config", test_check_config },
};

int main(void)
{
	return ktap_run("qpi_uncore_sbox", cases, ARRAY_SIZE(cases));
}
