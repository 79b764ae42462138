// SPDX-License-Identifier: GPL-2.0
/*
 * The registry of PMUs and boxes: a PMU per box index and kind, created
 * with its first box and retired with its last, the boxes of each socket,
 * the ports' mask/match functions, and which CPU reads each socket.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/namei.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "qpi_uncore.h"
#include "qpi_uncore_compat.h"

/*
 * Two locks.  qpiu_reg_mutex serialises the life of PMUs and boxes (probe,
 * remove, retirement, unload).  qpiu_mutex, inside it, guards what CPU
 * hotplug also touches: readers, cpumasks, the boxes' publication.
 * perf_pmu_register() and perf_pmu_unregister() run under qpiu_reg_mutex
 * only: unregistering waits for perf's pmus_srcu readers, a
 * perf_event_open() among them can wait for cpu_hotplug_lock, and the
 * hotplug callbacks take qpiu_mutex under it (lockdep saw that cycle on
 * PREEMPT_RT).  The table below changes under both, so either is enough to
 * read it.
 */
DEFINE_MUTEX(qpiu_reg_mutex);
static struct qpiu_pmu *qpiu_pmus[QPIU_NR_BOX_KINDS][QPIU_MAX_BOXES];
/* Mask/match functions by socket and port, whichever is probed first. */
static struct pci_dev *qpiu_mm_devs[QPIU_MAX_SOCKETS][QPIU_MAX_BOXES];

static void qpiu_pmu_idle(struct qpiu_pmu *qpmu);
static void qpiu_retire_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(qpiu_retire_work, qpiu_retire_fn);
/*
 * Set while the registry looks at the PMUs and while a boxless PMU waits
 * to retire: a last close then looks again.  Written under
 * qpiu_reg_mutex, read locklessly.
 */
static bool qpiu_retire_pending;
/* Next look while perf may still be tearing an event down, in jiffies. */
static unsigned long qpiu_retire_delay = 1;

static void qpiu_pmu_free(struct qpiu_pmu *qpmu)
{
	qpiu_sysfs_free(qpmu);
	kfree(qpmu);
}

/*
 * intel_uncore registers PMUs of the same names.  perf_pmu_register() would
 * fail on the duplicate sysfs name with a stack dump; say what is wrong
 * instead.
 */
static bool qpiu_pmu_name_taken(const char *name)
{
	char path[64];
	struct path p;

	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s", name);
	if (kern_path(path, 0, &p))
		return false;
	path_put(&p);
	return true;
}

static void qpiu_pmu_name(char *name, size_t len,
			  const struct qpiu_platform *plat,
			  enum qpiu_box_kind kind, unsigned int idx)
{
	snprintf(name, len, "uncore_%s_%u", plat->box[kind]->name, idx);
}

/* -EBUSY, said, when the PMU for box @idx of @kind would clash. */
int qpiu_pmu_name_check(const struct qpiu_platform *plat,
			enum qpiu_box_kind kind, unsigned int idx)
{
	char name[32];

	qpiu_pmu_name(name, sizeof(name), plat, kind, idx);
	if (!qpiu_pmu_name_taken(name))
		return 0;
	pr_err("%s: a PMU of that name exists already, most likely from intel_uncore, which drives some of these functions. To hand them all to qpi_uncore and keep intel_uncore's other PMUs, run: qpi-uncore-takeover. Or unload intel_uncore (rmmod intel_uncore) or blacklist it, then load qpi_uncore again.\n",
	       name);
	return -EBUSY;
}

/* The PMU for box @idx of @kind, registered on first use. */
struct qpiu_pmu *qpiu_pmu_get(const struct qpiu_platform *plat,
			      enum qpiu_box_kind kind, unsigned int idx)
{
	struct qpiu_pmu *qpmu;
	int ret;

	lockdep_assert_held(&qpiu_reg_mutex);
	if (idx >= QPIU_MAX_BOXES)
		return ERR_PTR(-ERANGE);
	qpmu = qpiu_pmus[kind][idx];
	if (qpmu)
		return qpmu->plat == plat ? qpmu : ERR_PTR(-EXDEV);

