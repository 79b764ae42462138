// SPDX-License-Identifier: GPL-2.0
/*
 * The silicon's link map, as qpi_uncore publishes it in sysfs: read,
 * parsed strictly (anything else is no peer), turned into a link map, and
 * compared with the operator's.  Host-tested by test_sysmap.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sysmap.h"

/* the whole numbers of the files: at most 4 digits, so none overflows */
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

bool sysmap_parse_peer(const char *text, struct lm_end *peer)
{
	const char *s = text;

	if (strncmp(s, "qpi_", 4))
		return false;
	s = number(s + 4, &peer->port);
	if (!s || strncmp(s, ",die_", 5))
		return false;
	s = number(s + 5, &peer->socket);
	return s && (!strcmp(s, "\n") || !*s);
}

/* a token of the state file: [a-z0-9_], 1 to SYSMAP_NAME - 1 of them */
static const char *token(const char *s, char *out)
{
	size_t n = strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_");

	if (!n || n >= SYSMAP_NAME)
		return NULL;
	memcpy(out, s, n);
	out[n] = 0;
	return s + n;
}

bool sysmap_parse_state(const char *text, char *state, char *reason)
{
	const char *s = token(text, state);

	reason[0] = 0;
	if (s && *s == ' ')
		s = token(s + 1, reason);
	if (!s || (strcmp(s, "\n") && *s)) {
		state[0] = reason[0] = 0;
		return false;
	}
	return true;
}

/*
 * One small sysfs file: its length, or -1 with errno (ENODATA: the driver
 * has nothing to say, here no peer).  Text is cut at @len - 1.
 */
static int read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	int err;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	err = errno;
	close(fd);
	if (n < 0) {
		errno = err;
		return -1;
	}
	buf[n] = 0;
	return (int)n;
}

void sysmap_read(const char *pmu_dir, const struct lm_end *ports, int nr,
		 struct sysmap *sm)
{
	int i;

	memset(sm, 0, sizeof(*sm));
	for (i = 0; i < nr && sm->nr < SYSMAP_MAX; i++) {
		struct sm_port *p = &sm->port[sm->nr++];
		char path[512], buf[128];

		p->socket = ports[i].socket;
		p->port = ports[i].port;
		snprintf(path, sizeof(path), "%s/uncore_qpi_%d/die%d", pmu_dir,
			 p->port, p->socket);
		/* ENODATA: published, no peer; ENOENT: not published */
		if (read_small(path, buf, sizeof(buf)) >= 0) {
			p->published = true;
			p->mapped = sysmap_parse_peer(buf, &p->peer);
		} else {
			p->published = errno != ENOENT;
		}
		snprintf(path, sizeof(path), "%s/uncore_qpi_%d/link/die%d", pmu_dir,
			 p->port, p->socket);
		if (read_small(path, buf, sizeof(buf)) >= 0 &&
		    sysmap_parse_state(buf, p->state, p->reason)) {
			p->has_state = true;
			p->normal = !strcmp(p->state, "normal_operation");
		}
	}
}

bool sysmap_published(const struct sysmap *sm)
{
	int i;

	for (i = 0; i < sm->nr; i++)
		if (sm->port[i].published)
			return true;
	return false;
}

const struct sm_port *sysmap_port(const struct sysmap *sm, int s, int p)
{
	int i;

	for (i = 0; sm && i < sm->nr; i++)
		if (sm->port[i].socket == s && sm->port[i].port == p)
			return &sm->port[i];
	return NULL;
}

/* @a names @b and @b names @a */
static bool paired(const struct sysmap *sm, const struct sm_port *a,
		   const struct sm_port **b)
{
	if (!a->mapped)
		return false;
	*b = sysmap_port(sm, a->peer.socket, a->peer.port);
	return *b && (*b)->mapped && (*b)->peer.socket == a->socket &&
	       (*b)->peer.port == a->port && *b != a;
}

void sysmap_links(const struct sysmap *sm, struct linkmap *m)
{
	int i;

	memset(m, 0, sizeof(*m));
	snprintf(m->spec, sizeof(m->spec), "the silicon's map");
	for (i = 0; i < sm->nr && m->nr < LINKMAP_MAX; i++) {
		const struct sm_port *a = &sm->port[i], *b;
		struct lm_link *l;

		/* each link once: from its end listed first */
		if (!paired(sm, a, &b) || b < a)
			continue;
		l = &m->link[m->nr++];
		l->end[0] = (struct lm_end){ a->socket, a->port };
		l->end[1] = (struct lm_end){ b->socket, b->port };
		snprintf(l->where, sizeof(l->where), "uncore_qpi_%d/die%d", a->port,
			 a->socket);
	}
}

/* printf to the end of @out, never past @len bytes */
static void __attribute__((format(printf, 3, 4)))
append(char *out, size_t len, const char *fmt, ...)
{
	size_t n = strlen(out);
	va_list ap;

	if (n + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(out + n, len - n, fmt, ap);
	va_end(ap);
}

/* what the silicon says of end @e, when it says otherwise than @want */
static bool differs(const struct sysmap *sm, const struct lm_end *e,
		    const struct lm_end *want, char *out, size_t len, bool first)
{
	const struct sm_port *p = sysmap_port(sm, e->socket, e->port);

	if (!p || !p->published)
		return false;
	if (p->mapped && p->peer.socket == want->socket && p->peer.port == want->port)
		return false;
	append(out, len, "%s", first ? "the silicon links " : ", ");
	if (p->mapped) {
		append(out, len, "socket %d port %d to socket %d port %d", e->socket,
		       e->port, p->peer.socket, p->peer.port);
		return true;
	}
	append(out, len, "socket %d port %d to nothing", e->socket, e->port);
	if (p->has_state)
		append(out, len, " (%s%s%s)", p->state, p->reason[0] ? ", " : "",
		       p->reason);
	return true;
}

int sysmap_diff(const struct linkmap *m, const struct sysmap *sm, char *out,
		size_t len)
{
	int i, j, nr = 0;

	out[0] = 0;
	for (i = 0; i < m->nr; i++) {
		const struct lm_link *l = &m->link[i];
		size_t at = strlen(out);
		bool any = false;

		append(out, len, "%s%s: ", nr ? "; " : "", l->where);
		for (j = 0; j < 2; j++)
			any |= differs(sm, &l->end[j], &l->end[!j], out, len, !any);
		if (any)
			nr++;
		else if (at < len)
			out[at] = 0;
	}
	/* the silicon's links the operator's map leaves out */
	for (i = 0; i < sm->nr; i++) {
		const struct sm_port *a = &sm->port[i], *b;
		struct lm_end e;

		if (!paired(sm, a, &b) || b < a ||
		    linkmap_peer(m, a->socket, a->port, &e) ||
		    linkmap_peer(m, b->socket, b->port, &e))
			continue;
		append(out, len, "%sthe silicon's %d.%d=%d.%d (uncore_qpi_%d/die%d) is not in it",
		       nr ? "; " : "", a->socket, a->port, b->socket, b->port,
		       a->port, a->socket);
		nr++;
	}
	return nr;
}
