// SPDX-License-Identifier: GPL-2.0
/*
 * qpicfg: read and write PCI config dwords through sysfs, the way the tests
 * poke qpisim registers from user space.
 *
 *   qpicfg BDF rd OFF        print the dword at OFF
 *   qpicfg BDF rd64 OFF      print OFF (low) and OFF+4 (high) as one value
 *   qpicfg BDF wr OFF VAL    write VAL to the dword at OFF
 *   qpicfg BDF wr64 OFF VAL  write the low then the high dword of VAL
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int fd;

static uint32_t rd(long off)
{
	uint32_t v;

	if (pread(fd, &v, 4, off) != 4) {
		fprintf(stderr, "qpicfg: read 0x%lx: %s\n", off, strerror(errno));
		exit(1);
	}
	return v;
}

static void wr(long off, uint32_t v)
{
	if (pwrite(fd, &v, 4, off) != 4) {
		fprintf(stderr, "qpicfg: write 0x%lx: %s\n", off, strerror(errno));
		exit(1);
	}
}

int main(int argc, char **argv)
{
	char path[128];
	long off;

	if (argc < 4) {
		fprintf(stderr, "usage: qpicfg BDF rd|rd64|wr|wr64 OFF [VAL]\n");
		return 2;
	}
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/config", argv[1]);
	fd = open(path, O_RDWR);
	if (fd < 0) {
		fprintf(stderr, "qpicfg: %s: %s\n", path, strerror(errno));
		return 1;
	}
	off = strtol(argv[3], NULL, 0);
	if (!strcmp(argv[2], "rd")) {
		printf("0x%08" PRIx32 "\n", rd(off));
	} else if (!strcmp(argv[2], "rd64")) {
		uint64_t lo = rd(off);

		printf("0x%012" PRIx64 "\n", lo | (uint64_t)rd(off + 4) << 32);
	} else if (argc == 5 && !strcmp(argv[2], "wr")) {
		wr(off, strtoul(argv[4], NULL, 0));
	} else if (argc == 5 && !strcmp(argv[2], "wr64")) {
		uint64_t v = strtoull(argv[4], NULL, 0);

		wr(off, (uint32_t)v);
		wr(off + 4, v >> 32);
	} else {
		fprintf(stderr, "qpicfg: bad command\n");
		return 2;
	}
	return 0;
}
