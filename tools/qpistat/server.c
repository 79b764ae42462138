// SPDX-License-Identifier: GPL-2.0
/*
 * The exporter's HTTP server: one thread, non-blocking sockets and poll().
 * A scrape reads the counters once and answers from memory, so scrapers
 * never wait on each other for long.  Every connection has deadlines, so a
 * slow or silent client cannot keep a slot for long, and a new client
 * never waits for one for long: when all MAX_CONNS slots are taken it
 * pushes one out (make_room()), of an address holding more than
 * MAX_PEER_CONNS while there is one.  Clients that connect and stall, before or after their request,
 * however many, cannot shut out a scraper.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "http.h"
#include "server.h"

void sb_printf(struct sbuf *sb, const char *fmt, ...)
{
	va_list ap;
	char *p;
	int n;

	if (sb->oom)
		return;
	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(sb->p + sb->len, sb->cap - sb->len, fmt, ap);
		va_end(ap);
		if (n < 0) {
			sb->oom = true;
			return;
		}
		if (sb->len + n < sb->cap)
			break;
		p = realloc(sb->p, (sb->len + n + 1) * 2);
		if (!p) {
			sb->oom = true;
			return;
		}
		sb->p = p;
		sb->cap = (sb->len + n + 1) * 2;
	}
	sb->len += n;
}

enum conn_state { READING, WRITING, DRAINING };

struct conn {
	int fd;
	enum conn_state state;
	unsigned long seq;	/* order of accept() */
	struct sockaddr_storage peer;	/* the address, port 0 */
	double start, deadline;
	size_t len;
	struct sbuf out;
	size_t off;
	char req[HTTP_MAX_REQUEST];
};

static struct conn *conns[MAX_CONNS];
/* the listening socket is on a loopback address: Host must name one */
static bool loopback;
static int nr_conns;
static unsigned long nr_accepted;
static double accept_paused_until;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void conn_close(int i)
{
	struct conn *c = conns[i];

	close(c->fd);
	free(c->out.p);
	free(c);
	conns[i] = conns[--nr_conns];
}

static void respond(struct conn *c, int status, const char *ctype,
		    const char *extra, const char *body, size_t len, bool head)
{
	char date[HTTP_DATE_LEN];

	http_date(date, time(NULL));
	sb_printf(&c->out, "HTTP/1.1 %d %s\r\nDate: %s\r\nContent-Type: %s\r\n"
		  "Content-Length: %zu\r\n%sConnection: close\r\n\r\n",
		  status, http_reason(status), date, ctype, len, extra ? extra : "");
	if (!head)
		sb_printf(&c->out, "%.*s", (int)len, body);
	c->state = WRITING;
	c->deadline = c->start + CONN_TIMEOUT_MS / 1e3;
}

static void respond_text(struct conn *c, int status, const char *extra,
			 const char *msg, bool head)
{
	char body[256];
	int n = snprintf(body, sizeof(body), "%d %s: %s\n", status,
			 http_reason(status), msg);

	respond(c, status, "text/plain; charset=utf-8", extra, body, n, head);
}

static void handle_request(struct conn *c, size_t end, metrics_fn metrics)
{
	struct http_request req;
	struct sbuf body = { };
	int err;

	http_parse(c->req, end, loopback, &req);
	if (req.status) {
		respond_text(c, req.status, req.status == 405 ?
			     "Allow: GET, HEAD\r\n" : NULL, req.why, req.head);
		return;
	}
	if (req.route == ROUTE_ROOT) {
		respond_text(c, 200, NULL, "qpistat exporter, metrics at /metrics", req.head);
		return;
	}
	err = metrics(&body, req.openmetrics);
	if (err) {
		char msg[128];

		snprintf(msg, sizeof(msg), "reading the counters failed: %s",
			 strerror(err));
		fprintf(stderr, "qpistat: %s\n", msg);
		respond_text(c, 500, NULL, msg, req.head);
	} else if (body.oom) {
		respond_text(c, 500, NULL, "out of memory", req.head);
	} else {
		/* caches must not serve one format to a scraper of the other */
		respond(c, 200, req.openmetrics ?
			"application/openmetrics-text; version=1.0.0; charset=utf-8" :
			"text/plain; version=0.0.4; charset=utf-8",
			"Vary: Accept\r\n", body.p, body.len, req.head);
	}
	free(body.p);
}

