// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of qpistat's figures (figures.c) for every row of the plan,
 * in test_plan: two sockets, one QPI port each, known counts in the boxes
 * as pmu.c would leave them after two reads; every figure exact, over the
 * interval and since the start, without and with the link map 0.0=1.0.
 */
#include <stdio.h>
#include <string.h>

#include "qpistat.h"
#include "test.h"

/*
 * Socket 0 port 0 over the interval: 4750 clockticks, 8000 data and
 * 1500 non-data flits at the plan's end, 100 Tx data flits (Rx plans'
 * fourth event); since the start 14750, 18000, 2500 and 1100.  Socket 1
 * port 0: 4750, 4000, 500, 50 over the interval; 9750, 14000, 1500, 1050.
 */
static const uint64_t val[2][4] = {
	{ 14750, 18000, 2500, 1100 }, { 9750, 14000, 1500, 1050 },
};
static const uint64_t prev[2][4] = {
	{ 10000, 10000, 1000, 1000 }, { 5000, 10000, 1000, 1000 },
};

#define DT	2.0

/* socket 0 port 0's figures by a row: interval, cumulative, with the map */
struct want {
	const char *row;
	bool rx_known;
	uint64_t rx_bytes, tx_bytes, cum_rx_bytes, cum_tx_bytes;
	double rx_bw, tx_bw, cum_rx_bw, cum_tx_bw;
	/* with the link map: socket 0 port 0's receive */
	bool map_rx_known;
	uint64_t map_rx_bytes, map_cum_rx_bytes;
	double map_rx_bw;
	/* socket_rx(): what sockets 0 and 1 received, bytes/s */
	double sock_rx[2];
};

static const struct want wants[] = {
	/* Rx plans: each port counts what it receives, and its Tx data */
	{ "SNB-EP", true, 64000, 800, 144000, 8800, 32000, 400, 72000, 4400,
	  true, 64000, 144000, 32000, { 200, 400 } },
	{ "IVB-EP", true, 64000, 800, 144000, 8800, 32000, 400, 72000, 4400,
	  true, 64000, 144000, 32000, { 200, 400 } },
	/* Tx plans: receive only from the far end, by the link map */
	{ "HSX", false, 0, 64000, 0, 144000, 0, 32000, 0, 72000,
	  true, 32000, 112000, 16000, { 16000, 32000 } },
	{ "BDX", false, 0, 64000, 0, 144000, 0, 32000, 0, 72000,
	  true, 32000, 112000, 16000, { 16000, 32000 } },
	{ "unknown", false, 0, 64000, 0, 144000, 0, 32000, 0, 72000,
	  true, 32000, 112000, 16000, { 16000, 32000 } },
};

static void fill(const struct plan *p)
{
	int s, i;

	memset(boxes, 0, 3 * sizeof(boxes[0]));
	plan = p;
	map = NULL;
	nr_boxes = 3;
	for (s = 0; s < 2; s++) {
		struct box *b = &boxes[s];

		b->kind = QPI;
		b->socket = s;
		b->nr = p->nr_bw;
		b->fw_fd = -1;
		for (i = 0; i < 4; i++) {
			b->val[i] = val[s][i];
			b->prev[i] = prev[s][i];
		}
		for (i = 0; i < PLAN_NR_HEALTH; i++)
			b->hfd[i] = -1;
	}
	/* an R3QPI link of socket 0: no figures of its own */
	boxes[2].kind = R3QPI;
	boxes[2].nr = 3;
	boxes[2].val[0] = 1000000;
}

