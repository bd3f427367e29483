/* SPDX-License-Identifier: MIT */
/*
 * litmus: C-litmus tests (the Linux kernel memory model's format) compiled
 * into tight pinned loops, every outcome counted.
 *
 * scenarios/litmus/litmus2c (a staged front end: lexer, parser, one
 * intermediate form, a generator per primitive set) turns each test under
 * scenarios/litmus/ (and, with configure --with-litmus-dir, a directory of
 * the user's, such as the kernel's tools/memory-model/litmus-tests) into
 * one body macro per thread and primitive set, instantiated here by
 * LK_THREAD_FN(); the primitives' bindings are in litmus-prims.h:
 *   kernel         hand-rolled per-arch asm (x86 smp_mb: lock; addl)
 *   kernel-mfence  the same with smp_mb() as the fence instruction
 *   urcu           liburcu (cmm_smp_*, CMM_LOAD/STORE_SHARED, uatomic_*, urcu-memb)
 *   c11            C11 atomics and fences
 * Each variant is TEST/PRIMITIVES (select with --test and --primitives).
 *
 * Every iteration gets fresh variables, each on its own cache line(s)
 * (--stride), so iterations of a batch never interfere; threads are
 * aligned per iteration by --sync: none (a barrier per batch only),
 * userfence (a rendezvous and a full fence before every iteration, as
 * litmus7 -barrier userfence) or tsc (each thread starts iteration i at
 * t0 + i * --period cycles, plus a random --delay), or all three in turn
 * with witnesses counted per mode.  By default the tsc period and P0's
 * userfence wait follow the one-way latency between P0 and P1, measured
 * before a batch every LK_CALIBRATE_NS and filtered by harness/sync-tune.c:
 * the host moves the vCPUs between placements whose latencies differ
 * tenfold, and a period right for one is wrong for the others (issue 16).  Each run of
 * batches at one tuned latency is a segment of the record's sync_track.
 * The registers and final values an outcome names are stored per
 * iteration and counted after each batch, outside the racing loop.
 * userfence makes every iteration wait for every thread, so a batch can
 * outlast the run on an overloaded machine (a TCG guest with more vCPUs
 * than host CPUs): P0 then cuts it short, and only the iterations every
 * thread completed are counted.
 */
#define URCU_INLINE_SMALL_FUNCTIONS
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <urcu/arch.h>
#include <urcu/pointer.h>
#include <urcu/system.h>
#include <urcu/uatomic.h>
#include <urcu/urcu-memb.h>

#include "arch/barrier.h"
#include "clock.h"
#include "metrics.h"
#include "mix.h"
#include "cli.h"
#include "scenario.h"
#include "litmus-prims.h"
#include "placement-track.h"
#include "probe.h"
#include "sync-tune.h"
#include "timing.h"

enum { LK_SYNC_NONE, LK_SYNC_USERFENCE, LK_SYNC_TSC, LK_NR_SYNC, LK_SYNC_ROTATE = LK_NR_SYNC };
static const char *const sync_names[LK_NR_SYNC] = { "none", "userfence", "tsc" };
/* --sync by name: the modes, then the rotation through them. */
static const char *const sync_option_names[] = { "none", "userfence", "tsc", "all", NULL };

#define LK_MAXT 8	/* threads */
#define LK_MAXV 16	/* locations: vars/init/init_addr below; a run's memory is batch * nvars *
			 * stride lines (10000 * 16 * 64 B, 9.8 MiB, by default); an outcome's
			 * keys stay within LK_MAXK, however many locations the test has */
#define LK_MAXK 16	/* values in an outcome (the histogram's key) */
#define LK_MAXR 8	/* registers per thread an outcome names */
#define LK_MAXH 64	/* distinct outcomes kept */
#define LK_HSLOTS 64	/* count's direct-mapped cache of the histogram's entries */
#define LK_MAXSEG 64	/* sync_track segments kept; the rest is summed as overflow */
#define LK_FALLBACK_PERIOD 300	/* adaptive with one thread: nothing to measure */
#define LK_FIRST_BATCH 64	/* iterations of a run's first batch, at most */
#define LK_BATCH_NS 50000000.0	/* what a batch should last: the next grows or shrinks to it */
/* The latency is measured again before a batch once this long has passed
 * since the last measure: a move of the vCPUs (every few seconds) is
 * followed within it, and a batch of 10000 fast iterations (0.5 ms) no
 * longer pays 40 round trips each time (2% of SB's samples, issue 33). */
#define LK_CALIBRATE_NS 10000000.0
#define LK_ADDR_TAG (-1000)
#define LK_ADDR_OF(j) (LK_ADDR_TAG - (j))
#define LK_INIT_ADDR(j) LK_ADDR_OF(j)

struct lk_ctx {
	char *mem;		/* batch * nvars variables */
	size_t var_bytes, iter_bytes;
	uint64_t batch;
	uint64_t ran;		/* iterations of this batch every thread completed */
	uint64_t cut_wait;	/* cycles a stop may wait for the first batch */
	uint64_t stop_seen;	/* P0: when it first saw the stop request */
	bool first_done;
	bool calibrate;		/* P0: this batch measures the latency first */
	int sync;
	uint64_t t0, period, delay, gen;
	uint64_t uf_delay;	/* userfence: P0's wait after releasing the others */
	unsigned nthreads, nvars;
	uint64_t late[LK_MAXT];	/* tsc: iterations of the batch each thread began after its slot */
	int64_t *out[LK_MAXT];	/* batch * regs registers per thread */
	unsigned regs;		/* per iteration: the most any thread's outcome names (1 at least,
				 * LK_MAXR at most), packed: the counting reads regs/8 of the other
				 * thread's lines per iteration, not one each (issue 33) */
	struct {
		uint64_t v;
	} __mmt_aligned arrive[LK_MAXT];
	uint64_t cal[1][MMT_PAD_BYTES / 8] __mmt_aligned;	/* calibration ping-pong */
	uint64_t nowhere[LK_MAXT][MMT_PAD_BYTES / 8] __mmt_aligned;	/* LK_ADDR's */
	struct lk_rcu_reader rcu[LK_MAXT];	/* kernel and c11 sets' RCU */
	unsigned bar_count __mmt_aligned;
	unsigned bar_gen __mmt_aligned;
	int go_on __mmt_aligned;
};

/* ---- the racing loops ------------------------------------------------------- */

/*
 * P0 waits until every other thread has arrived, releases them with one
 * store, and then waits about as long as that store takes to reach them
 * (--delay cycles, or by default the one-way latency measured between P0
 * and P1 when the run starts) so that all start the iteration together; a
 * full fence follows, as in litmus7's userfence mode.
 */
#define LK_CUT UINT64_MAX

/* P0, every 64 iterations: cut the batch short?  Only when a stop is
 * pending, and for the run's first batch only once it has waited
 * cut_wait cycles (a short run still completes a batch where it can). */
static inline bool lk_should_cut(struct lk_ctx *c, uint64_t i)
{
	if ((i & 63) || !mmt_should_stop())
		return false;
	if (c->first_done)
		return true;
	if (!c->stop_seen)
		c->stop_seen = mmt_cycles();
	return mmt_cycles() - c->stop_seen > c->cut_wait;
}

