// SPDX-License-Identifier: GPL-2.0
/*
 * qpisim link map: which socket and port is at the far end of each QPI
 * port, its default wiring, the text of the debugfs "links" file, and the
 * link layer's registers that follow from it (QPILS, QPILP0, QPILP2,
 * QPIPCSTS of the port's function 0).
 */
#include "qpisim_model.h"

#define QSIM_LINKS_USE	"write 'S.P T.Q', 'S.P none', 'S.P down', 'S.P up', 'S.P names T.Q', 'S.P names peer' or 'clear'"

#ifdef __KERNEL__
#include <linux/kernel.h>
#include <linux/string.h>
#else
#include <stdio.h>
#include <string.h>
#endif

/*
 * An end with no peer waits for its physical layer; wiring trains the new
 * link to normal operation at both ends.
 */
static void unwire(struct qsim_box *box)
{
	if (box->peer) {
		box->peer->peer = NULL;
		box->peer->ll_down = false;
	}
	box->peer = NULL;
	box->ll_down = false;
}

static void wire(struct qsim_box *a, struct qsim_box *b)
{
	unwire(a);
	unwire(b);
	a->peer = b;
	b->peer = a;
}

static void wire_at(struct qsim *sim, unsigned int s, unsigned int p,
		    unsigned int t, unsigned int q)
{
	wire(&sim->sock[s].qpi[p], &sim->sock[t].qpi[q]);
}

static void unwire_all(struct qsim *sim)
{
	unsigned int s, p;

	for (s = 0; s < sim->nr_sockets; s++) {
		for (p = 0; p < sim->sock[s].nr_ports; p++) {
			sim->sock[s].qpi[p].peer = NULL;
			sim->sock[s].qpi[p].ll_down = false;
			sim->sock[s].qpi[p].names = NULL;
		}
	}
}

/**
 * qsim_link_state() - a port's QPILS link_initialization_status
 * @box: a QPI port
 *
 * Normal operation on a wired link; link abort at both ends of a link
 * taken down (the link layer gave up on it, as after retries that fail:
 * the state it stays in until the link is reset); waiting for the
 * physical layer on a port with no link.
 */
u8 qsim_link_state(const struct qsim_box *box)
{
	if (!box->peer)
		return QSIM_LL_WAIT_PHY;
	return box->ll_down ? QSIM_LL_ABORT : QPI_LL_NORMAL;
}

/**
 * qsim_link_reg() - a link-layer register of a port's function 0
 * @box: the QPI port
 * @where: dword offset
 *
 * QPILP0 and QPILP2 hold what the peer sent in the parameter exchange:
 * its port and node id, split as the BIOS reads them back (NodeID[9:3]
 * in QPILP0[14:8], NID[1:0] as the one non-zero byte of QPILP2, byte 0
 * for 3 and byte 3 for 0).  The node id is the peer socket's UBox
 * CPUNODEID, the one GIDNIDMAP maps back to that socket.  Out of normal
 * operation both read zero: cleared at every link-layer init.  A port
 * with the "names" fault holds the parameters of the port it names
 * instead, so that the two ends of its link disagree.
 *
 * Return: the dword; 0 for offsets that are not one of those registers.
 */
u32 qsim_link_reg(const struct qsim_box *box, unsigned int where)
{
	u8 state = qsim_link_state(box);
	const struct qsim_box *from;
	unsigned int node;

	switch (where) {
	case QPI_QPILS:
		return (u32)state << QPI_QPILS_STATE_SHIFT;
	case QPI_QPIPCSTS:
		return state;
	case QPI_QPILP0:
	case QPI_QPILP2:
		break;
	default:
		return 0;
	}
	if (state != QPI_LL_NORMAL)
		return 0;
	from = box->names ? box->names : box->peer;
	node = from->sock->node_id;
	if (where == QPI_QPILP2)
		return (u32)QSIM_LP2_FLAGS << (8 * (3 - (node & 3)));
	return from->idx |
	       QSIM_LP0_NR_NIDS << QPI_QPILP0_NR_NIDS_SHIFT |
	       (node >> 2) << QPI_QPILP0_NODE_HI_SHIFT |
	       QSIM_LP0_LLR << QPI_QPILP0_LLR_SHIFT;
}

/**
 * qsim_links_default() - wire the ports as a real board of this size would
 * @sim: the model, its sockets and ports set up
 *
 * With S sockets of P ports (Documentation/qpisim.rst, "Link map"):
 *
 * - S = 2: port p of socket 0 to port p of socket 1, every port;
 * - S - 1 <= P (a full mesh fits): port k of socket i to port S - 2 - k of
 *   socket (i + k + 1) mod S, for k < S - 1, so every pair of sockets has
 *   one link and port 0 leads to the next socket;
 * - P = 1: sockets 2m and 2m + 1 by port 0;
 * - otherwise a ring: port 0 of socket i to port 1 of socket (i + 1) mod S,
 *   and with a third port and S even, port 2 of socket i to port 2 of
 *   socket i + S / 2.
 *
 * Ports the rule leaves out stay unwired; one socket has no links.
 */
