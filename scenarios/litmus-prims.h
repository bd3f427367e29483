/* SPDX-License-Identifier: MIT */
/*
 * The kernel primitives a litmus thread calls, bound for each primitive set:
 *   LK_KERNEL         hand-rolled per-arch asm (harness/arch/), x86 RMWs as
 *                     the kernel writes them (xchg, lock xadd, lock cmpxchg)
 *   LK_KERNEL_MFENCE  the same, smp_mb() as the fence instruction
 *   LK_URCU           liburcu: CMM_*_SHARED, cmm_smp_*, uatomic_*, and the
 *                     memb flavour's rcu_read_lock / synchronize_rcu
 *   LK_C11            C11 atomics and fences
 * P is a compile-time constant in every use (the generator emits one body
 * per set), so each chain of ifs folds to one primitive.
 *
 * Orderings (LK_O_*): the LKMM's value-returning RMWs are fully ordered,
 * their _relaxed/_acquire/_release forms weaker, and void RMWs
 * (atomic_inc) unordered.  Where a set has nothing weaker than full
 * (x86's locked instructions, liburcu 0.13's uatomic_*), the stronger
 * binding is used: a weaker ordering is permission, never an obligation.
 * A fully ordered RMW orders plain accesses on both sides, which one
 * seq_cst C11 RMW does not, so outside x86 it is fence, RMW, fence.
 *
 * A deliberately weakened set (LK_WEAK_*, tests/litmus-prims.sh) replaces
 * one primitive with a non-atomic or unordered one, to prove that the
 * tests relying on it can fail (LK_WEAK_C11: every C11 memory order
 * relaxed, in every set).
 */
#ifndef MMT_LITMUS_PRIMS_H
#define MMT_LITMUS_PRIMS_H

enum { LK_KERNEL, LK_KERNEL_MFENCE, LK_URCU, LK_C11, LK_NR_PRIMS };
enum { LK_O_NONE, LK_O_RELAXED, LK_O_ACQUIRE, LK_O_RELEASE, LK_O_FULL };

#define LK_IS_KERNEL(P) ((P) == LK_KERNEL || (P) == LK_KERNEL_MFENCE)
#define LK_ATOMIC(p) ((_Atomic uint64_t *)(p))

/* ---- loads, stores, fences ------------------------------------------------- */
#define LK_WRITE_ONCE(P, p, v)                                                 \
	do {                                                                   \
		if ((P) == LK_URCU)                                            \
			CMM_STORE_SHARED(*(p), (v));                           \
		else if ((P) == LK_C11)                                        \
			atomic_store_explicit(LK_ATOMIC(p), (v), memory_order_relaxed); \
		else                                                           \
			WRITE_ONCE(*(p), (v));                                 \
	} while (0)
#define LK_READ_ONCE(P, p)                                                     \
	((P) == LK_URCU ? CMM_LOAD_SHARED(*(p))                                \
	 : (P) == LK_C11 ? atomic_load_explicit(LK_ATOMIC(p), memory_order_relaxed) \
			 : READ_ONCE(*(p)))
/* liburcu 0.13 has no store-release or load-acquire: its idiom is a full
 * barrier next to the CMM_*_SHARED access. */
#define LK_STORE_RELEASE(P, p, v)                                              \
	do {                                                                   \
		if ((P) == LK_URCU) {                                          \
			cmm_smp_mb();                                          \
			CMM_STORE_SHARED(*(p), (v));                           \
		} else if ((P) == LK_C11) {                                    \
			atomic_store_explicit(LK_ATOMIC(p), (v), memory_order_release); \
		} else {                                                       \
			smp_store_release((p), (v));                           \
		}                                                              \
	} while (0)
#define LK_LOAD_ACQUIRE(P, p)                                                  \
	({                                                                     \
		uint64_t __lk_v;                                               \
		if ((P) == LK_URCU) {                                          \
			__lk_v = CMM_LOAD_SHARED(*(p));                        \
			cmm_smp_mb();                                          \
		} else if ((P) == LK_C11) {                                    \
			__lk_v = atomic_load_explicit(LK_ATOMIC(p), memory_order_acquire); \
		} else {                                                       \
			__lk_v = smp_load_acquire(p);                          \
		}                                                              \
		__lk_v;                                                        \
	})
#define LK_MB(P)                                                               \
	do {                                                                   \
		if ((P) == LK_URCU)                                            \
			cmm_smp_mb();                                          \
		else if ((P) == LK_C11)                                        \
			atomic_thread_fence(memory_order_seq_cst);             \
		else if ((P) == LK_KERNEL_MFENCE)                              \
			smp_mb_fence();                                        \
		else                                                           \
			smp_mb();                                              \
	} while (0)
