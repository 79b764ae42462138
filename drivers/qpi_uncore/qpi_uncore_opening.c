// SPDX-License-Identifier: GPL-2.0
/*
 * Events on their way to a reader CPU.  event_init chooses the socket's
 * reader, and perf installs the event in that CPU's context later, with
 * no call to us in between (pmu->add comes only for an enabled event).
 * If the reader goes offline meanwhile, the hotplug moves the socket's
 * events before the one in flight arrives, and perf drops it with the
 * CPU's contexts: it would count nothing, silently.  So event_init lists
 * the event here, and a reader change waits for what is in flight, then
 * moves it too.  perf sets event->ctx at installation, before it takes
 * the event to the CPU, all under the context's mutex.
 */
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/list.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "qpi_uncore.h"

struct qpiu_opening {
	struct list_head node;
	struct perf_event *event;
	int cpu;			/* the reader chosen; -1 not yet */
};

/* Under opening_lock; destroy() has not run for any event listed. */
static struct qpiu_opening *qpiu_opening_find(struct qpiu_pmu *qpmu,
					      struct perf_event *event)
{
	struct qpiu_opening *o;

	list_for_each_entry(o, &qpmu->opening, node)
		if (o->event == event)
			return o;
	return NULL;
}

/*
 * List @event, before its reader is chosen.  Entries perf has installed
 * since are dropped, so that the list holds only events in flight.
 */
int qpiu_opening_add(struct qpiu_pmu *qpmu, struct perf_event *event)
{
	struct qpiu_opening *op, *o, *tmp;

	op = kmalloc(sizeof(*op), GFP_KERNEL);
	if (!op)
		return -ENOMEM;
	op->event = event;
	op->cpu = -1;
	spin_lock(&qpmu->opening_lock);
	list_for_each_entry_safe(o, tmp, &qpmu->opening, node) {
		if (READ_ONCE(o->event->ctx)) {
			list_del(&o->node);
			kfree(o);
		}
	}
	list_add_tail(&op->node, &qpmu->opening);
	spin_unlock(&qpmu->opening_lock);
	return 0;
}

/* The reader event_init chose for @event: where perf will install it. */
void qpiu_opening_set_cpu(struct qpiu_pmu *qpmu, struct perf_event *event,
			  int cpu)
{
	struct qpiu_opening *op;

	spin_lock(&qpmu->opening_lock);
	op = qpiu_opening_find(qpmu, event);
	if (op)
		op->cpu = cpu;
	spin_unlock(&qpmu->opening_lock);
}

/* From event_init's failures and from destroy(). */
void qpiu_opening_del(struct qpiu_pmu *qpmu, struct perf_event *event)
{
	struct qpiu_opening *op;

	spin_lock(&qpmu->opening_lock);
	op = qpiu_opening_find(qpmu, event);
	if (op)
		list_del(&op->node);
	spin_unlock(&qpmu->opening_lock);
	kfree(op);
}

enum qpiu_settle {
	QPIU_SETTLED,		/* nothing of ours is left on the old reader */
	QPIU_LEFT_BEHIND,	/* installed there after the migration */
	QPIU_IN_FLIGHT,		/* may still be installed there */
};

static enum qpiu_settle qpiu_opening_scan(struct qpiu_pmu *qpmu, int old_cpu)
{
	enum qpiu_settle st = QPIU_SETTLED;
	struct qpiu_opening *o;

	spin_lock(&qpmu->opening_lock);
	list_for_each_entry(o, &qpmu->opening, node) {
		if (o->cpu == -1) {
			st = QPIU_IN_FLIGHT;	/* its choice is not made */
			break;
		}
		if (o->cpu != old_cpu)
			continue;
		if (!READ_ONCE(o->event->ctx)) {
			st = QPIU_IN_FLIGHT;
			break;
		}
		/* perf_pmu_migrate_context() moved it if this differs */
		if (READ_ONCE(o->event->cpu) == old_cpu)
			st = QPIU_LEFT_BEHIND;
	}
	spin_unlock(&qpmu->opening_lock);
	return st;
}

/*
 * How long a reader change waits for events in flight.  Between
 * event_init and installation perf does nothing slow, unless it waits
 * for the CPU hotplug lock (enabling a static key the first time an event
 * needs it), which the hotplug that called us holds: that open then finds
 * the old CPU's context offline and fails with ENODEV, so the wait may end.
 */
#define QPIU_SETTLE_MS		1000

/**
 * qpiu_pmu_settle_reader() - wait for events opened against an old reader
 * @qpmu: the PMU, whose events perf_pmu_migrate_context() just moved
 * @old_cpu: the reader it moved them from
 *
 * An event_init that read box->cpu before the reader changed installs its
 * event in @old_cpu's context, possibly after the migration.  Waits until
 * each such event is installed or gone.  Called in process context, under
 * qpiu_mutex, which event_init does not take.
 *
 * Return: true if one was installed on @old_cpu, so that the caller must
 * migrate again.
 */
bool qpiu_pmu_settle_reader(struct qpiu_pmu *qpmu, int old_cpu)
{
	unsigned long end = jiffies + msecs_to_jiffies(QPIU_SETTLE_MS);
	enum qpiu_settle st;

	while ((st = qpiu_opening_scan(qpmu, old_cpu)) == QPIU_IN_FLIGHT &&
	       time_before(jiffies, end))
		usleep_range(500, 1000);
	return st != QPIU_SETTLED;
}