/* Returns false when P0 has cut the batch at i: iterations 0..i-1 are
 * the batch, and every thread runs each of them. */
static inline bool lk_userfence(struct lk_ctx *c, unsigned t, uint64_t i)
{
	uint64_t want = c->gen + i + 1;

	if (t == 0) {
		if (lk_should_cut(c, i)) {
			c->ran = i;
			smp_store_release(&c->arrive[0].v, LK_CUT);
			return false;
		}
		for (unsigned k = 1; k < c->nthreads; k++)
			while (READ_ONCE(c->arrive[k].v) < want)
				;
		smp_store_release(&c->arrive[0].v, want);
		if (c->uf_delay)
			mmt_spin_until_cycles(mmt_cycles() + c->uf_delay);
	} else {
		WRITE_ONCE(c->arrive[t].v, want);
#ifdef LK_TEST_LATE_FOLLOWER
		/* tests/litmus.sh: late to see the release of the iteration
		 * before each of P0's cut points, so a cut always races it */
		if (!((i + 1) & 63))
			mmt_spin_until_cycles(mmt_cycles() + 200000);
#endif
		while (READ_ONCE(c->arrive[0].v) < want)
			;
		/* A thread slow to see its release of iteration i may see the
		 * cut instead: i still runs if P0 released it (i < ran). */
#ifndef LK_TEST_BAD_CUT
		if (smp_load_acquire(&c->arrive[0].v) == LK_CUT && i >= READ_ONCE(c->ran))
#else
		if (smp_load_acquire(&c->arrive[0].v) == LK_CUT)	/* the bug, for its test */
#endif
			return false;
	}
	smp_mb();
	return true;
}

/* tsc's schedule, copied out of the context before the loop: a store
 * through a location may alias the context's words, and the compiler
 * would reload them on every iteration (issue 33). */
struct lk_slots {
	uint64_t t0, period, delay, gen;
};

/*
 * Returns 1 when the thread reached its slot late (preempted, or the
 * period is shorter than what its iterations take): a late thread starts
 * at once.  The clock is read unordered: iteration i's load may still be
 * in flight while the thread waits for slot i+1, so the period bounds
 * when the threads start their iterations, not when those complete, and
 * a period under the line-transfer latency keeps several iterations in
 * flight with both threads' starts aligned to a clock read (a read that
 * waited for the load, rdtscp, made every iteration cost a transfer:
 * cross-die, 0.1M witnesses/s at a period of 150, issue 16).
 */
static inline unsigned lk_tsc_wait(const struct lk_slots *s, unsigned t, uint64_t i)
{
	uint64_t at = s->t0 + i * s->period;

	if (t && s->delay) {
		uint64_t seed = s->gen + i * LK_MAXT + t;	/* the same delays on every run of a seed */

		at += mmt_random_upto(&seed, s->delay);
	}
	if ((int64_t)(mmt_cycles_unordered() - at) >= 0)
		return 1;
	while ((int64_t)(mmt_cycles_unordered() - at) < 0)
		;
	return 0;
}

#define LKV(k) ((uint64_t *)(lk_base + (size_t)(k) * lk_var_bytes))
#define LKO(k) (lk_out[k])
/* An address a thread loaded or computed (a register): one of this
 * iteration's locations, or, when it is none (ISA2+wmb+o-r+a-o's P2 reads
 * its pointer's initial 0 and dereferences it), a line of the thread's own
 * that no location shares: the access is kept off real memory, not a
 * SIGSEGV, and its outcome names the register's value. */
#define LK_ADDR(v)                                                             \
	((uintptr_t)(v) - (uintptr_t)lk_base < lk_iter_bytes ? (uint64_t *)(uintptr_t)(v) \
							      : lk_c->nowhere[lk_t])
#define LK_ITER_VARS                                                           \
	char *lk_base = lk_mem + lk_i * lk_iter_bytes;                         \
	int64_t *lk_out = lk_outs + lk_i * lk_regs;                            \
	(void)lk_out; (void)lk_base;
#define LK_BATCH_LOOP(STMT)                                                    \
	do {                                                                   \
		const uint64_t lk_n = lk_c->batch;                             \
		int64_t *const lk_outs = lk_c->out[lk_t];                      \
		const unsigned lk_regs = lk_c->regs;                           \
		char *const lk_mem = lk_c->mem;                                \
		const size_t lk_var_bytes = lk_c->var_bytes;                   \
		const size_t lk_iter_bytes = lk_c->iter_bytes;                 \
		switch (lk_c->sync) {                                          \
		case LK_SYNC_NONE:                                             \
			for (uint64_t lk_i = 0; lk_i < lk_n; lk_i++) {         \
				LK_ITER_VARS STMT;                             \
			}                                                      \
			break;                                                 \
		case LK_SYNC_USERFENCE:                                        \
			for (uint64_t lk_i = 0; lk_i < lk_n; lk_i++) {         \
				if (!lk_userfence(lk_c, lk_t, lk_i))           \
					break;                                 \
				LK_ITER_VARS STMT;                             \
			}                                                      \
			break;                                                 \
		default: {                                                     \
			const struct lk_slots lk_slots = { lk_c->t0, lk_c->period, \
							   lk_c->delay, lk_c->gen }; \
			uint64_t lk_late = 0;                                  \
			for (uint64_t lk_i = 0; lk_i < lk_n; lk_i++) {         \
				lk_late += lk_tsc_wait(&lk_slots, lk_t, lk_i); \
				LK_ITER_VARS STMT;                             \
			}                                                      \
			lk_c->late[lk_t] = lk_late;                            \
			break;                                                 \
		}                                                              \
		}                                                              \
	} while (0)
#define LK_THREAD_FN(name, BODY)                                               \
	static void name(struct lk_ctx *lk_c, unsigned lk_t)                   \
	{                                                                      \
		LK_BATCH_LOOP(BODY);                                           \
	}

#define LK_REG(c, t, i, r) ((c)->out[t][(i) * (c)->regs + (r)])
#define LK_FINAL(c, i, v) ((int64_t) * (uint64_t *)((c)->mem + (i) * (c)->iter_bytes + (size_t)(v) * (c)->var_bytes))

/* A value that is the address of one of this iteration's locations is
 * shown, and compared, as that location. */
static inline int64_t lk_norm(const struct lk_ctx *c, uint64_t i, int64_t v)
{
	uintptr_t base = (uintptr_t)(c->mem + i * c->iter_bytes);

	if ((uintptr_t)v >= base && (uintptr_t)v < base + c->iter_bytes && ((uintptr_t)v - base) % c->var_bytes == 0)
		return LK_ADDR_OF((int64_t)(((uintptr_t)v - base) / c->var_bytes));
	return v;
}

struct lk_hist {
	unsigned n;
	struct {
		int64_t key[LK_MAXK];
		uint64_t count;
		bool pos;
	} e[LK_MAXH];
	uint8_t slot[LK_HSLOTS];	/* by the key's hash: 1 + its entry, 0 none (count's cache) */
	uint64_t other;		/* outcomes beyond LK_MAXH distinct ones */
	uint64_t filtered;	/* outcomes the test's filter clause leaves out */
	uint64_t iters[LK_NR_SYNC], wit[LK_NR_SYNC];
} __mmt_aligned;

/* Keys are a few words: compared inline, not through memcmp's call (the
 * counting is a fifth of a run's time on SB, issue 33). */
