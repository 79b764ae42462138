// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of the silicon's link map (sysmap.c), in test_plan's KTAP
 * run: the two files' syntax, every state name, a published map read from
 * a fake PMU directory (a crossed 2-socket board, a link down, a one-sided
 * pair, a module that publishes nothing), and the exact messages of an
 * operator's map that disagrees with it.
 *
 * The driver answers a port without a peer with a read that fails with
 * ENODATA; a regular file cannot, so the fake one is empty, which is no
 * peer too (sysmap_parse_peer() takes nothing else).  The guest tests
 * (selftests/qpistat_plan.sh) read the real files.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sysmap.h"
#include "test.h"

static char dir[64];

static void put(const char *name, const char *text)
{
	test_put(dir, name, text);
}

static void mk(const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	mkdir(path, 0755);
}

static void rm_tree(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd))
		printf("# could not remove %s\n", dir);
}

static void syntax(void)
{
	static const char *const states[] = {
		"waiting_for_physical_layer", "internal_stall",
		"sending_ready_for_init", "parameter_exchange",
		"sending_ready_for_normal_operation", "normal_operation",
		"link_level_retry", "link_abort", "param_ex_done_stalled",
		"param_ex_done_proceeding", "wait_for_normal", "local_link_reset",
		"unknown_0xe",
	};
	static const char *const reasons[] = {
		"no_peer_parameters", "peer_port_out_of_range", "peer_node_unknown",
		"peer_socket_absent", "peer_disagrees", "not_normal_operation",
	};
	static const char *const bad_peer[] = {
		"", "\n", "qpi_,die_0\n", "qpi_1;die_0\n", "qpi_1,die_0 \n",
		"qpi_1,die_0\nx", "qpi_12345,die_0\n", "upi_1,die_0\n", "qpi_1,die_\n",
		"qpi_-1,die_0\n",
	};
	static const char *const bad_state[] = {
		"", "\n", "Normal_operation\n", "link_abort  x\n", "a b c\n",
		"normal_operation\nx", " normal_operation\n",
		"a_name_far_longer_than_any_state_name_is\n",
	};
	char state[SYSMAP_NAME], reason[SYSMAP_NAME], text[128];
	struct lm_end e = { -1, -1 };
	unsigned int i, j;
	bool good = true;

	good = sysmap_parse_peer("qpi_1,die_0\n", &e);
	ok(good && e.socket == 0 && e.port == 1,
	   "sysmap: 'qpi_1,die_0' is socket 0 port 1 (%d.%d)", e.socket, e.port);
	good = true;
	ok(sysmap_parse_peer("qpi_2,die_63", &e) && e.socket == 63 && e.port == 2,
	   "sysmap: 'qpi_2,die_63' without a newline is socket 63 port 2");
	for (i = 0; i < sizeof(bad_peer) / sizeof(bad_peer[0]); i++)
		if (sysmap_parse_peer(bad_peer[i], &e)) {
			printf("# took '%s'\n", bad_peer[i]);
			good = false;
		}
	ok(good, "sysmap: %zu malformed peer texts are no peer",
	   sizeof(bad_peer) / sizeof(bad_peer[0]));
	good = true;
	for (i = 0; i < sizeof(states) / sizeof(states[0]); i++) {
		snprintf(text, sizeof(text), "%s\n", states[i]);
		good &= sysmap_parse_state(text, state, reason) &&
			!strcmp(state, states[i]) && !reason[0];
		for (j = 0; j < sizeof(reasons) / sizeof(reasons[0]); j++) {
			snprintf(text, sizeof(text), "%s %s\n", states[i], reasons[j]);
			if (!sysmap_parse_state(text, state, reason) ||
			    strcmp(state, states[i]) || strcmp(reason, reasons[j])) {
				printf("# '%s' read as '%s' '%s'\n", text, state, reason);
				good = false;
			}
		}
	}
	ok(good, "sysmap: every state, alone and with every reason");
	good = true;
	for (i = 0; i < sizeof(bad_state) / sizeof(bad_state[0]); i++)
		if (sysmap_parse_state(bad_state[i], state, reason) || state[0] || reason[0]) {
			printf("# took '%s'\n", bad_state[i]);
			good = false;
		}
	ok(good, "sysmap: %zu malformed state texts are refused, nothing kept",
	   sizeof(bad_state) / sizeof(bad_state[0]));
}

