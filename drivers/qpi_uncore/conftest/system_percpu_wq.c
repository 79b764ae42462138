// SPDX-License-Identifier: GPL-2.0
/*
 * system_percpu_wq: system_wq's new name (6.17, and some stable kernels
 * such as Debian's 6.12), whose header marks system_wq for removal.
 */
#include <linux/workqueue.h>

struct workqueue_struct *qpiu_conftest(void);

struct workqueue_struct *qpiu_conftest(void)
{
	return system_percpu_wq;
}
