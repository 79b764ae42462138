// SPDX-License-Identifier: GPL-2.0
/*
 * The peer of a QPI port from the link layer's registers, and the rules
 * that decide whether to publish it.  Shared by the module and the host
 * unit tests (tools/unittest/test_qpi_uncore_peer.c).
 */
#include "qpi_uncore_peer.h"

#ifdef __KERNEL__
#include <linux/errno.h>
#include <linux/kernel.h>
#else
#include <errno.h>
#include <stdio.h>
#endif

/*
 * QPILS link_initialization_status, as QPIAGENT_LL.h names the codes
 * (shared/reference/registers.md); 0x5 and 0xd..0xf are not documented.
 */
static const char *const qpiu_ll_states[16] = {
	[0x0] = "waiting_for_physical_layer",
	[0x1] = "internal_stall",
	[0x2] = "sending_ready_for_init",
	[0x3] = "parameter_exchange",
	[0x4] = "sending_ready_for_normal_operation",
	[0x6] = "normal_operation",
	[0x7] = "link_level_retry",
	[0x8] = "link_abort",
	[0x9] = "param_ex_done_stalled",
	[0xa] = "param_ex_done_proceeding",
	[0xb] = "wait_for_normal",
	[0xc] = "local_link_reset",
};

static const char *const qpiu_peer_whys[QPIU_NR_PEER_WHY] = {
	[QPIU_PEER_NOT_NORMAL] = "not_normal_operation",
	[QPIU_PEER_NO_PARAMS] = "no_peer_parameters",
	[QPIU_PEER_PORT_RANGE] = "peer_port_out_of_range",
	[QPIU_PEER_NODE_UNKNOWN] = "peer_node_unknown",
	[QPIU_PEER_SOCKET_ABSENT] = "peer_socket_absent",
	[QPIU_PEER_DISAGREES] = "peer_disagrees",
};

u8 qpiu_ll_state(u32 qpils)
{
	return (qpils & QPI_QPILS_STATE) >> QPI_QPILS_STATE_SHIFT;
}

/* The state's name, or NULL for a code the header does not document. */
const char *qpiu_ll_state_name(u8 state)
{
	return state < ARRAY_SIZE(qpiu_ll_states) ? qpiu_ll_states[state] :
						    NULL;
}

/* The reason's token; NULL for QPIU_PEER_OK. */
const char *qpiu_peer_why_name(enum qpiu_peer_why why)
{
	return why < QPIU_NR_PEER_WHY ? qpiu_peer_whys[why] : NULL;
}

/*
 * NID[1:0] from QPILP2: the byte that is not zero, byte 0 standing for 3
 * and byte 3 for 0.  None, or several, and the node id is not known.
 */
static int qpiu_lp2_nid(u32 qpilp2)
{
	int byte, nid = -1;

	for (byte = 0; byte < 4; byte++) {
		if (!((qpilp2 >> (8 * byte)) & 0xff))
			continue;
		if (nid >= 0)
			return -1;
		nid = 3 - byte;
	}
	return nid;
}

/*
 * The GIDNIDMAP group (the socket) whose node id is @node: the first, as
 * qpi_uncore_topology.c takes it for the socket of a bus.
 */
static int qpiu_node_group(u32 gidnidmap, unsigned int node)
{
	unsigned int g;

	if (gidnidmap & ~GENMASK(UBOX_GIDNIDMAP_BITS * UBOX_MAX_GROUPS - 1, 0))
		return -1;
	for (g = 0; g < UBOX_MAX_GROUPS; g++)
		if (((gidnidmap >> (UBOX_GIDNIDMAP_BITS * g)) &
		     UBOX_CPUNODEID_MASK) == node)
			return g;
	return -1;
}

/**
 * qpiu_lep_decode() - whom one end's registers name as its peer
 * @lep: the end's QPILS, QPILP0 and QPILP2
 * @nr_ports: QPI ports a socket of the platform can have
 * @gidnidmap: the UBox's group to node id map, or QPIU_NO_GIDNIDMAP
 * @peer: the peer's socket (GIDNIDMAP group) and port, on QPIU_PEER_OK
 *
 * The parameters count only in normal operation (the BIOS's rule: they
 * are cleared at every link-layer init and refilled by the exchange).
 * The peer's node id is QPILP0[14:8] << 2 | NID[1:0] of QPILP2.
 *
 * Return: QPIU_PEER_OK, or the first rule broken (in the enum's order).
 */
