// SPDX-License-Identifier: GPL-2.0
/*
 * The registry of PMUs and boxes: a PMU per box index and kind, created
 * with its first box and retired with its last, the boxes of each socket,
 * the ports' mask/match functions, and which CPU reads each socket.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/namei.h>
#include <linux/slab.h>

#include "qpi_uncore.h"
#include "qpi_uncore_compat.h"

static struct qpiu_pmu *qpiu_pmus[QPIU_NR_BOX_KINDS][QPIU_MAX_BOXES];
/* Mask/match functions by socket and port, whichever is probed first. */
static struct pci_dev *qpiu_mm_devs[QPIU_MAX_SOCKETS][QPIU_MAX_BOXES];

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

/* The PMU for box @idx of @kind, registered on first use. */
struct qpiu_pmu *qpiu_pmu_get(const struct qpiu_platform *plat,
			      enum qpiu_box_kind kind, unsigned int idx)
{
	struct qpiu_pmu *qpmu;
	int ret;

	lockdep_assert_held(&qpiu_mutex);
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
	qpmu->idx = idx;
	snprintf(qpmu->name, sizeof(qpmu->name), "uncore_%s_%u",
		 qpmu->desc->name, idx);
	ret = qpiu_sysfs_init(qpmu, kind);
	if (ret)
		goto err;

	if (qpiu_pmu_name_taken(qpmu->name)) {
		pr_err("%s: a PMU of that name exists already, most likely from intel_uncore, which drives some of these functions. To hand them all to qpi_uncore and keep intel_uncore's other PMUs, run: qpi-uncore-takeover. Or unload intel_uncore (rmmod intel_uncore) or blacklist it, then load qpi_uncore again.\n",
		       qpmu->name);
		ret = -EBUSY;
		goto err;
	}

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
	qpiu_pmus[kind][idx] = qpmu;
	return qpmu;
err:
	qpiu_pmu_free(qpmu);
	return ERR_PTR(ret);
}

static struct qpiu_box *qpiu_box_new(struct qpiu_pmu *qpmu,
				     struct pci_dev *pdev, unsigned int socket,
				     const struct qpiu_msr_ops *msr)
{
	struct qpiu_box *box;

	lockdep_assert_held(&qpiu_mutex);
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
	box->socket = socket;
	box->pdev = pdev;
	box->cpu = qpiu_socket_reader(socket);
	box->fold_ns = qpiu_fold_interval_ns(qpmu->desc);
	if (msr) {
		box->msr = true;
		box->sbox = (struct qpiu_sbox){ .ops = msr, .ctx = box,
						.idx = qpmu->idx };
	}
	if (pdev && qpmu->desc->has_filter)
		box->mm = qpiu_mm_devs[socket][qpmu->idx];
	if (pdev && qpmu->desc->kind == QPIU_BOX_QPI)
		box->rate_code = qpiu_cfg_qpi_rate(pdev);
	qpiu_hrtimer_setup(&box->hrtimer, qpiu_box_timer, CLOCK_MONOTONIC,
			   HRTIMER_MODE_REL_HARD);
	qpiu_box_init_hw(box);

	rcu_assign_pointer(qpmu->boxes[socket], box);
	if (box->cpu >= 0)
		cpumask_set_cpu(box->cpu, &qpmu->cpumask);
	return box;
}

struct qpiu_box *qpiu_pmu_add_box(struct qpiu_pmu *qpmu, struct pci_dev *pdev,
				  unsigned int socket)
{
	return qpiu_box_new(qpmu, pdev, socket, NULL);
}

struct qpiu_box *qpiu_pmu_add_msr_box(struct qpiu_pmu *qpmu,
				      unsigned int socket)
{
	return qpiu_box_new(qpmu, NULL, socket, &qpiu_msr_ops);
}

/*
 * A PMU lives while it has boxes or events.  When the last box of an unused
 * PMU goes (its functions unbound, e.g. handed back to intel_uncore), the
 * name is freed for whoever drives those functions next.  With events still
 * open the PMU stays, boxless, until the module goes: perf cannot take a PMU
 * away under live events.
 */
static void qpiu_pmu_retire_if_unused(struct qpiu_pmu *qpmu)
{
	unsigned int s;

	lockdep_assert_held(&qpiu_mutex);
	for (s = 0; s < QPIU_MAX_SOCKETS; s++)
		if (rcu_access_pointer(qpmu->boxes[s]))
			return;
	/* pairs with smp_mb__after_atomic() in qpiu_event_init() */
	smp_mb();
	if (atomic_read(&qpmu->nr_events))
		return;
	perf_pmu_unregister(&qpmu->pmu);
	qpiu_pmus[qpmu->desc->kind][qpmu->idx] = NULL;
	qpiu_pmu_free(qpmu);
}

/*
 * The function is going away.  Events that still refer to the box keep their
 * counts and stop counting; the box is freed with the last of them.
 */
void qpiu_pmu_remove_box(struct qpiu_box *box)
{
	struct qpiu_pmu *qpmu = box->pmu;
	unsigned long flags;

	lockdep_assert_held(&qpiu_mutex);
	RCU_INIT_POINTER(qpmu->boxes[box->socket], NULL);
	if (box->cpu >= 0)
		cpumask_clear_cpu(box->cpu, &qpmu->cpumask);

	raw_spin_lock_irqsave(&box->lock, flags);
	qpiu_box_detach(box);
	raw_spin_unlock_irqrestore(&box->lock, flags);
	hrtimer_cancel(&box->hrtimer);
	qpiu_box_put(box);
	qpiu_pmu_retire_if_unused(qpmu);
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

	lockdep_assert_held(&qpiu_mutex);
	if (socket >= QPIU_MAX_SOCKETS || port >= QPIU_MAX_BOXES)
		return -ERANGE;
	if (mm && qpiu_mm_devs[socket][port])
		return -EEXIST;
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
			if (old_cpu >= 0 && new_cpu >= 0)
				perf_pmu_migrate_context(&qpmu->pmu, old_cpu,
							 new_cpu);
		}
	}
}

/* Topology sits below the registry: it calls up through these. */
const struct qpiu_topology_ops qpiu_pmus_topology_ops = {
	.reader_changed = qpiu_pmus_set_reader,
};

const char *qpiu_pmus_platform_name(void)
{
	unsigned int k, i;

	lockdep_assert_held(&qpiu_mutex);
	for (k = 0; k < QPIU_NR_BOX_KINDS; k++)
		for (i = 0; i < QPIU_MAX_BOXES; i++)
			if (qpiu_pmus[k][i])
				return qpiu_pmus[k][i]->plat->name;
	return "none";
}

void qpiu_pmus_destroy(void)
{
	unsigned int k, i;

	mutex_lock(&qpiu_mutex);
	for (k = 0; k < QPIU_NR_BOX_KINDS; k++) {
		for (i = 0; i < QPIU_MAX_BOXES; i++) {
			struct qpiu_pmu *qpmu = qpiu_pmus[k][i];

			if (!qpmu)
				continue;
			perf_pmu_unregister(&qpmu->pmu);
			qpiu_pmus[k][i] = NULL;
			qpiu_pmu_free(qpmu);
		}
	}
	mutex_unlock(&qpiu_mutex);
}

