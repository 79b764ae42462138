// SPDX-License-Identifier: GPL-2.0
/*
 * --check's symmetry check: what one end of a link sent against what the
 * other end received, per link with the link map or per socket pair,
 * where the plan counts both (SNB-EP, IVB-EP).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check_int.h"
#include "plan.h"

/* --link-map: the far end of each port, NULL without */
const struct linkmap *ck_map;

int check_symmetry(uint64_t sent, uint64_t received, uint64_t floor, double *gap)
{
	*gap = sent ? ((double)received - (double)sent) / sent : 0;
	if (sent < floor && received < floor)
		return CK_SKIP;
	if (!sent)
		return CK_WARN;
	return *gap > 0.05 || *gap < -0.05 ? CK_WARN : CK_PASS;
}

/* data flits a socket must send in the window for the comparison */
#define SYM_FLOOR	1000

/* ": +10.0% WARN" or ": below 1000, not compared", after a comparison */
static void app_gap(char *saw, int v, double gap)
{
	double pct = 100 * gap;

	if (v == CK_SKIP) {
		app(saw, ": below %d, not compared", SYM_FLOOR);
		return;
	}
	/* a gap that shows as 0.0 is no direction: not "-0.0%" */
	if (pct > -0.05 && pct < 0.05)
		pct = 0;
	app(saw, ": %+.1f%%%s", pct, v == CK_WARN ? " WARN" : "");
}

static const char believe_sender[] =
	"the two ends of the links disagree by over 5%%: believe the sending end (%s): Intel dropped the Rx flit events from the HSX/BDX tables, PCM found incoming QPI traffic over-counted there and TACC found an Rx flit event under-counting on E5 v3, while the Tx events were right";

static const struct check_port *find_port(const struct check_port *pt, int n,
					  const struct lm_end *e)
{
	int i;

	for (i = 0; i < n; i++)
		if (pt[i].socket == e->socket && pt[i].port == e->port)
			return &pt[i];
	return NULL;
}

int check_links(const struct check_port *pt, int n, const struct linkmap *m,
		uint64_t floor, const char *tx_ev, const char *rx_ev, int window_ms,
		char *saw, char *todo)
{
	int i, j, k, worst = CK_SKIP;
	bool misread = false, wrong_map = false;
	char wrong[CHECK_TEXT] = "";

	for (i = 0; i < m->nr; i++)
		for (j = 0; j < 2; j++) {
			const struct check_port *a = find_port(pt, n, &m->link[i].end[j]);
			const struct check_port *b = find_port(pt, n, &m->link[i].end[!j]);
			const struct check_port *other = NULL;
			double gap, ogap = 0;
			int v;

			if (!a || !b)
				continue;
			v = check_symmetry(a->tx, b->rx, floor, &gap);
			/* did another port of another socket receive it all? */
			for (k = 0; k < n && v == CK_WARN && !other; k++)
				if (&pt[k] != b && pt[k].socket != a->socket &&
				    check_symmetry(a->tx, pt[k].rx, floor, &ogap) == CK_PASS)
					other = &pt[k];
			worst = v == CK_SKIP ? worst : worst == CK_SKIP || v > worst ? v : worst;
			app(saw, "%ssocket %d port %d sent %" PRIu64 " data flits in %d ms (%s), its far end socket %d port %d received %" PRIu64 " (%s)",
			    saw[0] ? "; " : "", a->socket, a->port, a->tx, window_ms, tx_ev,
			    b->socket, b->port, b->rx, rx_ev);
			app_gap(saw, v, gap);
			if (other) {
				app(saw, ", socket %d port %d received %" PRIu64 " (%+.1f%%): the link map looks wrong",
				    other->socket, other->port, other->rx, 100 * ogap);
				app(wrong, "%ssocket %d port %d's traffic arrives at socket %d port %d, not at socket %d port %d (%s)",
				    wrong[0] ? "; " : "", a->socket, a->port, other->socket,
				    other->port, b->socket, b->port, m->link[i].where);
				wrong_map = true;
			} else {
				misread |= v == CK_WARN;
			}
		}
	if (worst == CK_SKIP)
		app(todo, "run it again under traffic on the links (at least %d data flits each way in the window)",
		    (int)floor);
	if (wrong_map)
		app(todo, "the link map looks wrong: %s; correct --link-map (the board's wiring)",
		    wrong);
	if (misread) {
		if (todo[0])
			app(todo, "; ");
		app(todo, believe_sender, tx_ev);
	}
	return worst;
}

/* The QPI ports sysfs shows: each uncore_qpi_N on each socket of its cpumask. */
int sysfs_ports(struct lm_end *ports, int max)
{
	char buf[512];
	int idx, k, n = 0, cpus[MAX_EVS], nr_cpus;

	for (idx = 0; idx < 4; idx++) {
		if (read_file(buf, sizeof(buf), "/sys/bus/event_source/devices/uncore_qpi_%d/cpumask",
			      idx))
			continue;
		nr_cpus = check_cpulist(buf, cpus, MAX_EVS);
		for (k = 0; k < nr_cpus && n < max; k++) {
			ports[n].socket = cpu_socket(cpus[k]);
			ports[n++].port = idx;
		}
	}
	return n;
}

