// SPDX-License-Identifier: GPL-2.0
/*
 * Test builds only (make QPIU_TEST_HOOKS=1; the VM bench builds so, the
 * install, DKMS and package builds never do): knobs that hold a race
 * window open long enough for a selftest to hit it every time, where
 * nothing in qpisim could.
 */
#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/moduleparam.h>

#include "qpi_uncore.h"

/*
 * How long an event's destroy() sleeps after the event is no longer
 * counted in its PMU's nr_events: perf has not yet made its last use of
 * the PMU (qpiu_perf_done_with_events() says which).
 */
static unsigned int qpiu_test_destroy_ms;
module_param_named(test_destroy_delay_ms, qpiu_test_destroy_ms, uint, 0644);
MODULE_PARM_DESC(test_destroy_delay_ms,
		 "test builds: sleep this long at the end of an event's destroy()");

/* destroy() calls that slept: a test waits for this before it races */
static atomic_t qpiu_test_destroy_sleeping = ATOMIC_INIT(0);
static int qpiu_test_get_sleeping(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&qpiu_test_destroy_sleeping));
}

static const struct kernel_param_ops qpiu_test_sleeping_ops = {
	.get = qpiu_test_get_sleeping,
};
module_param_cb(test_destroy_sleeping, &qpiu_test_sleeping_ops, NULL, 0444);

void qpiu_test_destroy_delay(void)
{
	unsigned int ms = READ_ONCE(qpiu_test_destroy_ms);

	if (!ms)
		return;
	atomic_inc(&qpiu_test_destroy_sleeping);
	msleep(ms);
	atomic_dec(&qpiu_test_destroy_sleeping);
}
