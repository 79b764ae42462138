// SPDX-License-Identifier: GPL-2.0
/*
 * qpifuzz: random perf_event_open, ioctl, read and close calls on the uncore
 * PMUs (and a few others, for groups), sampling events with ring buffers,
 * and qpisim traffic to make them overflow, reproducible from a seed.
 *
 *   qpifuzz SEED CALLS
 *
 * It checks nothing itself beyond surviving: the kernel log (run-vm's splat
 * scan) and qpisim's reserved-write counters judge the driver.  It prints a
 * summary of what happened and exits 0.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PMU_DIR		"/sys/bus/event_source/devices"
#define MAX_FDS		64
#define MAX_TYPES	16

static uint64_t state;

/* xorshift64*: the same sequence for the same seed, everywhere */
static uint64_t rnd(void)
{
	state ^= state >> 12;
	state ^= state << 25;
	state ^= state >> 27;
	return state * 0x2545f4914f6cdd1dULL;
}

static unsigned int pick(unsigned int n)
{
	return rnd() % n;
}

static int types[MAX_TYPES], nr_types;
static int fds[MAX_FDS];
static void *maps[MAX_FDS];

/* close a slot; its ring buffer keeps the event alive until unmapped */
static void slot_close(int k)
{
	if (maps[k])
		munmap(maps[k], 3 * 4096);
	maps[k] = NULL;
	if (fds[k] > 0)
		close(fds[k]);
	fds[k] = 0;
}
static unsigned long opened, refused, mapped, errs[256], ops[9];

static void add_type(const char *pmu)
{
	char path[256], buf[32];
	int fd, n;

	snprintf(path, sizeof(path), PMU_DIR "/%s/type", pmu);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n > 0 && nr_types < MAX_TYPES) {
		buf[n] = 0;
		types[nr_types++] = atoi(buf);
	}
}

/* Mostly plausible configs, sometimes any bits at all. */
static uint64_t rnd_config(void)
{
	uint64_t c = pick(256) | (uint64_t)pick(256) << 8;

	if (pick(2))
		c |= (uint64_t)pick(256) << 24;		/* thresh */
	if (pick(3) == 0)
		c |= 1ULL << (16 + pick(8));		/* bits 16..23 */
	if (pick(8) == 0)
		c = rnd();
	/* the driver's foreign_writes event, alone or in groups */
	if (pick(16) == 0)
		c = 1ULL << 56;
	return c;
}

static uint64_t rnd_filter(void)
{
	switch (pick(4)) {
	case 0:
		return 0;
	case 1:
		return (uint64_t)pick(16) << 9 | (uint64_t)pick(32) << 13;
	case 2:
		return rnd() & 0x000f000f8003fff8ULL;
	default:
		return rnd();
	}
}

/* Periods of every size around the counter widths, sample types, freq. */
static void rnd_sampling(struct perf_event_attr *attr)
{
	static const unsigned int widths[] = { 1, 10, 20, 32, 44, 48, 63 };
	unsigned int w = widths[pick(sizeof(widths) / sizeof(widths[0]))];
	uint64_t top = w == 63 ? ~0ULL >> 1 : (1ULL << w);

	attr->sample_period = top - pick(3);
	if (pick(4) == 0)
		attr->sample_period = 1 + pick(1000);
	attr->freq = pick(6) == 0;
	attr->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			    PERF_SAMPLE_TIME | PERF_SAMPLE_CPU;
	if (pick(2))
		attr->sample_type |= PERF_SAMPLE_PERIOD;
	if (pick(3) == 0)
		attr->sample_type |= PERF_SAMPLE_READ;
	if (pick(8) == 0)
		attr->sample_type |= 1ULL << pick(26);
	attr->wakeup_events = pick(4);
}

