// SPDX-License-Identifier: GPL-2.0
/*
 * Request parsing for qpistat --listen: see http.h.  Strict on purpose:
 * anything that is not a well-formed HTTP/1.0 or 1.1 request line followed
 * by "name: value" header lines is answered with 400, and so is an
 * HTTP/1.1 request without exactly one valid Host (RFC 9112 3.2).
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "http.h"

/*
 * The empty lines at the start of @buf: a client may send one after a
 * previous request's body, and a server ignores it (RFC 9112 2.2).
 */
static size_t leading_empty(const char *buf, size_t len)
{
	size_t i = 0;

	for (;;) {
		if (i < len && buf[i] == '\n')
			i++;
		else if (i + 1 < len && buf[i] == '\r' && buf[i + 1] == '\n')
			i += 2;
		else
			return i;
	}
}

size_t http_header_end(const char *buf, size_t len)
{
	size_t i;

	for (i = leading_empty(buf, len); i < len; i++) {
		if (buf[i] != '\n')
			continue;
		if (i + 1 < len && buf[i + 1] == '\n')
			return i + 2;
		if (i + 2 < len && buf[i + 1] == '\r' && buf[i + 2] == '\n')
			return i + 3;
	}
	return 0;
}

int http_too_large(const char *buf, size_t len)
{
	size_t skip = leading_empty(buf, len);

	return memchr(buf + skip, '\n', len - skip) ? 431 : 414;
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

/* reg-name's characters: unreserved, sub-delims and pct-encoded's '%' */
static bool is_reg_name(char c)
{
	return isalnum((unsigned char)c) || (c && strchr("-._~!$&'()*+,;=%", c));
}

/*
 * Split authority [h, h + len) (uri-host [":" port], RFC 9110 7.2) into
 * its host, without brackets; false if it is not one.  An IP-literal is
 * checked loosely (hex digits, ':' and '.'): http_host_loopback() parses
 * it properly where that matters.
 */
static bool split_authority(const char *h, size_t len, const char **host,
			    size_t *hlen, bool *bracketed)
{
	const char *end = h + len, *p = h;

	*bracketed = len && *h == '[';
	if (*bracketed) {
		const char *rb = memchr(h, ']', len);

		if (!rb)
			return false;
		for (p = h + 1; p < rb; p++)
			if (!isxdigit((unsigned char)*p) && *p != ':' && *p != '.')
				return false;
		*host = h + 1;
		*hlen = rb - h - 1;
		p = rb + 1;
	} else {
		while (p < end && *p != ':' && is_reg_name(*p))
			p++;
		*host = h;
		*hlen = p - h;
	}
	if (p < end && *p++ != ':')
		return false;
	while (p < end && isdigit((unsigned char)*p))
		p++;
	return p == end;
}

bool http_host_loopback(const char *h, size_t len)
{
	unsigned char addr[16];
	const char *host;
	char name[64];
	size_t hlen;
	bool br;

	if (!split_authority(h, len, &host, &hlen, &br) || hlen >= sizeof(name))
		return false;
	memcpy(name, host, hlen);
	name[hlen] = 0;
	if (br) {
		static const unsigned char v4mapped[12] = {
			[10] = 0xff, [11] = 0xff };
		struct in6_addr a6;

		if (inet_pton(AF_INET6, name, &a6) != 1)
			return false;
		memcpy(addr, &a6, 16);
		/* ::ffff:127.x.y.z is how a v6 socket sees an IPv4 loopback */
		return IN6_IS_ADDR_LOOPBACK(&a6) ||
		       (!memcmp(addr, v4mapped, 12) && addr[12] == 127);
	}
	if (!strcasecmp(name, "localhost"))
		return true;
	/* a dotted quad only: inet_pton takes no "127.1" or octal forms */
	return inet_pton(AF_INET, name, addr) == 1 && addr[0] == 127;
}

/* The field value after @colon, up to @end, without OWS around it. */
static void header_value(const char *colon, const char *end, const char **v,
			 size_t *vlen)
{
	const char *p = colon + 1;

	while (p < end && is_ows(*p))
		p++;
	while (end > p && is_ows(end[-1]))
		end--;
	*v = p;
	*vlen = end - p;
}

void http_parse(const char *buf, size_t len, bool loopback,
		struct http_request *req)
{
	const char *p, *end = buf + len, *line, *sp1, *sp2, *q;
	const char *host = NULL, *auth = NULL, *path, *h;
	struct http_accept accept = { };
	size_t n, mlen, tlen, hostlen = 0, authlen = 0, plen, hl;
	int hosts = 0;
	bool http11, br;

	memset(req, 0, sizeof(*req));
	if (memchr(buf, 0, len))
		return bad(req, 400, "NUL byte in the request");
	buf += leading_empty(buf, len);
	p = buf;
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
	http11 = sp2[8] == '1';
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
		if (colon - line == 4 && !strncasecmp(line, "Host", 4)) {
			hosts++;
			header_value(colon, line + n, &host, &hostlen);
		}
	}
	req->openmetrics = http_accept_openmetrics(&accept);

	/* RFC 9112 3.2: a server MUST answer these with 400 */
	if (hosts > 1)
		return bad(req, 400, "more than one Host header");
	if (!hosts && http11)
		return bad(req, 400, "no Host header (HTTP/1.1 wants one)");
	if (hosts && !split_authority(host, hostlen, &h, &hl, &br))
		return bad(req, 400, "malformed Host header");
	if (!req->head && (mlen != 3 || strncmp(buf, "GET", 3)))
		return bad(req, 405, "method not allowed");
	path = sp1 + 1;
	plen = tlen;
	if (tlen > 7 && !strncasecmp(path, "http://", 7)) {
		/* absolute-form: its authority, not Host, names the server */
		auth = path + 7;
		for (q = auth; q < sp2 && *q != '/' && *q != '?' && *q != '#'; q++)
			;
		authlen = q - auth;
		if (memchr(auth, '@', authlen))
			return bad(req, 400, "user information in the request target");
		if (!authlen || !split_authority(auth, authlen, &h, &hl, &br))
			return bad(req, 400, "malformed authority in the request target");
		path = q;
		plen = sp2 - q;
	} else if (*path != '/') {
		return bad(req, 400, "request target is not a path");
	} else if (hosts) {
		auth = host;
		authlen = hostlen;
	}
	if (loopback && auth && !http_host_loopback(auth, authlen))
		return bad(req, 421, "this server answers to loopback names only");
	for (q = path; q < path + plen && *q != '?' && *q != '#'; q++)
		;
	if (q - path == 8 && !strncmp(path, "/metrics", 8))
		req->route = ROUTE_METRICS;
	else if (q - path <= 1)
		/* "http://host" and "http://host?q" are the root too */
		req->route = ROUTE_ROOT;
	else
		return bad(req, 404, "no such path");
}

void http_date(char buf[HTTP_DATE_LEN], time_t t)
{
	static const char days[7][4] = {
		"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat" };
	static const char months[12][4] = {
		"Jan", "Feb", "Mar", "Apr", "May", "Jun",
		"Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
	struct tm tm;

	gmtime_r(&t, &tm);
	snprintf(buf, HTTP_DATE_LEN, "%s, %02u %s %04u %02u:%02u:%02u GMT",
		 days[tm.tm_wday % 7], (unsigned char)tm.tm_mday,
		 months[tm.tm_mon % 12], (unsigned short)(tm.tm_year + 1900) % 10000,
		 (unsigned char)tm.tm_hour, (unsigned char)tm.tm_min,
		 (unsigned char)tm.tm_sec);
}

const char *http_reason(int status)
{
	switch (status) {
	case 200: return "OK";
	case 400: return "Bad Request";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 414: return "URI Too Long";
	case 421: return "Misdirected Request";
	case 431: return "Request Header Fields Too Large";
	case 500: return "Internal Server Error";
	case 503: return "Service Unavailable";
	default: return "Error";
	}
}
