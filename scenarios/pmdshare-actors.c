/* SPDX-License-Identifier: MIT */
/*
 * pmdshare's actors, per round n:
 *   revoker  maps a new hugetlb memfd twice, each mapping a whole PMD
 *            table's span (1 GiB) on its own boundary: the owner writes
 *            the round's value to the target page and populates the
 *            witness page, building the table; the sharer's first read
 *            of the target shares that table (its page table then maps
 *            the witness page, which it never touched).  It publishes round
 *            n, waits for the reader to read the value through the
 *            sharer, zaps another page of the sharer (MADV_DONTNEED: the
 *            table is unshared, the sharer's whole span unmapped), then
 *            punches the target out of the memfd (fallocate PUNCH_HOLE:
 *            the owner's mapping unmapped and flushed, the page freed),
 *            publishes the punch's return and, once the reader is done,
 *            judges its reads.  The migrate variants, instead of the zap
 *            and the punch: move_pages() of the target to another node
 *            through the owner's address, then a second value stored in
 *            it through a fresh mapping of the file (into the new page)
 *   reader   reads the target through the SHARER until the revocation
 *            returned, then PS_AFTER_READS more, each of which must read
 *            the hole's 0 (a read there faults a new page in) or, once
 *            the page moved, the second value
 * Nothing in the reader enters the kernel between its first read and its
 * last: its bound is in cycles.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <numaif.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "arch/barrier.h"
#include "bounded-wait.h"
#include "clock.h"
#include "pagemap.h"
#include "pmdshare.h"

#ifndef MFD_HUGETLB
#define MFD_HUGETLB 4U
#endif
#ifndef MFD_HUGE_2MB
#define MFD_HUGE_2MB (21U << 26)
#endif

static void fail(struct ps_priv *p, const char *what, int err)
{
	mmt_hunt_fail(&p->hunt, what, err);
}

static bool wait_for(struct ps_priv *p, const uint64_t *x, uint64_t v, const char *what)
{
	return mmt_hunt_wait(&p->hunt, x, v, PS_WAIT_NS, what);
}

/* ---- revoker ------------------------------------------------------------- */

static char *map_span(struct ps_priv *p, char *at, const char *what)
{
	char *m = mmap(at, p->span, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED | MAP_NORESERVE, p->memfd, 0);

	if (m == MAP_FAILED) {
		fail(p, what, errno);
		return NULL;
	}
	return m;
}

/* Whether the page table of this mm maps addr (pagemap's present bit:
 * read without a fault, so without making the entry it looks for). */
static bool mapped(const struct ps_priv *p, const void *addr)
{
	uint64_t e;

	return !mmt_pagemap_read(p->pagemap_fd, addr, 4096, &e) && (e & MMT_PM_PRESENT);
}

/*
 * Round n's memory: a new memfd (so nothing of the last round's file or
 * tables is left), the owner's mapping with the round's value at the
 * target and the witness page present, then the sharer's, whose first
 * read of the target makes the kernel share the owner's PMD table (both
 * span the same 1 GiB of the file, each on a 1 GiB boundary).  shared: the
 * sharer's page table maps the witness page, which only the owner touched:
 * its PMD table is the owner's.
 */
int ps_map_round(struct ps_priv *p, uint64_t n, bool *shared)
{
	volatile uint64_t *owner, *sharer;

	*shared = false;
	p->memfd = memfd_create("mmtorture-pmdshare", MFD_CLOEXEC | MFD_HUGETLB | MFD_HUGE_2MB);
	if (p->memfd < 0) {
		fail(p, "memfd_create(MFD_HUGETLB | MFD_HUGE_2MB)", errno);
		return -1;
	}
	if (ftruncate(p->memfd, (off_t)p->span)) {
		fail(p, "ftruncate of the hugetlb memfd to 1 GiB", errno);
		return -1;
	}
	if (!map_span(p, p->owner_at, "mmap of the memfd's owner mapping") ||
	    !map_span(p, p->sharer_at, "mmap of the memfd's sharer mapping"))
		return -1;
	owner = (volatile uint64_t *)p->owner_at;
	sharer = (volatile uint64_t *)p->sharer_at;
	owner[PG_TARGET * p->hpsz / 8] = ps_tag(n);
	owner[PG_WITNESS * p->hpsz / 8] = ~ps_tag(n);
	if (sharer[PG_TARGET * p->hpsz / 8] != ps_tag(n)) {
		fail(p, "the sharer read another value than the owner wrote", EIO);
		return -1;
	}
	*shared = mapped(p, p->sharer_at + PG_WITNESS * p->hpsz);
	return 0;
}