#define LK_RMB(P)                                                              \
	do {                                                                   \
		if ((P) == LK_URCU)                                            \
			cmm_smp_rmb();                                         \
		else if ((P) == LK_C11)                                        \
			atomic_thread_fence(memory_order_acquire);             \
		else                                                           \
			smp_rmb();                                             \
	} while (0)
#define LK_WMB(P)                                                              \
	do {                                                                   \
		if ((P) == LK_URCU)                                            \
			cmm_smp_wmb();                                         \
		else if ((P) == LK_C11)                                        \
			atomic_thread_fence(memory_order_release);             \
		else                                                           \
			smp_wmb();                                             \
	} while (0)
/* smp_store_mb(*p, v): WRITE_ONCE then smp_mb, as linux-kernel.def
 * expands it (__store{once}; __fence{mb}), in every set: the set's
 * WRITE_ONCE and full fence (x86's kernel uses one xchg, which is both).
 * Weakened (LK_WEAK_STORE_MB): the store alone. */
#ifdef LK_WEAK_STORE_MB
#define LK_STORE_MB(P, p, v) LK_WRITE_ONCE(P, p, v)
#else
#define LK_STORE_MB(P, p, v)                                                   \
	do {                                                                   \
		LK_WRITE_ONCE(P, p, v);                                        \
		LK_MB(P);                                                      \
	} while (0)
#endif
/* rcu_dereference: an address-dependency-ordered load. */
#define LK_RCU_DEREF(P, p)                                                     \
	((P) == LK_URCU ? ({ uint64_t __lk_d = CMM_LOAD_SHARED(*(p)); cmm_smp_read_barrier_depends(); __lk_d; }) \
	 : (P) == LK_C11 ? atomic_load_explicit(LK_ATOMIC(p), memory_order_consume) \
			 : READ_ONCE(*(p)))
/* rcu_assign_pointer: a store ordered after earlier stores. */
#define LK_RCU_ASSIGN(P, p, v)                                                 \
	do {                                                                   \
		if ((P) == LK_URCU) {                                          \
			cmm_smp_wmb();                                         \
			CMM_STORE_SHARED(*(p), (v));                           \
		} else {                                                       \
			LK_STORE_RELEASE(P, p, v);                             \
		}                                                              \
	} while (0)
#define LK_PLAIN_STORE(P, p, v) (*(p) = (v))
#define LK_PLAIN_LOAD(P, p) (*(p))

/* ---- read-modify-write ------------------------------------------------------
 * Each returns the old value.  x86: every locked instruction is a full
 * barrier, so the ordering argument changes nothing there, as in the
 * kernel's arch/x86/include/asm/cmpxchg.h. */
#if defined(__x86_64__) && !defined(LK_WEAK_RMW)
static inline uint64_t lk_k_xadd(uint64_t *p, uint64_t v)
{
	__asm__ __volatile__("lock; xaddq %0, %1" : "+r"(v), "+m"(*p) :: "memory", "cc");
	return v;
}
static inline uint64_t lk_k_xchg(uint64_t *p, uint64_t v)
{
	__asm__ __volatile__("xchgq %0, %1" : "+r"(v), "+m"(*p) :: "memory");
	return v;
}
static inline uint64_t lk_k_cmpxchg(uint64_t *p, uint64_t old, uint64_t new)
{
	__asm__ __volatile__("lock; cmpxchgq %2, %1" : "+a"(old), "+m"(*p) : "r"(new) : "memory", "cc");
	return old;
}
#define LK_K_ADD(O, p, v) lk_k_xadd((p), (v))
#define LK_K_XCHG(O, p, v) lk_k_xchg((p), (v))
#define LK_K_CMPXCHG(O, p, o, n) lk_k_cmpxchg((p), (o), (n))
#define LK_K_MB_AROUND_ATOMIC() barrier()
#elif !defined(LK_WEAK_RMW)
/* Other architectures: the compiler's RMW with the kernel's order mapping
 * (full: smp_mb() on both sides of a relaxed RMW, as arm64's LL/SC
 * atomics with their trailing dmb ish). */