/* Returns false when the connection is done with. */
static bool conn_io(struct conn *c, metrics_fn metrics)
{
	char scratch[4096];
	ssize_t n;
	size_t end;

	switch (c->state) {
	case READING:
		n = read(c->fd, c->req + c->len, sizeof(c->req) - c->len);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return true;
		if (n <= 0)
			return false;
		c->len += n;
		end = http_header_end(c->req, c->len);
		if (end)
			handle_request(c, end, metrics);
		else if (c->len == sizeof(c->req))
			respond_text(c, http_too_large(c->req, c->len), NULL,
				     "request head larger than 8192 bytes",
				     !strncmp(c->req, "HEAD ", 5));
		return !c->out.oom;
	case WRITING:
		n = send(c->fd, c->out.p + c->off, c->out.len - c->off, MSG_NOSIGNAL);
		if (n < 0)
			return errno == EAGAIN || errno == EINTR;
		c->off += n;
		if (c->off < c->out.len)
			return true;
		shutdown(c->fd, SHUT_WR);
		c->state = DRAINING;
		if (c->deadline > now_s() + DRAIN_MS / 1e3)
			c->deadline = now_s() + DRAIN_MS / 1e3;
		return true;
	case DRAINING:
		n = read(c->fd, scratch, sizeof(scratch));
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return true;
		return n > 0;
	}
	return false;
}

/* the peer's address without its port */
static void peer_of(struct sockaddr_storage *a)
{
	if (a->ss_family == AF_INET)
		((struct sockaddr_in *)a)->sin_port = 0;
	else if (a->ss_family == AF_INET6)
		((struct sockaddr_in6 *)a)->sin6_port = 0;
}

static bool same_peer(const struct conn *a, const struct conn *b)
{
	return !memcmp(&a->peer, &b->peer, sizeof(a->peer));
}

static int peer_conns(const struct conn *peer)
{
	int i, n = 0;

	for (i = 0; i < nr_conns; i++)
		n += same_peer(conns[i], peer);
	return n;
}

/*
 * The oldest connection that can be pushed out (@over: only of addresses
 * holding more than MAX_PEER_CONNS), or -1.  First the oldest that has its
 * whole answer and only waits for the client to close: pushing it out
 * costs nobody anything.  Then the oldest still reading its request that
 * was accepted before @round: a scraper's request may be waiting unread in
 * a socket accepted in this round.  Never one being answered: its answer
 * fits the socket buffers but for a client that does not read, and
 * CONN_TIMEOUT_MS ends that.
 */
static int victim(unsigned long round, bool over)
{
	int i, v = -1;

	for (i = 0; i < nr_conns; i++) {
		const struct conn *c = conns[i];

		if (c->state == WRITING || (c->state == READING && c->seq >= round) ||
		    (over && peer_conns(c) <= MAX_PEER_CONNS))
			continue;
		if (v < 0 || (c->state == DRAINING && conns[v]->state == READING) ||
		    (c->state == conns[v]->state && c->seq < conns[v]->seq))
			v = i;
	}
	return v;
}

/*
 * All slots are taken and a client comes: whom it pushes out, or -1 for
 * "not now".  While some address holds more than MAX_PEER_CONNS, one of
 * those (and no other); else anyone's.  So an address cannot take the
 * slots of one that holds fewer, however many it opens, and a client
 * never waits for long.  (Clients sharing an address, say 127.0.0.1 with
 * a scraper on the same host, compete among themselves.)
 */
static int make_room(unsigned long round)
{
	int i;

	for (i = 0; i < nr_conns; i++)
		if (peer_conns(conns[i]) > MAX_PEER_CONNS)
			return victim(round, true);
	return victim(round, false);
}

static void evict(int i)
{
	char scratch[4096];
	int n = 16;

	/*
	 * Unread bytes make close() send a reset, which can cost the client
	 * the end of its answer: read what there is.
	 */
	if (conns[i]->state == DRAINING)
		while (n-- && read(conns[i]->fd, scratch, sizeof(scratch)) > 0)
			;
	conn_close(i);
}

