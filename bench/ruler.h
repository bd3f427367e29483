/* SPDX-License-Identifier: MIT */
/*
 * What the rulers of ring and seqcount (bench/ring-bare.c,
 * bench/seqcount-bare.c) share: two threads pinned to the CPUs given and
 * let go together, a time-up flag set after the duration, the placement
 * probe before and after, the --cpus argument.  None of it is on a
 * measured loop but the flags, each alone on its line.
 */
#ifndef MMT_RULER_H
#define MMT_RULER_H

#include <jansson.h>
#include <stdint.h>

#include "compiler.h"

/* time_up: set by the main thread after the duration, read by the loops;
 * done: set by the thread that ends first, for the one waiting on it. */
struct ruler_flag {
	int v;
} __mmt_aligned;
extern struct ruler_flag ruler_time_up, ruler_done;

/* Waits until both threads are here; returns the time it let go. */
uint64_t ruler_start_together(void);

/* Runs fn(arg, 0) on cpus[0] and fn(arg, 1) on cpus[1] for duration_ns,
 * then sets ruler_time_up and joins them.  -1 with a line on stderr when a
 * CPU could not be pinned or a thread started. */
int ruler_run(const char *prog, const int cpus[2], void (*fn)(void *arg, int role), void *arg,
	      uint64_t duration_ns);

/* "A,B" in the order given.  -1 with the reason in err. */
int ruler_parse_cpus(const char *s, int cpus[2], char *err, size_t len);

/* The probe between the two CPUs: {cpus, round_trip_ns, one_way_ns, chunks}
 * or null; *one_way is NAN when it failed. */
json_t *ruler_probe(int a, int b, double *one_way);

/* {"before": ..., "after": ..., "stable": the two within
 * MMT_PROBE_STABLE_RATIO}; takes the two references. */
json_t *ruler_probe_doc(json_t *before, double one_way_before, json_t *after, double one_way_after);

#endif
