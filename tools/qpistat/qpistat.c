// SPDX-License-Identifier: GPL-2.0
/*
 * qpistat: QPI link bandwidth, utilization and R3QPI credit pressure for
 * every socket and link, from the uncore_qpi_* and uncore_r3qpi_* perf PMUs.
 *
 *   qpistat [-I ms] [-c count] [--json | --prometheus] [--link-map MAP]
 *           [-- command ...]
 *   qpistat --listen [ADDR:]PORT
 *
 * What each box counts, and at which end of a link, is the platform's row
 * of the plan (plan.c): SNB-EP and IVB-EP count a direction where it is
 * received, HSX and BDX where it is sent.  See Documentation/qpistat.rst
 * for the metrics and their formulas.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "qpistat.h"

#ifndef CPUINFO
#define CPUINFO		"/proc/cpuinfo"
#endif

enum { FMT_TABLE, FMT_JSON, FMT_PROM };

/* --link-map: what map points to */
static struct linkmap link_map;

static void usage(FILE *f, int status)
{
	fprintf(f,
		"usage: qpistat [-I ms] [-c count] [--json | --prometheus]\n"
		"       qpistat [--json | --prometheus] -- command ...\n"
		"       qpistat --listen [ADDR:]PORT [--user USER[:GROUP]]\n"
		"       qpistat --textfile FILE [-I ms] [-c count]\n"
		"       qpistat --check [--json] [--window ms] [--link-map MAP]\n"
		"  -I, --interval ms   print every ms milliseconds (default 1000)\n"
		"  -c, --count n       stop after n intervals (default: until ^C)\n"
		"  --json              one JSON object per interval\n"
		"  --prometheus        Prometheus text format (cumulative counters, gauges)\n"
		"  -- command          count while command runs, print once; exit with its status\n"
		"  --listen [ADDR:]PORT  serve GET /metrics over HTTP (ADDR default 127.0.0.1,\n"
		"                      PORT 9739; [::1]:PORT or ::1 for IPv6)\n"
		"  --user USER[:GROUP] serve as USER (started as root: default 65534:65534)\n"
		"  --textfile FILE     every -I ms, rewrite FILE for node_exporter's textfile\n"
		"                      collector (counters since the start)\n"
		"  --link-map S.P=T.Q,...|@FILE  which port is at the far end of which\n"
		"                      (socket.port, each link once): per-port receive on\n"
		"                      HSX/BDX, per-link --check on SNB-EP/IVB-EP\n"
		"  -h, --help          this help\n");
	exit(status);
}

/* --link-map SPEC or @FILE: its syntax, or exit 64 (66: FILE unreadable) */
static void parse_link_map(const char *arg)
{
	char err[512];
	int rc = linkmap_parse(arg, &link_map, err, sizeof(err));

	if (rc) {
		fprintf(stderr, "qpistat: %s\n", err);
		exit(rc);
	}
	map = &link_map;
}

/* every port of the link map against the QPI ports opened, or exit 64 */
static void check_link_map(void)
{
	static struct lm_end ports[sizeof(boxes) / sizeof(boxes[0])];
	char err[512];
	int i, n = 0, rc;

	for (i = 0; i < nr_boxes; i++)
		if (boxes[i].kind == QPI) {
			ports[n].socket = boxes[i].socket;
			ports[n++].port = boxes[i].idx;
		}
	rc = linkmap_check(map, ports, n, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "qpistat: %s\n", err);
		exit(rc);
	}
}

/* a whole number from 1 to INT_MAX, or exit 2 naming the option */
static long positive(const char *opt, const char *arg, const char *what)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (!isdigit((unsigned char)arg[0]) || *end || errno || v < 1 || v > INT_MAX) {
		fprintf(stderr, "qpistat: %s '%s': want %s, a whole number from 1 to %d\n",
			opt, arg, what, INT_MAX);
		exit(2);
	}
	return v;
}

