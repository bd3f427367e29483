/* SPDX-License-Identifier: MIT */
/*
 * litmus-bare: the ruler litmus is measured against (bench/efficiency.py),
 * for SB, the test its benchmark races (bench/litmus.py).
 *
 * SB's two threads as scenarios/litmus/SB.litmus has them, through the
 * same primitives (litmus-prims.h's LK_WRITE_ONCE and LK_READ_ONCE, one
 * variant per set), in the scenario's protocol: batches of iterations,
 * each iteration's two locations fresh and a cache line apart (--stride),
 * reset between batches by both threads; the threads lined up per
 * iteration by --sync as the scenario does (none; userfence: P0 releases
 * each iteration and waits about a one-way latency, a full fence after;
 * tsc: iteration i starts at t0 + i * period, late threads at once); the
 * period and P0's wait from the one-way latency measured by ping-pong at
 * the start, through the scenario's period law (sync-tune.h); each
 * iteration's two registers stored, every outcome counted after the batch,
 * the counting shared between the threads.  Pinned to the two CPUs given,
 * probed before and after with the harness's placement probe.
 *
 * What it leaves out is the harness: no re-measured latency before every
 * batch (the scenario follows a move of the vCPUs; a pair whose placement
 * moved is left out of the efficiency table anyway), no growing batches,
 * no outcome histogram keyed by the test's registers (SB has four
 * outcomes: a 2x2 table), no segments, tracker or worker records.
 *
 * Prints one JSON object on stdout.  Exit 0; 2 bad input (one line on
 * stderr); 3 a CPU could not be pinned, a thread started, or the other
 * thread did not come to a batch's barrier in 10 s.  SB's witness is
 * allowed on every architecture: a register holding a value nobody stored
 * is counted as other_outcomes, for the caller to check.
 */
#define URCU_INLINE_SMALL_FUNCTIONS
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <urcu/arch.h>
#include <urcu/system.h>
#include <urcu/uatomic.h>
#include <urcu/urcu-memb.h>

#include "arch/barrier.h"
#include "clock.h"
#include "litmus-prims.h"
#include "ruler.h"
#include "sync-tune.h"
#include "timing.h"

/* SB under each primitive set, in litmus-prims.h's order: a variant's
 * number is its set's (the scenario's SB/<set> variants). */
#define SB_VARIANTS(X)                                                                             \
	X(KERNEL, "SB/kernel", 0, HAND_ROLLED)                                                     \
	X(KERNEL_MFENCE, "SB/kernel-mfence", 0, HAND_ROLLED)                                       \
	X(URCU, "SB/urcu", 0, LIBURCU)                                                             \
	X(C11, "SB/c11", 0, C11)
#define SB_ENUM(e, ...) V_##e,
enum { SB_VARIANTS(SB_ENUM) NR_VARIANTS };
_Static_assert((int)V_KERNEL == LK_KERNEL && (int)V_KERNEL_MFENCE == LK_KERNEL_MFENCE &&
		       (int)V_URCU == LK_URCU && (int)V_C11 == LK_C11 && (int)NR_VARIANTS == LK_NR_PRIMS,
	       "a variant's number is its primitive set's");

#define RULER_HAS(v) true
#define RULER_ROLE0(v, x) sb_thread(v, x, 0)
#define RULER_ROLE1(v, x) sb_thread(v, x, 1)

/* --sync, as the scenario's (its numbering, its names). */
enum { SYNC_NONE, SYNC_USERFENCE, SYNC_TSC };
static const char *const sync_names[] = { "none", "userfence", "tsc", NULL };
#define LINE_UP_NS 20000	/* the scenario's: t0 is 20 us after P0 sets it */
#define BARRIER_BOUND_NS 10000000000ull

struct side {
	uint64_t iters;			/* P0: iterations both threads ran */
	uint64_t outcome[4];		/* this thread's share: [r0 * 2 + r1] */
	uint64_t other;			/* a register holding neither 0 nor 1 */
	uint64_t late;			/* tsc: iterations this thread began after its slot */
	uint64_t t_begin_ns, t_end_ns;
} __mmt_aligned;

struct flag {
	uint64_t v;
} __mmt_aligned;

/* Where iteration i's two locations are. */
struct layout {
	char *mem;
	size_t var_bytes, iter_bytes;
};

struct bare {
	char *mem;			/* batch iterations of two locations */
	size_t var_bytes, iter_bytes;
	uint64_t batch;
	int sync;
	uint64_t fixed_period;		/* --period; 0: from the measured latency */
	uint64_t *reg[2];		/* each thread's register, one per iteration */
	struct flag arrive[2];		/* userfence */
	struct flag bar_count, bar_gen;
	struct flag cal;		/* the ping-pong's line */
	uint64_t t0, period, uf_wait, one_way;	/* P0 sets them before the batch's barrier */
	int go_on;
	struct side side[2];
};