static inline int lk_k_order(int o)
{
	return o == LK_O_ACQUIRE ? __ATOMIC_ACQUIRE : o == LK_O_RELEASE ? __ATOMIC_RELEASE : __ATOMIC_RELAXED;
}
#define LK_K_FULL(O, EXPR)                                                     \
	({                                                                     \
		uint64_t __lk_r;                                               \
		if ((O) == LK_O_FULL)                                          \
			smp_mb();                                              \
		__lk_r = (EXPR);                                               \
		if ((O) == LK_O_FULL)                                          \
			smp_mb();                                              \
		__lk_r;                                                        \
	})
#define LK_K_ADD(O, p, v) LK_K_FULL(O, __atomic_fetch_add((p), (v), lk_k_order(O)))
#define LK_K_XCHG(O, p, v) LK_K_FULL(O, __atomic_exchange_n((p), (v), lk_k_order(O)))
#define LK_K_CMPXCHG(O, p, o, n)                                               \
	LK_K_FULL(O, ({ uint64_t __lk_o = (o);                                 \
		__atomic_compare_exchange_n((p), &__lk_o, (n), false, lk_k_order(O), __ATOMIC_RELAXED); \
		__lk_o; }))
#define LK_K_MB_AROUND_ATOMIC() smp_mb()
#else
/* The weakened binding: a load and a store, not atomic and unordered. */
#define LK_K_ADD(O, p, v) ({ uint64_t __lk_o = READ_ONCE(*(p)); WRITE_ONCE(*(p), __lk_o + (v)); __lk_o; })
#define LK_K_XCHG(O, p, v) ({ uint64_t __lk_o = READ_ONCE(*(p)); WRITE_ONCE(*(p), (v)); __lk_o; })
#define LK_K_CMPXCHG(O, p, o, n) ({ uint64_t __lk_o = READ_ONCE(*(p)); if (__lk_o == (o)) WRITE_ONCE(*(p), (n)); __lk_o; })
#define LK_K_MB_AROUND_ATOMIC() barrier()
#endif

static inline memory_order lk_c11_order(int o)
{
	return o == LK_O_ACQUIRE ? memory_order_acquire : o == LK_O_RELEASE ? memory_order_release : memory_order_relaxed;
}
#define LK_C11_FULL(O, EXPR)                                                   \
	({                                                                     \
		uint64_t __lk_r;                                               \
		if ((O) == LK_O_FULL)                                          \
			atomic_thread_fence(memory_order_seq_cst);             \
		__lk_r = (EXPR);                                               \
		if ((O) == LK_O_FULL)                                          \
			atomic_thread_fence(memory_order_seq_cst);             \
		__lk_r;                                                        \
	})

/* liburcu: uatomic_add_return, uatomic_xchg and uatomic_cmpxchg imply full
 * barriers; uatomic_add (void) implies none. */
#define LK_RMW_ADD(P, O, p, v)                                                 \
	((P) == LK_URCU ? ((O) == LK_O_NONE ? (uatomic_add((p), (v)), (uint64_t)0) \
				: uatomic_add_return((p), (v)) - (v))          \
	 : (P) == LK_C11 ? LK_C11_FULL(O, atomic_fetch_add_explicit(LK_ATOMIC(p), (v), lk_c11_order(O))) \
			 : LK_K_ADD(O, p, v))
#define LK_RMW_XCHG(P, O, p, v)                                                \
	((P) == LK_URCU ? uatomic_xchg((p), (v))                               \
	 : (P) == LK_C11 ? LK_C11_FULL(O, atomic_exchange_explicit(LK_ATOMIC(p), (v), lk_c11_order(O))) \
			 : LK_K_XCHG(O, p, v))
#define LK_RMW_CMPXCHG(P, O, p, o, n)                                          \
	((P) == LK_URCU ? uatomic_cmpxchg((p), (o), (n))                       \
	 : (P) == LK_C11 ? LK_C11_FULL(O, ({ uint64_t __lk_e = (o);            \
		atomic_compare_exchange_strong_explicit(LK_ATOMIC(p), &__lk_e, (n), \
			lk_c11_order(O) == memory_order_release ? memory_order_release : lk_c11_order(O), \
			memory_order_relaxed); __lk_e; }))                      \
			 : LK_K_CMPXCHG(O, p, o, n))
/* atomic_add_unless(p, a, u): add a unless *p == u; fully ordered when it adds. */
#define LK_ADD_UNLESS(P, p, a, u)                                              \
	({                                                                     \
		uint64_t __lk_c = LK_READ_ONCE(P, p), __lk_seen;               \
		while (__lk_c != (uint64_t)(u) &&                              \
		       (__lk_seen = LK_RMW_CMPXCHG(P, LK_O_FULL, p, __lk_c, __lk_c + (a))) != __lk_c) \
			__lk_c = __lk_seen;                                    \
		__lk_c != (uint64_t)(u);                                       \
	})
