// SPDX-License-Identifier: GPL-2.0
/*
 * qpiperf: a tiny perf_event_open interpreter for the selftests, so that a
 * test can open events, inject traffic into qpisim and read counts in one
 * process, with no timing involved.  Commands, one per line on stdin:
 *
 *   open NAME PMU CONFIG [socket=S|cpu=C] [config1=X] [config2=X]
 *        [group=LEADER] [period=N] [freq=HZ] [stype=SAMPLE_TYPE] [task]
 *        [exclude=user|kernel|guest|host] [disabled] [pinned] [precise] [single]
 *                      prints "NAME ok" or "NAME error=ERRNO (text)";
 *                      a leader reads as a group unless [single]
 *   read NAME          prints "NAME value=V enabled=E running=R", or
 *                      "NAME error=state" when perf returns no data (an
 *                      event in error state)
 *   gread NAME         group read of a leader: "NAME[i] value=V" per member
 *   enable NAME | disable NAME | close NAME
 *   period NAME N      PERF_EVENT_IOC_PERIOD
 *   refresh NAME N     PERF_EVENT_IOC_REFRESH: enable for N more samples
 *   mmap NAME [PAGES]  maps a ring buffer of PAGES (default 256) data pages
 *   samples NAME       consumes the ring buffer, then prints the totals so
 *                      far: "NAME samples=S periods=SUM pmin=MIN pmax=MAX
 *                      lost=L throttle=T unthrottle=U" (periods: with
 *                      PERF_SAMPLE_PERIOD in stype)
 *   waitsamples NAME N [SECS]
 *                      consumes NAME's ring buffer until it holds N samples
 *                      in all (or SECS, default 60, passed: a guard against
 *                      a hang, not a measurement), then prints as samples
 *                      with " waited_us=W" added: how long it waited, a
 *                      figure to print, never to assert
 *   waitoff NAME [SECS]
 *                      waits until perf has switched NAME off (its enabled
 *                      time stands still between two reads 10 ms apart),
 *                      e.g. after the sample that used up a REFRESH: perf
 *                      disables the event later, from irq_work, and a
 *                      REFRESH before that would be undone by it.  Prints
 *                      "NAME off" or, after SECS (default 60), "NAME on"
 *   watch NAME CPU     a child process on CPU reads NAME (read(2), the group
 *                      read for a leader) in a loop until unwatch, checking
 *                      that no value ever decreases
 *   unwatch NAME       stops it: "NAME watch reads=N back=B [first=OLD>NEW]"
 *   inject TEXT        writes TEXT to /sys/kernel/debug/qpisim/inject, with
 *                      each ';' as a line break: one write, one batch
 *   injectn N TEXT     N such writes, consuming the mapped ring buffers
 *                      after each
 *   sh CMD             runs CMD with system()
 *   echo TEXT          prints TEXT
 *
 * PMU is a name under /sys/bus/event_source/devices; socket=S picks the CPU
 * of that PMU's cpumask in socket S.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_EVENTS	64
#define PMU_DIR		"/sys/bus/event_source/devices"
#define INJECT		"/sys/kernel/debug/qpisim/inject"

struct ev {
	char name[32];
	int fd;
	int leader;		/* opened with PERF_FORMAT_GROUP */
	uint64_t sample_type;
	struct perf_event_mmap_page *rb;
	size_t rb_size;		/* data pages, bytes */
	uint64_t samples, periods, pmin, pmax, lost, throttle, unthrottle;
	pid_t watcher;
	volatile int *stop;	/* shared with the watcher */
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
	int cpu = -1, pid = -1, group = -1, single = 0, i, fd;

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
		else if (!strcmp(opt, "exclude=guest"))
			attr.exclude_guest = 1;
		else if (!strcmp(opt, "exclude=host"))
			attr.exclude_host = 1;
		else if (!strcmp(opt, "disabled"))
			attr.disabled = 1;
		else if (!strcmp(opt, "pinned"))
			attr.pinned = 1;
		else if (!strcmp(opt, "precise"))
			attr.precise_ip = 1;
		else if (!strcmp(opt, "single"))
			single = 1;
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
	if (group < 0 && !single)
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
	memset(&evs[i], 0, sizeof(evs[i]));
	snprintf(evs[i].name, sizeof(evs[i].name), "%s", name);
	evs[i].fd = fd;
	evs[i].leader = group < 0 && !single;
	evs[i].sample_type = attr.sample_type;
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
	/* perf's answer for an event in error state (a pinned group that failed) */
	if (n == 0) {
		printf("%s error=state (read 0 bytes: error state)\n", name);
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

static void cmd_mmap(char *args)
{
	char *name = strtok(args, " "), *n = strtok(NULL, " ");
	long page = sysconf(_SC_PAGESIZE);
	size_t pages = n ? strtoul(n, NULL, 0) : 256;
	struct ev *e = name ? find(name) : NULL;
	void *p;

	if (!e)
		return;
	p = mmap(NULL, (pages + 1) * page, PROT_READ | PROT_WRITE, MAP_SHARED,
		 e->fd, 0);
	if (p == MAP_FAILED) {
		printf("%s error=%d (%s)\n", name, errno, strerror(errno));
		return;
	}
	e->rb = p;
	e->rb_size = pages * page;
	e->pmin = UINT64_MAX;
}

/* Where PERF_SAMPLE_PERIOD sits in a sample: after these, 8 bytes each. */
#define BEFORE_PERIOD	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | \
			 PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
			 PERF_SAMPLE_ADDR | PERF_SAMPLE_ID | \
			 PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU)

