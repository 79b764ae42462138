// SPDX-License-Identifier: GPL-2.0
/*
 * Module init and exit, and the PCI driver: probe and remove of the QPI,
 * R3QPI and mask/match functions, and the word on intel_uncore at load.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/pci.h>

#include "qpi_uncore.h"

static const char *const qpiu_fn_names[] = {
	[QPIU_FN_QPI] = "QPI port",
	[QPIU_FN_R3QPI] = "R3QPI link",
	[QPIU_FN_QPI_MM] = "QPI mask/match of port",
};

#define QPIU_MM_DRVDATA(port, socket)	((port) << 16 | (socket))
#define QPIU_MM_PORT(data)		((data) >> 16)
#define QPIU_MM_SOCKET(data)		((data) & 0xffff)

static int qpiu_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	unsigned long data = id->driver_data;
	const struct qpiu_platform *plat = &qpiu_platforms[QPIU_DEV_PLAT(data)];
	unsigned int kind = QPIU_DEV_KIND(data), idx = QPIU_DEV_IDX(data);
	struct qpiu_pmu *qpmu;
	struct qpiu_box *box;
	u32 gidnidmap;
	int socket;

	socket = qpiu_bus_socket(pdev, plat, &gidnidmap);
	if (socket < 0)
		return socket;

	if (kind == QPIU_FN_QPI_MM) {
		int ret;

		mutex_lock(&qpiu_reg_mutex);
		ret = qpiu_pmu_set_mm(idx, socket, pdev);
		mutex_unlock(&qpiu_reg_mutex);
		if (ret)
			return ret;
		/* drvdata of a mask/match function: its port and socket */
		pci_set_drvdata(pdev, (void *)(uintptr_t)QPIU_MM_DRVDATA(idx, socket));
		return 0;
	}

	mutex_lock(&qpiu_reg_mutex);
	qpmu = qpiu_pmu_get(plat, kind == QPIU_FN_QPI ? QPIU_BOX_QPI :
			    QPIU_BOX_R3QPI, idx);
	if (IS_ERR(qpmu)) {
		if (PTR_ERR(qpmu) == -EXDEV)
			dev_err(&pdev->dev, "%s %u of platform %s, but the PMUs are %s's; mixed platforms cannot happen on real hardware\n",
				qpiu_fn_names[kind], idx, plat->name,
				qpiu_pmus_platform_name());
		mutex_unlock(&qpiu_reg_mutex);
		return PTR_ERR(qpmu);
	}
	box = qpiu_pmu_add_box(qpmu, pdev, socket, gidnidmap);
	mutex_unlock(&qpiu_reg_mutex);
	if (IS_ERR(box)) {
		dev_err(&pdev->dev, "%s %u of socket %d: cannot add to %s (%ld)\n",
			qpiu_fn_names[kind], idx, socket, qpmu->name,
			PTR_ERR(box));
		return PTR_ERR(box);
	}
	pci_set_drvdata(pdev, box);
	dev_info(&pdev->dev, "%s, socket %d\n", qpmu->name, socket);
	return 0;
}

static void qpiu_remove(struct pci_dev *pdev)
{
	const struct pci_device_id *id = pci_match_id(qpiu_pci_ids, pdev);
	void *data = pci_get_drvdata(pdev);

	mutex_lock(&qpiu_reg_mutex);
	if (id && QPIU_DEV_KIND(id->driver_data) == QPIU_FN_QPI_MM)
		qpiu_pmu_set_mm(QPIU_MM_PORT((uintptr_t)data),
				QPIU_MM_SOCKET((uintptr_t)data), NULL);
	else if (data)
		qpiu_pmu_remove_box(data);
	mutex_unlock(&qpiu_reg_mutex);
}

static struct pci_driver qpiu_driver = {
	.name = KBUILD_MODNAME,
	.id_table = qpiu_pci_ids,
	.probe = qpiu_probe,
	.remove = qpiu_remove,
};

/*
 * intel_uncore claims the same functions and PMU names.  Whatever it drives
 * stays with it; qpi_uncore loads anyway and gets the functions when they
 * are handed over (qpi-uncore-takeover), so intel_uncore keeps its other
 * PMUs.  Say so once, in plain words.
 */
static void qpiu_check_conflicts(void)
{
	const struct pci_device_id *id;
	struct pci_dev *pdev = NULL;
	const char *owner = NULL;
	unsigned int busy = 0;

	for (id = qpiu_pci_ids; id->vendor; id++) {
		while ((pdev = pci_get_device(id->vendor, id->device, pdev))) {
			struct device_driver *drv = READ_ONCE(pdev->dev.driver);

			if (!drv)
				continue;
			if (!busy++) {
				owner = drv->owner ? module_name(drv->owner) :
						     "intel_uncore";
				pr_warn("%s is already driven by '%s' (module %s), which registers the same PMU names\n",
					pci_name(pdev), drv->name,
					drv->owner ? module_name(drv->owner) :
						     "built in");
			}
		}
	}
	if (busy)
		pr_warn("%u QPI/R3QPI functions stay with %s for now. To use qpi_uncore and keep %s's other PMUs (CBo, HA, iMC, PCU, UBox), run: qpi-uncore-takeover. Or unload %s (rmmod %s) or blacklist it, as the README says.\n",
			busy, owner, owner, owner, owner);
}

static int __init qpiu_init(void)
{
	int ret;

	qpiu_check_conflicts();
	ret = qpiu_hotplug_init(&qpiu_pmus_topology_ops);
	if (ret)
		return ret;
	ret = pci_register_driver(&qpiu_driver);
	if (ret)
		goto err_hotplug;
	ret = qpiu_sbox_probe();
	if (ret)
		goto err_pci;
	return 0;

err_pci:
	pci_unregister_driver(&qpiu_driver);
	qpiu_pmus_destroy();
err_hotplug:
	qpiu_hotplug_exit();
	return ret;
}

static void __exit qpiu_exit(void)
{
	qpiu_sbox_remove();
	pci_unregister_driver(&qpiu_driver);
	qpiu_pmus_destroy();
	qpiu_hotplug_exit();
	/* no PMU left, so no box timer that uses the sample route's probe */
	qpiu_sample_exit();
}

module_init(qpiu_init);
module_exit(qpiu_exit);

MODULE_DESCRIPTION("Perf PMUs for the Intel Xeon uncore QPI and R3QPI counters");
MODULE_AUTHOR("qpi_uncore developers");
MODULE_LICENSE("GPL");
#ifdef QPIU_VERSION
MODULE_VERSION(QPIU_VERSION);
#endif
