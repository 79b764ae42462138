// SPDX-License-Identifier: GPL-2.0
/*
 * qpistat: QPI link bandwidth, utilization and R3QPI credit pressure for
 * every socket and link, from the uncore_qpi_* and uncore_r3qpi_* perf PMUs.
 *
 *   qpistat [-I ms] [-c count] [--json | --prometheus] [-- command ...]
 *   qpistat --listen [ADDR:]PORT
 *
 * Every direction of a link is measured where it is received: port P of
 * socket S counts the flits arriving there.  See Documentation/qpistat.rst
 * for the metrics and their formulas.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netdb.h>
#include <poll.h>
#include <pwd.h>
#include <linux/capability.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sysexits.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "server.h"

#ifndef PMU_DIR
#define PMU_DIR		"/sys/bus/event_source/devices"
#endif
#define MAX_SOCKETS	64
#define MAX_BOXES	4
#define MAX_EVENTS	4
#define DATA_BYTES	8	/* per data flit in full-width (L0) mode */
#define DEFAULT_PORT	"9739"
#define NOBODY		65534	/* --listen as root, without --user */

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
};

static struct box boxes[2 * MAX_SOCKETS * MAX_BOXES];
static int nr_boxes;
static volatile sig_atomic_t stop;

enum { FMT_TABLE, FMT_JSON, FMT_PROM };

/* QPI: clockticks, Rx data flits, Rx non-data flits, Tx data flits */
static const uint64_t qpi_cfg[] = { 0x14, 0x0201, 0x0401, 0x0200 };
/* R3QPI: clockticks, VNA and VN0 credit rejects of every message class */
static const uint64_t r3_cfg[] = { 0x01, 0x3f34, 0x3f37 };

static int read_str(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = 0;
	return 0;
}

static int cpu_socket(int cpu)
{
	char path[128], buf[32];

	snprintf(path, sizeof(path),
		 "/sys/devices/system/cpu/cpu%d/topology/physical_package_id",
		 cpu);
	return read_str(path, buf, sizeof(buf)) ? -1 : atoi(buf);
}

static void die_perm(const char *pmu)
{
	char buf[16] = "?";

	read_str("/proc/sys/kernel/perf_event_paranoid", buf, sizeof(buf));
	buf[strcspn(buf, "\n")] = 0;
	fprintf(stderr,
		"qpistat: permission denied opening %s events.\n"
		"  System-wide uncore events need root, CAP_PERFMON (or CAP_SYS_ADMIN),\n"
		"  or kernel.perf_event_paranoid <= 0 (it is %s):\n"
		"    sudo sysctl kernel.perf_event_paranoid=0\n", pmu, buf);
	/* Debian's (and Android's) level 3 wants CAP_SYS_ADMIN */
	if (atoi(buf) > 2)
		fprintf(stderr,
			"  Above 2 the kernel refuses CAP_PERFMON too: a service with only\n"
			"  CAP_PERFMON needs kernel.perf_event_paranoid <= 2.\n");
	exit(EX_NOPERM);
}

/*
 * The udev rule and qpi-uncore-takeover reserve the QPI functions for
 * qpi_uncore (driver_override), which intel_uncore then cannot bind: with
 * qpi_uncore not loaded, or missing for this kernel, nobody registers a QPI
 * PMU.  Says so when PCI functions are reserved and unbound; returns how
 * many are.
 */
