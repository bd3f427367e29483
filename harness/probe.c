/* SPDX-License-Identifier: MIT */
#include "probe.h"
#include "arch/barrier.h"
#include "clock.h"

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

static int pin_self(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

/* Answers every odd value with the next even one until told to stop, or
 * until nobody has asked anything for the hang time (the initiator gave
 * up on us, or died). */
static void *responder(void *arg)
{
	struct mmt_probe_state *s = arg;
	uint64_t v, last = 0, quiet_since = mmt_now_ns();
	unsigned spins = 0;

	if (pin_self(s->cpu)) {
		WRITE_ONCE(s->pinned, -1);
		return NULL;
	}
	WRITE_ONCE(s->pinned, 1);
	while ((v = READ_ONCE(s->line)) != MMT_PROBE_STOP) {
		if (v & 1) {
			WRITE_ONCE(s->line, v + 1);
			last = v;
		} else if (++spins % PROBE_CHECK_EVERY == 0) {
			uint64_t now = mmt_now_ns();

			if (v != last)
				quiet_since = now, last = v;
			else if (now - quiet_since > s->hang_ns)
				break;
		}
		cpu_relax();
	}
	return NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static bool stop_pending(const sigset_t *stop)
{
	sigset_t pend;

	if (!stop || sigpending(&pend))
		return false;
	for (int sig = 1; sig < NSIG; sig++)
		if (sigismember(stop, sig) == 1 && sigismember(&pend, sig) == 1)
			return true;
	return false;
}

/* One bounded wait for cond: 0 when it held, else the reason to stop. */
#define BOUNDED_WAIT(cond, since, stop, lim, st, fmt, ...)                               \
	({                                                                               \
		enum mmt_probe_end _e = MMT_PROBE_OK;                                    \
		for (unsigned _n = 1; !(cond); _n++) {                                   \
			cpu_relax();                                                     \
			if (_n % PROBE_CHECK_EVERY)                                      \
				continue;                                                \
			if (stop_pending(stop)) {                                        \
				_e = MMT_PROBE_INTERRUPTED;                              \
				break;                                                   \
			}                                                                \
			if (mmt_now_ns() - (since) > (lim)->hang_ns) {                   \
				_e = MMT_PROBE_HUNG;                                     \
				snprintf((st)->where, sizeof((st)->where), fmt, __VA_ARGS__); \
				break;                                                   \
			}                                                                \
		}                                                                        \
		_e;                                                                      \
	})

enum mmt_probe_end mmt_probe_pair(int a, int b, struct mmt_probe_pair *out, const sigset_t *stop,
				  const struct mmt_probe_limits *limits, struct mmt_probe_status *st)
{
	static const struct mmt_probe_limits defaults = { MMT_PROBE_BUDGET_NS, MMT_PROBE_HANG_NS, NULL };
	const struct mmt_probe_limits *lim = limits ? limits : &defaults;
	struct mmt_probe_state *s;
	double chunk[PROBE_CHUNKS];
	pthread_t th;
	cpu_set_t old;
	uint64_t v = 0, start, t0;
	enum mmt_probe_end end = MMT_PROBE_OK;
	int c = 0;

	st->end = MMT_PROBE_OK;
	st->where[0] = '\0';
	s = aligned_alloc(MMT_PAD_BYTES, sizeof(*s));
	if (!s)
		return st->end = MMT_PROBE_NO_PIN;
	s->line = 0;
	s->cpu = b;
	s->pinned = 0;
	s->hang_ns = lim->hang_ns;
	out->a = a;
	out->b = b;
	out->chunks = 0;
	/* The initiator is the calling thread, pinned to a for the probe and
	 * put back afterwards: a third thread would mean three spinners. */
	if (pthread_getaffinity_np(pthread_self(), sizeof(old), &old) || pin_self(a)) {
		free(s);
		return st->end = MMT_PROBE_NO_PIN;
	}
	if (pthread_create(&th, NULL, lim->responder ? lim->responder : responder, s)) {
		pthread_setaffinity_np(pthread_self(), sizeof(old), &old);
		free(s);
		return st->end = MMT_PROBE_NO_PIN;
	}
	start = mmt_now_ns();
	end = BOUNDED_WAIT(READ_ONCE(s->pinned), start, stop, lim, st,
			   "probe: the thread for CPU %d never started (CPU %d waited %.1f s)", b, a,
			   (double)lim->hang_ns / 1e9);
	if (end == MMT_PROBE_OK && READ_ONCE(s->pinned) < 0)
		end = MMT_PROBE_NO_PIN;
	for (; end == MMT_PROBE_OK && c < PROBE_CHUNKS; c++) {
		t0 = mmt_now_ns();
		if (c && t0 - start > lim->budget_ns)
			break; /* a loaded machine: the chunks so far */
		for (int r = 0; r < PROBE_ROUNDS && end == MMT_PROBE_OK; r++) {
			uint64_t asked = mmt_now_ns();

			WRITE_ONCE(s->line, v + 1);
			end = BOUNDED_WAIT(READ_ONCE(s->line) == v + 2, asked, stop, lim, st,
					   "probe: CPU %d did not answer CPU %d for %.1f s (round %d of chunk %d)",
					   b, a, (double)lim->hang_ns / 1e9, r, c);
			v += 2;
		}
		if (end == MMT_PROBE_OK)
			chunk[c] = (double)(mmt_now_ns() - t0) / PROBE_ROUNDS;
	}
	WRITE_ONCE(s->line, MMT_PROBE_STOP);
	{
		/* A responder that never ran must not hold us either. */
		struct timespec until;

		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += 1;
		if (pthread_timedjoin_np(th, NULL, &until) == 0)
			free(s);
		else
			pthread_detach(th); /* s stays: the thread may still read it */
	}
	pthread_setaffinity_np(pthread_self(), sizeof(old), &old);
	if (end == MMT_PROBE_OK && c == 0)
		end = MMT_PROBE_SHORT;
	if (end == MMT_PROBE_OK) {
		/* Median of chunks: one preemption spoils a chunk, not the probe. */
		qsort(chunk, (size_t)c, sizeof(chunk[0]), cmp_double);
		out->chunks = c;
		out->round_trip_ns = chunk[c / 2];
		out->one_way_ns = out->round_trip_ns / 2;
	}
	return st->end = end;
}

json_t *mmt_probe_cpus(const int *cpus, int n, const sigset_t *stop, struct mmt_probe_status *st)
{
	json_t *arr = json_array();

	st->end = MMT_PROBE_OK;
	st->where[0] = '\0';
	for (int i = 0; i < n; i++) {
		for (int j = i + 1; j < n; j++) {
			struct mmt_probe_pair p;
			enum mmt_probe_end e;

			if (n > 8 && i > 0)
				break;
			if (cpus[i] == cpus[j])
				continue;
			e = mmt_probe_pair(cpus[i], cpus[j], &p, stop, NULL, st);
			if (e == MMT_PROBE_INTERRUPTED || e == MMT_PROBE_HUNG)
				return arr;
			if (e != MMT_PROBE_OK)
				continue;
			json_array_append_new(arr, json_pack("{s:[i,i],s:f,s:f,s:i}", "cpus", p.a, p.b,
							     "round_trip_ns", p.round_trip_ns,
							     "one_way_ns", p.one_way_ns, "chunks", p.chunks));
		}
	}
	st->end = MMT_PROBE_OK;
	return arr;
}

double mmt_probe_drift(const json_t *before, const json_t *after)
{
	double worst = NAN;
	size_t i;
	const json_t *b;

	json_array_foreach(before, i, b) {
		const json_t *a = json_array_get(after, i);
		double x, y, r;

		if (!a || !json_equal(json_object_get(a, "cpus"), json_object_get(b, "cpus")))
			continue;
		x = json_number_value(json_object_get(b, "one_way_ns"));
		y = json_number_value(json_object_get(a, "one_way_ns"));
		if (x <= 0 || y <= 0)
			continue;
		r = x > y ? x / y : y / x;
		if (isnan(worst) || r > worst)
			worst = r;
	}
	return worst;
}
