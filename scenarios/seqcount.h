/* SPDX-License-Identifier: MIT */
/*
 * seqcount's protocol, shared by the scenario (scenarios/seqcount.c) and
 * its ruler (bench/seqcount-bare.c, the sequence counts with no harness
 * around them): the variants, the shared layout, the record's values and
 * the sequence-count writes and reads.  One copy, so the ruler measures
 * exactly what the scenario runs and cannot drift from it.  The variants
 * that protect with RCU or a lock stay in seqcount.c.
 */
#ifndef MMT_SEQCOUNT_H
#define MMT_SEQCOUNT_H

#include <stdatomic.h>
#include <stdint.h>
#ifdef MMT_HAVE_CK
#include <ck_pr.h>
#include <ck_sequence.h>
#endif

#include "arch/barrier.h"
#include "compiler.h"
#include "scenario.h"

/*
 * X(enum, name, forbidden_on, family, compares, help): the one list of
 * variants; the enum, the table and the per-variant loops come from it.
 */
#define SEQCOUNT_VARIANTS(X)                                                                       \
	X(KERNEL, "kernel", MMT_ARCH_ALL, HAND_ROLLED, "reader protection",                           \
	  "hand-rolled raw_write_seqcount_begin/end (smp_wmb) and read_seqcount_begin/retry (smp_rmb)") \
	X(C11, "c11", MMT_ARCH_ALL, C11, "reader protection",                                          \
	  "C11 seqlock: relaxed data, release fence after the odd count, acquire fence before the re-check") \
	X(URCU_RCU, "urcu-rcu", MMT_ARCH_ALL, LIBURCU, "reader protection",                            \
	  "liburcu: readers rcu_dereference an immutable copy; the writer publishes a new one and synchronize_rcu()") \
	X(CK, "ck", MMT_ARCH_ALL, CK, "reader protection",                                             \
	  "concurrencykit ck_sequence_write_begin/end and ck_sequence_read_begin/retry, words by ck_pr_store_64/ck_pr_load_64") \
	X(RWLOCK, "rwlock", MMT_ARCH_ALL, LOCK, NULL,                                                  \
	  "pthread_rwlock, writer-preferring (readers would starve the writer otherwise)")             \
	X(SPINLOCK, "spinlock", MMT_ARCH_ALL, LOCK, NULL, "pthread_spinlock around reads and writes")  \
	X(BROKEN, "broken-early-recheck", 0, INJECTED, NULL,                                           \
	  "fault injection: the reader re-checks the count before copying, as a missing smp_rmb() allows; must be caught")

enum seqcount_variant { SEQCOUNT_VARIANTS(MMT_X_ENUM) NR_VARIANTS };

struct record {
	uint64_t w[512];
};

struct shared {
	uint64_t seq __mmt_aligned;
#ifdef MMT_HAVE_CK
	ck_sequence_t ck __mmt_aligned;	/* ck: its count, on a line of its own as seq */
#endif
	uint64_t words[512] __mmt_aligned;
	struct record *gp __mmt_aligned;	/* urcu-rcu: the current copy */
	unsigned readers_done __mmt_aligned;
};

/* Version ver of the record: w[k] = ver * (2k + 1). */
static inline void fill(uint64_t *w, unsigned n, uint64_t v)
{
	for (unsigned k = 0; k < n; k++)
		w[k] = v * (2 * k + 1);
}

/* ---- the sequence-count variants: kernel, broken-early-recheck, c11, ck --- */

/* The writer (there is one) publishes version ver in the record's first
 * words words. */
static inline __attribute__((always_inline)) void seq_write_version(const int v, struct shared *s,
								     unsigned words, uint64_t ver)
{
	switch (v) {
	case V_KERNEL:
	case V_BROKEN: {
		uint64_t c = s->seq;	/* only the writer stores the count */

		WRITE_ONCE(s->seq, c + 1);	/* raw_write_seqcount_begin */
		smp_wmb();
		for (unsigned k = 0; k < words; k++)
			WRITE_ONCE(s->words[k], ver * (2 * k + 1));
		smp_wmb();			/* raw_write_seqcount_end */
		WRITE_ONCE(s->seq, c + 2);
		break;
	}
	case V_C11: {
		uint64_t c = atomic_load_explicit((_Atomic uint64_t *)&s->seq, memory_order_relaxed);

		atomic_store_explicit((_Atomic uint64_t *)&s->seq, c + 1, memory_order_relaxed);
		atomic_thread_fence(memory_order_release);
		for (unsigned k = 0; k < words; k++)
			atomic_store_explicit((_Atomic uint64_t *)&s->words[k], ver * (2 * k + 1),
					      memory_order_relaxed);
		atomic_store_explicit((_Atomic uint64_t *)&s->seq, c + 2, memory_order_release);
		break;
	}
#ifdef MMT_HAVE_CK
	case V_CK:
		/* One writer: ck_sequence's "after a successful mutex
		 * acquisition" holds without a mutex. */
		ck_sequence_write_begin(&s->ck);
		for (unsigned k = 0; k < words; k++)
			ck_pr_store_64(&s->words[k], ver * (2 * k + 1));
		ck_sequence_write_end(&s->ck);
		break;
#endif
	}
}

