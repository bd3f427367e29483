/* SPDX-License-Identifier: MIT */
/*
 * AArch64 is other-multicopy-atomic but otherwise weakly ordered: every
 * ordering must be asked for.  As the kernel does: dmb ish for smp_mb,
 * dmb ishld for smp_rmb, dmb ishst for smp_wmb, and the RCsc ldar/stlr
 * instructions for acquire and release.
 */
#ifndef MMT_ARCH_BARRIER_AARCH64_H
#define MMT_ARCH_BARRIER_AARCH64_H

#define MMT_ARCH_NAME "aarch64"

#define smp_mb() __asm__ __volatile__("dmb ish" ::: "memory")
#define smp_mb_fence() __asm__ __volatile__("dsb ish" ::: "memory")
#define smp_rmb() __asm__ __volatile__("dmb ishld" ::: "memory")
#define smp_wmb() __asm__ __volatile__("dmb ishst" ::: "memory")

#define __mmt_stlr(p, v, sfx, reg)                                             \
	__asm__ __volatile__("stlr" sfx " %" reg "1, %0"                       \
			     : "=Q"(*(p))                                      \
			     : "r"(v)                                          \
			     : "memory")
#define __mmt_ldar(p, v, sfx, reg)                                             \
	__asm__ __volatile__("ldar" sfx " %" reg "0, %1"                       \
			     : "=r"(v)                                         \
			     : "Q"(*(p))                                       \
			     : "memory")

#define smp_store_release(p, v)                                                \
	do {                                                                   \
		__typeof__(*(p)) ___v = (v);                                   \
		_Static_assert(sizeof(*(p)) == 4 || sizeof(*(p)) == 8,         \
			       "release of 4 or 8 bytes only");                \
		if (sizeof(*(p)) == 8)                                         \
			__mmt_stlr((uint64_t *)(p), (uint64_t)___v, "", "x");  \
		else                                                           \
			__mmt_stlr((uint32_t *)(p), (uint32_t)___v, "", "w");  \
	} while (0)

#define smp_load_acquire(p)                                                    \
	({                                                                     \
		_Static_assert(sizeof(*(p)) == 4 || sizeof(*(p)) == 8,         \
			       "acquire of 4 or 8 bytes only");                \
		__typeof__(*(p)) ___r;                                         \
		if (sizeof(*(p)) == 8) {                                       \
			uint64_t ___t;                                         \
			__mmt_ldar((const uint64_t *)(p), ___t, "", "x");      \
			___r = (__typeof__(*(p)))___t;                         \
		} else {                                                       \
			uint32_t ___t;                                         \
			__mmt_ldar((const uint32_t *)(p), ___t, "", "w");      \
			___r = (__typeof__(*(p)))(uintptr_t)___t;              \
		}                                                              \
		___r;                                                          \
	})

#define cpu_relax() __asm__ __volatile__("yield" ::: "memory")

/* The virtual counter is synchronised across CPUs by the architecture;
 * isb keeps it from being read ahead of earlier instructions. */
static inline uint64_t mmt_cycles(void)
{
	uint64_t v;

	__asm__ __volatile__("isb; mrs %0, cntvct_el0" : "=r"(v) :: "memory");
	return v;
}

#endif
