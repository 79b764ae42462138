// SPDX-License-Identifier: GPL-2.0
/*
 * qpistat's metric families in the Prometheus text exposition (0.0.4)
 * and OpenMetrics 1.0.0: their names, types, units and help, which boxes
 * have each, their samples; printed (--prometheus), answered to a scrape
 * (exporter.c), or written whole and renamed into place for
 * node_exporter's textfile collector (--textfile).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "qpistat.h"

enum {
	M_CLK, M_RX_BYTES, M_TX_BYTES, M_FLITS, M_UTIL, M_OVERHEAD,
	M_SPEED, M_R3_CLK, M_VNA, M_VN0, M_FW, M_HEALTH, M_COUNTED,
};

#define ANY_END	-1

/*
 * The metric families.  @name is what the samples carry; an OpenMetrics
 * counter family is named without its "_total".  @end: the plans it
 * belongs to.  Health families (@hf) have a sample per label value.
 */
static const struct family {
	const char *name, *type, *unit, *help;
	int kind, what, end;
	const struct hfam *hf;
} families[] = {
	{ "qpi_clockticks_total", "counter", NULL,
	  "QPI link layer clock cycles of the port.", QPI, M_CLK, ANY_END, NULL },
	{ "qpi_rx_bytes_total", "counter", "bytes",
	  "Data bytes received on the QPI port (data flits x 8).", QPI, M_RX_BYTES, PLAN_RX, NULL },
	{ "qpi_tx_bytes_total", "counter", "bytes",
	  "Data bytes sent from the QPI port (data flits x 8).", QPI, M_TX_BYTES, ANY_END, NULL },
	{ "qpi_rx_flits_total", "counter", NULL,
	  "Data and non-data flits received on the QPI port.", QPI, M_FLITS, PLAN_RX, NULL },
	{ "qpi_tx_flits_total", "counter", NULL,
	  "Data and non-data flits sent from the QPI port.", QPI, M_FLITS, PLAN_TX, NULL },
	{ "qpi_rx_utilization_ratio", "gauge", "ratio",
	  "Received flits per link capacity (2 flits a cycle), 0-1, since the previous read.", QPI, M_UTIL, PLAN_RX, NULL },
	{ "qpi_tx_utilization_ratio", "gauge", "ratio",
	  "Sent flits per link capacity (2 flits a cycle), 0-1, since the previous read.", QPI, M_UTIL, PLAN_TX, NULL },
	{ "qpi_rx_protocol_overhead_ratio", "gauge", "ratio",
	  "Share of received flits that carry no data, 0-1, since the previous read.", QPI, M_OVERHEAD, PLAN_RX, NULL },
	{ "qpi_tx_protocol_overhead_ratio", "gauge", "ratio",
	  "Share of sent flits that carry no data, 0-1, since the previous read.", QPI, M_OVERHEAD, PLAN_TX, NULL },
	{ "qpi_link_speed_transfers_per_second", "gauge", NULL,
	  "QPI link speed from QPI_RATE_STATUS, transfers per second (0: unknown).", QPI, M_SPEED, ANY_END, NULL },
	{ "qpi_foreign_writes_total", "counter", NULL,
	  "Times qpi_uncore found the port's counter controls reprogrammed by another tool (PCM, likwid -M 1, a BIOS SMI) while counting: its counts are then wrong.", QPI, M_FW, ANY_END, NULL },
	{ "qpi_crc_errors_total", "counter", NULL,
	  "CRC errors the port detected on received flits (RxL_CRC_ERRORS), counted while the event had a counter, never extrapolated.", QPI, M_HEALTH, ANY_END, &hfams[0] },
	{ "qpi_crc_errors_counted_seconds_total", "counter", "seconds",
	  "Seconds qpi_crc_errors_total counted (health events take turns on the counters).", QPI, M_COUNTED, ANY_END, &hfams[0] },
	{ "qpi_retry_stall_cycles_total", "counter", NULL,
	  "Cycles the port's link-level retry queue was full or almost full (TxL_CRC_NO_CREDITS), counted while the event had a counter.", QPI, M_HEALTH, ANY_END, &hfams[1] },
	{ "qpi_retry_stall_cycles_counted_seconds_total", "counter", "seconds",
	  "Seconds qpi_retry_stall_cycles_total counted (health events take turns on the counters).", QPI, M_COUNTED, ANY_END, &hfams[1] },
	{ "qpi_l0p_cycles_total", "counter", NULL,
	  "Cycles the port's transmit or receive side was in L0p, half width (Tx/RxL0P_POWER_CYCLES), counted while the event had a counter.", QPI, M_HEALTH, ANY_END, &hfams[2] },
	{ "qpi_l0p_cycles_counted_seconds_total", "counter", "seconds",
	  "Seconds qpi_l0p_cycles_total counted (health events take turns on the counters).", QPI, M_COUNTED, ANY_END, &hfams[2] },
	{ "qpi_l1_cycles_total", "counter", NULL,
	  "Cycles the port's link was in L1, powered down (L1_POWER_CYCLES), counted while the event had a counter.", QPI, M_HEALTH, ANY_END, &hfams[3] },
	{ "qpi_l1_cycles_counted_seconds_total", "counter", "seconds",
	  "Seconds qpi_l1_cycles_total counted (health events take turns on the counters).", QPI, M_COUNTED, ANY_END, &hfams[3] },
	{ "r3qpi_clockticks_total", "counter", NULL,
	  "R3QPI clock cycles of the link.", R3QPI, M_R3_CLK, ANY_END, NULL },
	{ "r3qpi_vna_credit_rejects_total", "counter", NULL,
	  "R3QPI failed VNA credit acquisitions, all message classes.", R3QPI, M_VNA, ANY_END, NULL },
	{ "r3qpi_vn0_credit_rejects_total", "counter", NULL,
	  "R3QPI failed VN0 credit acquisitions, all message classes.", R3QPI, M_VN0, ANY_END, NULL },
	{ "r3qpi_foreign_writes_total", "counter", NULL,
	  "Times qpi_uncore found the link's counter controls reprogrammed by another tool (PCM, likwid -M 1, a BIOS SMI) while counting: its counts are then wrong.", R3QPI, M_FW, ANY_END, NULL },
};