/* Waits out an odd (write in progress) count, as read_seqcount_begin()
 * does; this spinning is not a retry. */
static inline __attribute__((always_inline)) uint64_t begin(const int v, struct shared *s)
{
	for (;;) {
		uint64_t c = v == V_C11
			? atomic_load_explicit((_Atomic uint64_t *)&s->seq, memory_order_acquire)
			: READ_ONCE(s->seq);

		if (!(c & 1))
			return c;
		cpu_relax();
	}
}

/* Copies one snapshot of words words into out; returns how often the
 * re-check failed. */
static inline __attribute__((always_inline)) uint64_t seq_read_snapshot(const int v, struct shared *s,
									 unsigned words, uint64_t *out)
{
	uint64_t retries = 0;

	switch (v) {
	case V_KERNEL:
		for (;; retries++) {
			uint64_t c = begin(v, s);

			smp_rmb();
			for (unsigned k = 0; k < words; k++)
				out[k] = READ_ONCE(s->words[k]);
			smp_rmb();			/* read_seqcount_retry */
			if (READ_ONCE(s->seq) == c)
				return retries;
		}
	case V_BROKEN:
		for (;; retries++) {
			uint64_t c = begin(v, s);

			/* The re-check a missing smp_rmb() lets the CPU or
			 * compiler satisfy early, made explicit. */
			if (READ_ONCE(s->seq) != c)
				continue;
			for (unsigned k = 0; k < words; k++)
				out[k] = READ_ONCE(s->words[k]);
			return retries;
		}
	case V_C11:
		for (;; retries++) {
			uint64_t c = begin(v, s);

			for (unsigned k = 0; k < words; k++)
				out[k] = atomic_load_explicit((_Atomic uint64_t *)&s->words[k],
							      memory_order_relaxed);
			atomic_thread_fence(memory_order_acquire);
			if (atomic_load_explicit((_Atomic uint64_t *)&s->seq, memory_order_relaxed) == c)
				return retries;
		}
#ifdef MMT_HAVE_CK
	case V_CK:
		/* read_begin waits out an odd count itself, as begin() does;
		 * a failed read_retry is the retry counted. */
		for (;; retries++) {
			unsigned int c = ck_sequence_read_begin(&s->ck);

			for (unsigned k = 0; k < words; k++)
				out[k] = ck_pr_load_64(&s->words[k]);
			if (!ck_sequence_read_retry(&s->ck, c))
				return retries;
		}
#endif
	}
	return 0;
}

/* Nonzero when the snapshot mixes versions: every version keeps
 * w[k] == w[0] * (2k + 1), and no two versions agree on it. */
/*
 * Where a reader keeps its snapshot: in room (SEQ_SNAP_ROOM words aligned
 * to 4 KiB), half a page away from the record's words modulo 4 KiB.  Each
 * load of a word follows the store of the one before it, and a load whose
 * address matches a pending store's in its low 12 bits waits on it (4K
 * aliasing): a stall that came and went with the stack's layout.  Measured
 * on seqcount kernel, same L3: +6% (median of 8 interleaved pairs).
 */
#define SEQ_SNAP_ROOM 1024
static inline uint64_t *seq_snapshot_at(uint64_t *room, const uint64_t *words)
{
	return room + ((((uintptr_t)words + 2048) & 4095) >> 3);
}

static inline __attribute__((always_inline)) uint64_t seq_snapshot_bad(const uint64_t *snap, unsigned words)
{
	uint64_t bad = 0;

	for (unsigned k = 1; k < words; k++)
		bad |= snap[k] ^ (snap[0] * (2 * k + 1));
	return bad;
}

#endif
