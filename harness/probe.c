/* SPDX-License-Identifier: MIT */
#include "probe.h"
#include "arch/barrier.h"
#include "clock.h"

#include <pthread.h>
#include <sched.h>
#include <math.h>
#include <stdlib.h>

#define PROBE_CHUNKS 31
#define PROBE_ROUNDS 64
#define PROBE_STOP UINT64_MAX

struct probe_state {
	uint64_t line __mmt_aligned;	/* the ping-pong word, alone on its line */
	int cpu;
	int pinned;
};

static int pin_self(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

/* Answers every odd value with the next even one until told to stop. */
static void *responder(void *arg)
{
	struct probe_state *s = arg;
	uint64_t v;

	if (pin_self(s->cpu)) {
		WRITE_ONCE(s->pinned, -1);
		return NULL;
	}
	WRITE_ONCE(s->pinned, 1);
	while ((v = READ_ONCE(s->line)) != PROBE_STOP) {
		if (v & 1)
			WRITE_ONCE(s->line, v + 1);
	}
	return NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int mmt_probe_pair(int a, int b, struct mmt_probe_pair *out)
{
	struct probe_state *s;
	double chunk[PROBE_CHUNKS];
	pthread_t th;
	cpu_set_t old;
	uint64_t v = 0;
	int rc = -1;

	s = aligned_alloc(MMT_PAD_BYTES, sizeof(*s));
	if (!s)
		return -1;
	s->line = 0;
	s->cpu = b;
	s->pinned = 0;
	out->a = a;
	out->b = b;
	/* The initiator is the calling thread, pinned to a for the probe and
	 * put back afterwards: a third thread would mean three spinners. */
	if (pthread_getaffinity_np(pthread_self(), sizeof(old), &old) || pin_self(a)) {
		free(s);
		return -1;
	}
	if (pthread_create(&th, NULL, responder, s))
		goto out;
	while (!READ_ONCE(s->pinned))
		cpu_relax();
	if (READ_ONCE(s->pinned) > 0) {
		for (int c = 0; c < PROBE_CHUNKS; c++) {
			uint64_t t0 = mmt_now_ns();

			for (int r = 0; r < PROBE_ROUNDS; r++) {
				WRITE_ONCE(s->line, v + 1);
				while (READ_ONCE(s->line) != v + 2)
					;
				v += 2;
			}
			chunk[c] = (double)(mmt_now_ns() - t0) / PROBE_ROUNDS;
		}
		rc = 0;
	}
	WRITE_ONCE(s->line, PROBE_STOP);
	pthread_join(th, NULL);
	if (!rc) {
		/* Median of chunks: one preemption spoils a chunk, not the probe. */
		qsort(chunk, PROBE_CHUNKS, sizeof(chunk[0]), cmp_double);
		out->round_trip_ns = chunk[PROBE_CHUNKS / 2];
		out->one_way_ns = out->round_trip_ns / 2;
	}
out:
	pthread_setaffinity_np(pthread_self(), sizeof(old), &old);
	free(s);
	return rc;
}

json_t *mmt_probe_cpus(const int *cpus, int n)
{
	json_t *arr = json_array();

	for (int i = 0; i < n; i++) {
		for (int j = i + 1; j < n; j++) {
			struct mmt_probe_pair p;

			if (n > 8 && i > 0)
				break;
			if (cpus[i] == cpus[j] || mmt_probe_pair(cpus[i], cpus[j], &p))
				continue;
			json_array_append_new(arr, json_pack("{s:[i,i],s:f,s:f}", "cpus", p.a, p.b,
							     "round_trip_ns", p.round_trip_ns,
							     "one_way_ns", p.one_way_ns));
		}
	}
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
