/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace stand-in for the parts of the kernel headers that cpuidle
 * governors use, so the real governor sources from the kernel tree can be
 * compiled on the host and replayed side by side with rteo.
 */
#ifndef PARITY_LINUX_KERNEL_H
#define PARITY_LINUX_KERNEL_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

typedef int64_t s64;
typedef uint64_t u64;
typedef int32_t s32;
typedef uint32_t u32;
typedef s64 ktime_t;

#define S64_MAX		INT64_MAX
#define KTIME_MAX	S64_MAX
#define NSEC_PER_USEC	1000L
#define NSEC_PER_SEC	1000000000L
#define BIT(n)		(1UL << (n))

#ifndef HZ
#define HZ 250
#endif
#define TICK_NSEC	((NSEC_PER_SEC + HZ / 2) / HZ)

#define __init
#define unlikely(x)	(x)
#define likely(x)	(x)

/* What menu.c uses on top of teo.c. */
#define U64_MAX		UINT64_MAX
#define UINT_MAX	UINT32_MAX
#define min(a, b)	((a) < (b) ? (a) : (b))
#define div_u64(a, b)	((u64)(a) / (u32)(b))
#define div64_u64(a, b)	((u64)(a) / (u64)(b))
#define do_div(n, base)	({ u32 __rem = (n) % (base); (n) /= (base); __rem; })
#define ktime_to_us(t)	((s64)(t) / NSEC_PER_USEC)
#define per_cpu(var, cpu)	(*((void)(cpu), &(var)))

/* One CPU: per-CPU variables are plain variables. */
#define DEFINE_PER_CPU(type, name)	type name
#define this_cpu_ptr(ptr)		(ptr)
#define per_cpu_ptr(ptr, cpu)		((void)(cpu), (ptr))

/* The harness calls the governor's initcall itself. */
#define postcore_initcall(fn)		int (*parity_initcall)(void) = fn

#endif
