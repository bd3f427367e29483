/* SPDX-License-Identifier: MIT */
/*
 * mmrace protector: per iteration n, mprotect(PROT_NONE) of the whole walk
 * (the hot pages first, then cold populated pages, so the pending-flush
 * window lasts while the walk crosses them), wait for the migrator and for
 * every writer to have faulted (their TLBs are flushed), restore access,
 * and let the writers check their words.  The injector replaces the
 * migrator by a copy-and-remap done in user space (broken-stale-mapping).
 * The compactor writes /proc/sys/vm/compact_memory meanwhile.
 */
#include <fcntl.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "arch/barrier.h"
#include "bounded-wait.h"
#include "cli.h"
#include "clock.h"
#include "mmrace.h"

/* Waits for *x >= v (bounded); on timeout records what it waited for. */
static bool wait_for(struct mmr_priv *p, const uint64_t *x, uint64_t v, const char *what)
{
	return mmt_wait_step(x, v, MMR_WAIT_NS, what, "iteration", &p->wait_timeouts, p->wait_timeout_what,
			     sizeof(p->wait_timeout_what));
}

/* Every live writer's field at offset off (fault_seen or acked) >= v. */
static bool wait_writers(struct mmr_priv *p, size_t off, uint64_t v, const char *what)
{
	bool all = true;

	for (unsigned w = 0; w < p->nwriters; w++) {
		struct mmr_writer *ws = &p->ws[w];

		if (ws->crashed || ws->stuck)
			continue;
		all &= wait_for(p, (const uint64_t *)((char *)ws + off), v, what);
	}
	return all;
}

#define WAIT_WRITERS(p, field, v, what) wait_writers(p, offsetof(struct mmr_writer, field), v, what)

static void check_victims(struct mmr_priv *p, uint64_t n)
{
	size_t len = MMR_VICTIM_PAGES * MMR_PAGE;
	uint64_t *v = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	if (v == MAP_FAILED)
		return;
	/* Fresh pages are often the frames migration just freed: a writer's
	 * tag in one is a store through a stale translation. */
	p->victim_checks++;
	mmr_find_foreign(p, v, len, n);
	munmap(v, len);
}

/*
 * The guard: the shortest mprotect(PROT_NONE) of the hot pages alone, so
 * an upper bound on the time from mprotect's entry to the hot PTEs being
 * changed, and from its flush to its return.  A migration counts as inside
 * the walk only if it began more than this after the walk's start and
 * ended more than this before its return.  Measured before any writer runs.
 */
uint64_t mmr_calibrate_guard(struct mmr_priv *p)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < 32; i++) {
		uint64_t t0 = mmt_now_ns(), t1;

		mprotect(p->region, (size_t)p->hot * MMR_PAGE, PROT_NONE);
		t1 = mmt_now_ns();
		mprotect(p->region, (size_t)p->hot * MMR_PAGE, PROT_READ | PROT_WRITE);
		if (t1 - t0 < best)
			best = t1 - t0;
	}
	return best;
}

/*
 * Walk n moved pages inside its time: is that the race?  Only if a writer
 * on another CPU than the migrator's stored to them, unfaulted, while they
 * moved: a live translation elsewhere, the premise of 20841405940e.  A
 * writer on the migrator's own CPU does not count: under emulation the
 * switch to the migrator's page table empties that CPU's TLB, and on
 * hardware whether its entry survives depends on PCIDs, which nothing
 * here can see.
 */
static void judge_walk(struct mmr_priv *p, uint64_t n, uint64_t moved, int migrator_cpu)
{
	bool cross = false, same = false;

	for (unsigned w = 0; w < p->nwriters; w++) {
		struct mmr_writer *ws = &p->ws[w];
		int cpu;

		if (smp_load_acquire(&ws->moving_store_walk) != n)
			continue;
		cpu = READ_ONCE(ws->moving_store_cpu);
		if (migrator_cpu >= 0 && cpu != migrator_cpu)
			cross = true;
		else
			same = true;
	}
	p->in_window += moved;
	if (cross)
		p->raced += moved;
	else if (same)
		p->in_window_same_cpu += moved;
	else
		p->in_window_no_store += moved;
}

