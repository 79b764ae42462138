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

static struct kunit_case qsim_kunit_cases[] = {
	KUNIT_CASE(qsim_kunit_eval),
	{ }
};

static struct kunit_suite qsim_kunit_suite = {
	.name = "qpisim",
	.test_cases = qsim_kunit_cases,
};

kunit_test_suite(qsim_kunit_suite);

MODULE_DESCRIPTION("KUnit tests of the qpisim model");
MODULE_LICENSE("GPL");
