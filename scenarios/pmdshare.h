/* SPDX-License-Identifier: MIT */
/*
 * pmdshare internals, shared by its actors: the descriptor, memory and the
 * record (pmdshare.c), the revoker and the reader (pmdshare-actors.c).
 */
#ifndef MMT_PMDSHARE_H
#define MMT_PMDSHARE_H

#include <stdbool.h>
#include <stdint.h>

#include "compiler.h"
#include "hunt.h"
#include "stale-read.h"
#include "mutant.h"
#include "scenario.h"

enum ps_variant { V_SHARED_PUNCH, V_UNSHARED_PUNCH, V_SHARED_MIGRATE, V_UNSHARED_MIGRATE, V_BROKEN_STALE, NR_VARIANTS };

/* How a round takes the target away from the reader's translation: the
 * punch (a4a118f2eead's unshare, then the file's hole), or a migration to
 * another node (017b1660df89's walk, then a new value in the new page). */
static inline bool ps_migrates(int v)
{
	return v == V_SHARED_MIGRATE || v == V_UNSHARED_MIGRATE;
}

/* The controls: the sharer 2 MiB off the boundary, where no table is
 * shared. */
static inline bool ps_unshared(int v)
{
	return v == V_UNSHARED_PUNCH || v == V_UNSHARED_MIGRATE;
}

enum { OPT_TARGET_HELD, NR_OPTIONS };

enum { OUT_FRESH, OUT_STALE, NR_OUTCOMES };

/*
 * Without --duration: the run ends at the first stale read or at 64 held
 * rounds (the reader's translation in use from before the revocation to
 * its last read; the controls: 64 rounds), at most PS_DEFAULT_BOUND_NS in:
 * the hunt's rule (hunt.h).
 */
#define PS_DEFAULT_BOUND_NS 120000000000ull

/* The reader's reads after it saw the revocation return, each judged. */
#define PS_AFTER_READS 64

/* Huge pages a round holds at most: the target and the witness page, and
 * the target's replacement (the one a correct kernel faults in after the
 * punch, or the migration's destination); one more of slack.  The migrate
 * variants want PS_NODE_HUGE_PAGES free on each of two nodes. */
#define PS_HUGE_PAGES 4
#define PS_NODE_HUGE_PAGES 2
#define PS_MAX_NODES 64

#define PS_WAIT_NS 5000000000ull	/* the revoker, for the reader's step */
#define PS_IDLE_WAIT_NS 20000000000ull	/* the reader, for the next round */

/* The file's pages a round uses, in huge pages: the reader's target, the
 * page the revoker zaps (which unshares the table) and the page that
 * shows the table was shared. */
enum { PG_TARGET, PG_ZAPPED, PG_WITNESS };

struct ps_ctl {
	/* The revoker's, per round n. */
	uint64_t round __mmt_aligned;	/* n: both mappings present: read the target */
	uint64_t revoked;		/* n: the punch returned, or the migration and the new value's store */
	int stop;
};


struct ps_witness {
	uint64_t round, reads, file_value, found;
	int reader_cpu, revoker_cpu;
	bool shared, moved, held;
};

#define PS_MAX_FIRST 16

struct ps_priv {
	int variant;
	struct mmt_run *run;
	struct ps_ctl *ctl;
	struct mmt_stale_reader *reader;
	size_t hpsz;			/* the huge page: 2 MiB */
	size_t span;			/* what a PMD table maps: 1 GiB */
	char *reserve;			/* room for both mappings, aligned to span */
	size_t reserve_len;
	char *owner_at;			/* the mapping that builds the table */
	char *sharer_at;		/* the one that shares it (the controls: cannot) */
	char *flusher;			/* pages zapped between rounds: a whole-mm flush */
	size_t flusher_len;
	char *shadow;			/* broken-stale: the reader's own page, holding the old value */
	int memfd;
	int pagemap_fd;			/* /proc/self/pagemap: whether the sharer maps the witness page */
	int sysctl_mark;
	long huge_added;		/* huge pages this run added to vm.nr_hugepages */
	int nodes[PS_MAX_NODES];	/* the migrate variants: nodes with memory */
	unsigned nr_nodes;
	int revoker_cpu;
	int move_status;		/* the first refused move's status (-errno); 1: left where it was; 0: none */
	/* results */
	struct mmt_hunt hunt;		/* rounds, held rounds (its premise), the first finding, errors */
	uint64_t shared, moved, revoke_ns_sum;
	uint64_t outcomes[NR_OUTCOMES];
	struct ps_witness first[PS_MAX_FIRST];
	unsigned nr_first;
};

extern const struct mmt_variant ps_variants[NR_VARIANTS];

/* pmdshare-actors.c */
void ps_revoker(struct ps_priv *p, struct mmt_worker *wk);
void ps_reader_main(struct ps_priv *p);
int ps_map_round(struct ps_priv *p, uint64_t n, bool *shared);
void ps_unmap_round(struct ps_priv *p);

/* The file's value at the target in round n (< 2^56): never 0, the hole's. */
static inline uint64_t ps_tag(uint64_t n)
{
	return (0x5bull << 56) | (n & ((1ull << 56) - 1));
}

/* The target's value once the page moved (the migrate variants). */
static inline uint64_t ps_moved_tag(uint64_t n)
{
	return (0x5cull << 56) | (n & ((1ull << 56) - 1));
}

/* What every read after the revocation must read. */
static inline uint64_t ps_after(int v, uint64_t n)
{
	return ps_migrates(v) ? ps_moved_tag(n) : 0;
}

#endif
