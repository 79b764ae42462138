// SPDX-License-Identifier: GPL-2.0
/*
 * qpisim module init and exit: parameters, and one PCI root bus per
 * simulated socket, on the bus numbers real parts use, over the model.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/pci.h>
#include <linux/slab.h>
#include <linux/topology.h>

#include "qpisim.h"

static char *platform = "snbep";
module_param(platform, charp, 0444);
MODULE_PARM_DESC(platform, "Uncore to model: snbep, ivbep, hswep or bdx");

static uint sockets;
module_param(sockets, uint, 0444);
MODULE_PARM_DESC(sockets, "Sockets to model, 1-8 (default: the number of packages)");

static uint qpi_ports = 2;
module_param(qpi_ports, uint, 0444);
MODULE_PARM_DESC(qpi_ports, "QPI ports per socket (default 2)");

static uint r3qpi_links = 2;
module_param(r3qpi_links, uint, 0444);
MODULE_PARM_DESC(r3qpi_links, "R3QPI links per socket (default 2)");

static uint buses[QSIM_MAX_SOCKETS];
static int nr_buses;
module_param_array(buses, uint, &nr_buses, 0444);
MODULE_PARM_DESC(buses, "Bus number of each socket (default 0x7f,0xff for two sockets)");

static uint node_ids[QSIM_MAX_SOCKETS];
static int nr_node_ids_set;
module_param_array(node_ids, uint, &nr_node_ids_set, 0444);
MODULE_PARM_DESC(node_ids, "UBox node id of each socket (default: the socket number)");

static uint qpi_rate = 5;
module_param(qpi_rate, uint, 0444);
MODULE_PARM_DESC(qpi_rate, "QPI_RATE_STATUS code, 2-7 = 5.6-9.6 GT/s (default 5: 8.0 GT/s)");

static char *hide = "";
module_param(hide, charp, 0444);
MODULE_PARM_DESC(hide, "Functions firmware hides, not created: comma list of qpi, qpi_mm, r3qpi, or pmon for all three");

static bool link_clock;
module_param(link_clock, bool, 0444);
MODULE_PARM_DESC(link_clock, "QPI clockticks advance at the link speed / 8 (also in debugfs)");

static int qpisim_parse_hide(u32 *mask)
{
	char *buf, *p, *tok;
	int ret = 0;

	*mask = 0;
	buf = kstrdup(hide, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	for (p = buf; (tok = strsep(&p, ",")) != NULL;) {
		if (!*tok)
			continue;
		if (!strcmp(tok, "qpi")) {
			*mask |= BIT(QSIM_FN_QPI_PMON);
		} else if (!strcmp(tok, "qpi_mm")) {
			*mask |= BIT(QSIM_FN_QPI_MM);
		} else if (!strcmp(tok, "r3qpi")) {
			*mask |= BIT(QSIM_FN_R3QPI);
		} else if (!strcmp(tok, "pmon")) {
			*mask |= BIT(QSIM_FN_QPI_PMON) | BIT(QSIM_FN_QPI_MM) |
				 BIT(QSIM_FN_R3QPI);
		} else {
			pr_err("hide=%s: '%s' is not qpi, qpi_mm, r3qpi or pmon\n",
			       hide, tok);
			ret = -EINVAL;
			break;
		}
	}
	kfree(buf);
	return ret;
}

static int qpisim_add_bus(struct qpisim *qs, unsigned int s)
{
	struct qsim_socket *sock = &qs->model.sock[s];
	struct resource *busn = &qs->busn[s];
	struct pci_bus *bus;
	LIST_HEAD(resources);

	busn->name = "qpisim";
	busn->start = sock->bus;
	busn->end = sock->bus;
	busn->flags = IORESOURCE_BUS;
	pci_add_resource(&resources, busn);

	qs->sysdata[s].domain = 0;
	qs->sysdata[s].node = NUMA_NO_NODE;

	pci_lock_rescan_remove();
	bus = pci_create_root_bus(NULL, sock->bus, &qpisim_pci_ops,
				  &qs->sysdata[s], &resources);
	if (!bus) {
		pci_unlock_rescan_remove();
		pci_free_resource_list(&resources);
		pr_err("cannot create root bus %04x:%02x for socket %u; is the bus number already in use?\n",
		       0, sock->bus, s);
		return -EBUSY;
	}
	qs->bus[s] = bus;
	pci_scan_child_bus(bus);
	pci_bus_add_devices(bus);
	pci_unlock_rescan_remove();
	return 0;
}

static void qpisim_remove_buses(struct qpisim *qs)
{
	int s;

	for (s = QSIM_MAX_SOCKETS - 1; s >= 0; s--) {
		struct pci_host_bridge *bridge;

		if (!qs->bus[s])
			continue;
		bridge = to_pci_host_bridge(qs->bus[s]->bridge);
		pci_lock_rescan_remove();
		pci_stop_root_bus(qs->bus[s]);
		pci_remove_root_bus(qs->bus[s]);
		pci_unlock_rescan_remove();
		/*
		 * pci_remove_root_bus() only deletes the host bridge device;
		 * the reference pci_create_root_bus() gave us frees it, its
		 * windows and its bus (kmemleak found them otherwise).
		 */
		put_device(&bridge->dev);
		qs->bus[s] = NULL;
	}
}