#define LK_MB_BEFORE_ATOMIC(P)                                                 \
	do {                                                                   \
		if ((P) == LK_URCU)                                            \
			cmm_smp_mb__before_uatomic_add();                      \
		else if ((P) == LK_C11)                                        \
			atomic_thread_fence(memory_order_seq_cst);             \
		else                                                           \
			LK_K_MB_AROUND_ATOMIC();                               \
	} while (0)
#define LK_MB_AFTER_ATOMIC(P)                                                  \
	do {                                                                   \
		if ((P) == LK_URCU)                                            \
			cmm_smp_mb__after_uatomic_add();                       \
		else if ((P) == LK_C11)                                        \
			atomic_thread_fence(memory_order_seq_cst);             \
		else                                                           \
			LK_K_MB_AROUND_ATOMIC();                               \
	} while (0)

/* ---- herd7's C11 dialect ----------------------------------------------------
 * atomic_load/store/exchange/fetch_OP/compare_exchange(_explicit) and
 * atomic_thread_fence with their memory_order_* (LK_MO_*, a compile-time
 * constant in every use).  The c11 set is the compiler's own C11, order
 * for order (consume as acquire, as compilers take it).  The others, each
 * binding at least as strong as C11 asks:
 *
 *   order     kernel, kernel-mfence              urcu
 *   load
 *    relaxed  READ_ONCE                          CMM_LOAD_SHARED
 *    consume,
 *    acquire  smp_load_acquire                   load; cmm_smp_mb
 *    seq_cst  smp_load_acquire (x86, arm64);     cmm_smp_mb; load; cmm_smp_mb
 *             smp_mb; smp_load_acquire elsewhere
 *   store
 *    relaxed  WRITE_ONCE                         CMM_STORE_SHARED
 *    release  smp_store_release                  cmm_smp_mb; store
 *    seq_cst  smp_store_release; smp_mb          cmm_smp_mb; store; cmm_smp_mb
 *   RMW       LK_RMW_* with relaxed, acquire (consume, acquire), release, or
 *             full (acq_rel, seq_cst): x86 locked instructions whatever the
 *             order; elsewhere the compiler's RMW of that order, full as
 *             smp_mb; relaxed RMW; smp_mb.  urcu: uatomic_* (all full).
 *             fetch_or/and/xor: a loop of that order's cmpxchg (as the
 *             kernel's arch_atomic_fetch_or on x86).
 *   fence
 *    relaxed  nothing                            nothing
 *    consume,
 *    acquire  smp_rmb                            cmm_smp_mb
 *    others   smp_mb (mfence in kernel-mfence)   cmm_smp_mb
 *   orders C11 forbids there, which herd7 reads (litmus2c passes each on
 *   as the order herd7's c11_base.cat and rc11.cat make of it, prims.py
 *   LOAD_HERD ...; the binding is then that order's, in every set):
 *    load release      relaxed   (synchronizes-with begins at a write)
 *    load acq_rel      acquire
 *    store consume,
 *    store acquire     relaxed   (synchronizes-with ends at a read)
 *    store acq_rel     release
 *    compare_exchange failure release: relaxed, acq_rel: acquire
 *
 * Why the kernel set's seq_cst is enough: x86 (TSO) reorders only a store
 * with a later load, and every seq_cst store ends with the full fence, so
 * seq_cst loads can be plain movs (the compilers' mapping: mov; mfence).
 * arm64's smp_load_acquire/smp_store_release are ldar/stlr, which are
 * RCsc: an ldar after an stlr is ordered (the compilers' mapping; the
 * fence after the store is only stronger).  Elsewhere (barrier-generic.h)
 * the loads get a leading full fence too, so a full fence separates
 * every seq_cst access from any other.  acquire fence = smp_rmb: a compiler
 * barrier on TSO, dmb ishld on arm64 (orders earlier loads against later
 * loads and stores), an acquire fence in barrier-generic.h.  A release
 * fence must also order earlier loads against later stores, which
 * arm64's smp_wmb (dmb ishst) does not: it is smp_mb.
 *
 * compare_exchange(object, expected, desired): reads *expected (a plain
 * load), and on failure writes the value seen back to it (a plain store),
 * as C11 and herd7 do; returns 1 or 0.  expected may be '&REG', a
 * register of the thread (ExpctReg of the c4 herdtools7 fork): the register's own local,
 * read and, on failure, written the same way.  The failure order only adds: in
 * the kernel set a non-relaxed failure order makes the RMW full (a failed
 * LL/SC cmpxchg is otherwise a relaxed load); in the c11 set the success
 * order is raised to cover it (C11 7.17.7.4: no weaker than failure).
 * _weak is bound as _strong: a spurious failure is a permission C11
 * gives, never an obligation.  Weakened (LK_WEAK_C11): every order
 * relaxed. */
