/* SPDX-License-Identifier: MIT */
/*
 * Fallback for architectures without a hand-rolled header: GCC's atomic
 * builtins.  Results say "generic" so nobody mistakes them for per-arch asm.
 */
#ifndef MMT_ARCH_BARRIER_GENERIC_H
#define MMT_ARCH_BARRIER_GENERIC_H

#include <time.h>

#define MMT_ARCH_NAME "generic"

#define smp_mb() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define smp_mb_fence() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define smp_rmb() __atomic_thread_fence(__ATOMIC_ACQUIRE)
#define smp_wmb() __atomic_thread_fence(__ATOMIC_RELEASE)
#define smp_store_release(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define smp_load_acquire(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define cpu_relax() barrier()

static inline uint64_t mmt_cycles(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline uint64_t mmt_cycles_unordered(void)
{
	return mmt_cycles();
}

#endif
