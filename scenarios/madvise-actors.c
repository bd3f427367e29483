/* SPDX-License-Identifier: MIT */
/*
 * madvise's actors, per round n:
 *   first zapper   makes every page of the region present, publishes
 *                  round n, waits for the writer to store to the target
 *                  (the region's first page: its TLB entry is in use),
 *                  publishes "zapping", MADV_DONTNEED of the whole region,
 *                  publishes "zapped" with its return time, waits for the
 *                  others and judges the target word
 *   second zapper  waits until mincore() reads the target out while the
 *                  first zapper's call still runs (so the first zapper's
 *                  walk has passed it: nothing will zap it again), then
 *                  MADV_DONTNEED of the target alone; publishes its return
 *                  (a wait that gave up: it zaps nothing, the round is void)
 *   writer         stores to the target until the second zapper returned,
 *                  then stores the round's tag once: a store made after a
 *                  madvise() of its page returned, which must be there
 *                  when the first zapper judges it; then looks whether the
 *                  first zapper's walk has ended (the region's last page)
 * The FREE variants (nested-free, nested-free-flushed): MADV_FREE for both
 * zaps, the walk's passing seen in the page flags (walk_passed()), new
 * pages each round, and the first zapper reclaims the target before it
 * judges it (reclaim_round()).
 * Nothing in the writer enters the kernel between its first store and the
 * tag: a system call may switch page tables and flush the very entry the
 * race needs (page-table isolation without PCIDs), so its bound is kept in
 * cycles, not a clock read.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "arch/barrier.h"
#include "bounded-wait.h"
#include "clock.h"
#include "madvise.h"
#include "pagemap.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23	/* Linux 5.14 */
#endif

static void fail(struct ma_priv *p, const char *what, int err)
{
	mmt_hunt_fail(&p->hunt, what, err);
}

/* Is the page at addr present in the page tables (mincore: a private
 * anonymous page with no swap is "resident" exactly when its PTE maps
 * it)?  1, 0, or -1 when mincore failed (errno). */
static int resident(const struct ma_priv *p, const void *addr)
{
	unsigned char vec = 0;

	if (mincore((void *)addr, p->psz, &vec))
		return -1;
	return vec & 1;
}

/* The page frame mapping addr (/proc/self/pagemap, root); 0 when it is
 * not present or the frame is hidden. */
static uint64_t frame_of(const struct ma_priv *p, const void *addr)
{
	return mmt_pagemap_pfn(p->pagemap_fd, addr, p->psz);
}

#define KPF_LRU 5
#define KPF_ANON 12
#define KPF_SWAPBACKED 14

/*
 * Whether MADV_FREE's walk has marked the page of frame pfn lazily freed
 * (/proc/kpageflags: its swap backing dropped, KPF_SWAPBACKED clear).  The
 * walk makes the page's PTE clean and old under the page table's lock, then
 * queues the mark, applied 15 pages at a time while it goes on: a clear
 * bit says the walk passed the page.  Only on an anonymous page on the LRU:
 * a frame the page left (migrated) has its flags wiped, SWAPBACKED too.
 * 1, 0, or -1 with errno when the read failed.
 */
static int lazily_freed(const struct ma_priv *p, uint64_t pfn)
{
	uint64_t flags;

	errno = EIO;
	if (pread(p->kpageflags_fd, &flags, sizeof(flags), (off_t)(pfn * sizeof(flags))) != sizeof(flags))
		return -1;
	return (flags >> KPF_LRU & 1) && (flags >> KPF_ANON & 1) && !(flags >> KPF_SWAPBACKED & 1);
}

/* Whether the first zapper's walk passed the page (DONTNEED: its PTE is
 * gone; FREE: it is lazily freed); 1, 0, -1 with errno. */
static int walk_passed(const struct ma_priv *p, const void *addr, uint64_t pfn)
{
	int in;

	if (ma_frees(p->variant))
		return lazily_freed(p, pfn);
	in = resident(p, addr);
	return in < 0 ? in : !in;
}

/* ---- first zapper -------------------------------------------------------- */

/* The first zapper's waits: bounded, and what it waited for on timeout. */
static bool wait_for(struct ma_priv *p, const uint64_t *x, uint64_t v, const char *what)
{
	return mmt_hunt_wait(&p->hunt, x, v, MA_WAIT_NS, what);
}

/*
 * Every page present again, the target too, whatever the last round left
 * there.  MADV_POPULATE_WRITE where the kernel has it: one call instead of
 * a fault per page, which under an emulator is most of a round.
 */
