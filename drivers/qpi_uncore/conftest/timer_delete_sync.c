// SPDX-License-Identifier: GPL-2.0
/*
 * timer_delete_sync(): del_timer_sync()'s new name (6.2, and some stable
 * kernels such as Debian's 5.10 and 6.1; del_timer_sync() is gone by 7.3).
 */
#include <linux/timer.h>

int qpiu_conftest(struct timer_list *timer);

int qpiu_conftest(struct timer_list *timer)
{
	return timer_delete_sync(timer);
}
