/* SPDX-License-Identifier: MIT */
/*
 * softdirty's actors.  The tracker, per clear n: publishes epoch 2n-1,
 * writes "4" to /proc/self/clear_refs, publishes 2n, waits for every
 * writer to acknowledge n, then reads pagemap's soft-dirty bit of every
 * page.  Each writer stores to its word of every page while a clear runs;
 * on seeing 2n it stores to every page once more, acknowledges, and stays
 * quiet until the next clear: so the pages the tracker reads were last
 * stored to after clear_refs returned, and no later store of the writer's
 * can set a bit that its earlier, untracked one left clear.
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
#include "softdirty.h"

/* ---- tracker ------------------------------------------------------------- */

/* Every writer that still runs has acknowledged clear n; the first that
 * does not within the bound ends the wait. */
static bool wait_acks(struct sd_priv *p, uint64_t n)
{
	for (unsigned w = 0; w < p->nwriters; w++)
		if (!READ_ONCE(p->ws[w].stuck) &&
		    !mmt_hunt_wait(&p->hunt, &p->ws[w].acked, n, SD_WAIT_NS,
				   "a writer to store after the clear and acknowledge it"))
			return false;
	return true;
}

static void fail(struct sd_priv *p, const char *what)
{
	mmt_hunt_fail(&p->hunt, what, errno);
}

/*
 * clear-refs-reprotect, after clear_refs returned: mprotect away and back,
 * a flush of every CPU's entries for the pages that does not depend on
 * clear_refs' own.  Not PROT_READ and back: x86's pte_needs_flush() (6.1,
 * arch/x86/include/asm/tlbflush.h) flushes only for a flag that changed,
 * and a PTE clear_refs already write-protected keeps its flags under
 * PROT_READ, so on a kernel without 912efa17e512 that mprotect would leave
 * the stale writable entries as they are.  PROT_EXEC flips NX, which it
 * always flushes for (where NX is in use: every x86-64 CPU has it, boot
 * option noexec=off takes it away); arm64 flushes every PTE changed, its
 * pte_needs_flush() is asm-generic's "true".  Back to read-write,
 * the PTEs stay write-protected: mm/mprotect.c can_change_pte_writable()
 * (6.1; later kernels ask pte_needs_soft_dirty_wp(), the same test)
 * refuses while vma_soft_dirty_enabled() and the PTE is not soft-dirty,
 * so the writers' next stores still fault and are tracked.
 */
static int reprotect(struct sd_priv *p)
{
	if (mprotect(p->region, p->region_len, PROT_READ | PROT_WRITE | PROT_EXEC) ||
	    mprotect(p->region, p->region_len, PROT_READ | PROT_WRITE)) {
		fail(p, "clear-refs-reprotect: mprotect");
		return -1;
	}
	p->reprotects++;
	return 0;
}

/* Clear n: epoch 2n-1, clear_refs, epoch 2n; the tracker's CPU and the
 * call's time into c.  -1 when clear_refs (or the reprotect) failed. */
static int clear_once(struct sd_priv *p, uint64_t n, struct sd_clear *c)
{
	int cpu;
	ssize_t r;

	c->n = n;
	smp_store_release(&p->ctl->epoch, 2 * n - 1);
	cpu = sched_getcpu();
	c->t0 = mmt_now_ns();
	r = pwrite(p->clear_fd, "4", 1, 0);
	c->t1 = mmt_now_ns();
	c->cpu = sched_getcpu() == cpu ? cpu : -1;
	if (r != 1) {
		fail(p, "writing 4 to /proc/self/clear_refs");
		return -1;
	}
	p->clear_ns_ema = p->clear_ns_ema ? p->clear_ns_ema * 0.9 + 0.1 * (double)(c->t1 - c->t0)
					  : (double)(c->t1 - c->t0);
	if (p->variant == V_CLEAR_REFS_REPROTECT && reprotect(p))
		return -1;
	smp_store_release(&p->ctl->epoch, 2 * n);
	return 0;
}

