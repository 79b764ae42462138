// SPDX-License-Identifier: GPL-2.0
/*
 * qpisim's PCI side: the pci_ops through which every config cycle reaches the
 * model, and hot removal and re-adding of a function through the PCI core.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/pci.h>
#include <linux/sched/clock.h>
#include <linux/timekeeping.h>

#include "qpisim.h"

/*
 * The model's registers are read and written only here, so one grep in
 * drivers/qpisim shows every access:
 *
 *  grep -n 'qsim_cfg_\|ubox_ov' *.c
 *
 * The one exception is ubox_ov, the UBox's overflow status: an MSR on real
 * parts (U_MSR_PMON_GLOBAL_STATUS), not config space, so the model sets it
 * and qpisim_debugfs.c reads and clears it.
 */

/* The one simulated uncore; set by module init before any bus exists. */
struct qpisim *qpisim;

static struct qsim_fn *qpisim_fn(struct pci_bus *bus, unsigned int devfn)
{
	return qsim_find_fn(&qpisim->model, bus->number, devfn);
}

/*
 * Time the batches that carried a counter out of its top bit, so tests can
 * measure how long a driver takes to notice.  local_clock() is what perf
 * stamps samples with by default.  Caller holds the model lock.
 */
void qpisim_stamp_overflows(struct qsim *model)
{
	u64 now = local_clock();
	unsigned int s, i;

	for (s = 0; s < model->nr_sockets; s++) {
		struct qsim_socket *sock = &model->sock[s];

		for (i = 0; i < sock->nr_ports + sock->nr_links; i++) {
			struct qsim_box *box = i < sock->nr_ports ?
					       &sock->qpi[i] :
					       &sock->r3qpi[i - sock->nr_ports];

			if (box->overflows != box->overflows_seen) {
				box->overflows_seen = box->overflows;
				box->last_overflow_ns = now;
			}
		}
	}
}

/*
 * Deliver the traffic that arrived at a rate up to now.  ktime_get_ns(): one
 * clock for every CPU, so the time the model sees, taken under its lock,
 * never goes backwards.  Caller holds the model lock.
 */
void qpisim_advance(struct qpisim *qs)
{
	qsim_advance(&qs->model, ktime_get_ns());
	qpisim_stamp_overflows(&qs->model);
}

static int qpisim_read(struct pci_bus *bus, unsigned int devfn, int where,
		       int size, u32 *val)
{
	struct qsim_fn *fn;
	unsigned long flags;

	if (where < 0 || where + size > PCI_CFG_SPACE_EXP_SIZE)
		return PCIBIOS_BAD_REGISTER_NUMBER;

	raw_spin_lock_irqsave(&qpisim->lock, flags);
	qpisim_advance(qpisim);
	fn = qpisim_fn(bus, devfn);
	if (fn)
		*val = qsim_cfg_read(fn, where, size);
	if (fn && qpisim->model.fast_count)
		qpisim_stamp_overflows(&qpisim->model);
	raw_spin_unlock_irqrestore(&qpisim->lock, flags);

	if (!fn) {
		PCI_SET_ERROR_RESPONSE(val);
		return PCIBIOS_DEVICE_NOT_FOUND;
	}
	return PCIBIOS_SUCCESSFUL;
}

static int qpisim_write(struct pci_bus *bus, unsigned int devfn, int where,
			int size, u32 val)
{
	struct qsim_fn *fn;
	unsigned long flags;

	if (where < 0 || where + size > PCI_CFG_SPACE_EXP_SIZE)
		return PCIBIOS_BAD_REGISTER_NUMBER;

	raw_spin_lock_irqsave(&qpisim->lock, flags);
	qpisim_advance(qpisim);
	fn = qpisim_fn(bus, devfn);
	if (fn)
		qsim_cfg_write(fn, where, size, val);
	if (fn && qpisim->model.fast_count)
		qpisim_stamp_overflows(&qpisim->model);
	raw_spin_unlock_irqrestore(&qpisim->lock, flags);

	return fn ? PCIBIOS_SUCCESSFUL : PCIBIOS_DEVICE_NOT_FOUND;
}

struct pci_ops qpisim_pci_ops = {
	.read = qpisim_read,
	.write = qpisim_write,
};

/*
 * Hot removal goes through the PCI core, so a bound driver sees its remove()
 * callback exactly as on a surprise removal of real hardware; the function
 * only stops answering config cycles once the core is done with it.
 */
int qpisim_set_present(struct qpisim *qs, struct qsim_fn *fn, bool present)
{
	struct pci_bus *bus = qs->bus[fn->sock->id];
	struct pci_dev *pdev;
	unsigned long flags;

	mutex_lock(&qs->hp_lock);
	if (fn->present == present)
		goto out;
	if (present) {
		raw_spin_lock_irqsave(&qs->lock, flags);
		fn->present = true;
		raw_spin_unlock_irqrestore(&qs->lock, flags);
		pci_lock_rescan_remove();
		pci_rescan_bus(bus);
		pci_unlock_rescan_remove();
		goto out;
	}
	pdev = pci_get_slot(bus, fn->devfn);
	if (pdev) {
		pci_stop_and_remove_bus_device_locked(pdev);
		pci_dev_put(pdev);
	}
	raw_spin_lock_irqsave(&qs->lock, flags);
	fn->present = false;
	raw_spin_unlock_irqrestore(&qs->lock, flags);
out:
	mutex_unlock(&qs->hp_lock);
	return 0;
}