/* Gives up, saying what it waited for, when the other thread has not
 * come in 10 s (it never returns then). */
static void waited_too_long(unsigned me, const char *what)
{
	fprintf(stderr, "litmus-bare: P%u waited 10 s for P%u %s; giving up\n", me, !me, what);
	_exit(3);
}

static struct mmt_spin bounded(void)
{
	return (struct mmt_spin){ .check_every = 1024, .timeout = BARRIER_BOUND_NS, .clock = mmt_spin_clock_ns };
}

/* Both threads here; what P0 stored before it is seen after it. */
static void barrier_wait(struct bare *x, unsigned me)
{
	uint64_t gen = __atomic_load_n(&x->bar_gen.v, __ATOMIC_ACQUIRE);
	struct mmt_spin s = bounded();

	if (__atomic_add_fetch(&x->bar_count.v, 1, __ATOMIC_ACQ_REL) == 2) {
		__atomic_store_n(&x->bar_count.v, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&x->bar_gen.v, gen + 1, __ATOMIC_RELEASE);
		return;
	}
	while (__atomic_load_n(&x->bar_gen.v, __ATOMIC_ACQUIRE) == gen)
		if (mmt_spin_step(&s) != MMT_SPIN_ON)
			waited_too_long(me, "at a batch's barrier");
}

/* P0's one-way latency to P1 in cycles (P1 gets 0), as the scenario's
 * first calibration: 15 chunks of 32 round trips, the median chunk. */
static uint64_t calibrate(struct bare *x, unsigned me)
{
	uint64_t chunk[15], v = 0;
	struct mmt_spin s = bounded();

	for (unsigned k = 0; k < 15; k++) {
		uint64_t t = mmt_cycles();

		for (unsigned r = 0; r < 32; r++) {
			v += 2;
			if ((me ? mmt_pingpong_answer(&x->cal.v, v + 1, &s) : mmt_pingpong_ask(&x->cal.v, v + 1, &s)) !=
			    MMT_SPIN_ON)
				waited_too_long(me, "in the latency ping-pong");
			s.deadline = 0;	/* the bound restarts with each answer */
		}
		chunk[k] = mmt_cycles() - t;
	}
	return me ? 0 : (uint64_t)fmax(1, mmt_pingpong_one_way(chunk, 15, 32));	/* the scenario's floor */
}

/* The scenario's lk_userfence without its cut: P0 waits for P1, releases
 * it and waits about as long as the release takes to arrive.  The bound's
 * count is in the wait only, where the scenario spins bare. */
static inline void userfence(struct bare *x, unsigned me, uint64_t want, struct mmt_spin *s)
{
	if (me == 0) {
		while (READ_ONCE(x->arrive[1].v) < want)
			if (unlikely(mmt_spin_step(s) != MMT_SPIN_ON))
				waited_too_long(me, "at an iteration's rendezvous");
		smp_store_release(&x->arrive[0].v, want);
		if (x->uf_wait)
			mmt_spin_until_cycles(mmt_cycles() + x->uf_wait);
	} else {
		WRITE_ONCE(x->arrive[1].v, want);
		while (READ_ONCE(x->arrive[0].v) < want)
			if (unlikely(mmt_spin_step(s) != MMT_SPIN_ON))
				waited_too_long(me, "at an iteration's rendezvous");
	}
	smp_mb();
}

/* The scenario's lk_tsc_wait: 1 when the slot had passed. */
static inline unsigned tsc_wait(uint64_t at)
{
	if ((int64_t)(mmt_cycles_unordered() - at) >= 0)
		return 1;
	while ((int64_t)(mmt_cycles_unordered() - at) < 0)
		;
	return 0;
}

/* One iteration of SB's thread me: its store, then its load of the other's location. */
#define SB_ITER(P, x, me, i, reg)                                                                  \
	do {                                                                                       \
		uint64_t *loc = (uint64_t *)((x)->mem + (i) * (x)->iter_bytes);                   \
		uint64_t *mine = (uint64_t *)((char *)loc + (me) * (x)->var_bytes);               \
		uint64_t *theirs = (uint64_t *)((char *)loc + !(me) * (x)->var_bytes);            \
		LK_WRITE_ONCE(P, mine, 1);                                                         \
		(reg)[i] = LK_READ_ONCE(P, theirs);                                                \
	} while (0)