/*
 * Did clear n race?  Only if a writer on another CPU than the tracker's
 * stored to the pages while clear_refs ran: that CPU held writable
 * translations, in use, while their PTEs were write-protected, and only
 * clear_refs' flush_tlb_mm() (its IPI) takes them away: the premise of
 * 912efa17e512.  A writer on the tracker's own CPU does not count: one
 * CPU runs one thread, so its stores there were made before the clear or
 * after it, never during; whether its entries outlive the switch to the
 * tracker, the system call and the page-table walk (PCIDs, page-table
 * isolation, an emulator's TLB) is nothing this user-space evidence sees.
 */
static bool judge_clear(struct sd_priv *p, const struct sd_clear *c)
{
	bool cross = false, same = false, moved = false;

	for (unsigned w = 0; w < p->nwriters; w++) {
		const struct sd_writer *ws = &p->ws[w];

		/* Its premise is published with its acknowledgement. */
		if (smp_load_acquire(&ws->acked) < c->n)
			continue;
		if (ws->window_iter != c->n || ws->window_first_ns >= c->t1 || ws->window_last_ns <= c->t0)
			continue;	/* no store of its own spans the call */
		if (c->cpu < 0 || ws->window_cpu < 0)
			moved = true;
		else if (ws->window_cpu != c->cpu)
			cross = true;
		else
			same = true;
	}
	if (cross)
		return true;
	if (same)
		p->same_cpu++;
	else if (moved)
		p->cpu_moved++;
	else
		p->no_store++;
	return false;
}

static void note_witness(struct sd_priv *p, const struct sd_witness *x)
{
	if (p->nr_first < SD_MAX_FIRST)
		p->first[p->nr_first++] = *x;
}

/* The stores all writers made so far: the scenario's ops, in which its
 * first witness is counted (the hunt would count it in clears). */
static uint64_t stores_now(const struct sd_priv *p)
{
	uint64_t s = 0;

	for (unsigned w = 0; w < p->nwriters; w++)
		s += READ_ONCE(p->ws[w].stores);
	return s;
}

/*
 * After clear n, with every writer quiet: each page whose pagemap entry
 * reads clean although a writer stored to it after seeing epoch 2n is an
 * untracked write, one per (page, writer); a word that does not hold the
 * writer's last value (its ledger) is a lost write.  Only writers that
 * acknowledged n are judged; a page neither present nor swapped (its
 * entry says nothing of soft-dirty) is not judged at all.
 */
static void check_pages(struct sd_priv *p, const struct sd_clear *c, struct mmt_worker *wk)
{
	const size_t len = (size_t)p->pages * 8;
	const off_t at = (off_t)((uintptr_t)p->region / p->psz * 8);

	if (pread(p->pagemap_fd, p->pm, len, at) != (ssize_t)len) {
		fail(p, "reading /proc/self/pagemap");
		return;
	}
	for (unsigned pg = 0; pg < p->pages; pg++) {
		const uint64_t e = p->pm[pg];

		if (!(e & (MMT_PM_PRESENT | MMT_PM_SWAPPED))) {
			p->pages_unjudged++;
			continue;
		}
		p->pages_checked++;
		for (unsigned w = 0; w < p->nwriters; w++) {
			const struct sd_writer *ws = &p->ws[w];
			struct sd_witness x = { .page = pg, .writer = w, .iteration = c->n, .pagemap = e,
						.writer_cpu = ws->window_iter == c->n ? ws->window_cpu : -1,
						.tracker_cpu = c->cpu };
			bool lost, untracked;

			if (smp_load_acquire(&ws->acked) < c->n)
				continue;
			x.stored = ws->ledger[pg];
			x.found = READ_ONCE(*sd_word(p, p->region, pg, w));
			lost = x.found != x.stored;
			untracked = !(e & MMT_PM_SOFT_DIRTY);
			p->outcomes[OUT_LOST] += lost;
			p->outcomes[untracked ? OUT_UNTRACKED : OUT_TRACKED]++;
			if (likely(!lost && !untracked))
				continue;
			x.kind = untracked ? "untracked" : "lost";
			note_witness(p, &x);
			/* only the first call counts: mmt_hunt_round()'s after it does not */
			if (!p->findings++)
				mmt_witness_first(wk, stores_now(p));
		}
	}
}

/* Clear n, a round of the hunt: judged even when a writer did not
 * answer (the others' stores after the clear are as good), then the end. */
