// SPDX-License-Identifier: GPL-2.0
/*
 * The figures of qpistat: what each box counted, turned into bandwidth,
 * utilization, protocol overhead, receive from the far end of a link,
 * link power state residency and the health events' shares, by the
 * platform's row of the plan (plan.c holds the formulas themselves).
 * Here too the boxes opened, which pmu.c fills: the host tests
 * (test_figures.c, in test_plan) fill them with known counts, without a
 * PMU.
 */
#include <stdbool.h>
#include <stdint.h>

#include "qpistat.h"

struct box boxes[2 * MAX_SOCKETS * MAX_BOXES];
int nr_boxes;

/* this CPU's row of the plan */
const struct plan *plan;

/* --link-map: the far end of each port, NULL without */
const struct linkmap *map;

/* The QPI box at the far end of @b by the link map, NULL if unmapped. */
const struct box *peer_box(const struct box *b)
{
	struct lm_end e;
	int i;

	if (b->kind != QPI || !linkmap_peer(map, b->socket, b->idx, &e))
		return NULL;
	for (i = 0; i < nr_boxes; i++)
		if (boxes[i].kind == QPI && boxes[i].socket == e.socket &&
		    boxes[i].idx == e.port)
			return &boxes[i];
	return NULL;
}

/* What QPI box @b counted, and its figures by the plan. */
void own_figures(const struct box *b, double dt, bool cum,
			struct plan_counts *c, struct plan_figures *f)
{
	c->clk = d(b, BW_CLK, cum);
	c->data = d(b, BW_DATA, cum);
	c->nondata = d(b, BW_NONDATA, cum);
	c->tx_data = b->nr > BW_TX_DATA ? d(b, BW_TX_DATA, cum) : 0;
	plan_figures(plan, c, dt, f);
}

/*
 * The bandwidth counts and figures of QPI box @b: its own, and where the
 * plan counts at the sending end and the link map names its peer, its
 * receive from what the peer sent.
 */
void port_figures(const struct box *b, double dt, bool cum,
			 struct plan_counts *c, struct plan_figures *f)
{
	const struct box *peer = peer_box(b);

	own_figures(b, dt, cum, c, f);
	if (peer) {
		struct plan_counts pc;
		struct plan_figures pf;

		own_figures(peer, dt, cum, &pc, &pf);
		plan_rx_from_peer(plan, &pf, f);
	}
}

bool has_health(const struct box *b)
{
	return b->kind == QPI && b->hfd[0] >= 0;
}

/* Health event @h of @b over the last interval (or the whole run). */
struct plan_health health(const struct box *b, int h, bool cum)
{
	struct plan_health v = b->h[h];

	if (!cum) {
		v.value -= b->hprev[h].value;
		v.counted_s -= b->hprev[h].counted_s;
		v.enabled_s -= b->hprev[h].enabled_s;
	}
	return v;
}

/* The share of clockticks of @b in the power state event @h counts, or -1. */
double residency(const struct box *b, int h, double dt, bool cum)
{
	struct plan_health v = health(b, h, cum);

	return plan_residency(v.value, v.counted_s, d(b, BW_CLK, cum), dt);
}

/*
 * What socket @s received over the interval, where the plan counts at the
 * sending end: what the other socket sent it, with two sockets (0 and 1).
 */
bool socket_rx(int s, double dt, bool cum, double *bw)
{
	uint64_t sent[2] = { 0, 0 }, bytes;
	bool present[MAX_SOCKETS] = { false };
	int i, nr = 0;

	for (i = 0; i < nr_boxes; i++) {
		struct plan_counts c;
		struct plan_figures f;

		if (boxes[i].kind != QPI || boxes[i].socket < 0 ||
		    boxes[i].socket >= MAX_SOCKETS)
			continue;
		nr += !present[boxes[i].socket];
		present[boxes[i].socket] = true;
		port_figures(&boxes[i], dt, cum, &c, &f);
		if (boxes[i].socket < 2)
			sent[boxes[i].socket] += f.tx_bytes;
	}
	if (nr == 2 && !(present[0] && present[1]))
		nr = 0;
	if (!plan_socket_rx(sent, nr, s, &bytes))
		return false;
	*bw = ratio(bytes, dt);
	return true;
}
