/* SPDX-License-Identifier: MIT */
/*
 * The harness's timing layer, in one place: pinning a thread to a CPU,
 * bounded spin waits, the ping-pong that defines a one-way latency, and
 * randomised delays.  The placement probe (probe.c), the in-run tracker
 * (placement-track.c), litmus's per-batch calibration and mmrace's
 * migrator build on it; the latency tracker that follows a placement
 * (median of the last few samples, retuned when two agree) is sync-tune.h.
 *
 * One-way latency, everywhere in this project: one 64-bit word alone on a
 * cache line; the asker writes an odd value v and spins until it reads
 * v + 1, which the answerer writes once it has seen v.  Rounds are timed
 * in chunks; the latency is the median chunk's mean round trip, halved,
 * so one preempted chunk spoils itself and not the figure.  Neither side
 * executes a pause while it spins: a pause (up to ~140 cycles on some
 * x86) would be counted as line transfer.
 */
#ifndef MMT_TIMING_H
#define MMT_TIMING_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "arch/barrier.h"
#include "mix.h"

/* ---- pinning --------------------------------------------------------------------- */

/* The calling thread, a thread, a thread not yet created: onto one CPU.
 * 0 or an errno value, as pthread_setaffinity_np. */
int mmt_pin_self(int cpu);
int mmt_pin_thread(pthread_t thread, int cpu);
int mmt_pin_attr(pthread_attr_t *attr, int cpu);

/* ---- bounded spin waits ---------------------------------------------------------- */

enum mmt_spin_end {
	MMT_SPIN_ON,		/* keep waiting */
	MMT_SPIN_TIMEOUT,	/* the deadline passed */
	MMT_SPIN_STOPPED,	/* stop() said so */
};

/*
 * What a waiting side does between looks at its condition.  Every
 * check_every spins (a power of two) it asks stop(), then the clock
 * against deadline; after yield_after spins it yields the CPU at every
 * check (the other side shares this CPU and can answer only when we step
 * aside; 0: never, as a CPU of its own on a loaded machine would go to
 * another task for a whole time slice).  clock is mmt_spin_clock_cycles
 * or mmt_spin_clock_ns, whichever deadline and timeout are in.
 *
 * A zero deadline is armed at the next check to clock() + timeout (never,
 * with a zero timeout): a side that answers many rounds sets deadline to
 * 0 after each and so restarts its bound without a clock read per round,
 * which would add to every round trip it times.
 */
struct mmt_spin {
	unsigned spins, check_every, yield_after;
	uint64_t timeout, deadline;
	uint64_t (*clock)(void);
	bool (*stop)(const void *arg);
	const void *arg;
};

enum mmt_spin_end mmt_spin_check(struct mmt_spin *s);

/* One spin: cheap until the check_every'th. */
static inline enum mmt_spin_end mmt_spin_step(struct mmt_spin *s)
{
	if (++s->spins & (s->check_every - 1))
		return MMT_SPIN_ON;
	return mmt_spin_check(s);
}

/* The clocks, as functions a struct mmt_spin can point at. */
uint64_t mmt_spin_clock_cycles(void);
uint64_t mmt_spin_clock_ns(void);

/* ---- ping-pong ------------------------------------------------------------------- */

/* Asks v (odd) on line and waits for the answer v + 1. */
static inline enum mmt_spin_end mmt_pingpong_ask(uint64_t *line, uint64_t v, struct mmt_spin *s)
{
	enum mmt_spin_end e = MMT_SPIN_ON;

	WRITE_ONCE(*line, v);
	while (READ_ONCE(*line) != v + 1)
		if ((e = mmt_spin_step(s)) != MMT_SPIN_ON)
			return e;
	return MMT_SPIN_ON;
}

/* Waits for v (odd) on line and answers v + 1. */
static inline enum mmt_spin_end mmt_pingpong_answer(uint64_t *line, uint64_t v, struct mmt_spin *s)
{
	enum mmt_spin_end e;

	while (READ_ONCE(*line) != v)
		if ((e = mmt_spin_step(s)) != MMT_SPIN_ON)
			return e;
	WRITE_ONCE(*line, v + 1);
	return MMT_SPIN_ON;
}

/* The one-way latency from chunk[0..n) (each the clock ticks of rounds
 * round trips): the median chunk, per round, halved.  Sorts chunk. */
double mmt_pingpong_one_way(uint64_t *chunk, unsigned n, unsigned rounds);

/* ---- delays ---------------------------------------------------------------------- */

/* A random number in [0, max], advancing *seed: a run's delays follow from
 * its recorded seed. */
static inline uint64_t mmt_random_upto(uint64_t *seed, uint64_t max)
{
	*seed = mmt_mix64(*seed);
	return max == UINT64_MAX ? *seed : *seed % (max + 1);
}

/* Spins (no pause: the caller's timing is the point) until the clock
 * passes end. */
static inline void mmt_spin_until_cycles(uint64_t end)
{
	while ((int64_t)(mmt_cycles() - end) < 0)
		;
}

void mmt_spin_until_ns(uint64_t end_ns);

/* Median of v[0..n) (the mean of the middle two for even n); sorts v. */
uint64_t mmt_median_u64(uint64_t *v, unsigned n);
double mmt_median_double(double *v, unsigned n);

#endif
