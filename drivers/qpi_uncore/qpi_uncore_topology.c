// SPDX-License-Identifier: GPL-2.0
/*
 * Which socket a PCI bus belongs to, and which CPU reads each socket's
 * boxes as CPUs come and go (told upward through struct qpiu_topology_ops).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpuhotplug.h>
#include <linux/topology.h>

#include "qpi_uncore.h"

/*
 * Serialises PMU registration, boxes coming and going, and reader changes;
 * perf callbacks never take it.
 */
DEFINE_MUTEX(qpiu_mutex);

/* Told, under qpiu_mutex, when a socket's reader changes (the registry). */
static const struct qpiu_topology_ops *qpiu_topology_ops;

/* Reader CPU of each socket, -1 when it has no online CPU; qpiu_mutex. */
static int qpiu_readers[QPIU_MAX_SOCKETS] = {
	[0 ... QPIU_MAX_SOCKETS - 1] = -1
};

/*
 * The logical die id of each socket's CPUs, as the first of them to come
 * online had it; -1 until one has (qpiu_mutex).  E5 and E7 parts have one
 * die a package, so it is the logical package id.
 */
static int qpiu_dies[QPIU_MAX_SOCKETS] = {
	[0 ... QPIU_MAX_SOCKETS - 1] = -1
};

static enum cpuhp_state qpiu_hp_state;

/*
 * Sockets are numbered by physical package id, which is what the UBox
 * GIDNIDMAP group numbers are (shared/reference/registers.md, "Which socket
 * a bus belongs to").
 */
unsigned int qpiu_cpu_socket(unsigned int cpu)
{
	return topology_physical_package_id(cpu);
}

int qpiu_socket_reader(unsigned int socket)
{
	lockdep_assert_held(&qpiu_mutex);
	return socket < QPIU_MAX_SOCKETS ? qpiu_readers[socket] : -1;
}

/*
 * The die number sysfs gives socket @socket (the kernel's UPI mapping
 * numbers dies by logical die id): its CPUs' logical die id.  A socket
 * none of whose CPUs was ever online (a test bed that simulates more
 * sockets than it boots) keeps its socket number.
 */
unsigned int qpiu_socket_die(unsigned int socket)
{
	lockdep_assert_held(&qpiu_mutex);
	if (socket < QPIU_MAX_SOCKETS && qpiu_dies[socket] >= 0)
		return qpiu_dies[socket];
	return socket;
}

/* The socket whose die number is @die, or -ENODEV. */
int qpiu_die_socket(unsigned int die)
{
	unsigned int s;

	lockdep_assert_held(&qpiu_mutex);
	for (s = 0; s < QPIU_MAX_SOCKETS; s++)
		if (qpiu_dies[s] == (int)die)
			return s;
	if (die < QPIU_MAX_SOCKETS && qpiu_dies[die] < 0)
		return die;
	return -ENODEV;
}

/*
 * The group whose node id is this socket's is the socket.  Returns the
 * socket, -ENODEV when @bus has no UBox, -EIO when the UBox does not answer
 * and -ENOENT when its node id is in no group.
 */
static int qpiu_ubox_socket(struct pci_bus *bus,
			    const struct qpiu_platform *plat, u32 *nodeid,
			    u32 *map)
{
	struct pci_dev *ubox = pci_get_slot(bus, plat->ubox_devfn);
	unsigned int g;
	int err;

	if (!ubox)
		return -ENODEV;
	if (ubox->vendor != PCI_VENDOR_ID_INTEL ||
	    ubox->device != plat->ubox_device) {
		pci_dev_put(ubox);
		return -ENODEV;
	}
	err = qpiu_cfg_read(ubox, UBOX_CPUNODEID, nodeid) ||
	      qpiu_cfg_read(ubox, UBOX_GIDNIDMAP, map);
	pci_dev_put(ubox);
	/* Reserved bits set: the function is not answering. */
	if (err || (*nodeid & ~UBOX_CPUNODEID_MASK) ||
	    (*map & ~GENMASK(UBOX_GIDNIDMAP_BITS * UBOX_MAX_GROUPS - 1, 0)))
		return -EIO;
	for (g = 0; g < UBOX_MAX_GROUPS; g++)
		if (((*map >> (UBOX_GIDNIDMAP_BITS * g)) & UBOX_CPUNODEID_MASK) ==
		    (*nodeid & UBOX_CPUNODEID_MASK))
			return g;
	return -ENOENT;
}

