// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of qpistat's HTTP request parser (http.c), then of its
 * server (test_server.c): make -C tools/qpistat test, with ASan and UBSan.
 * Flat KTAP, one line per case.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "http.h"
#include "test.h"

static int n, failed;

void ok(int cond, const char *fmt, ...)
{
	va_list ap;

	n++;
	if (!cond)
		failed++;
	printf("%sok %d ", cond ? "" : "not ", n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* parse @s (a complete request) and compare status, route and format */
static void req(const char *s, int status, int route, int om, const char *name)
{
	struct http_request r;
	size_t len = strlen(s), end = http_header_end(s, len);
	int good;

	http_parse(s, end ? end : len, false, &r);
	good = r.status == status &&
	       (status || ((int)r.route == route && r.openmetrics == om));
	if (!good)
		printf("# %s: status %d route %d openmetrics %d\n", name,
		       r.status, r.route, r.openmetrics);
	ok(good, "%s", name);
}

/* parse @s as a server on a loopback address would: the status */
static void lo_req(const char *s, int status, const char *name)
{
	struct http_request r;

	http_parse(s, strlen(s), true, &r);
	ok(r.status == status, "loopback bind: %s: status %d (%s)", name, r.status,
	   r.status ? r.why : "ok");
}

/* parse @s and compare status and the HEAD flag */
static void head_is(const char *s, int status, const char *name)
{
	struct http_request r;

	http_parse(s, strlen(s), false, &r);
	ok(r.status == status && r.head, "%s: status %d, head %d", name,
	   r.status, r.head);
}

/* one Accept header value: does it get OpenMetrics? */
static void accept_is(const char *v, int want, const char *name)
{
	struct http_accept a = { };

	http_accept_add(&a, v, strlen(v));
	ok(http_accept_openmetrics(&a) == want, "%s", name);
}

/*
 * What RFC 9110 and 9112 ask of a server (issue 29 item 4): Host, the
 * loopback names, a leading empty line, absolute-form targets, the Date
 * format and oversized heads.
 */
static void rfc9112(void)
{
	static const char *const lo_hosts[] = {
		"localhost", "LocalHost:9739", "localhost:", "127.0.0.1",
		"127.0.0.1:9739", "127.255.0.7:80", "[::1]", "[::1]:9739",
		"[0:0:0:0:0:0:0:1]:9739", "[::ffff:127.0.0.1]:9739",
	};
	static const char *const far_hosts[] = {
		"evil.example", "evil.example:9739", "localhost.evil.example",
		"127.0.0.1.evil.example", "128.0.0.1:9739", "[::2]:9739",
		"[::ffff:10.0.0.1]", "127.1", "0177.0.0.1", "", "10.1.2.3:9739",
	};
	char buf[256], date[HTTP_DATE_LEN], big[HTTP_MAX_REQUEST];
	unsigned int i;

	req("GET /metrics HTTP/1.1\r\n\r\n", 400, 0, 0, "HTTP/1.1 without Host 400");
	req("GET /metrics HTTP/1.1\r\nHost: a\r\nhost: a\r\n\r\n", 400, 0, 0,
	    "two Host headers 400");
	req("GET /metrics HTTP/1.0\r\nHost: a\r\nHost: b\r\n\r\n", 400, 0, 0,
	    "two Host headers in HTTP/1.0 400");
	req("GET /metrics HTTP/1.1\r\nHost: a b\r\n\r\n", 400, 0, 0, "Host 'a b' 400");
	req("GET /metrics HTTP/1.1\r\nHost: a/b\r\n\r\n", 400, 0, 0, "Host 'a/b' 400");
	req("GET /metrics HTTP/1.1\r\nHost: a:x\r\n\r\n", 400, 0, 0, "Host 'a:x' 400");
	req("GET /metrics HTTP/1.1\r\nHost: [::1\r\n\r\n", 400, 0, 0, "Host '[::1' 400");
	req("GET /metrics HTTP/1.1\r\nHost:  evil.example  \r\n\r\n", 0, ROUTE_METRICS, 0,
	    "any Host on a non-loopback bind");
	for (i = 0; i < sizeof(lo_hosts) / sizeof(lo_hosts[0]); i++) {
		snprintf(buf, sizeof(buf), "GET /metrics HTTP/1.1\r\nHost: %s\r\n\r\n",
			 lo_hosts[i]);
		lo_req(buf, 0, lo_hosts[i]);
		ok(http_host_loopback(lo_hosts[i], strlen(lo_hosts[i])),
		   "http_host_loopback('%s')", lo_hosts[i]);
	}
	for (i = 0; i < sizeof(far_hosts) / sizeof(far_hosts[0]); i++) {
		snprintf(buf, sizeof(buf), "GET /metrics HTTP/1.1\r\nHost: %s\r\n\r\n",
			 far_hosts[i]);
		lo_req(buf, 421, far_hosts[i]);
		ok(!http_host_loopback(far_hosts[i], strlen(far_hosts[i])),
		   "not http_host_loopback('%s')", far_hosts[i]);
	}
	lo_req("GET /metrics HTTP/1.0\r\n\r\n", 0, "HTTP/1.0 without Host");

	ok(http_header_end("\r\n\r\nGET / HTTP/1.1\r\n\r\n", 22) == 22,
	   "header end after two leading empty lines");
	ok(http_header_end("\r\n\r\n", 4) == 0, "empty lines alone: incomplete");
	req("\r\nGET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", 0, ROUTE_METRICS, 0,
	    "leading CRLF ignored");
	req("\n\r\nHEAD /metrics HTTP/1.0\r\n\r\n", 0, ROUTE_METRICS, 0,
	    "leading LF and CRLF ignored");
	head_is("\r\nHEAD /metrics HTTP/1.1\r\nHost: x\r\n\r\n", 0,
		"HEAD after a leading CRLF");

	req("GET http://h:9739/metrics HTTP/1.1\r\nHost: h:9739\r\n\r\n", 0, ROUTE_METRICS, 0,
	    "absolute form http://h:9739/metrics");
	req("GET HTTP://h/metrics?x=1 HTTP/1.1\r\nHost: h\r\n\r\n", 0, ROUTE_METRICS, 0,
	    "absolute form, scheme in capitals, query");
	req("GET http://h HTTP/1.1\r\nHost: h\r\n\r\n", 0, ROUTE_ROOT, 0,
	    "absolute form without a path: the root");
	req("GET http://h/nope HTTP/1.0\r\n\r\n", 404, 0, 0, "absolute form of an unknown path 404");
	req("GET http://h/metrics HTTP/1.1\r\n\r\n", 400, 0, 0, "absolute form without Host 400");
	req("GET http://u@h/metrics HTTP/1.1\r\nHost: h\r\n\r\n", 400, 0, 0,
	    "absolute form with user information 400");
	req("GET http:///metrics HTTP/1.1\r\nHost: h\r\n\r\n", 400, 0, 0,
	    "absolute form without a host 400");
	req("GET https://h/metrics HTTP/1.1\r\nHost: h\r\n\r\n", 400, 0, 0,
	    "https: absolute form 400");
	lo_req("GET http://127.0.0.1:9739/metrics HTTP/1.1\r\nHost: evil.example\r\n\r\n", 0,
	       "absolute form's loopback authority, not Host, counts");
	lo_req("GET http://evil.example/metrics HTTP/1.1\r\nHost: localhost\r\n\r\n", 421,
	       "absolute form with a foreign authority");

	http_date(date, 784111777);
	ok(!strcmp(date, "Sun, 06 Nov 1994 08:49:37 GMT"), "http_date(784111777): '%s'", date);
	http_date(date, 951782400);
	ok(!strcmp(date, "Tue, 29 Feb 2000 00:00:00 GMT"), "http_date(951782400): '%s'", date);

	memset(big, 'a', sizeof(big));
	memcpy(big, "GET /metrics HTTP/1.1\r\nX: ", 26);
	ok(http_too_large(big, sizeof(big)) == 431, "a full head with a complete request line: 431");
	memcpy(big, "GET /", 5);
	memset(big + 5, 'a', sizeof(big) - 5);
	ok(http_too_large(big, sizeof(big)) == 414, "a full head without a complete request line: 414");
	ok(!strcmp(http_reason(421), "Misdirected Request") &&
	   !strcmp(http_reason(431), "Request Header Fields Too Large") &&
	   !strcmp(http_reason(414), "URI Too Long"), "reasons of 414, 421 and 431");
}

int main(int argc, char **argv)
{
	static char big[HTTP_MAX_REQUEST + 64];
	const char nul[] = "GET /metrics HTTP/1.1\r\nX: a\0b\r\n\r\n";
	struct http_request r;

	/* the command of a test_cli.c case */
	if (argc == 3 && !strcmp(argv[1], "--fds"))
		return list_fds(argv[2]);
	printf("KTAP version 1\n");

	ok(http_header_end("GET / HTTP/1.1\r\n\r\n", 18) == 18, "header end CRLF CRLF");
	ok(http_header_end("GET / HTTP/1.1\n\n", 16) == 16, "header end LF LF");
	ok(http_header_end("GET / HTTP/1.1\r\nA: b\r\n", 22) == 0, "no header end yet");
	ok(http_header_end("", 0) == 0, "empty buffer");

	req("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", 0, ROUTE_METRICS, 0, "GET /metrics");
	req("GET /metrics HTTP/1.0\r\n\r\n", 0, ROUTE_METRICS, 0, "HTTP/1.0");
	req("GET /metrics?name[]=x HTTP/1.1\r\nHost: x\r\n\r\n", 0, ROUTE_METRICS, 0, "query string");
	req("GET / HTTP/1.1\r\nHost: x\r\n\r\n", 0, ROUTE_ROOT, 0, "GET /");
	req("HEAD /metrics HTTP/1.1\r\nHost: x\r\n\r\n", 0, ROUTE_METRICS, 0, "HEAD");
	req("GET /nope HTTP/1.1\r\nHost: x\r\n\r\n", 404, 0, 0, "unknown path 404");
	req("GET /metrics/ HTTP/1.1\r\nHost: x\r\n\r\n", 404, 0, 0, "/metrics/ 404");
	req("POST /metrics HTTP/1.1\r\nHost: x\r\n\r\n", 405, 0, 0, "POST 405");
	req("get /metrics HTTP/1.1\r\nHost: x\r\n\r\n", 405, 0, 0, "lower-case method 405");
	req("GET /metrics\r\n\r\n", 400, 0, 0, "HTTP/0.9 form 400");
	req("GET /metrics HTTP/2.0\r\n\r\n", 400, 0, 0, "HTTP/2.0 400");
	req("GET  /metrics HTTP/1.1\r\nHost: x\r\n\r\n", 400, 0, 0, "two spaces 400");
	req("GET /metrics HTTP/1.1 x\r\n\r\n", 400, 0, 0, "trailing token 400");
	req("G(T /metrics HTTP/1.1\r\nHost: x\r\n\r\n", 400, 0, 0, "bad method character 400");
	req("GET /metrics HTTP/1.1\r\nHost: x\r\nAccept text/plain\r\n\r\n", 400, 0, 0, "header without colon 400");
	req("GET /metrics HTTP/1.1\r\nHost: x\r\n: x\r\n\r\n", 400, 0, 0, "empty header name 400");
	req("GET /metrics HTTP/1.1\r\nHost: x\r\nA b: x\r\n\r\n", 400, 0, 0, "space in header name 400");
	req("GET /metrics HTTP/1.1\r\nHost: x\r\nA: b\r\n c\r\n\r\n", 400, 0, 0, "folded header 400");
	req("GET /metrics HTTP/1.1\r\nHost: x\r\nA: b\x01\r\n\r\n", 400, 0, 0, "control character 400");
	req("\r\n\r\n", 400, 0, 0, "empty request line 400");
	req("GET /metrics HTTP/1.1\r\nHost: x\r\nAccept: application/openmetrics-text\r\n\r\n",
	    0, ROUTE_METRICS, 1, "Accept openmetrics");
	req("GET /metrics HTTP/1.1\r\nHost: x\r\naccept: text/plain\r\n\r\n",
	    0, ROUTE_METRICS, 0, "Accept text/plain");
	http_parse(nul, sizeof(nul) - 1, false, &r);
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

	accept_is("application/openmetrics-text;version=0.0.1,text/plain;version=0.0.4;q=0.5",
		  0, "OpenMetrics 0.0.1 only: we do not produce it, the text format");
	accept_is("application/openmetrics-text;version=0.0.1;q=1,application/openmetrics-text;version=1.0.0;q=0.8,text/plain;q=0.5",
		  1, "OpenMetrics 1.0.0 at a lower q than 0.0.1: still 1.0.0 over text");
	accept_is("application/openmetrics-text; version=\"1.0.0\"; q=0.7, text/plain;q=0.6",
		  1, "quoted version, spaces around parameters");
	accept_is("application/openmetrics-text;version=2.0.0", 0, "OpenMetrics 2.0.0: the text format");
	accept_is("application/openmetrics-text, text/plain", 0, "q tie at 1: the text format");
	accept_is("application/openmetrics-text;q=0.5,*/*;q=0.5", 0, "q tie with */*: the text format");
	accept_is("application/openmetrics-text;q=0.501,text/plain;q=0.5", 1, "OpenMetrics higher by 0.001");
	accept_is("application/openmetrics-text;q=x", 0, "unparsable q refuses the type");
	accept_is("application/*;q=0.9,text/plain;q=0.2", 1, "application/* covers OpenMetrics");
	accept_is(";;,;q=1, ,", 0, "empty media ranges");
	req("GET /metrics HTTP/1.1\r\nHost: x\r\nAccept: text/plain;q=0.5\r\n"
	    "Accept: application/openmetrics-text;version=1.0.0\r\n\r\n",
	    0, ROUTE_METRICS, 1, "two Accept headers: OpenMetrics in the second wins");
	req("GET /metrics HTTP/1.1\r\nHost: x\r\nAccept: application/openmetrics-text;q=0.4\r\n"
	    "accept: text/plain;q=0.9\r\n\r\n",
	    0, ROUTE_METRICS, 0, "two Accept headers: text in the second wins");
	req("GET /metrics HTTP/1.1\r\nHost: x\r\nAccept: application/openmetrics-text\r\n"
	    "Accept: */*\r\n\r\n",
	    0, ROUTE_METRICS, 0, "two Accept headers tied: the text format");
	req("GET /metrics HTTP/1.1\r\nHost: x\r\nAccept: application/openmetrics-text;version=0.0.1\r\n\r\n",
	    0, ROUTE_METRICS, 0, "Accept OpenMetrics 0.0.1 only: the text format");
	head_is("HEAD /metrics HTTP/1.1\r\nHost: x\r\n\r\n", 0, "HEAD /metrics");
	head_is("HEAD /nope HTTP/1.1\r\nHost: x\r\n\r\n", 404, "HEAD of an unknown path keeps head");
	head_is("HEAD /metrics HTTP/1.1\r\nHost: x\r\nA b: c\r\n\r\n", 400, "HEAD with a bad header keeps head");
	http_parse("GET /nope HTTP/1.1\r\nHost: x\r\n\r\n", 31, false, &r);
	ok(r.status == 404 && !r.head, "GET of an unknown path: not head");

	rfc9112();
	test_server();
	test_cli();

	printf("1..%d\n", n);
	return failed ? 1 : 0;
}
