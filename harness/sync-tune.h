/* SPDX-License-Identifier: MIT */
/*
 * Placement-adaptive synchronisation (issue 16).  The host moves this
 * VM's two vCPUs between SMT siblings (~10 ns one way), one L3 (~30-60 ns)
 * and different dies (~100-230 ns) every few seconds, and a litmus
 * iteration's race window is about one cache-line transfer: a tsc period
 * or a userfence wait tuned for one placement is wrong at the others.
 *
 * A tuner takes one one-way latency sample per batch (cycles, half a
 * ping-pong round trip, the probe's quantity) and keeps an estimate: the
 * median of the current placement's last few samples.  A sample further
 * than ratio from it is held back: when the next one agrees with it
 * (within ratio) the placement changed and the estimate restarts from the
 * two (a retune); alone it was an outlier (a preempted ping-pong) and is
 * dropped.  What the loops use is the level: the estimate on a grid of
 * 1/8 octave, changed only when the estimate leaves the level's step, so
 * a placement's jitter does not change the period every batch.
 */
#ifndef MMT_SYNC_TUNE_H
#define MMT_SYNC_TUNE_H

#include <stdbool.h>
#include <stdint.h>

#define MMT_TUNE_WINDOW 5

struct mmt_tune {
	double ratio;
	double est;			/* median of win */
	uint64_t level;			/* est on the grid, at least 1; what the loops use */
	double win[MMT_TUNE_WINDOW];
	unsigned n, next;
	double pending;			/* a sample off est, waiting for the next */
	bool has_pending;
	uint64_t samples, retunes, outliers;
};

enum { MMT_TUNE_KEPT, MMT_TUNE_HELD, MMT_TUNE_MOVED };

/* Starts from a first (longer) measurement.  Samples are in any unit
 * (litmus: cycles; the in-run tracker's segmentation: ns). */
void mmt_tune_init(struct mmt_tune *t, double ratio, double first);

/* One batch's sample: MMT_TUNE_MOVED when it confirmed a change of
 * placement (the estimate restarted), MMT_TUNE_HELD when it is held back
 * as a possible outlier, else MMT_TUNE_KEPT.  The level may change with
 * any of them but HELD. */
int mmt_tune_sample(struct mmt_tune *t, double one_way);

/* Whether x is further than ratio (either way) from ref. */
bool mmt_tune_differs(double x, double ref, double ratio);

/*
 * The tsc period for a one-way latency, both in cycles.  Each thread
 * starts iteration i at t0 + i * period.  The slot wait reads the clock
 * without waiting for earlier loads, so iterations overlap: the period
 * sets how many are in flight per line-transfer latency, and scales with
 * it so that the count is the same at every placement (a fixed 150 had
 * one in flight in one L3 and the threads losing each other across dies,
 * issue 16).
 */
uint64_t mmt_tune_period(uint64_t one_way_cycles);

/*
 * The most one-way latency the loops follow, ns.  A line crosses dies in
 * ~230 ns here and sockets in well under a microsecond; a sample above
 * this is two threads on one CPU (a forced move, or the scheduler's),
 * each answer a context switch, milliseconds on a loaded machine.  Slots
 * that far apart never overlap, and a tsc batch runs to its end after
 * the stop: 10000 slots at such a period kept a 1.5 s run going for 5 s
 * and left it one sample after the threads were apart again.
 */
#define MMT_TUNE_MAX_ONE_WAY_NS 5000

#endif
