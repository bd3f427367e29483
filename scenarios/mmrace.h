/* SPDX-License-Identifier: MIT */
/*
 * mmrace internals, shared by its actors: the descriptor and results
 * (mmrace.c), the writers (mmrace-writer.c), the protector and injector
 * (mmrace-protector.c) and the migrator process (mmrace-migrator.c).
 */
#ifndef MMT_MMRACE_H
#define MMT_MMRACE_H

#include <jansson.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "compiler.h"
#include "kstate.h"
#include "mutant.h"
#include "scenario.h"

enum mmrace_variant {
	V_RACE,
	V_RACE_THP,
	V_RACE_COMPACTION,
	V_MIGRATE_AFTER_WALK,
	V_MIGRATE_AFTER_WALK_THP,
	V_BROKEN_STALE_MAPPING,
	V_BROKEN_EARLY_EPOCH,
	NR_VARIANTS
};

enum { OPT_HOT_PAGES, OPT_WALK_PAGES, OPT_COMPACT, OPT_NUMA_BALANCING, OPT_TARGET_WINDOW,
       OPT_STOP_ON_LOST, OPT_INJECT_STORES, OPT_MIGRATOR_BESIDE_WRITER, NR_OPTIONS };

enum { OUT_VERIFIED, OUT_LOST, OUT_FOREIGN, OUT_STALE_TLB, OUT_CRASH, OUT_SPLAT, NR_OUTCOMES };

#define MMR_PAGE 4096ul
#define MMR_WORDS_PER_PAGE (MMR_PAGE / 8)
#define MMR_LINE_WORDS 8		/* a writer's words come in whole cache lines */
#define MMR_LINES_PER_WRITER 4		/* of each hot page: 8 writers fill 32 of 64 */
#define MMR_MAX_WRITERS 8
#define MMR_MAX_HOT 512			/* hot pages: 2 MiB, one huge page */
#define MMR_MAX_MISMATCHES 16
#define MMR_MAX_NODES 64
#define MMR_NR_ACTORS 8
#define MMR_VICTIM_PAGES 64

/* race-compaction's filler: pages of which every other one is freed
 * before each walk, so that the pageblocks holding them are partly free.
 * Compaction's free scanner takes target pages only from such blocks
 * (a free block of pageblock order or more is skipped), so on an idle
 * machine compact_memory moves nothing: measured in the 2-node TCG guest,
 * 0 of 480 hot pages moved in 30 calls without a filler, 464 of 480 with
 * 64 MiB of it striped 2 (and 0 with a stride of 8). */
#define MMR_FILLER_PAGES 16384
#define MMR_FILLER_STRIDE 2
#define MMR_PIN_PIPE_PAGES 256		/* a 1 MiB pipe's pages */
#define MMR_PIN_PIPES (MMR_FILLER_PAGES / MMR_FILLER_STRIDE / MMR_PIN_PIPE_PAGES)
/* race-compaction: at most this many mappings of the walk's cold pages,
 * one after the other (mmrace.c lengthen_walk()): 8 GiB of address space
 * and 16 MiB of page tables for the default walk. */
#define MMR_MAX_WALK_ALIASES 32
/* Epoch phases, per protector iteration n: 4n-3 walk running (mprotect to
 * PROT_NONE in progress), 4n-2 protected (mprotect returned: flushed),
 * 4n-1 restoring, 4n open.  Iteration of an epoch: (e + 3) / 4. */
#define MMR_PHASE(e) ((e) & 3)
#define MMR_ITER(e) (((e) + 3) / 4)

/* Without --duration: the run ends at MMR_TARGET_RACED raced pages, at
 * most MMR_DEFAULT_BOUND_NS in.  Measured in the 2-node 4-vCPU TCG guest
 * of the mutant kernel, the default line-up and walk: the first write was
 * lost within 6 walks and 0.15 s in 10 of 10 runs, with at most 8 pages
 * raced by then, and 64 raced took 0.8-1.6 s (switch off: 1.2-2.3 s, all
 * conclusive).  64 is eight times the most a catch needed: seconds under
 * emulation, milliseconds on hardware, from the same rule.  A huge page
 * counts once (race-thp): with pmd_flush_pending on, the first write was
 * lost by 1-3 raced moves of it in 19 of 20 runs (0.14-1.25 s), and with
 * it off 64 raced took 5-28 s, all conclusive. */
