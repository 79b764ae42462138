/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The small part of HTTP/1.x that qpistat --listen speaks: one request per
 * connection, GET or HEAD of /metrics, the answer chosen by Accept.  Pure
 * functions, unit tested on the host (test_http.c).
 */
#ifndef QPISTAT_HTTP_H
#define QPISTAT_HTTP_H

#include <stdbool.h>
#include <stddef.h>

#define HTTP_MAX_REQUEST	8192	/* request line and headers */

enum http_route { ROUTE_METRICS, ROUTE_ROOT };

struct http_request {
	int status;		/* 0: complete and valid; else 400, 404, 405 */
	const char *why;	/* for an error status: what was wrong */
	bool head;		/* HEAD: headers only */
	bool openmetrics;	/* Accept prefers OpenMetrics 1.0.0 */
	enum http_route route;
};

/*
 * Where the header block of @buf ends (past the empty line), or 0 when it
 * is not complete yet.
 */
size_t http_header_end(const char *buf, size_t len);

/* Parse the complete header block buf[0..len). */
void http_parse(const char *buf, size_t len, struct http_request *req);

/*
 * The best q-values that the Accept header values seen so far give the two
 * formats qpistat produces: OpenMetrics 1.0.0 and the classic text 0.0.4.
 * A request may carry several Accept headers: they add up.
 */
struct http_accept {
	double om, text;
};

void http_accept_add(struct http_accept *a, const char *v, size_t len);

/* OpenMetrics only when strictly preferred: on a tie, the classic text */
bool http_accept_openmetrics(const struct http_accept *a);

const char *http_reason(int status);

#endif
