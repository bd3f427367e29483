/* SPDX-License-Identifier: MIT */
/*
 * ring's protocol, shared by the scenario (scenarios/ring.c) and its ruler
 * (bench/ring-bare.c, the index rings with no harness around them): the
 * variants, the shared layout, the item values, the index primitives and
 * the writing and checking of an item.  One copy, so the ruler measures
 * exactly what the scenario runs and cannot drift from it.  The queues of
 * nodes (liburcu, ck_ring) stay in ring.c: their protocol is the library's.
 */
#ifndef MMT_RING_H
#define MMT_RING_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "arch/barrier.h"
#include "compiler.h"
#include "mix.h"
#include "scenario.h"

/*
 * X(enum, name, forbidden_on, family, compares, help, producer, consumer):
 * the one list of variants (scenario.h's MMT_X_*); the enum, the table and
 * the per-variant loops come from it.
 */
#define RING_VARIANTS(X) \
	X(CACHED, "cached", MMT_ARCH_ALL, HAND_ROLLED, "SPSC queue", \
	  "hand-rolled acquire/release, cached remote indices, batched index publication", \
	  ring_producer, ring_consumer) \
	X(NAIVE, "naive", MMT_ARCH_ALL, HAND_ROLLED, NULL, \
	  "hand-rolled acquire/release, indices read and published for every item", \
	  ring_producer, ring_consumer) \
	X(MB, "mb", MMT_ARCH_ALL, HAND_ROLLED, NULL, \
	  "as naive, with smp_mb() around index accesses", \
	  ring_producer, ring_consumer) \
	X(C11, "c11", MMT_ARCH_ALL, C11, "SPSC queue", \
	  "the cached design with C11 acquire/release atomics", \
	  ring_producer, ring_consumer) \
	X(URCU_WFCQ, "urcu-wfcq", MMT_ARCH_ALL, LIBURCU, "SPSC queue", \
	  "liburcu wait-free concurrent queue (cds_wfcq_enqueue / __cds_wfcq_dequeue_blocking)", \
	  queue_producer, queue_consumer) \
	X(URCU_LFQ, "urcu-lfq", MMT_ARCH_ALL, LIBURCU, NULL, \
	  "liburcu RCU lock-free queue (cds_lfq_*_rcu under rcu_read_lock, nodes reused after a grace period)", \
	  queue_producer, queue_consumer) \
	X(CK_SPSC, "ck-spsc", MMT_ARCH_ALL, CK, "SPSC queue", \
	  "concurrencykit ck_ring SPSC ring of node pointers (ck_ring_enqueue_spsc / ck_ring_dequeue_spsc)", \
	  queue_producer, queue_consumer) \
	X(BROKEN, "broken-publish-first", 0, INJECTED, NULL, \
	  "fault injection: head published before the batch is written; the checker must catch it", \
	  ring_producer, ring_consumer) \
	X(DROP, "broken-drop", 0, INJECTED, NULL, \
	  "fault injection: the cached ring, but the producer loses every 1024th item; every loss must be reported as a gap", \
	  ring_producer, ring_consumer)

enum ring_variant { RING_VARIANTS(MMT_X_ENUM) NR_VARIANTS };

/* broken-drop loses the item numbered DROP_EVERY - 1, 2 * DROP_EVERY - 1, ... */
#define DROP_EVERY 1024

struct shared {
	uint64_t head __mmt_aligned;	/* items written (producer publishes) */
	uint64_t tail __mmt_aligned;	/* items consumed (consumer publishes) */
	uint64_t slots[] __mmt_aligned;
};

/* ---- item values ---------------------------------------------------------- */

static inline uint64_t word0(uint64_t mix, uint64_t n)
{
	return ((n << 16) | ((n * 0x9e3779b97f4a7c15ull) >> 48)) ^ mix;
}

static inline uint64_t word_k(uint64_t mix, uint64_t n, uint64_t k)
{
	return mmt_mix64(n * 64 + k) ^ mix;
}

/* ---- index primitives per variant ---------------------------------------- */

static inline __attribute__((always_inline)) uint64_t idx_load(const int v, uint64_t *x)
{
	uint64_t r;

	switch (v) {
	case V_MB:
		r = READ_ONCE(*x);
		smp_mb();
		return r;
	case V_C11:
		return atomic_load_explicit((_Atomic uint64_t *)x, memory_order_acquire);
	default:
		return smp_load_acquire(x);
	}
}

static inline __attribute__((always_inline)) void idx_store(const int v, uint64_t *x, uint64_t val)
{
	switch (v) {
	case V_MB:
		smp_mb();
		WRITE_ONCE(*x, val);
		break;
	case V_C11:
		atomic_store_explicit((_Atomic uint64_t *)x, val, memory_order_release);
		break;
	default:
		smp_store_release(x, val);
	}
}

static inline bool caches(const int v)
{
	return v == V_CACHED || v == V_C11 || v == V_BROKEN || v == V_DROP;
}

static inline __attribute__((always_inline)) void
write_item(uint64_t mix, uint64_t words, uint64_t *slot, uint64_t n)
{
	slot[0] = word0(mix, n);
	for (uint64_t k = 1; k < words; k++)
		slot[k] = word_k(mix, n, k);
}

static inline __attribute__((always_inline)) uint64_t
check_item(uint64_t mix, uint64_t words, const uint64_t *slot, uint64_t n)
{
	uint64_t bad = slot[0] ^ word0(mix, n);

	for (uint64_t k = 1; k < words; k++)
		bad |= slot[k] ^ word_k(mix, n, k);
	return bad;
}

#endif
