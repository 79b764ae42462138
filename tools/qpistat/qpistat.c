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
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netdb.h>
#include <poll.h>
#include <pwd.h>
#include <linux/capability.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sysexits.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "linkmap.h"
#include "plan.h"
#include "server.h"
#include "qpistat.h"

#ifndef CPUINFO
#define CPUINFO		"/proc/cpuinfo"
#endif
#define DEFAULT_PORT	"9739"
#define NOBODY		65534	/* --listen as root, without --user */

enum { FMT_TABLE, FMT_JSON, FMT_PROM };

/* --link-map: what map points to */
static struct linkmap link_map;

/*
 * Exporter mode: every scrape reads each group once and answers from that;
 * the gauges cover the time since the previous scrape by any scraper.
 */
static double last_read;

/*
 * The events are never reopened: once their PMUs are gone (the functions
 * unbound or handed over), every scrape would fail or show frozen
 * counters.  Exit instead, for the service manager to restart qpistat on
 * the PMUs there are now, rather than answer 500 for ever.
 */
static int scrape(struct sbuf *sb, bool openmetrics)
{
	double t = now_s();
	const char *gone = pmu_gone();

	if (gone) {
		fprintf(stderr, "qpistat: %s is gone (unregistered or replaced); exiting\n", gone);
		exit(EX_UNAVAILABLE);
	}
	if (try_read_all()) {
		fprintf(stderr, "qpistat: reading the counters failed: %s; exiting\n",
			strerror(errno));
		exit(EX_UNAVAILABLE);
	}
	exposition(sb, t - last_read, openmetrics);
	last_read = t;
	return 0;
}

static void bad_listen(const char *spec)
{
	fprintf(stderr, "qpistat: --listen '%s': want [ADDR:]PORT, [IPV6]:PORT or ADDR, PORT 1-65535\n",
		spec);
	exit(2);
}

/*
 * PORT, :PORT, ADDR:PORT, [ADDR]:PORT, [ADDR] or ADDR.  The address
 * defaults to 127.0.0.1, the port to 9739.  An IPv6 address takes
 * brackets before a port: ::1 is an address, on port 9739.
 */
static int listen_on(const char *spec, char *where, size_t wlen)
{
	struct addrinfo hints = {
		.ai_flags = AI_PASSIVE | AI_NUMERICSERV,
		.ai_socktype = SOCK_STREAM,
	}, *res, *ai;
	char host[256] = "127.0.0.1";
	const char *h = NULL, *p = DEFAULT_PORT, *colon = strchr(spec, ':');
	int fd = -1, err, one = 1;
	size_t hlen = 0;

	if (spec[0] == '[') {
		const char *rb = strchr(spec, ']');

		if (!rb || rb == spec + 1 || (rb[1] && rb[1] != ':'))
			bad_listen(spec);
		h = spec + 1;
		hlen = rb - h;
		if (rb[1])
			p = rb + 2;
	} else if (strspn(spec, "0123456789") == strlen(spec)) {
		p = spec;
	} else if (colon && !strchr(colon + 1, ':')) {
		h = spec;
		hlen = colon - spec;
		p = colon + 1;
	} else {
		h = spec;
		hlen = strlen(spec);
	}
	if (!*p || strlen(p) > 5 || strspn(p, "0123456789") != strlen(p) ||
	    atoi(p) < 1 || atoi(p) > 65535)
		bad_listen(spec);
	if (hlen >= sizeof(host)) {
		fprintf(stderr, "qpistat: --listen '%s': address too long\n", spec);
		exit(2);
	}
	if (hlen) {
		memcpy(host, h, hlen);
		host[hlen] = 0;
	}
	snprintf(where, wlen, strchr(host, ':') ? "[%s]:%s" : "%s:%s", host, p);
	err = getaddrinfo(host, p, &hints, &res);
	if (err) {
		fprintf(stderr, "qpistat: cannot listen on %s: %s\n", where, gai_strerror(err));
		exit(1);
	}
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
			    ai->ai_protocol);
		if (fd < 0)
			continue;
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (!bind(fd, ai->ai_addr, ai->ai_addrlen) && !listen(fd, 128))
			break;
		err = errno;
		close(fd);
		fd = -1;
		errno = err;
	}
	freeaddrinfo(res);
	if (fd < 0) {
		fprintf(stderr, "qpistat: cannot listen on %s: %s\n", where, strerror(errno));
		exit(1);
	}
	return fd;
}

