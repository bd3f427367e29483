/* SPDX-License-Identifier: MIT */
/*
 * barrier-cost: what one barrier or ordered access costs on one CPU, with
 * nothing else in the way.
 *
 * In msgpass a barrier's cost hides inside the cache-line round trip
 * between two cores (hundreds of ns); here one pinned thread runs each
 * primitive UNROLL times per loop turn, in chunks timed with the cycle
 * counter, alternating with chunks of the same loop with only a compiler
 * barrier in each slot.  net_ns_per_op is the median primitive chunk less
 * the median empty chunk, per operation: the loop's own overhead
 * subtracted, measured in the same run so drift and frequency changes hit
 * both.  Loads and stores touch one private, cache-hot word, so the
 * once-load and once-store variants give the cost of the bare access.
 *
 * Each variant gets its own copy of the loop with the primitive fixed at
 * compile time (one X() list makes the enum, the variant table and the
 * loops), so there is no dispatch in the timed region.
 */
#include <stdatomic.h>
#define URCU_INLINE_SMALL_FUNCTIONS
#include <stdio.h>
#include <stdlib.h>
#include <urcu/arch.h>
#include <urcu/pointer.h>
#include <urcu/system.h>
#include <urcu/uatomic.h>

#include "arch/barrier.h"
#include "clock.h"
#include "metrics.h"
#include "scenario.h"
#include "timing.h"

#define UNROLL 16
#define MAX_SAMPLES 4096

/* X(enum, name, forbidden_on, family, compares, help) (scenario.h's
 * MMT_X_*): the primitives, hand-rolled, liburcu, C11; "compares" names
 * the row of the ratio tables.  Nothing is forbidden: one thread. */
#define BARRIER_COST_VARIANTS(X) \
	X(ONCE_STORE, "once-store", 0, UNORDERED, NULL, \
	  "WRITE_ONCE() of a cache-hot word: the bare store, unordered") \
	X(ONCE_LOAD, "once-load", 0, UNORDERED, NULL, \
	  "READ_ONCE() of a cache-hot word: the bare load, unordered") \
	X(MB, "mb", 0, HAND_ROLLED, "full barrier", \
	  "hand-rolled smp_mb() (x86: lock; addl $0,-4(%rsp), as the kernel)") \
	X(MB_FENCE, "mb-fence", 0, HAND_ROLLED, "fence instruction", \
	  "hand-rolled fence instruction (x86 mfence, aarch64 dsb ish)") \
	X(RMB, "rmb", 0, HAND_ROLLED, "read barrier", \
	  "hand-rolled smp_rmb() (a compiler barrier on x86)") \
	X(WMB, "wmb", 0, HAND_ROLLED, "write barrier", \
	  "hand-rolled smp_wmb() (a compiler barrier on x86)") \
	X(STORE_RELEASE, "store-release", 0, HAND_ROLLED, "release store", \
	  "hand-rolled smp_store_release()") \
	X(LOAD_ACQUIRE, "load-acquire", 0, HAND_ROLLED, "acquire load", \
	  "hand-rolled smp_load_acquire()") \
	X(URCU_MB, "urcu-mb", 0, LIBURCU, "full barrier", \
	  "liburcu cmm_smp_mb()") \
	X(URCU_RMB, "urcu-rmb", 0, LIBURCU, "read barrier", \
	  "liburcu cmm_smp_rmb()") \
	X(URCU_WMB, "urcu-wmb", 0, LIBURCU, "write barrier", \
	  "liburcu cmm_smp_wmb()") \
	X(URCU_ASSIGN, "urcu-assign-pointer", 0, LIBURCU, "release store", \
	  "liburcu rcu_assign_pointer() (a release store)") \
	X(URCU_DEREF, "urcu-dereference", 0, LIBURCU, "acquire load", \
	  "liburcu rcu_dereference() (a dependency-ordered load)") \
	X(URCU_ADD, "urcu-uatomic-add", 0, LIBURCU, "atomic add", \
	  "liburcu uatomic_add() (locked add on x86)") \
	X(C11_FENCE_SEQ_CST, "c11-fence-seq-cst", 0, C11, "full barrier", \
	  "C11 atomic_thread_fence(memory_order_seq_cst)") \
	X(C11_FENCE_ACQUIRE, "c11-fence-acquire", 0, C11, "read barrier", \
	  "C11 atomic_thread_fence(memory_order_acquire)") \
	X(C11_FENCE_RELEASE, "c11-fence-release", 0, C11, "write barrier", \
	  "C11 atomic_thread_fence(memory_order_release)") \
	X(C11_STORE_RELEASE, "c11-store-release", 0, C11, "release store", \
	  "C11 atomic_store_explicit(memory_order_release)") \
	X(C11_LOAD_ACQUIRE, "c11-load-acquire", 0, C11, "acquire load", \
	  "C11 atomic_load_explicit(memory_order_acquire)") \
	X(C11_STORE_SEQ_CST, "c11-store-seq-cst", 0, C11, NULL, \
	  "C11 atomic_store (seq_cst: xchg on x86)") \
	X(C11_FETCH_ADD, "c11-fetch-add", 0, C11, "atomic add", \
	  "C11 atomic_fetch_add (seq_cst)")