static void accept_all(int lfd, metrics_fn metrics)
{
	unsigned long round = nr_accepted;

	for (;;) {
		socklen_t alen = sizeof(struct sockaddr_storage);
		struct conn *c;
		int fd;

		if (nr_conns == MAX_CONNS && make_room(round) < 0)
			return;
		c = calloc(1, sizeof(*c));
		if (!c) {
			accept_paused_until = now_s() + ACCEPT_PAUSE_MS / 1e3;
			return;
		}
		fd = accept4(lfd, (struct sockaddr *)&c->peer, &alen,
			     SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			free(c);
			if (errno == ECONNABORTED || errno == EINTR)
				continue;
			/*
			 * Out of fds or memory: the listening socket stays
			 * readable, so stop polling it for a while rather
			 * than spin.
			 */
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				accept_paused_until = now_s() + ACCEPT_PAUSE_MS / 1e3;
			return;
		}
		peer_of(&c->peer);
		if (nr_conns == MAX_CONNS)
			evict(make_room(round));
		c->fd = fd;
		c->state = READING;
		c->seq = nr_accepted++;
		c->start = now_s();
		c->deadline = c->start + HEAD_TIMEOUT_MS / 1e3;
		conns[nr_conns++] = c;
		/*
		 * A request that came with the connection is answered now
		 * (and the answer, being written, is pushed out last); a
		 * client that has gone already frees its slot.
		 */
		if (!conn_io(c, metrics))
			conn_close(nr_conns - 1);
	}
}

/* SIGTERM: no more requests; the answers under way get STOP_MS. */
static void stopping(void)
{
	double end = now_s() + STOP_MS / 1e3;
	int i;

	for (i = nr_conns - 1; i >= 0; i--) {
		if (conns[i]->state == READING)
			conn_close(i);
		else if (conns[i]->deadline > end)
			conns[i]->deadline = end;
	}
}

/* Is @fd bound to 127.0.0.0/8, ::1 or ::ffff:127.0.0.0/104? */
static bool bound_to_loopback(int fd)
{
	struct sockaddr_storage a;
	socklen_t alen = sizeof(a);
	const struct in6_addr *a6 = &((struct sockaddr_in6 *)&a)->sin6_addr;

	if (getsockname(fd, (struct sockaddr *)&a, &alen))
		return false;
	if (a.ss_family == AF_INET)
		return ntohl(((struct sockaddr_in *)&a)->sin_addr.s_addr) >> 24 == 127;
	return a.ss_family == AF_INET6 && (IN6_IS_ADDR_LOOPBACK(a6) ||
		(IN6_IS_ADDR_V4MAPPED(a6) && a6->s6_addr[12] == 127));
}

int serve(int lfd, metrics_fn metrics)
{
	struct pollfd pfd[2 + MAX_CONNS];
	bool stop = false;
	sigset_t set;
	int sfd, i;

	loopback = bound_to_loopback(lfd);
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	sfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (sfd < 0) {
		fprintf(stderr, "qpistat: signalfd: %s\n", strerror(errno));
		exit(1);
	}
	while (!stop || nr_conns) {
		struct signalfd_siginfo si;
		double now = now_s(), next = now + 3600;
		bool paused = now < accept_paused_until;
		int n = 0, timeout;

		pfd[n++] = (struct pollfd){ .fd = sfd, .events = POLLIN };
		pfd[n++] = (struct pollfd){
			.fd = stop || paused || (nr_conns == MAX_CONNS &&
				make_room(nr_accepted) < 0) ? -1 : lfd,
			.events = POLLIN };
		if (paused)
			next = accept_paused_until;
		for (i = 0; i < nr_conns; i++) {
			pfd[n++] = (struct pollfd){ .fd = conns[i]->fd,
				.events = conns[i]->state == WRITING ? POLLOUT : POLLIN };
			if (conns[i]->deadline < next)
				next = conns[i]->deadline;
		}
		timeout = next > now ? (int)((next - now) * 1000) + 1 : 0;
		if (poll(pfd, n, timeout) < 0 && errno != EINTR) {
			fprintf(stderr, "qpistat: poll: %s\n", strerror(errno));
			exit(1);
		}
		if (read(sfd, &si, sizeof(si)) == sizeof(si)) {
			/* a second signal: no more waiting */
			if (stop)
				break;
			fprintf(stderr, "qpistat: %s, stopping\n", strsignal(si.ssi_signo));
			stop = true;
			stopping();
			continue;
		}
		/* connections first: conn_close() reorders conns[] */
		now = now_s();
		for (i = nr_conns - 1; i >= 0; i--) {
			short re = pfd[2 + i].revents;

			if (now >= conns[i]->deadline ||
			    (re && !conn_io(conns[i], metrics)))
				conn_close(i);
		}
		if (pfd[1].revents)
			accept_all(lfd, metrics);
	}
	while (nr_conns)
		conn_close(nr_conns - 1);
	close(lfd);
	close(sfd);
	return 0;
}
