/* SPDX-License-Identifier: MIT */
/*
 * msgpass's protocol, shared by the scenario (scenarios/msgpass.c) and its
 * ruler (bench/msgpass-bare.c, the same protocol with no harness around
 * it): the variants, the shared layout, the payload values and the
 * publication primitives.  One copy, so the ruler measures exactly what
 * the scenario runs and cannot drift from it.
 */
#ifndef MMT_MSGPASS_H
#define MMT_MSGPASS_H

#include <stdatomic.h>
/* Small liburcu functions (rcu_dereference, ...) inline, as the LGPL allows
 * for functions under ten lines: the comparison is against what the
 * library costs inline, not a call through the PLT. */
#define URCU_INLINE_SMALL_FUNCTIONS
#include <stdbool.h>
#include <stdint.h>
#include <urcu/arch.h>
#include <urcu/pointer.h>
#include <urcu/system.h>
#ifdef MMT_HAVE_CK
/* concurrencykit's fences and accesses, where configure found libck-dev;
 * the ck variants are skipped elsewhere.  The fences are inline asm
 * chosen by ck_md.h's memory model (TSO on x86-64: load and store fences
 * are compiler barriers, ck_pr_fence_memory an mfence). */
#include <ck_pr.h>
#endif

#include "arch/barrier.h"
#include "compiler.h"
#include "scenario.h"

/*
 * X(enum, name, forbidden_on, family, compares, help): the one list of
 * variants; the enum, the table and the per-variant loops come from it.
 */
#define MSGPASS_VARIANTS(X)                                                                        \
	X(PLAIN, "plain", 0, UNORDERED, NULL,                                                         \
	  "plain C stores and loads, no barriers: the compiler (and a weakly ordered CPU) may reorder") \
	X(ONCE_WMB_RMB, "once-wmb-rmb", MMT_ARCH_ALL, HAND_ROLLED, "wmb/rmb publication",              \
	  "hand-rolled WRITE_ONCE/READ_ONCE with smp_wmb() before publishing, smp_rmb() after reading") \
	X(RELEASE_ACQUIRE, "release-acquire", MMT_ARCH_ALL, HAND_ROLLED, "release/acquire publication", \
	  "hand-rolled smp_store_release()/smp_load_acquire() (stlr/ldar on aarch64)")                 \
	X(MB, "mb", MMT_ARCH_ALL, HAND_ROLLED, "full barrier both sides",                             \
	  "hand-rolled smp_mb() on both sides (x86: lock; addl, as the kernel)")                       \
	X(MB_FENCE, "mb-fence", MMT_ARCH_ALL, HAND_ROLLED, "fence instruction both sides",             \
	  "hand-rolled full fence instruction on both sides (x86 mfence, aarch64 dsb ish)")            \
	X(URCU_WMB_RMB, "urcu-wmb-rmb", MMT_ARCH_ALL, LIBURCU, "wmb/rmb publication",                  \
	  "liburcu CMM_STORE_SHARED/CMM_LOAD_SHARED with cmm_smp_wmb()/cmm_smp_rmb()")                 \
	X(URCU_RCU, "urcu-rcu", MMT_ARCH_ALL, LIBURCU, "release/acquire publication",                  \
	  "liburcu rcu_assign_pointer()/rcu_dereference() of a pointer to the payload")                \
	X(URCU_MB, "urcu-mb", MMT_ARCH_ALL, LIBURCU, "full barrier both sides",                        \
	  "liburcu cmm_smp_mb() on both sides (mfence on x86-64 in liburcu 0.13)")                     \
	X(CK_FENCE, "ck-fence", MMT_ARCH_ALL, CK, "wmb/rmb publication",                               \
	  "concurrencykit ck_pr_store_64/ck_pr_load_64 with ck_pr_fence_store() before publishing, ck_pr_fence_load() after reading") \
	X(CK_RELEASE_ACQUIRE, "ck-release-acquire", MMT_ARCH_ALL, CK, "release/acquire publication",   \
	  "concurrencykit ck_pr_fence_release() before ck_pr_store_64, ck_pr_fence_acquire() after ck_pr_load_64") \
	X(CK_FENCE_MEMORY, "ck-fence-memory", MMT_ARCH_ALL, CK, "full barrier both sides",             \
	  "concurrencykit ck_pr_fence_memory() on both sides (mfence on x86-64, dmb ish on aarch64)")  \
	X(C11_RELEASE_ACQUIRE, "c11-release-acquire", MMT_ARCH_ALL, C11, "release/acquire publication", \
	  "C11 atomic_store_explicit(release)/atomic_load_explicit(acquire)")                          \
	X(C11_SEQ_CST, "c11-seq-cst", MMT_ARCH_ALL, C11, "full barrier both sides",                    \
	  "C11 relaxed accesses with atomic_thread_fence(memory_order_seq_cst) on both sides")         \
	X(BROKEN_PUBLISH_FIRST, "broken-publish-first", 0, INJECTED, NULL,                             \
	  "fault injection: publishes before writing the payload, as a reordering would; the checker must catch it")

