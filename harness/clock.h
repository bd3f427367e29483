/* SPDX-License-Identifier: MIT */
#ifndef MMT_CLOCK_H
#define MMT_CLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

static inline uint64_t mmt_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* mmt_cycles() ticks per nanosecond, measured against CLOCK_MONOTONIC. */
double mmt_cycles_per_ns(void);

/* Whether mmt_cycles() read on two CPUs can be subtracted (invariant,
 * synchronised counter): true for aarch64's virtual counter and for x86
 * with constant_tsc and nonstop_tsc.  One-way latencies need it. */
bool mmt_cycles_synchronised(void);

#endif
