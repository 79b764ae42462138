// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of the link map parser (linkmap.c), in test_plan's KTAP run,
 * one line per case: every rule's exit status and exact message, the file
 * form, and the far end of each port of a 4-socket map.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

#include "linkmap.h"
#include "test.h"

static struct linkmap m;

/* 4 sockets of 3 QPI ports (HSX's E5-4600 v3 have 3 per socket) */
static const struct lm_end ports4[] = {
	{ 0, 0 }, { 0, 1 }, { 0, 2 }, { 1, 0 }, { 1, 1 }, { 1, 2 },
	{ 2, 0 }, { 2, 1 }, { 2, 2 }, { 3, 0 }, { 3, 1 }, { 3, 2 },
};
#define NR_PORTS4	((int)(sizeof(ports4) / sizeof(ports4[0])))

/* parse @arg and check it against ports4: the status and message @want */
static void expect(const char *arg, int status, const char *want)
{
	char err[512];
	int rc = linkmap_parse(arg, &m, err, sizeof(err));

	if (!rc)
		rc = linkmap_check(&m, ports4, NR_PORTS4, err, sizeof(err));
	if (rc != status || strcmp(err, want))
		printf("# got %d '%s'\n", rc, err);
	ok(rc == status && !strcmp(err, want), "'%s': %d '%s'", arg, status, want);
}

static void rules(void)
{
	expect("0.0=1.0", 0, "");
	expect("0.0=1.0,0.1=1.1", 0, "");
	expect("", EX_USAGE,
	       "--link-map: entry 1 '': want SOCKET.PORT=SOCKET.PORT, whole numbers");
	expect("0.0=1.0,", EX_USAGE,
	       "--link-map: entry 2 '': want SOCKET.PORT=SOCKET.PORT, whole numbers");
	expect("0.0-1.0", EX_USAGE,
	       "--link-map: entry 1 '0.0-1.0': want SOCKET.PORT=SOCKET.PORT, whole numbers");
	expect("0.0=1.0,0.1 = 1.1", EX_USAGE,
	       "--link-map: entry 2 '0.1 = 1.1': want SOCKET.PORT=SOCKET.PORT, whole numbers");
	expect("0.0=1.0x", EX_USAGE,
	       "--link-map: entry 1 '0.0=1.0x': want SOCKET.PORT=SOCKET.PORT, whole numbers");
	expect("0.0=99999.0", EX_USAGE,
	       "--link-map: entry 1 '0.0=99999.0': want SOCKET.PORT=SOCKET.PORT, whole numbers");
	expect("-1.0=1.0", EX_USAGE,
	       "--link-map: entry 1 '-1.0=1.0': want SOCKET.PORT=SOCKET.PORT, whole numbers");
	expect("0.0=0.0", EX_USAGE,
	       "--link-map: entry 1 '0.0=0.0': both ends on socket 0; a QPI link joins two sockets");
	expect("0.0=1.0,2.1=2.2", EX_USAGE,
	       "--link-map: entry 2 '2.1=2.2': both ends on socket 2; a QPI link joins two sockets");
	expect("0.0=1.0,1.0=2.0", EX_USAGE,
	       "--link-map: entry 2 '1.0=2.0': port 1.0 is in entry 1 '0.0=1.0' already; a port is on one link");
	expect("0.0=1.0,1.0=0.0", EX_USAGE,
	       "--link-map: entry 2 '1.0=0.0': the same link as entry 1 '0.0=1.0'; give each link once");
	expect("0.0=1.0,0.1=1.1,0.0=1.0", EX_USAGE,
	       "--link-map: entry 3 '0.0=1.0': the same link as entry 1 '0.0=1.0'; give each link once");
	expect("0.0=1.0,0.1=4.0", EX_USAGE,
	       "--link-map: entry 2 '0.1=4.0': no socket 4 with QPI ports (sockets: 0, 1, 2, 3)");
	expect("0.0=1.0,3.3=2.1", EX_USAGE,
	       "--link-map: entry 2 '3.3=2.1': socket 3 has no QPI port 3 (its ports: 0, 1, 2)");
}

static void file(void)
{
	char path[] = "/tmp/test_linkmap.XXXXXX", arg[64], want[256];
	struct lm_end e;
	FILE *f;
	int fd = mkstemp(path);

	f = fdopen(fd, "w");
	/* a 4-socket ring of HSX's three ports, port 2 across */
	fputs("# the board's QPI wiring\n"
	      "0.0=1.0\n"
	      "  1.1=2.1   # a comment after a link\n"
	      "\n"
	      "2.0=3.0\r\n"
	      "3.1=0.1\n"
	      "0.2=2.2\n"
	      "1.2=3.2", f);
	fclose(f);
	snprintf(arg, sizeof(arg), "@%s", path);
	expect(arg, 0, "");
	ok(m.nr == 6 && linkmap_peer(&m, 0, 0, &e) && e.socket == 1 && e.port == 0 &&
	   linkmap_peer(&m, 2, 1, &e) && e.socket == 1 && e.port == 1 &&
	   linkmap_peer(&m, 0, 1, &e) && e.socket == 3 && e.port == 1 &&
	   linkmap_peer(&m, 3, 2, &e) && e.socket == 1 && e.port == 2 &&
	   linkmap_peer(&m, 2, 2, &e) && e.socket == 0 && e.port == 2,
	   "a 4-socket file: 6 links, each end's peer either way");
	ok(!linkmap_peer(&m, 0, 3, &e) && !linkmap_peer(NULL, 0, 0, &e),
	   "a port not in the map (or no map): no peer");
	f = fopen(path, "a");
	fputs("\n2.0=1.2\n", f);
	fclose(f);
	snprintf(want, sizeof(want),
		 "--link-map @%s: line 9 '2.0=1.2': port 2.0 is in line 5 '2.0=3.0' already; a port is on one link",
		 path);
	expect(arg, EX_USAGE, want);
	f = fopen(path, "w");
	fputs("# nothing yet\n\n", f);
	fclose(f);
	snprintf(want, sizeof(want), "--link-map @%s: no link in it", path);
	expect(arg, EX_USAGE, want);
	unlink(path);
	snprintf(want, sizeof(want), "--link-map @%s: cannot read it: No such file or directory",
		 path);
	expect(arg, EX_NOINPUT, want);
}

void test_linkmap(void)
{
	rules();
	file();
}