/* 2 sockets of 2 ports */
static const struct lm_end ports2[] = { { 0, 0 }, { 0, 1 }, { 1, 0 }, { 1, 1 } };

/* the die files of a 2-socket board: port @p of socket @s has @peer */
static void die(int s, int p, const char *peer, const char *state)
{
	char name[64];

	snprintf(name, sizeof(name), "uncore_qpi_%d", p);
	mk(name);
	snprintf(name, sizeof(name), "uncore_qpi_%d/link", p);
	mk(name);
	snprintf(name, sizeof(name), "uncore_qpi_%d/die%d", p, s);
	put(name, peer);
	snprintf(name, sizeof(name), "uncore_qpi_%d/link/die%d", p, s);
	put(name, state);
}

static void read_crossed(void)
{
	static struct sysmap sm;
	static struct linkmap m;
	const struct sm_port *p;
	char err[512];

	/* port 0 faces port 1: 0.0=1.1, 0.1=1.0 */
	die(0, 0, "qpi_1,die_1\n", "normal_operation\n");
	die(1, 1, "qpi_0,die_0\n", "normal_operation\n");
	die(0, 1, "qpi_0,die_1\n", "normal_operation\n");
	die(1, 0, "qpi_1,die_0\n", "normal_operation\n");
	sysmap_read(dir, ports2, 4, &sm);
	p = sysmap_port(&sm, 0, 0);
	ok(sysmap_published(&sm) && sm.nr == 4 && p && p->mapped && p->peer.socket == 1 &&
	   p->peer.port == 1 && p->has_state && p->normal && !p->reason[0],
	   "sysmap: crossed board: socket 0 port 0 faces socket 1 port 1, normal operation");
	sysmap_links(&sm, &m);
	ok(m.nr == 2 && m.link[0].end[0].socket == 0 && m.link[0].end[0].port == 0 &&
	   m.link[0].end[1].socket == 1 && m.link[0].end[1].port == 1 &&
	   !strcmp(m.link[0].where, "uncore_qpi_0/die0") &&
	   m.link[1].end[0].socket == 0 && m.link[1].end[0].port == 1 &&
	   m.link[1].end[1].socket == 1 && m.link[1].end[1].port == 0,
	   "sysmap: crossed board: links 0.0=1.1 (uncore_qpi_0/die0) and 0.1=1.0");
	ok(!linkmap_check(&m, ports2, 4, err, sizeof(err)),
	   "sysmap: its links pass the operator map's own check");

	/* the operator's map as the board is wired: no difference */
	linkmap_parse("0.1=1.0,1.1=0.0", &m, err, sizeof(err));
	ok(sysmap_diff(&m, &sm, err, sizeof(err)) == 0 && !err[0],
	   "sysmap: an operator's map that agrees: no difference ('%s')", err);
	/* straight, as most boards: both entries differ, both ends */
	linkmap_parse("0.0=1.0,0.1=1.1", &m, err, sizeof(err));
	ok(sysmap_diff(&m, &sm, err, sizeof(err)) == 2 &&
	   !strcmp(err, "entry 1 '0.0=1.0': the silicon links socket 0 port 0 to socket 1 port 1, socket 1 port 0 to socket 0 port 1; entry 2 '0.1=1.1': the silicon links socket 0 port 1 to socket 1 port 0, socket 1 port 1 to socket 0 port 0"),
	   "sysmap: a straight map on a crossed board: each entry named ('%s')", err);
	/* one entry, the other link left out */
	linkmap_parse("0.0=1.1", &m, err, sizeof(err));
	ok(sysmap_diff(&m, &sm, err, sizeof(err)) == 1 &&
	   !strcmp(err, "the silicon's 0.1=1.0 (uncore_qpi_1/die0) is not in it"),
	   "sysmap: a silicon link the operator's map leaves out ('%s')", err);

	/* link 0.1=1.0 down: no peer either end (an empty fake file) */
	die(0, 1, "", "link_abort not_normal_operation\n");
	die(1, 0, "", "parameter_exchange no_peer_parameters\n");
	sysmap_read(dir, ports2, 4, &sm);
	p = sysmap_port(&sm, 1, 0);
	ok(p && p->published && !p->mapped && p->has_state && !p->normal &&
	   !strcmp(p->state, "parameter_exchange") && !strcmp(p->reason, "no_peer_parameters"),
	   "sysmap: a down link: published, no peer, its state and reason");
	sysmap_links(&sm, &m);
	ok(m.nr == 1, "sysmap: a down link is no link (%d)", m.nr);
	linkmap_parse("0.0=1.1,0.1=1.0", &m, err, sizeof(err));
	ok(sysmap_diff(&m, &sm, err, sizeof(err)) == 1 &&
	   !strcmp(err, "entry 2 '0.1=1.0': the silicon links socket 0 port 1 to nothing (link_abort, not_normal_operation), socket 1 port 0 to nothing (parameter_exchange, no_peer_parameters)"),
	   "sysmap: an entry for a down link names its states ('%s')", err);

	/* one-sided: 0.1 names 1.0, which names nobody */
	die(0, 1, "qpi_0,die_1\n", "normal_operation\n");
	sysmap_read(dir, ports2, 4, &sm);
	sysmap_links(&sm, &m);
	ok(m.nr == 1 && m.link[0].end[0].port == 0,
	   "sysmap: a one-sided pair is no link (%d links)", m.nr);
	/* 0.1 names 1.0, which names 0.0 (whose peer is 1.1) */
	die(1, 0, "qpi_0,die_0\n", "normal_operation\n");
	sysmap_read(dir, ports2, 4, &sm);
	sysmap_links(&sm, &m);
	ok(m.nr == 1 && m.link[0].end[0].port == 0 && m.link[0].end[1].port == 1,
	   "sysmap: a pair naming another port of the same socket is no link (%d links)", m.nr);

	/* a state file without a peer file, an unknown code */
	die(1, 0, "qpi_1,die_0\n", "unknown_0xd peer_disagrees\n");
	sysmap_read(dir, ports2, 4, &sm);
	p = sysmap_port(&sm, 1, 0);
	ok(p && p->mapped && !p->normal && !strcmp(p->state, "unknown_0xd") &&
	   !strcmp(p->reason, "peer_disagrees"), "sysmap: an unknown state code is kept as named");
}