enum msgpass_variant { MSGPASS_VARIANTS(MMT_X_ENUM) NR_VARIANTS };

struct payload_buf {
	uint64_t seq;		/* for urcu-rcu: which message this buffer holds */
	uint64_t word[];	/* starts on the next line (see shared_size) */
};

struct shared {
	/* Publication: a message number, or for urcu-rcu a buffer pointer. */
	uint64_t token __mmt_aligned;
	struct payload_buf *ptr;
	uint64_t t_pub;		/* producer's mmt_cycles() just before publishing */
	uint64_t ack[] __mmt_aligned;	/* one padded line per consumer, see ACK() */
};

#define ACK_STRIDE (MMT_PAD_BYTES / sizeof(uint64_t))
#define ACK(s, c) ((s)->ack[(size_t)(c) * ACK_STRIDE])

static inline size_t msgpass_buf_bytes(unsigned words)
{
	/* seq on its own line, then the words, rounded up to whole lines */
	size_t b = MMT_PAD_BYTES + (size_t)words * sizeof(uint64_t);

	return (b + MMT_PAD_BYTES - 1) / MMT_PAD_BYTES * MMT_PAD_BYTES;
}

static inline size_t msgpass_header_bytes(unsigned nr_workers)
{
	return sizeof(struct shared) + (size_t)nr_workers * MMT_PAD_BYTES;
}

/* Payload value of word k of message i: decodable, so that a mismatch
 * says which message it came from. */
static inline uint64_t msgpass_value(uint64_t mix, uint64_t i, unsigned k)
{
	return ((i << 16) | k) ^ mix;
}

static inline uint64_t *words_of(struct payload_buf *b)
{
	return (uint64_t *)((char *)b + MMT_PAD_BYTES);
}

/* The words of one message, as the producer writes them. */
static inline __attribute__((always_inline)) void
msgpass_fill(unsigned words, uint64_t mix, uint64_t *w, uint64_t i)
{
	for (unsigned k = 0; k < words; k++)
		w[k] = msgpass_value(mix, i, k);
}

/* The words of a message that did not read as written, kept as read. */
struct msgpass_mismatched {
	unsigned n;
	uint16_t word[4096];
	uint64_t found[4096];
};

/* The consumer's check, the scenario's and its ruler's: each word
 * compared as it is loaded, one that mismatches kept as read (a branch
 * never taken on a clean message), so a report cannot show a fresh
 * re-read and no copy of the payload sits in the store buffer ahead of
 * the acknowledgement.  Returns how many words mismatched. */
static inline __attribute__((always_inline)) unsigned
msgpass_check(unsigned words, uint64_t mix, const uint64_t *payload, uint64_t i,
	      struct msgpass_mismatched *m)
{
	m->n = 0;
	for (unsigned k = 0; k < words; k++) {
		uint64_t x = payload[k];

		if (unlikely(x != msgpass_value(mix, i, k))) {
			m->word[m->n] = (uint16_t)k;
			m->found[m->n++] = x;
		}
	}
	return m->n;
}

/* ---- publication primitives, one per variant ---------------------------- */

