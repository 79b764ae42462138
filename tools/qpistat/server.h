/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The HTTP server of qpistat --listen, apart from the counters so that the
 * host tests (test_server.c) can run it with made-up metrics.
 */
#ifndef QPISTAT_SERVER_H
#define QPISTAT_SERVER_H

#include <stdbool.h>
#include <stddef.h>

#define MAX_CONNS	64
#define MAX_PEER_CONNS	16	/* of one client address */
#define HEAD_TIMEOUT_MS	2000	/* from accept to the end of the request head */
#ifndef CONN_TIMEOUT_MS
#define CONN_TIMEOUT_MS	5000	/* from accept to the last byte sent */
#endif
#ifndef DRAIN_MS
#define DRAIN_MS	1000	/* reading what the client still sends */
#endif
#define ACCEPT_PAUSE_MS	100	/* out of fds: how long not to accept */
#ifndef STOP_MS
#define STOP_MS		1000	/* SIGTERM: time to finish the answers */
#endif

/* A growing text buffer; @oom once an allocation failed. */
struct sbuf {
	char *p;
	size_t len, cap;
	bool oom;
};

void sb_printf(struct sbuf *sb, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Append the exposition to @sb, OpenMetrics 1.0.0 or the text format
 * 0.0.4: 0, or an errno value when the counters could not be read.
 */
typedef int (*metrics_fn)(struct sbuf *sb, bool openmetrics);

/*
 * Serve GET /metrics on the listening socket @lfd until SIGTERM or SIGINT,
 * then finish the answers under way (at most STOP_MS) and return 0.
 */
int serve(int lfd, metrics_fn metrics);

#endif