/*
 * The hot pages that moved in walk n strictly between t0 and t1: by a
 * call that began after t0, done before t1 (the call's return, or the
 * migrator's watcher's read that saw the page moved), so inside the walk
 * less the guard at either end, where no flush can be pending.
 */
static uint64_t moved_inside(const struct mmr_priv *p, uint64_t n, uint64_t t0, uint64_t t1)
{
	const struct mmr_ctl *c = p->ctl;
	const unsigned b = n & 1;
	uint64_t in = 0;

	if (c->m0 <= t0)
		return 0;
	for (unsigned i = 0; i < p->hot; i++)
		in += mmr_page_moved(c, b, i) && c->move_before[b][i] < t1;
	return in;
}

static void start_walk(struct mmr_priv *p, uint64_t n)
{
	struct mmr_ctl *c = p->ctl;

	__atomic_store_n(&c->walk_seq, (uint32_t)n, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&c->child_sleeping, __ATOMIC_SEQ_CST))
		syscall(SYS_futex, &c->walk_seq, FUTEX_WAKE, 1, NULL, NULL, 0);
}

/*
 * Whether the run has what it came for: --target-window raced pages; and
 * without --duration, MMR_TARGET_RACED of them (the control: as many moved,
 * injection: MMR_INJECT_WALKS walks), however long this machine takes, or
 * the first lost write, or the harness's 1 s where no race can come (no
 * migrator, no huge page).
 */
static const char *has_enough(const struct mmr_priv *p, uint64_t n)
{
	const struct mmt_run *run = p->run;
	const uint64_t target = run->opt[OPT_TARGET_WINDOW];

	if (target)
		return p->raced >= target ? "--target-window" : NULL;
	if (!run->duration_defaulted)
		return NULL;
	if (run->variant->injected)
		return n >= MMR_INJECT_WALKS ? "walks" : NULL;
	/* Found: the rest of a default run would prove nothing more (a soak
	 * that counts losses gives --duration). */
	if (p->lost_known)
		return "a lost write";
	if (p->child <= 0 || (mmr_thp(p->variant) && p->thp_kb <= 0))
		return mmt_now_ns() - p->start_ns >= MMT_DEFAULT_DURATION_NS ? "nothing to race" : NULL;
	/* The rule counts the migrator's moves of a page: a huge page once. */
	if (mmr_after_walk(p->variant))
		return READ_ONCE(p->ctl->pages_moved) / mmr_page_of(p) >= MMR_TARGET_RACED ? "pages moved" : NULL;
	return p->raced / mmr_page_of(p) >= MMR_TARGET_RACED ? "pages raced" : NULL;
}

static void end_iteration(struct mmr_priv *p, uint64_t n)
{
	const char *enough;
	bool lost = false;

	smp_store_release(&p->ctl->epoch, 4 * n);	/* open */
	p->iterations = n;
	/* Writers check after this open: iteration n-1's losses are known. */
	for (unsigned w = 0; w < p->nwriters; w++)
		lost |= READ_ONCE(p->ws[w].lost) != 0;
	if (lost)
		mmr_note_lost(p);
	lost &= p->run->opt[OPT_STOP_ON_LOST] != 0;
	enough = has_enough(p, n);
	if (enough || lost || (p->run->iterations && n >= p->run->iterations)) {
		if (!p->ended_by)
			p->ended_by = enough ? enough : lost ? "--stop-on-lost" : "--iterations";
		mmt_request_stop();
	}
}

