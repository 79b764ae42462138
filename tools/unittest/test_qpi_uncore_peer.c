// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of the QPI peer rules (qpi_uncore_peer.c): every QPILS
 * state and its line, the node id from QPILP0 and QPILP2 through
 * GIDNIDMAP, and the validation over fake machines of 2 to 8 sockets with
 * one-sided, crossed, absent and unreadable ends.
 */
#include <errno.h>
#include <string.h>

#include "qpi_uncore_peer.h"
#include "ktap.h"

#define EXPECT_STR(a, b)						\
	do {								\
		const char *_a = (a), *_b = (b);			\
		if (!_a || strcmp(_a, _b)) {				\
			printf("# %s:%d: %s = '%s', expected '%s'\n",	\
			       __FILE__, __LINE__, #a, _a ? _a : "(null)", \
			       _b);					\
			ktap_cur_failed = 1;				\
		}							\
	} while (0)

#define NORMAL		(QPI_LL_NORMAL << QPI_QPILS_STATE_SHIFT)
#define LLR		0x80	/* any retry buffer length */

/* The identity map: group g holds node id g. */
static u32 identity_map(void)
{
	u32 map = 0;
	unsigned int g;

	for (g = 0; g < UBOX_MAX_GROUPS; g++)
		map |= g << (UBOX_GIDNIDMAP_BITS * g);
	return map;
}

/* What a port in normal operation holds when node @node's port @port faces it. */
static struct qpiu_lep lep_facing(unsigned int node, unsigned int port)
{
	struct qpiu_lep lep = {
		.qpils = NORMAL,
		.qpilp0 = port | 1 << QPI_QPILP0_NR_NIDS_SHIFT |
			  (node >> 2) << QPI_QPILP0_NODE_HI_SHIFT |
			  LLR << QPI_QPILP0_LLR_SHIFT,
		.qpilp2 = 0x0fU << (8 * (3 - (node & 3))),
	};

	return lep;
}

static void test_every_state(void)
{
	static const char *const names[16] = {
		"waiting_for_physical_layer", "internal_stall",
		"sending_ready_for_init", "parameter_exchange",
		"sending_ready_for_normal_operation", NULL,
		"normal_operation", "link_level_retry", "link_abort",
		"param_ex_done_stalled", "param_ex_done_proceeding",
		"wait_for_normal", "local_link_reset", NULL, NULL, NULL,
	};
	struct qpiu_lep lep = lep_facing(1, 0);
	struct qpiu_port_id peer = { 99, 99 };
	char buf[64], want[64];
	unsigned int code;

	for (code = 0; code < 16; code++) {
		/* the other bits of QPILS do not matter */
		u32 qpils = code << 24 | 0xc0ffffffU;

		EXPECT_EQ(qpiu_ll_state(qpils), code);
		if (names[code])
			EXPECT_STR(qpiu_ll_state_name(code), names[code]);
		else
			EXPECT_TRUE(!qpiu_ll_state_name(code));
		lep.qpils = qpils;
		EXPECT_EQ(qpiu_lep_decode(&lep, 2, identity_map(), &peer),
			  code == QPI_LL_NORMAL ? QPIU_PEER_OK :
						  QPIU_PEER_NOT_NORMAL);
		qpiu_link_line(buf, sizeof(buf), code,
			       code == QPI_LL_NORMAL ? QPIU_PEER_OK :
						       QPIU_PEER_NOT_NORMAL);
		if (names[code])
			snprintf(want, sizeof(want), "%s%s\n", names[code],
				 code == QPI_LL_NORMAL ? "" :
				 " not_normal_operation");
		else
			snprintf(want, sizeof(want),
				 "unknown_0x%x not_normal_operation\n", code);
		EXPECT_STR(buf, want);
	}
	EXPECT_EQ(peer.socket, 1);
	EXPECT_EQ(peer.port, 0);
	EXPECT_EQ(qpiu_link_line(buf, sizeof(buf), 6, QPIU_PEER_OK), 17);
	EXPECT_STR(buf, "normal_operation\n");
	qpiu_link_line(buf, sizeof(buf), 8, QPIU_PEER_NOT_NORMAL);
	EXPECT_STR(buf, "link_abort not_normal_operation\n");
	qpiu_link_line(buf, sizeof(buf), 5, QPIU_PEER_OK);
	EXPECT_STR(buf, "unknown_0x5\n");
	qpiu_link_line(buf, sizeof(buf), 6, QPIU_PEER_DISAGREES);
	EXPECT_STR(buf, "normal_operation peer_disagrees\n");
	/* every reason's token */
	EXPECT_TRUE(!qpiu_peer_why_name(QPIU_PEER_OK));
	EXPECT_STR(qpiu_peer_why_name(QPIU_PEER_NOT_NORMAL), "not_normal_operation");
	EXPECT_STR(qpiu_peer_why_name(QPIU_PEER_NO_PARAMS), "no_peer_parameters");
	EXPECT_STR(qpiu_peer_why_name(QPIU_PEER_PORT_RANGE), "peer_port_out_of_range");
	EXPECT_STR(qpiu_peer_why_name(QPIU_PEER_NODE_UNKNOWN), "peer_node_unknown");
	EXPECT_STR(qpiu_peer_why_name(QPIU_PEER_SOCKET_ABSENT), "peer_socket_absent");
	EXPECT_STR(qpiu_peer_why_name(QPIU_PEER_DISAGREES), "peer_disagrees");
	EXPECT_TRUE(!qpiu_peer_why_name(QPIU_NR_PEER_WHY));
	qpiu_mapping_line(buf, sizeof(buf), 2, 7);
	EXPECT_STR(buf, "qpi_2,die_7\n");
	/* a short buffer: snprintf's rules, never past the end */
	EXPECT_EQ(qpiu_link_line(buf, 8, 8, QPIU_PEER_NOT_NORMAL), 10);
	EXPECT_STR(buf, "link_ab");
}

