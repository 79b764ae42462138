// SPDX-License-Identifier: GPL-2.0
/*
 * The fake files of the host tests (a sysfs, a /proc): written whole or
 * the test binary ends, since a test that ran on a half-written tree
 * would report on something else.
 */
#include <stdio.h>
#include <stdlib.h>

#include "test.h"

void test_put(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f)) {
		perror(path);
		exit(1);
	}
}