/* Both mappings back to reserved room, the memfd closed: its pages free. */
void ps_unmap_round(struct ps_priv *p)
{
	if (mmap(p->reserve, p->reserve_len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0) ==
	    MAP_FAILED)
		fail(p, "reserving the mappings' room again", errno);
	if (p->memfd >= 0)
		close(p->memfd);
	p->memfd = -1;
}

/*
 * Between rounds: a zap of pages spread over more than the kernel's
 * single-page flush ceiling (x86: 33), so the whole mm's TLB is flushed on
 * every CPU that ran it.  A kernel without the fix leaves the reader's
 * translation of the last round's target behind, on the same address;
 * no round starts with it.
 */
static void flush_mm(struct ps_priv *p)
{
	p->flusher[0] = 1;
	p->flusher[p->flusher_len - 1] = 1;
	madvise(p->flusher, p->flusher_len, MADV_DONTNEED);
}

/*
 * Round n, both actors done: each of the reader's reads after the punch
 * returned must read 0, the hole's.  A kernel that flushed the sharer's
 * span when the zap unshared the table made the reader fault, share the
 * owner's table again and, after the punch, fault the hole in.  The round
 * held (the premise of a4a118f2eead) when the table was shared and the
 * reader kept its CPU, unpreempted, from before its first read (before the
 * zap) to after its last: its TLB entry for the target, if nothing flushed
 * it, was there for every read.
 */
static void judge_round(struct ps_priv *p, uint64_t n, bool shared, bool moved, uint64_t owner_read,
			struct mmt_worker *wk)
{
	const struct mmt_stale_reader *r = p->reader;
	const bool revoked = !ps_migrates(p->variant) || moved;
	const unsigned owner_stale = ps_migrates(p->variant) && owner_read != ps_after(p->variant, n);
	struct ps_witness x = { .round = n, .reads = r->round_stale + owner_stale, .file_value = ps_tag(n),
				.found = r->round_stale ? r->first_value : owner_read, .reader_cpu = r->cpu,
				.revoker_cpu = p->revoker_cpu, .shared = shared, .moved = moved,
				.held = shared && revoked && r->round_held };

	p->shared += shared;
	p->moved += moved;
	p->outcomes[OUT_FRESH] += PS_AFTER_READS - r->round_stale + (ps_migrates(p->variant) && !owner_stale);
	p->outcomes[OUT_STALE] += x.reads;
	if (x.reads && p->nr_first < PS_MAX_FIRST)
		p->first[p->nr_first++] = x;
	mmt_hunt_round(&p->hunt, n, x.held, x.reads, wk);
}

static int unshare_and_punch(struct ps_priv *p, uint64_t n)
{
	const int cpu = sched_getcpu();
	const uint64_t t0 = mmt_now_ns();
	int r;

	if (madvise(p->sharer_at + PG_ZAPPED * p->hpsz, p->hpsz, MADV_DONTNEED)) {
		fail(p, "madvise(MADV_DONTNEED) of a page of the sharer's hugetlb mapping", errno);
		smp_store_release(&p->ctl->revoked, n);
		return -1;
	}
	r = fallocate(p->memfd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)(PG_TARGET * p->hpsz),
		      (off_t)p->hpsz);
	p->revoke_ns_sum += mmt_now_ns() - t0;
	p->revoker_cpu = sched_getcpu() == cpu ? cpu : -1;
	smp_store_release(&p->ctl->revoked, n);
	if (r) {
		fail(p, "fallocate(PUNCH_HOLE) of the hugetlb memfd's target page", errno);
		return -1;
	}
	return 0;
}

/* The node of the target page, or -1. */
static int target_node(const struct ps_priv *p)
{
	void *page = p->owner_at + PG_TARGET * p->hpsz;
	int status = -1;

	return move_pages(0, 1, &page, NULL, &status, 0) ? -1 : status;
}

/*
 * The target moved to the next node with memory (the rmap walk meets the
 * owner's mapping first: it was inserted first), then the round's second
 * value stored into the page through a fresh mapping of the file (a page
 * table of its own, the page cache's page: the new one), then read back
 * through the owner (owner_read): the revoker's own TLB entry for the
 * owner's address, from its store of the round's value, is as stale as
 * the reader's would be had the walk met the sharer first.  moved: the page
 * is on the other node now.  A move the kernel refused (no free huge page
 * there, say) leaves the round void, its first status kept for the record.
 * Only the control needs MPOL_MF_MOVE_ALL (a page two mappings map): a
 * shared table maps the page once.
 */
