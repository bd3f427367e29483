/* SPDX-License-Identifier: MIT */
#include "placement-track.h"
#include "arch/barrier.h"
#include "clock.h"
#include "probe.h"
#include "sync-tune.h"
#include "timing.h"

#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * One sample: CHUNKS chunks of ROUNDS round trips on the ping line, the
 * median chunk halved: the probe's definition, 40 round trips (under 20 us
 * across dies) instead of the probe's 1984, every 10 ms: about 0.2% of
 * the run at the slowest placement.
 *
 * Ping values carry the session in the high half (session << 32 | round),
 * so a follower that joins a session late, after the leader gave up on it,
 * never answers rounds of the next one; the low half STOP_ROUND ends it.
 */
#define CHUNKS 5
#define ROUNDS 8
#define STOP_ROUND 0xffffffffu
#define MAX_SAMPLES 8192
#define DEFAULT_INTERVAL_NS 10000000ull
/*
 * The follower answers from its next poll, microseconds away in every loop
 * that takes part, and a round trip takes under a microsecond: longer
 * means it is not running (a loaded machine), and waiting for the
 * scheduler would stall the run for a time slice per sample, so the
 * sample is given up (missed) and tried again an interval later.  When
 * both workers share a CPU every answer needs a context switch: the
 * bounds are then the session's, long enough for that.
 */
#define JOIN_TIMEOUT_NS 200000ull
#define ROUND_TIMEOUT_NS 50000ull
#define SHARED_JOIN_TIMEOUT_NS 20000000ull
#define SESSION_TIMEOUT_NS 100000000ull
/* Spins before a waiting side starts to yield, when both workers are on
 * one CPU (the migration test hook, or the scheduler's doing): the other
 * side can answer only when we step aside.  On CPUs of their own nobody
 * yields: on a loaded machine the CPU would go to another task for a
 * whole time slice. */
#define SPINS_BEFORE_YIELD 4096
#define MAX_SEGMENTS MMT_TRACK_SEGMENTS
#define MAX_CLASSES MMT_TRACK_CLASSES

static uint64_t witnesses_of(const struct mmt_worker *w, unsigned nr_outcomes)
{
	uint64_t sum = 0;

	for (unsigned o = 1; o < nr_outcomes; o++)
		sum += w->outcomes[o];
	return sum;
}

static bool run_stopping(const void *arg)
{
	(void)arg;
	return mmt_should_stop();
}

/* A bounded wait of this tracker's: the run's stop ends it; on a CPU
 * shared with the other side it yields after a while. */
static struct mmt_spin track_spin(bool shared_cpu, uint64_t deadline, uint64_t timeout)
{
	return (struct mmt_spin){ .check_every = 256, .yield_after = shared_cpu ? SPINS_BEFORE_YIELD : 0,
				  .timeout = timeout, .deadline = deadline, .clock = mmt_spin_clock_cycles,
				  .stop = run_stopping };
}

static uint64_t ns_to_cycles(const struct mmt_track *t, uint64_t ns)
{
	return (uint64_t)((double)ns * t->cycles_per_ns);
}

static void add_sample(struct mmt_track *t, const struct mmt_track_sample *s)
{
	if (t->nr == t->cap) {
		/* Full: keep every other sample and halve the rate, so a long
		 * run stays covered end to end. */
		for (unsigned i = 0; i < t->nr / 2; i++)
			t->s[i] = t->s[2 * i];
		t->nr /= 2;
		t->interval_cycles *= 2;
		t->interval_ns *= 2;
	}
	t->s[t->nr++] = *s;
}

/* The session's rounds, the follower joined: chunk[0..chunks) in cycles,
 * or false when it stopped answering. */