static int clear_round(void *priv, uint64_t n, struct mmt_worker *wk)
{
	struct sd_priv *p = priv;
	const uint64_t found = p->findings;
	struct sd_clear c;
	bool acked, raced;

	if (clear_once(p, n, &c))
		return -1;
	acked = wait_acks(p, n);
	raced = judge_clear(p, &c);
	check_pages(p, &c, wk);
	mmt_hunt_round(&p->hunt, n, raced, p->findings > found, wk);
	return !acked || p->hunt.error[0] ? -1 : 0;
}

void sd_tracker(struct sd_priv *p, struct mmt_worker *wk)
{
	mmt_worker_at(wk, "clearing, waiting for the writers, reading pagemap");
	mmt_hunt_drive(&p->hunt, p->run, wk, clear_round, p, &p->findings, &p->ctl->stop);
}

/* ---- writers ------------------------------------------------------------- */

/* One store to each of the writer's words, the ledger beside it.  The
 * faults are the kernel's, not ours: nothing in the loop but the stores. */
static inline void store_pass(struct sd_writer *ws, unsigned w, unsigned pages)
{
	uint64_t seq = ws->seq;

	for (unsigned k = 0; k < pages; k++) {
		const uint64_t v = sd_tag(w, ++seq);

		WRITE_ONCE(*ws->words[k], v);
		ws->ledger[k] = v;
	}
	ws->seq = seq;
	ws->stores += pages;
}

/*
 * A pass while clear n runs (epoch 2n-1).  It counts for the premise only
 * if the epoch read the same after it (the full barrier: the stores were
 * visible by then, so they completed before 2n) and sched_getcpu() the
 * same before and after; the first such pass of a clear starts its span,
 * each one extends it, and a pass on another CPU marks it moved.
 */
static void window_pass(struct sd_priv *p, struct sd_writer *ws, unsigned w, uint64_t e)
{
	const uint64_t n = SD_ITER(e);
	const int cpu = sched_getcpu();
	const uint64_t t0 = mmt_now_ns();

	bool moved;

	store_pass(ws, w, p->pages);
	smp_mb();
	if (READ_ONCE(p->ctl->epoch) != e)
		return;
	moved = cpu < 0 || sched_getcpu() != cpu;
	if (ws->window_iter != n) {
		if (moved)
			return;
		ws->window_iter = n;
		ws->window_first_ns = t0;
		ws->window_cpu = cpu;
	} else if (moved || ws->window_cpu != cpu) {
		ws->window_cpu = -1;
	}
	ws->window_last_ns = mmt_now_ns();
	ws->window_stores += p->pages;
}

/* Seen epoch 2n: one store to every page, after clear_refs returned,
 * then the acknowledgement (release: the stores and the premise first). */
static void after_clear(struct sd_priv *p, struct sd_writer *ws, unsigned w, uint64_t n)
{
	store_pass(ws, w, p->pages);
	ws->stores_after_clear += p->pages;
	if (p->variant == V_BROKEN_UNTRACKED)
		ws->injected += p->pages;
	smp_store_release(&ws->acked, n);
}

/* Quiet until the epoch moves on from e (or the run stops), bounded. */
static bool wait_epoch(struct sd_priv *p, struct sd_writer *ws, uint64_t e)
{
	const uint64_t t0 = mmt_now_ns();

	for (unsigned spins = 0; READ_ONCE(p->ctl->epoch) == e && !READ_ONCE(p->ctl->stop); spins++) {
		if (spins < 256) {
			cpu_relax();
			continue;
		}
		if (mmt_now_ns() - t0 > SD_WRITER_WAIT_NS) {
			WRITE_ONCE(ws->stuck, true);
			return false;
		}
		sched_yield();
	}
	return true;
}

void sd_writer_main(struct sd_priv *p, unsigned w)
{
	struct sd_writer *ws = &p->ws[w];
	uint64_t done = 0;

	ws->window_cpu = -1;
	while (!READ_ONCE(p->ctl->stop)) {
		const uint64_t e = smp_load_acquire(&p->ctl->epoch);

		if (SD_CLEARING(e))
			window_pass(p, ws, w, e);
		else if (e && e / 2 > done)
			after_clear(p, ws, w, done = e / 2);
		else if (!wait_epoch(p, ws, e))
			return;
	}
}
