// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of qpistat's HTTP request parser (http.c), KTAP.
 * Built and run by tools/prometheus/test.sh with ASan and UBSan.
 */
#include <stdio.h>
#include <string.h>

#include "http.h"

static int n, failed;

static void ok(int cond, const char *name)
{
	n++;
	if (!cond)
		failed++;
	printf("%sok %d %s\n", cond ? "" : "not ", n, name);
}

/* parse @s (a complete request) and compare status, route and format */
static void req(const char *s, int status, int route, int om, const char *name)
{
	struct http_request r;
	size_t len = strlen(s), end = http_header_end(s, len);
	int good;

	http_parse(s, end ? end : len, &r);
	good = r.status == status &&
	       (status || ((int)r.route == route && r.openmetrics == om));
	if (!good)
		printf("# %s: status %d route %d openmetrics %d\n", name,
		       r.status, r.route, r.openmetrics);
	ok(good, name);
}

static void accept_is(const char *v, int want, const char *name)
{
	ok(http_wants_openmetrics(v, strlen(v)) == want, name);
}

int main(void)
{
	static char big[HTTP_MAX_REQUEST + 64];
	const char nul[] = "GET /metrics HTTP/1.1\r\nX: a\0b\r\n\r\n";
	struct http_request r;

	printf("KTAP version 1\n");

	ok(http_header_end("GET / HTTP/1.1\r\n\r\n", 18) == 18, "header end CRLF CRLF");
	ok(http_header_end("GET / HTTP/1.1\n\n", 16) == 16, "header end LF LF");
	ok(http_header_end("GET / HTTP/1.1\r\nA: b\r\n", 22) == 0, "no header end yet");
	ok(http_header_end("", 0) == 0, "empty buffer");

	req("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", 0, ROUTE_METRICS, 0, "GET /metrics");
	req("GET /metrics HTTP/1.0\r\n\r\n", 0, ROUTE_METRICS, 0, "HTTP/1.0");
	req("GET /metrics?name[]=x HTTP/1.1\r\n\r\n", 0, ROUTE_METRICS, 0, "query string");
	req("GET / HTTP/1.1\r\n\r\n", 0, ROUTE_ROOT, 0, "GET /");
	req("HEAD /metrics HTTP/1.1\r\n\r\n", 0, ROUTE_METRICS, 0, "HEAD");
	req("GET /nope HTTP/1.1\r\n\r\n", 404, 0, 0, "unknown path 404");
	req("GET /metrics/ HTTP/1.1\r\n\r\n", 404, 0, 0, "/metrics/ 404");
	req("POST /metrics HTTP/1.1\r\n\r\n", 405, 0, 0, "POST 405");
	req("get /metrics HTTP/1.1\r\n\r\n", 405, 0, 0, "lower-case method 405");
	req("GET /metrics\r\n\r\n", 400, 0, 0, "HTTP/0.9 form 400");
	req("GET /metrics HTTP/2.0\r\n\r\n", 400, 0, 0, "HTTP/2.0 400");
	req("GET  /metrics HTTP/1.1\r\n\r\n", 400, 0, 0, "two spaces 400");
	req("GET /metrics HTTP/1.1 x\r\n\r\n", 400, 0, 0, "trailing token 400");
	req("GET http://h/metrics HTTP/1.1\r\n\r\n", 400, 0, 0, "absolute form 400");
	req("G(T /metrics HTTP/1.1\r\n\r\n", 400, 0, 0, "bad method character 400");
	req("GET /metrics HTTP/1.1\r\nAccept text/plain\r\n\r\n", 400, 0, 0, "header without colon 400");
	req("GET /metrics HTTP/1.1\r\n: x\r\n\r\n", 400, 0, 0, "empty header name 400");
	req("GET /metrics HTTP/1.1\r\nA b: x\r\n\r\n", 400, 0, 0, "space in header name 400");
	req("GET /metrics HTTP/1.1\r\nA: b\r\n c\r\n\r\n", 400, 0, 0, "folded header 400");
	req("GET /metrics HTTP/1.1\r\nA: b\x01\r\n\r\n", 400, 0, 0, "control character 400");
	req("\r\n\r\n", 400, 0, 0, "empty request line 400");
	req("GET /metrics HTTP/1.1\r\nAccept: application/openmetrics-text\r\n\r\n",
	    0, ROUTE_METRICS, 1, "Accept openmetrics");
	req("GET /metrics HTTP/1.1\r\naccept: text/plain\r\n\r\n",
	    0, ROUTE_METRICS, 0, "Accept text/plain");
	http_parse(nul, sizeof(nul) - 1, &r);
	ok(r.status == 400, "NUL byte 400");
	memset(big, 'a', sizeof(big));
	memcpy(big, "GET /metrics HTTP/1.1\r\nX: ", 26);
	ok(http_header_end(big, HTTP_MAX_REQUEST) == 0, "8 KiB without an end is incomplete");

	accept_is("application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1",
		  1, "Prometheus 2.x Accept header");
	accept_is("text/plain;version=0.0.4;q=1,*/*;q=0.1", 0, "text only");
	accept_is("", 0, "empty Accept");
	accept_is("*/*", 0, "any type: the text format");
	accept_is("application/openmetrics-text; q=0", 0, "openmetrics refused with q=0");
	accept_is("text/plain;q=0.9, application/openmetrics-text;q=0.5", 0, "text preferred by q");
	accept_is("Application/OpenMetrics-Text ; version=1.0.0", 1, "case and spaces");

	printf("1..%d\n", n);
	return failed ? 1 : 0;
}