void qsim_links_default(struct qsim *sim)
{
	unsigned int nr = sim->nr_sockets, s, k;
	unsigned int ports = nr ? sim->sock[0].nr_ports : 0;

	unwire_all(sim);
	if (nr < 2)
		return;
	if (nr == 2) {
		for (k = 0; k < ports; k++)
			wire_at(sim, 0, k, 1, k);
		return;
	}
	if (nr - 1 <= ports) {
		for (s = 0; s < nr; s++)
			for (k = 0; k < nr - 1; k++)
				wire_at(sim, s, k, (s + k + 1) % nr, nr - 2 - k);
		return;
	}
	if (ports == 1) {
		for (s = 0; s + 1 < nr; s += 2)
			wire_at(sim, s, 0, s + 1, 0);
		return;
	}
	for (s = 0; s < nr; s++)
		wire_at(sim, s, 0, (s + 1) % nr, 1);
	if (ports >= 3 && nr % 2 == 0)
		for (s = 0; s < nr / 2; s++)
			wire_at(sim, s, 2, s + nr / 2, 2);
}

/* ---- the links file ---- */

struct qsim_end {
	unsigned int sock;
	unsigned int port;
};

static bool is_space(char c)
{
	return c == ' ' || c == '\t';
}

/* The next blank-separated word of the line at *@s, at most @len - 1 chars. */
static bool next_word(const char **s, const char *end, char *word, size_t len)
{
	size_t n = 0;

	while (*s < end && is_space(**s))
		(*s)++;
	while (*s < end && !is_space(**s)) {
		if (n + 1 >= len)
			return false;
		word[n++] = *(*s)++;
	}
	word[n] = '\0';
	return true;
}

static bool parse_uint(const char **s, unsigned int *out)
{
	unsigned int v = 0;

	if (**s < '0' || **s > '9')
		return false;
	for (; **s >= '0' && **s <= '9'; (*s)++) {
		v = v * 10 + (**s - '0');
		if (v > 255)
			return false;
	}
	*out = v;
	return true;
}

/* "S.P", both in range. */
static int parse_end(const struct qsim *sim, const char *w, struct qsim_end *e,
		     char *err, size_t len)
{
	const char *s = w;

	if (!parse_uint(&s, &e->sock) || *s++ != '.' ||
	    !parse_uint(&s, &e->port) || *s) {
		snprintf(err, len, "links: '%s' is not SOCKET.PORT; "
			 QSIM_LINKS_USE, w);
		return -1;
	}
	if (e->sock >= sim->nr_sockets) {
		snprintf(err, len, "links: %s: socket %u out of range, the model has %u sockets",
			 w, e->sock, sim->nr_sockets);
		return -1;
	}
	if (e->port >= sim->sock[e->sock].nr_ports) {
		snprintf(err, len, "links: %s: port %u out of range, socket %u has %u QPI ports",
			 w, e->port, e->sock, sim->sock[e->sock].nr_ports);
		return -1;
	}
	return 0;
}

/*
 * "S.P names T.Q": S.P's parameters name T.Q, any port of the model, its
 * own socket's too; "S.P names peer": they name its peer again.
 */
static int names_line(struct qsim *sim, char w[][16], char *err, size_t len)
{
	struct qsim_end a, b;

	if (parse_end(sim, w[0], &a, err, len))
		return -1;
	if (!strcmp(w[2], "peer")) {
		sim->sock[a.sock].qpi[a.port].names = NULL;
		return 0;
	}
	if (parse_end(sim, w[2], &b, err, len))
		return -1;
	sim->sock[a.sock].qpi[a.port].names = &sim->sock[b.sock].qpi[b.port];
	return 0;
}

/* One line, applied if valid. */
static int links_line(struct qsim *sim, const char *line, const char *end,
		      char *err, size_t len)
{
	char w[4][16];
	struct qsim_end a, b;
	unsigned int n;

	for (n = 0; n < 4; n++) {
		if (!next_word(&line, end, w[n], sizeof(w[n]))) {
			snprintf(err, len,
				 "links: a word is too long; " QSIM_LINKS_USE);
			return -1;
		}
		if (!w[n][0])
			break;
	}
	if (!n)
		return 0;
	if (n == 3 && !strcmp(w[1], "names"))
		return names_line(sim, w, err, len);
	if (n >= 3) {
		snprintf(err, len, "links: '%s %s %s...': one link a line; "
			 QSIM_LINKS_USE, w[0], w[1], w[2]);
		return -1;
	}
	if (n == 1) {
		if (strcmp(w[0], "clear")) {
			snprintf(err, len, "links: '%s': " QSIM_LINKS_USE,
				 w[0]);
			return -1;
		}
		unwire_all(sim);
		return 0;
	}
	if (parse_end(sim, w[0], &a, err, len))
		return -1;
	if (!strcmp(w[1], "none")) {
		unwire(&sim->sock[a.sock].qpi[a.port]);
		return 0;
	}
	if (!strcmp(w[1], "down") || !strcmp(w[1], "up")) {
		struct qsim_box *box = &sim->sock[a.sock].qpi[a.port];

		/* as the lines before left it: qsim_links_write() */
		if (!box->peer) {
			snprintf(err, len, "links: %s %s: port %s has no link",
				 w[0], w[1], w[0]);
			return -1;
		}
		box->ll_down = !strcmp(w[1], "down");
		box->peer->ll_down = box->ll_down;
		return 0;
	}
	if (parse_end(sim, w[1], &b, err, len))
		return -1;
	if (a.sock == b.sock) {
		snprintf(err, len, "links: %s %s: a link joins two sockets",
			 w[0], w[1]);
		return -1;
	}
	wire_at(sim, a.sock, a.port, b.sock, b.port);
	return 0;
}

