// SPDX-License-Identifier: GPL-2.0
/*
 * --check's pci check: the platform's uncore PMON functions on each
 * socket's bus, which socket each bus is, and the functions missing.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_int.h"

#define UBOX_NODEID	0x40
#define UBOX_GIDNIDMAP	0x54

const char *const kind_name[] = {
	"UBox", "QPI port", "QPI mask/match", "R3QPI link",
};

static int bus_index(unsigned int bus)
{
	int i;

	for (i = 0; i < ck.nr_buses; i++)
		if (ck.buses[i] == bus)
			return i;
	if (ck.nr_buses == MAX_BUSES)
		return -1;
	ck.buses[ck.nr_buses] = bus;
	ck.bus_socket[ck.nr_buses] = -1;
	return ck.nr_buses++;
}

static bool classify(const struct plat *p, uint16_t dev, int *kind, int *idx)
{
	int i;

	if (p->ubox && dev == p->ubox) {
		*kind = K_UBOX;
		*idx = 0;
		return true;
	}
	for (i = 0; i < MAX_PORTS; i++) {
		*idx = i;
		if (p->qpi[i] && dev == p->qpi[i])
			*kind = K_QPI;
		else if (p->mm[i] && dev == p->mm[i])
			*kind = K_MM;
		else if (p->r3[i] && dev == p->r3[i])
			*kind = K_R3;
		else
			continue;
		return true;
	}
	return false;
}

static int cmp_fn(const void *a, const void *b)
{
	return strcmp(((const struct fn *)a)->bdf, ((const struct fn *)b)->bdf);
}

static void scan_pci(void)
{
	char path[512], buf[256];
	struct dirent *de;
	DIR *d;
	int i;

	snprintf(path, sizeof(path), "%s/sys/bus/pci/devices", check_root);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d)) && ck.nr_fns < MAX_FNS) {
		struct fn *fn = &ck.fns[ck.nr_fns];
		unsigned int dom, bus, slot, func;
		char link[512];
		ssize_t n;

		if (sscanf(de->d_name, "%x:%x:%x.%x", &dom, &bus, &slot, &func) != 4)
			continue;
		if (read_file(buf, sizeof(buf), "/sys/bus/pci/devices/%s/vendor",
			      de->d_name) || strtoul(buf, NULL, 16) != 0x8086)
			continue;
		if (read_file(buf, sizeof(buf), "/sys/bus/pci/devices/%s/device",
			      de->d_name))
			continue;
		memset(fn, 0, sizeof(*fn));
		fn->device = strtoul(buf, NULL, 16);
		if (!classify(ck.plat, fn->device, &fn->kind, &fn->idx))
			continue;
		snprintf(fn->bdf, sizeof(fn->bdf), "%.15s", de->d_name);
		fn->bus = bus;
		fn->slot = slot;
		fn->func = func;
		snprintf(path, sizeof(path), "%s/sys/bus/pci/devices/%s/driver",
			 check_root, de->d_name);
		n = readlink(path, link, sizeof(link) - 1);
		if (n > 0) {
			link[n] = 0;
			snprintf(fn->driver, sizeof(fn->driver), "%.63s",
				 strrchr(link, '/') ? strrchr(link, '/') + 1 : link);
		}
		if (!read_file(buf, sizeof(buf), "/sys/bus/pci/devices/%s/driver_override",
			       de->d_name) && strcmp(buf, "(null)"))
			snprintf(fn->override, sizeof(fn->override), "%.63s", buf);
		if (bus_index(bus) >= 0)
			ck.nr_fns++;
	}
	closedir(d);
	qsort(ck.fns, ck.nr_fns, sizeof(ck.fns[0]), cmp_fn);

	/* which socket a bus is: the UBox's node id in its GIDNIDMAP */
	for (i = 0; i < ck.nr_fns; i++) {
		uint32_t nid, map;
		int g;

		if (ck.fns[i].kind != K_UBOX ||
		    !cfg_read(ck.fns[i].bdf, UBOX_NODEID, &nid) ||
		    !cfg_read(ck.fns[i].bdf, UBOX_GIDNIDMAP, &map))
			continue;
		/*
		 * The first group that holds the node id, as the kernel
		 * numbers the sockets: the groups a machine does not use
		 * read 0, like node 0's.
		 */
		for (g = 0; g < 8; g++)
			if (((map >> (3 * g)) & 7) == (nid & 7))
				break;
		if (g < 8)
			ck.bus_socket[bus_index(ck.fns[i].bus)] = g;
	}
	/* not root: assume the usual order, socket 0 on the lowest bus */
	for (i = 0; i < ck.nr_buses; i++) {
		int j, below = 0;

		if (ck.bus_socket[i] >= 0)
			continue;
		for (j = 0; j < ck.nr_buses; j++)
			below += ck.buses[j] < ck.buses[i];
		ck.bus_socket[i] = below;
	}
	for (i = 0; i < ck.nr_fns; i++)
		ck.fns[i].socket = ck.bus_socket[bus_index(ck.fns[i].bus)];
	/* report in socket order */
	for (i = 1; i < ck.nr_buses; i++) {
		int j;

		for (j = i; j > 0 && ck.bus_socket[j - 1] > ck.bus_socket[j]; j--) {
			unsigned int b = ck.buses[j];
			int t = ck.bus_socket[j];

			ck.buses[j] = ck.buses[j - 1];
			ck.bus_socket[j] = ck.bus_socket[j - 1];
			ck.buses[j - 1] = b;
			ck.bus_socket[j - 1] = t;
		}
	}
}