	qpmu = kzalloc(sizeof(*qpmu), GFP_KERNEL);
	if (!qpmu)
		return ERR_PTR(-ENOMEM);
	qpmu->plat = plat;
	qpmu->desc = plat->box[kind];
	qpmu->box_ops = kind == QPIU_BOX_SBOX ? &qpiu_sbox_box_ops :
						&qpiu_pci_box_ops;
	qpmu->idx = idx;
	qpmu->idle = qpiu_pmu_idle;
	spin_lock_init(&qpmu->opening_lock);
	INIT_LIST_HEAD(&qpmu->opening);
	qpiu_pmu_name(qpmu->name, sizeof(qpmu->name), plat, kind, idx);
	ret = qpiu_sysfs_init(qpmu, kind) ?:
	      qpiu_pmu_name_check(plat, kind, idx);
	if (ret)
		goto err;

	qpmu->pmu = (struct pmu) {
		.module		= THIS_MODULE,
		.task_ctx_nr	= perf_invalid_context,
		.attr_groups	= qpmu->groups,
	};
	qpiu_pmu_set_callbacks(&qpmu->pmu);
	ret = perf_pmu_register(&qpmu->pmu, qpmu->name, -1);
	if (ret) {
		pr_err("%s: perf_pmu_register failed: %d\n", qpmu->name, ret);
		goto err;
	}
	qpmu->registered = true;
	/* before any box, so before any event that could need it */
	qpiu_foreign_pmu_init(qpmu);
	mutex_lock(&qpiu_mutex);
	qpiu_pmus[kind][idx] = qpmu;
	mutex_unlock(&qpiu_mutex);
	return qpmu;
err:
	qpiu_pmu_free(qpmu);
	return ERR_PTR(ret);
}

static struct qpiu_box *qpiu_box_new(struct qpiu_pmu *qpmu,
				     struct pci_dev *pdev, unsigned int socket,
				     u32 gidnidmap,
				     const struct qpiu_msr_ops *msr)
{
	struct qpiu_box *box;

	lockdep_assert_held(&qpiu_reg_mutex);
	if (socket >= QPIU_MAX_SOCKETS)
		return ERR_PTR(-ERANGE);
	if (rcu_access_pointer(qpmu->boxes[socket]))
		return ERR_PTR(-EEXIST);

	box = kzalloc(sizeof(*box), GFP_KERNEL);
	if (!box)
		return ERR_PTR(-ENOMEM);
	kref_init(&box->ref);
	raw_spin_lock_init(&box->lock);
	box->pmu = qpmu;
	box->ops = qpmu->box_ops;
	box->socket = socket;
	box->pdev = pdev;
	box->fold_ns = qpiu_fold_interval_ns(qpmu->desc);
	if (msr) {
		box->msr = true;
		box->sbox = (struct qpiu_sbox){ .ops = msr, .ctx = box,
						.idx = qpmu->idx };
	}
	if (pdev && qpmu->desc->kind == QPIU_BOX_QPI) {
		box->fn0 = qpiu_cfg_port_fn0(pdev);
		box->rate_code = qpiu_cfg_qpi_rate(box->fn0);
	}
	qpiu_hrtimer_setup(&box->hrtimer, qpiu_box_timer, CLOCK_MONOTONIC,
			   HRTIMER_MODE_REL_HARD);

	/* the reader must not change between reset and publication */
	mutex_lock(&qpiu_mutex);
	if (pdev && qpmu->desc->has_filter)
		box->mm = qpiu_mm_devs[socket][qpmu->idx];
	box->cpu = qpiu_socket_reader(socket);
	qpiu_box_init_hw(box);
	rcu_assign_pointer(qpmu->boxes[socket], box);
	if (box->cpu >= 0)
		cpumask_set_cpu(box->cpu, &qpmu->cpumask);
	if (box->fn0)
		qpiu_link_port_set(socket, qpmu->idx, box->fn0, gidnidmap);
	mutex_unlock(&qpiu_mutex);
	return box;
}

struct qpiu_box *qpiu_pmu_add_box(struct qpiu_pmu *qpmu, struct pci_dev *pdev,
				  unsigned int socket, u32 gidnidmap)
{
	return qpiu_box_new(qpmu, pdev, socket, gidnidmap, NULL);
}