static void rb_copy(const struct ev *e, uint64_t pos, void *to, size_t len)
{
	const char *data = (const char *)e->rb + e->rb->data_offset;
	size_t i;

	for (i = 0; i < len; i++)
		((char *)to)[i] = data[(pos + i) % e->rb_size];
}

/* Counts the records of @e's ring buffer and frees their space. */
static void consume(struct ev *e)
{
	uint64_t head, tail, lost[2], period;
	struct perf_event_header h;
	size_t off;

	if (!e->rb)
		return;
	head = __atomic_load_n(&e->rb->data_head, __ATOMIC_ACQUIRE);
	for (tail = e->rb->data_tail; tail < head; tail += h.size) {
		rb_copy(e, tail, &h, sizeof(h));
		if (h.size < sizeof(h))
			break;
		switch (h.type) {
		case PERF_RECORD_SAMPLE:
			e->samples++;
			if (!(e->sample_type & PERF_SAMPLE_PERIOD))
				break;
			off = 8 * __builtin_popcountll(e->sample_type &
						       BEFORE_PERIOD);
			rb_copy(e, tail + sizeof(h) + off, &period, 8);
			e->periods += period;
			if (period < e->pmin)
				e->pmin = period;
			if (period > e->pmax)
				e->pmax = period;
			break;
		case PERF_RECORD_LOST:
			rb_copy(e, tail + sizeof(h), lost, sizeof(lost));
			e->lost += lost[1];
			break;
		case PERF_RECORD_THROTTLE:
			e->throttle++;
			break;
		case PERF_RECORD_UNTHROTTLE:
			e->unthrottle++;
			break;
		}
	}
	__atomic_store_n(&e->rb->data_tail, tail, __ATOMIC_RELEASE);
}

static void consume_all(void)
{
	int i;

	for (i = 0; i < MAX_EVENTS; i++)
		if (evs[i].fd > 0)
			consume(&evs[i]);
}

/* The totals of @e; @waited_us >= 0 adds how long waitsamples waited. */
static void print_samples(const char *name, const struct ev *e,
			  long long waited_us)
{
	printf("%s samples=%" PRIu64 " periods=%" PRIu64 " pmin=%" PRIu64
	       " pmax=%" PRIu64 " lost=%" PRIu64 " throttle=%" PRIu64
	       " unthrottle=%" PRIu64, name, e->samples, e->periods,
	       e->samples ? e->pmin : 0, e->pmax, e->lost, e->throttle,
	       e->unthrottle);
	if (waited_us >= 0)
		printf(" waited_us=%lld", waited_us);
	printf("\n");
}

static void cmd_samples(char *name)
{
	struct ev *e = find(name);

	if (!e)
		return;
	consume(e);
	print_samples(name, e, -1);
}

/*
 * waitsamples and waitunthrottle: consume @args' event's ring buffer until
 * it held N samples (or N UNTHROTTLE records, @unthrottle) in all, or SECS
 * passed.
 */
