// SPDX-License-Identifier: GPL-2.0
/*
 * --check's cpu check: is this an Intel Xeon with QPI PMON, and which
 * platform; the same verdict for qpistat's own messages (check_cpu_qpi()).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_int.h"

static const struct plat plats[] = {
	{ "SNB-EP", "Xeon E5-2600 (Sandy Bridge-EP)", 45,
	  0x3ce0, { 0x3c41, 0x3c42 }, { 0x3c86, 0x3c96 }, { 0x3c44, 0x3c45 } },
	{ "IVB-EP", "Xeon E5-2600 v2 (Ivy Bridge-EP)", 62,
	  0x0e1e, { 0x0e32, 0x0e33, 0x0e3a }, { 0x0e86, 0x0e96 },
	  { 0x0e36, 0x0e37, 0x0e3e } },
	{ "HSX", "Xeon E5-2600 v3 (Haswell-EP)", 63,
	  0x2f1e, { 0x2f32, 0x2f33, 0x2f3a }, { 0x2f86, 0x2f96 },
	  { 0x2f36, 0x2f37, 0x2f3e } },
	{ "BDX", "Xeon E5-2600 v4 (Broadwell-EP)", 79,
	  0x6f1e, { 0x6f32, 0x6f33, 0x6f3a }, { 0x6f86, 0x6f96, 0x6f46 },
	  { 0x6f36, 0x6f37, 0x6f3e } },
	/* S-Box MSRs, no PCI functions */
	{ "Xeon 7500", "Xeon 7500 (Nehalem-EX)", 46, 0, { 0 }, { 0 }, { 0 } },
};

/* Family 6 models with UPI instead of QPI: Skylake-SP and later. */
static const int upi_models[] = { 85, 106, 108, 143, 173, 174, 207 };

void check_cpu(struct result *r)
{
	char vendor[64] = "", line[4096];
	int family = -1, model = -1, socket = 0, seen[MAX_SOCKETS] = { 0 };
	int models[MAX_SOCKETS], s, nr = 0;
	bool mixed = false;
	unsigned int i;
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/proc/cpuinfo", check_root);
	f = fopen(path, "r");
	if (!f) {
		r->status = CK_FAIL;
		app(r->saw, "cannot read /proc/cpuinfo: %s", strerror(errno));
		app(r->todo, "run on the machine itself, with /proc mounted");
		return;
	}
	/* per processor block: the fields come before "physical id" use */
	while (fgets(line, sizeof(line), f)) {
		char *v = strchr(line, ':');

		if (!v)
			continue;
		v += 2;
		v[strcspn(v, "\n")] = 0;
		if (!strncmp(line, "vendor_id", 9))
			snprintf(vendor, sizeof(vendor), "%s", v);
		else if (!strncmp(line, "cpu family", 10))
			family = atoi(v);
		else if (!strncmp(line, "model\t", 6))
			model = atoi(v);
		else if (!strncmp(line, "physical id", 11))
			socket = atoi(v);
		else if (!strncmp(line, "flags", 5)) {
			if (strstr(v, " hypervisor") || !strncmp(v, "hypervisor", 10))
				ck.hypervisor = true;
			if (socket >= 0 && socket < MAX_SOCKETS && !seen[socket]) {
				seen[socket] = 1;
				models[socket] = model;
				nr++;
			}
			for (s = 0; s < MAX_SOCKETS; s++)
				if (seen[s] && models[s] != model)
					mixed = true;
		}
	}
	fclose(f);
	ck.nr_sockets = nr ? nr : 1;
	app(r->saw, "%s family %d model %d (0x%x) on %d socket%s",
	    vendor, family, model, model > 0 ? model : 0, ck.nr_sockets,
	    ck.nr_sockets > 1 ? "s" : "");
	if (strcmp(vendor, "GenuineIntel") || family != 6) {
		ck.no_qpi = true;
		r->status = CK_FAIL;
		app(r->saw, ": not an Intel Xeon with QPI");
		app(r->todo, "nothing to monitor: QPI exists only on Intel Xeon E5-2600 v1-v4 and Xeon 7500");
		return;
	}
	for (i = 0; i < sizeof(plats) / sizeof(plats[0]); i++)
		if (plats[i].model == model)
			ck.plat = &plats[i];
	for (i = 0; i < sizeof(upi_models) / sizeof(upi_models[0]); i++) {
		if (upi_models[i] != model)
			continue;
		ck.no_qpi = true;
		r->status = CK_FAIL;
		app(r->saw, ": Skylake-SP or later, which has UPI, not QPI");
		app(r->todo, "use intel_uncore's UPI PMUs: perf stat -a -e uncore_upi_0/event=0x1/ (clockticks); qpi_uncore has nothing to drive here");
		return;
	}
	if (!ck.plat) {
		ck.no_qpi = true;
		r->status = CK_FAIL;
		app(r->saw, ": no QPI PMON this tool knows");
		app(r->todo, "supported: SNB-EP (model 45), IVB-EP (62), HSX (63), BDX (79), Xeon 7500 (46)");
		return;
	}
	app(r->saw, ": %s, %s", ck.plat->name, ck.plat->desc);
	if (mixed) {
		r->status = CK_WARN;
		app(r->saw, "; the sockets report different models");
		app(r->todo, "check the CPU population: mixed steppings are unusual");
	}
	if (ck.hypervisor) {
		r->status = CK_WARN;
		app(r->saw, "; under a hypervisor (CPUID hypervisor bit)");
		app(r->todo, "%shypervisors normally do not pass the uncore PCI functions through: run qpistat --check on the host",
		    mixed ? "; " : "");
	}
}

bool check_cpu_qpi(char *why, size_t len)
{
	const struct result *r;

	memset(&ck, 0, sizeof(ck));
	check_cpu(result("cpu"));
	r = &ck.res[0];
	snprintf(why, len, "%s%s%s", r->saw, r->todo[0] ? " => " : "", r->todo);
	return !ck.no_qpi;
}