static int explain_reserved(bool ours)
{
	const char *pci = "/sys/bus/pci/devices";
	char path[512], buf[32], first[256] = "";
	struct dirent *de;
	DIR *dir = opendir(pci);
	int n = 0;

	if (!dir)
		return 0;
	while ((de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/driver_override", pci, de->d_name);
		if (read_str(path, buf, sizeof(buf)) || strcmp(buf, "qpi_uncore\n"))
			continue;
		snprintf(path, sizeof(path), "%s/%s/driver", pci, de->d_name);
		if (!access(path, F_OK))
			continue;
		if (!n++ || strcmp(de->d_name, first) < 0)
			snprintf(first, sizeof(first), "%s", de->d_name);
	}
	closedir(dir);
	if (!n)
		return 0;
	fprintf(stderr,
		"  %d PCI functions (the first %s) are reserved for qpi_uncore\n"
		"  (driver_override) and bound to no driver; intel_uncore cannot take them.\n",
		n, first);
	if (ours)
		fprintf(stderr,
			"  qpi_uncore is loaded but did not bind them: see dmesg | grep qpi_uncore.\n");
	else
		fprintf(stderr,
			"  qpi_uncore is not loaded: modprobe qpi_uncore.  If it is missing for this\n"
			"  kernel (a DKMS build that failed after an upgrade: dkms status), install it,\n"
			"  or give the functions back to intel_uncore: qpi-uncore-takeover --release.\n");
	return n;
}

static void die_no_pmus(void)
{
	bool ours = !access("/sys/module/qpi_uncore", F_OK);
	bool intree = !access("/sys/module/intel_uncore", F_OK);

	fprintf(stderr, "qpistat: no uncore_qpi_* PMU in %s.\n", PMU_DIR);
	if (explain_reserved(ours))
		exit(EX_UNAVAILABLE);
	if (!ours && !intree)
		fprintf(stderr, "  Load the driver: modprobe qpi_uncore (or insmod qpi_uncore.ko).\n");
	else if (ours)
		fprintf(stderr, "  qpi_uncore is loaded but found no QPI functions: see dmesg | grep qpi_uncore.\n");
	else
		fprintf(stderr, "  intel_uncore is loaded and registered none: this CPU may have no QPI PMON functions.\n");
	fprintf(stderr, "  These PMUs exist on Xeon E5-2600 v1-v4 (and in the qpisim test machine).\n");
	exit(EX_UNAVAILABLE);
}

static long perf_open(struct perf_event_attr *attr, int cpu, int group)
{
#ifdef QPISTAT_FAKE_PMU
	/*
	 * The host tests' build (Makefile: qpistat_fake): the PMUs of a fake
	 * sysfs, counted by software events that count nothing.
	 */
	attr->type = PERF_TYPE_SOFTWARE;
	attr->config = PERF_COUNT_SW_DUMMY;
#endif
	/* a command run under qpistat must not get them, nor what it forks */
	return syscall(SYS_perf_event_open, attr, -1, cpu, group,
		       PERF_FLAG_FD_CLOEXEC);
}

/* Open one group on box @idx of @kind for every socket of its cpumask. */
static int open_pmu(int kind, int idx)
{
	const char *name = kind == QPI ? "qpi" : "r3qpi";
	const uint64_t *cfg = kind == QPI ? qpi_cfg : r3_cfg;
	int nr = kind == QPI ? 4 : 3;
	char path[256], buf[512], *p;
	int type, opened = 0;
	bool fw;

	snprintf(path, sizeof(path), PMU_DIR "/uncore_%s_%d/type", name, idx);
	if (read_str(path, buf, sizeof(buf)))
		return -1;
	type = atoi(buf);
	/* intel_uncore, or an older qpi_uncore, has no foreign_writes */
	snprintf(path, sizeof(path), PMU_DIR "/uncore_%s_%d/events/foreign_writes",
		 name, idx);
	fw = !access(path, F_OK);
	/* R3QPI credit events: only where the platform has them */
	if (kind == R3QPI) {
		snprintf(path, sizeof(path),
			 PMU_DIR "/uncore_r3qpi_%d/events/vna_credits_reject.drs", idx);
		if (access(path, F_OK))
			nr = 1;
	}
	snprintf(path, sizeof(path), PMU_DIR "/uncore_%s_%d/cpumask", name, idx);
	if (read_str(path, buf, sizeof(buf)))
		return -1;
	for (p = buf; *p && *p != '\n';) {
		int lo = strtol(p, &p, 10), hi = lo, cpu;

		if (*p == '-')
			hi = strtol(p + 1, &p, 10);
		if (*p == ',')
			p++;
		for (cpu = lo; cpu <= hi; cpu++) {
			struct box *b = &boxes[nr_boxes];
			int i;

			if (nr_boxes == (int)(sizeof(boxes) / sizeof(boxes[0])))
				break;
			memset(b, 0, sizeof(*b));
			b->kind = kind;
			b->idx = idx;
			b->cpu = cpu;
			b->socket = cpu_socket(cpu);
			b->type = type;
			b->nr = nr;
			for (i = 0; i < nr; i++) {
				struct perf_event_attr attr = {
					.size = sizeof(attr), .type = type,
					.config = cfg[i],
					.read_format = PERF_FORMAT_GROUP,
					.disabled = i == 0,
				};

				b->fd[i] = perf_open(&attr, cpu, i ? b->fd[0] : -1);
				if (b->fd[i] < 0) {
					if (errno == EACCES || errno == EPERM)
						die_perm(name);
					fprintf(stderr, "qpistat: uncore_%s_%d on CPU %d: %s\n",
						name, idx, cpu, strerror(errno));
					exit(1);
				}
			}
			b->fw_fd = -1;
			if (fw) {
				struct perf_event_attr attr = {
					.size = sizeof(attr), .type = type,
					.config = FOREIGN_WRITES_CONFIG,
					.read_format = PERF_FORMAT_GROUP,
				};

				/* last in the group, after b->nr counters */
				b->fw_fd = perf_open(&attr, cpu, b->fd[0]);
			}
			nr_boxes++;
			opened++;
		}
	}
	return opened;
}

static void read_speeds(void)
{
	int i;

	for (i = 0; i < nr_boxes; i++) {
		char path[256], buf[1024], *line;

		if (boxes[i].kind != QPI)
			continue;
		snprintf(path, sizeof(path), PMU_DIR "/uncore_qpi_%d/link_speed",
			 boxes[i].idx);
		if (read_str(path, buf, sizeof(buf)))
			continue;
		for (line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
			int s;
			char v[32];

			if (sscanf(line, "%d %31s", &s, v) == 2 &&
			    s == boxes[i].socket)
				boxes[i].speed = strtod(v, NULL);
		}
	}
}

/* One read of every group: 0, or -1 with errno set. */
static int try_read_all(void)
{
	int i, j;

	for (i = 0; i < nr_boxes; i++) {
		uint64_t buf[2 + MAX_EVENTS];

		if (read(boxes[i].fd[0], buf, sizeof(buf)) < 0)
			return -1;
		for (j = 0; j < boxes[i].nr && j < (int)buf[0]; j++) {
			boxes[i].prev[j] = boxes[i].val[j];
			boxes[i].val[j] = buf[1 + j];
		}
		if (boxes[i].fw_fd >= 0 && (int)buf[0] > boxes[i].nr)
			boxes[i].fw = buf[1 + boxes[i].nr];
	}
	return 0;
}

static void read_all(void)
{
	if (try_read_all()) {
		fprintf(stderr, "qpistat: read: %s\n", strerror(errno));
		exit(1);
	}
}

/*
 * A full disk or a closed pipe must not pass for success: the textfile
 * recipe "qpistat ... > f.tmp && mv f.tmp f" would install a cut file.
 */
static void check_stdout(void)
{
	int err;

	errno = 0;
	if (!fflush(stdout) && !ferror(stdout))
		return;
	err = errno;
	fprintf(stderr, "qpistat: writing to stdout: %s\n",
		err ? strerror(err) : "write error");
	exit(1);
}

/* the last output: what close() says counts too (NFS reports it there) */
static int close_stdout(int status)
{
	check_stdout();
	if (fclose(stdout)) {
		fprintf(stderr, "qpistat: writing to stdout: %s\n", strerror(errno));
		return 1;
	}
	return status;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double ratio(double a, double b)
{
	return b > 0 ? a / b : 0;
}

/* Counts of the last interval (or the whole run with @cumulative). */
static uint64_t d(const struct box *b, int i, bool cumulative)
{
	return cumulative ? b->val[i] : b->val[i] - b->prev[i];
}

struct qpi_metrics {
	uint64_t clk, rx_data, rx_nondata, tx_data;
	double rx_bw, tx_bw, rx_flit_rate, rx_util, rx_overhead;
};

static void qpi_metrics(const struct box *b, double dt, bool cum,
			struct qpi_metrics *m)
{
	m->clk = d(b, 0, cum);
	m->rx_data = d(b, 1, cum);
	m->rx_nondata = d(b, 2, cum);
	m->tx_data = d(b, 3, cum);
	m->rx_bw = ratio(m->rx_data * (double)DATA_BYTES, dt);
	m->tx_bw = ratio(m->tx_data * (double)DATA_BYTES, dt);
	m->rx_flit_rate = ratio(m->rx_data + m->rx_nondata, dt);
	m->rx_util = ratio(m->rx_data + m->rx_nondata, 2.0 * m->clk);
	m->rx_overhead = ratio(m->rx_nondata, m->rx_data + m->rx_nondata);
}

static void print_table(double t, double dt, bool cum)
{
	int i, s;

	printf("%9s %6s %4s %8s %12s %12s %14s %8s %8s\n", "time", "socket",
	       "port", "GT/s", "rx MB/s", "tx MB/s", "rx flits/s", "rx util",
	       "overhead");
	for (s = 0; s < MAX_SOCKETS; s++) {
		double rx = 0, tx = 0;
		bool any = false;

		for (i = 0; i < nr_boxes; i++) {
			struct qpi_metrics m;
			char speed[16] = "-";

			if (boxes[i].kind != QPI || boxes[i].socket != s)
				continue;
			qpi_metrics(&boxes[i], dt, cum, &m);
			if (boxes[i].speed > 0)
				snprintf(speed, sizeof(speed), "%.1f",
					 boxes[i].speed);
			printf("%9.3f %6d %4d %8s %12.3f %12.3f %14.0f %7.2f%% %7.2f%%\n",
			       t, s, boxes[i].idx, speed, m.rx_bw / 1e6,
			       m.tx_bw / 1e6, m.rx_flit_rate, 100 * m.rx_util,
			       100 * m.rx_overhead);
			rx += m.rx_bw;
			tx += m.tx_bw;
			any = true;
		}
		if (any)
			printf("%9.3f %6d %4s %8s %12.3f %12.3f\n", t, s, "all",
			       "", rx / 1e6, tx / 1e6);
		for (i = 0; i < nr_boxes; i++) {
			const struct box *b = &boxes[i];

			if (b->kind != R3QPI || b->socket != s || b->nr < 3)
				continue;
			printf("%9.3f %6d r3qpi%d credit rejects per cycle: VNA %.6f VN0 %.6f\n",
			       t, s, b->idx, ratio(d(b, 1, cum), d(b, 0, cum)),
			       ratio(d(b, 2, cum), d(b, 0, cum)));
		}
	}
	check_stdout();
}

static void print_json(double t, double dt, bool cum)
{
	int i, s, first_s = 1;

	printf("{\"time\": %.9f, \"interval_s\": %.9f, \"sockets\": [", t, dt);
	for (s = 0; s < MAX_SOCKETS; s++) {
		double rx = 0, tx = 0;
		int first = 1, any = 0;

		for (i = 0; i < nr_boxes; i++)
			any |= boxes[i].socket == s;
		if (!any)
			continue;
		printf("%s{\"socket\": %d, \"ports\": [", first_s ? "" : ", ", s);
		first_s = 0;
		for (i = 0; i < nr_boxes; i++) {
			struct qpi_metrics m;

			if (boxes[i].kind != QPI || boxes[i].socket != s)
				continue;
			qpi_metrics(&boxes[i], dt, cum, &m);
			printf("%s{\"port\": %d, \"link_speed_gts\": %.1f, "
			       "\"clockticks\": %" PRIu64 ", \"rx_data_flits\": %" PRIu64
			       ", \"rx_nondata_flits\": %" PRIu64 ", \"tx_data_flits\": %" PRIu64
			       ", \"rx_bytes\": %" PRIu64 ", \"tx_bytes\": %" PRIu64
			       ", \"rx_bandwidth_bytes_per_s\": %.3f, \"tx_bandwidth_bytes_per_s\": %.3f"
			       ", \"rx_flits_per_s\": %.3f, \"rx_utilization\": %.6f"
			       ", \"rx_protocol_overhead\": %.6f}",
			       first ? "" : ", ", boxes[i].idx, boxes[i].speed,
			       m.clk, m.rx_data, m.rx_nondata, m.tx_data,
			       m.rx_data * DATA_BYTES, m.tx_data * DATA_BYTES,
			       m.rx_bw, m.tx_bw, m.rx_flit_rate, m.rx_util,
			       m.rx_overhead);
			first = 0;
			rx += m.rx_bw;
			tx += m.tx_bw;
		}
		printf("], \"links\": [");
		first = 1;
		for (i = 0; i < nr_boxes; i++) {
			const struct box *b = &boxes[i];

			if (b->kind != R3QPI || b->socket != s)
				continue;
			printf("%s{\"link\": %d, \"clockticks\": %" PRIu64, first ? "" : ", ",
			       b->idx, d(b, 0, cum));
			if (b->nr == 3)
				printf(", \"vna_credit_rejects\": %" PRIu64
				       ", \"vn0_credit_rejects\": %" PRIu64
				       ", \"vna_rejects_per_cycle\": %.6f, \"vn0_rejects_per_cycle\": %.6f",
				       d(b, 1, cum), d(b, 2, cum),
				       ratio(d(b, 1, cum), d(b, 0, cum)),
				       ratio(d(b, 2, cum), d(b, 0, cum)));
			printf("}");
			first = 0;
		}
		printf("], \"rx_bandwidth_bytes_per_s\": %.3f, \"tx_bandwidth_bytes_per_s\": %.3f}",
		       rx, tx);
	}
	printf("]}\n");
	check_stdout();
}

enum {
	M_CLK, M_RX_BYTES, M_TX_BYTES, M_RX_FLITS, M_UTIL, M_OVERHEAD,
	M_SPEED, M_R3_CLK, M_VNA, M_VN0, M_FW,
};

/*
 * The metric families.  @name is what the samples carry; an OpenMetrics
 * counter family is named without its "_total".
 */
static const struct family {
	const char *name, *type, *unit, *help;
	int kind, what;
} families[] = {
	{ "qpi_clockticks_total", "counter", NULL,
	  "QPI link layer clock cycles of the port.", QPI, M_CLK },
	{ "qpi_rx_bytes_total", "counter", "bytes",
	  "Data bytes received on the QPI port (data flits x 8).", QPI, M_RX_BYTES },
	{ "qpi_tx_bytes_total", "counter", "bytes",
	  "Data bytes sent from the QPI port (data flits x 8).", QPI, M_TX_BYTES },
	{ "qpi_rx_flits_total", "counter", NULL,
	  "Data and non-data flits received on the QPI port.", QPI, M_RX_FLITS },
	{ "qpi_rx_utilization_ratio", "gauge", "ratio",
	  "Received flits per link capacity (2 flits a cycle), 0-1, since the previous read.", QPI, M_UTIL },
	{ "qpi_rx_protocol_overhead_ratio", "gauge", "ratio",
	  "Share of received flits that carry no data, 0-1, since the previous read.", QPI, M_OVERHEAD },
	{ "qpi_link_speed_transfers_per_second", "gauge", NULL,
	  "QPI link speed from QPI_RATE_STATUS, transfers per second (0: unknown).", QPI, M_SPEED },
	{ "qpi_foreign_writes_total", "counter", NULL,
	  "Times qpi_uncore found the port's counter controls reprogrammed by another tool (PCM, likwid -M 1, a BIOS SMI) while counting: its counts are then wrong.", QPI, M_FW },
	{ "r3qpi_clockticks_total", "counter", NULL,
	  "R3QPI clock cycles of the link.", R3QPI, M_R3_CLK },
	{ "r3qpi_vna_credit_rejects_total", "counter", NULL,
	  "R3QPI failed VNA credit acquisitions, all message classes.", R3QPI, M_VNA },
	{ "r3qpi_vn0_credit_rejects_total", "counter", NULL,
	  "R3QPI failed VN0 credit acquisitions, all message classes.", R3QPI, M_VN0 },
	{ "r3qpi_foreign_writes_total", "counter", NULL,
	  "Times qpi_uncore found the link's counter controls reprogrammed by another tool (PCM, likwid -M 1, a BIOS SMI) while counting: its counts are then wrong.", R3QPI, M_FW },
};

static bool family_has(const struct family *f, const struct box *b)
{
	if (f->kind != b->kind)
		return false;
	if (f->what == M_FW)
		return b->fw_fd >= 0;
	/* credit rejects only where the platform has the events */
	return f->kind == QPI || f->what == M_R3_CLK || b->nr == 3;
}

static void sample(struct sbuf *sb, const struct family *f,
		   const struct box *b, double dt)
{
	struct qpi_metrics q = { }, qd = { };
	uint64_t v = 0;

	sb_printf(sb, "%s{socket=\"%d\",%s=\"%d\"} ", f->name, b->socket,
		  b->kind == QPI ? "port" : "link", b->idx);
	if (b->kind == QPI) {
		qpi_metrics(b, dt, true, &q);
		qpi_metrics(b, dt, false, &qd);
	}
	switch (f->what) {
	case M_UTIL:
		sb_printf(sb, "%.6f\n", qd.rx_util);
		return;
	case M_OVERHEAD:
		sb_printf(sb, "%.6f\n", qd.rx_overhead);
		return;
	case M_CLK:
		v = q.clk;
		break;
	case M_RX_BYTES:
		v = q.rx_data * DATA_BYTES;
		break;
	case M_TX_BYTES:
		v = q.tx_data * DATA_BYTES;
		break;
	case M_RX_FLITS:
		v = q.rx_data + q.rx_nondata;
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
static void exposition(struct sbuf *sb, double dt, bool openmetrics)
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

static void print_prom(double dt)
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
 */
static void write_textfile(const char *file, double dt)
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

/*
 * Exporter mode: every scrape reads each group once and answers from that;
 * the gauges cover the time since the previous scrape by any scraper.
 */
static double last_read;

/*
 * The name of a PMU the events were opened on that is gone: unregistered
 * (its sysfs directory goes with it) or registered again under that name
 * by another driver (another type).  NULL while all are there.
 */
static const char *pmu_gone(void)
{
	static char name[64];
	int i;

	for (i = 0; i < nr_boxes; i++) {
		char path[256], buf[32];

		snprintf(name, sizeof(name), "uncore_%s_%d",
			 boxes[i].kind == QPI ? "qpi" : "r3qpi", boxes[i].idx);
		snprintf(path, sizeof(path), PMU_DIR "/%s/type", name);
		if (read_str(path, buf, sizeof(buf)) || atoi(buf) != boxes[i].type)
			return name;
	}
	return NULL;
}

/*
 * The events are never reopened: once their PMUs are gone (the functions
 * unbound or handed over), every scrape would fail or show frozen
 * counters.  Exit instead, for the service manager to restart qpistat on
 * the PMUs there are now, rather than answer 500 for ever.
 */
static int scrape(struct sbuf *sb, bool openmetrics)
{
	double t = now_s();
	const char *gone = pmu_gone();

	if (gone) {
		fprintf(stderr, "qpistat: %s is gone (unregistered or replaced); exiting\n", gone);
		exit(EX_UNAVAILABLE);
	}
	if (try_read_all()) {
		fprintf(stderr, "qpistat: reading the counters failed: %s; exiting\n",
			strerror(errno));
		exit(EX_UNAVAILABLE);
	}
	exposition(sb, t - last_read, openmetrics);
	last_read = t;
	return 0;
}

static void bad_listen(const char *spec)
{
	fprintf(stderr, "qpistat: --listen '%s': want [ADDR:]PORT, [IPV6]:PORT or ADDR, PORT 1-65535\n",
		spec);
	exit(2);
}

/*
 * PORT, :PORT, ADDR:PORT, [ADDR]:PORT, [ADDR] or ADDR.  The address
 * defaults to 127.0.0.1, the port to 9739.  An IPv6 address takes
 * brackets before a port: ::1 is an address, on port 9739.
 */
static int listen_on(const char *spec, char *where, size_t wlen)
{
	struct addrinfo hints = {
		.ai_flags = AI_PASSIVE | AI_NUMERICSERV,
		.ai_socktype = SOCK_STREAM,
	}, *res, *ai;
	char host[256] = "127.0.0.1";
	const char *h = NULL, *p = DEFAULT_PORT, *colon = strchr(spec, ':');
	int fd = -1, err, one = 1;
	size_t hlen = 0;

	if (spec[0] == '[') {
		const char *rb = strchr(spec, ']');

		if (!rb || rb == spec + 1 || (rb[1] && rb[1] != ':'))
			bad_listen(spec);
		h = spec + 1;
		hlen = rb - h;
		if (rb[1])
			p = rb + 2;
	} else if (strspn(spec, "0123456789") == strlen(spec)) {
		p = spec;
	} else if (colon && !strchr(colon + 1, ':')) {
		h = spec;
		hlen = colon - spec;
		p = colon + 1;
	} else {
		h = spec;
		hlen = strlen(spec);
	}
	if (!*p || strlen(p) > 5 || strspn(p, "0123456789") != strlen(p) ||
	    atoi(p) < 1 || atoi(p) > 65535)
		bad_listen(spec);
	if (hlen >= sizeof(host)) {
		fprintf(stderr, "qpistat: --listen '%s': address too long\n", spec);
		exit(2);
	}
	if (hlen) {
		memcpy(host, h, hlen);
		host[hlen] = 0;
	}
	snprintf(where, wlen, strchr(host, ':') ? "[%s]:%s" : "%s:%s", host, p);
	err = getaddrinfo(host, p, &hints, &res);
	if (err) {
		fprintf(stderr, "qpistat: cannot listen on %s: %s\n", where, gai_strerror(err));
		exit(1);
	}
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
			    ai->ai_protocol);
		if (fd < 0)
			continue;
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (!bind(fd, ai->ai_addr, ai->ai_addrlen) && !listen(fd, 128))
			break;
		err = errno;
		close(fd);
		fd = -1;
		errno = err;
	}
	freeaddrinfo(res);
	if (fd < 0) {
		fprintf(stderr, "qpistat: cannot listen on %s: %s\n", where, strerror(errno));
		exit(1);
	}
	return fd;
}

static void enable_all(int on)
{
	int i;

	for (i = 0; i < nr_boxes; i++)
		ioctl(boxes[i].fd[0], on ? PERF_EVENT_IOC_ENABLE :
		      PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
}

/*
 * Nothing after the events are open needs a capability: qpistat never
 * reopens them (a PMU that goes away ends it: see scrape()).
 * Drop them all before reading a byte from the network.
 */
static void drop_capabilities(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = { };

	if ((prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) &&
	     errno != EINVAL) || syscall(SYS_capset, &hdr, data)) {
		fprintf(stderr, "qpistat: cannot drop capabilities: %s\n",
			strerror(errno));
		exit(1);
	}
}

/* --user, or nobody when started as root */
static uid_t run_uid = NOBODY;
static gid_t run_gid = NOBODY;
static bool user_given;

/*
 * As root, serve as an unprivileged user: a uid-0 process without
 * capabilities still owns root's files.  The events are open by then (they
 * want the privilege); nothing from the network has been read yet.  No
 * new privileges either, whoever it runs as: no setuid program or file
 * capability can give any back.
 */
static void drop_privileges(void)
{
	uid_t r, e, s;

	if (getresuid(&r, &e, &s)) {
		fprintf(stderr, "qpistat: getresuid: %s\n", strerror(errno));
		exit(1);
	}
	if ((user_given || !r || !e || !s) &&
	    (setgroups(0, NULL) || setresgid(run_gid, run_gid, run_gid) ||
	     setresuid(run_uid, run_uid, run_uid))) {
		fprintf(stderr, "qpistat: cannot switch to uid %u, gid %u: %s\n",
			(unsigned int)run_uid, (unsigned int)run_gid, strerror(errno));
		exit(1);
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
		fprintf(stderr, "qpistat: PR_SET_NO_NEW_PRIVS: %s\n", strerror(errno));
		exit(1);
	}
	drop_capabilities();
}

/* USER[:GROUP], names or numbers; the group defaults to the user's */
static void parse_user(const char *spec)
{
	char name[256], *colon, *end;
	struct passwd *pw;
	struct group *gr;

	snprintf(name, sizeof(name), "%s", spec);
	colon = strchr(name, ':');
	if (colon)
		*colon++ = 0;
	pw = getpwnam(name);
	if (pw) {
		run_uid = pw->pw_uid;
		run_gid = pw->pw_gid;
	} else {
		errno = 0;
		run_uid = strtoul(name, &end, 10);
		if (!isdigit((unsigned char)name[0]) || *end || errno ||
		    run_uid == (uid_t)-1) {
			fprintf(stderr, "qpistat: --user '%s': no such user\n", spec);
			exit(2);
		}
		pw = getpwuid(run_uid);
		run_gid = pw ? pw->pw_gid : run_uid;
	}
	if (colon) {
		gr = getgrnam(colon);
		if (gr) {
			run_gid = gr->gr_gid;
		} else {
			errno = 0;
			run_gid = strtoul(colon, &end, 10);
			if (!isdigit((unsigned char)colon[0]) || *end || errno ||
			    run_gid == (gid_t)-1) {
				fprintf(stderr, "qpistat: --user '%s': no such group\n", spec);
				exit(2);
			}
		}
	}
	if (!run_uid || !run_gid) {
		fprintf(stderr, "qpistat: --user '%s': want a user and group other than root\n",
			spec);
		exit(2);
	}
	user_given = true;
}

static int listen_mode(int lfd, const char *where)
{
	int i, nq = 0, nr3 = 0;

	enable_all(1);
	last_read = now_s();
	drop_privileges();
	for (i = 0; i < nr_boxes; i++)
		boxes[i].kind == QPI ? nq++ : nr3++;
	fprintf(stderr, "qpistat: serving %d QPI ports and %d R3QPI links at http://%s/metrics\n",
		nq, nr3, where);
	serve(lfd, scrape);
	for (i = 0; i < nr_boxes; i++) {
		int j;

		for (j = 0; j < boxes[i].nr; j++)
			close(boxes[i].fd[j]);
		if (boxes[i].fw_fd >= 0)
			close(boxes[i].fw_fd);
	}
	return 0;
}

static volatile sig_atomic_t child;

static void on_signal(int sig)
{
	stop = 1;
	/* the command's run is what is measured: it ends, then the counts */
	if (sig == SIGTERM && child > 0)
		kill(child, SIGTERM);
}

/* the shell's convention: 128 + n for a command killed by signal n */
static int run_command(char **argv)
{
	sigset_t term, old;
	siginfo_t info;
	int status;
	pid_t pid;

	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	sigprocmask(SIG_BLOCK, &term, &old);
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "qpistat: fork: %s\n", strerror(errno));
		exit(1);
	}
	if (pid == 0) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		execvp(argv[0], argv);
		fprintf(stderr, "qpistat: %s: %s\n", argv[0], strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	child = pid;
	sigprocmask(SIG_SETMASK, &old, NULL);
	/* not reaped yet: a SIGTERM meanwhile cannot hit a recycled pid */
	while (waitid(P_PID, pid, &info, WEXITED | WNOWAIT) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, "qpistat: waitid: %s\n", strerror(errno));
			exit(1);
		}
	}
	child = 0;
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void usage(FILE *f, int status)
{
	fprintf(f,
		"usage: qpistat [-I ms] [-c count] [--json | --prometheus]\n"
		"       qpistat [--json | --prometheus] -- command ...\n"
		"       qpistat --listen [ADDR:]PORT [--user USER[:GROUP]]\n"
		"       qpistat --textfile FILE [-I ms] [-c count]\n"
		"       qpistat --check [--json] [--window ms]\n"
		"  -I, --interval ms   print every ms milliseconds (default 1000)\n"
		"  -c, --count n       stop after n intervals (default: until ^C)\n"
		"  --json              one JSON object per interval\n"
		"  --prometheus        Prometheus text format (cumulative counters, gauges)\n"
		"  -- command          count while command runs, print once; exit with its status\n"
		"  --listen [ADDR:]PORT  serve GET /metrics over HTTP (ADDR default 127.0.0.1,\n"
		"                      PORT 9739; [::1]:PORT or ::1 for IPv6)\n"
		"  --user USER[:GROUP] serve as USER (started as root: default 65534:65534)\n"
		"  --textfile FILE     every -I ms, rewrite FILE for node_exporter's textfile\n"
		"                      collector (counters since the start)\n"
		"  -h, --help          this help\n");
	exit(status);
}

