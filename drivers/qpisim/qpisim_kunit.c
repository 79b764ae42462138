// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit cases of qpisim's counting engine (qpisim_model.c), for kernels
 * built with CONFIG_KUNIT (the debug tier, tools/debug-kernel).
 */
#include <kunit/test.h>

/*
 * The code under test, built into this module on its own.  The host unit
 * tests in tools/unittest cover it more widely; these prove it in kernel
 * context, under KASAN and UBSAN.
 */
#include "qpisim_model.c"
#include "qpisim_links.c"
#include "qpisim_platform.c"

static void qsim_kunit_eval(struct kunit *test)
{
	static const u8 pat[] = { 2, 2, 1, 0 };
	struct qsim_seg seg = { pat, ARRAY_SIZE(pat), 1000 };
	bool cmp = false;

	KUNIT_EXPECT_EQ(test, qsim_eval(0, &seg, 1, &cmp), 5000ULL);
	KUNIT_EXPECT_EQ(test, qsim_eval(2U << UNC_CTL_THRESH_SHIFT, &seg, 1,
					&cmp), 2000ULL);
	cmp = false;
	KUNIT_EXPECT_EQ(test, qsim_eval(1U << UNC_CTL_THRESH_SHIFT |
					UNC_CTL_EDGE_DET, &seg, 1, &cmp),
			1000ULL);
}

/* Scaled shares are exact however the events are split. */
static void qsim_kunit_scale_pct(struct kunit *test)
{
	u64 total = 0;
	u32 frac = 0;
	int i;

	for (i = 1; i <= 999; i++)
		total += qsim_scale_pct(&frac, i, 3);
	KUNIT_EXPECT_EQ(test, total, 499500ULL * 3 / 100);
	frac = 0;
	/* the largest injection at the largest rx_count_pct: no overflow */
	KUNIT_EXPECT_EQ(test, qsim_scale_pct(&frac, 1ULL << 56, 200),
			1ULL << 57);
	KUNIT_EXPECT_EQ(test, frac, 0U);
}

/* The default map of 4 sockets of 3 ports: a full mesh. */
static void qsim_kunit_links(struct kunit *test)
{
	static const char want[] = "0.0 1.2\n0.1 2.1\n0.2 3.0\n1.0 2.2\n1.1 3.1\n2.0 3.2\n";
	struct qsim_config cfg = { .nr_sockets = 4, .nr_ports = 3,
				   .nr_links = 3 };
	char err[QSIM_ERR_LEN], buf[128];
	struct qsim *sim;
	int s;

	sim = kunit_kzalloc(test, sizeof(*sim), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, sim);
	cfg.plat = qsim_platform_find("hswep");
	KUNIT_ASSERT_NOT_NULL(test, cfg.plat);
	for (s = 0; s < 4; s++) {
		cfg.buses[s] = qsim_default_bus(4, s);
		cfg.node_ids[s] = s;
	}
	KUNIT_ASSERT_EQ(test, qsim_init(sim, &cfg, err, sizeof(err)), 0);
	qsim_links_show(sim, buf, sizeof(buf));
	KUNIT_EXPECT_STREQ(test, buf, want);
	KUNIT_EXPECT_EQ(test, qsim_links_write(sim, "0.0 3.3", err,
					       sizeof(err)), -1);
	qsim_links_show(sim, buf, sizeof(buf));
	KUNIT_EXPECT_STREQ(test, buf, want);
}

static struct kunit_case qsim_kunit_cases[] = {
	KUNIT_CASE(qsim_kunit_eval),
	KUNIT_CASE(qsim_kunit_scale_pct),
	KUNIT_CASE(qsim_kunit_links),
	{ }
};

static struct kunit_suite qsim_kunit_suite = {
	.name = "qpisim",
	.test_cases = qsim_kunit_cases,
};

kunit_test_suite(qsim_kunit_suite);

MODULE_DESCRIPTION("KUnit tests of the qpisim model");
MODULE_LICENSE("GPL");