#define MMR_TARGET_RACED 64
#define MMR_DEFAULT_BOUND_NS 120000000000ull
#define MMR_INJECT_WALKS 200		/* injected faults: the suite's count */

/* Bounds on every wait, and what the run says when one runs out. */
#define MMR_WAIT_NS 2000000000ull	/* an actor's step */
#define MMR_HANDLER_WAIT_NS 10000000000ull	/* a writer for access to return */

/*
 * Shared with the migrator process: MAP_SHARED anonymous memory, so the
 * fork()ed child sees the parent's stores.  Written by one side each.
 */
struct mmr_ctl {
	uint64_t epoch __mmt_aligned;	/* protector */
	uint64_t moving;		/* child: n while its walk-n migrate call runs,
					 * else 0; on the epoch's line, which the
					 * writers read around every store anyway */
	uint32_t walk_seq;		/* protector: futex word, = n at walk n's start */
	uint32_t child_sleeping;	/* child: about to wait on walk_seq */
	uint64_t delay_max_ns;	/* protector: bound of the child's random delay */
	int stop;			/* parent: the child exits */
	int child_cpu;			/* parent: where the child runs, -1 until known */
	int protector_cpu;		/* parent: set before child_cpu */
	int migrator_cpu;		/* child: sched_getcpu() before and after walk
					 * n's migrate call, -1 if they differed */
	uint64_t child_ready __mmt_aligned;	/* child: PFNs read, waiting for walk n */
	uint64_t child_done;		/* child: walk n's migration finished */
	uint64_t m0, m1;		/* child: its migrate call, CLOCK_MONOTONIC ns
					 * (the same on every CPU, unlike a TSC
					 * under emulation) */
	uint64_t moved;			/* child: hot pages whose PFN changed in walk n */
	int64_t kwindow;		/* child: the mutant kernel's window count's rise
					 * during its call, -1 without a mutant kernel */
	uint64_t migrate_calls, migrate_errors, pages_moved;
	int last_errno;
	uint64_t moved_to[MMR_MAX_NODES];	/* by target node index */
	/* Double-buffered by walk (n & 1): the child reads walk n+1's "before"
	 * while the writers still report walk n's mismatches. */
	uint64_t pfn_before[2][MMR_MAX_HOT], pfn_after[2][MMR_MAX_HOT];
	/* When each hot page's move was done in walk n, CLOCK_MONOTONIC ns:
	 * the migrate call's m1, or the watcher's read that saw it moved. */
	uint64_t move_before[2][MMR_MAX_HOT];
	uint64_t watch_polls;		/* child: the watcher's reads of the PFNs */
	uint64_t first_move_ns;		/* child: its calls before walk 1, the longer (0: none) */
};

struct mmr_mismatch {
	uint64_t page, word, writer, iteration, expected, found;
	uint64_t pfn_before, pfn_after;	/* the migrator's, around walk 'iteration' */
	uint64_t pfn_now;		/* the writer's view when it was found */
	int cpu;
	bool foreign;
};