enum { LK_MO_RELAXED, LK_MO_CONSUME, LK_MO_ACQUIRE, LK_MO_RELEASE, LK_MO_ACQ_REL, LK_MO_SEQ_CST };
#ifdef LK_WEAK_C11
#define LK_MO(o) ((void)(o), LK_MO_RELAXED)
#else
#define LK_MO(o) (o)
#endif
static inline memory_order lk_mo_c11(int o)
{
	switch (o) {
	case LK_MO_RELAXED: return memory_order_relaxed;
	case LK_MO_CONSUME:
	case LK_MO_ACQUIRE: return memory_order_acquire;
	case LK_MO_RELEASE: return memory_order_release;
	case LK_MO_ACQ_REL: return memory_order_acq_rel;
	default: return memory_order_seq_cst;
	}
}
/* a success order that also covers the failure order f */
static inline int lk_mo_cas(int s, int f)
{
	if (f == LK_MO_SEQ_CST)
		return LK_MO_SEQ_CST;
	if (f == LK_MO_RELAXED || s == LK_MO_ACQUIRE || s == LK_MO_ACQ_REL || s == LK_MO_SEQ_CST)
		return s;
	return s == LK_MO_RELEASE ? LK_MO_ACQ_REL : LK_MO_ACQUIRE;
}
/* the LK_O_* argument of LK_RMW_* for a C11 order (kernel and urcu sets) */
#define LK_MO_O(o)                                                             \
	((o) == LK_MO_RELAXED ? LK_O_RELAXED                                   \
	 : (o) == LK_MO_CONSUME || (o) == LK_MO_ACQUIRE ? LK_O_ACQUIRE         \
	 : (o) == LK_MO_RELEASE ? LK_O_RELEASE : LK_O_FULL)
#if defined(__x86_64__) || defined(__aarch64__)
#define LK_K_SC_LOAD_FENCE(P) barrier()
#else
#define LK_K_SC_LOAD_FENCE(P) LK_MB(P)
#endif

#define LK_C11_LOAD(P, o, p)                                                   \
	({                                                                     \
		uint64_t __lk_cv;                                              \
		if ((P) == LK_C11) {                                           \
			__lk_cv = atomic_load_explicit(LK_ATOMIC(p), lk_mo_c11(LK_MO(o))); \
		} else if (LK_MO(o) == LK_MO_RELAXED) {                        \
			__lk_cv = LK_READ_ONCE(P, p);                          \
		} else if (LK_MO(o) != LK_MO_SEQ_CST) {                        \
			__lk_cv = LK_LOAD_ACQUIRE(P, p);                       \
		} else if ((P) == LK_URCU) {                                   \
			cmm_smp_mb();                                          \
			__lk_cv = LK_LOAD_ACQUIRE(P, p);                       \
		} else {                                                       \
			LK_K_SC_LOAD_FENCE(P);                                 \
			__lk_cv = LK_LOAD_ACQUIRE(P, p);                       \
		}                                                              \
		__lk_cv;                                                       \
	})
#define LK_C11_STORE(P, o, p, v)                                               \
	do {                                                                   \
		uint64_t __lk_cw = (v);                                        \
		if ((P) == LK_C11) {                                           \
			atomic_store_explicit(LK_ATOMIC(p), __lk_cw, lk_mo_c11(LK_MO(o))); \
		} else if (LK_MO(o) == LK_MO_RELAXED) {                        \
			LK_WRITE_ONCE(P, p, __lk_cw);                          \
		} else {                                                       \
			LK_STORE_RELEASE(P, p, __lk_cw);                       \
			if (LK_MO(o) == LK_MO_SEQ_CST)                         \
				LK_MB(P);                                      \
		}                                                              \
	} while (0)
