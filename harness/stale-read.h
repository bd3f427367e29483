/* SPDX-License-Identifier: MIT */
/*
 * The stale_read oracle's reader, for hunters whose finding is a read
 * through a translation the kernel has revoked (issue 26's stale-access
 * library): mremap's (the old address after the punch) and pmdshare's (the
 * sharing mapping after the unshare or the move).
 *
 * Per round n the reader waits for the round's value to read through its
 * mapping (the TLB entry is made then), says armed, keeps reading it until
 * the revoker's count says round n's revocation returned (keeping the entry
 * in use), then reads it after_reads times more: each read that is not what
 * it must be (the hole's 0, the moved page's new value) is stale.  Nothing
 * but those reads between the first and the last: no system call, no
 * fault of its own.  round_held (where the round asks: .held) says the
 * thread kept its CPU unpreempted from before its first read to after its
 * last (a preemption may switch page tables, and with them the entry the
 * bug leaves; a voluntary switch needs a fault, which only a flush makes,
 * so involuntary ones are all that can take the entry away).  The caller adds what it records per
 * round and then publishes acked.
 */
#ifndef MMT_STALE_READ_H
#define MMT_STALE_READ_H

#include <stdbool.h>
#include <stdint.h>

#include "compiler.h"

struct mmt_stale_reader {
	uint64_t reads, stale, injected;	/* the run's */
	uint64_t bound_cycles;			/* a round's longest wait */
	bool stuck, never_saw;			/* never_saw: the target never read the round's value */
	/* The round's, for the caller to publish with acked: its reads after
	 * the revocation that did not read what they must, the first such
	 * value, where it ran, whether it held its CPU throughout. */
	uint64_t round_stale, first_value;
	int cpu;
	bool round_held;		/* only where the round asked for it (.held) */
	uint64_t armed __mmt_aligned;		/* n: it read round n's value */
	uint64_t acked __mmt_aligned;		/* n: its reads after round n's revocation are done */
} __mmt_aligned;

/* Round n, as the scenario lays it out. */
struct mmt_stale_round {
	const volatile uint64_t *at;	/* the target, through the reader's mapping */
	uint64_t value;			/* round n's value there, before the revocation */
	uint64_t want;			/* what every read after the revocation must read */
	const uint64_t *revoked;	/* the revoker's count: n once round n's revocation returned */
	const int *stop;
	unsigned after_reads;
	bool held;			/* measure round_held (two getrusage() calls a round) */
	/* An injected fault (broken-stale): the reads after the revocation
	 * come from this page of the reader's own, value written first, so
	 * each is stale, exactly; NULL otherwise. */
	volatile uint64_t *shadow;
};

/* One round; false when the run stops or a wait passed bound_cycles
 * (never_saw set when the value itself never came). */
bool mmt_stale_read_round(struct mmt_stale_reader *r, const struct mmt_stale_round *x, uint64_t n);

/* The reader's life: round n = 1, 2, ... once *round reaches n (at most
 * idle_ns each), read_round(priv, n) (mmt_stale_read_round and the
 * scenario's own record, then acked); stuck when a wait gave up while the
 * run went on. */
void mmt_stale_reader_main(struct mmt_stale_reader *r, const uint64_t *round, const int *stop, uint64_t idle_ns,
			   bool (*read_round)(void *priv, uint64_t n), void *priv);

#endif
