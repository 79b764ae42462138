// SPDX-License-Identifier: GPL-2.0
/*
 * qpistat --listen: the Prometheus exporter.  The listening socket from
 * --listen's address, the user it serves as (--user), the capabilities
 * and privileges it drops once the events are open and before a byte
 * from the network is read, and the scrape server.c calls for each
 * request: every group read once, answered in the format asked for.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <grp.h>
#include <linux/capability.h>
#include <netdb.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sysexits.h>
#include <unistd.h>

#include "qpistat.h"

#define DEFAULT_PORT	"9739"
#define NOBODY		65534	/* --listen as root, without --user */

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
int listen_on(const char *spec, char *where, size_t wlen)
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
void drop_capabilities(void)
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
void parse_user(const char *spec)
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

int listen_mode(int lfd, const char *where)
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
