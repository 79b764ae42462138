// SPDX-License-Identifier: GPL-2.0
/*
 * The measuring plan of every platform, and the formulas.  test_plan.c
 * walks every config here against tools/events/events-<table>.csv and
 * checks the formulas.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"

/* perf config of a QPI or R3QPI event: config:0-7,21 and umask config:8-15 */
#define EV(ev, umask, ext)	((ev) | (umask) << 8 | (uint64_t)(ext) << 21)

#define CLOCKTICKS	{ "CLOCKTICKS", EV(0x14, 0, 0) }
#define RX_DATA		{ "RxL_FLITS_G0.DATA", EV(0x01, 0x02, 0) }
#define RX_NON_DATA	{ "RxL_FLITS_G0.NON_DATA", EV(0x01, 0x04, 0) }
#define TX_DATA		{ "TxL_FLITS_G0.DATA", EV(0x00, 0x02, 0) }
#define TX_NON_DATA	{ "TxL_FLITS_G0.NON_DATA", EV(0x00, 0x04, 0) }
#define NO_CHECK	{ NULL, 0 }

/* The same events on every platform's table. */
#define HEALTH {							\
	[H_CRC_INIT] = { "RxL_CRC_ERRORS.LINK_INIT", EV(0x03, 0x01, 0) },	\
	[H_CRC_NORMAL] = { "RxL_CRC_ERRORS.NORMAL_OP", EV(0x03, 0x02, 0) },	\
	[H_STALL_FULL] = { "TxL_CRC_NO_CREDITS.FULL", EV(0x02, 0x01, 0) },	\
	[H_STALL_ALMOST] = { "TxL_CRC_NO_CREDITS.ALMOST_FULL", EV(0x02, 0x02, 0) }, \
	[H_L0P_TX] = { "TxL0P_POWER_CYCLES", EV(0x0d, 0, 0) },		\
	[H_L0P_RX] = { "RxL0P_POWER_CYCLES", EV(0x10, 0, 0) },		\
	[H_L1] = { "L1_POWER_CYCLES", EV(0x12, 0, 0) },			\
}

/* R3QPI: clockticks, VNA and VN0 credit rejects of every message class */
#define R3 {								\
	{ "CLOCKTICKS", EV(0x01, 0, 0) },				\
	{ "VNA_CREDITS_REJECT", EV(0x34, 0x3f, 0) },			\
	{ "VN0_CREDITS_REJECT", EV(0x37, 0x3f, 0) },			\
}

/*
 * SNB-EP and IVB-EP ports whose far end is known: each direction where it
 * is sent, as on HSX and BDX (what a port received is what its peer
 * sent).  Three pinned counters keep bandwidth exact both ways; the
 * fourth takes turns between the health events and the port's own Rx
 * data flits, which check one end of the link against the other.
 */
static const struct plan peer_plans[] = {
	{ "SNB-EP", "snbep", 45, PLAN_TX, 3,
	  { CLOCKTICKS, TX_DATA, TX_NON_DATA }, HEALTH, R3, NULL, RX_DATA },
	{ "IVB-EP", "ivbep", 62, PLAN_TX, 3,
	  { CLOCKTICKS, TX_DATA, TX_NON_DATA }, HEALTH, R3, NULL, RX_DATA },
};

/*
 * SNB-EP and IVB-EP: each direction where it is received, as Intel's
 * tables for them list, for ports whose far end is unknown; all four
 * counters.  HSX and BDX: their tables have no RxL_FLITS_G0.DATA or
 * .NON_DATA, PCM turned its incoming QPI metric off there as
 * over-counting, and perf's qpi_data_transmit_bw is built on
 * TxL_FLITS_G0.DATA: each direction where it is sent.
 */
const struct plan plans[] = {
	{ "SNB-EP", "snbep", 45, PLAN_RX, 4,
	  { CLOCKTICKS, RX_DATA, RX_NON_DATA, TX_DATA }, HEALTH, R3, &peer_plans[0], NO_CHECK },
	{ "IVB-EP", "ivbep", 62, PLAN_RX, 4,
	  { CLOCKTICKS, RX_DATA, RX_NON_DATA, TX_DATA }, HEALTH, R3, &peer_plans[1], NO_CHECK },
	{ "HSX", "hswep", 63, PLAN_TX, 3,
	  { CLOCKTICKS, TX_DATA, TX_NON_DATA }, HEALTH, R3, NULL, NO_CHECK },
	{ "BDX", "bdx", 79, PLAN_TX, 3,
	  { CLOCKTICKS, TX_DATA, TX_NON_DATA }, HEALTH, R3, NULL, NO_CHECK },
	/*
	 * A CPU qpistat does not know (a hypervisor hiding the model): the
	 * Tx events, which every platform's table has.
	 */
	{ "unknown", NULL, 0, PLAN_TX, 3,
	  { CLOCKTICKS, TX_DATA, TX_NON_DATA }, HEALTH, R3, NULL, NO_CHECK },
};

const int nr_plans = sizeof(plans) / sizeof(plans[0]);

const struct plan *plan_for_model(int model)
{
	int i;

	for (i = 0; i < nr_plans - 1; i++)
		if (plans[i].model == model)
			return &plans[i];
	return &plans[nr_plans - 1];
}

const struct plan *plan_for_port(const struct plan *p, bool peer_known)
{
	return peer_known && p->with_peer ? p->with_peer : p;
}

int plan_cpu_model(const char *cpuinfo)
{
	char line[512];
	int model = -1;
	FILE *f = fopen(cpuinfo, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "model\t", 6)) {
			model = atoi(strchr(line, ':') ? strchr(line, ':') + 1 : "");
			break;
		}
	fclose(f);
	return model;
}

static double ratio(double a, double b)
{
	return b > 0 ? a / b : 0;
}

void plan_figures(const struct plan *p, const struct plan_counts *c,
		  double dt, struct plan_figures *f)
{
	uint64_t flits = c->data + c->nondata;

	memset(f, 0, sizeof(*f));
	if (p->end == PLAN_RX) {
		f->rx_known = true;
		f->rx_bytes = c->data * PLAN_DATA_BYTES;
		f->tx_known = p->nr_bw > BW_TX_DATA;
		f->tx_bytes = f->tx_known ? c->tx_data * PLAN_DATA_BYTES : 0;
	} else {
		f->tx_known = true;
		f->tx_bytes = c->data * PLAN_DATA_BYTES;
	}
	f->rx_bw = ratio(f->rx_bytes, dt);
	f->tx_bw = ratio(f->tx_bytes, dt);
	f->flit_rate = ratio(flits, dt);
	/* a full-width link moves two flits a cycle in each direction */
	f->util = ratio(flits, 2.0 * c->clk);
	f->overhead = ratio(c->nondata, flits);
}

void plan_rx_from_peer(const struct plan *p, const struct plan_figures *peer,
		       struct plan_figures *f)
{
	if (p->end != PLAN_TX)
		return;
	f->rx_known = true;
	f->rx_bytes = peer->tx_bytes;
	f->rx_bw = peer->tx_bw;
}

bool plan_socket_rx(const uint64_t *sent, int nr_sockets, int s,
		    uint64_t *bytes)
{
	*bytes = 0;
	if (nr_sockets != 2 || s < 0 || s > 1)
		return false;
	*bytes = sent[!s];
	return true;
}

double plan_residency(uint64_t cycles, double counted_s, uint64_t clk,
		      double dt)
{
	if (counted_s <= 0 || dt <= 0 || !clk)
		return -1;
	return ratio(cycles / counted_s, clk / dt);
}
