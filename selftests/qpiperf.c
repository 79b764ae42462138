// SPDX-License-Identifier: GPL-2.0
/*
 * qpiperf: a tiny perf_event_open interpreter for the selftests, so that a
 * test can open events, inject traffic into qpisim and read counts in one
 * process, with no timing involved.  Commands, one per line on stdin:
 *
 *   open NAME PMU CONFIG [socket=S|cpu=C] [config1=X] [config2=X]
 *        [group=LEADER] [period=N] [freq=HZ] [stype=SAMPLE_TYPE] [task]
 *        [exclude=user|kernel] [disabled] [pinned] [precise]
 *                      prints "NAME ok" or "NAME error=ERRNO (text)"
 *   read NAME          prints "NAME value=V enabled=E running=R"
 *   gread NAME         group read of a leader: "NAME[i] value=V" per member
 *   enable NAME | disable NAME | close NAME
 *   period NAME N      PERF_EVENT_IOC_PERIOD
 *   inject TEXT        writes TEXT to /sys/kernel/debug/qpisim/inject, with
 *                      each ';' as a line break: one write, one batch
 *   sh CMD             runs CMD with system()
 *   echo TEXT          prints TEXT
 *
 * PMU is a name under /sys/bus/event_source/devices; socket=S picks the CPU
 * of that PMU's cpumask in socket S.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_EVENTS	64
#define PMU_DIR		"/sys/bus/event_source/devices"
#define INJECT		"/sys/kernel/debug/qpisim/inject"

struct ev {
	char name[32];
	int fd;
	int leader;		/* opened with PERF_FORMAT_GROUP */
};

static struct ev evs[MAX_EVENTS];

static int read_file(const char *path, char *buf, size_t len)
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
	return read_file(path, buf, sizeof(buf)) ? -1 : atoi(buf);
}

/* The CPU of @pmu's cpumask that is in socket @socket, or -1. */
static int socket_cpu(const char *pmu, int socket)
{
	char path[256], buf[256], *p = buf;

	snprintf(path, sizeof(path), PMU_DIR "/%s/cpumask", pmu);
	if (read_file(path, buf, sizeof(buf)))
		return -1;
	while (*p && *p != '\n') {
		int lo = strtol(p, &p, 10), hi = lo, c;

		if (*p == '-')
			hi = strtol(p + 1, &p, 10);
		for (c = lo; c <= hi; c++)
			if (cpu_socket(c) == socket)
				return c;
		if (*p == ',')
			p++;
	}
	return -1;
}

static struct ev *find(const char *name)
{
	int i;

	for (i = 0; i < MAX_EVENTS; i++)
		if (evs[i].fd > 0 && !strcmp(evs[i].name, name))
			return &evs[i];
	printf("%s error=unknown-event\n", name);
	return NULL;
}

static void cmd_open(char *args)
{
	char *name = strtok(args, " "), *pmu = strtok(NULL, " ");
	char *cfg = strtok(NULL, " "), *opt, path[256], buf[32];
	struct perf_event_attr attr;
	int cpu = -1, pid = -1, group = -1, i, fd;

	if (!name || !pmu || !cfg) {
		printf("? usage: open NAME PMU CONFIG [options]\n");
		return;
	}
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	snprintf(path, sizeof(path), PMU_DIR "/%s/type", pmu);
	if (read_file(path, buf, sizeof(buf))) {
		printf("%s error=no-pmu (%s)\n", name, pmu);
		return;
	}
	attr.type = atoi(buf);
	attr.config = strtoull(cfg, NULL, 0);
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			   PERF_FORMAT_TOTAL_TIME_RUNNING;
	while ((opt = strtok(NULL, " "))) {
		if (!strncmp(opt, "socket=", 7))
			cpu = socket_cpu(pmu, atoi(opt + 7));
		else if (!strncmp(opt, "cpu=", 4))
			cpu = atoi(opt + 4);
		else if (!strncmp(opt, "config1=", 8))
			attr.config1 = strtoull(opt + 8, NULL, 0);
		else if (!strncmp(opt, "config2=", 8))
			attr.config2 = strtoull(opt + 8, NULL, 0);
		else if (!strncmp(opt, "period=", 7))
			attr.sample_period = strtoull(opt + 7, NULL, 0);
		else if (!strncmp(opt, "freq=", 5)) {
			attr.freq = 1;
			attr.sample_freq = strtoull(opt + 5, NULL, 0);
		} else if (!strncmp(opt, "stype=", 6))
			attr.sample_type = strtoull(opt + 6, NULL, 0);
		else if (!strcmp(opt, "task"))
			pid = 0;
		else if (!strcmp(opt, "exclude=user"))
			attr.exclude_user = 1;
		else if (!strcmp(opt, "exclude=kernel"))
			attr.exclude_kernel = 1;
		else if (!strcmp(opt, "disabled"))
			attr.disabled = 1;
		else if (!strcmp(opt, "pinned"))
			attr.pinned = 1;
		else if (!strcmp(opt, "precise"))
			attr.precise_ip = 1;
		else if (!strncmp(opt, "group=", 6)) {
			struct ev *l = find(opt + 6);

			if (!l)
				return;
			group = l->fd;
		} else {
			printf("? unknown option %s\n", opt);
			return;
		}
	}
	if (group < 0)
		attr.read_format |= PERF_FORMAT_GROUP;
	if (pid == 0)
		cpu = -1;
	/* not inherited by "sh" commands: a test's close must be the last */
	fd = syscall(SYS_perf_event_open, &attr, pid, cpu, group,
		     PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		printf("%s error=%d (%s)\n", name, errno, strerror(errno));
		return;
	}
	for (i = 0; i < MAX_EVENTS && evs[i].fd > 0; i++)
		;
	if (i == MAX_EVENTS) {
		printf("? too many events\n");
		close(fd);
		return;
	}
	snprintf(evs[i].name, sizeof(evs[i].name), "%s", name);
	evs[i].fd = fd;
	evs[i].leader = group < 0;
	printf("%s ok cpu=%d\n", name, cpu);
}