static void nothing_published(void)
{
	static struct sysmap sm;
	static struct linkmap m;

	/* uncore_qpi_0 and _1 exist, without die files: an older module */
	sysmap_read("/nonexistent", ports2, 4, &sm);
	sysmap_links(&sm, &m);
	ok(!sysmap_published(&sm) && sm.nr == 4 && !m.nr && !sm.port[0].has_state,
	   "sysmap: no die files: nothing published, no link");
}

/* 8 sockets, 3 ports each, every port 2 linked to the socket 4 away */
static void eight_sockets(void)
{
	static struct lm_end ports[24];
	static struct sysmap sm;
	static struct linkmap m;
	char text[32];
	int s, p, n = 0, good = 1;

	for (s = 0; s < 8; s++)
		for (p = 0; p < 3; p++) {
			int peer = p == 2 ? (s + 4) % 8 : p == 0 ? (s + 1) % 8 : (s + 7) % 8;

			ports[n++] = (struct lm_end){ s, p };
			snprintf(text, sizeof(text), "qpi_%d,die_%d\n", p == 2 ? 2 : !p, peer);
			die(s, p, text, "normal_operation\n");
		}
	sysmap_read(dir, ports, n, &sm);
	sysmap_links(&sm, &m);
	for (s = 0; s < 8; s++) {
		struct lm_end e;

		good &= linkmap_peer(&m, s, 0, &e) && e.socket == (s + 1) % 8 && e.port == 1;
		good &= linkmap_peer(&m, s, 2, &e) && e.socket == (s + 4) % 8 && e.port == 2;
	}
	ok(good && m.nr == 12, "sysmap: 8 sockets: a ring on ports 0-1, port 2 across, 12 links (%d)",
	   m.nr);
}

void test_sysmap(void)
{
	snprintf(dir, sizeof(dir), "/tmp/qpistat-sysmap-XXXXXX");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		exit(1);
	}
	syntax();
	read_crossed();
	nothing_published();
	rm_tree();
	if (!mkdtemp(strcpy(dir, "/tmp/qpistat-sysmap-XXXXXX"))) {
		perror("mkdtemp");
		exit(1);
	}
	eight_sockets();
	rm_tree();
}
