/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What qpistat's files share: the boxes opened (one group of events on one
 * QPI port or R3QPI link of one socket), the plan, the link map, and each
 * file's entry points.  Each file calls only those after it here:
 * qpistat.c (main, the options) > exporter.c (--listen) > command.c
 * (a command, the signals) > exposition.c (Prometheus text, --textfile) >
 * output.c (table, JSON) > pmu.c (opening and reading the PMUs) >
 * figures.c (the formulas over the boxes); then check.c (--check),
 * server.c, http.c, plan.c and linkmap.c.
 */
#ifndef QPISTAT_H
#define QPISTAT_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "linkmap.h"
#include "plan.h"
#include "server.h"

#define MAX_SOCKETS	64
#define MAX_BOXES	4
#define MAX_EVENTS	PLAN_MAX_BW

enum { QPI, R3QPI };

/* One group of events on one box (port or link) of one socket. */
struct box {
	int kind, idx, socket, cpu;
	int type;			/* the PMU's perf type, as opened */
	int nr;
	int fd[MAX_EVENTS];
	uint64_t val[MAX_EVENTS];	/* cumulative */
	uint64_t prev[MAX_EVENTS];
	double speed;			/* GT/s, 0: unknown */
	/*
	 * qpi_uncore's foreign_writes event in the group (no counter taken),
	 * -1 where the module has none: the box's foreign writer episodes.
	 */
	int fw_fd;
	uint64_t fw;
	/*
	 * QPI: the health events, each a group of its own that takes turns
	 * on the counters the bandwidth group leaves (-1: not opened).
	 */
	int hfd[PLAN_NR_HEALTH];
	struct plan_health h[PLAN_NR_HEALTH], hprev[PLAN_NR_HEALTH];
};

/*
 * figures.c: the boxes opened, this CPU's row of the plan and the link
 * map, and the figures of a box by the plan's formulas.
 */
extern struct box boxes[2 * MAX_SOCKETS * MAX_BOXES];
extern int nr_boxes;
extern const struct plan *plan;
/* --link-map: the far end of each port, NULL without */
extern const struct linkmap *map;

static inline double ratio(double a, double b)
{
	return b > 0 ? a / b : 0;
}

/* Counts of the last interval (or the whole run with @cumulative). */
static inline uint64_t d(const struct box *b, int i, bool cumulative)
{
	return cumulative ? b->val[i] : b->val[i] - b->prev[i];
}

const struct box *peer_box(const struct box *b);
void own_figures(const struct box *b, double dt, bool cum,
		 struct plan_counts *c, struct plan_figures *f);
void port_figures(const struct box *b, double dt, bool cum,
		  struct plan_counts *c, struct plan_figures *f);
bool has_health(const struct box *b);
struct plan_health health(const struct box *b, int h, bool cum);
double residency(const struct box *b, int h, double dt, bool cum);
bool socket_rx(int s, double dt, bool cum, double *bw);

/*
 * pmu.c: the PMUs there are, their events opened, enabled, read and
 * closed; their going away.
 */
void die_no_pmus(void);
int open_pmu(int kind, int idx);
void read_speeds(void);
int try_read_all(void);
void read_all(void);
double now_s(void);
void count_boxes(int *nq, int *nr3);
const char *pmu_gone(void);
void enable_all(int on);
void close_all(void);

/* output.c: the table and JSON outputs, and stdout's errors */
void check_stdout(void);
int close_stdout(int status);

/*
 * The health families: one series per label value, each fed by one
 * event.  Their _counted_seconds companions say how long it counted.
 */
struct hfam {
	const char *key, *label, *val[2];
	int ev[2], n;
};

extern const struct hfam hfams[];

void print_table(double t, double dt, bool cum);
void print_json(double t, double dt, bool cum);

/*
 * exposition.c: the Prometheus text format and OpenMetrics, on stdout,
 * for a scrape, and as --textfile
 */
void exposition(struct sbuf *sb, double dt, bool openmetrics);
void print_prom(double dt);
void write_textfile(const char *file, double dt);
bool textfile_named_prom(const char *file);
int remove_stale_tmp(const char *file);

/* command.c: a command run under qpistat, and the signals that end a run */
extern volatile sig_atomic_t stop;
void catch_signals(void);
int run_command(char **argv);

/*
 * exporter.c: --listen, the HTTP exporter over server.c: its socket, the
 * privileges and capabilities it drops, the scrape
 */
void drop_capabilities(void);
void parse_user(const char *spec);
int listen_on(const char *spec, char *where, size_t wlen);
int listen_mode(int lfd, const char *where);

#endif
