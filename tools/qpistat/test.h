/* SPDX-License-Identifier: GPL-2.0 */
/* The host tests of qpistat: one KTAP line per case, numbered in order. */
#ifndef QPISTAT_TEST_H
#define QPISTAT_TEST_H

void ok(int cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void test_server(void);
void test_cli(void);
int list_fds(const char *file);
void test_linkmap(void);
void test_sysmap(void);
void test_figures(void);
/* @text into @dir/@name, or exit(1) */
void test_put(const char *dir, const char *name, const char *text);

#endif
