/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What qpistat measures, per platform, as data: the events each box opens,
 * at which end of a link each direction is counted, and the formulas that
 * turn counts into figures.  Adding a platform adds a row to plans[] in
 * plan.c.  See Documentation/qpistat.rst, "Which events, on which
 * platform, and why".
 */
#ifndef QPISTAT_PLAN_H
#define QPISTAT_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#define PLAN_DATA_BYTES	8	/* per data flit in full-width (L0) mode */
#define PLAN_MAX_BW	4	/* a QPI box has 4 counters */
#define PLAN_R3_EVENTS	3

/* Where a port's flits are counted. */
enum plan_end { PLAN_RX, PLAN_TX };

/* The bandwidth group of a QPI port, in counter order. */
enum { BW_CLK, BW_DATA, BW_NONDATA, BW_TX_DATA };

/*
 * The link health events, each a series of its own, in the order they are
 * opened: perf gives turns in that order, so CRC errors in normal
 * operation, what the alert watches, come first.
 */
enum {
	H_CRC_NORMAL, H_CRC_INIT, H_STALL_FULL, H_STALL_ALMOST,
	H_L0P_TX, H_L0P_RX, H_L1, PLAN_NR_HEALTH,
};

struct plan_event {
	const char *name;	/* as Intel's table spells it, no UNC_Q_ */
	uint64_t config;	/* perf config: event | umask << 8 | ext << 21 */
};

struct plan {
	const char *name;	/* "HSX" */
	const char *table;	/* tools/events/events-<table>.csv */
	int model;		/* family 6 model, 0: the fallback row */
	enum plan_end end;
	/*
	 * Pinned, so that bandwidth stays exact: clockticks, data and
	 * non-data flits at @end and, on Rx plans, Tx data flits.
	 */
	int nr_bw;
	struct plan_event bw[PLAN_MAX_BW];
	/* flexible: they take turns on the counters the group leaves */
	struct plan_event health[PLAN_NR_HEALTH];
	struct plan_event r3[PLAN_R3_EVENTS];
	/*
	 * The row for a port whose far end is known (the link map), NULL:
	 * this one.  SNB-EP and IVB-EP then count each direction where it
	 * is sent, as HSX and BDX, which leaves a counter for health.
	 */
	const struct plan *with_peer;
	/*
	 * Flexible too, on rows that count where a flit is sent and whose
	 * table lists the Rx event: the data flits the port itself received,
	 * to compare one end of the link with the other (name NULL: none).
	 */
	struct plan_event rx_check;
};

extern const struct plan plans[];
extern const int nr_plans;

/* The row for family 6 model @model; the fallback row for any other. */
const struct plan *plan_for_model(int model);

/*
 * The row a port of platform row @p uses: @p->with_peer when the port's
 * far end is @peer_known and the platform has such a row, else @p.
 */
const struct plan *plan_for_port(const struct plan *p, bool peer_known);

/* The model /proc/cpuinfo (or @cpuinfo) names first, -1 if none. */
int plan_cpu_model(const char *cpuinfo);

/* Counts of one port's bandwidth group over an interval. */
struct plan_counts {
	uint64_t clk, data, nondata, tx_data;
};

/*
 * The figures of one port.  @end says which direction the flit figures
 * (flit rate, utilization, overhead) describe.  A direction whose bytes
 * this port cannot count has its *_known false.
 */
struct plan_figures {
	bool rx_known, tx_known;
	uint64_t rx_bytes, tx_bytes;
	double rx_bw, tx_bw;		/* bytes/s */
	double flit_rate;		/* flits/s at the measured end */
	double util;			/* flits per 2 flits a cycle, 0-1 */
	double overhead;		/* non-data share of flits, 0-1 */
};

void plan_figures(const struct plan *p, const struct plan_counts *c,
		  double dt, struct plan_figures *f);

/*
 * Where the plan counts at the sending end, what a port received is what
 * the port at the far end of its link sent: @f's receive from @peer's
 * figures (the link map gives the peer).  Nothing on a plan that counts
 * receive itself.
 */
void plan_rx_from_peer(const struct plan *p, const struct plan_figures *peer,
		       struct plan_figures *f);

/*
 * The bytes socket @s received over @dt: what the other sockets sent it.
 * @sent[i] is the bytes socket i sent on all its ports.  Known (true) only
 * with two sockets: with more, which socket a port's traffic went to needs
 * the link map (of the silicon, or --link-map).
 */
bool plan_socket_rx(const uint64_t *sent, int nr_sockets, int s,
		    uint64_t *bytes);

/* A health event's value over the time it was counted. */
struct plan_health {
	uint64_t value;		/* counted, never extrapolated */
	double counted_s, enabled_s;
};

/*
 * The share of clockticks in L0p or L1: @cycles counted over @counted_s
 * seconds, against @clk clockticks of the whole @dt; -1 when it was not
 * counted at all.  Residency is a level, not a rare event: a share of the
 * time it was counted estimates the whole interval.
 */
double plan_residency(uint64_t cycles, double counted_s, uint64_t clk,
		      double dt);

#endif