struct qpiu_box *qpiu_pmu_add_msr_box(struct qpiu_pmu *qpmu,
				      unsigned int socket)
{
	return qpiu_box_new(qpmu, NULL, socket, QPIU_NO_GIDNIDMAP,
			    &qpiu_msr_ops);
}

/*
 * A PMU lives while it has boxes or events.  When the last box of a PMU
 * goes (its functions unbound, e.g. handed back to intel_uncore), the PMU
 * retires once its events are gone too, and the name is free for whoever
 * drives those functions next.
 *
 * "Gone" needs care: perf still uses the PMU after an event's destroy()
 * returns (put_ctx() on the PMU's per-CPU context before 6.2,
 * put_pmu_ctx() after, pmu->capabilities, then module_put(pmu->module) last
 * of all), and before 6.15 perf_pmu_unregister() does not wait for that.
 * The one sign that perf is done with every event is the module's
 * reference count: perf takes a reference per event before event_init and
 * drops it after its last use of the PMU.  So a boxless PMU retires when it
 * has no events and the module has no references; until then, it stays
 * registered and boxless (event_init refuses), which costs nothing.
 */
static bool qpiu_perf_done_with_events(void)
{
#ifdef CONFIG_MODULE_UNLOAD
	/* -1 while the module is being unloaded: no event can exist */
	return module_refcount(THIS_MODULE) <= 0;
#else
	/* no reference counts: a PMU that had events stays until reboot */
	return false;
#endif
}

static bool qpiu_pmu_has_boxes(struct qpiu_pmu *qpmu)
{
	unsigned int s;

	for (s = 0; s < QPIU_MAX_SOCKETS; s++)
		if (rcu_access_pointer(qpmu->boxes[s]))
			return true;
	return false;
}

/*
 * perf's multiplexing timer in each per-CPU context of @pmu, stopped for
 * good.  perf_pmu_unregister() frees those contexts and cancels nothing
 * (from 5.10 to 7.3), but the timer may be queued: perf arms it on a CPU
 * where a group does not fit (one that we refuse, for instance), and a
 * write to the PMU's perf_event_mux_interval_ms arms it on every online
 * CPU, for that long.  With no event left it stops itself, but only when
 * it expires, which may be long after the memory is gone.
 *
 * perf arms the timer only while the context's hrtimer_active is clear,
 * under hrtimer_lock, and its handler clears the flag when it stops.  So
 * the flag set, and the timer found neither queued nor running, under
 * that lock, stays so: not even a write to the sysfs file racing this
 * (perf_pmu_unregister() removes the file later) can arm it again.
 */
static void qpiu_pmu_stop_mux_timers(struct pmu *pmu)
{
	struct qpiu_mux_timer mux;
	unsigned long flags;
	bool idle;
	int cpu;

	for_each_possible_cpu(cpu) {
		if (!qpiu_mux_timer(pmu, cpu, &mux))
			continue;
		for (;;) {
			raw_spin_lock_irqsave(mux.lock, flags);
			*mux.active = 1;
			idle = !hrtimer_active(mux.timer);
			raw_spin_unlock_irqrestore(mux.lock, flags);
			if (idle)
				break;
			/* it ran before the flag was set, or runs now */
			hrtimer_cancel(mux.timer);
		}
	}
}

static void qpiu_pmu_retire(struct qpiu_pmu *qpmu)
{
	lockdep_assert_held(&qpiu_reg_mutex);
	mutex_lock(&qpiu_mutex);
	qpiu_pmus[qpmu->desc->kind][qpmu->idx] = NULL;
	mutex_unlock(&qpiu_mutex);
	qpiu_foreign_pmu_exit(qpmu);
	qpiu_pmu_stop_mux_timers(&qpmu->pmu);
	perf_pmu_unregister(&qpmu->pmu);
	qpiu_pmu_free(qpmu);
}

/*
 * Retire every boxless PMU that perf is done with.  Returns true when one
 * has no events left but perf may still be tearing one down (or probing
 * the module's PMUs): look again soon.  While events are open, their last
 * destroy() brings us back through qpiu_pmu_idle().
 */
