/* SPDX-License-Identifier: MIT */
/*
 * In-run placement tracking.  The probes before and after a run cannot see
 * the host moving the vCPUs in between (probe 44 -> 38 ns around a run that
 * measured 243 ns), so during the run worker 0 (the leader) asks worker 1
 * (the follower) for a short ping-pong on a line of their own every
 * interval (10 ms), and keeps the one-way latency it measured, the same
 * quantity as the probe's (half a one-line round trip), with both workers'
 * progress and witness counts at that moment.  After the run the samples
 * are cut into segments where the latency changed by more than
 * MMT_PROBE_STABLE_RATIO for two samples in a row, and the run's figures
 * are split by placement.
 *
 * A scenario takes part by calling mmt_track_poll(w, ops) in worker 0's
 * and worker 1's loops, in the work loop and in every wait loop (the
 * follower answers only from a poll, and a leader that waits for it in a
 * loop without one would time out; a leader that reads the clock once per
 * operation may poll there instead, mmt_track_poll_clock), with ops the
 * worker's count so far
 * (what it leaves in w->ops at the end), and setting .tracks_placement.
 * Off the sampling moment the leader's poll is a decrement, the
 * follower's one load of a line written once per sample.  The split's
 * witnesses are workers 0 and 1's w->outcomes[1..] at each sample: a
 * scenario that takes part counts them there as they happen.
 */
#ifndef MMT_PLACEMENT_TRACK_H
#define MMT_PLACEMENT_TRACK_H

#include "values.h"

#include <jansson.h>
#include <stdint.h>

#include "scenario.h"

enum { MMT_TRACK_NONE, MMT_TRACK_LEADER, MMT_TRACK_FOLLOWER };

/* Leader polls between two looks at the clock. */
#define MMT_TRACK_POLLS_PER_CLOCK 256

struct mmt_track_sample {
	uint64_t t_ns;			/* since the run's tracker started */
	double one_way_ns;		/* median of chunk means, halved */
	double session_ns;		/* the session's length, its cost */
	uint64_t ops[2];		/* leader's and follower's count */
	uint64_t witnesses[2];
};

struct mmt_track {
	uint64_t req __mmt_aligned;	/* leader: session number asked for */
	int leader_cpu;			/* where the leader asked from */
	struct {
		uint64_t seq;		/* follower: session it entered */
		uint64_t ops, witnesses;
		int cpu;		/* where the follower answers from */
	} ack __mmt_aligned;
	uint64_t ping __mmt_aligned;	/* session << 32 | round; see placement-track.c */
	/* The leader's own, below: only worker 0 touches these in the run. */
	uint64_t seq __mmt_aligned;
	uint64_t interval_ns, interval_cycles, next_cycles, t0_cycles;
	double cycles_per_ns;
	unsigned nr_outcomes;
	unsigned nr, cap;
	uint64_t missed;		/* sessions the follower did not join in time */
	uint64_t session_cycles;	/* the leader's time in sessions: their cost */
	uint64_t join_cycles;		/* of which waiting for the follower to join */
	struct mmt_track_sample *s;
};

void mmt_track_lead(struct mmt_worker *w, uint64_t ops);
void mmt_track_answer(struct mmt_worker *w, uint64_t ops);

static inline void mmt_track_poll(struct mmt_worker *w, uint64_t ops)
{
	if (w->track_role == MMT_TRACK_LEADER) {
		if (unlikely(--w->track_countdown == 0))
			mmt_track_lead(w, ops);
	} else if (w->track_role == MMT_TRACK_FOLLOWER) {
		if (unlikely(READ_ONCE(w->track->req) != w->track_seen))
			mmt_track_answer(w, ops);
	}
}

/* For a leader that reads the cycle counter anyway, once per operation
 * (msgpass's producer): its reading replaces the countdown, so the poll is
 * one compare against the next sample's time, it samples on time however
 * slowly the loop runs, and the leader's waits need no poll of their own
 * (the follower's still do: it answers only from a poll).  A follower's
 * call is mmt_track_poll's. */
static inline void mmt_track_poll_clock(struct mmt_worker *w, uint64_t ops, uint64_t now)
{
	if (w->track_role == MMT_TRACK_LEADER) {
		if (unlikely((int64_t)(now - w->track->next_cycles) >= 0))
			mmt_track_lead(w, ops);
	} else {
		mmt_track_poll(w, ops);
	}
}

