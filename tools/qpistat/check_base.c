// SPDX-License-Identifier: GPL-2.0
/*
 * What every check of qpistat --check stands on: check_root, the state
 * the checks share (ck), their results and texts, and reading sysfs,
 * procfs and PCI config space under check_root.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_int.h"

#ifndef CHECK_ROOT
#define CHECK_ROOT	""	/* qpistat_fake's is its tests' fake tree */
#endif
const char *check_root = CHECK_ROOT;

struct check_state ck;

void app(char *buf, const char *fmt, ...)
{
	size_t len = strlen(buf);
	va_list ap;

	if (len >= TEXT - 1)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + len, TEXT - len, fmt, ap);
	va_end(ap);
}

struct result *result(const char *name)
{
	struct result *r = &ck.res[ck.nr_res++];

	memset(r, 0, sizeof(*r));
	r->name = name;
	return r;
}

static void path_of(char *buf, size_t len, const char *fmt, va_list ap)
{
	int n = snprintf(buf, len, "%s", check_root);

	vsnprintf(buf + n, len - n, fmt, ap);
}

int check_read_str(const char *path, char *buf, size_t len)
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

int read_file(char *buf, size_t len, const char *fmt, ...)
{
	char path[512];
	va_list ap;

	va_start(ap, fmt);
	path_of(path, sizeof(path), fmt, ap);
	va_end(ap);
	if (check_read_str(path, buf, len))
		return -1;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

bool exists(const char *fmt, ...)
{
	char path[512];
	va_list ap;

	va_start(ap, fmt);
	path_of(path, sizeof(path), fmt, ap);
	va_end(ap);
	return !access(path, F_OK);
}

/* A dword of PCI config space; false when unreadable (not root). */
bool cfg_read(const char *bdf, unsigned int where, uint32_t *val)
{
	char path[512];
	int fd, n;

	snprintf(path, sizeof(path), "%s/sys/bus/pci/devices/%s/config",
		 check_root, bdf);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	n = pread(fd, val, 4, where);
	close(fd);
	return n == 4;
}

int cpu_socket(int cpu)
{
	char buf[32];

	if (read_file(buf, sizeof(buf),
		      "/sys/devices/system/cpu/cpu%d/topology/physical_package_id", cpu))
		return -1;
	return atoi(buf);
}

int check_cpulist(const char *list, int *cpus, int max)
{
	char *p = (char *)list;
	int n = 0;

	while (*p >= '0' && *p <= '9') {
		int lo = strtol(p, &p, 10), hi = lo, cpu;

		if (*p == '-')
			hi = strtol(p + 1, &p, 10);
		for (cpu = lo; cpu <= hi && n < max; cpu++)
			cpus[n++] = cpu;
		if (*p != ',')
			break;
		p++;
	}
	return n;
}
