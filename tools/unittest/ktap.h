/* SPDX-License-Identifier: GPL-2.0 */
/* A minimal KTAP harness for the host unit tests. */
#ifndef _QPI_KTAP_H
#define _QPI_KTAP_H

#include <stdio.h>
#include <stdlib.h>

static int ktap_cur_failed;
static int ktap_nr, ktap_failed;

#define EXPECT_EQ(a, b)							\
	do {								\
		unsigned long long _a = (a), _b = (b);			\
		if (_a != _b) {						\
			printf("# %s:%d: %s = %llu (0x%llx), expected %llu (0x%llx)\n", \
			       __FILE__, __LINE__, #a, _a, _a, _b, _b);	\
			ktap_cur_failed = 1;				\
		}							\
	} while (0)

#define EXPECT_TRUE(c)							\
	do {								\
		if (!(c)) {						\
			printf("# %s:%d: expected %s\n", __FILE__,	\
			       __LINE__, #c);				\
			ktap_cur_failed = 1;				\
		}							\
	} while (0)

struct ktap_case {
	const char *name;
	void (*fn)(void);
};

static inline int ktap_run(const char *suite, const struct ktap_case *cases,
			   int n)
{
	int i;

	printf("KTAP version 1\n# suite: %s\n1..%d\n", suite, n);
	for (i = 0; i < n; i++) {
		ktap_cur_failed = 0;
		cases[i].fn();
		ktap_nr++;
		ktap_failed += ktap_cur_failed;
		printf("%sok %d %s\n", ktap_cur_failed ? "not " : "", i + 1,
		       cases[i].name);
	}
	printf("# %s: %d passed, %d failed\n", suite, n - ktap_failed,
	       ktap_failed);
	return ktap_failed ? 1 : 0;
}

#endif /* _QPI_KTAP_H */