static inline bool same_key(const int64_t *a, const int64_t *b, unsigned n)
{
	for (unsigned k = 0; k < n; k++)
		if (a[k] != b[k])
			return false;
	return true;
}

static inline unsigned key_slot(const int64_t *key, unsigned n)
{
	uint64_t x = 0;

	for (unsigned k = 0; k < n; k++)
		x = (x + (uint64_t)key[k]) * 0x9e3779b97f4a7c15ull;
	return (unsigned)(x >> 58);	/* LK_HSLOTS */
}
_Static_assert(LK_HSLOTS == 64 && LK_MAXH < 255, "key_slot's shift, slot[]'s width");

/* The entry of key, added when new; LK_MAXH when the histogram is full.
 * Outcomes come in no order, so a search through the entries mispredicts
 * its way to the one that matches: the entry's slot, by the key's hash,
 * is found at once and its check nearly always holds (issue 33). */
static inline __attribute__((always_inline)) unsigned entry_of(struct lk_hist *h, const int64_t *key, unsigned nkeys,
							       bool pos)
{
	unsigned s = key_slot(key, nkeys), e = h->slot[s];

	if (likely(e && same_key(h->e[e - 1].key, key, nkeys)))
		return e - 1;
	for (e = 0; e < h->n; e++)
		if (same_key(h->e[e].key, key, nkeys))
			break;
	if (e == h->n) {
		if (h->n == LK_MAXH)
			return LK_MAXH;
		memcpy(h->e[e].key, key, nkeys * sizeof(int64_t));
		h->e[e].pos = pos;
		h->n++;
	}
	h->slot[s] = (uint8_t)(e + 1);
	return e;
}

/* The counting loop: always inlined into each test's LK_COUNT_FN, where
 * nkeys is a constant and observe, filter and exists are the test's own
 * functions, called directly and inlined: the key's hash and compare are
 * straight-line code, no indirect call per outcome (two took a fifth of
 * SB's counting, issue 33), and its sums stay in registers. */
static inline __attribute__((always_inline)) void count_n(const struct lk_ctx *c, struct lk_hist *h,
							  uint64_t from, uint64_t to, int sync, const unsigned nkeys,
							  void (*observe)(const struct lk_ctx *, uint64_t, int64_t *),
							  bool (*filter)(const int64_t *), bool (*exists)(const int64_t *))
{
	uint64_t iters = 0, wit = 0, filtered = 0, other = 0;

	for (uint64_t i = from; i < to; i++) {
		int64_t key[LK_MAXK];
		unsigned e;
		bool pos;

		observe(c, i, key);
		if (filter && !filter(key)) {
			filtered++;
			continue;
		}
		pos = exists(key);
		iters++;
		wit += pos;
		e = entry_of(h, key, nkeys, pos);
		if (e == LK_MAXH)
			other++;
		else
			h->e[e].count++;
	}
	h->iters[sync] += iters;
	h->wit[sync] += wit;
	h->filtered += filtered;
	h->other += other;
}

/* A test's counter, written by the header (litmus2c) after its observe,
 * filter (or NULL) and exists. */
#define LK_COUNT_FN(fn, observe, filter, exists, nkeys)							\
	static void fn(const struct lk_ctx *c, struct lk_hist *h, uint64_t from, uint64_t to, int sync)	\
	{												\
		count_n(c, h, from, to, sync, nkeys, observe, filter, exists);				\
	}

struct lk_test {
	const char *name, *file, *result, *unsupported;
	unsigned nthreads, nvars, nkeys;
	bool uses_rcu;		/* urcu: the threads register with liburcu */
	const char *vars[LK_MAXV];
	int64_t init[LK_MAXV];
	int init_addr[LK_MAXV];	/* >= 0: initially the address of that location */
	const char *keys[LK_MAXK];
	unsigned nregs[LK_MAXT];
	const char *set_why[LK_NR_PRIMS];	/* why a set cannot run it (no variant) */
	void (*thread[LK_MAXT][LK_NR_PRIMS])(struct lk_ctx *c, unsigned t);
	/* Outcomes from..to-1 into h, as sync's (observe, filter clause, exists clause) */
	void (*count)(const struct lk_ctx *c, struct lk_hist *h, uint64_t from, uint64_t to, int sync);
};

#include "litmus-tests.h"
_Static_assert(LK_NR_VARIANTS <= MMT_MAX_VARIANTS, "more litmus variants than the command line can select");

/* ---- the scenario ----------------------------------------------------------- */

enum { OPT_SYNC, OPT_STRIDE, OPT_BATCH, OPT_PERIOD, OPT_DELAY, NR_OPTIONS };
static const struct mmt_option options[NR_OPTIONS] = {
	[OPT_SYNC] = { "sync", "none, userfence, tsc, or all three in turn (witnesses counted per mode)", 2, 0, 3,
		       sync_option_names },
	[OPT_STRIDE] = { "stride", "cache lines per location (each iteration's locations are apart)", 1, 1, 64 },
	[OPT_BATCH] = { "batch", "iterations per batch, at most: a run's batches grow from 64 (4x at a time) while they last under 50 ms, so a stop never waits long for the batch under way", 10000, 16, 10000000 },
	[OPT_PERIOD] = { "period", "tsc: cycles between iterations, fixed (0: adaptive, from the one-way latency measured between batches, every 10 ms)", 0, 0, 1000000 },
	[OPT_DELAY] = { "delay", "tsc: up to this many cycles of random delay for threads other than P0; userfence: cycles P0 waits after releasing the others (0: the one-way latency measured between batches, every 10 ms)", 0, 0, 1000000 },
};

enum { OUT_NEG, OUT_POS, NR_OUTCOMES };
static const char *const outcome_names[NR_OUTCOMES] = { "not_exists", "exists" };

/* Consecutive batches at one tuned latency (the tuner's level), P0's. */
struct lk_segment {
	uint64_t first_batch, batches, calibrated;
	uint64_t level;			/* cycles: the latency the loops used */
	uint64_t period, uf_wait;	/* cycles */
	uint64_t sample_min, sample_max;	/* cycles: this segment's raw samples */
	uint64_t cycles;		/* P0's, batch start to the next */
	uint64_t iters[LK_NR_SYNC], wit[LK_NR_SYNC], late;
};

struct priv {
	struct lk_ctx ctx;
	const struct lk_test *test;
	int prim, sync_opt;
	bool adapt_period, adapt_wait;	/* --period 0, --delay 0: follow the latency */
	bool measure;			/* calibrate before a batch, every LK_CALIBRATE_NS */
	uint64_t calibrated_at;		/* P0: cycles, the last calibration's end */
	uint64_t done, cut;
	struct mmt_tune tune;
	uint64_t max_level;		/* cycles: MMT_TUNE_MAX_ONE_WAY_NS */
	struct lk_segment seg[LK_MAXSEG], overflow;
	unsigned nseg;
	uint64_t mark, end_mark;	/* P0: cycles at the last batch start, at its loop's end */
	uint64_t wit_seen[LK_NR_SYNC], iters_seen[LK_NR_SYNC];	/* already put in a segment */
	struct lk_hist hist[LK_MAXT];
	struct litmus_report *report;	/* verify()'s, for the record */
	uint64_t batch_max;		/* --batch */
	uint64_t gen_next;		/* P0: the next batch's first iteration number */
	uint64_t batch_start;		/* P0: cycles when its racing loop began */
};

