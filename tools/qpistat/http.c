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

static bool is_ows(char c)
{
	return c == ' ' || c == '\t';
}

/* One media range of Accept: its type, q (default 1) and version. */
struct media_range {
	const char *type, *version;
	size_t tlen, vlen;
	double q;
};

/*
 * The parameters of a media range, [p, end) starting at its first ';'.
 * Only q and version matter here; a value may be a quoted string.
 */
static void media_params(const char *p, const char *end, struct media_range *m)
{
	while (p < end) {
		const char *name, *val, *pend;
		size_t nlen, vlen;

		while (p < end && (*p == ';' || is_ows(*p)))
			p++;
		for (pend = p; pend < end && *pend != ';'; pend++)
			;
		name = p;
		while (p < pend && *p != '=' && !is_ows(*p))
			p++;
		nlen = p - name;
		while (p < pend && is_ows(*p))
			p++;
		if (p == pend || *p != '=') {
			p = pend;
			continue;
		}
		p++;
		while (p < pend && is_ows(*p))
			p++;
		val = p;
		vlen = pend - p;
		while (vlen && is_ows(val[vlen - 1]))
			vlen--;
		if (vlen >= 2 && val[0] == '"' && val[vlen - 1] == '"') {
			val++;
			vlen -= 2;
		}
		if (nlen == 1 && (*name == 'q' || *name == 'Q')) {
			char num[8];
			size_t i;

			for (i = 0; i < vlen; i++)
				if (!isdigit((unsigned char)val[i]) && val[i] != '.')
					break;
			/* qvalue: 0, 1 or 0.ddd; anything else refuses the type */
			if (!vlen || i < vlen || vlen >= sizeof(num)) {
				m->q = 0;
			} else {
				memcpy(num, val, vlen);
				num[vlen] = 0;
				m->q = strtod(num, NULL);
				if (m->q > 1)
					m->q = 1;
			}
		} else if (nlen == 7 && !strncasecmp(name, "version", 7)) {
			m->version = val;
			m->vlen = vlen;
		}
		p = pend;
	}
}

void http_accept_add(struct http_accept *a, const char *v, size_t len)
{
	const char *end = v + len;

	while (v < end) {
		const char *comma = memchr(v, ',', end - v);
		const char *item_end = comma ? comma : end;
		const char *semi;
		struct media_range m = { .q = 1 };

		while (v < item_end && is_ows(*v))
			v++;
		semi = memchr(v, ';', item_end - v);
		m.type = v;
		m.tlen = (semi ? semi : item_end) - v;
		while (m.tlen && is_ows(m.type[m.tlen - 1]))
			m.tlen--;
		if (semi)
			media_params(semi, item_end, &m);
#define IS(s) (m.tlen == strlen(s) && !strncasecmp(m.type, s, m.tlen))
		/* an OpenMetrics version we do not produce does not count */
		if ((IS("application/openmetrics-text") || IS("application/*")) &&
		    (!m.version || (m.vlen == 5 && !strncmp(m.version, "1.0.0", 5)))) {
			if (m.q > a->om)
				a->om = m.q;
		} else if (IS("text/plain") || IS("text/*") || IS("*/*")) {
			if (m.q > a->text)
				a->text = m.q;
		}
#undef IS
		v = comma ? comma + 1 : end;
	}
}

bool http_accept_openmetrics(const struct http_accept *a)
{
	return a->om > 0 && a->om > a->text;
}

static void bad(struct http_request *req, int status, const char *why)
{
	req->status = status;
	req->why = why;
}

void http_parse(const char *buf, size_t len, struct http_request *req)
{
	const char *p = buf, *end = buf + len, *line, *sp1, *sp2, *q;
	struct http_accept accept = { };
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
	/* known before the headers, so that a HEAD's 400 has no body either */
	req->head = mlen == 4 && !strncmp(buf, "HEAD", 4);

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
			http_accept_add(&accept, colon + 1, line + n - colon - 1);
	}
	req->openmetrics = http_accept_openmetrics(&accept);

	if (!req->head && (mlen != 3 || strncmp(buf, "GET", 3)))
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
