// SPDX-License-Identifier: GPL-2.0
/*
 * qpistat's PMUs: which uncore_qpi_* and uncore_r3qpi_* PMUs this machine
 * has, the plan's events opened on each socket of their cpumask (and what
 * to do when that fails), their link speeds, enabling and reading every
 * group, and noticing a PMU that went away.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sysexits.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "qpistat.h"

#ifndef PMU_DIR
#define PMU_DIR		"/sys/bus/event_source/devices"
#endif

static int cpu_socket(int cpu)
{
	char path[128], buf[32];

	/* check_root: the host tests' fake tree, "" otherwise */
	snprintf(path, sizeof(path),
		 "%s/sys/devices/system/cpu/cpu%d/topology/physical_package_id",
		 check_root, cpu);
	return check_read_str(path, buf, sizeof(buf)) ? -1 : atoi(buf);
}

/*
 * The remedies, narrowest first: CAP_PERFMON for this binary or this
 * service, or root; the sysctl, which opens every CPU's events to every
 * user, only last.
 */
static void die_perm(const char *pmu)
{
	char buf[16] = "?", self[PATH_MAX] = "qpistat";
	ssize_t n;

	check_read_str("/proc/sys/kernel/perf_event_paranoid", buf, sizeof(buf));
	buf[strcspn(buf, "\n")] = 0;
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0)
		self[n] = 0;
	fprintf(stderr,
		"qpistat: permission denied opening %s events.\n"
		"  System-wide uncore events need CAP_PERFMON (or root).  Give it to qpistat only:\n"
		"    sudo setcap cap_perfmon+ep %s  (anyone who can run it gets it)\n"
		"    or a systemd unit with AmbientCapabilities=CAP_PERFMON (qpistat.service has it)\n"
		"    or sudo qpistat ...\n", pmu, self);
	/* Debian's (and Android's) level 3 wants CAP_SYS_ADMIN */
	if (atoi(buf) > 2)
		fprintf(stderr,
			"  kernel.perf_event_paranoid is %s: above 2 this kernel wants root (CAP_SYS_ADMIN)\n"
			"  and refuses CAP_PERFMON alone; at 2, upstream's default, CAP_PERFMON is enough.\n",
			buf);
	fprintf(stderr,
		"  Last resort: sudo sysctl kernel.perf_event_paranoid=0 (it is %s) lets every user\n"
		"  watch every CPU's events: it weakens the whole machine, not just qpistat.\n", buf);
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
		if (check_read_str(path, buf, sizeof(buf)) || strcmp(buf, "qpi_uncore\n"))
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

void die_no_pmus(void)
{
	bool ours = !access("/sys/module/qpi_uncore", F_OK);
	bool intree = !access("/sys/module/intel_uncore", F_OK);
	char why[4096];

	fprintf(stderr, "qpistat: no uncore_qpi_* PMU in %s.\n", PMU_DIR);
	/* no module can help there: none of the advice below applies */
	if (!check_cpu_qpi(why, sizeof(why))) {
		fprintf(stderr, "  This CPU has no QPI PMON (the cpu check of qpistat --check):\n  %s\n",
			why);
		exit(EX_UNAVAILABLE);
	}
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
	/* a fake machine may have more CPUs (sockets) than the host */
	cpu = 0;
#endif
	/* a command run under qpistat must not get them, nor what it forks */
	return syscall(SYS_perf_event_open, attr, -1, cpu, group,
		       PERF_FLAG_FD_CLOEXEC);
}

static void perf_fail(const char *name, int idx, int cpu)
{
	if (errno == EACCES || errno == EPERM)
		die_perm(name);
	fprintf(stderr, "qpistat: uncore_%s_%d on CPU %d: %s\n",
		name, idx, cpu, strerror(errno));
	exit(1);
}

/*
 * The health events of a QPI box, each its own group: perf gives them
 * turns on the counters the pinned bandwidth group leaves, and says for
 * how long each counted.  Where the bandwidth group takes all four
 * counters they are not opened: they would never count.
 */
static void open_health(struct box *b, int type)
{
	int i;

	for (i = 0; i < PLAN_NR_HEALTH; i++) {
		struct perf_event_attr attr = {
			.size = sizeof(attr), .type = type,
			.config = plan->health[i].config,
			.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
				       PERF_FORMAT_TOTAL_TIME_RUNNING,
			.disabled = 1,
		};

		b->hfd[i] = -1;
		if (b->kind != QPI || plan->nr_bw >= PLAN_MAX_BW)
			continue;
		b->hfd[i] = perf_open(&attr, b->cpu, -1);
		if (b->hfd[i] < 0)
			perf_fail("qpi", b->idx, b->cpu);
	}
}

/* Open one group on box @idx of @kind for every socket of its cpumask. */
int open_pmu(int kind, int idx)
{
	const char *name = kind == QPI ? "qpi" : "r3qpi";
	const struct plan_event *ev = kind == QPI ? plan->bw : plan->r3;
	int nr = kind == QPI ? plan->nr_bw : PLAN_R3_EVENTS;
	char path[256], buf[512];
	int type, opened = 0, cpus[MAX_SOCKETS], nr_cpus, k;
	bool fw;

	snprintf(path, sizeof(path), PMU_DIR "/uncore_%s_%d/type", name, idx);
	if (check_read_str(path, buf, sizeof(buf)))
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
	if (check_read_str(path, buf, sizeof(buf)))
		return -1;
	nr_cpus = check_cpulist(buf, cpus, MAX_SOCKETS);
	for (k = 0; k < nr_cpus; k++) {
		int cpu = cpus[k];
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
			/*
			 * Pinned: bandwidth stays exact whatever
			 * else takes turns on the box's counters.
			 */
			struct perf_event_attr attr = {
				.size = sizeof(attr), .type = type,
				.config = ev[i].config,
				.read_format = PERF_FORMAT_GROUP,
				.disabled = i == 0,
				.pinned = i == 0,
			};

			b->fd[i] = perf_open(&attr, cpu, i ? b->fd[0] : -1);
			if (b->fd[i] < 0)
				perf_fail(name, idx, cpu);
		}
		open_health(b, type);
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
	return opened;
}

