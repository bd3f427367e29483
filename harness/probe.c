/* SPDX-License-Identifier: MIT */
#include "probe.h"
#include "arch/barrier.h"
#include "clock.h"
#include "timing.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define PROBE_CHUNKS 31
#define PROBE_ROUNDS 64
/* Spins between looks at the clock and the pending signals: cheap next
 * to a cache-line transfer, and well under a millisecond. */
#define PROBE_CHECK_EVERY 1024

static bool told_to_stop(const void *arg)
{
	const struct mmt_probe_state *s = arg;

	return READ_ONCE(s->line) == MMT_PROBE_STOP;
}

/* Answers rounds 1, 3, 5, ... until told to stop, or until nobody has
 * asked anything for the hang time (the initiator gave up on us, or
 * died). */
static void *responder(void *arg)
{
	struct mmt_probe_state *s = arg;
	struct mmt_spin spin = { .check_every = PROBE_CHECK_EVERY, .timeout = s->hang_ns,
				 .clock = mmt_spin_clock_ns, .stop = told_to_stop, .arg = s };

	if (mmt_pin_self(s->cpu)) {
		WRITE_ONCE(s->pinned, -1);
		return NULL;
	}
	WRITE_ONCE(s->pinned, 1);
	for (uint64_t v = 1; mmt_pingpong_answer(&s->line, v, &spin) == MMT_SPIN_ON; v += 2)
		spin.deadline = 0;	/* the hang time restarts with each answer */
	return NULL;
}

static bool stop_pending(const void *arg)
{
	const sigset_t *stop = arg;
	sigset_t pend;

	if (!stop || sigpending(&pend))
		return false;
	for (int sig = 1; sig < NSIG; sig++)
		if (sigismember(stop, sig) == 1 && sigismember(&pend, sig) == 1)
			return true;
	return false;
}

static enum mmt_probe_end probe_end_of(enum mmt_spin_end e)
{
	return e == MMT_SPIN_ON ? MMT_PROBE_OK : e == MMT_SPIN_STOPPED ? MMT_PROBE_INTERRUPTED : MMT_PROBE_HUNG;
}

/* The initiator's side, the responder started: the chunks that fit the
 * budget, into out. */
static enum mmt_probe_end ask_rounds(struct mmt_probe_state *s, const struct mmt_probe_limits *lim,
				     const sigset_t *stop, struct mmt_probe_pair *out, struct mmt_probe_status *st)
{
	struct mmt_spin spin = { .check_every = PROBE_CHECK_EVERY, .timeout = lim->hang_ns,
				 .clock = mmt_spin_clock_ns, .stop = stop_pending, .arg = stop };
	uint64_t chunk[PROBE_CHUNKS], v = 1, start = mmt_now_ns();
	enum mmt_spin_end e;
	int c, pinned;

	while (!(pinned = READ_ONCE(s->pinned)))
		if ((e = mmt_spin_step(&spin)) != MMT_SPIN_ON) {
			if (e == MMT_SPIN_TIMEOUT)
				snprintf(st->where, sizeof(st->where),
					 "probe: the thread for CPU %d never started (CPU %d waited %.1f s)",
					 out->b, out->a, (double)lim->hang_ns / 1e9);
			return probe_end_of(e);
		}
	if (pinned < 0)
		return MMT_PROBE_NO_PIN;
	for (c = 0; c < PROBE_CHUNKS; c++) {
		uint64_t t0 = mmt_now_ns();

		if (c && t0 - start > lim->budget_ns)
			break; /* a loaded machine: the chunks so far */
		for (int r = 0; r < PROBE_ROUNDS; r++, v += 2) {
			spin.deadline = 0;
			e = mmt_pingpong_ask(&s->line, v, &spin);
			if (e == MMT_SPIN_TIMEOUT)
				snprintf(st->where, sizeof(st->where),
					 "probe: CPU %d did not answer CPU %d for %.1f s (round %d of chunk %d)",
					 out->b, out->a, (double)lim->hang_ns / 1e9, r, c);
			if (e != MMT_SPIN_ON)
				return probe_end_of(e);
		}
		chunk[c] = mmt_now_ns() - t0;
	}
	if (!c)
		return MMT_PROBE_SHORT;
	out->chunks = c;
	out->one_way_ns = mmt_pingpong_one_way(chunk, (unsigned)c, PROBE_ROUNDS);
	out->round_trip_ns = 2 * out->one_way_ns;
	return MMT_PROBE_OK;
}