static inline __attribute__((always_inline)) void
publish(const int v, struct shared *s, struct payload_buf *b, uint64_t i)
{
	switch (v) {
	case V_PLAIN:
	case V_BROKEN_PUBLISH_FIRST:
		s->token = i;
		break;
	case V_ONCE_WMB_RMB:
		smp_wmb();
		WRITE_ONCE(s->token, i);
		break;
	case V_RELEASE_ACQUIRE:
		smp_store_release(&s->token, i);
		break;
	case V_MB:
		smp_mb();
		WRITE_ONCE(s->token, i);
		break;
	case V_MB_FENCE:
		smp_mb_fence();
		WRITE_ONCE(s->token, i);
		break;
	case V_URCU_WMB_RMB:
		cmm_smp_wmb();
		CMM_STORE_SHARED(s->token, i);
		break;
	case V_URCU_RCU:
		b->seq = i;
		rcu_assign_pointer(s->ptr, b);
		break;
	case V_URCU_MB:
		cmm_smp_mb();
		CMM_STORE_SHARED(s->token, i);
		break;
#ifdef MMT_HAVE_CK
	case V_CK_FENCE:
		ck_pr_fence_store();
		ck_pr_store_64(&s->token, i);
		break;
	case V_CK_RELEASE_ACQUIRE:
		ck_pr_fence_release();
		ck_pr_store_64(&s->token, i);
		break;
	case V_CK_FENCE_MEMORY:
		ck_pr_fence_memory();
		ck_pr_store_64(&s->token, i);
		break;
#endif
	case V_C11_RELEASE_ACQUIRE:
		atomic_store_explicit((_Atomic uint64_t *)&s->token, i, memory_order_release);
		break;
	case V_C11_SEQ_CST:
		atomic_thread_fence(memory_order_seq_cst);
		atomic_store_explicit((_Atomic uint64_t *)&s->token, i, memory_order_relaxed);
		break;
	}
}

/* True once message i is published; afterwards payload reads are ordered
 * after the read of the publication (or, for the broken ones, are not). */
static inline __attribute__((always_inline)) bool
published(const int v, struct shared *s, struct payload_buf *b, uint64_t i)
{
	switch (v) {
	case V_PLAIN:
	case V_BROKEN_PUBLISH_FIRST:
		/* The compiler barrier only makes the spin re-read the token
		 * (as the kernel's cpu_relax() would); it orders nothing on
		 * the CPU, and the payload loads may still be hoisted. */
		barrier();
		return s->token == i;
	case V_ONCE_WMB_RMB:
		if (READ_ONCE(s->token) != i)
			return false;
		smp_rmb();
		return true;
	case V_RELEASE_ACQUIRE:
		return smp_load_acquire(&s->token) == i;
	case V_MB:
		if (READ_ONCE(s->token) != i)
			return false;
		smp_mb();
		return true;
	case V_MB_FENCE:
		if (READ_ONCE(s->token) != i)
			return false;
		smp_mb_fence();
		return true;
	case V_URCU_WMB_RMB:
		if (CMM_LOAD_SHARED(s->token) != i)
			return false;
		cmm_smp_rmb();
		return true;
	case V_URCU_RCU: {
		/* Buffers alternate, so the pointer changes with every message;
		 * its seq, read through the dependency, names the message. */
		struct payload_buf *p = rcu_dereference(s->ptr);

		return p == b && p->seq == i;
	}
	case V_URCU_MB:
		if (CMM_LOAD_SHARED(s->token) != i)
			return false;
		cmm_smp_mb();
		return true;
#ifdef MMT_HAVE_CK
	case V_CK_FENCE:
		if (ck_pr_load_64(&s->token) != i)
			return false;
		ck_pr_fence_load();
		return true;
	case V_CK_RELEASE_ACQUIRE:
		if (ck_pr_load_64(&s->token) != i)
			return false;
		ck_pr_fence_acquire();
		return true;
	case V_CK_FENCE_MEMORY:
		if (ck_pr_load_64(&s->token) != i)
			return false;
		ck_pr_fence_memory();
		return true;
#endif
	case V_C11_RELEASE_ACQUIRE:
		return atomic_load_explicit((_Atomic uint64_t *)&s->token, memory_order_acquire) == i;
	case V_C11_SEQ_CST:
		if (atomic_load_explicit((_Atomic uint64_t *)&s->token, memory_order_relaxed) != i)
			return false;
		atomic_thread_fence(memory_order_seq_cst);
		return true;
	}
	return false;
}

#endif
