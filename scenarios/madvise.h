/* SPDX-License-Identifier: MIT */
/*
 * madvise internals, shared by its actors: the descriptor, memory and the
 * record (madvise.c), the zappers and the writer (madvise-actors.c).
 */
#ifndef MMT_MADVISE_H
#define MMT_MADVISE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "compiler.h"
#include "kstate.h"
#include "hunt.h"
#include "mutant.h"
#include "scenario.h"

enum madv_variant {
	V_NESTED_DONTNEED, V_NESTED_DONTNEED_FLUSHED, V_NESTED_FREE, V_NESTED_FREE_FLUSHED, V_BROKEN_LOST, V_BROKEN_FREE,
	NR_VARIANTS
};

/* The variants whose zaps are MADV_FREE: the page stays mapped, clean,
 * and a reclaim of it must not discard a store made after the call. */
static inline bool ma_frees(int v)
{
	return v == V_NESTED_FREE || v == V_NESTED_FREE_FLUSHED || v == V_BROKEN_FREE;
}

enum { OPT_PAGES, OPT_TARGET_RACED, OPT_SECOND_AFTER_FIRST, NR_OPTIONS };

enum { OUT_KEPT, OUT_LOST, NR_OUTCOMES };

/*
 * Without --duration: the run ends at the first lost write or at 64 raced
 * rounds (the second zapper returned, and the writer stored after it,
 * while the first zapper's call still ran), at most MA_DEFAULT_BOUND_NS
 * in: the hunt's rule (hunt.h; 64 is mmrace's and softdirty's count too).
 */
#define MA_DEFAULT_BOUND_NS 120000000000ull

/* The second zapper's sleep between looks when it shares a CPU. */
#define MA_NAP_NS 20000

/* Bounds on every wait, and what the run says when one runs out. */
#define MA_WAIT_NS 5000000000ull	/* an actor, for another's step */
#define MA_IDLE_WAIT_NS 20000000000ull	/* a writer or zapper, for the next round */

struct ma_ctl {
	/* The first zapper's, per round n. */
	uint64_t round __mmt_aligned;	/* n: the pages are present, store to the target */
	uint64_t zapping;		/* n: its madvise() runs */
	uint64_t zapped;		/* n: it returned */
	int stop;
};

/* The second zapper's, per round n: published by done. */
struct ma_second {
	int cpu;			/* where it ran (it is pinned: the plan's) */
	bool saw_cleared;		/* the first zapper's walk passed the target while it ran:
					 * mincore read it out (DONTNEED), the kernel marked it
					 * lazily freed (FREE) */
	bool late;			/* the first zapper returned before it saw that */
	bool skipped;			/* neither (its wait gave up): it did not zap, the round is void */
	bool moved;			/* FREE: the target had left the frame whose marks were read: void */
	bool stuck;			/* it waited past its bound for a round; it has returned */
	int error;			/* errno of its first failed call; 0: none */
	uint64_t calls;
	uint64_t done __mmt_aligned;	/* n: its calls returned (the above first) */
} __mmt_aligned;

struct ma_writer {
	/* Its own. */
	uint64_t seq, stores, injected, window_stores;
	uint64_t bound_cycles;		/* its window's bound, in mmt_cycles() */
	bool stuck;			/* it waited past its bound; it has returned */
	/* Published with acked. */
	uint64_t stored;		/* the tag it stored after the second zapper returned */
	int stored_cpu;
	/* The first zapper's walk reached the region's end before the tag
	 * was stored (DONTNEED: the last page read out; FREE: the probe page
	 * lazily freed): its flush may have come first. */
	bool walk_done;
	uint64_t armed __mmt_aligned;	/* n: it stored to the target this round */
	uint64_t acked __mmt_aligned;	/* n: it stored after the second zapper's return */
} __mmt_aligned;

/* A lost write, for the record. */
struct ma_witness {
	uint64_t round, stored, found;
	int writer_cpu, zapper_cpu, second_cpu;
	bool raced;
};

/*
 * The most pages one madvise() of the first zapper may zap: its gather
 * holds about 9,700 pages before it must flush in the middle of the walk
 * (include/asm-generic/tlb.h MAX_GATHER_BATCH_COUNT, 4 KiB pages), which
 * would end the window early while the evidence still counted it open.
 */
#define MA_MAX_PAGES 8192

#define MA_MAX_FIRST 16			/* first_lost rows kept */

struct ma_priv {
	int variant;
	struct mmt_run *run;
	struct ma_ctl *ctl;
	struct ma_second *second;
	struct ma_writer *writer;
	size_t psz;
	unsigned pages;
	char *reserve;			/* the region, 2 MiB aligned, guard pages around */
	char *region;			/* the first zapper's range; its first page is the target */
	size_t reserve_len, region_len;
	char *shadow;			/* broken-lost: where the writer's store goes instead */
	bool populate_write;		/* MADV_POPULATE_WRITE works here */
	/* The FREE variants' evidence: page frames from /proc/self/pagemap,
	 * their flags from /proc/kpageflags (root). */
	int pagemap_fd, kpageflags_fd;
	uint64_t target_pfn, probe_pfn;	/* this round's frames of the target and the probe page */
	pthread_t second_thread;	/* the second zapper when it has no worker of its own */
	bool second_threaded;
	/* results */
	struct mmt_hunt hunt;		/* rounds, raced rounds (its premise), the first finding, errors */
	uint64_t void_rounds, not_resident, late, walk_done;
	uint64_t discarded;		/* FREE: rounds whose reclaim discarded the clean check page */
	uint64_t moved;			/* FREE: void rounds whose target had changed frames (migrated) */
	uint64_t zap_ns_sum;
	uint64_t outcomes[NR_OUTCOMES];
	struct ma_witness first[MA_MAX_FIRST];
	unsigned nr_first;
	int zapper_cpu;
};

extern const struct mmt_variant ma_variants[NR_VARIANTS];

/* madvise-actors.c */
void ma_first_zapper(struct ma_priv *p, struct mmt_worker *wk);
void ma_second_zapper(struct ma_priv *p);
void *ma_second_thread(void *arg);
void ma_writer_main(struct ma_priv *p);

/* The writer's value for round n's store after the second zapper (its
 * window stores count up from 1 below 2^40, never one of these). */
static inline uint64_t ma_tag(uint64_t n)
{
	return (0xa5ull << 56) | (n & ((1ull << 56) - 1));
}

/*
 * The FREE variants' pages besides the target: the check page, never
 * stored to after the zap, which the round's reclaim must discard (it
 * can discard a clean lazily freed page: the finding's means), and the
 * probe page, 16 from the end: MADV_FREE marks pages lazily freed in
 * batches of 15 as its walk goes, so the probe's mark comes before the
 * walk ends and the flush that follows it.
 */
#define MA_CHECK_PAGE 1
#define MA_PROBE_FROM_END 16

/* The target: the first word of the region's first page. */
static inline uint64_t *ma_target(const struct ma_priv *p)
{
	return (uint64_t *)p->region;
}

#endif