static bool lead_rounds(struct mmt_track *t, uint64_t seq, bool shared, uint64_t *chunk, unsigned chunks,
			unsigned rounds)
{
	/* Sharing a CPU, every answer waits for a context switch: one bound
	 * for the session.  Else each round gets its own, armed at the
	 * wait's first look at the clock, not by a clock read per round. */
	struct mmt_spin spin = track_spin(shared, shared ? mmt_cycles() + ns_to_cycles(t, SESSION_TIMEOUT_NS) : 0,
					  shared ? 0 : ns_to_cycles(t, ROUND_TIMEOUT_NS));

	for (unsigned c = 0; c < chunks; c++) {
		uint64_t t0 = mmt_cycles();

		for (unsigned r = 0; r < rounds; r++) {
			spin.spins = 0;
			if (!shared)
				spin.deadline = 0;
			if (mmt_pingpong_ask(&t->ping, seq << 32 | (2 * (c * rounds + r) + 1), &spin) != MMT_SPIN_ON)
				return false;
		}
		chunk[c] = mmt_cycles() - t0;
	}
	return true;
}

void mmt_track_lead(struct mmt_worker *w, uint64_t ops)
{
	struct mmt_track *t = w->track;
	uint64_t now = mmt_cycles(), seq, chunk[CHUNKS];
	struct mmt_track_sample s;
	struct mmt_spin spin;
	unsigned chunks, rounds;
	bool shared, retry = true;
	int me;

	w->track_countdown = MMT_TRACK_POLLS_PER_CLOCK;
	if (!t->t0_cycles)
		t->t0_cycles = t->next_cycles = now;
	if ((int64_t)(now - t->next_cycles) < 0)
		return;
	seq = ++t->seq;
	s.t_ns = (uint64_t)((double)(now - t->t0_cycles) / t->cycles_per_ns);
	s.ops[0] = ops;
	s.witnesses[0] = witnesses_of(w, t->nr_outcomes);
	me = sched_getcpu();
	/* Where the follower last answered from, late answers included. */
	shared = READ_ONCE(t->ack.cpu) == me;
	WRITE_ONCE(t->leader_cpu, me);
	smp_store_release(&t->req, seq);	/* leader_cpu before it */
	spin = track_spin(shared, now + ns_to_cycles(t, shared ? SHARED_JOIN_TIMEOUT_NS : JOIN_TIMEOUT_NS), 0);
	while (smp_load_acquire(&t->ack.seq) != seq)
		if (mmt_spin_step(&spin) != MMT_SPIN_ON)
			goto missed;
	t->join_cycles += mmt_cycles() - now;
	s.ops[1] = READ_ONCE(t->ack.ops);
	s.witnesses[1] = READ_ONCE(t->ack.witnesses);
	shared = READ_ONCE(t->ack.cpu) == me;
	/* On one CPU every round trip is two context switches (on a loaded
	 * machine each may wait for other tasks): two rounds say so, and a
	 * full sample would rarely finish in time. */
	chunks = shared ? 1 : CHUNKS;
	rounds = shared ? 2 : ROUNDS;
	if (!lead_rounds(t, seq, shared, chunk, chunks, rounds))
		goto missed;
	s.one_way_ns = mmt_pingpong_one_way(chunk, chunks, rounds) / t->cycles_per_ns;
	s.session_ns = (double)(mmt_cycles() - now) / t->cycles_per_ns;
	add_sample(t, &s);
	retry = false;
	goto end;
missed:
	t->missed++;
end:
	WRITE_ONCE(t->ping, seq << 32 | STOP_ROUND);
	/* From the end of the session: what sampling costs stays bounded
	 * even when sessions are slow.  A missed one is tried again sooner,
	 * so a loaded machine still gets samples (at most a quarter-interval
	 * of waiting per quarter-interval: reported in sampling_ns). */
	t->next_cycles = mmt_cycles();
	t->session_cycles += t->next_cycles - now;
	t->next_cycles += retry ? t->interval_cycles / 4 : t->interval_cycles;
}

/* The follower's session ends: the leader's stop round, a later session,
 * or a session it gave up on. */
static bool session_over(const void *arg)
{
	const struct mmt_track *t = arg;
	uint64_t v = READ_ONCE(t->ping), seq = READ_ONCE(t->ack.seq);

	return (v >> 32 == seq && (uint32_t)v == STOP_ROUND) || v >> 32 > seq || READ_ONCE(t->req) != seq ||
	       mmt_should_stop();
}