/* Events are opened with PERF_FORMAT_GROUP when they lead. */
static void cmd_read(char *name, int group)
{
	struct ev *e = find(name);
	uint64_t buf[3 + 2 * MAX_EVENTS];
	ssize_t n;
	uint64_t i;

	if (!e)
		return;
	n = read(e->fd, buf, sizeof(buf));
	if (n < 0) {
		printf("%s error=%d (%s)\n", name, errno, strerror(errno));
		return;
	}
	/* leaders: nr, enabled, running, values...; members: value, enabled, running */
	if (!e->leader) {
		printf("%s value=%" PRIu64 " enabled=%" PRIu64 " running=%" PRIu64 "\n",
		       name, buf[0], buf[1], buf[2]);
		return;
	}
	if (!group) {
		printf("%s value=%" PRIu64 " enabled=%" PRIu64 " running=%" PRIu64 "\n",
		       name, buf[3], buf[1], buf[2]);
		return;
	}
	for (i = 0; i < buf[0]; i++)
		printf("%s[%" PRIu64 "] value=%" PRIu64 " enabled=%" PRIu64 " running=%" PRIu64 "\n",
		       name, i, buf[3 + i], buf[1], buf[2]);
}

static void cmd_inject(char *text)
{
	int fd = open(INJECT, O_WRONLY);
	char *p;

	for (p = text; *p; p++)
		if (*p == ';')
			*p = '\n';
	if (fd < 0 || write(fd, text, strlen(text)) < 0)
		printf("inject error=%d (%s)\n", errno, strerror(errno));
	if (fd >= 0)
		close(fd);
}

int main(void)
{
	char line[1024];

	setvbuf(stdout, NULL, _IOLBF, 0);
	while (fgets(line, sizeof(line), stdin)) {
		char *cmd, *rest;

		line[strcspn(line, "\n")] = 0;
		cmd = line + strspn(line, " \t");
		if (!*cmd || *cmd == '#')
			continue;
		rest = strchr(cmd, ' ');
		if (rest)
			*rest++ = 0;
		else
			rest = cmd + strlen(cmd);
		if (!strcmp(cmd, "open")) {
			cmd_open(rest);
		} else if (!strcmp(cmd, "read")) {
			cmd_read(rest, 0);
		} else if (!strcmp(cmd, "gread")) {
			cmd_read(rest, 1);
		} else if (!strcmp(cmd, "enable") || !strcmp(cmd, "disable")) {
			struct ev *e = find(rest);

			if (e && ioctl(e->fd, cmd[0] == 'e' ? PERF_EVENT_IOC_ENABLE :
				       PERF_EVENT_IOC_DISABLE, 0))
				printf("%s error=%d (%s)\n", rest, errno,
				       strerror(errno));
		} else if (!strcmp(cmd, "period")) {
			char *name = strtok(rest, " "), *v = strtok(NULL, " ");
			struct ev *e = name && v ? find(name) : NULL;
			uint64_t n = v ? strtoull(v, NULL, 0) : 0;

			if (e && ioctl(e->fd, PERF_EVENT_IOC_PERIOD, &n))
				printf("%s error=%d (%s)\n", name, errno,
				       strerror(errno));
			else if (e)
				printf("%s period ok\n", name);
		} else if (!strcmp(cmd, "close")) {
			struct ev *e = find(rest);

			if (e) {
				close(e->fd);
				e->fd = 0;
			}
		} else if (!strcmp(cmd, "inject")) {
			cmd_inject(rest);
		} else if (!strcmp(cmd, "sh")) {
			fflush(stdout);
			if (system(rest))
				printf("sh error: %s\n", rest);
		} else if (!strcmp(cmd, "echo")) {
			printf("%s\n", rest);
		} else {
			printf("? unknown command %s\n", cmd);
		}
	}
	return 0;
}