static inline __attribute__((always_inline)) void race(const int v, struct bare *x, unsigned me, uint64_t gen)
{
	/* The layout in locals, as the scenario's loop has it: a store
	 * through a location may alias the context's words. */
	const struct layout lay = { x->mem, x->var_bytes, x->iter_bytes };
	uint64_t *const reg = x->reg[me];
	const uint64_t n = x->batch;

	switch (x->sync) {
	case SYNC_NONE:
		for (uint64_t i = 0; i < n; i++)
			SB_ITER(v, &lay, me, i, reg);
		break;
	case SYNC_USERFENCE: {
		struct mmt_spin s = bounded();

		for (uint64_t i = 0; i < n; i++) {
			userfence(x, me, gen + i + 1, &s);
			s.deadline = 0;
			SB_ITER(v, &lay, me, i, reg);
		}
		break;
	}
	default: {
		const uint64_t t0 = x->t0, period = x->period;
		uint64_t late = 0;

		for (uint64_t i = 0; i < n; i++) {
			late += tsc_wait(t0 + i * period);
			SB_ITER(v, &lay, me, i, reg);
		}
		x->side[me].late += late;
	}
	}
}

/* This thread's half of the batch: locations back to 0, before the race. */
static void reset_share(struct bare *x, unsigned me)
{
	for (uint64_t i = x->batch * me / 2; i < x->batch * (me + 1) / 2; i++) {
		uint64_t *loc = (uint64_t *)(x->mem + i * x->iter_bytes);

		loc[0] = 0;
		*(uint64_t *)((char *)loc + x->var_bytes) = 0;
	}
}

/* This thread's half of the batch's outcomes, after the race. */
static void count_share(struct bare *x, unsigned me)
{
	struct side *s = &x->side[me];

	for (uint64_t i = x->batch * me / 2; i < x->batch * (me + 1) / 2; i++) {
		uint64_t r0 = x->reg[0][i], r1 = x->reg[1][i];

		if ((r0 | r1) > 1)
			s->other++;
		else
			s->outcome[r0 * 2 + r1]++;
	}
}

static inline __attribute__((always_inline)) void sb_thread(const int v, struct bare *x, unsigned me)
{
	struct side *s = &x->side[me];
	uint64_t batches;

	s->t_begin_ns = ruler_start_together();
	if (x->sync != SYNC_NONE) {
		uint64_t one_way = calibrate(x, me);

		if (me == 0) {
			/* As the scenario's apply_level(): the latency capped at
			 * MMT_TUNE_MAX_ONE_WAY_NS's worth before the period and
			 * the wait come from it. */
			const uint64_t cap = (uint64_t)(MMT_TUNE_MAX_ONE_WAY_NS * mmt_cycles_per_ns());
			const uint64_t lat = one_way < cap ? one_way : cap;

			x->one_way = one_way;
			x->period = x->fixed_period ? x->fixed_period : mmt_tune_period(lat);
			x->uf_wait = lat;
		}
	}
	for (batches = 0;; batches++) {
		if (me == 0)	/* at least one batch, however short the run */
			x->go_on = !batches || !READ_ONCE(ruler_time_up.v);
		barrier_wait(x, me);
		if (!x->go_on)
			break;
		reset_share(x, me);
		if (me == 0)
			x->t0 = mmt_cycles() + (uint64_t)(LINE_UP_NS * mmt_cycles_per_ns());
		barrier_wait(x, me);
		race(v, x, me, batches * x->batch);
		barrier_wait(x, me);
		count_share(x, me);
		if (me == 0)
			s->iters += x->batch;
	}
	s->t_end_ns = mmt_now_ns();
}

SB_VARIANTS(RULER_LOOP)
static const struct ruler_variant variants[NR_VARIANTS] = { SB_VARIANTS(RULER_ROW) };

enum { OPT_SYNC, OPT_PERIOD, OPT_BATCH, OPT_STRIDE, NR_OPTS };
static const struct ruler_opt opts[NR_OPTS] = {
	[OPT_SYNC] = { .name = "sync", .arg = "MODE", .text = "the threads' line-up, as the scenario's --sync",
		       .def = SYNC_TSC, .min = SYNC_NONE, .max = SYNC_TSC, .names = sync_names },
	[OPT_PERIOD] = { .name = "period", .text = "tsc: cycles between iterations (0: from the measured latency)",
			 .def = 0, .min = 0, .max = 1000000 },
	[OPT_BATCH] = { .name = "batch", .text = "iterations per batch (the scenario's largest)", .def = 10000,
			.min = 16, .max = 10000000 },
	[OPT_STRIDE] = { .name = "stride", .text = "cache lines per location", .def = 1, .min = 1, .max = 64 },
};