void read_speeds(void)
{
	int i;

	for (i = 0; i < nr_boxes; i++) {
		char path[256], buf[1024], *line;

		if (boxes[i].kind != QPI)
			continue;
		snprintf(path, sizeof(path), PMU_DIR "/uncore_qpi_%d/link_speed",
			 boxes[i].idx);
		if (check_read_str(path, buf, sizeof(buf)))
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

#ifdef QPISTAT_FAKE_PMU
/*
 * The host tests' counts, the software events counting nothing: in
 * PMU_DIR/uncore_qpi_N/fake_counts, a line "SOCKET COUNT..." per socket,
 * cumulative, in the order of the box's group.
 */
static void fake_counts(struct box *b)
{
	char path[256], line[256];
	FILE *f;

	snprintf(path, sizeof(path), PMU_DIR "/uncore_qpi_%d/fake_counts", b->idx);
	f = b->kind == QPI ? fopen(path, "r") : NULL;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *p = line, *end;
		int j;

		if (strtol(p, &p, 10) != b->socket)
			continue;
		for (j = 0; j < b->nr; j++, p = end) {
			uint64_t v = strtoull(p, &end, 10);

			if (end == p)
				break;
			b->val[j] = v;
		}
	}
	fclose(f);
}
#else
static void fake_counts(struct box *b)
{
	(void)b;
}
#endif

/* One read of every group: 0, or -1 with errno set. */
int try_read_all(void)
{
	int i, j;

	for (i = 0; i < nr_boxes; i++) {
		struct box *b = &boxes[i];
		uint64_t buf[2 + MAX_EVENTS];
		ssize_t n = read(b->fd[0], buf, sizeof(buf));

		if (n < 0)
			return -1;
		/* a pinned group that lost its counters reads as EOF */
		if (n == 0) {
			errno = EBUSY;
			return -1;
		}
		for (j = 0; j < b->nr && j < (int)buf[0]; j++) {
			b->prev[j] = b->val[j];
			b->val[j] = buf[1 + j];
		}
		fake_counts(b);
		if (b->fw_fd >= 0 && (int)buf[0] > b->nr)
			b->fw = buf[1 + b->nr];
		for (j = 0; j < PLAN_NR_HEALTH; j++) {
			uint64_t hv[3];

			if (b->hfd[j] < 0 || read(b->hfd[j], hv, sizeof(hv)) != sizeof(hv))
				continue;
			b->hprev[j] = b->h[j];
			b->h[j].value = hv[0];
			b->h[j].enabled_s = hv[1] / 1e9;
			b->h[j].counted_s = hv[2] / 1e9;
		}
	}
	return 0;
}

void read_all(void)
{
	if (try_read_all()) {
		fprintf(stderr, "qpistat: read: %s\n", errno == EBUSY ?
			"the bandwidth events lost their counters to another user of the PMU" :
			strerror(errno));
		exit(1);
	}
}

double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* How many QPI ports and R3QPI links are open, for the start-up line. */
void count_boxes(int *nq, int *nr3)
{
	int i;

	*nq = *nr3 = 0;
	for (i = 0; i < nr_boxes; i++)
		boxes[i].kind == QPI ? (*nq)++ : (*nr3)++;
}

/*
 * The name of a PMU the events were opened on that is gone: unregistered
 * (its sysfs directory goes with it) or registered again under that name
 * by another driver (another type).  NULL while all are there.
 */
const char *pmu_gone(void)
{
	static char name[64];
	int i;

	for (i = 0; i < nr_boxes; i++) {
		char path[256], buf[32];

		snprintf(name, sizeof(name), "uncore_%s_%d",
			 boxes[i].kind == QPI ? "qpi" : "r3qpi", boxes[i].idx);
		snprintf(path, sizeof(path), PMU_DIR "/%s/type", name);
		if (check_read_str(path, buf, sizeof(buf)) || atoi(buf) != boxes[i].type)
			return name;
	}
	return NULL;
}

void enable_all(int on)
{
	unsigned long req = on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE;
	int i, j;

	for (i = 0; i < nr_boxes; i++) {
		ioctl(boxes[i].fd[0], req, PERF_IOC_FLAG_GROUP);
		for (j = 0; j < PLAN_NR_HEALTH; j++)
			if (boxes[i].hfd[j] >= 0)
				ioctl(boxes[i].hfd[j], req, 0);
	}
}

/* Every event closed: the end of --listen. */
void close_all(void)
{
	int i;

	for (i = 0; i < nr_boxes; i++) {
		int j;

		for (j = 0; j < boxes[i].nr; j++)
			close(boxes[i].fd[j]);
		if (boxes[i].fw_fd >= 0)
			close(boxes[i].fw_fd);
		for (j = 0; j < PLAN_NR_HEALTH; j++)
			if (boxes[i].hfd[j] >= 0)
				close(boxes[i].hfd[j]);
	}
}