enum barrier_cost_variant { BARRIER_COST_VARIANTS(MMT_X_ENUM) NR_VARIANTS };
static const struct mmt_variant variants[NR_VARIANTS] = { BARRIER_COST_VARIANTS(MMT_X_ROW) };

enum { OPT_CHUNK };
static const struct mmt_option options[] = {
	[OPT_CHUNK] = { "chunk-loops", "loop turns per timed chunk (each turn runs the primitive 16 times)",
			1024, 16, 1u << 20 },
};

enum { OUT_TIMED, NR_OUTCOMES };
static const char *const outcome_names[NR_OUTCOMES] = { "timed_chunks" };

struct shared {
	uint64_t word __mmt_aligned;
	_Atomic uint64_t atom;
	uint64_t *ptr;
};

struct priv {
	double prim[MAX_SAMPLES], empty[MAX_SAMPLES]; /* ns per op of each chunk */
	unsigned nr_prim, nr_empty;
	uint64_t chunks;
	uint64_t sink;
};

static size_t barrier_cost_shared_size(const struct mmt_run *run)
{
	(void)run;
	return sizeof(struct shared);
}

static int barrier_cost_prepare(struct mmt_run *run)
{
	run->priv = calloc(1, sizeof(struct priv));
	return run->priv ? 0 : -1;
}

/* One slot of the timed loop.  Loaded values go to an asm sink so the
 * compiler must perform every load; i varies so no store is dead. */
#define SINK(x) __asm__ __volatile__("" ::"r"(x) : "memory")
static inline __attribute__((always_inline)) void op(const int v, struct shared *s, uint64_t i)
{
	switch (v) {
	case V_ONCE_STORE: WRITE_ONCE(s->word, i); break;
	case V_ONCE_LOAD: SINK(READ_ONCE(s->word)); break;
	case V_MB: smp_mb(); break;
	case V_MB_FENCE: smp_mb_fence(); break;
	case V_RMB: smp_rmb(); break;
	case V_WMB: smp_wmb(); break;
	case V_STORE_RELEASE: smp_store_release(&s->word, i); break;
	case V_LOAD_ACQUIRE: SINK(smp_load_acquire(&s->word)); break;
	case V_URCU_MB: cmm_smp_mb(); break;
	case V_URCU_RMB: cmm_smp_rmb(); break;
	case V_URCU_WMB: cmm_smp_wmb(); break;
	case V_URCU_ASSIGN: rcu_assign_pointer(s->ptr, &s->word); break;
	case V_URCU_DEREF: SINK(rcu_dereference(s->ptr)); break;
	case V_URCU_ADD: uatomic_add(&s->word, 1); break;
	case V_C11_FENCE_SEQ_CST: atomic_thread_fence(memory_order_seq_cst); break;
	case V_C11_FENCE_ACQUIRE: atomic_thread_fence(memory_order_acquire); break;
	case V_C11_FENCE_RELEASE: atomic_thread_fence(memory_order_release); break;
	case V_C11_STORE_RELEASE: atomic_store_explicit(&s->atom, i, memory_order_release); break;
	case V_C11_LOAD_ACQUIRE: SINK(atomic_load_explicit(&s->atom, memory_order_acquire)); break;
	case V_C11_STORE_SEQ_CST: atomic_store(&s->atom, i); break;
	case V_C11_FETCH_ADD: atomic_fetch_add(&s->atom, 1); break;
	}
}

#define REP4(x) x x x x
#define REP16(x) REP4(x) REP4(x) REP4(x) REP4(x)

static void record(double *samples, unsigned *n, double v)
{
	/* Past MAX_SAMPLES the oldest are overwritten: a long run keeps the
	 * latest MAX_SAMPLES, memory stays fixed. */
	samples[*n % MAX_SAMPLES] = v;
	(*n)++;
}