static int migrate_and_store(struct ps_priv *p, uint64_t n, bool *moved, uint64_t *owner_read)
{
	void *page = p->owner_at + PG_TARGET * p->hpsz;
	const int cpu = sched_getcpu(), from = target_node(p);
	const uint64_t t0 = mmt_now_ns();
	int to = p->nodes[0], status = INT_MIN;	/* INT_MIN: not written */
	volatile uint64_t *fresh;
	long r;

	for (unsigned i = 0; i < p->nr_nodes; i++)
		if (p->nodes[i] == from)
			to = p->nodes[(i + 1) % p->nr_nodes];
	r = move_pages(0, 1, &page, &to, &status, ps_unshared(p->variant) ? MPOL_MF_MOVE_ALL : MPOL_MF_MOVE);
	if (r < 0) {
		fail(p, "move_pages of the target page", errno);
		smp_store_release(&p->ctl->revoked, n);
		return -1;
	}
	*moved = from >= 0 && from != to && status == to;
	if (!*moved && !p->move_status)
		p->move_status = status < 0 && status != INT_MIN ? status : 1;
	fresh = mmap(NULL, p->hpsz, PROT_READ | PROT_WRITE, MAP_SHARED, p->memfd, (off_t)(PG_TARGET * p->hpsz));
	if (fresh == MAP_FAILED) {
		fail(p, "mmap of the memfd's target page for the moved value", errno);
		smp_store_release(&p->ctl->revoked, n);
		return -1;
	}
	*fresh = ps_moved_tag(n);
	munmap((void *)fresh, p->hpsz);
	*owner_read = *(volatile uint64_t *)page;
	p->revoke_ns_sum += mmt_now_ns() - t0;
	p->revoker_cpu = sched_getcpu() == cpu ? cpu : -1;
	smp_store_release(&p->ctl->revoked, n);
	return 0;
}

static int round_once(void *priv, uint64_t n, struct mmt_worker *wk)
{
	struct ps_priv *p = priv;
	bool shared, moved = false;
	uint64_t owner_read = 0;

	flush_mm(p);
	if (ps_map_round(p, n, &shared))
		return -1;
	smp_store_release(&p->ctl->round, n);
	if (!wait_for(p, &p->reader->armed, n, "the reader's first read of the round's value") ||
	    (ps_migrates(p->variant) ? migrate_and_store(p, n, &moved, &owner_read) : unshare_and_punch(p, n)) ||
	    !wait_for(p, &p->reader->acked, n, "the reader's reads after the revocation"))
		return -1;
	judge_round(p, n, shared, moved, owner_read, wk);
	ps_unmap_round(p);
	return p->hunt.error[0] ? -1 : 0;
}

void ps_revoker(struct ps_priv *p, struct mmt_worker *wk)
{
	mmt_worker_at(wk, "mapping, revoking, judging");
	/* On an error the reader may still read the mappings: cleanup unmaps
	 * them, after it stopped. */
	mmt_hunt_drive(&p->hunt, p->run, wk, round_once, p, &p->outcomes[OUT_STALE], &p->ctl->stop);
}

/* ---- reader -------------------------------------------------------------- */

/*
 * Round n: reads the target through the sharer (its TLB entry in use on
 * this CPU) until it reads the round's value, then on until the
 * revocation returned, then PS_AFTER_READS more (broken-stale: from a page
 * of its own holding the old value instead), counting those that did not
 * read what they must (ps_after(): the hole's 0, or the moved page's
 * second value), and whether it held its CPU throughout (stale-read.h).
 */
static bool read_round(void *arg, uint64_t n)
{
	struct ps_priv *p = arg;
	const struct mmt_stale_round x = {
		.at = (const volatile uint64_t *)(p->sharer_at + PG_TARGET * p->hpsz), .value = ps_tag(n),
		.want = ps_after(p->variant, n), .revoked = &p->ctl->revoked, .stop = &p->ctl->stop,
		.after_reads = PS_AFTER_READS, .held = true,	/* a held round is the premise */
		.shadow = p->variant == V_BROKEN_STALE ? (volatile uint64_t *)p->shadow : NULL,
	};

	if (!mmt_stale_read_round(p->reader, &x, n))
		return false;
	smp_store_release(&p->reader->acked, n);
	return true;
}

void ps_reader_main(struct ps_priv *p)
{
	mmt_stale_reader_main(p->reader, &p->ctl->round, &p->ctl->stop, PS_IDLE_WAIT_NS, read_round, p);
}