enum qpiu_peer_why qpiu_lep_decode(const struct qpiu_lep *lep,
				   unsigned int nr_ports, u32 gidnidmap,
				   struct qpiu_port_id *peer)
{
	unsigned int port, node;
	int nid, g;

	if (qpiu_ll_state(lep->qpils) != QPI_LL_NORMAL)
		return QPIU_PEER_NOT_NORMAL;
	if (!lep->qpilp0)
		return QPIU_PEER_NO_PARAMS;
	port = lep->qpilp0 & QPI_QPILP0_PORT;
	if (port >= nr_ports)
		return QPIU_PEER_PORT_RANGE;
	nid = qpiu_lp2_nid(lep->qpilp2);
	if (nid < 0)
		return QPIU_PEER_NODE_UNKNOWN;
	node = ((lep->qpilp0 & QPI_QPILP0_NODE_HI) >>
		QPI_QPILP0_NODE_HI_SHIFT) << 2 | nid;
	g = qpiu_node_group(gidnidmap, node);
	if (g < 0)
		return QPIU_PEER_NODE_UNKNOWN;
	peer->socket = g;
	peer->port = port;
	return QPIU_PEER_OK;
}

/**
 * qpiu_peer_validate() - the peer of a port, if every rule holds
 * @rd: reads a port's registers (see qpiu_lep_rd_fn)
 * @ctx: for @rd
 * @self: the port asked about
 * @nr_ports: QPI ports a socket of the platform can have
 * @gidnidmap: the UBox's group to node id map, or QPIU_NO_GIDNIDMAP
 * @state: @self's QPILS link_initialization_status
 * @peer: the peer, valid when @why is QPIU_PEER_OK
 * @why: QPIU_PEER_OK or why @self has no peer
 *
 * The link is in normal operation, the parameters name a port the platform
 * has on a socket the driver has, and that port's own registers name @self
 * back.  A far end that cannot be read, is not in normal operation, or
 * names another port, disagrees; a port that names its own socket too (a
 * link joins two sockets).
 *
 * Return: 0, or @rd's error for @self (then nothing is set).
 */
int qpiu_peer_validate(qpiu_lep_rd_fn rd, void *ctx,
		       const struct qpiu_port_id *self, unsigned int nr_ports,
		       u32 gidnidmap, u8 *state, struct qpiu_port_id *peer,
		       enum qpiu_peer_why *why)
{
	struct qpiu_port_id back;
	struct qpiu_lep lep;
	int err;

	err = rd(ctx, self->socket, self->port, &lep);
	if (err)
		return err;
	*state = qpiu_ll_state(lep.qpils);
	*why = qpiu_lep_decode(&lep, nr_ports, gidnidmap, peer);
	if (*why != QPIU_PEER_OK)
		return 0;
	if (peer->socket == self->socket) {
		*why = QPIU_PEER_DISAGREES;
		return 0;
	}
	err = rd(ctx, peer->socket, peer->port, &lep);
	if (err == -ENODEV) {
		*why = QPIU_PEER_SOCKET_ABSENT;
		return 0;
	}
	if (err || qpiu_lep_decode(&lep, nr_ports, gidnidmap, &back) !=
		   QPIU_PEER_OK ||
	    back.socket != self->socket || back.port != self->port)
		*why = QPIU_PEER_DISAGREES;
	return 0;
}

/*
 * A port's link/die<D> line: the state's name, or unknown_<code>, and the
 * reason when it has no peer.  Return: as snprintf().
 */
int qpiu_link_line(char *buf, size_t len, u8 state, enum qpiu_peer_why why)
{
	const char *name = qpiu_ll_state_name(state);
	const char *reason = qpiu_peer_why_name(why);
	int n;

	if (name)
		n = snprintf(buf, len, "%s", name);
	else
		n = snprintf(buf, len, "unknown_0x%x", state);
	if (n < 0 || (size_t)n >= len)
		return n;
	if (reason)
		return n + snprintf(buf + n, len - n, " %s\n", reason);
	return n + snprintf(buf + n, len - n, "\n");
}

/* A port's die<D> line, the kernel's UPI mapping format with qpi_. */
int qpiu_mapping_line(char *buf, size_t len, unsigned int port,
		      unsigned int die)
{
	return snprintf(buf, len, "qpi_%u,die_%u\n", port, die);
}
