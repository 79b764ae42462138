// SPDX-License-Identifier: GPL-2.0
/* hrtimer_init(), then the callback set by hand (up to 6.14). */
#include <linux/hrtimer.h>

void qpiu_conftest(struct hrtimer *timer);

void qpiu_conftest(struct hrtimer *timer)
{
	hrtimer_init(timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
}