static const struct lk_test *test_of(const struct mmt_run *run)
{
	return &lk_tests[lk_variant_test[run->variant - lk_variants]];
}

static size_t litmus_shared_size(const struct mmt_run *run)
{
	const struct lk_test *t = test_of(run);

	return (size_t)run->opt[OPT_BATCH] * t->nvars * run->opt[OPT_STRIDE] * MMT_CACHELINE;
}

static int litmus_check_options(const uint64_t *opt, char *err, size_t len)
{
	if (opt[OPT_PERIOD] && opt[OPT_PERIOD] < 16) {
		snprintf(err, len, "--period %llu: 0 (adaptive) or 16 cycles and more",
			 (unsigned long long)opt[OPT_PERIOD]);
		return -1;
	}
	return 0;
}

static int litmus_prepare(struct mmt_run *run)
{
	struct priv *p = mmt_alloc_lines(sizeof(*p));
	struct lk_ctx *c;

	if (!p)
		return -1;
	run->priv = p;	/* cleanup() frees the out[] allocated so far */
	p->test = test_of(run);
	p->prim = lk_variant_prim[run->variant - lk_variants];
	p->sync_opt = (int)run->opt[OPT_SYNC];
	c = &p->ctx;
	c->mem = run->shared;
	c->var_bytes = run->opt[OPT_STRIDE] * MMT_CACHELINE;
	c->iter_bytes = c->var_bytes * p->test->nvars;
	p->batch_max = run->opt[OPT_BATCH];
	c->batch = p->batch_max < LK_FIRST_BATCH ? p->batch_max : LK_FIRST_BATCH;
	c->period = run->opt[OPT_PERIOD];
	c->delay = run->opt[OPT_DELAY];
	c->nthreads = p->test->nthreads;
	p->adapt_period = !c->period && (p->sync_opt == LK_SYNC_TSC || p->sync_opt == LK_SYNC_ROTATE);
	p->adapt_wait = !c->delay && (p->sync_opt == LK_SYNC_USERFENCE || p->sync_opt == LK_SYNC_ROTATE);
	p->measure = c->nthreads > 1 && (p->adapt_period || p->adapt_wait);
	p->max_level = (uint64_t)(MMT_TUNE_MAX_ONE_WAY_NS * run->cycles_per_ns);
	if (!c->period)
		c->period = LK_FALLBACK_PERIOD;	/* until the first measurement */
	c->nvars = p->test->nvars;
	c->cut_wait = (uint64_t)(2e9 * run->cycles_per_ns);	/* 2 s of the 10 s stop grace */
	c->regs = 1;
	for (unsigned t = 0; t < c->nthreads; t++)
		c->regs = p->test->nregs[t] > c->regs ? p->test->nregs[t] : c->regs;
	if (c->regs > LK_MAXR)	/* the front end refuses such a test (ir.py): a guard, not a path */
		return -1;
	for (unsigned t = 0; t < c->nthreads; t++) {
		c->out[t] = calloc(p->batch_max * c->regs, sizeof(int64_t));
		if (!c->out[t])
			return -1;
	}
	return 0;
}

/*
 * poll: take part in placement tracking while waiting.  The leader (P0)
 * starts a sample only while it waits here for the others, so the time
 * the sample takes is time it would have spun anyway; the follower (P1)
 * answers at its arrival, before it counts itself in, and while it waits.
 * Never in the barrier right before the racing loop: a sample there
 * would start P0 or P1 late for t0 (placement-track.h: polls between
 * batches only).
 */
static void barrier_wait(struct lk_ctx *c, struct mmt_worker *w, bool poll)
{
	unsigned gen = __atomic_load_n(&c->bar_gen, __ATOMIC_ACQUIRE);

	mmt_worker_at(w, "litmus batch barrier");
	if (poll && w->track_role == MMT_TRACK_FOLLOWER)
		mmt_track_poll(w, w->ops);
	if (__atomic_add_fetch(&c->bar_count, 1, __ATOMIC_ACQ_REL) == c->nthreads) {
		__atomic_store_n(&c->bar_count, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&c->bar_gen, gen + 1, __ATOMIC_RELEASE);
	} else {
		while (__atomic_load_n(&c->bar_gen, __ATOMIC_ACQUIRE) == gen) {
			if (poll)
				mmt_track_poll_seldom(w, w->ops);
			cpu_relax();
		}
	}
}

/* One-way latency between P0 and P1 in cycles (P0's; P1 gets 0): the
 * probe's quantity, half a round trip of one word bounced on a line of
 * its own, the median of chunks (at most 15) of rounds round trips.  P0
 * writes odd values, P1 answers each with the next even one.  Both
 * threads pass the same base, above every value an earlier call left. */
static uint64_t calibrate(struct lk_ctx *c, unsigned me, unsigned chunks, unsigned rounds, uint64_t base)
{
	/* Unbounded: a thread that never answers is the runner's watchdog's
	 * to report, with where it hangs. */
	struct mmt_spin forever = { .check_every = 1u << 30, .clock = mmt_spin_clock_cycles };
	uint64_t chunk[15], v = 2 * base;

	for (unsigned k = 0; k < chunks; k++) {
		uint64_t t = mmt_cycles();

		for (unsigned r = 0; r < rounds; r++) {
			v += 2;
			if (me == 0) {
				mmt_pingpong_ask(&c->cal[0][0], v + 1, &forever);
				continue;
			}
#ifdef LK_TEST_HANG
			/* tests/litmus.sh: a follower that never answers the
			 * first batch's ping-pong (every run has that batch),
			 * so the run hangs there and must say so */
			if (base == 1024)
				for (;;)
					cpu_relax();
#endif
			mmt_pingpong_answer(&c->cal[0][0], v + 1, &forever);
		}
		chunk[k] = mmt_cycles() - t;
	}
	if (me != 0)
		return 0;
	return (uint64_t)fmax(1, mmt_pingpong_one_way(chunk, chunks, rounds));
}

/* P0: what the loops use at the tuner's level, at most
 * MMT_TUNE_MAX_ONE_WAY_NS's worth (the segment still records the latency
 * measured). */
static void apply_level(struct priv *p)
{
	uint64_t lat = p->tune.level < p->max_level ? p->tune.level : p->max_level;

	if (p->adapt_period)
		p->ctx.period = mmt_tune_period(lat);
	if (p->adapt_wait)
		p->ctx.uf_delay = lat;
}

static struct lk_segment *current_segment(struct priv *p)
{
	return p->overflow.batches ? &p->overflow : p->nseg ? &p->seg[p->nseg - 1] : NULL;
}

/* P0, at a batch's start: the segment it belongs to (a new one when what
 * the loops use changed; past LK_MAXSEG, all the rest summed in one), the
 * batch's own sample (0: none) in it. */
