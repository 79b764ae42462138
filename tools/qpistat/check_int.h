/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of qpistat --check share, below check.h.  A family of
 * checks is a file: check_cpu.c, check_pci.c, check_module.c (binding,
 * module), check_link.c, check_counting.c (counting, foreign),
 * check_health.c, check_symmetry.c; a new check is a file and a row in
 * check.c's checks[].  Calls go one way: check.c (the table, the options)
 * to check_output.c and the checks; check_counting.c to check_link.c
 * (and check_pci.c's kind_name), check_symmetry.c to check_health.c; all
 * to check_base.c (the shared state, reading sysfs, procfs and config
 * space).
 */
#ifndef QPISTAT_CHECK_INT_H
#define QPISTAT_CHECK_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "check.h"
#include "linkmap.h"

#define MAX_FNS		256
#define MAX_BUSES	16
#define MAX_PORTS	3
#define MAX_SOCKETS	64
#define MAX_EVS		(2 * MAX_SOCKETS * 4)
#define TEXT		CHECK_TEXT
#define CHECK_MAX	16	/* the checks a run can have */

enum { K_UBOX, K_QPI, K_MM, K_R3 };

/* The uncore PCI functions of each platform (Documentation: registers.md). */
struct plat {
	const char *name, *desc;
	int model;
	uint16_t ubox, qpi[MAX_PORTS], mm[MAX_PORTS], r3[MAX_PORTS];
};

struct fn {
	char bdf[16];
	unsigned int bus, slot, func;
	uint16_t device;
	int kind, idx, socket;
	char driver[64], override[64];
};

struct result {
	const char *name;
	int status;
	char saw[TEXT], todo[TEXT];
};

/* What the checks found so far, for those after them: one run's. */
struct check_state {
	const struct plat *plat;
	int nr_sockets;
	bool hypervisor, root;
	/* the cpu verdict: this CPU has no QPI PMON, nothing to load */
	bool no_qpi;
	struct fn fns[MAX_FNS];
	int nr_fns;
	unsigned int buses[MAX_BUSES];
	int bus_socket[MAX_BUSES];
	int nr_buses;
	double gts[MAX_SOCKETS][MAX_PORTS];	/* 0 unknown, -1 down */
	bool module, intel;
	int nr_pmus;
	/* the driver's own count of foreign writers (foreign_writes files) */
	long episodes;
	char episode_pmus[TEXT];
	struct result res[CHECK_MAX];
	int nr_res;
	int window_ms;		/* --window */
};

extern struct check_state ck;

/*
 * check_base.c: appending to a result's texts; a new result; a file, a
 * path's existence and a dword of config space under check_root; the
 * socket of a CPU.
 */
void app(char *buf, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
struct result *result(const char *name);
int read_file(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
bool exists(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
bool cfg_read(const char *bdf, unsigned int where, uint32_t *val);
int cpu_socket(int cpu);

/* check_output.c */
int check_print(FILE *out, bool json);

/* check_cpu.c */
void check_cpu(struct result *r);

/* check_pci.c */
extern const char *const kind_name[];
void check_pci(struct result *r);

/* check_module.c */
void check_binding(struct result *r);
void check_module(struct result *r);

/* check_link.c */
void check_link(struct result *r);

/* check_counting.c */
void check_counting(struct result *r);
void check_foreign(struct result *r);

/*
 * check_health.c.  The events of the health check, each on its own:
 * perf gives them turns.  The symmetry check opens its own so too.
 */
enum { HC_CLK, HC_DATA, HC_CRC, HC_L0P_TX, HC_L0P_RX, HC_L1, HC_N };

struct hbox {
	int socket, idx;
	int fd[HC_N];
	uint64_t v[HC_N][2], t[HC_N][2];	/* count, time running */
};

int open_events(const uint64_t *cfg, int nr, int idx, struct hbox *hb, int max);
bool start_events(struct hbox *hb, int n, int nr);
void read_health(struct hbox *b, int when);
void check_health_live(struct result *r);

/* check_symmetry.c */
/* --link-map: the far end of each port, NULL without */
extern const struct linkmap *ck_map;
int sysfs_ports(struct lm_end *ports, int max);
void check_symmetry_live(struct result *r);

#endif