void mmt_track_answer(struct mmt_worker *w, uint64_t ops)
{
	struct mmt_track *t = w->track;
	uint64_t seq = smp_load_acquire(&t->req);
	int me = sched_getcpu();
	bool shared = me == READ_ONCE(t->leader_cpu);
	struct mmt_spin spin = track_spin(shared, 0, 0);

	w->track_seen = seq;
	t->ack.ops = ops;
	t->ack.witnesses = witnesses_of(w, t->nr_outcomes);
	t->ack.cpu = me;
	smp_store_release(&t->ack.seq, seq);
	/* Not pinged within a round's bound: the leader was preempted, and
	 * the follower goes back to work rather than wait for it.  The bound
	 * restarts at the first clock check after an answer, not with a
	 * clock read per answer, which would add to every round trip. */
	spin.deadline = mmt_cycles() + ns_to_cycles(t, shared ? SESSION_TIMEOUT_NS : JOIN_TIMEOUT_NS);
	spin.timeout = shared ? 0 : ns_to_cycles(t, ROUND_TIMEOUT_NS);
	spin.stop = session_over;
	spin.arg = t;
	for (uint64_t v = seq << 32 | 1; mmt_pingpong_answer(&t->ping, v, &spin) == MMT_SPIN_ON; v += 2) {
		spin.spins = 0;
		if (!shared)
			spin.deadline = 0;
	}
}

struct mmt_track *mmt_track_create(struct mmt_run *run, uint64_t interval_ns)
{
	struct mmt_track *t;

	if (!interval_ns || run->nr_workers < 2 || !run->sc->tracks_placement)
		return NULL;
	t = mmt_alloc_lines(sizeof(*t));
	if (!t)
		return NULL;
	t->s = calloc(MAX_SAMPLES, sizeof(*t->s));
	if (!t->s) {
		free(t);
		return NULL;
	}
	t->cap = MAX_SAMPLES;
	t->cycles_per_ns = run->cycles_per_ns;
	t->interval_ns = interval_ns;
	t->interval_cycles = (uint64_t)((double)interval_ns * run->cycles_per_ns);
	t->nr_outcomes = run->sc->nr_outcomes;
	t->ack.cpu = -1;
	for (unsigned i = 0; i < 2; i++) {
		run->workers[i].track = t;
		run->workers[i].track_role = i ? MMT_TRACK_FOLLOWER : MMT_TRACK_LEADER;
		run->workers[i].track_countdown = 1;	/* first sample at the start */
	}
	return t;
}

void mmt_track_destroy(struct mmt_track *t)
{
	if (t)
		free(t->s);
	free(t);
}

/* ---- segmentation ------------------------------------------------------------ */

static bool differs(double x, double ref, double ratio)
{
	return mmt_tune_differs(x, ref, ratio);
}

/* The samples through the tracker litmus tunes by (sync-tune.h): a move is
 * two samples in a row that agree with each other and not with the median
 * of the segment's last few; one alone is an outlier. */
unsigned mmt_track_segment(const double *x, unsigned n, double ratio,
			   struct mmt_track_segment *seg, unsigned max, unsigned *outliers)
{
	struct mmt_tune tune;
	double *acc;
	unsigned nseg;

	*outliers = 0;
	if (!n || !max)
		return 0;
	acc = malloc(n * sizeof(*acc));
	if (!acc)
		return 0;
	seg[0] = (struct mmt_track_segment){ 0, 0, 1, 0 };
	nseg = 1;
	mmt_tune_init(&tune, ratio, x[0]);
	for (unsigned i = 1; i < n; i++) {
		uint64_t was = tune.outliers;
		struct mmt_track_segment *cur = &seg[nseg - 1];

		switch (mmt_tune_sample(&tune, x[i])) {
		case MMT_TUNE_MOVED:	/* samples i - 1 and i are the new placement */
			if (nseg < max)
				seg[nseg++] = (struct mmt_track_segment){ i - 1, i, 2, 0 };
			else
				cur->last = i, cur->samples += 2;
			break;
		case MMT_TUNE_KEPT:
			cur->last = i;
			cur->samples++;
			break;
		default:	/* held: a move or an outlier, the next one says */
			if (tune.outliers > was)	/* the one held before was an outlier */
				cur->last = i - 1;
			break;
		}
	}
	*outliers = (unsigned)tune.outliers + tune.has_pending;
	if (tune.has_pending)
		seg[nseg - 1].last = n - 1;
	/* Each segment's figure: the median of its samples, outliers out. */
	for (unsigned k = 0; k < nseg; k++) {
		unsigned m = 0;
		double ref;

		for (unsigned i = seg[k].first; i <= seg[k].last; i++)
			acc[m++] = x[i];
		ref = mmt_median_double(acc, m);
		m = 0;
		for (unsigned i = seg[k].first; i <= seg[k].last; i++)
			if (!differs(x[i], ref, ratio))
				acc[m++] = x[i];
		seg[k].one_way_ns = m ? mmt_median_double(acc, m) : ref;
	}
	free(acc);
	return nseg;
}

