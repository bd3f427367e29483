/* SPDX-License-Identifier: MIT */
/*
 * x86-64 is TSO: loads are not reordered with loads, stores not with
 * stores, and a load may pass an earlier store to another location (the
 * store buffer).  So smp_rmb/smp_wmb and acquire/release need only stop
 * the compiler; only smp_mb must drain the store buffer.
 *
 * smp_mb uses a locked add to the stack, as the kernel has since 4.15:
 * any locked instruction is a full barrier for ordinary memory and is
 * several times cheaper than mfence on current cores.  The red zone is
 * 128 bytes below %rsp, so -4(%rsp) touches a line that is already hot
 * and never shared.
 */
#ifndef MMT_ARCH_BARRIER_X86_64_H
#define MMT_ARCH_BARRIER_X86_64_H

#define MMT_ARCH_NAME "x86_64"

#define smp_mb() __asm__ __volatile__("lock; addl $0,-4(%%rsp)" ::: "memory", "cc")
#define smp_mb_fence() __asm__ __volatile__("mfence" ::: "memory")
#define smp_rmb() barrier()
#define smp_wmb() barrier()

#define smp_store_release(p, v)                                                \
	do {                                                                   \
		barrier();                                                     \
		WRITE_ONCE(*(p), (v));                                         \
	} while (0)

#define smp_load_acquire(p)                                                    \
	({                                                                     \
		__typeof__(*(p)) ___v = READ_ONCE(*(p));                       \
		barrier();                                                     \
		___v;                                                          \
	})

#define cpu_relax() __asm__ __volatile__("pause" ::: "memory")

/* rdtscp waits for earlier instructions to execute, so a timestamp taken
 * after a spin loop exits is not speculated ahead of the load that ended it. */
static inline uint64_t mmt_cycles(void)
{
	uint32_t lo, hi, aux;

	__asm__ __volatile__("rdtscp" : "=a"(lo), "=d"(hi), "=c"(aux));
	return ((uint64_t)hi << 32) | lo;
}

/* rdtsc waits for nothing: a loop waiting for a start time with it lets
 * the loads issued before it stay in flight (litmus's tsc slots). */
static inline uint64_t mmt_cycles_unordered(void)
{
	uint32_t lo, hi;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

#endif
