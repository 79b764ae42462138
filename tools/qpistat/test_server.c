// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of the exporter's server (server.c): the real serve() in a
 * child process on a loopback port, answering with made-up metrics, and
 * clients that misbehave the way the audit found.  Timings are
 * only checked against generous bounds; the answers are checked exactly.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "server.h"
#include "test.h"

#define TEXT_BODY	"# TYPE x counter\nx_total 42\n"
#define OM_BODY		"# TYPE x counter\nx_total 42\n# EOF\n"

static size_t big;	/* bytes of padding after the body, for slow reads */

static int fake_metrics(struct sbuf *sb, bool openmetrics)
{
	size_t i;

	sb_printf(sb, "%s", openmetrics ? OM_BODY : TEXT_BODY);
	for (i = 0; i < big / 64; i++)
		sb_printf(sb, "# %061zu\n", i);
	return 0;
}

struct server {
	pid_t pid;
	int port;
	char log[64];
};

/*
 * serve() in a child on 127.0.0.1:<any>, stderr to a file; @nofile: with
 * only that many fds beyond those open at the start, else no limit.
 */
static void start(struct server *s, int nofile)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t alen = sizeof(a);
	int lfd, fd;

	lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (lfd < 0 || bind(lfd, (void *)&a, sizeof(a)) || listen(lfd, 128) ||
	    getsockname(lfd, (void *)&a, &alen)) {
		perror("test_server: listen");
		exit(1);
	}
	s->port = ntohs(a.sin_port);
	strcpy(s->log, "/tmp/test_qpistat.XXXXXX");
	fd = mkstemp(s->log);
	fflush(stdout);
	s->pid = fork();
	if (s->pid == 0) {
		struct rlimit rl;

		/* stderr to the log, the listening socket at 3, nothing else */
		dup2(fd, 2);
		dup2(lfd, 3);
		for (fd = 4; fd < 1024; fd++)
			close(fd);
		if (nofile) {
			rl.rlim_cur = rl.rlim_max = 4 + nofile;
			setrlimit(RLIMIT_NOFILE, &rl);
		}
		_exit(serve(3, fake_metrics));
	}
	close(fd);
	close(lfd);
}

