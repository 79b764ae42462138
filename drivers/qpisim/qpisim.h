/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qpisim's kernel glue: struct qpisim, and the entry points of the glue
 * files (main, debugfs, bus) above the pure model of qpisim_model.h.
 */
#ifndef _QPISIM_H
#define _QPISIM_H

#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/spinlock.h>

#include "qpisim_model.h"

/* What a residency knob's debugfs file changes: state @k of @fn's port. */
struct qpisim_res_knob {
	struct qsim_fn *fn;
	enum qsim_residency k;
};

struct qpisim {
	/*
	 * Config cycles reach us with interrupts off and no PCI lock held
	 * (x86 selects PCI_LOCKLESS_CONFIG), so the model has its own raw
	 * lock; every model call runs under it.
	 */
	raw_spinlock_t lock;
	/* Serialises hot removal and rescans requested through debugfs. */
	struct mutex hp_lock;
	struct qsim model;
	struct pci_sysdata sysdata[QSIM_MAX_SOCKETS];
	struct resource busn[QSIM_MAX_SOCKETS];
	struct pci_bus *bus[QSIM_MAX_SOCKETS];
	struct dentry *debugfs;
	struct qpisim_res_knob res_knob[QSIM_MAX_SOCKETS][QSIM_MAX_PORTS]
				       [QSIM_NR_RES];
};

/*
 * The files, each using only the ones listed after it: main (module init,
 * buses), debugfs (the test interface), bus (config cycles, hot removal),
 * then the pure model of qpisim_model.h: traffic, model, links, platform.
 */

/* qpisim_debugfs.c */
int qpisim_debugfs_init(struct qpisim *qs);
void qpisim_debugfs_exit(struct qpisim *qs);

/* qpisim_bus.c */
extern struct qpisim *qpisim;
extern struct pci_ops qpisim_pci_ops;
int qpisim_set_present(struct qpisim *qs, struct qsim_fn *fn, bool present);
void qpisim_stamp_overflows(struct qsim *model);
void qpisim_advance(struct qpisim *qs);

#endif /* _QPISIM_H */