static void segment_for(struct priv *p, uint64_t batch, uint64_t sample)
{
	struct lk_segment *s = current_segment(p);

	if (!s || (s != &p->overflow && (s->level != p->tune.level || s->period != p->ctx.period ||
					 s->uf_wait != p->ctx.uf_delay))) {
		s = p->nseg < LK_MAXSEG ? &p->seg[p->nseg++] : &p->overflow;
		*s = (struct lk_segment){ .first_batch = batch, .sample_min = UINT64_MAX, .level = p->tune.level,
					  .period = p->ctx.period, .uf_wait = p->ctx.uf_delay };
	}
	if (sample) {
		s->calibrated++;
		s->sample_min = sample < s->sample_min ? sample : s->sample_min;
		s->sample_max = sample > s->sample_max ? sample : s->sample_max;
	}
	s->batches++;
}

/* P0, once every thread has counted the batches so far (the next batch's
 * first barrier, or verify): their iterations, witnesses and late starts,
 * and P0's time since the last mark, go to the current segment; worker 0
 * carries the run's witnesses so far for the placement split
 * (placement-track.h). */
static void settle(struct priv *p, struct mmt_worker *w0, uint64_t now)
{
	struct lk_segment *s = current_segment(p);
	uint64_t total = 0;

	for (int m = 0; m < LK_NR_SYNC; m++) {
		uint64_t wit = 0, iters = 0;

		for (unsigned k = 0; k < p->ctx.nthreads; k++) {
			wit += p->hist[k].wit[m];
			iters += p->hist[k].iters[m];
		}
		total += wit;
		if (s) {
			s->wit[m] += wit - p->wit_seen[m];
			s->iters[m] += iters - p->iters_seen[m];
		}
		p->wit_seen[m] = wit;
		p->iters_seen[m] = iters;
	}
	if (s) {
		for (unsigned k = 0; k < p->ctx.nthreads; k++)
			s->late += p->ctx.late[k];
		if (p->mark)
			s->cycles += now - p->mark;
	}
	memset(p->ctx.late, 0, sizeof(p->ctx.late));
	p->mark = now;
	w0->outcomes[OUT_POS] = total;
}

/* P0 and P1 measure their latency before the first batch: the tuner's
 * start. */
static void calibrate_first(struct priv *p, struct mmt_worker *w)
{
	uint64_t first;

	mmt_worker_at(w, "litmus calibration ping-pong");
	first = calibrate(&p->ctx, w->id, 15, 32, 0);
	if (w->id == 0) {
		mmt_tune_init(&p->tune, MMT_PROBE_STABLE_RATIO, first);
		apply_level(p);
	}
}

/* The period and the wait follow the latency measured at most
 * LK_CALIBRATE_NS ago, not the run's start: a move of the vCPUs re-tunes
 * them (issue 16).  c->calibrate, set by P0 before the batch's first
 * barrier, tells P1 whether to answer. */
static void calibrate_batch(struct priv *p, struct mmt_worker *w, uint64_t batches)
{
	if (p->ctx.calibrate && w->id < 2) {
		uint64_t x;

		mmt_worker_at(w, "litmus calibration ping-pong");
		x = calibrate(&p->ctx, w->id, 5, 8, (batches + 1) * 1024);
		if (w->id == 0) {
			p->calibrated_at = mmt_cycles();
			mmt_tune_sample(&p->tune, x);
			apply_level(p);
			segment_for(p, batches, x);
		}
	} else if (w->id == 0) {
		segment_for(p, batches, 0);
	}
}

/* Fresh locations for every iteration of the batch, reset in parallel:
 * this thread's share. */
static void reset_locations(struct lk_ctx *c, const struct lk_test *t, unsigned me)
{
	const uint64_t from = c->batch * me / c->nthreads, to = c->batch * (me + 1) / c->nthreads;
	const size_t iter_bytes = c->iter_bytes, var_bytes = c->var_bytes;
	const unsigned nvars = t->nvars;
	uint64_t init[LK_MAXV];
	size_t addr_of[LK_MAXV];	/* an address's offset in the iteration, or 0: a value */
	char *base = c->mem + from * iter_bytes;

	/* In locals: the stores below are uint64_t, as the test's init[] and
	 * the context's fields may be, so the compiler would reload them all
	 * after every store. */
	for (unsigned v = 0; v < nvars; v++) {
		init[v] = (uint64_t)t->init[v];
		addr_of[v] = t->init_addr[v] >= 0 ? (size_t)t->init_addr[v] * var_bytes + 1 : 0;
	}
	for (uint64_t i = from; i < to; i++, base += iter_bytes)
		for (unsigned v = 0; v < nvars; v++)
			*(uint64_t *)(base + v * var_bytes) =
				addr_of[v] ? (uint64_t)(uintptr_t)(base + addr_of[v] - 1) : init[v];
}

/* This thread's share of the batch's outcomes (c->ran: the whole batch,
 * or where P0 cut it). */
static void count_share(struct priv *p, struct mmt_worker *w, int sync, uint64_t gen)
{
	struct lk_ctx *c = &p->ctx;
	const unsigned me = w->id, n = c->nthreads;
	uint64_t from = c->ran * me / n, to = c->ran * (me + 1) / n, seen = p->hist[me].wit[sync];

	mmt_worker_at(w, "litmus counting");
	p->test->count(&p->ctx, &p->hist[me], from, to, sync);
	if (p->hist[me].wit[sync] != seen)	/* detection speed, to the batch */
		mmt_witness_first(w, gen + to);
	if (me == 0) {	/* before P0 sets the next batch's length */
		p->done += c->ran;
		p->cut += c->ran < c->batch;
	}
	/* Every thread raced every iteration: the placement split's count
	 * (the counting is shared out, not the racing). */
	w->ops += c->ran;
}

/*
 * The next batch's length, from how long the last one took: about
 * LK_BATCH_NS, at most 4x the last and --batch, at least 16.  A stop waits
 * for the batch under way (only userfence can cut one), and 10000
 * iterations of a primitive that takes milliseconds (synchronize_rcu
 * through liburcu in an emulated guest) outlast the stop's 10 s grace: a
 * run from 64 iterations that grows to --batch where iterations are fast.
 */
static uint64_t next_batch(const struct priv *p, uint64_t cycles, double cycles_per_ns)
{
	const struct lk_ctx *c = &p->ctx;
	double per = c->ran ? (double)cycles / (double)c->ran : 0;
	uint64_t want = per > 0 ? (uint64_t)(LK_BATCH_NS * cycles_per_ns / per) : UINT64_MAX;

	if (want > 4 * c->batch)
		want = 4 * c->batch;
	if (want > p->batch_max)
		want = p->batch_max;
	return want < 16 ? (p->batch_max < 16 ? p->batch_max : 16) : want;
}