/* Every node id 0..7: its QPILP0/QPILP2 bits and the socket it maps to. */
static void test_node_ids(void)
{
	/* node ids of sockets 0..7: a permutation, as qpisim's node_ids= */
	static const unsigned int nodes[8] = { 5, 2, 7, 0, 3, 6, 1, 4 };
	struct qpiu_port_id peer;
	struct qpiu_lep lep;
	u32 map = 0;
	unsigned int g;

	for (g = 0; g < 8; g++)
		map |= nodes[g] << (3 * g);
	for (g = 0; g < 8; g++) {
		lep = lep_facing(nodes[g], 2);
		peer.socket = peer.port = 99;
		EXPECT_EQ(qpiu_lep_decode(&lep, 3, map, &peer), QPIU_PEER_OK);
		EXPECT_EQ(peer.socket, g);
		EXPECT_EQ(peer.port, 2);
	}
	/* exact register values: node 6 is NodeID[9:3] 1, NID 2 in byte 1 */
	lep = (struct qpiu_lep){ NORMAL, 0x00800121, 0x00000100 };
	EXPECT_EQ(qpiu_lep_decode(&lep, 2, identity_map(), &peer), QPIU_PEER_OK);
	EXPECT_EQ(peer.socket, 6);
	EXPECT_EQ(peer.port, 1);
	/* node 3: byte 0 */
	lep = (struct qpiu_lep){ NORMAL, 0x00800020, 0x000000ff };
	EXPECT_EQ(qpiu_lep_decode(&lep, 2, identity_map(), &peer), QPIU_PEER_OK);
	EXPECT_EQ(peer.socket, 3);
	EXPECT_EQ(peer.port, 0);
	/* node 4: NodeID[9:3] 1, byte 3 */
	lep = (struct qpiu_lep){ NORMAL, 0x00800100, 0x01000000 };
	EXPECT_EQ(qpiu_lep_decode(&lep, 2, identity_map(), &peer), QPIU_PEER_OK);
	EXPECT_EQ(peer.socket, 4);
	EXPECT_EQ(peer.port, 0);
	/* the first group that holds the node id, as topology takes it */
	EXPECT_EQ(qpiu_lep_decode(&lep, 2, 4 << 6 | 4 << 15, &peer),
		  QPIU_PEER_OK);
	EXPECT_EQ(peer.socket, 2);
}

