// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit cases of qpi_uncore's hardware-independent rules (logic.c, desc.c),
 * for kernels built with CONFIG_KUNIT (the debug tier, tools/debug-kernel).
 */
#include <kunit/test.h>

/*
 * The code under test, built into this module on its own.  The host unit
 * tests in tools/unittest cover it more widely; these prove it in kernel
 * context, under KASAN and UBSAN.
 */
#include "qpi_uncore_logic.c"
#include "qpi_uncore_desc.c"

static void qpiu_kunit_assign(struct kunit *test)
{
	u8 masks[3] = { 0x7, 0x3, 0x1 };
	s8 out[3];

	KUNIT_EXPECT_EQ(test, qpiu_assign(masks, 3, 3, NULL, out), 0);
	KUNIT_EXPECT_EQ(test, out[2], 0);
	KUNIT_EXPECT_EQ(test, out[1], 1);
	KUNIT_EXPECT_EQ(test, out[0], 2);
	masks[1] = 0x1;
	KUNIT_EXPECT_EQ(test, qpiu_assign(masks, 3, 3, NULL, out), -ENOSPC);
	KUNIT_EXPECT_EQ(test, qpiu_assign(masks, 4, 3, NULL, out), -ENOSPC);
}

static void qpiu_kunit_config(struct kunit *test)
{
	const struct qpiu_box_desc *qpi = &qpiu_box_descs[QPIU_SNBEP][QPIU_BOX_QPI];
	const struct qpiu_box_desc *r3 = &qpiu_box_descs[QPIU_IVBEP][QPIU_BOX_R3QPI];
	char msg[QPIU_MSG_LEN];

	KUNIT_EXPECT_EQ(test, qpiu_check_config(qpi, 0x420014, 0, 0, msg,
						sizeof(msg)), 0);
	KUNIT_EXPECT_EQ(test, qpiu_check_config(qpi, BIT(16), 0, 0, msg,
						sizeof(msg)), -EINVAL);
	KUNIT_EXPECT_EQ(test, qpiu_check_config(r3, UNC_CTL_INVERT | BIT(24),
						0, 0, msg, sizeof(msg)),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, qpiu_check_config(qpi, 0x200038, 0x1c00, 0x1e00,
						msg, sizeof(msg)), 0);
	KUNIT_EXPECT_EQ(test, qpiu_check_config(qpi, 0x14, 0x1c00, 0, msg,
						sizeof(msg)), -EINVAL);
	KUNIT_EXPECT_EQ(test, qpiu_counter_mask(r3, 0x13), 0x1);
	KUNIT_EXPECT_EQ(test, qpiu_counter_mask(r3, 0x10), 0x3);
	KUNIT_EXPECT_EQ(test, qpiu_counter_mask(r3, 0x01), 0x7);
}

struct kunit_ctr {
	u64 val;
	u64 step;
};

static u32 kunit_rd(void *ctx, unsigned int off)
{
	struct kunit_ctr *c = ctx;

	c->val = (c->val + c->step) & GENMASK_ULL(47, 0);
	return off & 4 ? c->val >> 32 : (u32)c->val;
}

static void qpiu_kunit_read(struct kunit *test)
{
	struct kunit_ctr c = { .val = 0xfffffffeULL, .step = 1 };
	u64 v;

	KUNIT_EXPECT_EQ(test, qpiu_read_counter(kunit_rd, &c, 0xa0, 48, &v), 0);
	KUNIT_EXPECT_EQ(test, v, 0x100000002ULL);
	KUNIT_EXPECT_EQ(test, qpiu_delta(GENMASK_ULL(47, 0) - 9, 15, 48), 25ULL);
	c.step = 1ULL << 32;
	KUNIT_EXPECT_EQ(test, qpiu_read_counter(kunit_rd, &c, 0xa0, 48, &v),
			-EAGAIN);
}

static struct kunit_case qpiu_kunit_cases[] = {
	KUNIT_CASE(qpiu_kunit_assign),
	KUNIT_CASE(qpiu_kunit_config),
	KUNIT_CASE(qpiu_kunit_read),
	{ }
};

static struct kunit_suite qpiu_kunit_suite = {
	.name = "qpi_uncore",
	.test_cases = qpiu_kunit_cases,
};

kunit_test_suite(qpiu_kunit_suite);

MODULE_DESCRIPTION("KUnit tests of qpi_uncore logic");
MODULE_LICENSE("GPL");