static bool have(unsigned int bus, int kind, int idx)
{
	int i;

	for (i = 0; i < ck.nr_fns; i++)
		if (ck.fns[i].bus == bus && ck.fns[i].kind == kind &&
		    ck.fns[i].idx == idx)
			return true;
	return false;
}

void check_pci(struct result *r)
{
	const struct plat *p = ck.plat;
	int b, i, k, missing = 0;

	if (!p) {
		r->status = CK_SKIP;
		app(r->saw, "no QPI platform (see cpu)");
		return;
	}
	if (!p->ubox) {
		r->status = CK_SKIP;
		app(r->saw, "%s: the S-Box PMON is in MSRs, not PCI", p->name);
		return;
	}
	scan_pci();
	if (!ck.nr_buses) {
		r->status = CK_FAIL;
		app(r->saw, "no uncore function of %s (UBox 0x%04x, QPI 0x%04x ...) on any PCI bus",
		    p->name, p->ubox, p->qpi[0]);
		app(r->todo, "the firmware hides the uncore devices%s: look in the BIOS setup for an option that exposes the uncore performance monitoring devices, or ask the vendor",
		    ck.hypervisor ? " or the hypervisor does not pass them through" : "");
		return;
	}
	for (b = 0; b < ck.nr_buses; b++) {
		unsigned int bus = ck.buses[b];
		bool none = true;

		app(r->saw, "%ssocket %d bus %02x:", b ? "; " : "",
		    ck.bus_socket[b], bus);
		for (i = 0; i < ck.nr_fns; i++)
			none &= ck.fns[i].bus != bus || ck.fns[i].kind == K_UBOX;
		if (none)
			app(r->saw, " no PMON function");
		for (k = K_QPI; k <= K_R3; k++) {
			const uint16_t *ids = k == K_QPI ? p->qpi :
					      k == K_MM ? p->mm : p->r3;
			bool any = false;

			for (i = 0; i < MAX_PORTS; i++)
				if (have(bus, k, i)) {
					if (any)
						app(r->saw, ",%d", i);
					else
						app(r->saw, " %s %d", kind_name[k], i);
					any = true;
				}
			/*
			 * Ports and links 0 and 1 exist on every part; a third
			 * only on some, so its absence proves nothing.
			 */
			for (i = 0; i < 2; i++)
				if (ids[i] && !have(bus, k, i)) {
					if (!missing++)
						app(r->todo, "missing:");
					app(r->todo, " %02x:0x%04x (%s %d)", bus,
					    ids[i], kind_name[k], i);
				}
		}
	}
	if (missing) {
		r->status = CK_FAIL;
		app(r->saw, "; %d function%s missing", missing,
		    missing > 1 ? "s" : "");
		app(r->todo, ": the CPU is %s but the firmware hides these PMON functions: look in the BIOS setup for an option that exposes the uncore performance monitoring devices, or ask the vendor",
		    p->name);
	}
}