struct mmr_writer {
	/* The ledger: ledger[k] is the last value this writer stored to its
	 * k-th word.  Private memory, never protected or migrated. */
	uint64_t *ledger;
	uint64_t **words;		/* the k-th word's address in the region */
	unsigned nwords;
	uint64_t seq;
	uint64_t stores, faults, window_writes, stale_violations, verified, lost;
	uint64_t fault_seen __mmt_aligned;	/* last iteration it faulted in */
	uint64_t acked;			/* last iteration it verified after */
	uint64_t stale_left, stale_stores;	/* broken-stale-mapping */
	uint64_t first_lost_iter;	/* the protector's iteration; the time is wk's */
	/* The race's premise, seen from here: a store that completed, without
	 * a fault, while walk n ran and the migrator was inside its walk-n
	 * call, with sched_getcpu() the same before and after it. */
	uint64_t moving_store_walk __mmt_aligned;	/* the last such walk n */
	int moving_store_cpu;		/* the CPU of its stores */
	uint64_t stores_while_moving;
	struct mmt_worker *wk;		/* the writer's worker: detection speed */
	int cpu;
	volatile sig_atomic_t faulted;
	bool crashed, stuck, stale_hold;
	uintptr_t crash_addr;
	sigjmp_buf crash_env;
} __mmt_aligned;

struct mmr_priv {
	int variant;
	struct mmt_run *run;
	struct mmr_ctl *ctl;
	unsigned hot, walk;		/* pages: hot ones first in every walk */
	char *region;			/* the writers' view of memfd[current] */
	size_t region_len;		/* the walk's: hot pages, then cold ones walk_aliases times */
	size_t reserve_len;		/* race-compaction, mmr_thp(): the address space held for the aliases */
	unsigned walk_aliases;		/* mappings of the cold pages in a walk (1 but race-compaction, mmr_thp()) */
	uint64_t pass_ns;		/* race-compaction: the longer of two measured compaction passes */
	uint64_t huge_move_ns;		/* mmr_thp(): the longer of two measured moves of the huge page */
	int memfd[2];			/* [1]: broken-stale-mapping's copy */
	char *view[2];			/* race-compaction: view[0], the hot pages */
	int current;
	char *filler;			/* race-compaction: MMR_FILLER_PAGES, striped */
	char *hot_copy;			/* race-compaction: the hot pages while re-placed */
	int pin_pipe[MMR_PIN_PIPES][2];	/* race-compaction: hold the filler's pages */
	bool filler_pinned;		/* every one of them held */
	char compact_path[96];		/* race-compaction: the hot node's compact file */
	unsigned nwriters;
	struct mmr_writer *ws;
	int nodes, node_ids[MMR_MAX_NODES];
	bool root, pagemap;
	int pagemap_fd;
	pid_t child;
	int sysctl_mark;		/* sysctls set before this run's */
	long thp_kb;			/* mmr_thp(): ShmemPmdMapped once populated */
	/* mmr_thp(): shmem_enabled as found, and what was done about it
	 * (the shmem_thp actor); on is false where huge pages cannot come */
	bool shmem_thp_on;
	char shmem_thp_why[320];
	uint64_t guard_ns;		/* a one-walk mprotect of the hot pages alone */
	double walk_ns_ema, migrate_ns_ema;
	/* results */
	uint64_t iterations, mprotect_calls, in_window, outside_window, compact_calls, victim_checks;
	/* Pages moved inside a walk while a writer on another CPU than the
	 * migrator's stored to them (raced), or only writers on the
	 * migrator's CPU did (same_cpu), or no writer stored at all. */
	uint64_t raced, in_window_same_cpu, in_window_no_store;
	/* In the window by their own move's time, though the migrate call
	 * ran over the walk's end (the migrator's watcher). */
	uint64_t in_window_by_watch;
	uint64_t raced_at_first_lost;	/* raced pages when a loss was first known (a
					 * walk late: at most one walk's more than the
					 * bug took), what calibrates the target */
	bool lost_known;
	const char *ended_by;		/* what ended the run, if it ended it itself */
	uint64_t migrator_cpus;		/* bit c: the migrator's calls ran on CPU c (< 64) */
	int64_t kernel_in_window;	/* sum of kwindow; -1: no mutant kernel */
	/* The window counter of the mutant this variant hunts or controls
	 * (kernel/mutants.tsv), read by the migrator around each move;
	 * empty: none. */
	char window_path[512];
	uint64_t wait_timeouts;
	char wait_timeout_what[120];
	uint64_t outcomes[NR_OUTCOMES];
	struct mmr_mismatch mismatch[MMR_MAX_MISMATCHES];
	unsigned nr_mismatches;
	pthread_mutex_t mismatch_lock;
	uint64_t start_ns;
	struct mmt_kcounters kbefore;
	struct mmt_mutant_state mutant_before;
	struct mmt_kernel_health health;
	/* Each actor on (why_off NULL) or why not, in the order chosen. */
	struct mmr_actor {
		const char *name;
		const char *why_off;	/* NULL or why */
		char why[320];
	} actors[MMR_NR_ACTORS];
	unsigned nr_actors;
	struct mmr_report *report;	/* verify()'s, for the record */
};

