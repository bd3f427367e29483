/* SPDX-License-Identifier: MIT */
/*
 * softdirty internals, shared by its actors: the descriptor, memory, the
 * soft-dirty probe and the record (softdirty.c), the tracker and the
 * writers (softdirty-actors.c).
 */
#ifndef MMT_SOFTDIRTY_H
#define MMT_SOFTDIRTY_H

#include <stdbool.h>
#include <stdint.h>

#include "compiler.h"
#include "hunt.h"
#include "kstate.h"
#include "mutant.h"
#include "pagemap.h"
#include "scenario.h"

enum softdirty_variant { V_CLEAR_REFS, V_CLEAR_REFS_REPROTECT, V_BROKEN_UNTRACKED, NR_VARIANTS };

enum { OPT_PAGES, OPT_TARGET_RACED, NR_OPTIONS };

enum { OUT_TRACKED, OUT_UNTRACKED, OUT_LOST, NR_OUTCOMES };

#define SD_MAX_WRITERS 8
/* Writer w's word of each page is at w * SD_WORD_STRIDE: a line pair of
 * its own (adjacent-line prefetch), so writers never share a line. */
#define SD_WORD_STRIDE MMT_PAD_BYTES
#define SD_MAX_FIRST 16			/* first_untracked rows kept */

/*
 * Without --duration: the hunters' rule (harness/hunt.h), the clears its
 * rounds: the run ends at its first untracked write or at MMT_HUNT_TARGET
 * raced clears (a writer on another CPU than the tracker's stored to the
 * pages while clear_refs ran), at most SD_DEFAULT_BOUND_NS in.  Measured
 * in the 2-node 4-vCPU TCG guest of the mutant kernel
 * (scripts/mutant-proof, plain run-scenario, 10 runs a side): with
 * clear_refs_flush on, the first untracked write within the first clears,
 * 0.6-1.6 ms in; off, 64 raced clears in under 0.1 s, every run
 * conclusive.  64 is mmrace's count: a catch needs far fewer, and the
 * rule costs milliseconds.
 */
#define SD_DEFAULT_BOUND_NS 120000000000ull

/* Bounds on every wait, and what the run says when one runs out. */
#define SD_WAIT_NS 2000000000ull	/* the tracker, for a writer's acknowledgement */
#define SD_WRITER_WAIT_NS 10000000000ull	/* a writer, for the tracker's next clear */

/* Epochs, per clear n: 2n-1 clearing (clear_refs being written), 2n
 * cleared (the write returned; clear-refs-reprotect: and mprotect). */
#define SD_CLEARING(e) ((e) & 1)
#define SD_ITER(e) (((e) + 1) / 2)

struct sd_ctl {
	uint64_t epoch __mmt_aligned;	/* tracker */
	int stop;			/* tracker: the writers return */
};

struct sd_writer {
	/* Its own, never read while it runs. */
	uint64_t **words;		/* where it stores: its word of each page */
	uint64_t seq, stores, window_stores;
	uint64_t *ledger;		/* ledger[pg]: the last value stored to page pg */
	/* Read by the tracker once it acknowledged clear n (published by
	 * the release of acked): the race's premise for clear window_iter,
	 * its stores while the epoch read "clearing" before and after them,
	 * the CPU they ran on (-1: it moved) and their span. */
	uint64_t window_iter, window_first_ns, window_last_ns;
	int window_cpu;
	uint64_t stores_after_clear, injected;
	bool stuck;
	uint64_t acked __mmt_aligned;	/* the last clear it stored after */
} __mmt_aligned;

/* One clear, as the tracker saw it. */
struct sd_clear {
	uint64_t n, t0, t1;		/* CLOCK_MONOTONIC around the write */
	int cpu;			/* the tracker's, the same before and after; -1 if not */
};

/* An untracked (or lost) write, for the record. */
struct sd_witness {
	const char *kind;		/* "untracked" or "lost" */
	uint64_t page, writer, iteration, stored, found, pagemap;
	int writer_cpu, tracker_cpu;
};

struct sd_priv {
	int variant;
	struct mmt_run *run;
	struct sd_ctl *ctl;
	size_t psz;			/* the page size */
	unsigned pages, nwriters;
	char *reserve;			/* the region with a guard page each side */
	char *region;			/* the pages the tracker reads pagemap for */
	char *alias;			/* broken-untracked: the same memfd again */
	size_t reserve_len, region_len;
	int memfd;
	int clear_fd, pagemap_fd;
	uint64_t *pm;			/* one pagemap entry per page */
	struct sd_writer *ws;
	/* Why soft-dirty cannot be tracked here (prepare's probe); NULL: it can. */
	const char *unavailable;
	char why[256];
	/* results: the clears are the hunt's rounds, the raced ones its premise */
	struct mmt_hunt hunt;
	uint64_t same_cpu, no_store, cpu_moved;
	uint64_t pages_checked, pages_unjudged, reprotects;
	double clear_ns_ema;
	uint64_t outcomes[NR_OUTCOMES];
	struct sd_witness first[SD_MAX_FIRST];
	unsigned nr_first;
	uint64_t findings;		/* untracked and lost writes so far (the hunt's rule) */
	struct mmt_kconfig config;
};

extern const struct mmt_variant sd_variants[NR_VARIANTS];

/* softdirty-actors.c */
void sd_tracker(struct sd_priv *p, struct mmt_worker *wk);
void sd_writer_main(struct sd_priv *p, unsigned w);

/* A writer's value: writer w's number seq (seq < 2^56). */
static inline uint64_t sd_tag(unsigned w, uint64_t seq)
{
	return ((uint64_t)(w + 1) << 56) | (seq & ((1ull << 56) - 1));
}

/* Writer w's word of page pg in a mapping of the pages. */
static inline uint64_t *sd_word(const struct sd_priv *p, char *base, unsigned pg, unsigned w)
{
	return (uint64_t *)(base + (size_t)pg * p->psz + (size_t)w * SD_WORD_STRIDE);
}

#endif
