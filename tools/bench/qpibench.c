// SPDX-License-Identifier: GPL-2.0
/*
 * qpibench: the measurements of make bench, run in the test VM against
 * whichever driver owns the uncore_qpi_* PMUs (qpi_uncore or intel_uncore).
 *
 *   qpibench reads  STATDIR N     config accesses per read() of a counter
 *   qpibench toggle STATDIR N     config accesses per disable+enable (del+add)
 *   qpibench latency N            median and p99 ns of read(), single event
 *                                 and a group of four
 *   qpibench stime CMD ...        kernel CPU time of CMD and its children
 *
 * The events are QPI clockticks on uncore_qpi_0 of socket 0; STATDIR is the
 * qpisim debugfs directory of that function, whose reads/writes counters
 * give exact access counts.  Output is key=value lines.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PMU "/sys/bus/event_source/devices/uncore_qpi_0"

static long read_num(const char *path)
{
	char buf[64] = "";
	int fd = open(path, O_RDONLY);

	if (fd < 0 || read(fd, buf, sizeof(buf) - 1) < 0) {
		fprintf(stderr, "qpibench: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	close(fd);
	return strtol(buf, NULL, 0);
}

static void write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0 || write(fd, s, strlen(s)) < 0) {
		fprintf(stderr, "qpibench: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	close(fd);
}

static int open_event(uint64_t config, int group)
{
	struct perf_event_attr attr = { .size = sizeof(attr) };
	int cpu = (int)read_num(PMU "/cpumask");	/* first CPU: socket 0 */
	int fd;

	attr.type = read_num(PMU "/type");
	attr.config = config;
	if (group < 0)
		attr.read_format = PERF_FORMAT_GROUP;
	fd = syscall(SYS_perf_event_open, &attr, -1, cpu, group, 0);
	if (fd < 0) {
		fprintf(stderr, "qpibench: perf_event_open: %s\n", strerror(errno));
		exit(1);
	}
	return fd;
}

static long accesses(const char *dir)
{
	char path[256];
	long n;

	snprintf(path, sizeof(path), "%s/reads", dir);
	n = read_num(path);
	snprintf(path, sizeof(path), "%s/writes", dir);
	return n + read_num(path);
}

static void reset(const char *dir)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/reads", dir);
	write_str(path, "0");
	snprintf(path, sizeof(path), "%s/writes", dir);
	write_str(path, "0");
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void latency(const char *name, int fd, long n)
{
	double *t = calloc(n, sizeof(*t));
	uint64_t buf[16];
	long i;

	for (i = 0; i < n; i++) {
		double t0 = now_ns();

		if (read(fd, buf, sizeof(buf)) < 0)
			exit(1);
		t[i] = now_ns() - t0;
	}
	qsort(t, n, sizeof(*t), cmp);
	printf("%s_median_ns=%.0f\n%s_p99_ns=%.0f\n", name, t[n / 2], name,
	       t[n * 99 / 100]);
	free(t);
}

int main(int argc, char **argv)
{
	uint64_t buf[16];
	long n, i;
	int fd;

	if (argc < 3)
		goto usage;
	if (!strcmp(argv[1], "stime")) {
		struct rusage ru;
		pid_t pid = fork();
		int status;

		if (pid == 0) {
			execvp(argv[2], argv + 2);
			_exit(127);
		}
		waitpid(pid, &status, 0);
		getrusage(RUSAGE_CHILDREN, &ru);
		printf("stime_ms=%.1f\nutime_ms=%.1f\n",
		       ru.ru_stime.tv_sec * 1e3 + ru.ru_stime.tv_usec / 1e3,
		       ru.ru_utime.tv_sec * 1e3 + ru.ru_utime.tv_usec / 1e3);
		return 0;
	}
	if (!strcmp(argv[1], "latency")) {
		int g[4];

		n = atol(argv[2]);
		fd = open_event(0x14, -1);
		latency("read", fd, n);
		close(fd);
		g[0] = open_event(0x14, -1);
		for (i = 1; i < 4; i++)
			g[i] = open_event(0x14, g[0]);
		latency("group_read", g[0], n);
		return 0;
	}
	if (argc < 4)
		goto usage;
	n = atol(argv[3]);
	fd = open_event(0x14, -1);
	if (!strcmp(argv[1], "reads")) {
		reset(argv[2]);
		for (i = 0; i < n; i++)
			if (read(fd, buf, sizeof(buf)) < 0)
				return 1;
		printf("accesses_per_read=%.2f\n", (double)accesses(argv[2]) / n);
		return 0;
	}
	if (!strcmp(argv[1], "toggle")) {
		reset(argv[2]);
		for (i = 0; i < n; i++) {
			ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
			ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
		}
		printf("accesses_per_del_add=%.2f\n", (double)accesses(argv[2]) / n);
		return 0;
	}
usage:
	fprintf(stderr, "usage: qpibench reads|toggle STATDIR N | latency N | stime CMD...\n");
	return 2;
}
