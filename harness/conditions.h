/* SPDX-License-Identifier: MIT */
/*
 * The conditions a run ran under, beside its numbers: whether its workers
 * held their CPUs (CPU time over wall time), how many other tasks were
 * runnable meanwhile, the load average before and after.  A comparison
 * whose two sides ran under different conditions can tell a loaded
 * machine from a regression (scripts/compare's LOADED).
 */
#ifndef MMT_CONDITIONS_H
#define MMT_CONDITIONS_H

#include "values.h"

#include <jansson.h>
#include <stdint.h>

struct mmt_conditions {
	unsigned own;		/* runnable threads of ours: the workers and the supervisor */
	double load_before;	/* 1-minute load average; < 0: unknown */
	uint64_t samples, others_sum;
	unsigned others_max;
};

/* "0.20 0.18 0.12 3/80 11206" (/proc/loadavg): the 1-minute average and
 * the runnable count.  0, or -1 if the text is not that. */
int mmt_loadavg_parse(const char *text, double *load1, unsigned *running);

/* Before the workers start; own: the workers that will spin. */
void mmt_conditions_begin(struct mmt_conditions *c, unsigned workers);
/* From the supervisor's loop, while the workers run. */
void mmt_conditions_sample(struct mmt_conditions *c);

/* What the record says (mmt_conditions_shape): on_cpu, CPU time over
 * wall time of the workers' loops (1: never off their CPUs),
 * cpu_ns_per_op, others_running (mean other runnable tasks),
 * others_running_max, samples, loadavg_before, loadavg_after; NaN: null.
 * cpu_ns, t_begin, t_end: per worker. */
struct mmt_conditions_report {
	double on_cpu, cpu_ns_per_op, others_running;
	int others_running_max;
	uint64_t samples;
	double loadavg_before, loadavg_after;
};
extern const struct mmt_shape mmt_conditions_shape;
void mmt_conditions_report(const struct mmt_conditions *c, const uint64_t *cpu_ns, const uint64_t *t_begin,
			   const uint64_t *t_end, unsigned n, uint64_t ops, struct mmt_conditions_report *out);

#endif