static void test_decode_refusals(void)
{
	struct qpiu_port_id peer = { 99, 99 };
	struct qpiu_lep lep;

	/* parameters cleared, in normal operation */
	lep = (struct qpiu_lep){ NORMAL, 0, 0x0f000000 };
	EXPECT_EQ(qpiu_lep_decode(&lep, 3, identity_map(), &peer),
		  QPIU_PEER_NO_PARAMS);
	/* peer port 2 on a two-port platform, 3 and 31 on three-port ones */
	lep = lep_facing(1, 2);
	EXPECT_EQ(qpiu_lep_decode(&lep, 2, identity_map(), &peer),
		  QPIU_PEER_PORT_RANGE);
	EXPECT_EQ(qpiu_lep_decode(&lep, 3, identity_map(), &peer), QPIU_PEER_OK);
	EXPECT_EQ(peer.port, 2);
	peer.socket = peer.port = 99;
	lep = lep_facing(1, 3);
	EXPECT_EQ(qpiu_lep_decode(&lep, 3, identity_map(), &peer),
		  QPIU_PEER_PORT_RANGE);
	lep = lep_facing(1, 31);
	EXPECT_EQ(qpiu_lep_decode(&lep, 3, identity_map(), &peer),
		  QPIU_PEER_PORT_RANGE);
	/* QPILP2 with no flags, or flags for two node ids */
	lep = lep_facing(1, 0);
	lep.qpilp2 = 0;
	EXPECT_EQ(qpiu_lep_decode(&lep, 2, identity_map(), &peer),
		  QPIU_PEER_NODE_UNKNOWN);
	lep.qpilp2 = 0x00010100;
	EXPECT_EQ(qpiu_lep_decode(&lep, 2, identity_map(), &peer),
		  QPIU_PEER_NODE_UNKNOWN);
	/* a node id above 7: no 3-bit group holds it */
	lep = lep_facing(1, 0);
	lep.qpilp0 |= 2 << QPI_QPILP0_NODE_HI_SHIFT;
	EXPECT_EQ(qpiu_lep_decode(&lep, 2, identity_map(), &peer),
		  QPIU_PEER_NODE_UNKNOWN);
	/* node 5 in no group of a 2-socket map (others repeat node 0) */
	lep = lep_facing(5, 0);
	EXPECT_EQ(qpiu_lep_decode(&lep, 2, 1 << 3, &peer),
		  QPIU_PEER_NODE_UNKNOWN);
	/* no map: the UBox did not answer */
	lep = lep_facing(0, 0);
	EXPECT_EQ(qpiu_lep_decode(&lep, 2, QPIU_NO_GIDNIDMAP, &peer),
		  QPIU_PEER_NODE_UNKNOWN);
	EXPECT_EQ(qpiu_lep_decode(&lep, 2, 1U << 24, &peer),
		  QPIU_PEER_NODE_UNKNOWN);
	/* a refusal leaves the peer alone */
	EXPECT_EQ(peer.socket, 99);
	EXPECT_EQ(peer.port, 99);
	/* not normal wins over everything */
	lep = (struct qpiu_lep){ 0x8 << 24, 0, 0 };
	EXPECT_EQ(qpiu_lep_decode(&lep, 2, QPIU_NO_GIDNIDMAP, &peer),
		  QPIU_PEER_NOT_NORMAL);
}

/* A fake machine: every port's registers, and which the driver has. */
struct machine {
	struct qpiu_lep lep[8][3];
	bool absent[8][3];
	bool broken[8][3];	/* reads fail */
	unsigned int reads;
};

static int machine_rd(void *ctx, unsigned int socket, unsigned int port,
		      struct qpiu_lep *lep)
{
	struct machine *m = ctx;

	m->reads++;
	if (socket >= 8 || port >= 3 || m->absent[socket][port])
		return -ENODEV;
	if (m->broken[socket][port])
		return -EIO;
	*lep = m->lep[socket][port];
	return 0;
}