static void wait_records(char *args, const char *cmd, bool unthrottle)
{
	char *name = strtok(args, " "), *num = strtok(NULL, " ");
	char *secs = strtok(NULL, " ");
	long polls = (secs ? atol(secs) : 60) * 1000;
	struct timespec t0, t1;
	long long waited;
	struct ev *e;
	uint64_t n;

	if (!name || !num) {
		printf("? usage: %s NAME N [SECS]\n", cmd);
		return;
	}
	e = find(name);
	if (!e)
		return;
	n = strtoull(num, NULL, 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (consume(e); (unthrottle ? e->unthrottle : e->samples) < n &&
	     polls-- > 0; consume(e))
		usleep(1000);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	waited = (t1.tv_sec - t0.tv_sec) * 1000000LL +
		 (t1.tv_nsec - t0.tv_nsec) / 1000;
	print_samples(name, e, waited);
}

static void cmd_waitsamples(char *args)
{
	wait_records(args, "waitsamples", false);
}

static void cmd_waitunthrottle(char *args)
{
	wait_records(args, "waitunthrottle", true);
}

/* @e's enabled time: the second word of either read format */
static int enabled_ns(const struct ev *e, uint64_t *ns)
{
	uint64_t buf[3 + 2 * MAX_EVENTS];

	if (read(e->fd, buf, sizeof(buf)) < (ssize_t)(2 * sizeof(buf[0])))
		return -1;
	*ns = buf[1];
	return 0;
}

static void cmd_waitoff(char *args)
{
	char *name = strtok(args, " "), *secs = strtok(NULL, " ");
	long polls = (secs ? atol(secs) : 60) * 100;
	uint64_t before, after;
	struct ev *e;

	if (!name) {
		printf("? usage: waitoff NAME [SECS]\n");
		return;
	}
	e = find(name);
	if (!e)
		return;
	while (polls-- > 0) {
		if (enabled_ns(e, &before))
			break;
		usleep(10000);
		if (enabled_ns(e, &after))
			break;
		if (after == before) {
			printf("%s off\n", name);
			return;
		}
	}
	printf("%s on\n", name);
}

/*
 * The watcher: every value a read returns (each member's, for a group
 * read) must be at least the one the read before returned.
 */
static void watch_loop(struct ev *e)
{
	uint64_t buf[3 + 2 * MAX_EVENTS], prev[MAX_EVENTS] = { 0 };
	uint64_t reads = 0, back = 0, first_old = 0, first_new = 0;
	uint64_t i, nr, *vals;
	ssize_t n;

	while (!*e->stop) {
		n = read(e->fd, buf, sizeof(buf));
		if (n < 0) {
			printf("%s watch error=%d (%s)\n", e->name, errno,
			       strerror(errno));
			return;
		}
		nr = e->leader ? buf[0] : 1;
		vals = e->leader ? &buf[3] : &buf[0];
		for (i = 0; i < nr && i < MAX_EVENTS; i++) {
			if (vals[i] < prev[i] && !back++) {
				first_old = prev[i];
				first_new = vals[i];
			}
			prev[i] = vals[i];
		}
		reads++;
	}
	printf("%s watch reads=%" PRIu64 " back=%" PRIu64, e->name, reads,
	       back);
	if (back)
		printf(" first=%" PRIu64 ">%" PRIu64, first_old, first_new);
	printf("\n");
}

static void cmd_watch(char *args)
{
	char *name = strtok(args, " "), *c = strtok(NULL, " ");
	struct ev *e = name && c ? find(name) : NULL;
	cpu_set_t set;
	pid_t pid;

	if (!e)
		return;
	e->stop = mmap(NULL, sizeof(*e->stop), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (e->stop == MAP_FAILED) {
		e->stop = NULL;
		printf("%s watch error=%d\n", name, errno);
		return;
	}
	*e->stop = 0;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		CPU_ZERO(&set);
		CPU_SET(atoi(c), &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			printf("%s watch error=%d (cpu %s)\n", name, errno, c);
		else
			watch_loop(e);
		fflush(stdout);
		_exit(0);
	}
	e->watcher = pid;
}

static void cmd_unwatch(char *name)
{
	struct ev *e = find(name);

	if (!e || !e->watcher)
		return;
	*e->stop = 1;
	waitpid(e->watcher, NULL, 0);
	e->watcher = 0;
}

int main(void)
{
	char line[1024];
	int i;

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
		} else if (!strcmp(cmd, "refresh")) {
			char *name = strtok(rest, " "), *v = strtok(NULL, " ");
			struct ev *e = name && v ? find(name) : NULL;

			if (e && ioctl(e->fd, PERF_EVENT_IOC_REFRESH, atoi(v)))
				printf("%s error=%d (%s)\n", name, errno,
				       strerror(errno));
		} else if (!strcmp(cmd, "mmap")) {
			cmd_mmap(rest);
		} else if (!strcmp(cmd, "samples")) {
			cmd_samples(rest);
		} else if (!strcmp(cmd, "waitsamples")) {
			cmd_waitsamples(rest);
		} else if (!strcmp(cmd, "waitunthrottle")) {
			cmd_waitunthrottle(rest);
		} else if (!strcmp(cmd, "waitoff")) {
			cmd_waitoff(rest);
		} else if (!strcmp(cmd, "watch")) {
			cmd_watch(rest);
		} else if (!strcmp(cmd, "unwatch")) {
			cmd_unwatch(rest);
		} else if (!strcmp(cmd, "injectn")) {
			char *text = strchr(rest, ' ');
			long i, n = atol(rest);

			for (i = 0; text && i < n; i++) {
				char copy[sizeof(line)];

				snprintf(copy, sizeof(copy), "%s", text + 1);
				cmd_inject(copy);
				consume_all();
			}
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
				cmd_unwatch(rest);
				if (e->rb)
					munmap(e->rb, e->rb_size +
					       sysconf(_SC_PAGESIZE));
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
	for (i = 0; i < MAX_EVENTS; i++)
		if (evs[i].fd > 0 && evs[i].watcher)
			cmd_unwatch(evs[i].name);
	return 0;
}
