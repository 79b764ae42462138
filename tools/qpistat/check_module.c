// SPDX-License-Identifier: GPL-2.0
/*
 * --check's binding and module checks: which driver holds the QPI and
 * R3QPI functions, whether qpi_uncore is loaded (and if not, why it would
 * not load), its PMUs, and the foreign writers it counted since.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "check_int.h"

/* The in-tree driver's PCI drivers are named after the platform. */
static bool is_intel(const char *drv)
{
	static const char *const names[] = {
		"intel_uncore", "snbep_uncore", "ivbep_uncore", "hswep_uncore",
		"bdx_uncore",
	};
	unsigned int i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(drv, names[i]))
			return true;
	return false;
}

void check_binding(struct result *r)
{
	int i, n = 0, ours = 0, intel = 0, none = 0, other = 0, reserved = 0;
	char other_name[64] = "";

	ck.module = exists("/sys/module/qpi_uncore");
	ck.intel = exists("/sys/module/intel_uncore");
	for (i = 0; i < ck.nr_fns; i++) {
		struct fn *fn = &ck.fns[i];

		if (fn->kind == K_UBOX)
			continue;
		n++;
		if (!strcmp(fn->driver, "qpi_uncore"))
			ours++;
		else if (is_intel(fn->driver))
			intel++;
		else if (!fn->driver[0])
			none++;
		else {
			other++;
			snprintf(other_name, sizeof(other_name), "%s", fn->driver);
		}
		reserved += !strcmp(fn->override, "qpi_uncore");
	}
	if (!n) {
		r->status = CK_SKIP;
		app(r->saw, "no QPI, R3QPI or mask/match function (see pci)");
		return;
	}
	app(r->saw, "%d functions: qpi_uncore %d, intel_uncore %d, nobody %d",
	    n, ours, intel, none);
	if (other)
		app(r->saw, ", %s %d", other_name, other);
	if (reserved)
		app(r->saw, "; driver_override qpi_uncore on %d", reserved);
	if (ours == n)
		return;
	r->status = CK_FAIL;
	if (intel)
		app(r->todo, "intel_uncore holds them: run qpi-uncore-takeover (or blacklist intel_uncore)");
	else if (other)
		app(r->todo, "unbind %s from them", other_name);
	else if (!ck.module && reserved)
		app(r->todo, "%d %s reserved for qpi_uncore (driver_override), which is not loaded: intel_uncore is locked out of %s; load qpi_uncore (modprobe qpi_uncore, see module) or give %s back to intel_uncore: qpi-uncore-takeover --release",
		    reserved, reserved > 1 ? "functions are" : "function is",
		    reserved > 1 ? "them" : "it", reserved > 1 ? "them" : "it");
	else if (!ck.module)
		app(r->todo, "load the driver: modprobe qpi_uncore");
	else
		app(r->todo, "qpi_uncore is loaded but did not bind them: see dmesg | grep qpi_uncore");
}

/*
 * How the module hands perf its samples: its sample_route parameter, or,
 * from a module too old to say, inferred from what the kernel exports.
 */
static const char *sample_route(char *buf, size_t len)
{
	char path[512], line[512];
	const char *route = NULL;
	bool tp = false;
	FILE *f;

	if (!read_file(buf, len, "/sys/module/qpi_uncore/parameters/sample_route"))
		return buf;
	snprintf(path, sizeof(path), "%s/proc/kallsyms", check_root);
	f = fopen(path, "r");
	if (!f)
		return "unknown (no /proc/kallsyms)";
	while (fgets(line, sizeof(line), f)) {
		if (strstr(line, " __ksymtab_perf_event_overflow\n") ||
		    strstr(line, " __ksymtab_perf_event_overflow\t")) {
			route = "perf_event_overflow";
			break;
		}
		tp |= !!strstr(line, " __ksymtab_perf_tp_event");
	}
	fclose(f);
	if (!route)
		route = tp ? "perf_tp_event" : "none";
	snprintf(buf, len, "%s (inferred from the kernel's exports: this module does not say)",
		 route);
	return buf;
}

/*
 * qpi_uncore counts, per PMU, the episodes in which its own read-back
 * found a control reprogrammed: evidence of a tool that ran before the
 * check, or runs now and then.  intel_uncore has no such file.  In PMU
 * order, QPI ports first.
 */
static void past_episodes_scan(void)
{
	static const char *const kinds[] = { "qpi", "r3qpi" };
	char buf[32];
	unsigned int k, i;
	long n;

	for (k = 0; k < 2; k++) {
		for (i = 0; i < MAX_PORTS; i++) {
			if (read_file(buf, sizeof(buf),
				      "/sys/bus/event_source/devices/uncore_%s_%u/foreign_writes",
				      kinds[k], i))
				continue;
			n = strtol(buf, NULL, 10);
			if (n <= 0)
				continue;
			ck.episodes += n;
			app(ck.episode_pmus, "%suncore_%s_%u %ld",
			    ck.episode_pmus[0] ? ", " : "", kinds[k], i, n);
		}
	}
}

/*
 * Where modprobe finds qpi_uncore for the running kernel (its modules.dep),
 * in @path: false if it is not installed.
 */