/* Tells the responder to stop and waits a second for it: one that never
 * ran must not hold us either. */
static void end_responder(pthread_t th, struct mmt_probe_state *s)
{
	struct timespec until;

	WRITE_ONCE(s->line, MMT_PROBE_STOP);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 1;
	if (pthread_timedjoin_np(th, NULL, &until) == 0)
		free(s);
	else
		pthread_detach(th); /* s stays: the thread may still read it */
}

enum mmt_probe_end mmt_probe_pair(int a, int b, struct mmt_probe_pair *out, const sigset_t *stop,
				  const struct mmt_probe_limits *limits, struct mmt_probe_status *st)
{
	static const struct mmt_probe_limits defaults = { MMT_PROBE_BUDGET_NS, MMT_PROBE_HANG_NS, NULL };
	const struct mmt_probe_limits *lim = limits ? limits : &defaults;
	struct mmt_probe_state *s;
	pthread_t th;
	cpu_set_t old;
	enum mmt_probe_end end;

	st->end = MMT_PROBE_OK;
	st->where[0] = '\0';
	*out = (struct mmt_probe_pair){ .a = a, .b = b };
	s = aligned_alloc(MMT_PAD_BYTES, sizeof(*s));
	if (!s)
		return st->end = MMT_PROBE_NO_PIN;
	*s = (struct mmt_probe_state){ .cpu = b, .hang_ns = lim->hang_ns };
	/* The initiator is the calling thread, pinned to a for the probe and
	 * put back afterwards: a third thread would mean three spinners. */
	if (pthread_getaffinity_np(pthread_self(), sizeof(old), &old) || mmt_pin_self(a)) {
		free(s);
		return st->end = MMT_PROBE_NO_PIN;
	}
	if (pthread_create(&th, NULL, lim->responder ? lim->responder : responder, s)) {
		pthread_setaffinity_np(pthread_self(), sizeof(old), &old);
		free(s);
		return st->end = MMT_PROBE_NO_PIN;
	}
	end = ask_rounds(s, lim, stop, out, st);
	end_responder(th, s);
	pthread_setaffinity_np(pthread_self(), sizeof(old), &old);
	if (end != MMT_PROBE_OK)
		out->chunks = 0;
	return st->end = end;
}

struct mmt_probe_set *mmt_probe_cpus(const int *cpus, int n, const sigset_t *stop, struct mmt_probe_status *st)
{
	struct mmt_probe_set *set = calloc(1, sizeof(*set) + (size_t)(n > 8 ? n : n * (n - 1) / 2 + 1) *
						     sizeof(set->pairs[0]));

	st->end = MMT_PROBE_OK;
	st->where[0] = '\0';
	for (int i = 0; set && i < n; i++) {
		for (int j = i + 1; j < n; j++) {
			struct mmt_probe_pair p;
			enum mmt_probe_end e;

			if (n > 8 && i > 0)
				break;
			if (cpus[i] == cpus[j])
				continue;
			e = mmt_probe_pair(cpus[i], cpus[j], &p, stop, NULL, st);
			if (e == MMT_PROBE_INTERRUPTED || e == MMT_PROBE_HUNG)
				return set;
			if (e != MMT_PROBE_OK)
				continue;
			set->pairs[set->n++] = p;
		}
	}
	st->end = MMT_PROBE_OK;
	return set;
}

double mmt_probe_drift(const struct mmt_probe_set *before, const struct mmt_probe_set *after)
{
	double worst = NAN;

	for (unsigned i = 0; before && after && i < before->n && i < after->n; i++) {
		const struct mmt_probe_pair *b = &before->pairs[i], *a = &after->pairs[i];
		double x = b->one_way_ns, y = a->one_way_ns, r;

		if (a->a != b->a || a->b != b->b || x <= 0 || y <= 0)
			continue;
		r = x > y ? x / y : y / x;
		if (isnan(worst) || r > worst)
			worst = r;
	}
	return worst;
}
