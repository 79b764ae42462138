// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of the measuring plan (plan.c), one KTAP line per case:
 *  - the event walk: every config qpistat can open, per platform, is a row
 *    of Intel's table for it (tools/events/events-<table>.csv), and the
 *    driver's sysfs aliases (drivers/qpi_uncore/qpi_uncore_events.h) have
 *    it too;
 *  - the formulas, with exact figures;
 *  - qpistat's figures over the boxes, for every row (test_figures.c);
 *  - the link map parser (test_linkmap.c).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"
#include "test.h"

#ifndef SRC_ROOT
#define SRC_ROOT "../.."
#endif

static int nr_tests, failed;

void ok(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d ", cond ? "" : "not ", ++nr_tests);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	failed |= !cond;
}

/* An event of one box: code with ev_sel_ext as bit 8, one umask. */
struct known {
	int qpi;
	unsigned int code, umask;
};

static struct known known[2048];
static int nr_known;

static void add(int qpi, unsigned int code, unsigned int umask)
{
	if (nr_known < (int)(sizeof(known) / sizeof(known[0])))
		known[nr_known++] = (struct known){ qpi, code, umask };
}

/* the rows of tools/events/events-@table.csv; false if unreadable */
static bool load_csv(const char *table)
{
	char path[256], line[512], box[16], name[128];
	unsigned int ev, umask, ext;
	FILE *f;

	nr_known = 0;
	snprintf(path, sizeof(path), SRC_ROOT "/tools/events/events-%s.csv", table);
	f = fopen(path, "r");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%15[^,],%127[^,],%x,%x,%u", box, name, &ev,
			   &umask, &ext) == 5)
			add(!strcmp(box, "qpi"), ev | ext << 8, umask);
	fclose(f);
	return nr_known > 0;
}

/* the driver's aliases of @table's PMUs; false if none */
static bool load_aliases(const char *table)
{
	char path[256], line[512], want[2][64], *p;
	int in = -1;
	FILE *f;

	nr_known = 0;
	snprintf(path, sizeof(path), SRC_ROOT "/drivers/qpi_uncore/qpi_uncore_events.h");
	f = fopen(path, "r");
	if (!f)
		return false;
	snprintf(want[0], sizeof(want[0]), "qpiu_events_%s_r3qpi[]", table);
	snprintf(want[1], sizeof(want[1]), "qpiu_events_%s_qpi[]", table);
	while (fgets(line, sizeof(line), f)) {
		unsigned int code, umask = 0;

		if (strstr(line, "qpiu_event_desc qpiu_events_"))
			in = strstr(line, want[0]) ? 0 : strstr(line, want[1]) ? 1 : -1;
		else if (line[0] == '}')
			in = -1;
		p = strstr(line, "\"event=");
		if (in < 0 || !p || sscanf(p, "\"event=%x", &code) != 1)
			continue;
		p = strstr(p, "umask=");
		if (p)
			sscanf(p, "umask=%x", &umask);
		add(in, code, umask);
	}
	fclose(f);
	return nr_known > 0;
}

/*
 * Does the loaded set have @cfg on a QPI (@qpi) or R3QPI box?  Umask 0
 * wants a row of umask 0; a umask of several bits wants a row for each.
 */
static bool has(int qpi, uint64_t cfg)
{
	unsigned int code = (cfg & 0xff) | ((cfg >> 21) & 1) << 8;
	unsigned int umask = (cfg >> 8) & 0xff, seen = 0;
	bool zero = false;
	int i;

	for (i = 0; i < nr_known; i++) {
		if (known[i].qpi != qpi || known[i].code != code)
			continue;
		zero |= !known[i].umask;
		if (known[i].umask && !(known[i].umask & ~umask))
			seen |= known[i].umask;
	}
	return umask ? seen == umask : zero;
}

