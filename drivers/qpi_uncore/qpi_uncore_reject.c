// SPDX-License-Identifier: GPL-2.0
/*
 * One rate-limited kernel message per refused event: every rule the driver
 * enforces on perf's input reports through here.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ratelimit.h>

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
