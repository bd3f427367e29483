/* SPDX-License-Identifier: MIT */
/*
 * Placement probe: core-to-core latency between the CPUs a run used,
 * measured just before and just after it.  On virtual machines the host
 * may move vCPUs between SMT siblings, cores of one L3 and different dies;
 * the same pinned run then differs tenfold in throughput.  Results carry
 * the probe so that only runs that sat alike are compared.
 */
#ifndef MMT_PROBE_H
#define MMT_PROBE_H

#include <jansson.h>

struct mmt_probe_pair {
	int a, b;
	double round_trip_ns;	/* median of chunk means */
	double one_way_ns;	/* half of it */
};

/* Ping-pong between CPUs a and b; returns 0 or -1 (cannot pin). */
int mmt_probe_pair(int a, int b, struct mmt_probe_pair *out);

/* Probes the pairs among cpus[0..n) (all pairs up to 8 CPUs, then CPU 0
 * against each other) and returns a JSON array of
 * {"cpus": [a, b], "round_trip_ns": x, "one_way_ns": y}. */
json_t *mmt_probe_cpus(const int *cpus, int n);

/* Largest after/before (or before/after) one-way ratio over the pairs
 * probed on both sides; 1.0 when the CPUs sat the same, NAN if unknown. */
double mmt_probe_drift(const json_t *before, const json_t *after);

/* Drift above this means the host moved the CPUs during the run. */
#define MMT_PROBE_STABLE_RATIO 1.5

#endif
