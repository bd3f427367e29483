/* SPDX-License-Identifier: MIT */
/* The rulers' common part (ruler.h). */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "parse.h"
#include "probe.h"
#include "ruler.h"
#include "timing.h"

struct ruler_flag ruler_time_up, ruler_done;
static struct ruler_flag go;

uint64_t ruler_start_together(void)
{
	__atomic_add_fetch(&go.v, 1, __ATOMIC_SEQ_CST);
	while (READ_ONCE(go.v) < 2)
		;
	return mmt_now_ns();
}

struct start {
	void (*fn)(void *, int);
	void *arg;
	int role;
};

static void *thread_main(void *p)
{
	struct start *st = p;

	st->fn(st->arg, st->role);
	return NULL;
}

int ruler_run(const char *prog, const int cpus[2], void (*fn)(void *arg, int role), void *arg,
	      uint64_t duration_ns)
{
	struct start st[2];
	pthread_t th[2];

	for (int r = 0; r < 2; r++) {
		pthread_attr_t attr;
		int e;

		st[r] = (struct start){ fn, arg, r };
		pthread_attr_init(&attr);
		e = mmt_pin_attr(&attr, cpus[r]);
		if (!e)
			e = pthread_create(&th[r], &attr, thread_main, &st[r]);
		pthread_attr_destroy(&attr);
		if (e) {
			fprintf(stderr, "%s: CPU %d: %s\n", prog, cpus[r], strerror(e));
			return -1;
		}
	}
	/* Asleep, not spinning: the workers may have every CPU there is. */
	struct timespec until = { .tv_sec = (time_t)(duration_ns / 1000000000ull),
				  .tv_nsec = (long)(duration_ns % 1000000000ull) };

	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &until, &until) == EINTR)
		;
	__atomic_store_n(&ruler_time_up.v, 1, __ATOMIC_RELEASE);
	pthread_join(th[0], NULL);
	pthread_join(th[1], NULL);
	return 0;
}

int ruler_parse_cpus(const char *s, int cpus[2], char *err, size_t len)
{
	char e[MMT_ERRLEN];
	int n = 0;

	*err = '\0';
	if (mmt_parse_cpulist(s, cpus, 2, &n, e, sizeof(e)) || n != 2) {
		snprintf(err, len, "%s", n != 2 && !*e ? "two CPUs, A,B" : e);
		return -1;
	}
	/* parse_cpulist sorts: keep the order given */
	if (sscanf(s, "%d,%d", &cpus[0], &cpus[1]) != 2) {
		snprintf(err, len, "'%s' is not A,B", s);
		return -1;
	}
	return 0;
}

json_t *ruler_probe(int a, int b, double *one_way)
{
	struct mmt_probe_pair p;
	struct mmt_probe_status st;

	*one_way = NAN;
	if (mmt_probe_pair(a, b, &p, NULL, NULL, &st) != MMT_PROBE_OK)
		return json_null();
	*one_way = p.one_way_ns;
	return json_pack("{s:[i,i],s:f,s:f,s:i}", "cpus", a, b, "round_trip_ns", p.round_trip_ns,
			 "one_way_ns", p.one_way_ns, "chunks", p.chunks);
}

json_t *ruler_probe_doc(json_t *before, double one_way_before, json_t *after, double one_way_after)
{
	double drift = fmax(one_way_after / one_way_before, one_way_before / one_way_after);

	return json_pack("{s:o,s:o,s:b}", "before", before, "after", after, "stable",
			 !isnan(drift) && drift <= MMT_PROBE_STABLE_RATIO);
}