/* a whole number from 1 to INT_MAX, or exit 2 naming the option */
static long positive(const char *opt, const char *arg, const char *what)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (!isdigit((unsigned char)arg[0]) || *end || errno || v < 1 || v > INT_MAX) {
		fprintf(stderr, "qpistat: %s '%s': want %s, a whole number from 1 to %d\n",
			opt, arg, what, INT_MAX);
		exit(2);
	}
	return v;
}

static void __attribute__((noreturn)) conflict(const char *msg)
{
	fprintf(stderr, "qpistat: %s\n", msg);
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "interval", required_argument, NULL, 'I' },
		{ "count", required_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "prometheus", no_argument, NULL, 'p' },
		{ "listen", required_argument, NULL, 'l' },
		{ "user", required_argument, NULL, 'u' },
		{ "textfile", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	long interval = 1000, count = -1;
	bool timed = false;
	const char *listen = NULL, *user = NULL, *textfile = NULL;
	char where[300];
	int lfd = -1;
	int fmt = FMT_TABLE, c, i, n = 0, status;
	double t0, t;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--check"))
			return check_main(argc, argv);
	while ((c = getopt_long(argc, argv, "+I:c:h", opts, NULL)) != -1) {
		switch (c) {
		case 'I':
			interval = positive("-I", optarg, "milliseconds");
			timed = true;
			break;
		case 'c':
			count = positive("-c", optarg, "a count");
			timed = true;
			break;
		case 'j':
		case 'p':
			if (fmt != FMT_TABLE && fmt != (c == 'j' ? FMT_JSON : FMT_PROM))
				conflict("--json and --prometheus: choose one");
			fmt = c == 'j' ? FMT_JSON : FMT_PROM;
			break;
		case 'l':
			listen = optarg;
			break;
		case 'u':
			user = optarg;
			break;
		case 't':
			textfile = optarg;
			break;
		case 'h':
			usage(stdout, 0);
			break;
		default:
			usage(stderr, 2);
		}
	}
	if (textfile) {
		if (listen)
			conflict("--textfile and --listen: choose one");
		if (optind < argc)
			conflict("--textfile: no command");
		if (fmt != FMT_TABLE)
			conflict("--textfile writes the Prometheus text format: no --json or --prometheus");
		if (!*textfile || textfile[strlen(textfile) - 1] == '/' ||
		    strlen(textfile) > PATH_MAX - 16)
			conflict("--textfile: want the path of a file");
	}
	if (listen) {
		if (optind < argc)
			conflict("--listen: no command");
		if (timed)
			conflict("--listen: -I and -c do not apply, every scrape reads the counters");
		/* the exporter answers each scrape in the format it asks for */
		if (fmt != FMT_TABLE)
			conflict("--listen: no --json or --prometheus, a scrape asks for its format");
		if (user)
			parse_user(user);
		lfd = listen_on(listen, where, sizeof(where));
	} else {
		if (user)
			conflict("--user: only with --listen");
		if (optind < argc && timed)
			conflict("with a command: -I and -c do not apply, it prints once when the command ends");
		/* closed, it could become a perf fd and hide the error */
		if (!textfile && fcntl(STDOUT_FILENO, F_GETFD) < 0) {
			fprintf(stderr, "qpistat: stdout: %s\n", strerror(errno));
			exit(1);
		}
	}
	for (i = 0; i < MAX_BOXES; i++)
		n += open_pmu(QPI, i) > 0;
	if (!n)
		die_no_pmus();
	for (i = 0; i < MAX_BOXES; i++)
		open_pmu(R3QPI, i);
	read_speeds();
	if (listen)
		return listen_mode(lfd, where);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);

	t0 = now_s();
	enable_all(1);
	if (textfile) {
		/* as --listen: the events are open, nothing more is needed */
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
			fprintf(stderr, "qpistat: PR_SET_NO_NEW_PRIVS: %s\n", strerror(errno));
			exit(1);
		}
		drop_capabilities();
		/* at once: node_exporter has a file, and a bad directory is found */
		read_all();
		write_textfile(textfile, 0);
	}
	if (optind < argc) {
		/* command mode: count while it runs */
		status = run_command(argv + optind);
		enable_all(0);
		read_all();
		t = now_s() - t0;
		if (fmt == FMT_JSON)
			print_json(t, t, true);
		else if (fmt == FMT_PROM)
			print_prom(t);
		else
			print_table(t, t, true);
		return close_stdout(status);
	}
	for (n = 0; !stop && (count < 0 || n < count); n++) {
		double before = now_s();
		struct timespec ts = { interval / 1000, interval % 1000 * 1000000 };

		nanosleep(&ts, NULL);
		read_all();
		t = now_s();
		if (textfile)
			write_textfile(textfile, t - before);
		else if (fmt == FMT_JSON)
			print_json(t - t0, t - before, false);
		else if (fmt == FMT_PROM)
			print_prom(t - before);
		else
			print_table(t - t0, t - before, false);
	}
	return textfile ? 0 : close_stdout(0);
}