static int populate(struct ma_priv *p)
{
	/* FREE: the last round's pages are lazily freed, mapped: new ones. */
	if (ma_frees(p->variant) && madvise(p->region, p->region_len, MADV_DONTNEED)) {
		fail(p, "madvise(MADV_DONTNEED) of the last round's pages", errno);
		return -1;
	}
	if (p->populate_write) {
		if (madvise(p->region, p->region_len, MADV_POPULATE_WRITE)) {
			fail(p, "madvise(MADV_POPULATE_WRITE)", errno);
			return -1;
		}
		return 0;
	}
	/* Not word 0 of a page: the target is the first page's. */
	for (size_t off = 0; off < p->region_len; off += p->psz)
		WRITE_ONCE(p->region[off + 64], 1);
	return 0;
}

/* FREE: this round's frames of the target and the probe page. */
static int find_frames(struct ma_priv *p)
{
	p->target_pfn = frame_of(p, p->region);
	p->probe_pfn = frame_of(p, p->region + p->region_len - MA_PROBE_FROM_END * p->psz);
	if (!p->target_pfn || !p->probe_pfn) {
		fail(p, "/proc/self/pagemap: a populated page without its frame", EIO);
		return -1;
	}
	return 0;
}

/*
 * FREE, once every actor is done: reclaim of the target and the check
 * page (MADV_PAGEOUT).  Reclaim discards a lazily freed page whose PTE is
 * still clean and keeps one written since (the store set the PTE's dirty
 * bit): a store through a TLB entry the zap left dirty sets nothing, and
 * is discarded with the page.  Whether the check page, clean, was
 * discarded says whether this round's reclaim could discard at all.
 */
static int reclaim_round(struct ma_priv *p, bool *discarded)
{
	const char *check = p->region + MA_CHECK_PAGE * p->psz;
	uint64_t e = 0;

	if (madvise(p->region, (MA_CHECK_PAGE + 1) * p->psz, MADV_PAGEOUT)) {
		fail(p, "madvise(MADV_PAGEOUT) of the target and the check page", errno);
		return -1;
	}
	/* Discarded: neither present nor swapped (mincore would call a page
	 * swapped out and dropped from the swap cache gone too). */
	if (mmt_pagemap_read(p->pagemap_fd, check, p->psz, &e)) {
		fail(p, "/proc/self/pagemap of the check page", errno ? errno : EIO);
		return -1;
	}
	*discarded = !(e & (MMT_PM_PRESENT | MMT_PM_SWAPPED));
	return 0;
}

/*
 * Round n, with every actor done: the target must hold the writer's tag.
 * Judged only where nothing could zap the target after the second
 * zapper's call: it saw the target out while the first zapper's call ran
 * (the first zapper's walk had passed it) or only after that call
 * returned.  A kernel that flushed every CPU's entry for the page before
 * the second madvise() returned keeps the tag.  The round raced (the
 * premise of 99baac21e458) when the second zapper saw the target out
 * mid-walk and the walk had still not reached the region's last page once
 * the writer's tag was stored: the first zapper's flush, which comes after
 * its walk, was still to come.  FREE: "out" is "lazily freed", the target is
 * judged after the round's reclaim, and a round races only if that reclaim
 * discarded the clean check page (it could have discarded the target).  A
 * void round (the second zapper's wait gave up, or the target was not
 * present before the zap) is not judged.
 */
static void judge_round(struct ma_priv *p, uint64_t n, bool resident_before, bool discarded, struct mmt_worker *wk)
{
	const struct ma_second *s = p->second;
	const struct ma_writer *w = p->writer;
	struct ma_witness x = { .round = n, .stored = w->stored, .found = READ_ONCE(*ma_target(p)),
				.writer_cpu = w->stored_cpu, .zapper_cpu = p->zapper_cpu, .second_cpu = s->cpu };

	bool lost = false;

	if (s->skipped) {
		p->void_rounds++;
		p->moved += s->moved;
	} else if (!resident_before) {
		p->not_resident++;
	} else {
		p->discarded += discarded;
		if (s->late)
			p->late++;
		else if (w->walk_done)
			p->walk_done++;
		else
			x.raced = !ma_frees(p->variant) || discarded;
		lost = x.found != x.stored;
		p->outcomes[lost ? OUT_LOST : OUT_KEPT]++;
		if (lost && p->nr_first < MA_MAX_FIRST)
			p->first[p->nr_first++] = x;
	}
	mmt_hunt_round(&p->hunt, n, x.raced, lost, wk);
}

