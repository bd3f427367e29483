/* SPDX-License-Identifier: MIT */
/*
 * mremap internals, shared by its actors: the descriptor, memory and the
 * record (mremap.c), the mover, the puncher and the reader
 * (mremap-actors.c).
 */
#ifndef MMT_MREMAP_H
#define MMT_MREMAP_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "compiler.h"
#include "hunt.h"
#include "stale-read.h"
#include "mutant.h"
#include "scenario.h"

enum mr_variant { V_PUNCH, V_PUNCH_AFTER_MOVE, V_BROKEN_STALE, NR_VARIANTS };

enum { OPT_PAGES, OPT_TARGET_RACED, NR_OPTIONS };

enum { OUT_FRESH, OUT_STALE, NR_OUTCOMES };

/*
 * Without --duration: the run ends at the first stale read or at 64 raced
 * rounds (the punch ran inside the mremap() call, past its start), at most
 * MR_DEFAULT_BOUND_NS in: the hunt's rule (hunt.h).
 */
#define MR_DEFAULT_BOUND_NS 120000000000ull

/* The reader's reads after it saw the punch return, each judged. */
#define MR_AFTER_READS 64

/* The puncher's delay into the mremap() call, as a fraction of the mean
 * call measured so far: past the first page table's move (the target is
 * the first page), well before the end. */
#define MR_PUNCH_AT 0.3

#define MR_NAP_NS 20000			/* the puncher's sleep between looks on a shared CPU */
#define MR_WAIT_NS 5000000000ull	/* an actor, for another's step */
#define MR_IDLE_WAIT_NS 20000000000ull	/* the reader or puncher, for the next round */

struct mr_ctl {
	/* The mover's, per round n. */
	uint64_t round __mmt_aligned;	/* n: the old mapping is present: store to the target */
	uint64_t moving;		/* n: its mremap() runs (t_m0 published first) */
	uint64_t moved;			/* n: it returned */
	uint64_t t_m0;
	uint64_t mean_move_ns;		/* the mean mremap() so far, for the puncher's delay */
	int stop;
};

/* The puncher's, per round n: published by punched. */
struct mr_puncher {
	uint64_t t_p0, t_p1;		/* around fallocate(PUNCH_HOLE) */
	int cpu;
	int error;			/* errno of its first failed call */
	bool stuck;
	uint64_t calls;
	uint64_t punched __mmt_aligned;
} __mmt_aligned;

struct mr_witness {
	uint64_t round, reads, file_value, found;
	int reader_cpu, mover_cpu, puncher_cpu;
	bool raced;
};

#define MR_MAX_FIRST 16

struct mr_priv {
	int variant;
	struct mmt_run *run;
	struct mr_ctl *ctl;
	struct mr_puncher *puncher;
	struct mmt_stale_reader *reader;
	size_t psz;
	unsigned pages;
	size_t len;
	int memfd;
	char *reserve;			/* both places, 2 MiB aligned, a guard between */
	size_t reserve_len;
	char *old_at, *new_at;		/* new_at is a page past a 2 MiB boundary */
	char *shadow;			/* broken-stale: the reader's own page, holding the file's old value */
	bool populate_read;
	pthread_t puncher_thread;
	bool puncher_threaded;
	int mover_cpu;
	/* results */
	struct mmt_hunt hunt;		/* rounds, raced rounds (its premise), the first finding, errors */
	uint64_t punched_late, move_ns_sum;
	uint64_t outcomes[NR_OUTCOMES];
	struct mr_witness first[MR_MAX_FIRST];
	unsigned nr_first;
};

extern const struct mmt_variant mr_variants[NR_VARIANTS];

/* mremap-actors.c */
void mr_mover(struct mr_priv *p, struct mmt_worker *wk);
void mr_puncher_main(struct mr_priv *p);
void *mr_puncher_thread(void *arg);
void mr_reader_main(struct mr_priv *p);
int mr_map_old(struct mr_priv *p, uint64_t n);

/* The file's value at the target in round n (< 2^56): never 0, the hole's. */
static inline uint64_t mr_tag(uint64_t n)
{
	return (0x5aull << 56) | (n & ((1ull << 56) - 1));
}

#endif