static bool qpiu_pmus_retire_unused(void)
{
	bool waiting = false, open = false, pending = false, boxes;
	unsigned int k, i;

	lockdep_assert_held(&qpiu_reg_mutex);
	WRITE_ONCE(qpiu_retire_pending, true);
	/*
	 * The flag before the counts: qpiu_pmu_idle() reads it after the last
	 * decrement, so either this sees that event gone or its close sees
	 * the flag and looks again.  Also pairs with smp_mb__after_atomic()
	 * in event_init: a box unpublished before this, or the event counted
	 * before its box is looked up.
	 */
	smp_mb();
	for (k = 0; k < QPIU_NR_BOX_KINDS; k++) {
		for (i = 0; i < QPIU_MAX_BOXES; i++) {
			struct qpiu_pmu *qpmu = qpiu_pmus[k][i];

			if (!qpmu)
				continue;
			boxes = qpiu_pmu_has_boxes(qpmu);
			if (atomic_read(&qpmu->nr_events)) {
				open = true;
				pending |= !boxes;
			} else if (!boxes) {
				if (qpiu_perf_done_with_events())
					qpiu_pmu_retire(qpmu);
				else
					waiting = true;
			}
		}
	}
	/* test builds: a last close now must still retire the PMU */
	if (pending)
		qpiu_test_retire_delay();
	/*
	 * Cleared only when no PMU is boxless with events: a PMU loses its
	 * last box under qpiu_reg_mutex, and its remover calls again.
	 */
	WRITE_ONCE(qpiu_retire_pending, pending || waiting);
	/* while any event is open, its last destroy() calls again */
	return waiting && !open;
}

static void qpiu_retire_fn(struct work_struct *work)
{
	bool again;

	mutex_lock(&qpiu_reg_mutex);
	again = qpiu_pmus_retire_unused();
	mutex_unlock(&qpiu_reg_mutex);
	if (!again) {
		qpiu_retire_delay = 1;
		return;
	}
	/* perf's teardown takes microseconds; back off up to a second */
	queue_delayed_work(qpiu_system_wq, &qpiu_retire_work,
			   qpiu_retire_delay);
	qpiu_retire_delay = min_t(unsigned long, qpiu_retire_delay * 2, HZ);
}

/*
 * The last event of @qpmu is being destroyed, from perf's teardown (any
 * context that may queue work).  perf still holds the module reference
 * that qpiu_perf_done_with_events() waits for, so the retirement, if one
 * is due, is tried from a work item after this returns.
 */
static void qpiu_pmu_idle(struct qpiu_pmu *qpmu)
{
	/*
	 * The decrement before this, then the flag: pairs with smp_mb() in
	 * qpiu_pmus_retire_unused().  The caller's atomic_dec_and_test()
	 * orders fully already; this says so here, on the last close only.
	 */
	smp_mb();
	if (READ_ONCE(qpiu_retire_pending))
		mod_delayed_work(qpiu_system_wq, &qpiu_retire_work, 1);
}

/*
 * The function is going away.  Events that still refer to the box keep their
 * counts and stop counting; the box is freed with the last of them.
 */
void qpiu_pmu_remove_box(struct qpiu_box *box)
{
	struct qpiu_pmu *qpmu = box->pmu;
	unsigned long flags;

	lockdep_assert_held(&qpiu_reg_mutex);
	mutex_lock(&qpiu_mutex);
	RCU_INIT_POINTER(qpmu->boxes[box->socket], NULL);
	if (box->cpu >= 0)
		cpumask_clear_cpu(box->cpu, &qpmu->cpumask);
	if (box->fn0)
		qpiu_link_port_set(box->socket, qpmu->idx, NULL,
				   QPIU_NO_GIDNIDMAP);
	raw_spin_lock_irqsave(&box->lock, flags);
	qpiu_box_detach(box);
	raw_spin_unlock_irqrestore(&box->lock, flags);
	mutex_unlock(&qpiu_mutex);
	/* sysfs reads it under qpiu_mutex only: no one has it now */
	pci_dev_put(box->fn0);
	box->fn0 = NULL;
	hrtimer_cancel(&box->hrtimer);
	qpiu_box_put(box);
	if (qpiu_pmus_retire_unused())
		queue_delayed_work(qpiu_system_wq, &qpiu_retire_work, 1);
}

/*
 * The mask/match function of QPI port @port of @socket arrived (@mm) or
 * left (NULL).  Its registers are unknown until we write them.
 */