static void litmus_worker(struct mmt_worker *w)
{
	struct priv *p = w->run->priv;
	struct lk_ctx *c = &p->ctx;
	const struct lk_test *t = p->test;
	const unsigned me = w->id;
	void (*fn)(struct lk_ctx *, unsigned) = t->thread[me][p->prim];
	uint64_t batches = 0;

	w->role = "thread";
	if (p->measure && me < 2)
		calibrate_first(p, w);
	if (me == 0 && !p->adapt_wait)
		c->uf_delay = c->delay;
	if (t->uses_rcu && p->prim == LK_URCU)
		urcu_memb_register_thread();
	for (;; batches++) {
		uint64_t gen, batch;
		int sync;

		if (me == 0) {
			/* at least one batch, however short the run or loaded the machine */
			c->go_on = !batches || (!mmt_should_stop() && !(w->run->iterations && p->done >= w->run->iterations));
			c->first_done = batches > 0;
			c->sync = p->sync_opt == LK_SYNC_ROTATE ? (int)(batches % LK_NR_SYNC) : p->sync_opt;
			if (batches)
				c->batch = next_batch(p, mmt_cycles() - p->batch_start, w->run->cycles_per_ns);
			c->gen = p->gen_next;
			p->gen_next += c->batch;
			c->calibrate = p->measure && (!batches || mmt_cycles() - p->calibrated_at >=
							  (uint64_t)(LK_CALIBRATE_NS * w->run->cycles_per_ns));
		}
		barrier_wait(c, w, true);
		if (!READ_ONCE(c->go_on))
			break;
		/* P0 sets the next batch's mode and length while the others may
		 * still be counting this one: each keeps its own copy. */
		sync = c->sync;
		gen = c->gen;
		batch = c->batch;
		if (me == 0)
			settle(p, w, mmt_cycles());
		calibrate_batch(p, w, batches);
		reset_locations(c, t, me);
		if (me == 0) {
			c->t0 = mmt_cycles() + (uint64_t)(20000 * w->run->cycles_per_ns); /* 20 us to line up */
			c->ran = c->batch;	/* every thread has read the last batch's */
		}
		barrier_wait(c, w, false);
		mmt_worker_at(w, "litmus racing loop");
		if (me == 0)
			p->batch_start = mmt_cycles();
		fn(c, me);
		barrier_wait(c, w, true);
		count_share(p, w, sync, gen);
		if (c->ran < batch)
			break;	/* only a stop cuts a batch: the run is over */
	}
	if (me == 0)
		p->end_mark = mmt_cycles();
	if (t->uses_rcu && p->prim == LK_URCU)
		urcu_memb_unregister_thread();
}

static void outcome_text(const struct lk_test *t, const int64_t *key, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (unsigned k = 0; k < t->nkeys && off < len; k++) {
		int64_t v = key[k];
		int n;

		if (v <= LK_ADDR_TAG && LK_ADDR_TAG - v < (int64_t)t->nvars)
			n = snprintf(buf + off, len - off, "%s%s=%s", k ? "; " : "", t->keys[k], t->vars[LK_ADDR_TAG - v]);
		else
			n = snprintf(buf + off, len - off, "%s%s=%lld", k ? "; " : "", t->keys[k], (long long)v);
		off += n > 0 ? (size_t)n : 0;
	}
}

/* ---- the record ----------------------------------------------------------- */

/* What the record says of a run, built by verify() for the renderer. */
struct sync_row {
	const char *mode;
	uint64_t iterations, witnesses;
	double rate;
};

struct sample_range {
	double min, max;
};

struct segment_report {
	uint64_t first_batch, batches, calibrated;
	double one_way_ns;
	const struct sample_range *sample_ns;	/* NULL: not calibrated */
	uint64_t period_cycles, userfence_wait_cycles, elapsed_ns, iterations, witnesses;
	double witnesses_per_sec;
	uint64_t tsc_late_starts;
	struct sync_row by_sync[LK_NR_SYNC];
	unsigned nr_by_sync;
	struct sample_range range;
};

struct sync_track_report {
	const char *period, *userfence_wait;
	bool measured;
	uint64_t samples, retunes, outliers;
	struct segment_report segments[LK_MAXSEG];
	unsigned nr_segments;
	const struct segment_report *overflow;	/* NULL: none */
};

struct outcome_row {
	char outcome[256];
	uint64_t count;
	bool exists;
};

struct litmus_report {
	struct sync_track_report track;
	struct segment_report overflow;
	struct sync_row by_sync[LK_NR_SYNC];
	unsigned nr_by_sync;
	struct outcome_row hist[LK_MAXH];
	char observation[256];
};

static const struct mmt_field sync_row_fields[] = {
	MMT_FIELD(struct sync_row, mode, MMT_F_TEXT),
	MMT_FIELD(struct sync_row, iterations, MMT_F_COUNT),
	MMT_FIELD(struct sync_row, witnesses, MMT_F_COUNT),
	MMT_FIELD(struct sync_row, rate, MMT_F_REAL),
};
static const struct mmt_shape sync_row_shape = MMT_SHAPE(struct sync_row, sync_row_fields);

static const struct mmt_field range_fields[] = {
	MMT_FIELD(struct sample_range, min, MMT_F_REAL),
	MMT_FIELD(struct sample_range, max, MMT_F_REAL),
};
static const struct mmt_shape range_shape = MMT_SHAPE(struct sample_range, range_fields);

static const struct mmt_field segment_fields[] = {
	MMT_FIELD(struct segment_report, first_batch, MMT_F_COUNT),
	MMT_FIELD(struct segment_report, batches, MMT_F_COUNT),
	MMT_FIELD(struct segment_report, calibrated, MMT_F_COUNT),
	MMT_FIELD(struct segment_report, one_way_ns, MMT_F_REAL),
	MMT_FIELD_OBJECT(struct segment_report, sample_ns, MMT_F_OBJECT_PTR, range_shape),
	MMT_FIELD(struct segment_report, period_cycles, MMT_F_COUNT),
	MMT_FIELD(struct segment_report, userfence_wait_cycles, MMT_F_COUNT),
	MMT_FIELD(struct segment_report, elapsed_ns, MMT_F_COUNT),
	MMT_FIELD(struct segment_report, iterations, MMT_F_COUNT),
	MMT_FIELD(struct segment_report, witnesses, MMT_F_COUNT),
	MMT_FIELD(struct segment_report, witnesses_per_sec, MMT_F_REAL),
	MMT_FIELD(struct segment_report, tsc_late_starts, MMT_F_COUNT),
	MMT_FIELD_LIST(struct segment_report, by_sync, MMT_F_MAP, sync_row_shape, nr_by_sync),
};
static const struct mmt_shape segment_shape = MMT_SHAPE(struct segment_report, segment_fields);

static const struct mmt_field track_fields[] = {
	MMT_FIELD(struct sync_track_report, period, MMT_F_TEXT),
	MMT_FIELD(struct sync_track_report, userfence_wait, MMT_F_TEXT),
	MMT_FIELD(struct sync_track_report, measured, MMT_F_BOOL),
	MMT_FIELD(struct sync_track_report, samples, MMT_F_COUNT),
	MMT_FIELD(struct sync_track_report, retunes, MMT_F_COUNT),
	MMT_FIELD(struct sync_track_report, outliers, MMT_F_COUNT),
	MMT_FIELD_LIST(struct sync_track_report, segments, MMT_F_LIST, segment_shape, nr_segments),
	MMT_FIELD_OBJECT(struct sync_track_report, overflow, MMT_F_OBJECT_PTR, segment_shape),
};
static const struct mmt_shape track_shape = MMT_SHAPE(struct sync_track_report, track_fields);

static const struct mmt_field outcome_fields[] = {
	MMT_FIELD(struct outcome_row, outcome, MMT_F_CHARS),
	MMT_FIELD(struct outcome_row, count, MMT_F_COUNT),
	MMT_FIELD(struct outcome_row, exists, MMT_F_BOOL),
};
static const struct mmt_shape outcome_shape = MMT_SHAPE(struct outcome_row, outcome_fields);

