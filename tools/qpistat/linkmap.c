// SPDX-License-Identifier: GPL-2.0
/*
 * The operator's link map (--link-map): parsed and checked strictly, since
 * a wrong map makes wrong receive figures that look right.  Host-tested
 * by test_linkmap.c.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sysexits.h>

#include "linkmap.h"

#define MAP_FILE_MAX	65536

/* the whole numbers of an entry: at most 4 digits, so none overflows */
static const char *number(const char *s, int *v)
{
	int n = 0;

	*v = 0;
	while (*s >= '0' && *s <= '9' && n < 5) {
		*v = *v * 10 + (*s++ - '0');
		n++;
	}
	return n && n < 5 ? s : NULL;
}

/* "S.P" at @s: the rest of the text, NULL if it is not one */
static const char *end_of(const char *s, struct lm_end *e)
{
	s = number(s, &e->socket);
	if (!s || *s != '.')
		return NULL;
	return number(s + 1, &e->port);
}

static bool same(const struct lm_end *a, const struct lm_end *b)
{
	return a->socket == b->socket && a->port == b->port;
}

/* The link of entry @text (@where names it); 0 or the message in @err. */
static int add_entry(struct linkmap *m, const char *text, const char *where,
		     char *err, size_t len)
{
	struct lm_link *l = &m->link[m->nr];
	const char *s;
	int i, j, k;

	if (m->nr == LINKMAP_MAX) {
		snprintf(err, len, "%s: more than %d links", m->spec, LINKMAP_MAX);
		return EX_USAGE;
	}
	snprintf(l->where, sizeof(l->where), "%s '%.*s'", where, LINKMAP_ENTRY, text);
	s = end_of(text, &l->end[0]);
	if (s && *s == '=')
		s = end_of(s + 1, &l->end[1]);
	else
		s = NULL;
	if (!s || *s) {
		snprintf(err, len, "%s: %s: want SOCKET.PORT=SOCKET.PORT, whole numbers",
			 m->spec, l->where);
		return EX_USAGE;
	}
	if (l->end[0].socket == l->end[1].socket) {
		snprintf(err, len, "%s: %s: both ends on socket %d; a QPI link joins two sockets",
			 m->spec, l->where, l->end[0].socket);
		return EX_USAGE;
	}
	for (i = 0; i < m->nr; i++) {
		const struct lm_end *e = m->link[i].end;

		if ((same(&e[0], &l->end[0]) && same(&e[1], &l->end[1])) ||
		    (same(&e[0], &l->end[1]) && same(&e[1], &l->end[0]))) {
			snprintf(err, len, "%s: %s: the same link as %s; give each link once",
				 m->spec, l->where, m->link[i].where);
			return EX_USAGE;
		}
	}
	for (i = 0; i < m->nr; i++)
		for (j = 0; j < 2; j++)
			for (k = 0; k < 2; k++)
				if (same(&m->link[i].end[j], &l->end[k])) {
					snprintf(err, len, "%s: %s: port %d.%d is in %s already; a port is on one link",
						 m->spec, l->where, l->end[k].socket, l->end[k].port,
						 m->link[i].where);
					return EX_USAGE;
				}
	m->nr++;
	return 0;
}

/* one link a line, '#' starts a comment, blank lines and spaces around ignored */
static int parse_file(struct linkmap *m, const char *path, char *err, size_t len)
{
	static char text[MAP_FILE_MAX + 1];
	char *line, *next, where[32];
	FILE *f = fopen(path, "r");
	size_t n;
	int nr = 0, rc;

	if (!f) {
		snprintf(err, len, "%s: cannot read it: %s", m->spec, strerror(errno));
		return EX_NOINPUT;
	}
	n = fread(text, 1, sizeof(text), f);
	rc = ferror(f);
	fclose(f);
	if (rc || n > MAP_FILE_MAX) {
		snprintf(err, len, "%s: %s", m->spec,
			 rc ? "cannot read it" : "over 64 KiB, not a link map");
		return rc ? EX_NOINPUT : EX_USAGE;
	}
	text[n] = 0;
	for (line = text; line; line = next) {
		char *end;

		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		nr++;
		line[strcspn(line, "#")] = 0;
		line += strspn(line, " \t\r");
		for (end = line + strlen(line); end > line && strchr(" \t\r", end[-1]); end--)
			;
		*end = 0;
		if (!*line)
			continue;
		snprintf(where, sizeof(where), "line %d", nr);
		rc = add_entry(m, line, where, err, len);
		if (rc)
			return rc;
	}
	return 0;
}

int linkmap_parse(const char *arg, struct linkmap *m, char *err, size_t len)
{
	char buf[4096], where[32], *entry, *next;
	int nr = 0, rc;

	memset(m, 0, sizeof(*m));
	err[0] = 0;
	if (arg[0] == '@') {
		snprintf(m->spec, sizeof(m->spec), "--link-map %.*s", LINKMAP_ENTRY, arg);
		rc = parse_file(m, arg + 1, err, len);
	} else {
		if (strlen(arg) >= sizeof(buf)) {
			snprintf(err, len, "--link-map: over %zu characters; give a file, @FILE",
				 sizeof(buf) - 1);
			return EX_USAGE;
		}
		strcpy(buf, arg);
		strcpy(m->spec, "--link-map");
		rc = 0;
		for (entry = buf; entry && !rc; entry = next) {
			next = strchr(entry, ',');
			if (next)
				*next++ = 0;
			snprintf(where, sizeof(where), "entry %d", ++nr);
			rc = add_entry(m, entry, where, err, len);
		}
	}
	if (!rc && !m->nr) {
		snprintf(err, len, "%s: no link in it", m->spec);
		rc = EX_USAGE;
	}
	return rc;
}

int linkmap_check(const struct linkmap *m, const struct lm_end *ports, int nr,
		  char *err, size_t len)
{
	int i, j, k;

	for (i = 0; i < m->nr; i++)
		for (j = 0; j < 2; j++) {
			const struct lm_end *e = &m->link[i].end[j];
			bool socket = false, port = false;
			char have[256] = "";

			for (k = 0; k < nr; k++) {
				socket |= ports[k].socket == e->socket;
				port |= same(&ports[k], e);
			}
			if (port)
				continue;
			/* what there is, to see the mistake: sockets, or its ports */
			for (k = 0; k < nr; k++) {
				size_t l = strlen(have);
				char one[16];
				int x;
				bool seen = false;

				if (socket && ports[k].socket != e->socket)
					continue;
				for (x = 0; x < k; x++)
					seen |= socket ? same(&ports[x], &ports[k]) :
						ports[x].socket == ports[k].socket;
				if (seen)
					continue;
				snprintf(one, sizeof(one), "%s%d", l ? ", " : "",
					 socket ? ports[k].port : ports[k].socket);
				snprintf(have + l, sizeof(have) - l, "%s", one);
			}
			if (socket)
				snprintf(err, len, "%s: %s: socket %d has no QPI port %d (its ports: %s)",
					 m->spec, m->link[i].where, e->socket, e->port, have);
			else
				snprintf(err, len, "%s: %s: no socket %d with QPI ports (sockets: %s)",
					 m->spec, m->link[i].where, e->socket, have);
			return EX_USAGE;
		}
	return 0;
}

bool linkmap_peer(const struct linkmap *m, int s, int p, struct lm_end *peer)
{
	const struct lm_end me = { s, p };
	int i, j;

	for (i = 0; m && i < m->nr; i++)
		for (j = 0; j < 2; j++)
			if (same(&m->link[i].end[j], &me)) {
				*peer = m->link[i].end[!j];
				return true;
			}
	return false;
}