/* Round n; -1 when a call failed or a wait gave up (the run ends). */
static int round_once(void *priv, uint64_t n, struct mmt_worker *wk)
{
	struct ma_priv *p = priv;
	const int advice = ma_frees(p->variant) ? MADV_FREE : MADV_DONTNEED;
	uint64_t t_a0, t_a1;
	int was_resident, cpu, r, err;
	bool discarded = false;

	if (populate(p))
		return -1;
	smp_store_release(&p->ctl->round, n);
	if (!wait_for(p, &p->writer->armed, n, "the writer's first store to the target"))
		return -1;
	/* After the writer's first store: it may have moved the page (a
	 * NUMA hinting fault). */
	if (ma_frees(p->variant) && find_frames(p))
		return -1;
	was_resident = resident(p, p->region);
	if (was_resident < 0) {
		fail(p, "mincore() of the target", errno);
		return -1;
	}
	cpu = sched_getcpu();
	t_a0 = mmt_now_ns();
	smp_store_release(&p->ctl->zapping, n);
	r = madvise(p->region, p->region_len, advice);
	err = errno;
	t_a1 = mmt_now_ns();
	p->zapper_cpu = sched_getcpu() == cpu ? cpu : -1;
	smp_store_release(&p->ctl->zapped, n);
	if (r) {
		fail(p, advice == MADV_FREE ? "madvise(MADV_FREE) of the region" : "madvise(MADV_DONTNEED) of the region",
		     err);
		return -1;
	}
	p->zap_ns_sum += t_a1 - t_a0;
	if (!wait_for(p, &p->second->done, n, "the second zapper's madvise()") ||
	    !wait_for(p, &p->writer->acked, n, "the writer's store after the second zapper"))
		return -1;
	if (p->second->error)
		fail(p, "the second zapper's look at the target or its madvise()", p->second->error);
	if (ma_frees(p->variant) && !p->hunt.error[0] && reclaim_round(p, &discarded))
		return -1;
	judge_round(p, n, was_resident, discarded, wk);
	return p->hunt.error[0] ? -1 : 0;
}

/* Rounds until the run has what it came for (mmt_hunt_enough()): without
 * --duration the first lost write or 64 raced rounds, however long this
 * machine takes. */
void ma_first_zapper(struct ma_priv *p, struct mmt_worker *wk)
{
	mmt_worker_at(wk, "populating, zapping, waiting for the others, judging");
	mmt_hunt_drive(&p->hunt, p->run, wk, round_once, p, &p->outcomes[OUT_LOST], &p->ctl->stop);
}

/* ---- second zapper ------------------------------------------------------- */

/*
 * FREE: whether the target has left the frame whose marks were read (a
 * migration: a freed frame's flags are wiped, and another page may take
 * it); the round is then void.  Read after the marks, not in the look's
 * loop: pagemap waits for the page table's lock, which the walk holds.
 */
static bool frame_moved(const struct ma_priv *p, struct ma_second *s)
{
	s->moved = ma_frees(p->variant) && frame_of(p, p->region) != p->target_pfn;
	return s->moved;
}

/*
 * Until the first zapper's walk passed the target (walk_passed()) or the
 * first zapper returned, bounded.  Passed while the first zapper's call
 * still ran (zapped read after the look: it had not returned then) is the
 * premise: the walk cleared the target's PTE (DONTNEED) or made it clean
 * (FREE) with its flush still to come.  False when the wait gave up or the
 * look failed: the round is void, the second zapper zaps nothing.
 */
static bool await_cleared(struct ma_priv *p, struct ma_second *s, uint64_t n)
{
	const uint64_t t0 = mmt_now_ns();

	/* --second-after-first: a line-up that cannot race. */
	if (p->run->opt[OPT_SECOND_AFTER_FIRST] &&
	    mmt_wait_at_least(&p->ctl->zapped, n, &p->ctl->stop, MA_WAIT_NS) != MMT_WAITED)
		return false;
	for (unsigned spins = 0;; spins++) {
		const int passed = walk_passed(p, p->region, p->target_pfn);

		if (passed < 0) {
			if (!s->error)
				s->error = errno ? errno : EIO;
			return false;
		}
		if (smp_load_acquire(&p->ctl->zapped) >= n) {
			/* FREE: once the first zapper returned its walk has
			 * marked the target (the mark is 14 pages behind at
			 * most); unmarked, the signal failed: a void round. */
			s->late = !ma_frees(p->variant) || walk_passed(p, p->region, p->target_pfn) == 1;
			return s->late && !frame_moved(p, s);
		}
		if (passed) {
			s->saw_cleared = true;
			return true;
		}
		if (mmt_now_ns() - t0 > MA_WAIT_NS)
			return false;
		mmt_pause_beside(p->second_threaded, spins, MA_NAP_NS);
	}
}

