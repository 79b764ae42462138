// SPDX-License-Identifier: GPL-2.0
/*
 * qpistat --check: one line per check (pass, warn, fail or skip), what it
 * saw and what to do, so that a user can paste the output into a bug
 * report.  Checks: cpu, pci, binding, module, link, counting, foreign,
 * health, symmetry.
 *
 * Everything is read from sysfs and procfs under check_root, so the host
 * tests run it against a fake tree; counting and the read-back of the
 * control registers use perf and PCI config space, as root.
 *
 * This file: the table of checks (checks[]), a run of them, the options;
 * each family of checks is a file of its own (check_int.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "check_int.h"

/* --link-map's, which ck_map points to */
static struct linkmap link_map;

/*
 * The checks, in the order they run and print: each may rest on what
 * those before it found (ck).  A check is a file and a row here.
 */
static const struct check {
	const char *name;
	void (*run)(struct result *r);
} checks[] = {
	{ "cpu", check_cpu },
	{ "pci", check_pci },
	{ "binding", check_binding },
	{ "module", check_module },
	{ "link", check_link },
	{ "counting", check_counting },
	{ "foreign", check_foreign },
	{ "health", check_health_live },
	{ "symmetry", check_symmetry_live },
};

_Static_assert(sizeof(checks) / sizeof(checks[0]) <= CHECK_MAX, "CHECK_MAX");

int check_run(FILE *out, bool json, int window_ms)
{
	unsigned int i;

	memset(&ck, 0, sizeof(ck));
	ck.window_ms = window_ms;
	ck.root = !geteuid();
	for (i = 0; i < sizeof(checks) / sizeof(checks[0]); i++)
		checks[i].run(result(checks[i].name));
	return check_print(out, json);
}

static void check_usage(void)
{
	fprintf(stderr,
		"usage: qpistat --check [--json] [--window ms] [--link-map S.P=T.Q,...|@FILE]\n"
		"  --json        one JSON document\n"
		"  --link-map    the far end of each port: symmetry per link\n"
		"  --window ms   how long to count clockticks (default 200, 10-10000)\n"
		"exit status: 0 every check passed (or warned), 1 a check failed, 2 usage,\n"
		"64 a bad link map\n");
}

int check_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "check", no_argument, NULL, 'C' },
		{ "json", no_argument, NULL, 'j' },
		{ "window", required_argument, NULL, 'w' },
		{ "link-map", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	static struct lm_end ports[MAX_EVS];
	char err[512];
	int c, window = 200, rc;
	bool json = false;
	char *end;

	optind = 1;
	ck_map = NULL;
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 'C':
			break;
		case 'j':
			json = true;
			break;
		case 'w':
			errno = 0;
			window = strtol(optarg, &end, 10);
			if (errno || *end || window < 10 || window > 10000) {
				fprintf(stderr, "qpistat: --window '%s': want milliseconds, 10-10000\n",
					optarg);
				return 2;
			}
			break;
		case 'm':
			rc = linkmap_parse(optarg, &link_map, err, sizeof(err));
			if (rc) {
				fprintf(stderr, "qpistat: %s\n", err);
				return rc;
			}
			ck_map = &link_map;
			break;
		default:
			check_usage();
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "qpistat: --check takes no command ('%s')\n", argv[optind]);
		return 2;
	}
	/* its ports against those sysfs shows, before anything is counted */
	rc = ck_map ? linkmap_check(ck_map, ports, sysfs_ports(ports, MAX_EVS), err, sizeof(err)) : 0;
	if (rc) {
		fprintf(stderr, "qpistat: %s\n", err);
		return rc;
	}
	return check_run(stdout, json, window);
}