/* For loops that reach a poll seldom (litmus: only between batches, never
 * inside the racing iteration): the leader looks at the clock at every
 * call, not every MMT_TRACK_POLLS_PER_CLOCK-th. */
static inline void mmt_track_poll_seldom(struct mmt_worker *w, uint64_t ops)
{
	if (w->track_role == MMT_TRACK_LEADER)
		w->track_countdown = 1;
	mmt_track_poll(w, ops);
}

/* Runner side: a tracker for run (NULL when the scenario does not take
 * part, has fewer than two workers, or tracking is off), the roles set in
 * run->workers[0] and [1]; interval_ns 0 means off. */
struct mmt_track *mmt_track_create(struct mmt_run *run, uint64_t interval_ns);
void mmt_track_destroy(struct mmt_track *t);

/* The record's "placement_track" (mmt_track_shape), from the samples and
 * the final counts in run->workers (w->ops, w->outcomes): segments, the
 * split by placement. */
#define MMT_TRACK_SEGMENTS 64
#define MMT_TRACK_CLASSES 16
struct mmt_track_segment_report {
	uint64_t start_ns, end_ns;
	int samples;
	double one_way_ns;
};
struct mmt_track_class_report {
	double one_way_ns;
	int segments, samples;
	uint64_t elapsed_ns, ops;
	double ops_per_sec;
	uint64_t witnesses;
	double witnesses_per_sec;
};
struct mmt_track_range {
	double min, max;
};
struct mmt_track_report {
	uint64_t cpus[2];
	unsigned nr_cpus;
	uint64_t interval_ns, sampling_ns, join_wait_ns;
	double session_ns_median;	/* NaN: no sample */
	int samples;
	uint64_t missed;
	int outliers;
	bool moved;
	int moves;
	const struct mmt_track_range *one_way_ns;	/* NULL: no sample */
	struct mmt_track_segment_report segments[MMT_TRACK_SEGMENTS];
	unsigned nr_segments;
	struct mmt_track_class_report by_placement[MMT_TRACK_CLASSES];
	unsigned nr_classes;
	uint64_t unattributed_ns;
	int ops_worker;
	struct mmt_track_range range;
};
extern const struct mmt_shape mmt_track_shape;
/* 0, or -1 when there is nothing to say (no tracker, out of memory).
 * elapsed_ns: the run's. */
int mmt_track_report(const struct mmt_track *t, const struct mmt_run *run, uint64_t elapsed_ns,
		     struct mmt_track_report *out);

/* ---- segmentation, a pure function for the unit tests --------------------- */

struct mmt_track_segment {
	unsigned first, last;		/* sample indices, inclusive */
	unsigned samples;		/* not counting outliers */
	double one_way_ns;		/* median of its samples */
};

/*
 * Cuts one_way[0..n) into segments: a sample further than ratio from the
 * current segment's median starts a new segment when the next sample is
 * too (and is within ratio of it); alone it is an outlier (a preempted
 * ping-pong) and stays in the segment without counting towards its median.
 * Returns the number of segments (at most max; later ones are merged into
 * the last), *outliers the single-sample excursions.
 */
unsigned mmt_track_segment(const double *one_way, unsigned n, double ratio,
			   struct mmt_track_segment *seg, unsigned max, unsigned *outliers);

/* Test hooks from the environment, read once, before the first run:
 *   MMT_TRACK_INTERVAL_MS=N    sampling interval (default 10; 0: off)
 *   MMT_TEST_MOVE=W:CPU@MS[,W:CPU@MS...]   re-pin worker W to CPU MS ms
 *                              into each run (the suite forces a migration
 *                              the probes cannot see)
 * Returns 0, or -1 with one line in err. */
struct mmt_move {
	unsigned worker;
	int cpu;
	uint64_t at_ns;
};
#define MMT_MAX_MOVES 8
struct mmt_track_env {
	uint64_t interval_ns;
	unsigned nr_moves;
	struct mmt_move move[MMT_MAX_MOVES];
};
int mmt_track_env_parse(const char *interval, const char *moves, struct mmt_track_env *env,
			char *err, size_t len);

#endif
