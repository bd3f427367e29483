/* SPDX-License-Identifier: MIT */
/*
 * Runs one scenario run: shared memory on the chosen node, one pinned
 * thread per worker, a start barrier, the stop condition, and the join.
 * SIGINT and SIGTERM must be blocked in the caller (see signals in main):
 * the runner waits for them with sigtimedwait, so no handler ever runs
 * inside a worker.
 */
#ifndef MMT_RUNNER_H
#define MMT_RUNNER_H

#include <signal.h>

#include "scenario.h"

enum mmt_run_end {
	MMT_END_DONE,		/* duration elapsed or iterations reached */
	MMT_END_INTERRUPTED,	/* SIGINT/SIGTERM: results so far are kept */
	MMT_END_HUNG,		/* a worker did not stop within the grace time */
	MMT_END_ERROR,		/* could not set up (memory, threads, pinning) */
	MMT_END_SKIPPED,	/* prepare() found it cannot run here (mmt_run_skip): why in error */
};

struct mmt_run_outcome {
	enum mmt_run_end end;
	int signo;
	uint64_t elapsed_ns;	/* first worker start to last worker end */
	int actual_mem_node;	/* where the first shared page landed, -1 unknown */
	char error[512];
};

/* Runs sc->prepare/worker/verify/cleanup.  run->sc, variant, opt,
 * nr_workers, mem_node, iterations and seed must be set; cpus[] is the
 * plan.  duration_ns 0 means iterations only. */
void mmt_run_execute(struct mmt_run *run, const int *cpus, uint64_t duration_ns,
		     const sigset_t *stop_signals, struct mmt_run_outcome *out);

/* Frees what verify() left in run (metrics, workers). */
void mmt_run_release(struct mmt_run *run);

#endif