/* {mode: {iterations, witnesses, rate}} for the modes that ran. */
static unsigned by_sync_rows(const uint64_t *iters, const uint64_t *wit, struct sync_row *rows)
{
	unsigned n = 0;

	for (int s = 0; s < LK_NR_SYNC; s++)
		if (iters[s])
			rows[n++] = (struct sync_row){ sync_names[s], iters[s], wit[s],
						       (double)wit[s] / (double)iters[s] };
	return n;
}

static void segment_report(const struct lk_segment *s, double cpn, struct segment_report *r)
{
	uint64_t iters = 0, wit = 0;
	double secs = (double)s->cycles / cpn / 1e9;

	for (int m = 0; m < LK_NR_SYNC; m++) {
		iters += s->iters[m];
		wit += s->wit[m];
	}
	*r = (struct segment_report){
		.first_batch = s->first_batch, .batches = s->batches, .calibrated = s->calibrated,
		.one_way_ns = (double)s->level / cpn,
		.range = { (double)s->sample_min / cpn, (double)s->sample_max / cpn },
		.period_cycles = s->period, .userfence_wait_cycles = s->uf_wait,
		.elapsed_ns = (uint64_t)((double)s->cycles / cpn), .iterations = iters, .witnesses = wit,
		.witnesses_per_sec = secs > 0 ? (double)wit / secs : 0.0, .tsc_late_starts = s->late,
	};
	r->sample_ns = s->calibrated ? &r->range : NULL;
	r->nr_by_sync = by_sync_rows(s->iters, s->wit, r->by_sync);
}

/* Per segment of batches at one tuned latency: what the loops used and
 * what they found (results/README.md, "litmus metrics"). */
static void sync_track_report(const struct priv *p, double cpn, struct litmus_report *r)
{
	if (!(cpn > 0))
		cpn = 1;
	struct sync_track_report *t = &r->track;

	for (unsigned k = 0; k < p->nseg; k++)
		segment_report(&p->seg[k], cpn, &t->segments[k]);
	if (p->overflow.batches)
		segment_report(&p->overflow, cpn, &r->overflow);
	t->period = p->adapt_period ? "adaptive" : "fixed";
	t->userfence_wait = p->adapt_wait ? "adaptive" : "fixed";
	t->measured = p->measure;
	t->samples = p->measure ? p->tune.samples + 1 : 0;
	t->retunes = p->tune.retunes;
	t->outliers = p->tune.outliers;
	t->nr_segments = p->nseg;
	t->overflow = p->overflow.batches ? &r->overflow : NULL;
}

/* The threads' histograms, into all. */
static void merge_histograms(const struct priv *p, struct lk_hist *all)
{
	const struct lk_test *t = p->test;

	for (unsigned k = 0; k < t->nthreads; k++) {
		const struct lk_hist *h = &p->hist[k];

		for (unsigned e = 0; e < h->n; e++) {
			unsigned f;

			for (f = 0; f < all->n; f++)
				if (!memcmp(all->e[f].key, h->e[e].key, t->nkeys * sizeof(int64_t)))
					break;
			if (f == all->n && all->n < LK_MAXH) {
				all->e[f] = h->e[e];
				all->e[f].count = 0;
				all->n++;
			}
			if (f < all->n)
				all->e[f].count += h->e[e].count;
			else	/* the merged table full: counted, as a thread's own would be */
				all->other += h->e[e].count;
		}
		all->other += h->other;
		all->filtered += h->filtered;
		for (int s = 0; s < LK_NR_SYNC; s++) {
			all->iters[s] += h->iters[s];
			all->wit[s] += h->wit[s];
		}
	}
}

static void put_metrics(struct mmt_run *run, const struct priv *p, const struct lk_hist *all,
			const struct litmus_report *r, unsigned nr_hist)
{
	uint64_t iters = run->ops, pos = run->outcomes[OUT_POS];
	double secs = (double)run->elapsed_ns / 1e9;

	mmt_put_text(run, "test", p->test->name);
	mmt_put_text(run, "file", p->test->file);
	mmt_put_text(run, "lkmm_result", p->test->result);
	mmt_put_text(run, "primitives", strrchr(run->variant->name, '/') + 1);
	mmt_put_text(run, "sync", p->sync_opt == LK_SYNC_ROTATE ? "all" : sync_names[p->sync_opt]);
	mmt_put_count(run, "stride_lines", run->opt[OPT_STRIDE]);
	mmt_put_count(run, "batch", p->batch_max);
	mmt_put_count(run, "period_cycles", p->adapt_period ? MMT_NONE : p->ctx.period);
	mmt_put_count(run, "delay_cycles", p->ctx.delay);
	mmt_put_count(run, "userfence_delay_cycles", p->ctx.uf_delay);
	mmt_put_object(run, "sync_track", &r->track);
	mmt_put_list(run, "histogram", r->hist, nr_hist);
	mmt_put_count(run, "other_outcomes", all->other);
	mmt_put_count(run, "filtered_out", all->filtered);
	mmt_put_count(run, "batches_cut", p->cut);
	mmt_put_count(run, "witnesses", pos);
	mmt_put_real(run, "witness_rate", iters ? (double)pos / (double)iters : 0);
	mmt_put_real(run, "witnesses_per_sec", secs > 0 ? (double)pos / secs : 0);
	mmt_put_map(run, "by_sync", r->by_sync, r->nr_by_sync);
	/* Not seen in N independent tries: with 95% confidence the rate is
	 * below 1 - 0.05^(1/N) (about 3/N). */
	mmt_put_real(run, "not_seen_rate_below_95", pos || !iters ? NAN : 1.0 - pow(0.05, 1.0 / (double)iters));
	mmt_put_text(run, "observation", r->observation);
}

/* Executions ran, none was kept: a test whose every execution its filter
 * clause drops, or needs more loop iterations than herd7's -unroll 2 (a
 * while(1) that never ends: herd7 lists no state for it either).  Not a
 * harness that did nothing (INVALID): it says why it cannot judge. */
static void every_execution_filtered(struct mmt_run *run, uint64_t filtered)
{
	run->ops = filtered;
	run->inconclusive = true;
	snprintf(run->inconclusive_reason, sizeof(run->inconclusive_reason),
		 "all %llu executions were filtered out (its filter clause, or a loop needing more iterations than herd7's -unroll): no outcome to judge",
		 (unsigned long long)filtered);
}

static void litmus_verify(struct mmt_run *run)
{
	struct priv *p = run->priv;
	const struct lk_test *t = p->test;
	struct lk_hist *all = calloc(1, sizeof(*all));
	struct litmus_report *r = calloc(1, sizeof(*r));
	uint64_t iters = 0, pos = 0;

	/* Every thread has counted its last batch now. */
	settle(p, &run->workers[0], p->end_mark);
	for (unsigned k = 1; k < run->nr_workers; k++)
		run->workers[k].outcomes[OUT_POS] = 0;	/* all in worker 0's */
	if (!all || !r) {
		free(all);
		free(r);
		snprintf(run->values_error, sizeof(run->values_error), "litmus: out of memory for the record");
		return;
	}
	merge_histograms(p, all);
	for (unsigned e = 0; e < all->n; e++) {
		outcome_text(t, all->e[e].key, r->hist[e].outcome, sizeof(r->hist[e].outcome));
		r->hist[e].count = all->e[e].count;
		r->hist[e].exists = all->e[e].pos;
	}
	for (int s = 0; s < LK_NR_SYNC; s++) {
		iters += all->iters[s];
		pos += all->wit[s];
	}
	r->nr_by_sync = by_sync_rows(all->iters, all->wit, r->by_sync);
	sync_track_report(p, run->cycles_per_ns, r);
	run->ops = iters;
	run->outcomes[OUT_NEG] = iters - pos;
	run->outcomes[OUT_POS] = pos;
	if (!iters && all->filtered)
		every_execution_filtered(run, all->filtered);
	/* litmus7's summary line, for cross-checking against its logs */
	snprintf(r->observation, sizeof(r->observation), "Observation %s %s %llu %llu", t->name,
		 pos == 0 ? "Never" : pos == iters ? "Always" : "Sometimes",
		 (unsigned long long)pos, (unsigned long long)(iters - pos));
	put_metrics(run, p, all, r, all->n);
	p->report = r;
	free(all);
}