/* ---- the record ----------------------------------------------------------------- */

struct span {
	uint64_t ns, ops, witnesses;
};

/* Figures over samples a..b of one segment, from the split worker's count
 * and both workers' witnesses. */
static struct span span_of(const struct mmt_track_sample *s, unsigned a, unsigned b, unsigned ow)
{
	return (struct span){ s[b].t_ns - s[a].t_ns, s[b].ops[ow] - s[a].ops[ow],
			      s[b].witnesses[0] + s[b].witnesses[1] - s[a].witnesses[0] -
				      s[a].witnesses[1] };
}

static double per_sec(uint64_t v, uint64_t ns)
{
	return ns ? (double)v * 1e9 / (double)ns : 0;
}

/* Segments of one placement class (one-way latencies within the stable
 * ratio of the first segment's): what the run did there. */
struct track_class {
	double one_way_ns;
	unsigned segments, samples;
	struct span sum;
};

/* The class a segment's latency belongs to, made if new; NULL past
 * MAX_CLASSES. */
static struct track_class *class_of(struct track_class *cls, unsigned *ncls, double one_way_ns)
{
	for (unsigned c = 0; c < *ncls; c++)
		if (!differs(one_way_ns, cls[c].one_way_ns, MMT_PROBE_STABLE_RATIO))
			return &cls[c];
	if (*ncls == MAX_CLASSES)
		return NULL;
	memset(&cls[*ncls], 0, sizeof(cls[0]));
	cls[*ncls].one_way_ns = one_way_ns;	/* the class is named by its first */
	return &cls[(*ncls)++];
}

/* Each segment's span (the last one's with the tail after its last
 * sample, up to end) into the report and its class; the time between
 * segments into unattributed_ns. */
static void split_segments(const struct mmt_track *t, const struct mmt_track_segment *seg, unsigned nseg,
			   const struct mmt_track_sample *end, unsigned ow, struct track_class *cls,
			   unsigned *ncls, struct mmt_track_report *out)
{
	for (unsigned k = 0; k < nseg; k++) {
		struct span sp = span_of(t->s, seg[k].first, seg[k].last, ow);
		struct track_class *c;

		if (k + 1 == nseg && end->t_ns > t->s[seg[k].last].t_ns) {
			/* The tail after the last sample, under a sampling interval. */
			struct mmt_track_sample pair[2] = { t->s[seg[k].last], *end };
			struct span tail = span_of(pair, 0, 1, ow);

			sp.ns += tail.ns;
			sp.ops += tail.ops;
			sp.witnesses += tail.witnesses;
		}
		if (k + 1 < nseg)	/* between the last sample here and the next */
			out->unattributed_ns += t->s[seg[k + 1].first].t_ns - t->s[seg[k].last].t_ns;
		out->segments[out->nr_segments++] = (struct mmt_track_segment_report){
			t->s[seg[k].first].t_ns, k + 1 == nseg ? end->t_ns : t->s[seg[k].last].t_ns,
			(int)seg[k].samples, seg[k].one_way_ns };
		c = class_of(cls, ncls, seg[k].one_way_ns);
		if (!c)
			continue;
		c->segments++;
		c->samples += seg[k].samples;
		c->sum.ns += sp.ns;
		c->sum.ops += sp.ops;
		c->sum.witnesses += sp.witnesses;
	}
}

