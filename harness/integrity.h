/* SPDX-License-Identifier: MIT */
/*
 * A run's integrity: did it do the work its record claims?  Operations
 * done, the time every worker was running at once, the overrun past the
 * requested duration, the preemptions each worker saw.  A run whose
 * workers never ran together, that did no operation, or that overran its
 * duration by more than half of it and MMT_OVERRUN_SLACK_NS (the process
 * was stopped, the machine stalled) is invalid: its numbers describe
 * something else than what was asked, so it is neither a pass nor a
 * measurement.
 */
#ifndef MMT_INTEGRITY_H
#define MMT_INTEGRITY_H

#include "values.h"

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

/* A run may end this long, and half its duration, past the duration: the
 * stop is seen at the next poll (a scenario's batch, a walk under TCG),
 * and a busy machine schedules late (stress-ng --cpu 4 beside a 200 ms run
 * here: 4 ms). */
#define MMT_OVERRUN_SLACK_NS 1000000000ull

struct mmt_integrity {
	unsigned nr_workers;
	const uint64_t *t_begin, *t_end;	/* each worker's loop, ns */
	const uint64_t *preemptions;	/* each worker's involuntary switches */
	uint64_t ops;			/* what the run counts (run->ops) */
	uint64_t requested_ns;		/* 0: bound by iterations, or by the scenario itself */
};

/* Whether the run is valid; why not, into why ("" when it is). */
int mmt_integrity_valid(const struct mmt_integrity *in, char *why, size_t len);

/* What the record says (mmt_integrity_shape): ops, overlap_ns,
 * requested_ns, overrun_ns, preemptions (per worker), valid,
 * invalid_reason (null when valid). */
struct mmt_integrity_report {
	uint64_t ops, overlap_ns, requested_ns;
	int64_t overrun_ns;
	const uint64_t *preemptions;
	unsigned nr_workers;
	bool valid;
	const char *invalid_reason;	/* why, or NULL */
	char why[256];
};
extern const struct mmt_shape mmt_integrity_shape;
void mmt_integrity_report(const struct mmt_integrity *in, struct mmt_integrity_report *out);

#endif
