// SPDX-License-Identifier: GPL-2.0
/*
 * qpistat: QPI link bandwidth, utilization and R3QPI credit pressure for
 * every socket and link, from the uncore_qpi_* and uncore_r3qpi_* perf PMUs.
 *
 *   qpistat [-I ms] [-c count] [--json | --prometheus] [-- command ...]
 *
 * Every direction of a link is measured where it is received: port P of
 * socket S counts the flits arriving there.  See Documentation/qpistat.rst
 * for the metrics and their formulas.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PMU_DIR		"/sys/bus/event_source/devices"
#define MAX_SOCKETS	64
#define MAX_BOXES	4
#define MAX_EVENTS	4
#define DATA_BYTES	8	/* per data flit in full-width (L0) mode */

enum { QPI, R3QPI };

/* One group of events on one box (port or link) of one socket. */
struct box {
	int kind, idx, socket, cpu;
	int nr;
	int fd[MAX_EVENTS];
	uint64_t val[MAX_EVENTS];	/* cumulative */
	uint64_t prev[MAX_EVENTS];
	double speed;			/* GT/s, 0: unknown */
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
	exit(1);
}

static void die_no_pmus(void)
{
	bool ours = !access("/sys/module/qpi_uncore", F_OK);
	bool intree = !access("/sys/module/intel_uncore", F_OK);

	fprintf(stderr, "qpistat: no uncore_qpi_* PMU in %s.\n", PMU_DIR);
	if (!ours && !intree)
		fprintf(stderr, "  Load the driver: modprobe qpi_uncore (or insmod qpi_uncore.ko).\n");
	else if (ours)
		fprintf(stderr, "  qpi_uncore is loaded but found no QPI functions: see dmesg | grep qpi_uncore.\n");
	else
		fprintf(stderr, "  intel_uncore is loaded and registered none: this CPU may have no QPI PMON functions.\n");
	fprintf(stderr, "  These PMUs exist on Xeon E5-2600 v1-v4 (and in the qpisim test machine).\n");
	exit(1);
}

static long perf_open(struct perf_event_attr *attr, int cpu, int group)
{
	return syscall(SYS_perf_event_open, attr, -1, cpu, group, 0);
}

/* Open one group on box @idx of @kind for every socket of its cpumask. */
static int open_pmu(int kind, int idx)
{
	const char *name = kind == QPI ? "qpi" : "r3qpi";
	const uint64_t *cfg = kind == QPI ? qpi_cfg : r3_cfg;
	int nr = kind == QPI ? 4 : 3;
	char path[256], buf[512], *p;
	int type, opened = 0;

	snprintf(path, sizeof(path), PMU_DIR "/uncore_%s_%d/type", name, idx);
	if (read_str(path, buf, sizeof(buf)))
		return -1;
	type = atoi(buf);
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

static void read_all(void)
{
	int i, j;

	for (i = 0; i < nr_boxes; i++) {
		uint64_t buf[1 + MAX_EVENTS];

		if (read(boxes[i].fd[0], buf, sizeof(buf)) < 0) {
			fprintf(stderr, "qpistat: read: %s\n", strerror(errno));
			exit(1);
		}
		for (j = 0; j < boxes[i].nr && j < (int)buf[0]; j++) {
			boxes[i].prev[j] = boxes[i].val[j];
			boxes[i].val[j] = buf[1 + j];
		}
	}
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
	fflush(stdout);
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
	fflush(stdout);
}

/* OpenMetrics text: cumulative counters, and gauges over the interval. */
static void print_prom(double dt)
{
	static const struct {
		const char *name, *type, *help;
	} m[] = {
		{ "qpi_clockticks", "counter", "QPI link layer clock cycles." },
		{ "qpi_rx_bytes", "counter", "Data bytes received over the QPI port (data flits x 8)." },
		{ "qpi_tx_bytes", "counter", "Data bytes sent over the QPI port (data flits x 8)." },
		{ "qpi_rx_flits", "counter", "Data and non-data flits received over the QPI port." },
		{ "qpi_rx_utilization", "gauge", "Received flits per link capacity (2 per cycle) over the last interval." },
		{ "qpi_rx_protocol_overhead", "gauge", "Share of received flits that carry no data, over the last interval." },
		{ "qpi_link_speed_gts", "gauge", "QPI link speed in GT/s." },
		{ "r3qpi_vna_credit_rejects", "counter", "R3QPI failed VNA credit acquisitions, all message classes." },
		{ "r3qpi_vn0_credit_rejects", "counter", "R3QPI failed VN0 credit acquisitions, all message classes." },
	};
	unsigned int k;
	int i;

	for (k = 0; k < sizeof(m) / sizeof(m[0]); k++) {
		bool r3 = !strncmp(m[k].name, "r3qpi", 5);

		printf("# TYPE %s %s\n# HELP %s %s\n", m[k].name, m[k].type,
		       m[k].name, m[k].help);
		for (i = 0; i < nr_boxes; i++) {
			const struct box *b = &boxes[i];
			struct qpi_metrics q, qd;
			char labels[64];
			double v;

			if (r3 != (b->kind == R3QPI) || (r3 && b->nr < 3))
				continue;
			snprintf(labels, sizeof(labels),
				 "{socket=\"%d\",%s=\"%d\"}", b->socket,
				 r3 ? "link" : "port", b->idx);
			if (r3) {
				printf("%s_total%s %" PRIu64 "\n", m[k].name, labels,
				       b->val[strstr(m[k].name, "vna") ? 1 : 2]);
				continue;
			}
			qpi_metrics(b, dt, true, &q);
			qpi_metrics(b, dt, false, &qd);
			switch (k) {
			case 0: v = q.clk; break;
			case 1: v = (double)q.rx_data * DATA_BYTES; break;
			case 2: v = (double)q.tx_data * DATA_BYTES; break;
			case 3: v = q.rx_data + q.rx_nondata; break;
			case 4: v = qd.rx_util; break;
			case 5: v = qd.rx_overhead; break;
			default: v = b->speed; break;
			}
			if (!strcmp(m[k].type, "counter"))
				printf("%s_total%s %.0f\n", m[k].name, labels, v);
			else
				printf("%s%s %.6f\n", m[k].name, labels, v);
		}
	}
	printf("# EOF\n");
	fflush(stdout);
}

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: qpistat [-I ms] [-c count] [--json | --prometheus] [-- command ...]\n"
		"  -I, --interval ms   print every ms milliseconds (default 1000)\n"
		"  -c, --count n       stop after n intervals (default: until ^C)\n"
		"  --json              one JSON object per interval\n"
		"  --prometheus        OpenMetrics text (cumulative counters, gauges)\n"
		"  -- command          count while command runs, print once\n");
	exit(2);
}