static int links_pass(struct qsim *sim, const char *buf, char *err,
		      size_t len)
{
	const char *line = buf;

	while (*line) {
		const char *nl = strchr(line, '\n');
		const char *end = nl ? nl : line + strlen(line);

		if (links_line(sim, line, end, err, len))
			return -1;
		line = nl ? nl + 1 : end;
	}
	return 0;
}

/**
 * qsim_links_write() - apply what was written to the links file
 * @sim: the model
 * @buf: one command a line: "S.P T.Q", "S.P none", "S.P down", "S.P up",
 *       "S.P names T.Q", "S.P names peer" or "clear"
 * @err: where a one-line reason goes on failure
 * @errlen: size of @err
 *
 * "S.P T.Q" wires the two ports, unwiring whatever each had; "S.P none"
 * unwires one; "clear" all.  "S.P down" takes S.P's link out of normal
 * operation at both ends, "S.P up" retrains it; both want a wired port.
 * "S.P names T.Q" is a fault: S.P's QPILP0/QPILP2 name T.Q, whatever S.P
 * is wired to, until "S.P names peer" or "clear".  The lines apply in
 * order, and only if every line is valid: a bad one leaves the map as it
 * was.
 *
 * Return: 0, or -1 with @err naming the rule broken.
 */
int qsim_links_write(struct qsim *sim, const char *buf, char *err,
		     size_t errlen)
{
	struct {
		struct qsim_box *peer;
		struct qsim_box *names;
		bool ll_down;
	} was[QSIM_MAX_SOCKETS][QSIM_MAX_PORTS];
	unsigned int s, p;

	/* a line may depend on the lines before it: apply, undo on error */
	for (s = 0; s < sim->nr_sockets; s++) {
		for (p = 0; p < sim->sock[s].nr_ports; p++) {
			was[s][p].peer = sim->sock[s].qpi[p].peer;
			was[s][p].names = sim->sock[s].qpi[p].names;
			was[s][p].ll_down = sim->sock[s].qpi[p].ll_down;
		}
	}
	if (!links_pass(sim, buf, err, errlen))
		return 0;
	for (s = 0; s < sim->nr_sockets; s++) {
		for (p = 0; p < sim->sock[s].nr_ports; p++) {
			sim->sock[s].qpi[p].peer = was[s][p].peer;
			sim->sock[s].qpi[p].names = was[s][p].names;
			sim->sock[s].qpi[p].ll_down = was[s][p].ll_down;
		}
	}
	return -1;
}

/**
 * qsim_links_show() - the links file: "S.P T.Q" a line, each link once,
 * " down" after a link taken down; then "S.P names T.Q" for each port
 * with that fault
 * @sim: the model
 * @buf: output, NUL-terminated
 * @len: size of @buf
 *
 * Each link is written from its lower end (the lower socket, as a link
 * joins two sockets), in order of that end.
 *
 * Return: the length of the text (as snprintf(), may exceed @len - 1).
 */
size_t qsim_links_show(const struct qsim *sim, char *buf, size_t len)
{
	size_t n = 0;
	unsigned int s, p;

	if (len)
		buf[0] = '\0';
	for (s = 0; s < sim->nr_sockets; s++) {
		for (p = 0; p < sim->sock[s].nr_ports; p++) {
			const struct qsim_box *peer = sim->sock[s].qpi[p].peer;

			if (!peer || peer->sock->id < s)
				continue;
			n += snprintf(buf + (n < len ? n : len),
				      n < len ? len - n : 0, "%u.%u %u.%u%s\n",
				      s, p, peer->sock->id, peer->idx,
				      peer->ll_down ? " down" : "");
		}
	}
	for (s = 0; s < sim->nr_sockets; s++) {
		for (p = 0; p < sim->sock[s].nr_ports; p++) {
			const struct qsim_box *to = sim->sock[s].qpi[p].names;

			if (!to)
				continue;
			n += snprintf(buf + (n < len ? n : len),
				      n < len ? len - n : 0, "%u.%u names %u.%u\n",
				      s, p, to->sock->id, to->idx);
		}
	}
	return n;
}