/* Wire s.p to t.q, with node id = socket (the identity map). */
static void wire(struct machine *m, unsigned int s, unsigned int p,
		 unsigned int t, unsigned int q)
{
	m->lep[s][p] = lep_facing(t, q);
	m->lep[t][q] = lep_facing(s, p);
}

/* validate s.p; returns the reason, *peer filled */
static enum qpiu_peer_why check(struct machine *m, unsigned int s,
				unsigned int p, unsigned int nr_ports,
				struct qpiu_port_id *peer)
{
	struct qpiu_port_id self = { s, p };
	enum qpiu_peer_why why = QPIU_NR_PEER_WHY;
	u8 state = 0xff;
	int err;

	err = qpiu_peer_validate(machine_rd, m, &self, nr_ports,
				 identity_map(), &state, peer, &why);
	EXPECT_EQ(err, 0);
	EXPECT_EQ(state, qpiu_ll_state(m->lep[s][p].qpils));
	return why;
}

static void test_crossed_and_one_sided(void)
{
	struct qpiu_port_id self = { 0, 0 }, peer;
	struct machine m = { 0 };
	enum qpiu_peer_why why;
	u8 state;

	m.absent[0][2] = m.absent[1][2] = true;
	/* a crossed 2-socket board: port 0 faces port 1 */
	wire(&m, 0, 0, 1, 1);
	wire(&m, 0, 1, 1, 0);
	EXPECT_EQ(check(&m, 0, 0, 2, &peer), QPIU_PEER_OK);
	EXPECT_EQ(peer.socket, 1);
	EXPECT_EQ(peer.port, 1);
	EXPECT_EQ(check(&m, 1, 1, 2, &peer), QPIU_PEER_OK);
	EXPECT_EQ(peer.socket, 0);
	EXPECT_EQ(peer.port, 0);
	EXPECT_EQ(check(&m, 0, 1, 2, &peer), QPIU_PEER_OK);
	EXPECT_EQ(peer.socket, 1);
	EXPECT_EQ(peer.port, 0);
	/* two reads: this end and the far end */
	m.reads = 0;
	EXPECT_EQ(check(&m, 1, 0, 2, &peer), QPIU_PEER_OK);
	EXPECT_EQ(m.reads, 2);

	/* one-sided: 1.1 retrained facing 0.1, 0.0 still names 1.1 */
	m.lep[1][1] = lep_facing(0, 1);
	EXPECT_EQ(check(&m, 0, 0, 2, &peer), QPIU_PEER_DISAGREES);
	EXPECT_EQ(check(&m, 1, 1, 2, &peer), QPIU_PEER_DISAGREES);
	/* the far end names us again */
	m.lep[1][1] = lep_facing(0, 0);
	EXPECT_EQ(check(&m, 0, 0, 2, &peer), QPIU_PEER_OK);
	/* the far end's parameters cleared, or not in normal operation */
	m.lep[1][1].qpilp0 = 0;
	EXPECT_EQ(check(&m, 0, 0, 2, &peer), QPIU_PEER_DISAGREES);
	m.lep[1][1] = lep_facing(0, 0);
	m.lep[1][1].qpils = 0xc << 24;
	EXPECT_EQ(check(&m, 0, 0, 2, &peer), QPIU_PEER_DISAGREES);
	EXPECT_EQ(check(&m, 1, 1, 2, &peer), QPIU_PEER_NOT_NORMAL);
	/* the far end does not answer */
	m.lep[1][1] = lep_facing(0, 0);
	m.broken[1][1] = true;
	EXPECT_EQ(check(&m, 0, 0, 2, &peer), QPIU_PEER_DISAGREES);
	m.broken[1][1] = false;
	/* the far end names a port of a socket that is not there */
	m.lep[1][1] = lep_facing(5, 0);
	EXPECT_EQ(check(&m, 0, 0, 2, &peer), QPIU_PEER_DISAGREES);
	/* a port naming its own socket */
	m.lep[0][0] = lep_facing(0, 1);
	EXPECT_EQ(check(&m, 0, 0, 2, &peer), QPIU_PEER_DISAGREES);
	/* naming socket 5, which the driver does not have */
	m.lep[0][0] = lep_facing(5, 1);
	m.absent[5][1] = true;
	EXPECT_EQ(check(&m, 0, 0, 2, &peer), QPIU_PEER_SOCKET_ABSENT);
	/* naming port 2 of socket 1, which this board lacks */
	m.lep[0][0] = lep_facing(1, 2);
	EXPECT_EQ(check(&m, 0, 0, 3, &peer), QPIU_PEER_SOCKET_ABSENT);
	EXPECT_EQ(check(&m, 0, 0, 2, &peer), QPIU_PEER_PORT_RANGE);
	/* this end does not answer: the error, nothing set */
	m.broken[0][0] = true;
	why = QPIU_NR_PEER_WHY;
	state = 0xff;
	EXPECT_EQ(qpiu_peer_validate(machine_rd, &m, &self, 2, identity_map(),
				     &state, &peer, &why), -EIO);
	EXPECT_EQ(why, QPIU_NR_PEER_WHY);
	EXPECT_EQ(state, 0xff);
	m.absent[0][0] = true;
	EXPECT_EQ(qpiu_peer_validate(machine_rd, &m, &self, 2, identity_map(),
				     &state, &peer, &why), -ENODEV);
}

