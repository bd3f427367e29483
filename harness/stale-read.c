// SPDX-License-Identifier: MIT
/*
 * The stale_read oracle's reader (stale-read.h).
 */
#include <sched.h>
#include <sys/resource.h>

#include "arch/barrier.h"
#include "bounded-wait.h"
#include "stale-read.h"

/* Involuntary context switches of this thread so far; -1: unknown. */
static long preemptions(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_THREAD, &ru) ? -1 : ru.ru_nivcsw;
}

/* A look every 1024 reads: the run stopping, or the round's bound passed. */
static inline bool give_up(const struct mmt_stale_reader *r, const struct mmt_stale_round *x, uint64_t reads,
			   uint64_t c0)
{
	return !(reads & 1023) && (READ_ONCE(*x->stop) || mmt_cycles() - c0 > r->bound_cycles);
}

bool mmt_stale_read_round(struct mmt_stale_reader *r, const struct mmt_stale_round *x, uint64_t n)
{
	const volatile uint64_t *t = x->at;
	const volatile uint64_t *after = x->shadow ? x->shadow : t;
	const long pre0 = x->held ? preemptions() : -1;	/* the last system call until the round's last read */
	const uint64_t c0 = mmt_cycles(), want = x->want;
	uint64_t reads = 0, stale = 0, first = 0;

	while (*t != x->value) {
		if (give_up(r, x, ++reads, c0)) {
			r->never_saw = !READ_ONCE(*x->stop);
			return false;
		}
	}
	smp_store_release(&r->armed, n);
	while (smp_load_acquire(x->revoked) < n) {
		(void)*t;
		if (give_up(r, x, ++reads, c0))
			return false;
	}
	if (x->shadow)
		WRITE_ONCE(*x->shadow, x->value);
	for (unsigned k = 0; k < x->after_reads; k++) {
		const uint64_t v = *after;

		if (v != want && !stale++)
			first = v;
	}
	r->cpu = sched_getcpu();
	r->round_held = x->held && pre0 >= 0 && preemptions() == pre0;
	r->reads += reads + x->after_reads;
	r->stale += stale;
	r->injected += x->shadow ? x->after_reads : 0;
	r->round_stale = stale;
	r->first_value = first;
	return true;
}

void mmt_stale_reader_main(struct mmt_stale_reader *r, const uint64_t *round, const int *stop, uint64_t idle_ns,
			   bool (*read_round)(void *priv, uint64_t n), void *priv)
{
	r->cpu = -1;
	for (uint64_t n = 1;; n++) {
		const enum mmt_wait w = mmt_wait_at_least(round, n, stop, idle_ns);

		if (w == MMT_WAIT_TIMED_OUT)
			WRITE_ONCE(r->stuck, true);
		if (w != MMT_WAITED)
			return;
		if (!read_round(priv, n)) {
			WRITE_ONCE(r->stuck, !READ_ONCE(*stop) && !r->never_saw);
			return;
		}
	}
}
