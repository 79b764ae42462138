// SPDX-License-Identifier: GPL-2.0
/*
 * hrtimer_setup(): the callback is given at init (6.13; hrtimer_init(),
 * which left it to the caller, is gone since 6.15).
 */
#include <linux/hrtimer.h>

void qpiu_conftest(struct hrtimer *timer);

static enum hrtimer_restart qpiu_conftest_fn(struct hrtimer *timer)
{
	return HRTIMER_NORESTART;
}

void qpiu_conftest(struct hrtimer *timer)
{
	hrtimer_setup(timer, qpiu_conftest_fn, CLOCK_MONOTONIC,
		      HRTIMER_MODE_REL_HARD);
}