/*
 * What one end of a link sent against what the other received, where the
 * plan has both events (SNB-EP, IVB-EP): per link with the link map,
 * otherwise per socket pair, so with two sockets only.
 */
void check_symmetry_live(struct result *r)
{
	int window_ms = ck.window_ms;
	const struct plan *p = plan_for_model(ck.plat ? ck.plat->model : -1);
	/* each box: its Rx data flits [0] and its Tx data flits [1] */
	const uint64_t cfg[2] = { p->bw[BW_DATA].config, p->bw[BW_TX_DATA].config };
	struct timespec ts = { window_ms / 1000, window_ms % 1000 * 1000000L };
	static struct hbox hb[MAX_SOCKETS * 4];
	static struct check_port pt[MAX_SOCKETS * 4];
	uint64_t tx[2] = { 0, 0 }, rx[2] = { 0, 0 };
	double rate[2][2] = { { 0, 0 }, { 0, 0 } };	/* [rx, tx][socket] */
	int i, j, n = 0, s, worst = CK_SKIP;

	if (p->end != PLAN_RX || p->nr_bw <= BW_TX_DATA) {
		r->status = CK_SKIP;
		app(r->saw, "%s: only the sending end is counted (see qpistat.rst)", p->name);
		return;
	}
	if ((!ck_map && ck.nr_sockets != 2) || !ck.nr_pmus) {
		r->status = CK_SKIP;
		app(r->saw, ck.nr_pmus ?
		    "%d sockets: without the link map only two can be compared" :
		    "no uncore_qpi_* PMU (see module)", ck.nr_sockets);
		return;
	}
	for (i = 0; i < 4; i++)
		n += open_events(cfg, 2, i, hb + n, (int)(sizeof(hb) / sizeof(hb[0])) - n);
	if (!n || !start_events(hb, n, 2)) {
		r->status = CK_SKIP;
		app(r->saw, !n ? "no uncore_qpi_* PMU to count on" :
		    "cannot open the data flit events: %s", strerror(errno));
		return;
	}
	nanosleep(&ts, NULL);
	for (i = 0; i < n; i++) {
		double prate[2] = { 0, 0 };

		read_health(&hb[i], 1);
		for (j = 0; j < HC_N; j++)
			if (hb[i].fd[j] >= 0)
				close(hb[i].fd[j]);
		/*
		 * Per second each event counted: the boxes are read one after
		 * another, so their windows differ by the reads between them.
		 */
		for (j = 0; j < 2; j++) {
			uint64_t dt = hb[i].t[j][1] - hb[i].t[j][0];

			if (dt)
				prate[j] = (hb[i].v[j][1] - hb[i].v[j][0]) * 1e9 / dt;
		}
		pt[i].socket = s = hb[i].socket;
		pt[i].port = hb[i].idx;
		pt[i].rx = (uint64_t)(prate[0] * window_ms / 1000 + 0.5);
		pt[i].tx = (uint64_t)(prate[1] * window_ms / 1000 + 0.5);
		if (s < 0 || s > 1)
			continue;
		for (j = 0; j < 2; j++)
			rate[j][s] += prate[j];
	}
	if (ck_map) {
		r->status = check_links(pt, n, ck_map, SYM_FLOOR, p->bw[BW_TX_DATA].name,
					p->bw[BW_DATA].name, window_ms, r->saw, r->todo);
		return;
	}
	for (s = 0; s < 2; s++) {
		rx[s] = (uint64_t)(rate[0][s] * window_ms / 1000 + 0.5);
		tx[s] = (uint64_t)(rate[1][s] * window_ms / 1000 + 0.5);
	}
	for (s = 0; s < 2; s++) {
		double gap;
		int v = check_symmetry(tx[s], rx[!s], SYM_FLOOR, &gap);

		worst = v == CK_SKIP ? worst : worst == CK_SKIP || v > worst ? v : worst;
		app(r->saw, "%ssocket %d sent %" PRIu64 " data flits in %d ms (%s on its ports), socket %d received %" PRIu64 " (%s on its ports)",
		    s ? "; " : "", s, tx[s], window_ms, p->bw[BW_TX_DATA].name, !s, rx[!s],
		    p->bw[BW_DATA].name);
		app_gap(r->saw, v, gap);
	}
	r->status = worst;
	if (worst == CK_SKIP)
		app(r->todo, "run it again under traffic between the sockets (at least %d data flits each way in the window)", SYM_FLOOR);
	if (worst == CK_WARN)
		app(r->todo, believe_sender, p->bw[BW_TX_DATA].name);
}
