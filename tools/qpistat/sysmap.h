/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The link map as the silicon has it: qpi_uncore reads each QPI port's
 * peer from the link layer's parameter exchange (QPILP0/QPILP2), checks
 * it, and publishes it as the kernel's UPI mapping files do:
 *
 *   uncore_qpi_<p>/die<D>        "qpi_<peer port>,die_<peer die>\n", or a
 *                                read that fails with ENODATA: no peer
 *   uncore_qpi_<p>/link/die<D>   the QPILS state name, and when the port
 *                                has no peer, " <reason>"
 *
 * D is the socket as link_speed and qpistat number it (the physical
 * package id).  Older modules and intel_uncore have neither: then nothing
 * is published and qpistat goes on as before.  See
 * Documentation/qpistat.rst, "The link map".
 */
#ifndef QPISTAT_SYSMAP_H
#define QPISTAT_SYSMAP_H

#include <stdbool.h>
#include <stddef.h>

#include "linkmap.h"

#define SYSMAP_MAX	256	/* ports: 64 sockets of 4 */
#define SYSMAP_NAME	40	/* a state or reason token, as published */

struct sm_port {
	int socket, port;
	bool published;		/* its die file exists */
	bool mapped;		/* ... and names a peer */
	struct lm_end peer;
	bool has_state;		/* its link/die file was read */
	bool normal;		/* the state is normal_operation */
	char state[SYSMAP_NAME];	/* "link_abort", "unknown_0x5" */
	char reason[SYSMAP_NAME];	/* "peer_disagrees"; "" with a peer */
};

struct sysmap {
	int nr;
	struct sm_port port[SYSMAP_MAX];
};

/*
 * Read the published map of the @nr ports @ports (socket, port) from the
 * PMU directory @pmu_dir.  Every port gets an entry, in the order given.
 */
void sysmap_read(const char *pmu_dir, const struct lm_end *ports, int nr,
		 struct sysmap *sm);

/* Did the driver publish a die file for any port? */
bool sysmap_published(const struct sysmap *sm);

/* "qpi_1,die_0\n": true and *@peer; false for anything else */
bool sysmap_parse_peer(const char *text, struct lm_end *peer);

/*
 * "normal_operation\n" or "link_abort not_normal_operation\n": the state
 * and the reason ("" when none) in SYSMAP_NAME bytes each; false for text
 * that is not one line of one or two tokens.
 */
bool sysmap_parse_state(const char *text, char *state, char *reason);

/* The entry of socket @s port @p, NULL if none. */
const struct sm_port *sysmap_port(const struct sysmap *sm, int s, int p);

/*
 * The links of @sm as a link map: every pair of ports that name each
 * other, once, "where" naming the die file ("uncore_qpi_0/die1").  A port
 * whose peer does not name it back (the driver refuses those; a read
 * between two retrains could see it) is left out.
 */
void sysmap_links(const struct sysmap *sm, struct linkmap *m);

/*
 * An operator's map @m against the silicon's @sm: each entry of @m whose
 * ends the silicon links otherwise (or to nothing), and each silicon link
 * @m leaves out, appended to @out ("; " between), at most @len bytes.
 * Returns how many differ; 0 when they agree or nothing is published.
 */
int sysmap_diff(const struct linkmap *m, const struct sysmap *sm, char *out,
		size_t len);

#endif