static void test_row(const struct want *w)
{
	const struct plan *p = NULL;
	struct plan_counts c;
	struct plan_figures f;
	static struct linkmap lm;
	char err[256];
	double bw[2];
	int i;

	for (i = 0; i < nr_plans; i++)
		if (!strcmp(plans[i].name, w->row))
			p = &plans[i];
	if (!p) {
		ok(0, "figures: no row %s", w->row);
		return;
	}
	fill(p);

	port_figures(&boxes[0], DT, false, &c, &f);
	ok(c.clk == 4750 && c.data == 8000 && c.nondata == 1500 &&
	   c.tx_data == (p->nr_bw > BW_TX_DATA ? 100u : 0u) &&
	   f.rx_known == w->rx_known && f.tx_known && f.rx_bytes == w->rx_bytes &&
	   f.tx_bytes == w->tx_bytes && f.rx_bw == w->rx_bw && f.tx_bw == w->tx_bw &&
	   f.flit_rate == 4750 && f.util == 1.0 && f.overhead == 1500.0 / 9500,
	   "figures %s, interval: rx %s %llu B %.0f B/s, tx %llu B %.0f B/s, %.0f flits/s, util %.6f, overhead %.6f",
	   w->row, f.rx_known ? "known" : "unknown", (unsigned long long)f.rx_bytes,
	   f.rx_bw, (unsigned long long)f.tx_bytes, f.tx_bw, f.flit_rate, f.util,
	   f.overhead);

	port_figures(&boxes[0], DT, true, &c, &f);
	ok(c.clk == 14750 && c.data == 18000 && c.nondata == 2500 &&
	   f.rx_known == w->rx_known && f.rx_bytes == w->cum_rx_bytes &&
	   f.tx_bytes == w->cum_tx_bytes && f.rx_bw == w->cum_rx_bw &&
	   f.tx_bw == w->cum_tx_bw && f.flit_rate == 10250 &&
	   f.util == 20500.0 / 29500 && f.overhead == 2500.0 / 20500,
	   "figures %s, since the start: rx %llu B, tx %llu B, util %.6f, overhead %.6f",
	   w->row, (unsigned long long)f.rx_bytes, (unsigned long long)f.tx_bytes,
	   f.util, f.overhead);

	ok(socket_rx(0, DT, false, &bw[0]) && socket_rx(1, DT, false, &bw[1]) &&
	   bw[0] == w->sock_rx[0] && bw[1] == w->sock_rx[1] &&
	   !socket_rx(2, DT, false, &bw[0]),
	   "figures %s, 2 sockets: socket 0 received %.0f B/s, socket 1 %.0f B/s (what the other sent)",
	   w->row, w->sock_rx[0], w->sock_rx[1]);

	ok(!peer_box(&boxes[0]) && !peer_box(&boxes[2]) && !has_health(&boxes[0]) &&
	   !has_health(&boxes[2]),
	   "figures %s, no link map: no peer; no health events opened: no health", w->row);

	ok(!linkmap_parse("0.0=1.0", &lm, err, sizeof(err)), "figures %s: --link-map 0.0=1.0 parses ('%s')",
	   w->row, err);
	map = &lm;
	port_figures(&boxes[0], DT, false, &c, &f);
	i = f.rx_known == w->map_rx_known && f.rx_bytes == w->map_rx_bytes &&
	    f.rx_bw == w->map_rx_bw && f.tx_bytes == w->tx_bytes && f.util == 1.0;
	port_figures(&boxes[0], DT, true, &c, &f);
	ok(i && peer_box(&boxes[0]) == &boxes[1] && peer_box(&boxes[1]) == &boxes[0] &&
	   f.rx_bytes == w->map_cum_rx_bytes && f.tx_bytes == w->cum_tx_bytes,
	   "figures %s, link map 0.0=1.0: socket 0 port 0 received %llu B since the start (%.0f B/s over the interval)",
	   w->row, (unsigned long long)f.rx_bytes, w->map_rx_bw);

	/* one socket: what it received is unknown */
	nr_boxes = 1;
	ok(!socket_rx(0, DT, false, &bw[0]), "figures %s, 1 socket: receive unknown", w->row);
}

/*
 * The health events of socket 0 port 0: L0p tx 2375 cycles in the 2 s it
 * counted of the interval, against 4750 clockticks in 2 s: half; since
 * the start 3375 in 3 s against 14750 in 2 s.  L1 never counted.
 */
static void test_health(void)
{
	struct plan_health v;
	int i;

	fill(plan_for_model(63));
	for (i = 0; i < PLAN_NR_HEALTH; i++)
		boxes[0].hfd[i] = 10 + i;
	boxes[0].hprev[H_L0P_TX] = (struct plan_health){ 1000, 1.0, 1.5 };
	boxes[0].h[H_L0P_TX] = (struct plan_health){ 3375, 3.0, 3.5 };
	boxes[0].hprev[H_CRC_NORMAL] = (struct plan_health){ 5, 0.25, 1.5 };
	boxes[0].h[H_CRC_NORMAL] = (struct plan_health){ 12, 0.75, 3.5 };
	v = health(&boxes[0], H_CRC_NORMAL, false);
	ok(has_health(&boxes[0]) && v.value == 7 && v.counted_s == 0.5 && v.enabled_s == 2.0 &&
	   health(&boxes[0], H_CRC_NORMAL, true).value == 12,
	   "health: CRC errors 7 over the interval (counted 0.5 s of 2 s), 12 since the start");
	ok(residency(&boxes[0], H_L0P_TX, DT, false) == 0.5 &&
	   residency(&boxes[0], H_L0P_TX, DT, true) == 1125.0 / 7375 &&
	   residency(&boxes[0], H_L1, DT, false) == -1 &&
	   residency(&boxes[0], H_L0P_TX, 0, false) == -1,
	   "residency: L0p tx 0.5 over the interval, %.6f since the start; L1 not counted: -1",
	   residency(&boxes[0], H_L0P_TX, DT, true));
}

void test_figures(void)
{
	unsigned int i;

	ok(sizeof(wants) / sizeof(wants[0]) == (size_t)nr_plans,
	   "figures: a row of expected figures for each of the plan's %d rows", nr_plans);
	for (i = 0; i < sizeof(wants) / sizeof(wants[0]); i++)
		test_row(&wants[i]);
	test_health();
}