static const struct mmt_field segment_fields[] = {
	MMT_FIELD(struct mmt_track_segment_report, start_ns, MMT_F_COUNT),
	MMT_FIELD(struct mmt_track_segment_report, end_ns, MMT_F_COUNT),
	MMT_FIELD(struct mmt_track_segment_report, samples, MMT_F_INT),
	MMT_FIELD(struct mmt_track_segment_report, one_way_ns, MMT_F_REAL),
};
static const struct mmt_shape segment_shape = MMT_SHAPE(struct mmt_track_segment_report, segment_fields);

static const struct mmt_field class_fields[] = {
	MMT_FIELD(struct mmt_track_class_report, one_way_ns, MMT_F_REAL),
	MMT_FIELD(struct mmt_track_class_report, segments, MMT_F_INT),
	MMT_FIELD(struct mmt_track_class_report, samples, MMT_F_INT),
	MMT_FIELD(struct mmt_track_class_report, elapsed_ns, MMT_F_COUNT),
	MMT_FIELD(struct mmt_track_class_report, ops, MMT_F_COUNT),
	MMT_FIELD(struct mmt_track_class_report, ops_per_sec, MMT_F_REAL),
	MMT_FIELD(struct mmt_track_class_report, witnesses, MMT_F_COUNT),
	MMT_FIELD(struct mmt_track_class_report, witnesses_per_sec, MMT_F_REAL),
};
static const struct mmt_shape class_shape = MMT_SHAPE(struct mmt_track_class_report, class_fields);

static const struct mmt_field range_fields[] = {
	MMT_FIELD(struct mmt_track_range, min, MMT_F_REAL),
	MMT_FIELD(struct mmt_track_range, max, MMT_F_REAL),
};
static const struct mmt_shape range_shape = MMT_SHAPE(struct mmt_track_range, range_fields);

static const struct mmt_field track_fields[] = {
	MMT_FIELD_COUNTS(struct mmt_track_report, cpus, nr_cpus),
	MMT_FIELD(struct mmt_track_report, interval_ns, MMT_F_COUNT),
	MMT_FIELD(struct mmt_track_report, sampling_ns, MMT_F_COUNT),
	MMT_FIELD(struct mmt_track_report, join_wait_ns, MMT_F_COUNT),
	MMT_FIELD(struct mmt_track_report, session_ns_median, MMT_F_REAL),
	MMT_FIELD(struct mmt_track_report, samples, MMT_F_INT),
	MMT_FIELD(struct mmt_track_report, missed, MMT_F_COUNT),
	MMT_FIELD(struct mmt_track_report, outliers, MMT_F_INT),
	MMT_FIELD(struct mmt_track_report, moved, MMT_F_BOOL),
	MMT_FIELD(struct mmt_track_report, moves, MMT_F_INT),
	MMT_FIELD_OBJECT(struct mmt_track_report, one_way_ns, MMT_F_OBJECT_PTR, range_shape),
	MMT_FIELD_LIST(struct mmt_track_report, segments, MMT_F_LIST, segment_shape, nr_segments),
	MMT_FIELD_LIST(struct mmt_track_report, by_placement, MMT_F_LIST, class_shape, nr_classes),
	MMT_FIELD(struct mmt_track_report, unattributed_ns, MMT_F_COUNT),
	MMT_FIELD(struct mmt_track_report, ops_worker, MMT_F_INT),
};
const struct mmt_shape mmt_track_shape = MMT_SHAPE(struct mmt_track_report, track_fields);

static void classes_report(const struct track_class *cls, unsigned ncls, struct mmt_track_report *out)
{
	for (unsigned c = 0; c < ncls; c++)
		out->by_placement[out->nr_classes++] = (struct mmt_track_class_report){
			cls[c].one_way_ns, (int)cls[c].segments, (int)cls[c].samples, cls[c].sum.ns, cls[c].sum.ops,
			per_sec(cls[c].sum.ops, cls[c].sum.ns), cls[c].sum.witnesses,
			per_sec(cls[c].sum.witnesses, cls[c].sum.ns) };
}

int mmt_track_report(const struct mmt_track *t, const struct mmt_run *run, uint64_t elapsed_ns,
		     struct mmt_track_report *out)
{
	struct mmt_track_segment seg[MAX_SEGMENTS];
	struct track_class cls[MAX_CLASSES];
	unsigned nseg, ncls = 0, outliers = 0, ow = run->sc->split_ops_worker ? 1 : 0;
	double *x, lo = INFINITY, hi = 0, session_median;
	struct mmt_track_sample end;