static void __attribute__((noreturn)) conflict(const char *msg)
{
	fprintf(stderr, "qpistat: %s\n", msg);
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "interval", required_argument, NULL, 'I' },
		{ "count", required_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "prometheus", no_argument, NULL, 'p' },
		{ "listen", required_argument, NULL, 'l' },
		{ "user", required_argument, NULL, 'u' },
		{ "textfile", required_argument, NULL, 't' },
		{ "link-map", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	long interval = 1000, count = -1;
	bool timed = false;
	const char *listen = NULL, *user = NULL, *textfile = NULL;
	char where[300];
	int lfd = -1;
	int fmt = FMT_TABLE, c, i, n = 0, status;
	double t0, t;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--check"))
			return check_main(argc, argv);
	while ((c = getopt_long(argc, argv, "+I:c:h", opts, NULL)) != -1) {
		switch (c) {
		case 'I':
			interval = positive("-I", optarg, "milliseconds");
			timed = true;
			break;
		case 'c':
			count = positive("-c", optarg, "a count");
			timed = true;
			break;
		case 'j':
		case 'p':
			if (fmt != FMT_TABLE && fmt != (c == 'j' ? FMT_JSON : FMT_PROM))
				conflict("--json and --prometheus: choose one");
			fmt = c == 'j' ? FMT_JSON : FMT_PROM;
			break;
		case 'l':
			listen = optarg;
			break;
		case 'u':
			user = optarg;
			break;
		case 't':
			textfile = optarg;
			break;
		case 'm':
			parse_link_map(optarg);
			break;
		case 'h':
			usage(stdout, 0);
			break;
		default:
			usage(stderr, 2);
		}
	}
	if (textfile) {
		if (listen)
			conflict("--textfile and --listen: choose one");
		if (optind < argc)
			conflict("--textfile: no command");
		if (fmt != FMT_TABLE)
			conflict("--textfile writes the Prometheus text format: no --json or --prometheus");
		if (!*textfile || textfile[strlen(textfile) - 1] == '/' ||
		    strlen(textfile) > PATH_MAX - 16)
			conflict("--textfile: want the path of a file");
		/* node_exporter would skip it: it reads *.prom only */
		if (!textfile_named_prom(textfile)) {
			fprintf(stderr, "qpistat: --textfile '%s': want a name ending in .prom, the only files node_exporter reads\n",
				textfile);
			exit(2);
		}
	}
	if (listen) {
		if (optind < argc)
			conflict("--listen: no command");
		if (timed)
			conflict("--listen: -I and -c do not apply, every scrape reads the counters");
		/* the exporter answers each scrape in the format it asks for */
		if (fmt != FMT_TABLE)
			conflict("--listen: no --json or --prometheus, a scrape asks for its format");
		if (user)
			parse_user(user);
		lfd = listen_on(listen, where, sizeof(where));
	} else {
		if (user)
			conflict("--user: only with --listen");
		if (optind < argc && timed)
			conflict("with a command: -I and -c do not apply, it prints once when the command ends");
		/* closed, it could become a perf fd and hide the error */
		if (!textfile && fcntl(STDOUT_FILENO, F_GETFD) < 0) {
			fprintf(stderr, "qpistat: stdout: %s\n", strerror(errno));
			exit(1);
		}
	}
	plan = plan_for_model(plan_cpu_model(CPUINFO));
	for (i = 0; i < MAX_BOXES; i++)
		n += open_pmu(QPI, i) > 0;
	if (!n)
		die_no_pmus();
	for (i = 0; i < MAX_BOXES; i++)
		open_pmu(R3QPI, i);
	read_speeds();
	if (map)
		check_link_map();
	if (listen)
		return listen_mode(lfd, where);
	catch_signals();

	t0 = now_s();
	enable_all(1);
	if (textfile) {
		int stale, nq, nr3;

		/* as --listen: the events are open, nothing more is needed */
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
			fprintf(stderr, "qpistat: PR_SET_NO_NEW_PRIVS: %s\n", strerror(errno));
			exit(1);
		}
		drop_capabilities();
		stale = remove_stale_tmp(textfile);
		/* at once: node_exporter has a file, and a bad directory is found */
		read_all();
		write_textfile(textfile, 0);
		count_boxes(&nq, &nr3);
		fprintf(stderr, "qpistat: writing %d QPI ports and %d R3QPI links to %s every %ld ms",
			nq, nr3, textfile, interval);
		if (stale)
			fprintf(stderr, "; removed %d stale temporary file%s", stale,
				stale > 1 ? "s" : "");
		fprintf(stderr, "\n");
	}
	if (optind < argc) {
		/* command mode: count while it runs */
		status = run_command(argv + optind);
		enable_all(0);
		read_all();
		t = now_s() - t0;
		if (fmt == FMT_JSON)
			print_json(t, t, true);
		else if (fmt == FMT_PROM)
			print_prom(t);
		else
			print_table(t, t, true);
		return close_stdout(status);
	}
	for (n = 0; !stop && (count < 0 || n < count); n++) {
		double before = now_s();
		struct timespec ts = { interval / 1000, interval % 1000 * 1000000 };

		nanosleep(&ts, NULL);
		read_all();
		t = now_s();
		if (textfile)
			write_textfile(textfile, t - before);
		else if (fmt == FMT_JSON)
			print_json(t - t0, t - before, false);
		else if (fmt == FMT_PROM)
			print_prom(t - before);
		else
			print_table(t - t0, t - before, false);
	}
	return textfile ? 0 : close_stdout(0);
}
