// SPDX-License-Identifier: GPL-2.0
/*
 * qpistat --check's output: a line per check and the verdict, or one JSON
 * document.
 */
#define _GNU_SOURCE
#include <stdio.h>

#include "check_int.h"

static const char *const status_name[] = { "pass", "warn", "fail", "skip" };

static void json_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(out, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(out, "\\u%04x", *s);
		else
			fputc(*s, out);
	}
	fputc('"', out);
}

/* The results, written to @out: 0 every check passed or warned, 1 a fail. */
int check_print(FILE *out, bool json)
{
	int i, fails = 0, warns = 0;

	for (i = 0; i < ck.nr_res; i++) {
		fails += ck.res[i].status == CK_FAIL;
		warns += ck.res[i].status == CK_WARN;
	}
	if (json) {
		fprintf(out, "{\"checks\": [");
		for (i = 0; i < ck.nr_res; i++) {
			struct result *r = &ck.res[i];

			fprintf(out, "%s{\"check\": \"%s\", \"status\": \"%s\", \"saw\": ",
				i ? ", " : "", r->name, status_name[r->status]);
			json_str(out, r->saw);
			fprintf(out, ", \"do\": ");
			json_str(out, r->todo);
			fprintf(out, "}");
		}
		fprintf(out, "], \"fail\": %d, \"warn\": %d, \"exit\": %d}\n",
			fails, warns, fails ? 1 : 0);
	} else {
		for (i = 0; i < ck.nr_res; i++) {
			struct result *r = &ck.res[i];

			fprintf(out, "%s %-8s %s%s%s\n", status_name[r->status],
				r->name, r->saw, r->todo[0] ? " => " : "", r->todo);
		}
		fprintf(out, "%s: %d fail, %d warn%s\n", fails ? "FAIL" : "PASS",
			fails, warns,
			ck.root ? "" : " (not root: some checks could not look)");
	}
	fflush(out);
	return fails ? 1 : 0;
}
