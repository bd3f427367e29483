/* SPDX-License-Identifier: MIT */
/*
 * Placement probe: core-to-core latency between the CPUs a run used,
 * measured just before and just after it.  On virtual machines the host
 * may move vCPUs between SMT siblings, cores of one L3 and different dies;
 * the same pinned run then differs tenfold in throughput.  Results carry
 * the probe so that only runs that sat alike are compared.
 *
 * Every wait is bounded: a pair gets MMT_PROBE_BUDGET_NS (a loaded or
 * emulated machine gets fewer chunks, and says how many), a CPU that does
 * not answer for MMT_PROBE_HANG_NS is a hang, reported with where it was,
 * and a stop signal pending (blocked, as main blocks them) ends the probe
 * within a millisecond.
 */
#ifndef MMT_PROBE_H
#define MMT_PROBE_H

#include <jansson.h>
#include <signal.h>

#include "compiler.h"
#include <stdint.h>

#define MMT_PROBE_BUDGET_NS (100ull * 1000000ull)
/* Not 5 s: this project's VM has seen its vCPUs stalled that long by the host. */
#define MMT_PROBE_HANG_NS (20ull * 1000000000ull)

struct mmt_probe_pair {
	int a, b;
	double round_trip_ns;	/* median of chunk means */
	double one_way_ns;	/* half of it */
	int chunks;		/* chunks measured within the budget */
};

enum mmt_probe_end {
	MMT_PROBE_OK,
	MMT_PROBE_NO_PIN,	/* a CPU could not be pinned: pair left out */
	MMT_PROBE_SHORT,	/* not one chunk within the budget: pair left out */
	MMT_PROBE_INTERRUPTED,	/* a stop signal is pending */
	MMT_PROBE_HUNG,		/* the other CPU stopped answering; where says where */
};

struct mmt_probe_status {
	enum mmt_probe_end end;
	char where[200];
};

/* Limits, overridable by the unit test. */
struct mmt_probe_limits {
	uint64_t budget_ns, hang_ns;
	/* The responder thread; NULL: the real one.  The test plugs in one
	 * that never answers, to prove the hang path. */
	void *(*responder)(void *);
};

/* Ping-pong between CPUs a and b.  stop: signals that end the probe
 * (NULL: none); limits NULL: the defaults. */
enum mmt_probe_end mmt_probe_pair(int a, int b, struct mmt_probe_pair *out, const sigset_t *stop,
				  const struct mmt_probe_limits *limits, struct mmt_probe_status *st);

/* The pairs one probe measured, in order. */
struct mmt_probe_set {
	unsigned n;
	struct mmt_probe_pair pairs[];
};

/* Probes the pairs among cpus[0..n) (all pairs up to 8 CPUs, then CPU 0
 * against each other); st says whether it was cut short (INTERRUPTED,
 * HUNG) and where.  free() it; NULL only when out of memory. */
struct mmt_probe_set *mmt_probe_cpus(const int *cpus, int n, const sigset_t *stop, struct mmt_probe_status *st);

/* Largest after/before (or before/after) one-way ratio over the pairs
 * probed on both sides; 1.0 when the CPUs sat the same, NAN if unknown. */
double mmt_probe_drift(const struct mmt_probe_set *before, const struct mmt_probe_set *after);

/* Drift above this means the host moved the CPUs during the run. */
#define MMT_PROBE_STABLE_RATIO 1.5

/* For a test responder: the word it answers on. */
struct mmt_probe_state {
	uint64_t line __mmt_aligned;	/* the ping-pong word, alone on its line */
	int cpu;
	int pinned;
	uint64_t hang_ns;
};
#define MMT_PROBE_STOP UINT64_MAX

#endif