static bool installed_ko(char *path, size_t len)
{
	char dep[300], line[1024];
	struct utsname u;
	bool found = false;
	FILE *f;

	if (uname(&u))
		return false;
	snprintf(dep, sizeof(dep), "%s/lib/modules/%.64s/modules.dep",
		 check_root, u.release);
	f = fopen(dep, "r");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':'), *base;

		if (!colon)
			continue;
		*colon = 0;
		base = strrchr(line, '/') ? strrchr(line, '/') + 1 : line;
		if (strcmp(base, "qpi_uncore.ko") && strncmp(base, "qpi_uncore.ko.", 14))
			continue;
		if (line[0] == '/')
			snprintf(path, len, "%s", line);
		else
			snprintf(path, len, "/lib/modules/%.64s/%.900s", u.release, line);
		found = exists("%s", path);
	}
	fclose(f);
	return found;
}

/* The kernel loads only signed modules: module.sig_enforce, or lockdown. */
static bool sig_enforced(void)
{
	char buf[128];

	if (!read_file(buf, sizeof(buf), "/sys/module/module/parameters/sig_enforce") &&
	    buf[0] == 'Y')
		return true;
	return !read_file(buf, sizeof(buf), "/sys/kernel/security/lockdown") &&
	       strchr(buf, '[') && !strstr(buf, "[none]");
}

/* 1 signed, 0 not, -1 cannot tell (compressed, unreadable) */
static int ko_signed(const char *path)
{
	static const char magic[] = "~Module signature appended~\n";
	char full[1200], tail[sizeof(magic)] = "";
	int fd, n = -1;
	off_t end;

	if (strcmp(path + strlen(path) - 3, ".ko"))
		return -1;
	snprintf(full, sizeof(full), "%s%s", check_root, path);
	fd = open(full, O_RDONLY);
	if (fd < 0)
		return -1;
	end = lseek(fd, 0, SEEK_END);
	if (end >= (off_t)sizeof(magic) - 1)
		n = pread(fd, tail, sizeof(magic) - 1, end - (off_t)(sizeof(magic) - 1));
	close(fd);
	if (end >= 0 && end < (off_t)sizeof(magic) - 1)
		return 0;	/* too short to carry a signature */
	if (n != (int)sizeof(magic) - 1)
		return -1;
	return !memcmp(tail, magic, sizeof(magic) - 1);
}

/*
 * qpi_uncore is not loaded: not installed, or installed and refused by the
 * kernel (an unsigned DKMS build under Secure Boot), which leaves the
 * functions with intel_uncore (the udev rule and qpi-uncore-takeover
 * --installed ask the same).
 */
static void why_not_loaded(struct result *r)
{
	char ko[1100];

	if (!installed_ko(ko, sizeof(ko))) {
		app(r->todo, "modprobe qpi_uncore (not installed? make install, or the dkms package)");
		return;
	}
	app(r->saw, "; installed as %s", ko);
	if (sig_enforced() && ko_signed(ko) == 0) {
		app(r->saw, ", not signed, and this kernel loads only signed modules (Secure Boot lockdown or module.sig_enforce): it cannot load, and intel_uncore keeps the functions");
		app(r->todo, "sign it with a key the kernel trusts: enroll DKMS's key (mokutil --import /var/lib/dkms/mok.pub, then reboot to confirm it) and rebuild (dkms autoinstall), or sign it with yours (kmodsign)");
		return;
	}
	app(r->todo, "modprobe qpi_uncore (if it fails, dmesg | tail says why)");
}

void check_module(struct result *r)
{
	char ver[128] = "", name[300], buf[64], route[128];
	struct dirent *de;
	int ours = 0;
	DIR *d;

	snprintf(name, sizeof(name), "%s/sys/bus/event_source/devices", check_root);
	d = opendir(name);
	while (d && (de = readdir(d))) {
		if (strncmp(de->d_name, "uncore_qpi_", 11) &&
		    strncmp(de->d_name, "uncore_r3qpi_", 13))
			continue;
		ck.nr_pmus++;
		/* only qpi_uncore's QPI PMUs have link_speed */
		ours += exists("/sys/bus/event_source/devices/%s/link_speed",
			       de->d_name);
	}
	if (d)
		closedir(d);
	past_episodes_scan();
	/* the cpu verdict said why: loading a module here would not help */
	if (!ck.module && ck.no_qpi) {
		r->status = CK_SKIP;
		app(r->saw, "qpi_uncore is not loaded, and has nothing to drive here (see cpu)");
		return;
	}
	if (!ck.module) {
		r->status = CK_FAIL;
		app(r->saw, "qpi_uncore is not loaded");
		if (ck.intel)
			app(r->saw, "; intel_uncore is, with %d QPI/R3QPI PMUs",
			    ck.nr_pmus);
		why_not_loaded(r);
		return;
	}
	if (read_file(ver, sizeof(ver), "/sys/module/qpi_uncore/version") &&
	    !read_file(buf, sizeof(buf), "/sys/module/qpi_uncore/srcversion"))
		snprintf(ver, sizeof(ver), "srcversion %s", buf);
	app(r->saw, "qpi_uncore loaded, version %s; %d QPI/R3QPI PMUs (%d QPI ports with link_speed); sampling route %s",
	    ver[0] ? ver : "not exposed", ck.nr_pmus, ours,
	    sample_route(route, sizeof(route)));
	if (!ck.nr_pmus) {
		bool fns = false;
		int i;

		for (i = 0; i < ck.nr_fns; i++)
			fns |= ck.fns[i].kind != K_UBOX;
		r->status = CK_FAIL;
		app(r->todo, fns ? "qpi_uncore registered no PMU: see dmesg | grep qpi_uncore" :
		    "qpi_uncore registered no PMU: it has no function to drive (see pci)");
	}
}
