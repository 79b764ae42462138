/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Lets the register definitions and the pure model/driver logic build both in
 * the kernel and in host-side unit tests, without pulling kernel headers into
 * user space.
 */
#ifndef _QPI_TYPES_H
#define _QPI_TYPES_H

#ifdef __KERNEL__
#include <linux/bits.h>
#include <linux/types.h>
#else
#include <stdbool.h>
#include <stddef.h>

typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;
typedef signed char s8;
typedef long long s64;

#define BIT(n)		(1UL << (n))
#define BIT_ULL(n)	(1ULL << (n))
#define GENMASK(h, l) \
	(((~0UL) - (1UL << (l)) + 1) & (~0UL >> (8 * sizeof(long) - 1 - (h))))
#define GENMASK_ULL(h, l) \
	(((~0ULL) - (1ULL << (l)) + 1) & (~0ULL >> (63 - (h))))
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

#endif /* _QPI_TYPES_H */