/*
 * 8 sockets of 3 ports, qpisim's default for that size: a ring (port 0 of
 * s to port 1 of s + 1) and port 2 across (s to s + 4).  Every port has
 * its exact peer.
 */
static void test_eight_sockets(void)
{
	struct machine m = { 0 };
	struct qpiu_port_id peer;
	unsigned int s, p, want_s, want_p;

	for (s = 0; s < 8; s++)
		wire(&m, s, 0, (s + 1) % 8, 1);
	for (s = 0; s < 4; s++)
		wire(&m, s, 2, s + 4, 2);
	for (s = 0; s < 8; s++) {
		for (p = 0; p < 3; p++) {
			peer.socket = peer.port = 99;
			EXPECT_EQ(check(&m, s, p, 3, &peer), QPIU_PEER_OK);
			want_s = p == 0 ? (s + 1) % 8 : p == 1 ? (s + 7) % 8 :
				 (s + 4) % 8;
			want_p = p == 0 ? 1 : p == 1 ? 0 : 2;
			EXPECT_EQ(peer.socket, want_s);
			EXPECT_EQ(peer.port, want_p);
		}
	}
	/* socket 7's port 0 goes down: both ends leave normal operation */
	m.lep[7][0] = (struct qpiu_lep){ 0x8 << 24, 0, 0 };
	m.lep[0][1] = (struct qpiu_lep){ 0x8 << 24, 0, 0 };
	EXPECT_EQ(check(&m, 7, 0, 3, &peer), QPIU_PEER_NOT_NORMAL);
	EXPECT_EQ(check(&m, 0, 1, 3, &peer), QPIU_PEER_NOT_NORMAL);
	EXPECT_EQ(check(&m, 0, 0, 3, &peer), QPIU_PEER_OK);
	/* socket 6 missing from the driver */
	m.absent[6][0] = m.absent[6][1] = m.absent[6][2] = true;
	EXPECT_EQ(check(&m, 5, 0, 3, &peer), QPIU_PEER_SOCKET_ABSENT);
	EXPECT_EQ(check(&m, 7, 1, 3, &peer), QPIU_PEER_SOCKET_ABSENT);
	EXPECT_EQ(check(&m, 2, 2, 3, &peer), QPIU_PEER_SOCKET_ABSENT);
}

static const struct ktap_case cases[] = {
	{ "every_state", test_every_state },
	{ "node_ids", test_node_ids },
	{ "decode_refusals", test_decode_refusals },
	{ "crossed_and_one_sided", test_crossed_and_one_sided },
	{ "eight_sockets", test_eight_sockets },
};

int main(void)
{
	return ktap_run("qpi_uncore_peer", cases, ARRAY_SIZE(cases));
}
