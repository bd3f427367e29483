/* SPDX-License-Identifier: MIT */
/*
 * What scenario.h promises the workers: the stop flag and its request,
 * the first-witness note.  Apart from runner.c, which drives the workers
 * and depends on much more (placement tracking, counters), so that the
 * scenario API depends on nothing above it.
 */
#include "clock.h"
#include "compiler.h"
#include "scenario.h"

struct mmt_stop mmt_stop;

void mmt_request_stop(void)
{
	WRITE_ONCE(mmt_stop.flag, 1);
}

void mmt_witness_note(struct mmt_worker *w, uint64_t iteration)
{
	w->first_witness_ns = mmt_now_ns();
	w->first_witness_iteration = iteration;
}