void mmr_protector(struct mmr_priv *p, struct mmt_worker *wk)
{
	struct mmr_ctl *c = p->ctl;
	const bool migrate = p->child > 0;
	const bool lie = p->variant == V_BROKEN_EARLY_EPOCH;
	const size_t len = p->region_len;	/* race-compaction: with its aliases */
	const uint64_t g = p->guard_ns;

	for (uint64_t n = 1; !mmt_should_stop(); n++) {
		uint64_t p0, p1, moved_in_walk;

		if (!WAIT_WRITERS(p, acked, n - 1, "a writer to check its words after the walk"))
			break;
		if (migrate && !wait_for(p, &c->child_ready, n, "the migrator to be ready"))
			break;
		if (n == 1 && !p->migrate_ns_ema)
			p->migrate_ns_ema = (double)c->first_move_ns;
		/* Land the migration anywhere in the walk (LTP fuzzy-sync
		 * style): a random delay below the walk's length less the
		 * migration's. */
		WRITE_ONCE(c->delay_max_ns, p->walk_ns_ema > p->migrate_ns_ema ?
			   (uint64_t)(p->walk_ns_ema - p->migrate_ns_ema) : 0);
		/* broken-early-epoch lies: "returned" before the call. */
		smp_store_release(&c->epoch, lie ? 4 * n - 2 : 4 * n - 3);
		if (migrate)
			start_walk(p, n);
		/* After the wake: a migrator on this CPU that ran at once
		 * moved the pages before the walk began, outside its time. */
		p0 = mmt_now_ns();
		mprotect(p->region, len, PROT_NONE);
		p1 = mmt_now_ns();
		smp_store_release(&c->epoch, 4 * n - 2);	/* protected, flushed */
		p->mprotect_calls++;
		p->walk_ns_ema = p->walk_ns_ema ? p->walk_ns_ema * 0.9 + 0.1 * (double)(p1 - p0)
							: (double)(p1 - p0);
		moved_in_walk = 0;
		if (migrate && wait_for(p, &c->child_done, n, "the migrator to finish its move")) {
			uint64_t m0 = c->m0, m1 = c->m1, moved = c->moved;

			p->migrate_ns_ema = p->migrate_ns_ema ?
				p->migrate_ns_ema * 0.9 + 0.1 * (double)(m1 - m0) : (double)(m1 - m0);
			moved_in_walk = moved_inside(p, n, p0 + g, p1 - g);
			if (moved_in_walk && m1 + g >= p1)
				p->in_window_by_watch += moved_in_walk;
			p->outside_window += moved - moved_in_walk;
			/* The kernel's own word, where it can give it. */
			p->kernel_in_window = c->kwindow < 0 || p->kernel_in_window < 0 ? -1 :
					      p->kernel_in_window + c->kwindow;
			if (c->migrator_cpu >= 0 && c->migrator_cpu < 64)
				p->migrator_cpus |= 1ull << c->migrator_cpu;
			if (moved)
				check_victims(p, n);
		}
		/* Every writer has faulted: its TLB entries for the walk are
		 * gone, so what it reads after access is back is the memory;
		 * and its stores of walk n are all made, so what they saw of
		 * the migration can be judged. */
		WAIT_WRITERS(p, fault_seen, n, "a writer to fault on the protected walk");
		if (moved_in_walk)
			judge_walk(p, n, moved_in_walk, c->migrator_cpu);
		if (migrate && p->variant == V_RACE_COMPACTION)
			mmr_replace_hot(p);	/* writers parked */
		smp_store_release(&c->epoch, 4 * n - 1);	/* restoring */
		mprotect(p->region, len, PROT_READ | PROT_WRITE);
		p->mprotect_calls++;
		end_iteration(p, n);
	}
	WAIT_WRITERS(p, acked, p->iterations, "a writer to check its words after the last walk");
	wk->ops = p->iterations;
}

/*
 * broken-stale-mapping, per iteration: protect the walk (writers park in
 * their handlers), look in the frames the last injection gave to a "new
 * owner" for the writers' stale stores, then "migrate" the hot pages in
 * user space: copy them into the other memfd, map that in their place and
 * zero the old frames.  Each writer then makes --inject-stores stores
 * through the old mapping, as through a stale TLB entry: lost from the
 * region (its next check finds them) and found in the new owner's frames.
 */