extern const struct mmt_variant mmr_variants[NR_VARIANTS];

/* The variants whose hot set is one 2 MiB shmem huge page. */
static inline bool mmr_thp(int v)
{
	return v == V_RACE_THP || v == V_MIGRATE_AFTER_WALK_THP;
}

/* The 4 KiB pages of the page the migrator moves: a huge page is one. */
static inline uint64_t mmr_page_of(const struct mmr_priv *p)
{
	return mmr_thp(p->variant) ? 512 : 1;
}

/* The controls: the same moves, only once mprotect has returned. */
static inline bool mmr_after_walk(int v)
{
	return v == V_MIGRATE_AFTER_WALK || v == V_MIGRATE_AFTER_WALK_THP;
}
extern struct mmr_priv *mmr_active;	/* for the SIGSEGV handler */

/* mmrace-writer.c */
void mmr_writer_main(struct mmr_priv *p, unsigned w);
int mmr_install_segv(struct mmr_priv *p);
void mmr_remove_segv(void);
uint64_t mmr_verify_words(struct mmr_priv *p, struct mmr_writer *ws, unsigned w, uint64_t iteration);
void mmr_record_mismatch(struct mmr_priv *p, const struct mmr_mismatch *m);
void mmr_find_foreign(struct mmr_priv *p, const uint64_t *v, size_t len, uint64_t iteration);
uint64_t mmr_read_pfn(int fd, const void *addr);

/* mmrace-protector.c */
void mmr_protector(struct mmr_priv *p, struct mmt_worker *w);
void mmr_injector(struct mmr_priv *p, struct mmt_worker *w);
void *mmr_compactor(void *arg);
uint64_t mmr_calibrate_guard(struct mmr_priv *p);
void mmr_replace_hot(struct mmr_priv *p);
void mmr_free_holes(struct mmr_priv *p);

/* mmrace-migrator.c */
int mmr_migrator_start(struct mmr_priv *p, char *err, size_t len);
/* Ends the child; returns a reason if it died on its own, else NULL. */
const char *mmr_migrator_stop(struct mmr_priv *p);
bool mmr_migrator_alive(struct mmr_priv *p);
/* race-compaction's move: one compaction pass over the hot pages' node. */
long mmr_compact(const struct mmr_priv *p);
/* One move of the hot pages at base, walk n's (race-compaction: a pass):
 * pages, nodes and status have p->hot entries. */
long mmr_move_hot(const struct mmr_priv *p, char *base, uint64_t n, void **pages, int *nodes, int *status);

/* A lost write is known now: keep what had raced by then (the first time). */
static inline void mmr_note_lost(struct mmr_priv *p)
{
	if (!p->lost_known) {
		p->lost_known = true;
		p->raced_at_first_lost = p->raced;
	}
}

/* Whether hot page i changed frame in a walk of parity b (n & 1), as the
 * migrator's PFNs before and after its move say; never without PFNs. */
static inline bool mmr_page_moved(const struct mmr_ctl *c, unsigned b, unsigned i)
{
	return c->pfn_before[b][i] && c->pfn_after[b][i] && c->pfn_before[b][i] != c->pfn_after[b][i];
}

/* A writer's tag: writer w's value number seq (seq < 2^56). */
static inline uint64_t mmr_tag(unsigned w, uint64_t seq)
{
	return ((uint64_t)(w + 1) << 56) | (seq & ((1ull << 56) - 1));
}

#endif