/*
 * nested-dontneed-flushed: a flush of the target from every CPU that does
 * not depend on the nested-zap rule.  The target made present again (a new
 * page, through the page tables: MADV_POPULATE_WRITE, or a store where the
 * kernel lacks it) and zapped again: that zap clears a present PTE, so it
 * flushes the target's entry from every CPU before it returns, on any
 * architecture.
 */
static int flush_target(struct ma_priv *p)
{
	if (!p->populate_write || madvise(p->region, p->psz, MADV_POPULATE_WRITE))
		WRITE_ONCE(p->region[64], 1);
	return madvise(p->region, p->psz, MADV_DONTNEED);
}

void ma_second_zapper(struct ma_priv *p)
{
	struct ma_second *s = p->second;
	const bool flushed = p->variant == V_NESTED_DONTNEED_FLUSHED || p->variant == V_NESTED_FREE_FLUSHED;

	for (uint64_t n = 1;; n++) {
		int r = 0;

		if (!mmt_wait_beside(&p->ctl->zapping, n, &p->ctl->stop, MA_IDLE_WAIT_NS, p->second_threaded, MA_NAP_NS)) {
			WRITE_ONCE(s->stuck, !READ_ONCE(p->ctl->stop));
			return;
		}
		s->saw_cleared = s->late = s->moved = false;
		s->skipped = !await_cleared(p, s, n);
		if (!s->skipped) {
			r = madvise(p->region, p->psz, ma_frees(p->variant) ? MADV_FREE : MADV_DONTNEED);
			/* Before the control's flush, which replaces the page. */
			if (!r && !s->late && frame_moved(p, s))
				s->skipped = true;
			if (!r && flushed)
				r = flush_target(p);
		}
		if (r && !s->error)
			s->error = errno;
		s->cpu = sched_getcpu();
		s->calls++;
		smp_store_release(&s->done, n);
	}
}

void *ma_second_thread(void *arg)
{
	ma_second_zapper(arg);
	return NULL;
}

/* ---- writer -------------------------------------------------------------- */

/*
 * Round n: stores to the target (its TLB entry in use on this CPU) until
 * the second zapper returned, then the round's tag once, and, once the tag
 * is visible (the full barrier), whether the first zapper's walk has
 * reached the region's last page.  broken-lost stores the tag to a page of
 * its own instead: a store the target never sees, as a store through a
 * stale entry into a freed frame would be.
 */
static bool store_round(struct ma_priv *p, struct ma_writer *w, uint64_t n, uint64_t *dest)
{
	volatile uint64_t *t = ma_target(p);
	const uint64_t c0 = mmt_cycles();
	uint64_t seq = w->seq, before = seq;
	const char *probe = p->region + p->region_len - (ma_frees(p->variant) ? MA_PROBE_FROM_END : 1) * p->psz;
	int passed;

	*t = ++seq;
	smp_store_release(&w->armed, n);
	while (smp_load_acquire(&p->second->done) < n) {
		*t = ++seq;
		if (!(seq & 1023) && (READ_ONCE(p->ctl->stop) || mmt_cycles() - c0 > w->bound_cycles))
			return false;
	}
	w->stored = ma_tag(n);
	WRITE_ONCE(*dest, w->stored);
	smp_mb();
	/* broken-free: a MADV_FREE after the tag, with its flush: the page is
	 * clean again, and the round's reclaim discards it with the tag. */
	if (p->variant == V_BROKEN_FREE && !madvise(p->region, p->psz, MADV_FREE))
		w->injected++;
	passed = walk_passed(p, probe, p->probe_pfn);
	/* Unknown (the look failed) counts as ended: no evidence. */
	w->walk_done = passed != 0;
	w->stored_cpu = sched_getcpu();
	w->window_stores += seq - before;
	w->stores += seq - before + 1;
	w->injected += dest != ma_target(p);
	w->seq = seq;
	smp_store_release(&w->acked, n);
	return true;
}

void ma_writer_main(struct ma_priv *p)
{
	struct ma_writer *w = p->writer;
	uint64_t *dest = p->variant == V_BROKEN_LOST ? (uint64_t *)p->shadow : ma_target(p);

	w->stored_cpu = -1;
	for (uint64_t n = 1;; n++) {
		const enum mmt_wait r = mmt_wait_at_least(&p->ctl->round, n, &p->ctl->stop, MA_IDLE_WAIT_NS);

		if (r == MMT_WAIT_TIMED_OUT)
			WRITE_ONCE(w->stuck, true);
		if (r != MMT_WAITED)
			return;
		if (!store_round(p, w, n, dest)) {
			WRITE_ONCE(w->stuck, !READ_ONCE(p->ctl->stop));
			return;
		}
	}
}
