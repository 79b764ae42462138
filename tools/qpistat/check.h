/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qpistat --check: does QPI monitoring work on this machine, and if not,
 * why.  See Documentation/qpistat.rst, "qpistat --check".
 */
#ifndef QPISTAT_CHECK_H
#define QPISTAT_CHECK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "linkmap.h"

enum { CK_PASS, CK_WARN, CK_FAIL, CK_SKIP };

/* the size of a check's "saw" and "do" texts */
#define CHECK_TEXT	2048

/*
 * qpi_uncore's foreign_writes event (driver_event=1, config:56-63), which
 * both the check and qpistat's groups open beside their counters.
 */
#define FOREIGN_WRITES_CONFIG	(1ULL << 56)

/*
 * Prefix of every /sys and /proc path (default ""): the host tests point
 * it at a fake tree.
 */
extern const char *check_root;

/*
 * The text of the file @path (no check_root before it), at most @len - 1
 * bytes and a NUL, in @buf: 0, or -1 when it cannot be read.
 */
int check_read_str(const char *path, char *buf, size_t len);

/* qpistat --check [--json] [--window ms]: the exit status. */
int check_main(int argc, char **argv);

/*
 * The cpu check alone, for qpistat's own messages: false when the CPU
 * has no QPI PMON (an AMD, a UPI Xeon, another model), its "saw => do"
 * then in @why.  True when it has one or /proc/cpuinfo is unreadable.
 */
bool check_cpu_qpi(char *why, size_t len);

/* All checks, written to @out: 0 every check passed or warned, 1 a fail. */
int check_run(FILE *out, bool json, int window_ms);

/*
 * The pure verdicts, for the host tests.
 *
 * check_rate(): QPI clockticks counted at @hz on a link at @gts GT/s
 * (0: unknown), the link @down or not.
 */
int check_rate(double hz, double gts, bool down);

/* The link layer clock a QPI speed implies: GT/s / 8, in Hz. */
double check_link_hz(double gts);

/* The speed of QPI_RATE_STATUS code @code, 0 for codes with none. */
double check_rate_gts(unsigned int code);

/*
 * check_ctls(): @n control registers read back from a box on which an
 * event of control value @want counts: CTLS_OK when one holds it,
 * CTLS_PAUSED when one holds it with the enable bit clear (perf has the
 * event off its counter for a moment: a rotation, or the driver's mark of
 * a foreign write being shown), CTLS_ZERO when all read 0 (the writes were
 * ignored), CTLS_FOREIGN otherwise (*@seen: the first enabled one that
 * differs).
 */
enum { CTLS_OK, CTLS_ZERO, CTLS_FOREIGN, CTLS_PAUSED };
int check_ctls(const uint32_t *ctl, int n, uint32_t want, uint32_t *seen);

/*
 * check_health(): a port's health over a window: @crc_normal CRC errors
 * in normal operation (counted, never scaled: any is real), @share the
 * shares of cycles in L0p tx, L0p rx and L1 (-1: not counted), @traffic
 * whether data flowed.  CK_WARN for any CRC error, or a share over half
 * while data flows; CK_PASS otherwise.
 */
int check_health(uint64_t crc_normal, const double *share, int n, bool traffic);

/*
 * check_symmetry(): one end of a link (or socket pair) @sent data flits,
 * the other @received, in the same window; *@gap = (received - sent) /
 * sent.  CK_SKIP when both are below @floor, CK_WARN for a gap over 5 %
 * either way (or nothing sent but something received), CK_PASS otherwise.
 */
int check_symmetry(uint64_t sent, uint64_t received, uint64_t floor, double *gap);

/* One QPI port's data flits over a window, for check_links(). */
struct check_port {
	int socket, port;
	uint64_t tx, rx;	/* TxL_FLITS_G0.DATA, RxL_FLITS_G0.DATA */
};

/*
 * check_links(): the symmetry verdict per link of the link map @m, both
 * directions: what one end sent (@tx_ev) against what the far end
 * received (@rx_ev), by check_symmetry() with @floor.  A direction that
 * disagrees while another port received what was sent (within 5 %) says
 * the map looks wrong.  Appends to @saw and @todo (CHECK_TEXT bytes
 * each); returns the worst verdict, CK_SKIP when nothing was compared.
 */
int check_links(const struct check_port *pt, int n, const struct linkmap *m,
		uint64_t floor, const char *tx_ev, const char *rx_ev, int window_ms,
		char *saw, char *todo);

/*
 * A PMU's cpumask file ("0-1,4\n"): its CPUs in @cpus, at most @max of
 * them; stops at anything but a list.  Returns how many.
 */
int check_cpulist(const char *list, int *cpus, int max);

#endif