	if (!t)
		return -1;
	x = malloc((t->nr ? t->nr : 1) * sizeof(*x));
	if (!x)
		return -1;
	for (unsigned i = 0; i < t->nr; i++) {
		x[i] = t->s[i].session_ns;
		lo = fmin(lo, t->s[i].one_way_ns);
		hi = fmax(hi, t->s[i].one_way_ns);
	}
	/* What a sample costs when nothing is preempted: robust to load,
	 * unlike sampling_ns. */
	session_median = t->nr ? mmt_median_double(x, t->nr) : 0;
	for (unsigned i = 0; i < t->nr; i++)
		x[i] = t->s[i].one_way_ns;
	nseg = mmt_track_segment(x, t->nr, MMT_PROBE_STABLE_RATIO, seg, MAX_SEGMENTS, &outliers);
	free(x);
	/* The run's end as a last point: the final counts, the run's length. */
	end.t_ns = elapsed_ns;
	for (unsigned i = 0; i < 2; i++) {
		end.ops[i] = run->workers[i].ops;
		end.witnesses[i] = witnesses_of(&run->workers[i], run->sc->nr_outcomes);
	}
	memset(out, 0, sizeof(*out));
	out->cpus[0] = (uint64_t)run->workers[0].cpu;
	out->cpus[1] = (uint64_t)run->workers[1].cpu;
	out->nr_cpus = 2;
	out->interval_ns = t->interval_ns;
	out->sampling_ns = (uint64_t)((double)t->session_cycles / t->cycles_per_ns);
	out->join_wait_ns = (uint64_t)((double)t->join_cycles / t->cycles_per_ns);
	out->session_ns_median = t->nr ? session_median : NAN;
	out->samples = (int)t->nr;
	out->missed = t->missed;
	out->outliers = (int)outliers;
	out->moved = nseg > 1;
	out->moves = nseg ? (int)nseg - 1 : 0;
	out->range = (struct mmt_track_range){ lo, hi };
	out->one_way_ns = t->nr ? &out->range : NULL;
	split_segments(t, seg, nseg, &end, ow, cls, &ncls, out);
	classes_report(cls, ncls, out);
	out->ops_worker = (int)ow;
	return 0;
}

/* ---- test hooks ------------------------------------------------------------------ */

static int parse_u64(const char *s, char **end, uint64_t *v)
{
	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*v = strtoull(s, end, 10);
	return errno ? -1 : 0;
}

int mmt_track_env_parse(const char *interval, const char *moves, struct mmt_track_env *env,
			char *err, size_t len)
{
	char *end;
	uint64_t v;

	memset(env, 0, sizeof(*env));
	env->interval_ns = DEFAULT_INTERVAL_NS;
	if (interval) {
		if (parse_u64(interval, &end, &v) || *end || v > 60000) {
			snprintf(err, len, "MMT_TRACK_INTERVAL_MS '%s' is not a number of milliseconds (0-60000)",
				 interval);
			return -1;
		}
		env->interval_ns = v * 1000000ull;
	}
	for (const char *p = moves; p && *p;) {
		uint64_t w, cpu, ms;
		const char *item = p;

		if (env->nr_moves == MMT_MAX_MOVES) {
			snprintf(err, len, "MMT_TEST_MOVE: more than %d moves", MMT_MAX_MOVES);
			return -1;
		}
		if (parse_u64(p, &end, &w) || *end != ':' || parse_u64(end + 1, &end, &cpu) ||
		    *end != '@' || parse_u64(end + 1, &end, &ms) || (*end && *end != ',') ||
		    w > 1024 || cpu >= CPU_SETSIZE || ms > 3600000) {
			snprintf(err, len, "MMT_TEST_MOVE '%s': '%.*s' is not WORKER:CPU@MS", moves,
				 (int)strcspn(item, ","), item);
			return -1;
		}
		env->move[env->nr_moves++] = (struct mmt_move){ (unsigned)w, (int)cpu, ms * 1000000ull };
		p = *end ? end + 1 : end;
	}
	return 0;
}