/*
 * A receive family where the plan counts at the sending end: its samples
 * come from the far end's sending, for the ports the link map gives.
 */
static bool rx_from_peer(const struct family *f)
{
	return f->end == PLAN_RX && plan->end == PLAN_TX;
}

static bool family_has(const struct family *f, const struct box *b)
{
	if (f->kind != b->kind)
		return false;
	if (rx_from_peer(f))
		return peer_box(b);
	if (f->end != ANY_END && f->end != (int)plan->end)
		return false;
	if (f->what == M_FW)
		return b->fw_fd >= 0;
	if (f->what == M_HEALTH || f->what == M_COUNTED)
		return has_health(b);
	if (f->what == M_TX_BYTES)
		return plan->end == PLAN_TX || b->nr > BW_TX_DATA;
	/* credit rejects only where the platform has the events */
	return f->kind == QPI || f->what == M_R3_CLK || b->nr == 3;
}

/* the samples of a health family, or of its _counted_seconds companion */
static void health_samples(struct sbuf *sb, const struct family *f,
			   const struct box *b)
{
	const struct hfam *hf = f->hf;
	int j;

	for (j = 0; j < hf->n; j++) {
		const struct plan_health *v = &b->h[hf->ev[j]];

		sb_printf(sb, "%s{socket=\"%d\",port=\"%d\"", f->name, b->socket, b->idx);
		if (hf->label)
			sb_printf(sb, ",%s=\"%s\"", hf->label, hf->val[j]);
		if (f->what == M_HEALTH)
			sb_printf(sb, "} %" PRIu64 "\n", v->value);
		else
			sb_printf(sb, "} %.9f\n", v->counted_s);
	}
}

static void sample(struct sbuf *sb, const struct family *f,
		   const struct box *b, double dt)
{
	struct plan_counts c, cd;
	struct plan_figures q = { }, qd = { };
	const struct box *src = b;
	uint64_t v = 0;

	if (f->what == M_HEALTH || f->what == M_COUNTED) {
		health_samples(sb, f, b);
		return;
	}
	sb_printf(sb, "%s{socket=\"%d\",%s=\"%d\"} ", f->name, b->socket,
		  b->kind == QPI ? "port" : "link", b->idx);
	/* what the far end sent is what this port received */
	if (b->kind == QPI && rx_from_peer(f))
		src = peer_box(b);
	if (b->kind == QPI) {
		port_figures(src, dt, true, &c, &q);
		port_figures(src, dt, false, &cd, &qd);
	}
	switch (f->what) {
	case M_UTIL:
		sb_printf(sb, "%.6f\n", qd.util);
		return;
	case M_OVERHEAD:
		sb_printf(sb, "%.6f\n", qd.overhead);
		return;
	case M_CLK:
		v = c.clk;
		break;
	case M_RX_BYTES:
		v = src == b ? q.rx_bytes : q.tx_bytes;
		break;
	case M_TX_BYTES:
		v = q.tx_bytes;
		break;
	case M_FLITS:
		v = c.data + c.nondata;
		break;
	case M_SPEED:
		/* GT/s have one decimal: print the exact integer */
		v = llround(b->speed * 10) * 100000000ULL;
		break;
	case M_R3_CLK:
		v = b->val[0];
		break;
	case M_VNA:
		v = b->val[1];
		break;
	case M_VN0:
		v = b->val[2];
		break;
	case M_FW:
		v = b->fw;
		break;
	}
	sb_printf(sb, "%" PRIu64 "\n", v);
}

/*
 * The Prometheus text exposition (format 0.0.4), or with @openmetrics
 * OpenMetrics 1.0.0: cumulative counters, and gauges over the last @dt
 * seconds.
 */
