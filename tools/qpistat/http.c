// SPDX-License-Identifier: GPL-2.0
/*
 * Request parsing for qpistat --listen: see http.h.  Strict on purpose:
 * anything that is not a well-formed HTTP/1.0 or 1.1 request line followed
 * by "name: value" header lines is answered with 400.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "http.h"

size_t http_header_end(const char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (buf[i] != '\n')
			continue;
		if (i + 1 < len && buf[i + 1] == '\n')
			return i + 2;
		if (i + 2 < len && buf[i + 1] == '\r' && buf[i + 2] == '\n')
			return i + 3;
	}
	return 0;
}

static bool is_tchar(char c)
{
	return isalnum((unsigned char)c) || (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* The next line of [*p, end): its start and length without CR LF. */
static bool next_line(const char **p, const char *end, const char **line,
		      size_t *len)
{
	const char *nl = memchr(*p, '\n', end - *p);

	if (!nl)
		return false;
	*line = *p;
	*len = nl - *p;
	if (*len && nl[-1] == '\r')
		(*len)--;
	*p = nl + 1;
	return true;
}

static double accept_q(const char *params, size_t len)
{
	char num[16];
	size_t i = 0, n;

	while (i < len) {
		while (i < len && (params[i] == ';' || params[i] == ' ' || params[i] == '\t'))
			i++;
		if (len - i > 2 && (params[i] == 'q' || params[i] == 'Q') &&
		    params[i + 1] == '=') {
			i += 2;
			for (n = 0; i < len && n < sizeof(num) - 1 &&
			     (isdigit((unsigned char)params[i]) || params[i] == '.'); i++)
				num[n++] = params[i];
			num[n] = 0;
			return n ? strtod(num, NULL) : 0;
		}
		while (i < len && params[i] != ';')
			i++;
	}
	return 1;
}

bool http_wants_openmetrics(const char *v, size_t len)
{
	double om = 0, text = 0;
	const char *end = v + len;

	while (v < end) {
		const char *comma = memchr(v, ',', end - v);
		const char *item_end = comma ? comma : end;
		const char *semi, *type;
		size_t tlen;
		double q;

		while (v < item_end && (*v == ' ' || *v == '\t'))
			v++;
		semi = memchr(v, ';', item_end - v);
		type = v;
		tlen = (semi ? semi : item_end) - v;
		while (tlen && (type[tlen - 1] == ' ' || type[tlen - 1] == '\t'))
			tlen--;
		q = semi ? accept_q(semi, item_end - semi) : 1;
#define IS(s) (tlen == strlen(s) && !strncasecmp(type, s, tlen))
		if (IS("application/openmetrics-text"))
			om = q > om ? q : om;
		else if (IS("text/plain") || IS("text/*") || IS("*/*"))
			text = q > text ? q : text;
#undef IS
		v = comma ? comma + 1 : end;
	}
	return om > 0 && om >= text;
}

static void bad(struct http_request *req, int status, const char *why)
{
	req->status = status;
	req->why = why;
}

void http_parse(const char *buf, size_t len, struct http_request *req)
{
	const char *p = buf, *end = buf + len, *line, *sp1, *sp2, *q;
	size_t n, mlen, tlen;

	memset(req, 0, sizeof(*req));
	if (memchr(buf, 0, len))
		return bad(req, 400, "NUL byte in the request");
	if (!next_line(&p, end, &line, &n))
		return bad(req, 400, "no request line");
	sp1 = memchr(line, ' ', n);
	sp2 = sp1 ? memchr(sp1 + 1, ' ', line + n - sp1 - 1) : NULL;
	if (!sp1 || !sp2)
		return bad(req, 400, "malformed request line");
	mlen = sp1 - line;
	tlen = sp2 - sp1 - 1;
	if (!mlen || mlen > 16 || !tlen)
		return bad(req, 400, "malformed request line");
	for (q = line; q < sp1; q++)
		if (!is_tchar(*q))
			return bad(req, 400, "malformed request line");
	for (q = sp1 + 1; q < sp2; q++)
		if ((unsigned char)*q <= ' ' || *q == 0x7f)
			return bad(req, 400, "malformed request target");
	if (line + n - sp2 - 1 != 8 ||
	    (strncmp(sp2 + 1, "HTTP/1.1", 8) && strncmp(sp2 + 1, "HTTP/1.0", 8)))
		return bad(req, 400, "not HTTP/1.0 or HTTP/1.1");

	while (next_line(&p, end, &line, &n) && n) {
		const char *colon = memchr(line, ':', n);

		if (!colon || colon == line)
			return bad(req, 400, "malformed header line");
		for (q = line; q < colon; q++)
			if (!is_tchar(*q))
				return bad(req, 400, "malformed header line");
		for (q = colon + 1; q < line + n; q++)
			if (((unsigned char)*q < ' ' && *q != '\t') || *q == 0x7f)
				return bad(req, 400, "control character in a header");
		if (colon - line == 6 && !strncasecmp(line, "Accept", 6))
			req->openmetrics = http_wants_openmetrics(colon + 1,
								  line + n - colon - 1);
	}

	if (mlen == 4 && !strncmp(buf, "HEAD", 4))
		req->head = true;
	else if (mlen != 3 || strncmp(buf, "GET", 3))
		return bad(req, 405, "method not allowed");
	if (sp1[1] != '/')
		return bad(req, 400, "request target is not a path");
	for (q = sp1 + 1; q < sp2 && *q != '?' && *q != '#'; q++)
		;
	if (q - sp1 - 1 == 8 && !strncmp(sp1 + 1, "/metrics", 8))
		req->route = ROUTE_METRICS;
	else if (q - sp1 - 1 == 1)
		req->route = ROUTE_ROOT;
	else
		return bad(req, 404, "no such path");
}

const char *http_reason(int status)
{
	switch (status) {
	case 200: return "OK";
	case 400: return "Bad Request";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 500: return "Internal Server Error";
	case 503: return "Service Unavailable";
	default: return "Error";
	}
}