static void *prepare(const struct ruler_args *a)
{
	struct bare *x = mmt_alloc_lines(sizeof(*x));

	if (!x)
		return NULL;
	x->sync = (int)a->val[OPT_SYNC];
	x->fixed_period = a->val[OPT_PERIOD];
	x->batch = a->val[OPT_BATCH];
	x->var_bytes = a->val[OPT_STRIDE] * MMT_CACHELINE;
	x->iter_bytes = 2 * x->var_bytes;
	x->mem = mmt_alloc_lines(x->batch * x->iter_bytes);
	x->reg[0] = mmt_alloc_lines(x->batch * sizeof(uint64_t));
	x->reg[1] = mmt_alloc_lines(x->batch * sizeof(uint64_t));
	return x->mem && x->reg[0] && x->reg[1] ? x : NULL;
}

/* What it prints after the run (bench/ruler.h). */
struct result {
	const char *sync;
	uint64_t period_cycles, one_way_cycles, batch, elapsed_ns, iterations;
	double iterations_per_sec;
	uint64_t witnesses;
	double witnesses_per_sec, witness_rate;
	uint64_t outcomes[4];
	unsigned nr_outcomes;
	uint64_t other_outcomes, tsc_late_starts;
};
static const struct mmt_field result_fields[] = {
	MMT_FIELD(struct result, sync, MMT_F_TEXT),
	MMT_FIELD(struct result, period_cycles, MMT_F_COUNT),
	MMT_FIELD(struct result, one_way_cycles, MMT_F_COUNT),
	MMT_FIELD(struct result, batch, MMT_F_COUNT),
	MMT_FIELD(struct result, elapsed_ns, MMT_F_COUNT),
	MMT_FIELD(struct result, iterations, MMT_F_COUNT),
	MMT_FIELD(struct result, iterations_per_sec, MMT_F_REAL),
	MMT_FIELD(struct result, witnesses, MMT_F_COUNT),
	MMT_FIELD(struct result, witnesses_per_sec, MMT_F_REAL),
	MMT_FIELD(struct result, witness_rate, MMT_F_REAL),
	MMT_FIELD_COUNTS(struct result, outcomes, nr_outcomes),
	MMT_FIELD(struct result, other_outcomes, MMT_F_COUNT),
	MMT_FIELD(struct result, tsc_late_starts, MMT_F_COUNT),
};
static const struct mmt_shape result_shape = MMT_SHAPE(struct result, result_fields);

static const void *result(void *arg, const struct ruler_args *a, bool *mismatched)
{
	static struct result res;
	const struct bare *x = arg;
	const struct side *p0 = &x->side[0], *p1 = &x->side[1];
	uint64_t elapsed = p0->t_end_ns - p0->t_begin_ns, wit = p0->outcome[0] + p1->outcome[0];

	(void)a;
	*mismatched = false;	/* SB's witness is allowed everywhere */
	res = (struct result){
		.sync = sync_names[x->sync], .period_cycles = x->sync == SYNC_TSC ? x->period : 0,
		.one_way_cycles = x->one_way, .batch = x->batch, .elapsed_ns = elapsed,
		.iterations = p0->iters,
		.iterations_per_sec = elapsed ? (double)p0->iters * 1e9 / (double)elapsed : 0.0,
		.witnesses = wit, .witnesses_per_sec = elapsed ? (double)wit * 1e9 / (double)elapsed : 0.0,
		.witness_rate = p0->iters ? (double)wit / (double)p0->iters : 0.0, .nr_outcomes = 4,
		.other_outcomes = p0->other + p1->other, .tsc_late_starts = p0->late + p1->late,
	};
	for (int o = 0; o < 4; o++)
		res.outcomes[o] = p0->outcome[o] + p1->outcome[o];
	return &res;
}

static const struct ruler litmus_ruler = {
	.prog = "litmus-bare",
	.result_shape = &result_shape,
	.synopsis = "usage: litmus-bare [--variant V] [--cpus A,B] [--duration D] [--sync MODE] [--period N]\n"
		    "                   [--batch N] [--stride N] | --list\n"
		    "litmus's SB with no harness around it: the ruler bench/efficiency.py divides by.\n",
	.variant_help = "SB with a primitive set's WRITE_ONCE and READ_ONCE",
	.roles = { "P0", "P1" },
	.epilogue = "Prints one JSON object: iterations and iterations_per_sec (both threads ran each),\n"
		    "witnesses (0:r0=0 /\\ 1:r0=0), witnesses_per_sec, witness_rate, outcomes [r0 r1 = 00 01 10 11],\n"
		    "other_outcomes (none is right), the period used and the probe before and after (one-way ns).\n"
		    "Exit 0; 2 bad input; 3 a CPU not pinned, a thread not started or a barrier not met in 10 s.\n",
	.help_column = 16,
	.no_ruler = "",
	MMT_TABLE(variants, variants),
	.default_variant = V_KERNEL,
	MMT_TABLE(opts, opts),
	.prepare = prepare,
	.result = result,
};

RULER_MAIN(litmus_ruler)