void exposition(struct sbuf *sb, double dt, bool openmetrics)
{
	unsigned int k;
	int i;

	for (k = 0; k < sizeof(families) / sizeof(families[0]); k++) {
		const struct family *f = &families[k];
		size_t len = strlen(f->name);
		bool any = false;

		for (i = 0; i < nr_boxes; i++)
			any |= family_has(f, &boxes[i]);
		if (!any)
			continue;
		if (openmetrics) {
			if (!strcmp(f->type, "counter"))
				len -= strlen("_total");
			sb_printf(sb, "# TYPE %.*s %s\n", (int)len, f->name, f->type);
			if (f->unit)
				sb_printf(sb, "# UNIT %.*s %s\n", (int)len, f->name, f->unit);
			sb_printf(sb, "# HELP %.*s %s\n", (int)len, f->name, f->help);
		} else {
			sb_printf(sb, "# HELP %s %s\n# TYPE %s %s\n", f->name,
				  f->help, f->name, f->type);
		}
		for (i = 0; i < nr_boxes; i++)
			if (family_has(f, &boxes[i]))
				sample(sb, f, &boxes[i], dt);
	}
	if (openmetrics)
		sb_printf(sb, "# EOF\n");
}

void print_prom(double dt)
{
	struct sbuf sb = { };

	exposition(&sb, dt, false);
	if (sb.oom) {
		fprintf(stderr, "qpistat: out of memory\n");
		exit(1);
	}
	fwrite(sb.p, 1, sb.len, stdout);
	check_stdout();
	free(sb.p);
}

static void write_all(int fd, const char *p, size_t len)
{
	ssize_t n;

	for (; len; p += n, len -= n) {
		n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			n = 0;
		else if (n <= 0)
			return;
	}
	errno = 0;
}

/*
 * --textfile: node_exporter's textfile collector may read FILE at any
 * moment, so the exposition is written whole to a temporary file in the
 * same directory, under a name the collector skips (it reads *.prom
 * only), and renamed over FILE.  The counters run since qpistat started.
 * The temporary file of DIR/BASE is DIR/.BASE.XXXXXX, the X being six
 * letters and digits (mkostemp).
 */
void write_textfile(const char *file, double dt)
{
	const char *base = strrchr(file, '/');
	char tmp[PATH_MAX];
	struct sbuf sb = { };
	int fd, err = 0;

	base = base ? base + 1 : file;
	snprintf(tmp, sizeof(tmp), "%.*s.%s.XXXXXX", (int)(base - file), file, base);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		/* the directory: "dir" of "dir/f", "/" of "/f", "." of "f" */
		fprintf(stderr, "qpistat: --textfile: cannot create a file in %.*s: %s\n",
			base == file ? 1 : base == file + 1 ? 1 : (int)(base - file - 1),
			base == file ? "." : file, strerror(errno));
		exit(1);
	}
	exposition(&sb, dt, false);
	if (sb.oom)
		err = ENOMEM;
	else if (fchmod(fd, 0644))
		err = errno;
	if (!err) {
		write_all(fd, sb.p, sb.len);
		err = errno;
	}
	/* a crash after the rename must not leave an empty file behind */
	if (!err && fsync(fd))
		err = errno;
	if (close(fd) && !err)
		err = errno;
	if (!err && rename(tmp, file))
		err = errno;
	free(sb.p);
	if (err) {
		unlink(tmp);
		fprintf(stderr, "qpistat: --textfile: writing %s: %s\n", file, strerror(err));
		exit(1);
	}
}

/* FILE's name ends in .prom, after at least one character */
bool textfile_named_prom(const char *file)
{
	const char *base = strrchr(file, '/');
	size_t len;

	base = base ? base + 1 : file;
	len = strlen(base);
	return len > 5 && !strcmp(base + len - 5, ".prom");
}

/* Is @name the name of a temporary file of @base (".BASE.XXXXXX")? */
static bool textfile_tmp(const char *name, const char *base)
{
	size_t blen = strlen(base), i;

	if (name[0] != '.' || strncmp(name + 1, base, blen) || name[1 + blen] != '.' ||
	    strlen(name) != blen + 8)
		return false;
	for (i = blen + 2; name[i]; i++)
		if (!isalnum((unsigned char)name[i]))
			return false;
	return true;
}

/*
 * A qpistat killed between mkostemp() and rename() leaves its temporary
 * file behind, one per restart: at the start, remove those of FILE that
 * are ours (regular files of our uid).  Returns how many.  Two qpistats
 * writing one FILE would remove each other's: one per FILE.
 */
int remove_stale_tmp(const char *file)
{
	const char *base = strrchr(file, '/');
	char dir[PATH_MAX];
	struct dirent *de;
	struct stat st;
	int n = 0, dfd;
	DIR *d;

	base = base ? base + 1 : file;
	snprintf(dir, sizeof(dir), "%.*s", base == file ? 1 : (int)(base - file),
		 base == file ? "." : file);
	d = opendir(dir);
	if (!d)
		return 0;
	dfd = dirfd(d);
	while ((de = readdir(d)))
		if (textfile_tmp(de->d_name, base) &&
		    !fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) &&
		    S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
		    !unlinkat(dfd, de->d_name, 0))
			n++;
	closedir(d);
	return n;
}
