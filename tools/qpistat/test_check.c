// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of qpistat --check (check.c) against a fake /sys and
 * /proc: make -C tools/qpistat test, with ASan and UBSan.  Flat KTAP, one
 * line per case.  Counting and the read-back need real PMUs: the guest
 * selftest selftests/qpistat_check.sh covers them.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "check.h"
#include "check_int.h"

static int n, failed;
static char root[64];

static void ok(int cond, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void ok(int cond, const char *fmt, ...)
{
	va_list ap;

	n++;
	if (!cond)
		failed++;
	printf("%sok %d ", cond ? "" : "not ", n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static void sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (system(cmd)) {
		fprintf(stderr, "setup failed: %s\n", cmd);
		exit(1);
	}
}

/* config space of @bdf: 4 KiB of zeros with @where = @val */
static void cfg(const char *bdf, unsigned int where, uint32_t val)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/sys/bus/pci/devices/%s/config", root, bdf);
	f = fopen(path, "r+");
	if (!f) {
		f = fopen(path, "w+");
		if (!f || ftruncate(fileno(f), 4096))
			exit(1);
	}
	fseek(f, where, SEEK_SET);
	fwrite(&val, 4, 1, f);
	fclose(f);
}

#define TX	"TxL_FLITS_G0.DATA"
#define RX	"RxL_FLITS_G0.DATA"

/*
 * --check's symmetry per link with the link map, on a 2-socket SNB-EP
 * (2 ports a socket): each direction of each link, one end's Tx against
 * the far end's Rx; a map that contradicts the counts.
 */
static void links(void)
{
	/* 0 -> 1 on port 0: socket 1 port 0's Rx over-counts by 10 % */
	const struct check_port pt[] = {
		{ 0, 0, 100000, 100000 }, { 0, 1, 50000, 0 },
		{ 1, 0, 100000, 110000 }, { 1, 1, 0, 50000 },
	};
	/* the traffic of 0.0 arrives at 1.0, of 0.1 at 1.1: the map crosses them */
	const struct check_port crossed[] = {
		{ 0, 0, 100000, 0 }, { 0, 1, 50000, 0 },
		{ 1, 0, 0, 100000 }, { 1, 1, 0, 50000 },
	};
	char saw[CHECK_TEXT] = "", todo[CHECK_TEXT] = "", err[256];
	struct linkmap m;
	int v;

	linkmap_parse("0.0=1.0,0.1=1.1", &m, err, sizeof(err));
	v = check_links(pt, 4, &m, 1000, TX, RX, 1500, saw, todo);
	ok(v == CK_WARN && !strcmp(saw,
	   "socket 0 port 0 sent 100000 data flits in 1500 ms (" TX "), its far end socket 1 port 0 received 110000 (" RX "): +10.0% WARN; "
	   "socket 1 port 0 sent 100000 data flits in 1500 ms (" TX "), its far end socket 0 port 0 received 100000 (" RX "): +0.0%; "
	   "socket 0 port 1 sent 50000 data flits in 1500 ms (" TX "), its far end socket 1 port 1 received 50000 (" RX "): +0.0%; "
	   "socket 1 port 1 sent 0 data flits in 1500 ms (" TX "), its far end socket 0 port 1 received 0 (" RX "): below 1000, not compared") &&
	   !strcmp(todo, "the two ends of the links disagree by over 5%: believe the sending end (" TX "): Intel dropped the Rx flit events from the HSX/BDX tables, PCM found incoming QPI traffic over-counted there and TACC found an Rx flit event under-counting on E5 v3, while the Tx events were right"),
	   "links: 2-socket SNB-EP map, 1.0's Rx 10%% over: warn for that direction only, believe Tx");
	if (v != CK_WARN || !strstr(saw, "+10.0% WARN;"))
		printf("# %d %s => %s\n", v, saw, todo);

	saw[0] = todo[0] = 0;
	v = check_links(crossed, 4, &m, 1000, TX, RX, 1500, saw, todo);
	ok(v == CK_PASS && !strcmp(saw,
	   "socket 0 port 0 sent 100000 data flits in 1500 ms (" TX "), its far end socket 1 port 0 received 100000 (" RX "): +0.0%; "
	   "socket 1 port 0 sent 0 data flits in 1500 ms (" TX "), its far end socket 0 port 0 received 0 (" RX "): below 1000, not compared; "
	   "socket 0 port 1 sent 50000 data flits in 1500 ms (" TX "), its far end socket 1 port 1 received 50000 (" RX "): +0.0%; "
	   "socket 1 port 1 sent 0 data flits in 1500 ms (" TX "), its far end socket 0 port 1 received 0 (" RX "): below 1000, not compared") &&
	   !todo[0], "links: the right map, traffic one way: pass, the idle directions not compared");
	saw[0] = todo[0] = 0;
	linkmap_parse("0.0=1.1,0.1=1.0", &m, err, sizeof(err));
	v = check_links(crossed, 4, &m, 1000, TX, RX, 1500, saw, todo);
	ok(v == CK_WARN && !strcmp(saw,
	   "socket 0 port 0 sent 100000 data flits in 1500 ms (" TX "), its far end socket 1 port 1 received 50000 (" RX "): -50.0% WARN, socket 1 port 0 received 100000 (+0.0%): the link map looks wrong; "
	   "socket 1 port 1 sent 0 data flits in 1500 ms (" TX "), its far end socket 0 port 0 received 0 (" RX "): below 1000, not compared; "
	   "socket 0 port 1 sent 50000 data flits in 1500 ms (" TX "), its far end socket 1 port 0 received 100000 (" RX "): +100.0% WARN, socket 1 port 1 received 50000 (+0.0%): the link map looks wrong; "
	   "socket 1 port 0 sent 0 data flits in 1500 ms (" TX "), its far end socket 0 port 1 received 0 (" RX "): below 1000, not compared") &&
	   !strcmp(todo, "the link map looks wrong: socket 0 port 0's traffic arrives at socket 1 port 0, not at socket 1 port 1 (entry 1 '0.0=1.1'); socket 0 port 1's traffic arrives at socket 1 port 1, not at socket 1 port 0 (entry 2 '0.1=1.0'); correct --link-map (the board's wiring)"),
	   "links: a crossed map: warn, the map looks wrong, naming where the traffic arrives");
	if (v != CK_WARN || strstr(todo, "believe"))
		printf("# %d %s => %s\n", v, saw, todo);

	saw[0] = todo[0] = 0;
	v = check_links(crossed, 4, &m, 200000, TX, RX, 1500, saw, todo);
	ok(v == CK_SKIP && !strcmp(todo, "run it again under traffic on the links (at least 200000 data flits each way in the window)"),
	   "links: nothing above the floor: skip, run it under traffic");
}

static void fn(const char *bdf, unsigned int device, const char *driver)
{
	sh("d=%s/sys/bus/pci/devices/%s; mkdir -p $d && echo 0x8086 > $d/vendor && "
	   "echo 0x%04x > $d/device && echo '(null)' > $d/driver_override",
	   root, bdf, device);
	if (driver)
		sh("mkdir -p %s/sys/bus/pci/drivers/%s && ln -sfn ../../../bus/pci/drivers/%s %s/sys/bus/pci/devices/%s/driver",
		   root, driver, driver, root, bdf);
	cfg(bdf, 0, 0x8086 | device << 16);
}

static void cpuinfo(int model, bool hv)
{
	int cpu;
	FILE *f;
	char path[128];

	snprintf(path, sizeof(path), "%s/proc/cpuinfo", root);
	f = fopen(path, "w");
	for (cpu = 0; cpu < 4; cpu++)
		fprintf(f, "processor\t: %d\nvendor_id\t: GenuineIntel\ncpu family\t: 6\n"
			"model\t\t: %d\nmodel name\t: Test\nphysical id\t: %d\n"
			"flags\t\t: fpu pae%s\n\n", cpu, model, cpu / 2,
			hv ? " hypervisor" : "");
	fclose(f);
}

/* A two-socket IVB-EP whose six PMON functions per socket qpi_uncore drives. */
static void machine(void)
{
	static const unsigned int bus[2] = { 0x7f, 0xff };
	int s;

	sh("rm -rf %s && mkdir -p %s/proc %s/sys/module/qpi_uncore %s/sys/bus/event_source/devices",
	   root, root, root, root);
	cpuinfo(62, false);
	/* PMUs without a type: nothing to open, counting is skipped */
	sh("cd %s/sys/bus/event_source/devices && mkdir uncore_qpi_0 uncore_qpi_1 uncore_r3qpi_0 uncore_r3qpi_1 && "
	   "touch uncore_qpi_0/link_speed uncore_qpi_1/link_speed", root);
	sh("printf 'ffffffff T __ksymtab_perf_tp_event\\n' > %s/proc/kallsyms", root);
	for (s = 0; s < 2; s++) {
		char b[32];

		snprintf(b, sizeof(b), "0000:%02x:0b.0", bus[s]);
		fn(b, 0x0e1e, NULL);
		cfg(b, 0x40, s);
		cfg(b, 0x54, 0x00fac688);	/* groups 0-7: nodes 0-7 */
		snprintf(b, sizeof(b), "0000:%02x:08.0", bus[s]);
		fn(b, 0x0e80, NULL);
		cfg(b, 0xd4, 5);
		snprintf(b, sizeof(b), "0000:%02x:09.0", bus[s]);
		fn(b, 0x0e90, NULL);
		cfg(b, 0xd4, 5);
		snprintf(b, sizeof(b), "0000:%02x:08.2", bus[s]);
		fn(b, 0x0e32, "qpi_uncore");
		snprintf(b, sizeof(b), "0000:%02x:09.2", bus[s]);
		fn(b, 0x0e33, "qpi_uncore");
		snprintf(b, sizeof(b), "0000:%02x:08.6", bus[s]);
		fn(b, 0x0e86, "qpi_uncore");
		snprintf(b, sizeof(b), "0000:%02x:09.6", bus[s]);
		fn(b, 0x0e96, "qpi_uncore");
		snprintf(b, sizeof(b), "0000:%02x:13.5", bus[s]);
		fn(b, 0x0e36, "qpi_uncore");
		snprintf(b, sizeof(b), "0000:%02x:13.6", bus[s]);
		fn(b, 0x0e37, "qpi_uncore");
	}
}

static char out[16384];
static int rc;

static void run(bool json)
{
	FILE *f = fmemopen(out, sizeof(out) - 1, "w");

	memset(out, 0, sizeof(out));
	rc = check_run(f, json, 10);
	fclose(f);
}

/* the line of check @name */
static const char *line(const char *name)
{
	static char buf[4096];
	char key[32];
	const char *p;

	snprintf(key, sizeof(key), " %-8s ", name);
	for (p = out; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		const char *e = strchr(p, '\n');

		if (strncmp(p + 4, key, strlen(key)))
			continue;
		snprintf(buf, sizeof(buf), "%.*s", e ? (int)(e - p) : (int)strlen(p), p);
		return buf;
	}
	return "";
}

static void has(const char *name, const char *status, const char *text)
{
	const char *l = line(name);

	ok(!strncmp(l, status, 4) && strstr(l, text), "%s %s '%s' (got: %s)",
	   name, status, text, l);
}

/*
 * The silicon's map as qpi_uncore publishes it, in the fake machine's
 * sysfs: the ports (cpumask, CPU 0 on socket 0, CPU 2 on socket 1), their
 * far ends (uncore_qpi_P/dieS; empty: the driver's ENODATA) and link
 * states.  The map verdict, the link verdict, and --link-map against it.
 */
static void die(int s, int p, const char *peer, const char *state)
{
	sh("d=%s/sys/bus/event_source/devices/uncore_qpi_%d; mkdir -p $d/link && "
	   "printf '%s' > $d/die%d && printf '%s' > $d/link/die%d", root, p, peer, s, state, s);
}

static void silicon_map(void)
{
	static struct linkmap m;
	char err[256];
	int c;

	run(false);
	has("map", "skip", "no uncore_qpi_* PMU (see module)");
	for (c = 0; c < 4; c++)
		sh("d=%s/sys/devices/system/cpu/cpu%d/topology; mkdir -p $d && echo %d > $d/physical_package_id",
		   root, c, c / 2);
	sh("cd %s/sys/bus/event_source/devices && echo 0,2 > uncore_qpi_0/cpumask && echo 0,2 > uncore_qpi_1/cpumask",
	   root);
	run(false);
	has("map", "skip", "qpi_uncore publishes no link map (no uncore_qpi_*/die* files: intel_uncore or an older qpi_uncore) => per-link symmetry and HSX/BDX's per-port receive need one");
	has("link", "pass", "socket 1 port 1: up, 8.0 GT/s");
	ok(!strstr(line("link"), "normal operation"), "no link files: the link check as before");

	die(0, 0, "qpi_0,die_1\\n", "normal_operation\\n");
	die(1, 0, "qpi_0,die_0\\n", "normal_operation\\n");
	die(0, 1, "qpi_1,die_1\\n", "normal_operation\\n");
	die(1, 1, "qpi_1,die_0\\n", "normal_operation\\n");
	run(false);
	ok(rc == 0, "the silicon's map: exit 0 (%d)", rc);
	has("map", "pass", "the silicon's (qpi_uncore's uncore_qpi_*/die* files): 0.0=1.0, 0.1=1.1");
	has("link", "pass", "socket 1 port 1: up, 8.0 GT/s; 4 ports in normal operation");

	/* link 0.1=1.1 down */
	die(0, 1, "", "link_abort not_normal_operation\\n");
	die(1, 1, "", "parameter_exchange no_peer_parameters\\n");
	run(false);
	ok(rc == 0, "a link out of normal operation: a warning, exit 0 (%d)", rc);
	has("map", "pass", "the silicon's (qpi_uncore's uncore_qpi_*/die* files): 0.0=1.0");
	ok(!strstr(line("map"), "0.1=1.1"), "the down link is not in the map");
	has("link", "warn", "socket 0 port 1: not in normal operation (link_abort); socket 1 port 1: not in normal operation (parameter_exchange) => ");
	has("link", "warn", "a link not in normal operation carries nothing");

	/* --link-map naming it, and the other link crossed */
	linkmap_parse("0.0=1.1,0.1=1.0", &m, err, sizeof(err));
	ck_given = &m;
	run(false);
	ck_given = NULL;
	has("map", "warn", "--link-map entry 1 '0.0=1.1': the silicon links socket 0 port 0 to socket 1 port 0, socket 1 port 1 to nothing (parameter_exchange, no_peer_parameters); entry 2 '0.1=1.0': the silicon links socket 0 port 1 to nothing (link_abort, not_normal_operation), socket 1 port 0 to socket 0 port 0 => --link-map overrides the silicon's map: correct it, or drop it to use the silicon's");
	linkmap_parse("0.0=1.0", &m, err, sizeof(err));
	ck_given = &m;
	run(false);
	ck_given = NULL;
	has("map", "pass", "--link-map agrees with the silicon's: 0.0=1.0");

	/* in normal operation, but the two ends disagree */
	die(0, 1, "", "normal_operation peer_disagrees\\n");
	die(1, 1, "qpi_0,die_0\\n", "normal_operation\\n");
	run(false);
	has("map", "warn", "0.0=1.0; socket 0 port 1: in normal operation, no far end (peer_disagrees) => the link layer's parameters of 1 port in normal operation do not check out");
	has("link", "pass", "4 ports in normal operation");
	sh("rm -rf %s/sys/bus/event_source/devices/uncore_qpi_*/die* %s/sys/bus/event_source/devices/uncore_qpi_*/link "
	   "%s/sys/bus/event_source/devices/uncore_qpi_*/cpumask", root, root, root);
}

int main(void)
{
	static char *bad_window[] = { "qpistat", "--check", "--window", "5", NULL };
	static char *extra[] = { "qpistat", "--check", "extra", NULL };
	uint32_t ctl[4], seen;

	printf("KTAP version 1\n");
	snprintf(root, sizeof(root), "/tmp/qpistat-check-XXXXXX");
	if (!mkdtemp(root))
		return 1;
	check_root = root;

	/* the pure verdicts */
	ok(check_rate_gts(0) == 0 && check_rate_gts(1) == 0, "codes 0, 1: no speed");
	ok(check_rate_gts(2) == 5.6 && check_rate_gts(5) == 8.0 &&
	   check_rate_gts(7) == 9.6, "codes 2, 5, 7: 5.6, 8.0, 9.6 GT/s");
	ok(check_link_hz(8.0) == 1e9 && check_link_hz(6.4) == 8e8,
	   "link clock: GT/s / 8");
	ok(check_rate(1e9, 8.0, false) == CK_PASS, "rate as the speed implies: pass");
	ok(check_rate(0, 8.0, false) == CK_FAIL, "zero on a link that is up: fail");
	ok(check_rate(0, 0, true) == CK_WARN, "zero on a link that is down: warn");
	ok(check_rate(1.2e9, 8.0, false) == CK_FAIL, "faster than the link: fail");
	ok(check_rate(5e8, 8.0, false) == CK_WARN, "half the rate: warn");
	ok(check_rate(1e9, 0, false) == CK_WARN, "speed unknown: warn");
	memcpy(ctl, (uint32_t[]){ 0, 0x400014, 0, 0 }, sizeof(ctl));
	ok(check_ctls(ctl, 4, 0x400014, &seen) == CTLS_OK, "ctl read back as written");
	{
		const double quiet[3] = { 0.1, 0.0, -1 }, half[3] = { 0.5, 0.0, 0.0 };
		const double l0p[3] = { 0.0, 0.51, -1 }, l1[3] = { 0.0, 0.0, 0.9 };

		ok(check_health(0, quiet, 3, true) == CK_PASS,
		   "health: no CRC errors, 10%% L0p under traffic: pass");
		ok(check_health(1, quiet, 3, false) == CK_WARN,
		   "health: one CRC error in normal operation, idle: warn");
		ok(check_health(0, half, 3, true) == CK_PASS,
		   "health: L0p exactly half the cycles: pass (most means more)");
		ok(check_health(0, l0p, 3, true) == CK_WARN,
		   "health: Rx L0p 51%% under traffic: warn");
		ok(check_health(0, l1, 3, true) == CK_WARN,
		   "health: L1 90%% under traffic: warn");
		ok(check_health(0, l1, 3, false) == CK_PASS,
		   "health: L1 90%% while idle: pass (power saving)");
	}
	{
		double gap;

		int v = check_symmetry(100000, 105000, 1000, &gap);

		ok(v == CK_PASS && gap == 0.05, "symmetry: 5%% apart: pass (%.3f)", gap);
		ok(check_symmetry(100000, 105001, 1000, &gap) == CK_WARN,
		   "symmetry: Rx over-counts by just over 5%%: warn");
		v = check_symmetry(100000, 90000, 1000, &gap);
		ok(v == CK_WARN && gap == -0.1, "symmetry: Rx under-counts by 10%%: warn (%.3f)", gap);
		ok(check_symmetry(999, 500, 1000, &gap) == CK_SKIP,
		   "symmetry: below the floor: skip");
		ok(check_symmetry(0, 5000, 1000, &gap) == CK_WARN,
		   "symmetry: received without a sender: warn");
	}
	links();
	{
		/* nothing sent, 30904482 received: no percentage, the fact */
		const struct check_port pt[] = {
			{ 0, 0, 0, 0 }, { 1, 0, 0, 30904482 },
		};
		char saw[CHECK_TEXT] = "", todo[CHECK_TEXT] = "", err[256];
		struct linkmap m;
		int v;

		linkmap_parse("0.0=1.0", &m, err, sizeof(err));
		v = check_links(pt, 2, &m, 1000, TX, RX, 200, saw, todo);
		ok(v == CK_WARN && !strcmp(saw,
		   "socket 0 port 0 sent 0 data flits in 200 ms (" TX "), its far end socket 1 port 0 received 30904482 (" RX "): arrived with none sent WARN; "
		   "socket 1 port 0 sent 0 data flits in 200 ms (" TX "), its far end socket 0 port 0 received 0 (" RX "): below 1000, not compared"),
		   "symmetry: 30904482 flits received, none sent: 'arrived with none sent WARN', not +0.0%% (%s)",
		   saw);
	}
	{
		int cpus[4], n;

		n = check_cpulist("0-1,4\n", cpus, 4);
		ok(n == 3 && cpus[0] == 0 && cpus[1] == 1 && cpus[2] == 4,
		   "cpulist: 0-1,4 is 0 1 4 (%d)", n);
		ok(check_cpulist("2-7", cpus, 4) == 4 && cpus[3] == 5,
		   "cpulist: at most the room given");
		ok(check_cpulist("\n", cpus, 4) == 0, "cpulist: empty");
	}
	memcpy(ctl, (uint32_t[]){ 0x500014, 0, 0, 0 }, sizeof(ctl));
	ok(check_ctls(ctl, 4, 0x400014, &seen) == CTLS_OK, "ov_en does not matter");
	memcpy(ctl, (uint32_t[]){ 0, 0, 0, 0 }, sizeof(ctl));
	ok(check_ctls(ctl, 4, 0x400014, &seen) == CTLS_ZERO, "all zero: writes ignored");
	memcpy(ctl, (uint32_t[]){ 0, 0x400200, 0x15, 0 }, sizeof(ctl));
	ok(check_ctls(ctl, 4, 0x400014, &seen) == CTLS_FOREIGN && seen == 0x400200,
	   "another event enabled: foreign, names it");
	memcpy(ctl, (uint32_t[]){ 0x14, 0, 0, 0 }, sizeof(ctl));
	ok(check_ctls(ctl, 4, 0x400014, &seen) == CTLS_PAUSED,
	   "ours with en clear: paused, look again");
	memcpy(ctl, (uint32_t[]){ 0x400200, 0x120014, 0, 0 }, sizeof(ctl));
	ok(check_ctls(ctl, 4, 0x400014, &seen) == CTLS_PAUSED,
	   "paused (rst, ov_en aside) beside another enabled one: look again");
	memcpy(ctl, (uint32_t[]){ 0x400200, 0x14, 0x400014, 0 }, sizeof(ctl));
	ok(check_ctls(ctl, 4, 0x400014, &seen) == CTLS_OK, "one running: ok");

	/* the fake machine */
	machine();
	run(false);
	ok(rc == 0, "healthy: exit 0 (%d)", rc);
	has("cpu", "pass", "GenuineIntel family 6 model 62 (0x3e) on 2 sockets: IVB-EP, Xeon E5-2600 v2 (Ivy Bridge-EP)");
	has("pci", "pass", "socket 0 bus 7f: QPI port 0,1 QPI mask/match 0,1 R3QPI link 0,1; socket 1 bus ff: QPI port 0,1 QPI mask/match 0,1 R3QPI link 0,1");
	has("binding", "pass", "12 functions: qpi_uncore 12, intel_uncore 0, nobody 0");
	has("module", "pass", "version not exposed; 4 QPI/R3QPI PMUs (2 QPI ports with link_speed)");
	has("module", "pass", "sampling route perf_tp_event (inferred from the kernel's exports: this module does not say)");
	has("link", "pass", "socket 0 port 0: up, 8.0 GT/s; socket 0 port 1: up, 8.0 GT/s; socket 1 port 0: up, 8.0 GT/s; socket 1 port 1: up, 8.0 GT/s");
	has("counting", "skip", "no uncore_qpi_* PMU to count on");

	/* a module that says its version and route is believed */
	sh("mkdir -p %s/sys/module/qpi_uncore/parameters && echo 0.1 > %s/sys/module/qpi_uncore/version && echo none > %s/sys/module/qpi_uncore/parameters/sample_route",
	   root, root, root);
	run(false);
	has("module", "pass", "qpi_uncore loaded, version 0.1; 4 QPI/R3QPI PMUs (2 QPI ports with link_speed); sampling route none");
	sh("rm -rf %s/sys/module/qpi_uncore/parameters %s/sys/module/qpi_uncore/version",
	   root, root);

	/* no event counts here (no PMU type): foreign is skip, or warn */
	has("foreign", "skip", "no event counting (see counting)");
	ok(!strstr(line("foreign"), "since it loaded"), "no episodes: not mentioned");
	sh("cd %s/sys/bus/event_source/devices && echo 0 > uncore_qpi_0/foreign_writes && "
	   "echo 2 > uncore_qpi_1/foreign_writes && echo 0 > uncore_r3qpi_0/foreign_writes && "
	   "echo 1 > uncore_r3qpi_1/foreign_writes", root);
	run(false);
	has("foreign", "warn", "since it loaded, qpi_uncore found another writer 3 times (foreign_writes: uncore_qpi_1 2, uncore_r3qpi_1 1)");
	has("foreign", "warn", "uncore_qpi_1 2");
	has("foreign", "warn", "uncore_r3qpi_1 1");
	has("foreign", "warn", "=> another tool reprogrammed the counters earlier (dmesg | grep 'another tool' says when and which)");
	ok(!strstr(line("foreign"), "uncore_qpi_0 0"), "PMUs with none not listed");
	ok(rc == 0, "a warning only: exit 0 (%d)", rc);
	sh("cd %s/sys/bus/event_source/devices && echo 0 > uncore_qpi_1/foreign_writes", root);
	run(false);
	has("foreign", "warn", "found another writer 1 time (foreign_writes: uncore_r3qpi_1 1)");
	sh("rm %s/sys/bus/event_source/devices/uncore_*/foreign_writes", root);

	/* the UBox decides the socket: swap the node ids */
	cfg("0000:7f:0b.0", 0x40, 1);
	cfg("0000:ff:0b.0", 0x40, 0);
	run(false);
	has("pci", "pass", "socket 0 bus ff: QPI port 0,1");
	has("pci", "pass", "socket 1 bus 7f: QPI port 0,1");
	cfg("0000:7f:0b.0", 0x40, 0);
	cfg("0000:ff:0b.0", 0x40, 1);

	/*
	 * The groups a machine does not use read 0, like node 0's: socket 0
	 * is the first group with its node id, not the last (was "socket 7",
	 * and its link speed then unknown).
	 */
	cfg("0000:7f:0b.0", 0x54, 0x8);	/* groups 0, 1: nodes 0, 1; 2-7: 0 */
	cfg("0000:ff:0b.0", 0x54, 0x8);
	run(false);
	has("pci", "pass", "socket 0 bus 7f: QPI port 0,1 QPI mask/match 0,1 R3QPI link 0,1; socket 1 bus ff:");
	has("link", "pass", "socket 0 port 0: up, 8.0 GT/s; socket 0 port 1: up, 8.0 GT/s; socket 1 port 0: up");
	cfg("0000:7f:0b.0", 0x54, 0x00fac688);
	cfg("0000:ff:0b.0", 0x54, 0x00fac688);

	cpuinfo(62, true);
	run(false);
	ok(rc == 0, "hypervisor: a warning, exit 0 (%d)", rc);
	has("cpu", "warn", "under a hypervisor (CPUID hypervisor bit) => hypervisors normally do not pass the uncore PCI functions through");

	cpuinfo(85, false);
	run(false);
	ok(rc == 1, "Skylake-SP: exit 1 (%d)", rc);
	has("cpu", "fail", "model 85 (0x55) on 2 sockets: Skylake-SP or later, which has UPI, not QPI => use intel_uncore's UPI PMUs");
	has("pci", "skip", "no QPI platform (see cpu)");
	/* its own reason, not HSX/BDX's "only the sending end is counted" */
	ok(!strcmp(line("symmetry"), "skip symmetry no QPI platform (see cpu)"),
	   "Skylake-SP: %s", line("symmetry"));

	/* Xeon 7500: qpi_uncore's S-Box, which qpistat does not read */
	cpuinfo(46, false);
	run(false);
	ok(rc == 1, "Xeon 7500: exit 1 (%d)", rc);
	ok(!strcmp(line("cpu"), "fail cpu      GenuineIntel family 6 model 46 (0x2e) on 2 sockets: Xeon 7500 or E7 (Nehalem-EX, Westmere-EX), whose QPI links qpi_uncore counts in the S-Box PMUs uncore_sbox_0 and uncore_sbox_1, which qpistat does not read => count them with perf: perf list | grep uncore_sbox (Documentation/qpi_uncore.rst, \"Xeon 7500 S-Box\"); qpistat supports SNB-EP (model 45), IVB-EP (62), HSX (63), BDX (79)"),
	   "Xeon 7500: cpu fails, pointing at perf and the S-Box PMUs, not supported by qpistat (%s)",
	   line("cpu"));
	has("pci", "skip", "no QPI platform (see cpu)");
	has("symmetry", "skip", "no QPI platform (see cpu)");
	cpuinfo(44, false);
	run(false);
	ok(!strcmp(line("cpu"), "fail cpu      GenuineIntel family 6 model 44 (0x2c) on 2 sockets: no QPI PMON this tool knows => supported: SNB-EP (model 45), IVB-EP (62), HSX (63), BDX (79)"),
	   "an unknown model: the supported list has no Xeon 7500 (%s)", line("cpu"));
	cpuinfo(62, false);

	cfg("0000:ff:09.0", 0xd4, 0);
	run(false);
	ok(rc == 0, "one port down: exit 0 (%d)", rc);
	has("link", "warn", "socket 1 port 1: down (QPI_RATE_STATUS code 0)");
	cfg("0000:ff:08.0", 0xd4, 1);
	run(false);
	ok(rc == 1, "a socket cut off: exit 1 (%d)", rc);
	has("link", "fail", "every port of socket 1 is down although the machine has 2 sockets");
	cfg("0000:ff:08.0", 0xd4, 5);
	cfg("0000:ff:09.0", 0xd4, 5);
	silicon_map();

	sh("for f in 7f:08.2 ff:13.6; do ln -sfn ../../../bus/pci/drivers/ivbep_uncore %s/sys/bus/pci/devices/0000:$f/driver; done", root);
	sh("echo qpi_uncore > %s/sys/bus/pci/devices/0000:7f:09.2/driver_override", root);
	run(false);
	ok(rc == 1, "intel_uncore holds two: exit 1 (%d)", rc);
	has("binding", "fail", "12 functions: qpi_uncore 10, intel_uncore 2, nobody 0; driver_override qpi_uncore on 1 => intel_uncore holds them: run qpi-uncore-takeover");

	sh("rm -rf %s/sys/module/qpi_uncore %s/sys/bus/pci/devices/*/driver", root, root);
	run(false);
	has("binding", "fail", "nobody 12; driver_override qpi_uncore on 1 => 1 function is reserved for qpi_uncore (driver_override), which is not loaded: intel_uncore is locked out of it;");
	has("module", "fail", "qpi_uncore is not loaded => modprobe qpi_uncore (not installed?");

	/* reserved for a qpi_uncore that is not there: intel_uncore locked out */
	sh("for d in %s/sys/bus/pci/devices/*; do [ -e $d/driver_override ] && "
	   "[ \"$(cat $d/device)\" != 0x0e1e ] && [ \"$(cat $d/device)\" != 0x0e80 ] && "
	   "[ \"$(cat $d/device)\" != 0x0e90 ] && echo qpi_uncore > $d/driver_override; done", root);
	run(false);
	has("binding", "fail", "nobody 12; driver_override qpi_uncore on 12 => 12 functions are reserved for qpi_uncore (driver_override), which is not loaded: intel_uncore is locked out of them; load qpi_uncore (modprobe qpi_uncore, see module) or give them back to intel_uncore: qpi-uncore-takeover --release");

	/*
	 * Installed but refused by the kernel: an unsigned DKMS build where
	 * only signed modules load (Secure Boot lockdown, sig_enforce).
	 */
	{
		struct utsname u;

		uname(&u);
		sh("d=%s/lib/modules/%s; mkdir -p $d/updates/dkms && printf 'ELF' > $d/updates/dkms/qpi_uncore.ko && "
		   "echo 'updates/dkms/qpi_uncore.ko: kernel/x.ko' > $d/modules.dep && "
		   "mkdir -p %s/sys/module/module/parameters %s/sys/kernel/security && "
		   "echo Y > %s/sys/module/module/parameters/sig_enforce",
		   root, u.release, root, root, root);
		run(false);
		has("module", "fail", "qpi_uncore is not loaded; installed as /lib/modules/");
		has("module", "fail", "/updates/dkms/qpi_uncore.ko, not signed, and this kernel loads only signed modules (Secure Boot lockdown or module.sig_enforce): it cannot load, and intel_uncore keeps the functions => sign it with a key the kernel trusts: enroll DKMS's key (mokutil --import /var/lib/dkms/mok.pub");
		sh("echo N > %s/sys/module/module/parameters/sig_enforce && "
		   "echo 'none [integrity] confidentiality' > %s/sys/kernel/security/lockdown", root, root);
		run(false);
		has("module", "fail", "not signed, and this kernel loads only signed modules");
		sh("printf '~Module signature appended~\\n' >> %s/lib/modules/%s/updates/dkms/qpi_uncore.ko", root, u.release);
		run(false);
		has("module", "fail", "/updates/dkms/qpi_uncore.ko => modprobe qpi_uncore (if it fails, dmesg | tail says why)");
		sh("printf 'ELF' > %s/lib/modules/%s/updates/dkms/qpi_uncore.ko && "
		   "echo '[none] integrity confidentiality' > %s/sys/kernel/security/lockdown", root, u.release, root);
		run(false);
		has("module", "fail", "/updates/dkms/qpi_uncore.ko => modprobe qpi_uncore (if it fails");
		sh("rm -rf %s/lib %s/sys/module/module %s/sys/kernel", root, root, root);
	}

	sh("rm -rf %s/sys/bus/pci/devices/0000:7f:08.2 %s/sys/bus/pci/devices/0000:ff:13.5", root, root);
	run(false);
	ok(rc == 1, "two hidden: exit 1 (%d)", rc);
	has("pci", "fail", "socket 0 bus 7f: QPI port 1 QPI mask/match 0,1 R3QPI link 0,1; socket 1 bus ff: QPI port 0,1 QPI mask/match 0,1 R3QPI link 1; 2 functions missing => missing: 7f:0x0e32 (QPI port 0) ff:0x0e36 (R3QPI link 0): the CPU is IVB-EP but the firmware hides these PMON functions");

	sh("rm -rf %s/sys/bus/pci/devices/*", root);
	run(true);
	ok(rc == 1, "nothing on the bus: exit 1 (%d)", rc);
	ok(strstr(out, "{\"check\": \"pci\", \"status\": \"fail\", \"saw\": \"no uncore function of IVB-EP (UBox 0x0e1e, QPI 0x0e32 ...) on any PCI bus\", \"do\": \"the firmware hides the uncore devices:") != NULL,
	   "json: pci fail (%s)", out);
	ok(strchr(out, '\n') == out + strlen(out) - 1, "json: one line");
	ok(strstr(out, "\"fail\": 2, \"warn\": 0, \"exit\": 1}\n") != NULL, "json: summary");

	ok(check_main(4, bad_window) == 2, "--window 5: exit 2");
	ok(check_main(3, extra) == 2, "a command after --check: exit 2");

	sh("rm -rf %s", root);
	printf("1..%d\n# qpistat --check: %d passed, %d failed\n", n, n - failed, failed);
	return failed ? 1 : 0;
}
