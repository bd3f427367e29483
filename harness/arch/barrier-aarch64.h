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

/*
 * The value travels through a union so any 4- or 8-byte scalar (integers,
 * pointers) goes through one register without type punning; the address is
 * a plain register operand and "memory" keeps the compiler from moving other
 * accesses across, as the kernel's __smp_store_release does.
 */
#define __mmt_acqrel_union(p)                                                  \
	union {                                                                \
		__typeof__(*(p)) val;                                          \
		uint64_t u64;                                                  \
		uint32_t u32;                                                  \
	}

#define smp_store_release(p, v)                                                \
	do {                                                                   \
		__mmt_acqrel_union(p) ___u = { .val = (v) };                   \
		_Static_assert(sizeof(*(p)) == 4 || sizeof(*(p)) == 8,         \
			       "release of 4 or 8 bytes only");                \
		if (sizeof(*(p)) == 8)                                         \
			__asm__ __volatile__("stlr %x1, [%0]"                  \
					     :: "r"(p), "r"(___u.u64) : "memory"); \
		else                                                           \
			__asm__ __volatile__("stlr %w1, [%0]"                  \
					     :: "r"(p), "r"(___u.u32) : "memory"); \
	} while (0)

#define smp_load_acquire(p)                                                    \
	({                                                                     \
		__mmt_acqrel_union(p) ___u;                                    \
		_Static_assert(sizeof(*(p)) == 4 || sizeof(*(p)) == 8,         \
			       "acquire of 4 or 8 bytes only");                \
		if (sizeof(*(p)) == 8)                                         \
			__asm__ __volatile__("ldar %x0, [%1]"                  \
					     : "=r"(___u.u64) : "r"(p) : "memory"); \
		else                                                           \
			__asm__ __volatile__("ldar %w0, [%1]"                  \
					     : "=r"(___u.u32) : "r"(p) : "memory"); \
		___u.val;                                                      \
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

/* Without the isb: earlier loads may still be in flight. */
static inline uint64_t mmt_cycles_unordered(void)
{
	uint64_t v;

	__asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(v));
	return v;
}

#endif