/* every event of @p's row in the loaded set, each missing one named */
static int walk(const struct plan *p, const char *what)
{
	int i, missing = 0;

	for (i = 0; i < p->nr_bw; i++)
		if (!has(1, p->bw[i].config)) {
			printf("# %s %s: no %s (config %#llx)\n", p->name, what,
			       p->bw[i].name, (unsigned long long)p->bw[i].config);
			missing++;
		}
	for (i = 0; i < PLAN_NR_HEALTH; i++)
		if (!has(1, p->health[i].config)) {
			printf("# %s %s: no %s (config %#llx)\n", p->name, what,
			       p->health[i].name, (unsigned long long)p->health[i].config);
			missing++;
		}
	for (i = 0; i < PLAN_R3_EVENTS; i++)
		if (!has(0, p->r3[i].config)) {
			printf("# %s %s: no R3QPI %s (config %#llx)\n", p->name, what,
			       p->r3[i].name, (unsigned long long)p->r3[i].config);
			missing++;
		}
	return missing;
}

static void test_event_walk(void)
{
	int i;

	for (i = 0; i < nr_plans; i++) {
		const struct plan *p = &plans[i];

		if (!p->table)
			continue;
		ok(load_csv(p->table) && !walk(p, "table"),
		   "%s: every event qpistat opens is in events-%s.csv", p->name,
		   p->table);
		ok(load_aliases(p->table) && !walk(p, "aliases"),
		   "%s: every event qpistat opens is a qpi_uncore alias", p->name);
	}
}

/* The fallback row's events are in every platform's table. */
static void test_fallback(void)
{
	const struct plan *u = plan_for_model(0);
	int i, missing = 0;

	for (i = 0; i < nr_plans - 1; i++)
		missing += !load_csv(plans[i].table) || walk(u, plans[i].table);
	ok(!u->table && missing == 0 && u->end == PLAN_TX,
	   "unknown CPU: Tx events, in every platform's table");
}

static void test_rows(void)
{
	ok(!strcmp(plan_for_model(45)->name, "SNB-EP") &&
	   !strcmp(plan_for_model(62)->name, "IVB-EP") &&
	   !strcmp(plan_for_model(63)->name, "HSX") &&
	   !strcmp(plan_for_model(79)->name, "BDX") &&
	   !strcmp(plan_for_model(85)->name, "unknown") &&
	   !strcmp(plan_for_model(-1)->name, "unknown"),
	   "rows by CPU model");
	ok(plan_for_model(45)->end == PLAN_RX && plan_for_model(62)->end == PLAN_RX &&
	   plan_for_model(63)->end == PLAN_TX && plan_for_model(79)->end == PLAN_TX,
	   "SNB-EP, IVB-EP measured where received; HSX, BDX where sent");
	ok(plan_for_model(63)->bw[BW_DATA].config == 0x0200 &&
	   plan_for_model(63)->bw[BW_NONDATA].config == 0x0400 &&
	   plan_for_model(79)->bw[BW_DATA].config == 0x0200 &&
	   plan_for_model(79)->bw[BW_NONDATA].config == 0x0400 &&
	   plan_for_model(45)->bw[BW_DATA].config == 0x0201 &&
	   plan_for_model(45)->bw[BW_NONDATA].config == 0x0401 &&
	   plan_for_model(45)->bw[BW_TX_DATA].config == 0x0200,
	   "bandwidth configs: HSX/BDX 0x0200 0x0400, SNB-EP 0x0201 0x0401 0x0200");
	ok(plan_for_model(63)->health[H_CRC_NORMAL].config == 0x0203 &&
	   plan_for_model(63)->health[H_CRC_INIT].config == 0x0103 &&
	   plan_for_model(63)->health[H_STALL_FULL].config == 0x0102 &&
	   plan_for_model(63)->health[H_STALL_ALMOST].config == 0x0202 &&
	   plan_for_model(63)->health[H_L0P_TX].config == 0x0d &&
	   plan_for_model(63)->health[H_L0P_RX].config == 0x10 &&
	   plan_for_model(63)->health[H_L1].config == 0x12,
	   "health configs");
}

