/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qpi_uncore: who is at the far end of a QPI port, from what the link
 * layer kept of the parameter exchange with its peer, and whether to
 * believe it.  Pure: no kernel API, so the host unit tests run it as is.
 */
#ifndef _QPI_UNCORE_PEER_H
#define _QPI_UNCORE_PEER_H

#include "qpi_uncore_regs.h"

/* GIDNIDMAP was not read (no UBox answered): no node id maps to a socket. */
#define QPIU_NO_GIDNIDMAP	0xffffffffU

/* One end's link-layer registers, function 0 of the port's device. */
struct qpiu_lep {
	u32 qpils;
	u32 qpilp0;
	u32 qpilp2;
};

/* Why a port has no peer: the first rule its registers break. */
enum qpiu_peer_why {
	QPIU_PEER_OK,
	QPIU_PEER_NOT_NORMAL,		/* QPILS: not in normal operation */
	QPIU_PEER_NO_PARAMS,		/* QPILP0 zero */
	QPIU_PEER_PORT_RANGE,		/* the platform has no such port */
	QPIU_PEER_NODE_UNKNOWN,		/* node id in no GIDNIDMAP group */
	QPIU_PEER_SOCKET_ABSENT,	/* no such port of that socket here */
	QPIU_PEER_DISAGREES,		/* the far end does not name us */
	QPIU_NR_PEER_WHY,
};

/* A port of a socket: the peer a port names, or the port itself. */
struct qpiu_port_id {
	unsigned int socket;
	unsigned int port;
};

/*
 * The registers of port @port of socket @socket, from the machine @ctx
 * stands for.  Return: 0, -ENODEV when the driver has no such port, or
 * another negative errno when it does not answer.
 */
typedef int (*qpiu_lep_rd_fn)(void *ctx, unsigned int socket,
			      unsigned int port, struct qpiu_lep *lep);

u8 qpiu_ll_state(u32 qpils);
const char *qpiu_ll_state_name(u8 state);
const char *qpiu_peer_why_name(enum qpiu_peer_why why);
enum qpiu_peer_why qpiu_lep_decode(const struct qpiu_lep *lep,
				   unsigned int nr_ports, u32 gidnidmap,
				   struct qpiu_port_id *peer);
int qpiu_peer_validate(qpiu_lep_rd_fn rd, void *ctx,
		       const struct qpiu_port_id *self, unsigned int nr_ports,
		       u32 gidnidmap, u8 *state, struct qpiu_port_id *peer,
		       enum qpiu_peer_why *why);
int qpiu_link_line(char *buf, size_t len, u8 state, enum qpiu_peer_why why);
int qpiu_mapping_line(char *buf, size_t len, unsigned int port,
		      unsigned int die);

#endif /* _QPI_UNCORE_PEER_H */