static int qpisim_config(struct qsim_config *cfg)
{
	unsigned int s;
	int ret;

	memset(cfg, 0, sizeof(*cfg));
	cfg->plat = qsim_platform_find(platform);
	if (!cfg->plat) {
		pr_err("platform=%s: unknown; use snbep, ivbep, hswep or bdx\n",
		       platform);
		return -EINVAL;
	}
	cfg->nr_sockets = sockets ? : min_t(unsigned int,
					     topology_max_packages(),
					     QSIM_MAX_SOCKETS);
	if (sockets > QSIM_MAX_SOCKETS || qpi_ports > QSIM_MAX_PORTS ||
	    r3qpi_links > QSIM_MAX_LINKS || qpi_rate > 7) {
		pr_err("sockets must be 1-%d, qpi_ports 1-%d, r3qpi_links 1-%d, qpi_rate 0-7\n",
		       QSIM_MAX_SOCKETS, QSIM_MAX_PORTS, QSIM_MAX_LINKS);
		return -EINVAL;
	}
	if ((nr_buses && nr_buses != cfg->nr_sockets) ||
	    (nr_node_ids_set && nr_node_ids_set != cfg->nr_sockets)) {
		pr_err("buses and node_ids need one entry per socket (%u)\n",
		       cfg->nr_sockets);
		return -EINVAL;
	}
	cfg->nr_ports = qpi_ports;
	cfg->nr_links = r3qpi_links;
	cfg->qpi_rate = qpi_rate;
	ret = qpisim_parse_hide(&cfg->hide);
	if (ret)
		return ret;
	for (s = 0; s < cfg->nr_sockets; s++) {
		if (buses[s] > 0xff || node_ids[s] > 7) {
			pr_err("socket %u: bus must be 0-0xff and node id 0-7\n",
			       s);
			return -EINVAL;
		}
		cfg->buses[s] = nr_buses ? buses[s] :
				qsim_default_bus(cfg->nr_sockets, s);
		cfg->node_ids[s] = nr_node_ids_set ? node_ids[s] : s;
	}
	return 0;
}

static int __init qpisim_init(void)
{
	char err[QSIM_ERR_LEN];
	struct qsim_config cfg;
	struct qpisim *qs;
	unsigned int s;
	int ret;

	ret = qpisim_config(&cfg);
	if (ret)
		return ret;

	qs = kvzalloc(sizeof(*qs), GFP_KERNEL);
	if (!qs)
		return -ENOMEM;
	raw_spin_lock_init(&qs->lock);
	mutex_init(&qs->hp_lock);
	if (qsim_init(&qs->model, &cfg, err, sizeof(err))) {
		pr_err("%s\n", err);
		kvfree(qs);
		return -EINVAL;
	}
	qpisim = qs;
	qsim_set_link_clock(&qs->model, link_clock);

	for (s = 0; s < qs->model.nr_sockets; s++) {
		ret = qpisim_add_bus(qs, s);
		if (ret)
			goto err_buses;
	}
	ret = qpisim_debugfs_init(qs);
	if (ret)
		goto err_buses;

	pr_info("%s uncore, %u sockets, %u QPI ports and %u R3QPI links each\n",
		qs->model.plat->name, qs->model.nr_sockets, cfg.nr_ports,
		cfg.nr_links);
	return 0;

err_buses:
	qpisim_remove_buses(qs);
	qpisim = NULL;
	kvfree(qs);
	return ret;
}

static void __exit qpisim_exit(void)
{
	struct qpisim *qs = qpisim;

	/* debugfs first: no hot-plug request may race with bus removal. */
	qpisim_debugfs_exit(qs);
	qpisim_remove_buses(qs);
	qpisim = NULL;
	kvfree(qs);
}

module_init(qpisim_init);
module_exit(qpisim_exit);

MODULE_DESCRIPTION("Simulated Intel Xeon uncore QPI/R3QPI PMON PCI functions");
MODULE_AUTHOR("qpi_uncore developers");
MODULE_LICENSE("GPL");