static void test_formulas(void)
{
	struct plan_counts c = { .clk = 4750, .data = 8000, .nondata = 1500,
				 .tx_data = 100 };
	struct plan_figures f;
	uint64_t sent[2] = { 64000, 800 }, b;

	/* 1000 DRS (9 flits) and 500 HOM (1 flit) in (9000 + 500) / 2 cycles */
	plan_figures(plan_for_model(62), &c, 2.0, &f);
	ok(f.rx_known && f.tx_known && f.rx_bytes == 64000 && f.tx_bytes == 800 &&
	   f.rx_bw == 32000 && f.tx_bw == 400 && f.flit_rate == 4750 &&
	   f.util == 1.0 && fabs(f.overhead - 1500.0 / 9500) < 1e-12,
	   "Rx plan: rx %llu B tx %llu B, %.0f B/s, util %.6f, overhead %.6f",
	   (unsigned long long)f.rx_bytes, (unsigned long long)f.tx_bytes,
	   f.rx_bw, f.util, f.overhead);
	plan_figures(plan_for_model(63), &c, 2.0, &f);
	ok(!f.rx_known && f.tx_known && f.rx_bytes == 0 && f.tx_bytes == 64000 &&
	   f.tx_bw == 32000 && f.rx_bw == 0 && f.util == 1.0 &&
	   fabs(f.overhead - 1500.0 / 9500) < 1e-12,
	   "Tx plan: tx %llu B, rx unknown, util %.6f",
	   (unsigned long long)f.tx_bytes, f.util);
	/* the far end sent 64000 B in 2 s: this port received them */
	{
		struct plan_figures peer = f, g;
		struct plan_counts z = { .clk = 4750 };

		plan_figures(plan_for_model(63), &z, 2.0, &g);
		plan_rx_from_peer(plan_for_model(63), &peer, &g);
		ok(g.rx_known && g.rx_bytes == 64000 && g.rx_bw == 32000 &&
		   g.tx_bytes == 0 && g.util == 0,
		   "Tx plan, the link map: receive is the far end's send, %llu B, %.0f B/s",
		   (unsigned long long)g.rx_bytes, g.rx_bw);
		plan_figures(plan_for_model(62), &c, 2.0, &g);
		peer.tx_bytes = 7;
		peer.tx_bw = 3.5;
		plan_rx_from_peer(plan_for_model(62), &peer, &g);
		ok(g.rx_bytes == 64000 && g.tx_bytes == 800 && g.rx_bw == 32000,
		   "Rx plan, the link map: receive stays what the port counted");
	}
	c.clk = 0;
	plan_figures(plan_for_model(63), &c, 0, &f);
	ok(f.tx_bw == 0 && f.util == 0 && f.flit_rate == 0,
	   "no clockticks, no time: figures 0, not NaN");
	ok(plan_socket_rx(sent, 2, 0, &b) && b == 800 &&
	   plan_socket_rx(sent, 2, 1, &b) && b == 64000,
	   "2 sockets: a socket receives what the other sent");
	ok(!plan_socket_rx(sent, 4, 0, &b) && !plan_socket_rx(sent, 1, 0, &b),
	   "1 or 4 sockets: receive unknown");
	ok(plan_residency(500, 0.5, 2000, 1.0) == 0.5 &&
	   plan_residency(1000, 1.0, 1000, 1.0) == 1.0 &&
	   plan_residency(7, 0, 1000, 1.0) == -1 &&
	   plan_residency(7, 1.0, 0, 1.0) == -1,
	   "residency: cycles per counted second over clockticks per second");
}

int main(void)
{
	printf("KTAP version 1\n");
	test_event_walk();
	test_fallback();
	test_rows();
	test_formulas();
	test_figures();
	test_linkmap();
	printf("1..%d\n", nr_tests);
	return failed;
}
