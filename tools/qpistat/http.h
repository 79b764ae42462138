/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The small part of HTTP/1.x that qpistat --listen speaks: one request per
 * connection, GET or HEAD of /metrics, the answer chosen by Accept, as RFC
 * 9110 and 9112 want it of a server (Host, absolute-form targets, a
 * leading empty line).  Pure functions, unit tested on the host
 * (test_http.c).
 */
#ifndef QPISTAT_HTTP_H
#define QPISTAT_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#define HTTP_MAX_REQUEST	8192	/* request line and headers */

enum http_route { ROUTE_METRICS, ROUTE_ROOT };

struct http_request {
	int status;		/* 0: complete and valid; else 400, 404, 405, 421 */
	const char *why;	/* for an error status: what was wrong */
	bool head;		/* HEAD: headers only */
	bool openmetrics;	/* Accept prefers OpenMetrics 1.0.0 */
	enum http_route route;
};

/*
 * Where the header block of @buf ends (past the empty line), or 0 when it
 * is not complete yet.  Empty lines before the request line are skipped
 * (RFC 9112 2.2).
 */
size_t http_header_end(const char *buf, size_t len);

/*
 * Parse the complete header block buf[0..len).  @loopback: the server
 * listens on a loopback address, so the only names a client can have
 * used to reach it are loopback ones; any other Host (or absolute-form
 * authority) is a DNS rebinding attempt from a browser and gets 421.
 */
void http_parse(const char *buf, size_t len, bool loopback,
		struct http_request *req);

/*
 * The status for a request head that filled all HTTP_MAX_REQUEST bytes
 * without ending: 414 while the request line is not complete, else 431.
 */
int http_too_large(const char *buf, size_t len);

/* Is authority @h (uri-host [":" port]) a loopback name or address? */
bool http_host_loopback(const char *h, size_t len);

/* @t as an IMF-fixdate (RFC 9110 5.6.7), whatever the locale: 30 bytes */
#define HTTP_DATE_LEN	30
void http_date(char buf[HTTP_DATE_LEN], time_t t);

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