static void enable_all(int on)
{
	int i;

	for (i = 0; i < nr_boxes; i++)
		ioctl(boxes[i].fd[0], on ? PERF_EVENT_IOC_ENABLE :
		      PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "interval", required_argument, NULL, 'I' },
		{ "count", required_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "prometheus", no_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};
	long interval = 1000, count = -1;
	int fmt = FMT_TABLE, c, i, n = 0;
	double t0, t;

	while ((c = getopt_long(argc, argv, "+I:c:h", opts, NULL)) != -1) {
		switch (c) {
		case 'I': interval = atol(optarg); break;
		case 'c': count = atol(optarg); break;
		case 'j': fmt = FMT_JSON; break;
		case 'p': fmt = FMT_PROM; break;
		default: usage();
		}
	}
	if (interval <= 0)
		usage();
	for (i = 0; i < MAX_BOXES; i++)
		n += open_pmu(QPI, i) > 0;
	if (!n)
		die_no_pmus();
	for (i = 0; i < MAX_BOXES; i++)
		open_pmu(R3QPI, i);
	read_speeds();
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);

	t0 = now_s();
	enable_all(1);
	if (optind < argc) {
		/* command mode: count while it runs */
		pid_t pid = fork();
		int status;

		if (pid == 0) {
			execvp(argv[optind], argv + optind);
			fprintf(stderr, "qpistat: %s: %s\n", argv[optind],
				strerror(errno));
			_exit(127);
		}
		waitpid(pid, &status, 0);
		enable_all(0);
		read_all();
		t = now_s() - t0;
		if (fmt == FMT_JSON)
			print_json(t, t, true);
		else if (fmt == FMT_PROM)
			print_prom(t);
		else
			print_table(t, t, true);
		return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
	}
	for (n = 0; !stop && (count < 0 || n < count); n++) {
		double before = now_s();
		struct timespec ts = { interval / 1000, interval % 1000 * 1000000 };

		nanosleep(&ts, NULL);
		read_all();
		t = now_s();
		if (fmt == FMT_JSON)
			print_json(t - t0, t - before, false);
		else if (fmt == FMT_PROM)
			print_prom(t - before);
		else
			print_table(t - t0, t - before, false);
	}
	return 0;
}