/*
 * Nothing after the events are open needs a capability: qpistat never
 * reopens them (a PMU that goes away ends it: see scrape()).
 * Drop them all before reading a byte from the network.
 */
static void drop_capabilities(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = { };

	if ((prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) &&
	     errno != EINVAL) || syscall(SYS_capset, &hdr, data)) {
		fprintf(stderr, "qpistat: cannot drop capabilities: %s\n",
			strerror(errno));
		exit(1);
	}
}

/* --user, or nobody when started as root */
static uid_t run_uid = NOBODY;
static gid_t run_gid = NOBODY;
static bool user_given;

/*
 * As root, serve as an unprivileged user: a uid-0 process without
 * capabilities still owns root's files.  The events are open by then (they
 * want the privilege); nothing from the network has been read yet.  No
 * new privileges either, whoever it runs as: no setuid program or file
 * capability can give any back.
 */
static void drop_privileges(void)
{
	uid_t r, e, s;

	if (getresuid(&r, &e, &s)) {
		fprintf(stderr, "qpistat: getresuid: %s\n", strerror(errno));
		exit(1);
	}
	if ((user_given || !r || !e || !s) &&
	    (setgroups(0, NULL) || setresgid(run_gid, run_gid, run_gid) ||
	     setresuid(run_uid, run_uid, run_uid))) {
		fprintf(stderr, "qpistat: cannot switch to uid %u, gid %u: %s\n",
			(unsigned int)run_uid, (unsigned int)run_gid, strerror(errno));
		exit(1);
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
		fprintf(stderr, "qpistat: PR_SET_NO_NEW_PRIVS: %s\n", strerror(errno));
		exit(1);
	}
	drop_capabilities();
}

/* USER[:GROUP], names or numbers; the group defaults to the user's */
static void parse_user(const char *spec)
{
	char name[256], *colon, *end;
	struct passwd *pw;
	struct group *gr;

	snprintf(name, sizeof(name), "%s", spec);
	colon = strchr(name, ':');
	if (colon)
		*colon++ = 0;
	pw = getpwnam(name);
	if (pw) {
		run_uid = pw->pw_uid;
		run_gid = pw->pw_gid;
	} else {
		errno = 0;
		run_uid = strtoul(name, &end, 10);
		if (!isdigit((unsigned char)name[0]) || *end || errno ||
		    run_uid == (uid_t)-1) {
			fprintf(stderr, "qpistat: --user '%s': no such user\n", spec);
			exit(2);
		}
		pw = getpwuid(run_uid);
		run_gid = pw ? pw->pw_gid : run_uid;
	}
	if (colon) {
		gr = getgrnam(colon);
		if (gr) {
			run_gid = gr->gr_gid;
		} else {
			errno = 0;
			run_gid = strtoul(colon, &end, 10);
			if (!isdigit((unsigned char)colon[0]) || *end || errno ||
			    run_gid == (gid_t)-1) {
				fprintf(stderr, "qpistat: --user '%s': no such group\n", spec);
				exit(2);
			}
		}
	}
	if (!run_uid || !run_gid) {
		fprintf(stderr, "qpistat: --user '%s': want a user and group other than root\n",
			spec);
		exit(2);
	}
	user_given = true;
}

static int listen_mode(int lfd, const char *where)
{
	int nq, nr3;

	enable_all(1);
	last_read = now_s();
	drop_privileges();
	count_boxes(&nq, &nr3);
	fprintf(stderr, "qpistat: serving %d QPI ports and %d R3QPI links at http://%s/metrics\n",
		nq, nr3, where);
	serve(lfd, scrape);
	close_all();
	return 0;
}

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