#define LK_C11_FENCE(P, o)                                                     \
	do {                                                                   \
		if (LK_MO(o) == LK_MO_RELAXED)                                 \
			barrier();                                             \
		else if ((P) == LK_C11)                                        \
			atomic_thread_fence(lk_mo_c11(LK_MO(o)));              \
		else if ((P) == LK_URCU)                                       \
			cmm_smp_mb();                                          \
		else if (LK_MO(o) == LK_MO_CONSUME || LK_MO(o) == LK_MO_ACQUIRE) \
			smp_rmb();                                             \
		else                                                           \
			LK_MB(P);                                              \
	} while (0)
#define LK_C11_XCHG(P, o, p, v)                                                \
	((P) == LK_C11 ? atomic_exchange_explicit(LK_ATOMIC(p), (v), lk_mo_c11(LK_MO(o))) \
		       : LK_RMW_XCHG(P, LK_MO_O(LK_MO(o)), p, v))
/* fetch_OP: OP one of add sub or and xor */
#define LK_C11_OP_add +
#define LK_C11_OP_sub -
#define LK_C11_OP_or |
#define LK_C11_OP_and &
#define LK_C11_OP_xor ^
#define LK_C11_LOOP(P, O, p, v, OP)                                            \
	({                                                                     \
		uint64_t __lk_cc = LK_READ_ONCE(P, p), __lk_cs, __lk_ca = (v); \
		while ((__lk_cs = LK_RMW_CMPXCHG(P, O, p, __lk_cc, __lk_cc LK_C11_OP_##OP __lk_ca)) != __lk_cc) \
			__lk_cc = __lk_cs;                                     \
		__lk_cc;                                                       \
	})
#define LK_C11_RMW_add(P, O, p, v) LK_RMW_ADD(P, O, p, v)
#define LK_C11_RMW_sub(P, O, p, v) LK_RMW_ADD(P, O, p, -(uint64_t)(v))
#define LK_C11_RMW_or(P, O, p, v) LK_C11_LOOP(P, O, p, v, or)
#define LK_C11_RMW_and(P, O, p, v) LK_C11_LOOP(P, O, p, v, and)
#define LK_C11_RMW_xor(P, O, p, v) LK_C11_LOOP(P, O, p, v, xor)
#define LK_C11_FETCH(P, o, OP, p, v)                                           \
	((P) == LK_C11 ? atomic_fetch_##OP##_explicit(LK_ATOMIC(p), (v), lk_mo_c11(LK_MO(o))) \
		       : LK_C11_RMW_##OP(P, LK_MO_O(LK_MO(o)), p, v))
#define LK_C11_CAS(P, s, f, p, e, d)                                           \
	({                                                                     \
		uint64_t *__lk_ce = (e);                                       \
		uint64_t __lk_cx = LK_PLAIN_LOAD(P, __lk_ce), __lk_cd = (d), __lk_co = __lk_cx; \
		bool __lk_ok;                                                  \
		if ((P) == LK_C11) {                                           \
			__lk_ok = atomic_compare_exchange_strong_explicit(LK_ATOMIC(p), &__lk_co, __lk_cd, \
				lk_mo_c11(lk_mo_cas(LK_MO(s), LK_MO(f))), lk_mo_c11(LK_MO(f))); \
		} else {                                                       \
			__lk_co = LK_RMW_CMPXCHG(P, LK_MO(f) == LK_MO_RELAXED ? LK_MO_O(LK_MO(s)) : LK_O_FULL, \
						 p, __lk_cx, __lk_cd);        \
			__lk_ok = __lk_co == __lk_cx;                          \
		}                                                              \
		if (!__lk_ok)                                                  \
			LK_PLAIN_STORE(P, __lk_ce, __lk_co);                   \
		(uint64_t)__lk_ok;                                             \
	})

/* ---- spinlocks -----------------------------------------------------------------
 * A test-and-set lock on the location (0 free, 1 held): acquire by an
 * acquire exchange, spinning on plain loads while held; release by a
 * release store.  liburcu has no spinlock of its own: uatomic_xchg (full)
 * and a full barrier before the releasing store. */
#ifdef LK_WEAK_LOCK
#define LK_SPIN_TRYLOCK(P, p) 1
#define LK_SPIN_LOCK(P, p) barrier()
#define LK_SPIN_UNLOCK(P, p) barrier()
#else
#define LK_SPIN_TRYLOCK(P, p) (LK_RMW_XCHG(P, LK_O_ACQUIRE, p, 1) == 0)
#define LK_SPIN_LOCK(P, p)                                                     \
	do {                                                                   \
		while (!LK_SPIN_TRYLOCK(P, p))                                 \
			while (LK_READ_ONCE(P, p))                             \
				cpu_relax();                                   \
	} while (0)
#define LK_SPIN_UNLOCK(P, p) LK_STORE_RELEASE(P, p, 0)
#endif
#define LK_SPIN_IS_LOCKED(P, p) (LK_READ_ONCE(P, p) != 0)
/* The kernel: a no-op on x86, whose lock acquisition is a locked RMW and
 * so already a full barrier; smp_mb() elsewhere. */
#define LK_MB_AFTER_SPINLOCK(P)                                                \
	do {                                                                   \
		if ((P) == LK_URCU)                                            \
			cmm_smp_mb();                                          \
		else if ((P) == LK_C11)                                        \
			atomic_thread_fence(memory_order_seq_cst);             \
		else                                                           \
			LK_K_MB_AROUND_ATOMIC();                               \
	} while (0)

/* smp_mb__after_unlock_lock(): the LKMM makes an unlock followed by a lock
 * a full barrier with it; a full fence is that and more, in every set.
 * Weakened with the locks (LK_WEAK_LOCK): nothing. */
#ifdef LK_WEAK_LOCK
#define LK_MB_AFTER_UNLOCK_LOCK(P) barrier()
#else
#define LK_MB_AFTER_UNLOCK_LOCK(P) LK_MB(P)
#endif

/* ---- RCU --------------------------------------------------------------------------
 * urcu: the memb flavour (the threads of an RCU test register with it).
 * kernel and c11: a minimal RCU of the engine's own, urcu-mb's algorithm:
 * a reader publishes an odd per-thread sequence number, then a full
 * fence; it ends with a full fence and a zero.  synchronize_rcu fences,
 * waits for every other thread's odd number seen at that moment to
 * change, and fences again: a critical section that could have missed the
 * updater's earlier stores has ended before the updater goes on. */
struct lk_rcu_reader {
	uint64_t ctr, seq, nest;
} __mmt_aligned;

#define LK_FULL_FENCE(P)                                                       \
	do {                                                                   \
		if ((P) == LK_C11)                                             \
			atomic_thread_fence(memory_order_seq_cst);             \
		else                                                           \
			smp_mb();                                              \
	} while (0)
#ifdef LK_WEAK_RCU
#define LK_RCU_READ_LOCK(P) barrier()
#define LK_RCU_READ_UNLOCK(P) barrier()
#define LK_SYNCHRONIZE_RCU(P) barrier()
#else
#define LK_RCU_READ_LOCK(P)                                                    \
	do {                                                                   \
		struct lk_rcu_reader *__lk_me = &lk_c->rcu[lk_t];              \
		if ((P) == LK_URCU) {                                          \
			urcu_memb_read_lock();                                 \
		} else if (!__lk_me->nest++) {                                 \
			__lk_me->seq += 2;                                     \
			LK_WRITE_ONCE(LK_KERNEL, &__lk_me->ctr, __lk_me->seq | 1); \
			LK_FULL_FENCE(P);                                      \
		}                                                              \
	} while (0)
#define LK_RCU_READ_UNLOCK(P)                                                  \
	do {                                                                   \
		struct lk_rcu_reader *__lk_me = &lk_c->rcu[lk_t];              \
		if ((P) == LK_URCU) {                                          \
			urcu_memb_read_unlock();                               \
		} else if (!--__lk_me->nest) {                                 \
			LK_FULL_FENCE(P);                                      \
			LK_WRITE_ONCE(LK_KERNEL, &__lk_me->ctr, 0);            \
		}                                                              \
	} while (0)
#define LK_SYNCHRONIZE_RCU(P)                                                  \
	do {                                                                   \
		if ((P) == LK_URCU) {                                          \
			urcu_memb_synchronize_rcu();                           \
		} else {                                                       \
			LK_FULL_FENCE(P);                                      \
			for (unsigned __lk_k = 0; __lk_k < lk_c->nthreads; __lk_k++) { \
				uint64_t __lk_s = LK_READ_ONCE(LK_KERNEL, &lk_c->rcu[__lk_k].ctr); \
				if (__lk_k == lk_t || !(__lk_s & 1))           \
					continue;                              \
				while (LK_READ_ONCE(LK_KERNEL, &lk_c->rcu[__lk_k].ctr) == __lk_s) \
					cpu_relax();                           \
			}                                                      \
			LK_FULL_FENCE(P);                                      \
		}                                                              \
	} while (0)
#endif

/* ---- SRCU -------------------------------------------------------------------------
 * In every set the engine's own (liburcu has no SRCU), RCU's algorithm
 * per srcu_struct: thread t counts its open read sections in word 1 + t
 * of the srcu_struct location's line (a location has a line of its own
 * every iteration, so at most 7 threads: litmus2c refuses more), under
 * the set's full fence (smp_mb, cmm_smp_mb, a seq_cst fence) after the
 * count goes up and before it goes down.  synchronize_srcu fences, waits
 * until every other thread's count is 0, and fences again: a section that
 * could have missed the updater's earlier stores has ended before the
 * updater goes on (it also waits for sections begun since, which is only
 * stronger, and a litmus thread cannot wait on anything inside one).
 * The index srcu_read_lock returns is 0.
 *
 * srcu_down_read() and srcu_up_read() are a read section that may end on
 * another thread: down counts in the downer's word and returns its thread
 * number as the index, up takes the count back out of the word the index
 * names (modulo the thread count: a garbage index cannot leave the line).
 * Two threads may change one word, so these two count with atomic adds
 * (relaxed, under the same fences); litmus2c refuses a test that mixes
 * them with srcu_read_lock(), whose counts are plain stores. */
#define LK_SRCU_FENCE(P)                                                       \
	do {                                                                   \
		if ((P) == LK_URCU)                                            \
			cmm_smp_mb();                                          \
		else                                                           \
			LK_FULL_FENCE(P);                                      \
	} while (0)
#define LK_SRCU_COUNT(s, t) ((uint64_t *)(s) + 1 + (t))
/* smp_mb__after_srcu_read_unlock(): srcu_read_unlock() and it are a full
 * barrier in the LKMM; a full fence, weakened with SRCU (nothing). */
#ifdef LK_WEAK_SRCU
#define LK_MB_AFTER_SRCU_READ_UNLOCK(P) barrier()
#else
#define LK_MB_AFTER_SRCU_READ_UNLOCK(P) LK_MB(P)
#endif
#ifdef LK_WEAK_SRCU
#define LK_SRCU_READ_LOCK(P, s) ({ (void)(s); barrier(); (uint64_t)0; })
#define LK_SRCU_READ_UNLOCK(P, s, idx) do { (void)(s); (void)(idx); barrier(); } while (0)
#define LK_SYNCHRONIZE_SRCU(P, s) do { (void)(s); barrier(); } while (0)
#define LK_SRCU_DOWN_READ(P, s) ({ (void)(s); barrier(); (uint64_t)lk_t; })
#define LK_SRCU_UP_READ(P, s, idx) do { (void)(s); (void)(idx); barrier(); } while (0)
#else
#define LK_SRCU_READ_LOCK(P, s)                                                \
	({                                                                     \
		uint64_t *__lk_n = LK_SRCU_COUNT(s, lk_t);                     \
		LK_WRITE_ONCE(LK_KERNEL, __lk_n, *__lk_n + 1);                 \
		LK_SRCU_FENCE(P);                                              \
		(uint64_t)0;                                                   \
	})
#define LK_SRCU_READ_UNLOCK(P, s, idx)                                         \
	do {                                                                   \
		uint64_t *__lk_n = LK_SRCU_COUNT(s, lk_t);                     \
		(void)(idx);                                                   \
		LK_SRCU_FENCE(P);                                              \
		LK_WRITE_ONCE(LK_KERNEL, __lk_n, *__lk_n - 1);                 \
	} while (0)
#define LK_SRCU_DOWN_READ(P, s)                                                \
	({                                                                     \
		__atomic_fetch_add(LK_SRCU_COUNT(s, lk_t), 1, __ATOMIC_RELAXED); \
		LK_SRCU_FENCE(P);                                              \
		(uint64_t)lk_t;                                                \
	})
#define LK_SRCU_UP_READ(P, s, idx)                                             \
	do {                                                                   \
		LK_SRCU_FENCE(P);                                              \
		__atomic_fetch_sub(LK_SRCU_COUNT(s, (uint64_t)(idx) % lk_c->nthreads), 1, \
				   __ATOMIC_RELAXED);                          \
	} while (0)
#define LK_SYNCHRONIZE_SRCU(P, s)                                              \
	do {                                                                   \
		LK_SRCU_FENCE(P);                                              \
		for (unsigned __lk_k = 0; __lk_k < lk_c->nthreads; __lk_k++)   \
			while (__lk_k != lk_t && LK_READ_ONCE(LK_KERNEL, LK_SRCU_COUNT(s, __lk_k))) \
				cpu_relax();                                   \
		LK_SRCU_FENCE(P);                                              \
	} while (0)
#endif

#endif
