/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The link map an operator gives with --link-map: which socket and port
 * is at the far end of each QPI port.  No register in the guides we have
 * names a port's peer, so qpistat cannot find it itself; with it, HSX/BDX
 * know what each port receives (what its peer sent) and --check compares
 * the two ends of each link on SNB-EP/IVB-EP.  See
 * Documentation/qpistat.rst, "The link map".
 */
#ifndef QPISTAT_LINKMAP_H
#define QPISTAT_LINKMAP_H

#include <stdbool.h>
#include <stddef.h>

#define LINKMAP_MAX	128	/* links: 64 sockets of 4 ports, each link once */
#define LINKMAP_ENTRY	48	/* an entry as written, for the messages */

struct lm_end {
	int socket, port;
};

struct lm_link {
	struct lm_end end[2];
	/* "entry 2 '0.1=1.1'" or "line 3 '0.1=1.1'" */
	char where[LINKMAP_ENTRY + 24];
};

struct linkmap {
	int nr;
	struct lm_link link[LINKMAP_MAX];
	/* the messages' prefix: "--link-map" or "--link-map @FILE" */
	char spec[LINKMAP_ENTRY + 16];
};

/*
 * Parse --link-map @arg: "S.P=T.Q,..." or "@FILE", one link a line there,
 * '#' to the end of a line a comment.  Each entry's syntax, each link
 * between two sockets, each port on one link.  0, or the exit status
 * (EX_USAGE; EX_NOINPUT for a FILE that cannot be read) with the one
 * message, "--link-map ...: ...", in @err.
 */
int linkmap_parse(const char *arg, struct linkmap *m, char *err, size_t len);

/*
 * Every end of @m against the @nr QPI ports there are: 0, or EX_USAGE
 * with the message naming the first entry with an unknown socket or port.
 */
int linkmap_check(const struct linkmap *m, const struct lm_end *ports, int nr,
		  char *err, size_t len);

/* The far end of socket @s port @p: true and *@peer, false if unmapped. */
bool linkmap_peer(const struct linkmap *m, int s, int p, struct lm_end *peer);

#endif