/* SIGTERM, and its exit status (-1: it did not exit within 5 s) */
static int stop(struct server *s)
{
	int status, i;

	kill(s->pid, SIGTERM);
	for (i = 0; i < 500; i++) {
		if (waitpid(s->pid, &status, WNOHANG) == s->pid)
			return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
		usleep(10000);
	}
	kill(s->pid, SIGKILL);
	waitpid(s->pid, &status, 0);
	return -1;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int dial(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct timeval tv = { .tv_sec = 10 };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || connect(fd, (void *)&a, sizeof(a))) {
		perror("test_server: connect");
		exit(1);
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
}

struct answer {
	int status;
	long clen;		/* Content-Length, -1 if none */
	char ctype[96];
	char date[64];		/* Date, "" if none */
	char vary[64];		/* Vary, "" if none */
	char *body;
	size_t blen;
};

/* Read to EOF and split the answer; false if it is not HTTP. */
static bool receive(int fd, struct answer *r)
{
	size_t len = 0, cap = 1 << 16;
	char *buf = malloc(cap), *end, *p;
	ssize_t n;

	memset(r, 0, sizeof(*r));
	while ((n = read(fd, buf + len, cap - len - 1)) > 0) {
		len += n;
		if (cap - len < 4096)
			buf = realloc(buf, cap *= 2);
	}
	close(fd);
	buf[len] = 0;
	end = strstr(buf, "\r\n\r\n");
	if (!end || sscanf(buf, "HTTP/1.1 %d ", &r->status) != 1) {
		free(buf);
		return false;
	}
	r->clen = -1;
	p = strcasestr(buf, "\r\nContent-Length: ");
	if (p && p < end)
		r->clen = atol(p + 18);
	p = strcasestr(buf, "\r\nContent-Type: ");
	if (p && p < end)
		sscanf(p + 16, "%95[^\r]", r->ctype);
	p = strcasestr(buf, "\r\nDate: ");
	if (p && p < end)
		sscanf(p + 8, "%63[^\r]", r->date);
	p = strcasestr(buf, "\r\nVary: ");
	if (p && p < end)
		sscanf(p + 8, "%63[^\r]", r->vary);
	r->blen = len - (end + 4 - buf);
	r->body = malloc(r->blen + 1);
	memcpy(r->body, end + 4, r->blen + 1);
	free(buf);
	return true;
}

static bool ask(int port, const char *req, struct answer *r)
{
	int fd = dial(port);

	if (write(fd, req, strlen(req)) != (ssize_t)strlen(req)) {
		close(fd);
		return false;
	}
	return receive(fd, r);
}

/* 200, complete, and the made-up text body byte for byte */
static bool scrape_ok(int port, const char *who)
{
	struct answer r;
	bool good;

	if (!ask(port, "GET /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n", &r)) {
		printf("# %s: no HTTP answer\n", who);
		return false;
	}
	good = r.status == 200 && r.clen == (long)r.blen &&
	       r.blen == strlen(TEXT_BODY) && !strcmp(r.body, TEXT_BODY);
	if (!good)
		printf("# %s: status %d, Content-Length %ld, %zu body bytes\n",
		       who, r.status, r.clen, r.blen);
	free(r.body);
	return good;
}

static void answers(struct server *s)
{
	struct answer r;
	bool good;

	ok(scrape_ok(s->port, "GET /metrics"), "server: GET /metrics: 200, the exposition exactly");

	good = ask(s->port, "GET /metrics HTTP/1.1\r\nHost: localhost\r\nAccept: text/plain;q=0.5\r\n"
		   "Accept: application/openmetrics-text;version=1.0.0\r\n\r\n", &r) &&
	       r.status == 200 && !strcmp(r.body, OM_BODY) &&
	       !strcmp(r.ctype, "application/openmetrics-text; version=1.0.0; charset=utf-8");
	ok(good, "server: two Accept headers, OpenMetrics in the second: OpenMetrics");
	free(r.body);

	good = ask(s->port, "HEAD /nope HTTP/1.1\r\nHost: localhost\r\n\r\n", &r) && r.status == 404 &&
	       r.clen > 0 && r.blen == 0;
	ok(good, "server: HEAD of an unknown path: 404, Content-Length %ld, no body (%zu bytes)",
	   r.clen, r.blen);
	free(r.body);

	good = ask(s->port, "HEAD /metrics HTTP/1.1\r\nHost: localhost\r\nA b: c\r\n\r\n", &r) &&
	       r.status == 400 && r.clen > 0 && r.blen == 0;
	ok(good, "server: HEAD with a bad header: 400, no body");
	free(r.body);

	good = ask(s->port, "HEAD /metrics HTTP/1.0\r\n\r\n", &r) && r.status == 200 &&
	       r.clen == (long)strlen(TEXT_BODY) && r.blen == 0;
	ok(good, "server: HEAD /metrics: 200, the body's Content-Length, no body");
	free(r.body);

	good = ask(s->port, "PUT /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n", &r) && r.status == 405 &&
	       r.clen == (long)r.blen && r.blen > 0;
	ok(good, "server: GET's 405 has its body");
	free(r.body);
}

/* ask for @req: is the answer's status @status? */
static void status_is(struct server *s, const char *req, int status, const char *name)
{
	struct answer r;
	bool got = ask(s->port, req, &r);

	ok(got && r.status == status && r.clen == (long)r.blen,
	   "server on 127.0.0.1: %s: %d (%d), Content-Length of its body", name, status,
	   got ? r.status : 0);
	if (got)
		free(r.body);
}

/* @date, an IMF-fixdate within 5 s of now? */
static bool date_now(const char *date)
{
	struct tm tm = { };
	const char *end = strptime(date, "%a, %d %b %Y %H:%M:%S GMT", &tm);
	time_t t = timegm(&tm), now = time(NULL);

	return end && !*end && strlen(date) == 29 && t > now - 5 && t <= now + 1;
}

/* Issue 29 item 4 on the wire: Host, 421, leading CRLF, absolute form, Date, Vary, 431 */
static void rfc9112(struct server *s)
{
	static char big[9000 + 64];
	struct answer r;
	bool good;

	status_is(s, "GET /metrics HTTP/1.1\r\n\r\n", 400, "HTTP/1.1 without Host");
	status_is(s, "GET /metrics HTTP/1.1\r\nHost: localhost\r\nHost: localhost\r\n\r\n",
		  400, "two Host headers");
	status_is(s, "GET /metrics HTTP/1.1\r\nHost: evil.example\r\n\r\n", 421,
		  "Host: evil.example (DNS rebinding)");
	status_is(s, "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1:9739\r\n\r\n", 200,
		  "Host: 127.0.0.1:9739");
	status_is(s, "GET /metrics HTTP/1.1\r\nHost: [::1]:9739\r\n\r\n", 200, "Host: [::1]:9739");
	status_is(s, "\r\nGET /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n", 200,
		  "a leading CRLF");
	status_is(s, "GET http://localhost:9739/metrics HTTP/1.1\r\nHost: localhost:9739\r\n\r\n",
		  200, "absolute-form target");
	status_is(s, "GET http://evil.example/metrics HTTP/1.1\r\nHost: localhost\r\n\r\n",
		  421, "absolute-form target naming another host");

	good = ask(s->port, "GET /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n", &r) &&
	       r.status == 200 && date_now(r.date) && !strcmp(r.vary, "Accept");
	ok(good, "server: GET /metrics: Date '%s' (IMF-fixdate, now), Vary '%s'", r.date, r.vary);
	free(r.body);
	good = ask(s->port, "GET /nope HTTP/1.1\r\n\r\n", &r) && r.status == 400 &&
	       date_now(r.date) && !r.vary[0];
	ok(good, "server: a 400 has a Date too ('%s'), and no Vary ('%s')", r.date, r.vary);
	free(r.body);

	memset(big, 'a', sizeof(big));
	memcpy(big, "GET /metrics HTTP/1.1\r\nHost: localhost\r\nX: ", 42);
	strcpy(big + 42 + 9000, "\r\n\r\n");
	status_is(s, big, 431, "a 9,000-byte header");
	memcpy(big, "GET /", 5);
	memset(big + 5, 'a', 9000);
	strcpy(big + 9005, " HTTP/1.1\r\n\r\n");
	status_is(s, big, 414, "a 9,000-byte request target");
}

/* A client that sends one byte and stalls is dropped at the head deadline. */
static void head_deadline(struct server *s)
{
	int fd = dial(s->port);
	double t0 = now_s(), t;
	char c;
	ssize_t n;

	n = write(fd, "G", 1);
	n = read(fd, &c, 1);
	t = now_s() - t0;
	close(fd);
	ok(n == 0 && t >= HEAD_TIMEOUT_MS / 1e3 - 0.5 && t < CONN_TIMEOUT_MS / 1e3 - 1,
	   "server: a client stalled after one byte is closed at the %d ms head deadline (read %zd after %.2f s)",
	   HEAD_TIMEOUT_MS, n, t);
}

/*
 * 80 clients that connect, send one byte and reconnect as soon as they are
 * closed: more than the 64 slots, forever.  Scrapes still get through.
 */
static void slowloris(struct server *s)
{
	enum { ATTACKERS = 80 };
	int i, good = 0;
	double worst = 0;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		struct pollfd pfd[ATTACKERS];
		char buf[256];

		for (i = 0; i < ATTACKERS; i++) {
			pfd[i].fd = dial(s->port);
			pfd[i].events = POLLIN;
			if (write(pfd[i].fd, "G", 1) != 1)
				_exit(1);
		}
		for (;;) {
			poll(pfd, ATTACKERS, -1);
			for (i = 0; i < ATTACKERS; i++) {
				if (!pfd[i].revents || read(pfd[i].fd, buf, sizeof(buf)) > 0)
					continue;
				close(pfd[i].fd);
				pfd[i].fd = dial(s->port);
				if (write(pfd[i].fd, "G", 1) != 1)
					_exit(1);
			}
		}
	}
	usleep(300000);
	for (i = 0; i < 5; i++) {
		double t0 = now_s(), t;

		good += scrape_ok(s->port, "scrape beside 80 reconnecting stalled clients");
		t = now_s() - t0;
		if (t > worst)
			worst = t;
		usleep(200000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	/* without eviction a scrape waits for the head deadline */
	ok(good == 5 && worst < HEAD_TIMEOUT_MS / 1e3 - 0.5,
	   "server: 80 clients that reconnect and send one byte: 5 of 5 scrapes 200 and complete (%d), slowest %.2f s",
	   good, worst);
}

/* a connection to the server within 10 s, or -1 */
static int dial_within(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(port),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct timeval tv = { .tv_sec = 10 };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	/* SO_SNDTIMEO bounds connect() too */
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (connect(fd, (void *)&a, sizeof(a))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* connections the server holds on @port from 127.0.0.@peer (0: any but .1) */
static int held(int port, int peer)
{
	char line[512], rem[16];
	unsigned int lport, inode;
	int n = 0;
	FILE *f = fopen("/proc/net/tcp", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, " %*d: %*8s:%x %8s:%*x %*x %*x:%*x %*x:%*x %*x %*u %*u %u",
			   &lport, rem, &inode) == 3 && (int)lport == port && inode &&
		    strcmp(rem, "00000000") && (peer || strcmp(rem, "0100007F")) &&
		    (!peer || strtoul(rem, NULL, 16) == (0x7fu | (unsigned int)peer << 24)))
			n++;
	if (f)
		fclose(f);
	return n;
}

/*
 * All slots held: 10 by 127.0.0.5, 53 by 127.0.0.2, one free.  Then 20
 * answered clients that stay from 127.0.0.3, one after the other, and 20
 * from 127.0.0.4 (in the test build nothing but eviction frees their
 * slots).  The slots come from 127.0.0.2 until it is down to
 * MAX_PEER_CONNS, then from 127.0.0.3, which holds more, never from
 * 127.0.0.5: 16, 18, 20 and 10.
 */
static void hold_answered(struct server *s, int peer, int n, int *fd);

static void peer_cap(struct server *s)
{
	int fd[40], i, k;

	/* the scraper's slot free */
	for (k = 0; k < 1000 && held(s->port, 1); k++)
		usleep(10000);
	hold_answered(s, 3, 20, fd);
	hold_answered(s, 4, 20, fd + 20);
	ok(held(s->port, 2) == MAX_PEER_CONNS && held(s->port, 3) == 18 &&
	   held(s->port, 4) == 20 && held(s->port, 5) == 10,
	   "server: 53 + 10 slots held, 20 more clients from each of two other addresses: held %d, %d, %d, %d (want %d, 18, 20, 10)",
	   held(s->port, 2), held(s->port, 3), held(s->port, 4), held(s->port, 5),
	   MAX_PEER_CONNS);
	for (i = 0; i < 40; i++)
		close(fd[i]);
}

/* @n clients from 127.0.0.@peer that send a request and stay, held */
static void hold_answered(struct server *s, int peer, int n, int *fd)
{
	struct sockaddr_in src = { .sin_family = AF_INET };
	struct sockaddr_in dst = { .sin_family = AF_INET, .sin_port = htons(s->port),
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int i, k, base = held(s->port, peer);

	src.sin_addr.s_addr = htonl(0x7f000001 + (peer - 1));
	for (i = 0; i < n; i++) {
		fd[i] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (bind(fd[i], (void *)&src, sizeof(src)) ||
		    connect(fd[i], (void *)&dst, sizeof(dst)) ||
		    write(fd[i], "GET / HTTP/1.0\r\n\r\n", 18) != 18) {
			perror("test_server: held client");
			exit(1);
		}
		/* until it is accepted (if none of these is pushed out) */
		for (k = 0; k < 1000 && held(s->port, peer) < base + i + 1; k++)
			usleep(10000);
	}
}

static void stalled_answered(struct server *s, int peers)
{
	enum { STALLED = 300 };
	static const char req[] = "GET /metrics HTTP/1.1\r\nHost: localhost\r\n\r\n";
	struct pollfd pfd[STALLED];
	int i, sent = 0, tries, good = 0, peer_max = 0, few[10];
	double end = now_s() + 30;

	/* an address with a few connections, before the flood */
	if (peers == 1)
		hold_answered(s, 5, 10, few);

	for (i = 0; i < STALLED; i++) {
		struct sockaddr_in src = { .sin_family = AF_INET };
		struct sockaddr_in dst = { .sin_family = AF_INET, .sin_port = htons(s->port),
					   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };

		src.sin_addr.s_addr = htonl(0x7f000002 + i % peers);
		pfd[i].fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		pfd[i].events = POLLOUT;
		if (pfd[i].fd < 0 || bind(pfd[i].fd, (void *)&src, sizeof(src)) ||
		    (connect(pfd[i].fd, (void *)&dst, sizeof(dst)) && errno != EINPROGRESS)) {
			perror("test_server: stalled client");
			exit(1);
		}
	}
	/* each sends its request once connected, and stays */
	while (sent < STALLED && now_s() < end) {
		poll(pfd, STALLED, 100);
		for (i = 0; i < STALLED; i++) {
			int err = 0;
			socklen_t len = sizeof(err);

			if (!(pfd[i].revents & POLLOUT) || pfd[i].events != POLLOUT)
				continue;
			getsockopt(pfd[i].fd, SOL_SOCKET, SO_ERROR, &err, &len);
			if (err || write(pfd[i].fd, req, sizeof(req) - 1) != sizeof(req) - 1) {
				printf("# stalled client %d: %s\n", i, strerror(err ? err : errno));
				pfd[i].events = POLLERR;
				continue;
			}
			pfd[i].events = 0;
			sent++;
		}
	}
	for (tries = 1; tries <= 3 && !good; tries++) {
		int fd = dial_within(s->port);
		struct answer r;

		if (fd < 0) {
			printf("# scrape beside %d stalled clients: connect: %s\n", sent, strerror(errno));
			continue;
		}
		if (write(fd, req, sizeof(req) - 1) == sizeof(req) - 1 && receive(fd, &r)) {
			good = r.status == 200 && r.clen == (long)r.blen &&
			       !strcmp(r.body, TEXT_BODY);
			free(r.body);
		} else {
			printf("# scrape beside %d stalled clients: no answer\n", sent);
		}
	}
	for (i = 0; i < peers; i++)
		if (held(s->port, 2 + i) > peer_max)
			peer_max = held(s->port, 2 + i);
	ok(sent == STALLED && good && tries == 2,
	   "server: %d stalled answered clients from %d address%s: the first scrape after them 200 and complete (%d of %d sent, %d tries)",
	   STALLED, peers, peers > 1 ? "es" : "", sent, STALLED, tries - 1);
	printf("# it holds %d of them, at most %d from one address\n",
	       held(s->port, 0), peer_max);
	if (peers == 1) {
		ok(held(s->port, 5) == 10,
		   "server: another address's 10 answered clients, older than the 300, stay (%d held)",
		   held(s->port, 5));
		peer_cap(s);
		for (i = 0; i < 10; i++)
			close(few[i]);
	}
	for (i = 0; i < STALLED; i++)
		close(pfd[i].fd);
}

static double cpu_s(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long ut, st;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f || !fgets(buf, sizeof(buf), f)) {
		if (f)
			fclose(f);
		return -1;
	}
	fclose(f);
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
			 &ut, &st) != 2)
		return -1;
	return (double)(ut + st) / sysconf(_SC_CLK_TCK);
}

/*
 * Out of fds: accept() fails with EMFILE while the listening socket stays
 * readable.  The server must not spin on it, and must accept again once
 * fds are free.
 */
static void out_of_fds(void)
{
	struct server s;
	int fd[8], i;
	double c0, c1;

	start(&s, 3);		/* the signalfd and two connections */
	for (i = 0; i < 8; i++)
		fd[i] = dial(s.port);
	usleep(300000);
	c0 = cpu_s(s.pid);
	usleep(1200000);
	c1 = cpu_s(s.pid);
	ok(c0 >= 0 && c1 - c0 < 0.3,
	   "server: out of fds (EMFILE) with clients waiting: %.2f s of CPU in 1.2 s",
	   c1 - c0);
	for (i = 0; i < 8; i++)
		close(fd[i]);
	ok(scrape_ok(s.port, "scrape after EMFILE"),
	   "server: once fds are free again a scrape gets 200 and the whole body");
	ok(stop(&s) == 0, "server: exit status 0 on SIGTERM after EMFILE");
	unlink(s.log);
}

/* SIGTERM while an answer is under way: the client still gets all of it. */
static void graceful_stop(void)
{
	struct server s;
	struct answer r;
	char buf[4096], log[256] = "";
	int fd, idle, status, n;
	bool good;
	FILE *f;

	/*
	 * More than the loopback socket buffers hold (4 + 6 MiB at most);
	 * the test build gives it STOP_MS of 5 s (Makefile).
	 */
	big = 16 << 20;
	start(&s, 0);
	big = 0;
	idle = dial(s.port);
	fd = dial(s.port);
	n = write(fd, "GET /metrics HTTP/1.0\r\n\r\n", 25);
	/* the answer has started: the server is writing it */
	n = recv(fd, buf, sizeof(buf), MSG_PEEK);
	kill(s.pid, SIGTERM);
	/* long enough for the server to take the signal mid-answer */
	usleep(50000);
	good = n > 0 && receive(fd, &r) && r.status == 200 &&
	       r.clen == (long)r.blen && r.blen >= 16 << 20 &&
	       !strncmp(r.body, TEXT_BODY, strlen(TEXT_BODY));
	ok(good, "server: SIGTERM during a 16 MiB answer: the client gets all of it (%zu of %ld bytes)",
	   r.blen, r.clen);
	free(r.body);
	n = read(idle, buf, 1);
	close(idle);
	ok(n == 0, "server: SIGTERM closes a client that has sent nothing");
	waitpid(s.pid, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0, "server: exit status 0 after SIGTERM");
	f = fopen(s.log, "r");
	if (f) {
		n = fread(log, 1, sizeof(log) - 1, f);
		log[n > 0 ? n : 0] = 0;
		fclose(f);
	}
	ok(!strcmp(log, "qpistat: Terminated, stopping\n"), "server: says 'qpistat: Terminated, stopping' and nothing else");
	unlink(s.log);
}

void test_server(void)
{
	struct server s;

	signal(SIGPIPE, SIG_IGN);
	start(&s, 0);
	answers(&s);
	rfc9112(&s);
	head_deadline(&s);
	slowloris(&s);
	ok(scrape_ok(s.port, "scrape after the attack"), "server: serves after the attack");
	stalled_answered(&s, 1);
	stalled_answered(&s, 30);
	ok(scrape_ok(s.port, "scrape after the stalled clients"),
	   "server: serves after the stalled clients");
	ok(stop(&s) == 0, "server: exit status 0 on SIGTERM");
	unlink(s.log);
	out_of_fds();
	graceful_stop();
}