static void do_open(long ncpu)
{
	struct perf_event_attr attr;
	int slot = pick(MAX_FDS), group = -1, cpu, pid = -1, fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = pick(10) ? (unsigned int)types[pick(nr_types)] : pick(64);
	attr.config = rnd_config();
	if (pick(2)) {
		attr.config1 = rnd_filter();
		attr.config2 = rnd_filter();
	}
	attr.disabled = pick(2);
	attr.pinned = pick(8) == 0;
	attr.exclusive = pick(8) == 0;
	attr.inherit = pick(8) == 0;
	attr.exclude_user = pick(10) == 0;
	attr.exclude_kernel = pick(10) == 0;
	attr.exclude_guest = pick(4) == 0;
	attr.precise_ip = pick(10) == 0 ? pick(4) : 0;
	if (pick(3) == 0)
		rnd_sampling(&attr);
	attr.read_format = pick(16);
	cpu = pick(8) ? (int)pick(ncpu) : -1 - (int)pick(2);
	if (pick(10) == 0)
		pid = 0;
	if (pick(3) == 0) {
		int g = fds[pick(MAX_FDS)];

		group = g > 0 ? g : -1;
	}
	fd = syscall(SYS_perf_event_open, &attr, pid, cpu, group,
		     pick(2) ? PERF_FLAG_FD_CLOEXEC : 0);
	if (fd < 0) {
		refused++;
		errs[errno & 0xff]++;
		return;
	}
	opened++;
	slot_close(slot);
	fds[slot] = fd;
	/* a ring buffer, so that samples are really written */
	if (attr.sample_period && pick(2)) {
		void *rb = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE,
				MAP_SHARED, fd, 0);

		if (rb != MAP_FAILED) {
			maps[slot] = rb;
			mapped++;
		}
	}
}

/* Traffic, so that sampling events overflow. */
static void do_inject(void)
{
	static const char *const boxes[] = { "qpi0", "qpi1", "r3qpi0", "r3qpi1" };
	char cmd[160];
	int fd, n;

	n = snprintf(cmd, sizeof(cmd),
		     "event socket=%u box=%s event=%u count=%llu\n", pick(2),
		     boxes[pick(4)], pick(2) ? 0x14 : 0x01,
		     (unsigned long long)(pick(2) ? pick(100000) : pick(1U << 30)));
	fd = open("/sys/kernel/debug/qpisim/inject", O_WRONLY);
	if (fd < 0)
		return;
	if (write(fd, cmd, n) < 0)
		errs[errno & 0xff]++;
	close(fd);
}

int main(int argc, char **argv)
{
	static const char *const pmus[] = {
		"uncore_qpi_0", "uncore_qpi_1", "uncore_qpi_2",
		"uncore_r3qpi_0", "uncore_r3qpi_1", "uncore_r3qpi_2",
		"uncore_sbox_0", "software",
	};
	long calls, ncpu = sysconf(_SC_NPROCESSORS_CONF), i;
	unsigned int k;

	if (argc != 3) {
		fprintf(stderr, "usage: qpifuzz SEED CALLS\n");
		return 2;
	}
	state = strtoull(argv[1], NULL, 0) * 0x9e3779b97f4a7c15ULL + 1;
	calls = atol(argv[2]);
	for (k = 0; k < sizeof(pmus) / sizeof(pmus[0]); k++)
		add_type(pmus[k]);
	if (!nr_types) {
		fprintf(stderr, "qpifuzz: no PMUs to fuzz\n");
		return 1;
	}

	for (i = 0; i < calls; i++) {
		int fd = fds[pick(MAX_FDS)];
		uint64_t buf[64];
		unsigned int op = pick(9);

		ops[op]++;
		switch (op) {
		case 0: case 1: case 2:
			do_open(ncpu);
			break;
		case 3:
			if (fd > 0 && read(fd, buf, pick(2) ? sizeof(buf) : pick(40)) < 0)
				errs[errno & 0xff]++;
			break;
		case 4:
			if (fd > 0)
				ioctl(fd, pick(2) ? PERF_EVENT_IOC_ENABLE :
				      PERF_EVENT_IOC_DISABLE,
				      pick(2) ? PERF_IOC_FLAG_GROUP : 0);
			break;
		case 5:
			if (fd > 0)
				ioctl(fd, PERF_EVENT_IOC_RESET, 0);
			break;
		case 6:
			if (fd > 0) {
				uint64_t period = pick(4) ? 1 + pick(100000) : rnd();

				ioctl(fd, PERF_EVENT_IOC_PERIOD, &period);
			}
			break;
		case 7:
			do_inject();
			break;
		default:
			slot_close(pick(MAX_FDS));
			break;
		}
	}
	for (k = 0; k < MAX_FDS; k++)
		slot_close(k);

	printf("# qpifuzz seed=%s calls=%ld pmus=%d opened=%lu refused=%lu mapped=%lu\n",
	       argv[1], calls, nr_types, opened, refused, mapped);
	for (k = 0; k < 256; k++)
		if (errs[k])
			printf("#   errno %u (%s): %lu\n", k, strerror(k), errs[k]);
	return 0;
}