/**
 * qpiu_bus_socket() - the socket of the bus a PMON function sits on
 * @pdev: the function
 * @plat: its platform
 * @gidnidmap: the UBox's group to node id map, out
 *
 * From the UBox of the bus; a bus without a UBox belongs to the socket of
 * the nearest UBox bus above it.  The UBox map has room for eight sockets:
 * on larger machines, or when the UBox cannot be read, the NUMA node of the
 * bus decides.  Every fallback is reported.  @gidnidmap gets the UBox's
 * map, which gives the socket of a node id (of QPI peers), or
 * QPIU_NO_GIDNIDMAP when no UBox told the socket.
 *
 * Return: the socket, or a negative errno when nothing tells.
 */
int qpiu_bus_socket(struct pci_dev *pdev, const struct qpiu_platform *plat,
		    u32 *gidnidmap)
{
	struct pci_bus *bus = pdev->bus;
	int domain = pci_domain_nr(bus);
	unsigned int b, cpu;
	u32 nodeid = 0, map = 0;
	int s = -ENODEV, node;

	*gidnidmap = QPIU_NO_GIDNIDMAP;
	if (topology_max_packages() <= UBOX_MAX_GROUPS) {
		s = qpiu_ubox_socket(bus, plat, &nodeid, &map);
		for (b = bus->number + 1; s == -ENODEV && b <= 0xff; b++) {
			struct pci_bus *other = pci_find_bus(domain, b);

			if (!other)
				continue;
			s = qpiu_ubox_socket(other, plat, &nodeid, &map);
			if (s >= 0)
				dev_info(&pdev->dev, "bus %02x has no UBox; using the UBox of bus %02x: socket %d\n",
					 bus->number, b, s);
		}
		if (s >= 0) {
			*gidnidmap = map;
			return s;
		}
	}

	node = pcibus_to_node(bus);
	cpu = node == NUMA_NO_NODE ? nr_cpu_ids :
	      cpumask_first(cpumask_of_node(node));
	if (cpu < nr_cpu_ids) {
		s = qpiu_cpu_socket(cpu);
		dev_warn(&pdev->dev, "socket of bus %02x taken from its NUMA node %d: socket %d\n",
			 bus->number, node, s);
		return s;
	}
	if (s == -EIO || s == -ENOENT)
		dev_err(&pdev->dev, "cannot tell the socket of bus %02x: UBox CPUNODEID=0x%08x GIDNIDMAP=0x%08x %s, and the bus has no NUMA node; not using this box\n",
			bus->number, nodeid, map,
			s == -EIO ? "do not read as a UBox" :
				    "map no group to the node id");
	else
		dev_err(&pdev->dev, "cannot tell the socket of bus %02x: no UBox (%04x at %02x.%u) and no NUMA node; not using this box\n",
			bus->number, plat->ubox_device,
			PCI_SLOT(plat->ubox_devfn), PCI_FUNC(plat->ubox_devfn));
	return -ENODEV;
}

static int qpiu_cpu_online(unsigned int cpu)
{
	unsigned int socket = qpiu_cpu_socket(cpu);

	if (socket >= QPIU_MAX_SOCKETS)
		return 0;
	mutex_lock(&qpiu_mutex);
	if (qpiu_dies[socket] < 0)
		qpiu_dies[socket] = topology_logical_die_id(cpu);
	if (qpiu_readers[socket] < 0) {
		qpiu_readers[socket] = cpu;
		qpiu_topology_ops->reader_changed(socket, -1, cpu);
	}
	mutex_unlock(&qpiu_mutex);
	return 0;
}

/*
 * Runs on the dying CPU before perf tears its contexts down, so the events
 * can still move to another CPU of the socket.  A socket whose last CPU goes
 * has no reader until one comes back; perf drops the events of a CPU that
 * goes offline with nowhere to move them.
 */
static int qpiu_cpu_offline(unsigned int cpu)
{
	unsigned int socket = qpiu_cpu_socket(cpu);
	unsigned int target;

	if (socket >= QPIU_MAX_SOCKETS)
		return 0;
	mutex_lock(&qpiu_mutex);
	if (qpiu_readers[socket] == (int)cpu) {
		target = cpumask_any_but(topology_core_cpumask(cpu), cpu);
		qpiu_readers[socket] = target < nr_cpu_ids ? (int)target : -1;
		qpiu_topology_ops->reader_changed(socket, cpu,
						  qpiu_readers[socket]);
	}
	mutex_unlock(&qpiu_mutex);
	return 0;
}

int qpiu_hotplug_init(const struct qpiu_topology_ops *ops)
{
	int ret;

	qpiu_topology_ops = ops;
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "perf/qpi_uncore:online",
				qpiu_cpu_online, qpiu_cpu_offline);
	if (ret < 0)
		return ret;
	qpiu_hp_state = ret;
	return 0;
}

void qpiu_hotplug_exit(void)
{
	cpuhp_remove_state(qpiu_hp_state);
}