void mmr_injector(struct mmr_priv *p, struct mmt_worker *wk)
{
	struct mmr_ctl *c = p->ctl;
	const size_t len = (size_t)p->walk * MMR_PAGE, hot = (size_t)p->hot * MMR_PAGE;

	for (uint64_t n = 1; !mmt_should_stop(); n++) {
		int next = !p->current;

		if (!WAIT_WRITERS(p, acked, n - 1, "a writer to check its words after the walk"))
			break;
		smp_store_release(&c->epoch, 4 * n - 3);
		mprotect(p->region, len, PROT_NONE);
		smp_store_release(&c->epoch, 4 * n - 2);
		p->mprotect_calls++;
		if (!WAIT_WRITERS(p, fault_seen, n, "a writer to fault on the protected walk")) {
			smp_store_release(&c->epoch, 4 * n - 1);
			mprotect(p->region, len, PROT_READ | PROT_WRITE);
			end_iteration(p, n);
			break;
		}
		mmr_find_foreign(p, (const uint64_t *)p->view[next], hot, n);
		memcpy(p->view[next], p->view[p->current], hot);
		mmap(p->region, hot, PROT_NONE, MAP_SHARED | MAP_FIXED, p->memfd[next], 0);
		memset(p->view[p->current], 0, hot);
		p->current = next;
		for (unsigned w = 0; w < p->nwriters; w++) {
			unsigned k = (unsigned)p->run->opt[OPT_INJECT_STORES];

			p->ws[w].stale_left = k < p->ws[w].nwords ? k : p->ws[w].nwords;
		}
		smp_store_release(&c->epoch, 4 * n - 1);
		mprotect(p->region, len, PROT_READ | PROT_WRITE);
		p->mprotect_calls++;
		end_iteration(p, n);
	}
	WAIT_WRITERS(p, acked, p->iterations, "a writer to check its words after the last walk");
	wk->ops = p->iterations;
}

/* Frees the filler's holes.  With every other page pinned, one call over
 * the whole filler: the pinned pages it unmaps (all but the first time,
 * already unmapped) stay in their frames, held by their pipes; a call per
 * hole was 8192 calls and as many TLB flushes a walk. */
void mmr_free_holes(struct mmr_priv *p)
{
	if (p->filler_pinned) {
		madvise(p->filler, MMR_FILLER_PAGES * MMR_PAGE, MADV_DONTNEED);
		return;
	}
	for (size_t i = 0; i < MMR_FILLER_PAGES; i += MMR_FILLER_STRIDE)
		madvise(p->filler + i * MMR_PAGE, MMR_PAGE, MADV_DONTNEED);
}

/* Touches (allocates) the filler's holes from..to. */
static void touch_holes(struct mmr_priv *p, size_t from, size_t to)
{
	for (size_t i = from; i < to; i += MMR_FILLER_STRIDE)
		WRITE_ONCE(p->filler[i * MMR_PAGE], 1);
}

/*
 * race-compaction, between walks: gives the hot pages new frames below the
 * filler's holes, so that the next walk's compaction has somewhere to move
 * them (after one pass they sit at its top and it would never move them
 * again).  Their frames go back to this CPU's free list with the punch;
 * the holes, refilled, take those, and the hot pages then get frames from
 * further down the free memory.  The second half of the holes, touched
 * after them, pushes the new hot pages out of this CPU's LRU batch onto
 * the LRU, where the migrator's CPU's compaction can isolate them.
 * Writers are parked (they faulted): their data is copied out and back.
 */
void mmr_replace_hot(struct mmr_priv *p)
{
	const size_t hot = (size_t)p->hot * MMR_PAGE, half = MMR_FILLER_PAGES / 2;

	memcpy(p->hot_copy, p->view[0], hot);
	if (fallocate(p->memfd[0], FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, (off_t)hot))
		return;
	touch_holes(p, 0, half);
	memcpy(p->view[0], p->hot_copy, hot);
	touch_holes(p, half, MMR_FILLER_PAGES);
	mmr_free_holes(p);
}

void *mmr_compactor(void *arg)
{
	struct mmr_priv *p = arg;

	while (!READ_ONCE(p->ctl->stop)) {
		int fd = open("/proc/sys/vm/compact_memory", O_WRONLY | O_CLOEXEC);

		if (fd < 0)
			break;
		if (write(fd, "1", 1) == 1)
			p->compact_calls++;
		close(fd);
		usleep(20000);
	}
	return NULL;
}
