/* SPDX-License-Identifier: MIT */
/*
 * One bounded wait for the scenarios' actors: until a published counter
 * reaches a value, the run's actors are told to stop, or a bound passes.
 * It spins first (a step of another actor on another CPU usually takes
 * microseconds) and then yields: an actor that shares a CPU with the one it
 * waits for must let it run.  The caller says what it waited for when the
 * wait gives up: every wait has a bound, and no hang is silent.
 */
#ifndef MMT_BOUNDED_WAIT_H
#define MMT_BOUNDED_WAIT_H

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "arch/barrier.h"
#include "clock.h"

enum mmt_wait { MMT_WAITED, MMT_WAIT_TIMED_OUT, MMT_WAIT_STOPPED };

#define MMT_WAIT_SPINS 64

/* *x >= v (acquire: what was published before it is visible), *stop set
 * (NULL: no stop flag), or bound_ns passed, whichever comes first. */
static inline enum mmt_wait mmt_wait_at_least(const uint64_t *x, uint64_t v, const int *stop, uint64_t bound_ns)
{
	uint64_t t0 = 0;

	for (unsigned spins = 0; smp_load_acquire(x) < v; spins++) {
		if (stop && READ_ONCE(*stop))
			return MMT_WAIT_STOPPED;
		if (spins < MMT_WAIT_SPINS) {
			cpu_relax();
			continue;
		}
		if (!t0)
			t0 = mmt_now_ns();
		else if (mmt_now_ns() - t0 > bound_ns)
			return MMT_WAIT_TIMED_OUT;
		sched_yield();
	}
	return MMT_WAITED;
}

/*
 * An actor's pause between looks at another's progress.  beside: it shares
 * the CPU of the actor it waits on, and sleeps nap_ns: its timer's wake-up
 * preempts that actor inside its system call (a zap or a move reschedules
 * between page tables), which is the moment to look; a yield would wait
 * for the other's time slice, longer than its whole call.  Else it spins,
 * then yields.
 */
static inline void mmt_pause_beside(bool beside, unsigned spins, long nap_ns)
{
	const struct timespec nap = { 0, nap_ns };

	if (beside)
		nanosleep(&nap, NULL);
	else if (spins > 16)
		sched_yield();
	else
		cpu_relax();
}

/* *x >= v, paced by mmt_pause_beside(); false once *stop is set or
 * bound_ns passed. */
static inline bool mmt_wait_beside(const uint64_t *x, uint64_t v, const int *stop, uint64_t bound_ns, bool beside,
				   long nap_ns)
{
	const uint64_t t0 = mmt_now_ns();

	for (unsigned spins = 0; smp_load_acquire(x) < v; spins++) {
		if (READ_ONCE(*stop) || mmt_now_ns() - t0 > bound_ns)
			return false;
		mmt_pause_beside(beside, spins, nap_ns);
	}
	return true;
}

/*
 * An actor's wait for another's step n (no stop flag: the one it waits for
 * always answers, or the bound says it did not).  On timeout it counts
 * one in *timeouts and, the first time, says in note "WHAT (UNIT N) for
 * more than S s": the run's reason when it ends INCONCLUSIVE.
 */
static inline bool mmt_wait_step(const uint64_t *x, uint64_t n, uint64_t bound_ns, const char *what,
				 const char *unit, uint64_t *timeouts, char *note, size_t len)
{
	if (mmt_wait_at_least(x, n, NULL, bound_ns) == MMT_WAITED)
		return true;
	if (!(*timeouts)++)
		snprintf(note, len, "%s (%s %llu) for more than %llu s", what, unit, (unsigned long long)n,
			 (unsigned long long)(bound_ns / 1000000000ull));
	return false;
}

#endif