int qpiu_pmu_set_mm(unsigned int port, unsigned int socket,
		    struct pci_dev *mm)
{
	struct qpiu_pmu *qpmu;
	struct qpiu_box *box;
	unsigned long flags;

	lockdep_assert_held(&qpiu_reg_mutex);
	if (socket >= QPIU_MAX_SOCKETS || port >= QPIU_MAX_BOXES)
		return -ERANGE;
	if (mm && qpiu_mm_devs[socket][port])
		return -EEXIST;
	mutex_lock(&qpiu_mutex);
	qpiu_mm_devs[socket][port] = mm;
	qpmu = qpiu_pmus[QPIU_BOX_QPI][port];
	box = qpmu ? rcu_dereference_protected(qpmu->boxes[socket], true) : NULL;
	if (box) {
		raw_spin_lock_irqsave(&box->lock, flags);
		box->mm = mm;
		box->filter_known = false;
		if (mm && box->filter_ref)
			qpiu_box_write_filter(box, box->filter[0],
					      box->filter[1]);
		raw_spin_unlock_irqrestore(&box->lock, flags);
	}
	mutex_unlock(&qpiu_mutex);
	return 0;
}

/* Socket @socket is now read by @new_cpu (-1: none) instead of @old_cpu. */
static void qpiu_pmus_set_reader(unsigned int socket, int old_cpu,
				 int new_cpu)
{
	unsigned int k, i;

	lockdep_assert_held(&qpiu_mutex);
	for (k = 0; k < QPIU_NR_BOX_KINDS; k++) {
		for (i = 0; i < QPIU_MAX_BOXES; i++) {
			struct qpiu_pmu *qpmu = qpiu_pmus[k][i];
			struct qpiu_box *box;
			unsigned long flags;

			if (!qpmu)
				continue;
			box = rcu_dereference_protected(qpmu->boxes[socket],
							true);
			if (!box)
				continue;
			raw_spin_lock_irqsave(&box->lock, flags);
			box->cpu = new_cpu;
			raw_spin_unlock_irqrestore(&box->lock, flags);
			if (old_cpu >= 0)
				cpumask_clear_cpu(old_cpu, &qpmu->cpumask);
			if (new_cpu >= 0)
				cpumask_set_cpu(new_cpu, &qpmu->cpumask);
			if (old_cpu < 0 || new_cpu < 0)
				continue;
			perf_pmu_migrate_context(&qpmu->pmu, old_cpu, new_cpu);
			/*
			 * An event whose event_init chose @old_cpu before
			 * box->cpu changed is installed there after this
			 * migration; perf drops it when the CPU goes.
			 */
			if (qpiu_pmu_settle_reader(qpmu, old_cpu))
				perf_pmu_migrate_context(&qpmu->pmu, old_cpu,
							 new_cpu);
		}
	}
	/* test builds: hold the window before perf tears @old_cpu down */
	if (old_cpu >= 0 && new_cpu >= 0)
		qpiu_test_reader_delay();
}

/* Topology sits below the registry: it calls up through these. */
const struct qpiu_topology_ops qpiu_pmus_topology_ops = {
	.reader_changed = qpiu_pmus_set_reader,
};

const char *qpiu_pmus_platform_name(void)
{
	unsigned int k, i;

	lockdep_assert_held(&qpiu_reg_mutex);
	for (k = 0; k < QPIU_NR_BOX_KINDS; k++)
		for (i = 0; i < QPIU_MAX_BOXES; i++)
			if (qpiu_pmus[k][i])
				return qpiu_pmus[k][i]->plat->name;
	return "none";
}

/* Module unload or failed load: no event exists, perf holds no reference. */
void qpiu_pmus_destroy(void)
{
	unsigned int k, i;

	cancel_delayed_work_sync(&qpiu_retire_work);
	mutex_lock(&qpiu_reg_mutex);
	for (k = 0; k < QPIU_NR_BOX_KINDS; k++)
		for (i = 0; i < QPIU_MAX_BOXES; i++)
			if (qpiu_pmus[k][i])
				qpiu_pmu_retire(qpiu_pmus[k][i]);
	mutex_unlock(&qpiu_reg_mutex);
}
