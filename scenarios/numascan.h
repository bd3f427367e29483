/* SPDX-License-Identifier: MIT */
/*
 * numascan internals, shared by its actors: the descriptor, memory and the
 * record (numascan.c), the writers, the driver's rounds and the migrator
 * process (numascan-actors.c).
 */
#ifndef MMT_NUMASCAN_H
#define MMT_NUMASCAN_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "compiler.h"
#include "hunt.h"
#include "kstate.h"
#include "scenario.h"

enum ns_variant { V_SCAN_FAULT, V_NO_SCAN, V_BROKEN_REWIND, NR_VARIANTS };

enum { OPT_COLD_PAGES, OPT_TARGET_RACED, NR_OPTIONS };

enum { OUT_KEPT, OUT_LOST, NR_OUTCOMES };

#define NS_MAX_WRITERS 8
#define NS_DRIVER (-1)
#define NS_TOUCHER (-2)
#define NS_MAX_FIRST 16			/* first_lost rows kept */

/* Without --duration: the first lost write or 64 raced rounds (the hunt's
 * rule, hunt.h), at most 2 minutes. */
#define NS_DEFAULT_BOUND_NS 120000000000ull

/*
 * NUMA balancing's knobs for the run (debugfs since Linux 5.13; the
 * defaults are a first scan 1 s after the process starts and then one
 * every 1-60 s, so a run of seconds would see one or none): the first scan
 * at once, then every 10-50 ms of a thread's run time.  Measured in the
 * 2-node 4-vCPU TCG guest: about 4 scans of the region a second.
 */
#define NS_SCAN_DELAY_MS "0"
#define NS_SCAN_PERIOD_MIN_MS "10"
#define NS_SCAN_PERIOD_MAX_MS "50"

/* Bounds on every wait, and what the run says when one runs out. */
#define NS_SCAN_WAIT_NS 5000000000ull	/* the driver, for the next scan's end */
#define NS_WAIT_NS 5000000000ull	/* an actor, for another's step */
#define NS_NAP_US 1000			/* the driver's sleep between looks at the scan count */
#define NS_CONTROL_ROUND_US 50000	/* no-scan: a round without a scan to wait for */

/* A writer's stores between two looks at the stop and pause words. */
#define NS_BATCH 256

/* Shared with the mover process (MAP_SHARED anonymous, made before
 * fork()): each line written by one side. */
struct ns_writer_pub {
	uint64_t stores __mmt_aligned;	/* the writer's, per batch */
	int cpu;			/* where it is pinned */
};

struct ns_ctl {
	int stop __mmt_aligned;		/* the parent: every actor returns */
	int mover_cpu;			/* the parent: the toucher's CPU, -1 until known */
	uint64_t pause;			/* broken-rewind: the driver asks writer 0 to set its word back (round n) */
	uint64_t paused __mmt_aligned;	/* broken-rewind: writer 0 has (round n) */
	/* The mover's. */
	uint64_t looks __mmt_aligned, moved_back, errors;
	int last_errno;
	struct ns_writer_pub w[NS_MAX_WRITERS];
};

/* The toucher's, read by the driver: published by round. */
struct ns_toucher {
	uint64_t touches, faults, migrations;
	uint64_t round_start_ns, round;	/* the driver's: round n began (after its re-arm) */
	/* The last migration that qualifies (see numascan.c): its round, time
	 * and the other writers' stores then. */
	uint64_t qual_round, qual_ns, qual_stores;
	int node;			/* the toucher's node */
	int cpu;
} __mmt_aligned;

/* A lost write, for the record. */
struct ns_witness {
	uint64_t round, stored, found;
	int writer, writer_cpu;
	bool raced;			/* its round had raced when it was found */
};

struct ns_writer {
	uint64_t *word;			/* its own cache line of the hot page */
	uint64_t seq;			/* the ledger: the last value it stored there */
	uint64_t stores, lost, stores_lost;
	struct mmt_worker *wk;
	int cpu;
} __mmt_aligned;

struct ns_priv {
	int variant;
	struct mmt_run *run;
	struct ns_ctl *ctl;		/* MAP_SHARED */
	struct ns_toucher *t;
	size_t psz;
	unsigned cold;			/* pages after the hot one: the walk's length */
	char *reserve, *region;		/* region: the hot page, then the cold pages */
	size_t reserve_len, region_len;
	unsigned nwriters;
	struct ns_writer *ws;
	/* Each worker's role, by its planned CPU's node (numascan.c roles()):
	 * NS_DRIVER, NS_TOUCHER, or the writer's index. */
	int role[2 + NS_MAX_WRITERS];
	int home_node;			/* where the mover puts the hot page back */
	int sched_fd;			/* /proc/self/sched: the mm's NUMA scan count */
	pid_t child;
	int sysctl_mark;
	/* results */
	struct mmt_hunt hunt;		/* rounds, raced rounds, the first finding, errors */
	uint64_t rounds_scanned, rewinds, rearm_ns;
	bool round_raced;		/* the current round's, for the witnesses */
	struct mmt_kcounters vmstat_before, vmstat_delta;
	uint64_t outcomes[NR_OUTCOMES];
	struct ns_witness first[NS_MAX_FIRST];
	unsigned nr_first;
	int lock;			/* first[] */
	uint64_t round_now;		/* the driver's round, for the witnesses */
};

extern const struct mmt_variant ns_variants[NR_VARIANTS];

/* numascan-actors.c */
void ns_writer_main(struct ns_priv *p, unsigned w);
void ns_toucher_main(struct ns_priv *p);
void ns_driver(struct ns_priv *p, struct mmt_worker *wk);
int ns_mover_start(struct ns_priv *p, char *err, size_t len);
const char *ns_mover_stop(struct ns_priv *p);
/* The mm's NUMA scan count (mm->numa_scan_seq of /proc/PID/sched); -1: unreadable. */
long ns_scan_seq(int fd);
/* The node of the page at addr in this process (move_pages query); -1: unknown. */
int ns_node_of(const void *addr);

/* Writer w's value number seq (seq < 2^56). */
static inline uint64_t ns_tag(unsigned w, uint64_t seq)
{
	return ((uint64_t)(w + 1) << 56) | (seq & ((1ull << 56) - 1));
}

#endif