static inline __attribute__((always_inline)) void cost_loop(const int v, struct mmt_worker *w)
{
	struct mmt_run *run = w->run;
	struct shared *s = run->shared;
	struct priv *p = run->priv;
	const uint64_t loops = run->opt[OPT_CHUNK], per_chunk = loops * UNROLL;
	const double cpn = run->cycles_per_ns;

	w->role = "timer";
	while (!mmt_should_stop()) {
		uint64_t t0, t1, t2;

		t0 = mmt_cycles();
		for (uint64_t i = 0; i < loops; i++) {
			REP16(barrier();)
		}
		t1 = mmt_cycles();
		for (uint64_t i = 0; i < loops; i++) {
			REP16(op(v, s, i);)
		}
		t2 = mmt_cycles();
		record(p->empty, &p->nr_empty, (double)(t1 - t0) / cpn / (double)per_chunk);
		record(p->prim, &p->nr_prim, (double)(t2 - t1) / cpn / (double)per_chunk);
		w->outcomes[OUT_TIMED]++;
		w->ops += per_chunk;
		if (run->iterations && w->ops >= run->iterations) {
			mmt_request_stop();
			break;
		}
	}
	p->sink = s->word + atomic_load(&s->atom);
}

#define AS_WORKER(e, ...) MMT_VARIANT_WORKER(V_##e, cost_loop, cost_loop)
BARRIER_COST_VARIANTS(AS_WORKER)
static void (*const loops[NR_VARIANTS])(struct mmt_worker *) = { BARRIER_COST_VARIANTS(MMT_X_LOOP) };

static double median(double *v, unsigned n)
{
	return mmt_median_double(v, n < MAX_SAMPLES ? n : MAX_SAMPLES);
}

static void barrier_cost_verify(struct mmt_run *run)
{
	struct priv *p = run->priv;
	double gross = median(p->prim, p->nr_prim), loop = median(p->empty, p->nr_empty);

	run->ops = run->workers[0].ops;
	mmt_put_count(run, "chunks", p->nr_prim);
	mmt_put_count(run, "ops_per_chunk", run->opt[OPT_CHUNK] * UNROLL);
	mmt_put_real(run, "gross_ns_per_op", gross);
	mmt_put_real(run, "loop_ns_per_op", loop);
	/* May come out slightly negative for a primitive that costs nothing
	 * (a compiler barrier): reported as measured, never clamped. */
	mmt_put_real(run, "net_ns_per_op", gross - loop);
}

static const struct mmt_metric metrics[] = {
	{ "chunks", MMT_METRIC_COUNT, "chunks", MMT_BETTER_NEUTRAL, false, "timed chunks the medians are taken over", NULL },
	{ "ops_per_chunk", MMT_METRIC_COUNT, "operations", MMT_BETTER_NEUTRAL, false, "primitives per timed chunk", NULL },
	{ "gross_ns_per_op", MMT_METRIC_REAL, "ns", MMT_BETTER_NEUTRAL, false,
	  "median ns per primitive, loop included: moves with the host; net_ns_per_op is the one compared", NULL },
	{ "loop_ns_per_op", MMT_METRIC_REAL, "ns", MMT_BETTER_NEUTRAL, false,
	  "median ns per iteration of the same loop with no primitive", NULL },
	{ "net_ns_per_op", MMT_METRIC_REAL, "ns", MMT_BETTER_LOWER, false,
	  "the primitive's own cost: gross minus loop (may be slightly negative for one that costs nothing)", NULL },
};

static void barrier_cost_describe(const json_t *run, char *buf, size_t len)
{
	const json_t *m = json_object_get(run, "metrics");
	/* The loop's own cost is in the results (loop_ns_per_op). */
	snprintf(buf, len, "net %.3gns", json_number_value(json_object_get(m, "net_ns_per_op")));
}

static void barrier_cost_cleanup(struct mmt_run *run)
{
	free(run->priv);
	run->priv = NULL;
}

static const struct mmt_scenario barrier_cost = {
	.name = "barrier-cost",
	.help = "single-thread cost of each barrier and ordered access, ns per op with the loop subtracted",
	MMT_TABLE(variants, variants),
	MMT_TABLE(options, options),
	.min_threads = 1,
	.default_threads = 1,
	.max_threads = 1,
	MMT_TABLE(outcomes, outcome_names),
	.ops_unit = "operations",
	MMT_TABLE(metrics, metrics),
	.smoke_variants = "mb,urcu-mb,c11-fence-seq-cst",
	.shared_size = barrier_cost_shared_size,
	.prepare = barrier_cost_prepare,
	.variant_worker = loops,
	.verify = barrier_cost_verify,
	.cleanup = barrier_cost_cleanup,
	.describe = barrier_cost_describe,
};
MMT_SCENARIO(barrier_cost);
