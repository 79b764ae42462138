// SPDX-License-Identifier: GPL-2.0
/*
 * One rate-limited kernel message per refused input: every rule the driver
 * enforces on perf's events and on its module parameters reports through
 * here.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/ratelimit.h>
#include <linux/sysfs.h>

#include "qpi_uncore.h"

/* One budget for every refusal, so bad input cannot flood the log. */
static DEFINE_RATELIMIT_STATE(qpiu_reject_rs, DEFAULT_RATELIMIT_INTERVAL,
			      DEFAULT_RATELIMIT_BURST);

__printf(3, 4) int qpiu_reject(const struct qpiu_pmu *qpmu, int err,
			       const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	if (__ratelimit(&qpiu_reject_rs)) {
		va_start(args, fmt);
		vaf.fmt = fmt;
		vaf.va = &args;
		pr_info("%s: %pV\n", qpmu->name, &vaf);
		va_end(args);
	}
	return err;
}

/*
 * A struct qpiu_uint_param (kp->arg) set: a value out of its range is
 * refused with EINVAL and one message naming the rule, and the parameter
 * keeps its value.
 */
static int qpiu_param_set_uint(const char *val, const struct kernel_param *kp)
{
	const struct qpiu_uint_param *p = kp->arg;
	unsigned int v;
	int ret;

	ret = kstrtouint(val, 0, &v);
	if (ret)
		return ret;
	if (!(p->zero_off && !v) && (v < p->min || v > p->max)) {
		pr_err_ratelimited("%s=%u: must be %s%u..%u\n", kp->name, v,
				   p->zero_off ? "0 (off) or " : "", p->min,
				   p->max);
		return -EINVAL;
	}
	WRITE_ONCE(*p->val, v);
	return 0;
}

static int qpiu_param_get_uint(char *buf, const struct kernel_param *kp)
{
	const struct qpiu_uint_param *p = kp->arg;

	return sysfs_emit(buf, "%u\n", READ_ONCE(*p->val));
}

const struct kernel_param_ops qpiu_uint_param_ops = {
	.set = qpiu_param_set_uint,
	.get = qpiu_param_get_uint,
};