static void litmus_cleanup(struct mmt_run *run)
{
	struct priv *p = run->priv;

	if (!p)
		return;
	for (unsigned t = 0; t < LK_MAXT; t++)
		free(p->ctx.out[t]);
	free(p->report);
	free(p);
	run->priv = NULL;
}

static const struct mmt_metric metrics[] = {
	{ "test", MMT_METRIC_TEXT, "", MMT_BETTER_NEUTRAL, false, "the litmus test's name", NULL },
	{ "file", MMT_METRIC_TEXT, "", MMT_BETTER_NEUTRAL, false, "the .litmus file it was translated from", NULL },
	{ "lkmm_result", MMT_METRIC_TEXT, "", MMT_BETTER_NEUTRAL, true,
	  "the test's Result line (the kernel memory model's verdict); null without one", NULL },
	{ "primitives", MMT_METRIC_TEXT, "", MMT_BETTER_NEUTRAL, false, "the primitive set: kernel, kernel-mfence, urcu, c11", NULL },
	{ "sync", MMT_METRIC_TEXT, "", MMT_BETTER_NEUTRAL, false, "how the threads line up each iteration (--sync)", NULL },
	{ "stride_lines", MMT_METRIC_COUNT, "cache lines", MMT_BETTER_NEUTRAL, false, "cache lines per location (--stride)", NULL },
	{ "batch", MMT_METRIC_COUNT, "iterations", MMT_BETTER_NEUTRAL, false, "iterations per batch (--batch)", NULL },
	{ "period_cycles", MMT_METRIC_COUNT, "cycles", MMT_BETTER_NEUTRAL, true,
	  "tsc: cycles between iterations when fixed; null when adaptive", NULL },
	{ "delay_cycles", MMT_METRIC_COUNT, "cycles", MMT_BETTER_NEUTRAL, false, "tsc: random delay bound (--delay)", NULL },
	{ "userfence_delay_cycles", MMT_METRIC_COUNT, "cycles", MMT_BETTER_NEUTRAL, false,
	  "userfence: cycles P0 waits after releasing the others", NULL },
	{ "sync_track", MMT_METRIC_OBJECT, "", MMT_BETTER_NEUTRAL, false,
	  "the line-up's tuning: one-way latency measured, retunes, segments", &track_shape },
	{ "histogram", MMT_METRIC_LIST, "", MMT_BETTER_NEUTRAL, false,
	  "every final state seen: outcome, count, whether it satisfies the exists clause", &outcome_shape },
	{ "other_outcomes", MMT_METRIC_COUNT, "iterations", MMT_BETTER_NEUTRAL, false,
	  "iterations whose final state did not fit the histogram's table", NULL },
	{ "filtered_out", MMT_METRIC_COUNT, "iterations", MMT_BETTER_NEUTRAL, false,
	  "iterations the test's filter clause discarded, or cut by a loop that needed more iterations than herd7's -unroll (LK_UNROLL, 2)", NULL },
	{ "batches_cut", MMT_METRIC_COUNT, "batches", MMT_BETTER_NEUTRAL, false, "batches cut short by the run's end", NULL },
	{ "witnesses", MMT_METRIC_COUNT, "iterations", MMT_BETTER_NEUTRAL, false, "iterations whose final state satisfied exists", NULL },
	{ "witness_rate", MMT_METRIC_REAL, "witnesses/iteration", MMT_BETTER_NEUTRAL, false, "witnesses per iteration", NULL },
	{ "witnesses_per_sec", MMT_METRIC_REAL, "/s", MMT_BETTER_HIGHER, false,
	  "witnesses per second: how hard the loop hits an allowed outcome", NULL },
	{ "by_sync", MMT_METRIC_OBJECT, "", MMT_BETTER_NEUTRAL, false, "iterations, witnesses and rate per line-up mode",
	  &sync_row_shape },
	{ "not_seen_rate_below_95", MMT_METRIC_REAL, "witnesses/iteration", MMT_BETTER_NEUTRAL, true,
	  "never seen: the rate is below this with 95% confidence; null once seen", NULL },
	{ "observation", MMT_METRIC_TEXT, "", MMT_BETTER_NEUTRAL, false, "litmus7's Observation line, for cross-checking", NULL },
};

static void litmus_describe(const json_t *run, char *buf, size_t len)
{
	const json_t *m = json_object_get(run, "metrics");
	const json_t *below = json_object_get(m, "not_seen_rate_below_95");

	if (json_is_number(below))
		snprintf(buf, len, "%s; rate < %.2g (95%%)", json_string_value(json_object_get(m, "observation")),
			 json_number_value(below));
	else
		snprintf(buf, len, "%s; %.3g%%, %.3gM/s", json_string_value(json_object_get(m, "observation")),
			 100 * json_number_value(json_object_get(m, "witness_rate")),
			 json_number_value(json_object_get(m, "witnesses_per_sec")) / 1e6);
}

static const char *litmus_why_no_variant(const char *name)
{
	for (unsigned i = 0; i < LK_NR_TESTS; i++)
		if (!strcmp(lk_tests[i].name, name) && lk_tests[i].unsupported)
			return lk_tests[i].unsupported;
	return NULL;
}

static const struct mmt_scenario litmus = {
	.name = "litmus",
	.help = "C-litmus tests (kernel memory model format) in tight pinned loops, with kernel, liburcu and C11 primitives",
	MMT_TABLE(variants, lk_variants),
	MMT_TABLE(options, options),
	.min_threads = 1,
	.default_threads = 2,
	.max_threads = LK_MAXT,
	MMT_TABLE(outcomes, outcome_names),
	.ops_unit = "iterations",
	MMT_TABLE(metrics, metrics),
	/* the smoke suite: store buffering seen, and the fences that forbid it */
	.smoke_variants = "SB/kernel,SB/urcu,SB/c11,SB+mbs/kernel,MP/kernel,MP+poreleaseacquire/kernel",
	.why_no_variant = litmus_why_no_variant,
	.extra_events = "ordering",	/* memory-ordering clears beside the witnesses */
	.check_options = litmus_check_options,
	.shared_size = litmus_shared_size,
	.prepare = litmus_prepare,
	.worker = litmus_worker,
	.verify = litmus_verify,
	.cleanup = litmus_cleanup,
	.describe = litmus_describe,
	.tracks_placement = true,
};
MMT_SCENARIO(litmus);
