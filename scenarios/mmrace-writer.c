/* SPDX-License-Identifier: MIT */
/*
 * mmrace writers: each stores increasing values into its own words of the
 * hot pages (the front of every mprotect walk), and writes the value into
 * a private ledger after each store.  A store that faults (the walk's
 * PROT_NONE, once flushed) parks the writer in its SIGSEGV handler until
 * the protector has restored access; there, with its TLB freshly flushed,
 * it reads every one of its words back and compares with the ledger.  No
 * store of its own can land between the loss and the check, so a word that
 * holds less than its ledger is a lost write, never a false one.
 */
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "arch/barrier.h"
#include "clock.h"
#include "mmrace.h"
#include "pagemap.h"

struct mmr_priv *mmr_active;
static __thread struct mmr_writer *my_writer;
static __thread unsigned my_index;
static struct sigaction old_segv;
static int mismatch_lock;

uint64_t mmr_read_pfn(int fd, const void *addr)
{
	return mmt_pagemap_pfn(fd, addr, MMR_PAGE);
}

/* Async-signal-safe: writers record from their SIGSEGV handler.  The first
 * few of each kind (lost, foreign) are kept, so one cannot crowd out the
 * other. */
void mmr_record_mismatch(struct mmr_priv *p, const struct mmr_mismatch *m)
{
	unsigned same = 0;

	while (__atomic_test_and_set(&mismatch_lock, __ATOMIC_ACQUIRE))
		cpu_relax();
	for (unsigned i = 0; i < p->nr_mismatches; i++)
		same += p->mismatch[i].foreign == m->foreign;
	if (p->nr_mismatches < MMR_MAX_MISMATCHES && same < MMR_MAX_MISMATCHES / 2)
		p->mismatch[p->nr_mismatches++] = *m;
	__atomic_clear(&mismatch_lock, __ATOMIC_RELEASE);
}

/* A writer's tag in memory that is not the region's (a victim page, the
 * injector's old frames) is a store through a stale translation. */
void mmr_find_foreign(struct mmr_priv *p, const uint64_t *v, size_t len, uint64_t iteration)
{
	for (size_t i = 0; i < len / 8; i++) {
		uint64_t x = v[i], w = x >> 56;

		if (unlikely(x) && w >= 1 && w <= p->nwriters) {
			struct mmr_mismatch m = {
				.page = i / MMR_WORDS_PER_PAGE, .word = i % MMR_WORDS_PER_PAGE,
				.writer = w - 1, .iteration = iteration, .expected = 0, .found = x,
				.cpu = p->ws[w - 1].cpu, .foreign = true,
			};

			p->outcomes[OUT_FOREIGN]++;
			mmr_record_mismatch(p, &m);
		}
	}
}

/* Every word of writer w against its ledger; a lost one is put right so
 * the next check starts clean.  Returns the words lost. */
uint64_t mmr_verify_words(struct mmr_priv *p, struct mmr_writer *ws, unsigned w, uint64_t iteration)
{
	uint64_t lost = 0;

	for (unsigned k = 0; k < ws->nwords; k++) {
		uint64_t want = READ_ONCE(ws->ledger[k]), got = READ_ONCE(*ws->words[k]);
		uint64_t page;

		if (likely(got == want))
			continue;
		lost++;
		page = (uint64_t)((char *)ws->words[k] - p->region) / MMR_PAGE;
		{
			struct mmr_mismatch m = {
				.page = page, .word = ((uintptr_t)ws->words[k] % MMR_PAGE) / 8, .writer = w,
				.iteration = iteration, .expected = want, .found = got,
				.pfn_before = page < MMR_MAX_HOT ? p->ctl->pfn_before[iteration & 1][page] : 0,
				.pfn_after = page < MMR_MAX_HOT ? p->ctl->pfn_after[iteration & 1][page] : 0,
				.pfn_now = mmr_read_pfn(p->pagemap ? p->pagemap_fd : -1, ws->words[k]),
				.cpu = ws->cpu,
			};

			mmr_record_mismatch(p, &m);
		}
		WRITE_ONCE(*ws->words[k], want);
	}
	ws->verified += ws->nwords - lost;
	ws->lost += lost;
	/* Detection speed through the common helper (the record's
	 * "detection", in stores); async-signal-safe: a clock read. */
	if (lost && ws->wk && !ws->wk->first_witness_ns) {
		mmt_witness_first(ws->wk, ws->stores);
		ws->first_lost_iter = iteration;
	}
	return lost;
}

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	struct mmr_priv *p = mmr_active;
	struct mmr_writer *ws = my_writer;
	uintptr_t a = (uintptr_t)si->si_addr;

	if (p && ws && a >= (uintptr_t)p->region && a < (uintptr_t)p->region + p->region_len) {
		struct mmr_ctl *c = p->ctl;
		uint64_t e = smp_load_acquire(&c->epoch), n, t0;

		ws->faulted = 1;
		ws->faults++;
		if (!MMR_PHASE(e))
			return;	/* access came back meanwhile: the store retries */
		n = MMR_ITER(e);
		smp_store_release(&ws->fault_seen, n);
		t0 = mmt_now_ns();
		for (unsigned spins = 0; smp_load_acquire(&c->epoch) < 4 * n; spins++) {
			if (mmt_now_ns() - t0 > MMR_HANDLER_WAIT_NS) {
				ws->stuck = true;
				siglongjmp(ws->crash_env, 1);
			}
			if (spins > 256)
				sched_yield();	/* the protector may need this CPU */
			else
				cpu_relax();
		}
		mmr_verify_words(p, ws, my_index, n);
		smp_store_release(&ws->acked, n);
		return;	/* the faulting store re-executes */
	}
	if (p && ws && si->si_code > 0) {
		/* A fault outside the region in a writer: a finding, not a
		 * silent death; the writer stops and the run reports it. */
		ws->crashed = true;
		ws->crash_addr = a;
		siglongjmp(ws->crash_env, 1);
	}
	/* Anywhere else: put the machine back and die as we would have. */
	mmt_sysctl_restore_all();
	sigaction(SIGSEGV, &old_segv, NULL);
	raise(sig);
	(void)uc;
}

int mmr_install_segv(struct mmr_priv *p)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	mmr_active = p;
	if (sigaction(SIGSEGV, &sa, &old_segv)) {
		mmr_active = NULL;
		return -1;
	}
	return 0;
}

void mmr_remove_segv(void)
{
	/* Not installed (a prepare() that failed before it): the handler
	 * in place is not ours to replace (the sysctl guard's, say). */
	if (!mmr_active)
		return;
	sigaction(SIGSEGV, &old_segv, NULL);
	mmr_active = NULL;
}

/* A store of walk n completed, unfaulted, while the migrator's walk-n call
 * ran: the race's premise, if this CPU is not the migrator's.  The first
 * such store of a walk names the CPU: cpu_before was read before it, and
 * a writer that moved meanwhile proves nothing about where its store ran.
 * The later ones of the walk only count (no sched_getcpu() per store). */
static void note_store_while_moving(struct mmr_writer *ws, uint64_t n, int cpu_before)
{
	if (ws->moving_store_walk != n) {
		if (cpu_before < 0 || sched_getcpu() != cpu_before)
			return;
		WRITE_ONCE(ws->moving_store_cpu, cpu_before);
		smp_store_release(&ws->moving_store_walk, n);
	}
	ws->stores_while_moving++;
}

/*
 * The store loop.  The epoch read before and after each store classifies
 * it: completed during the walk (a window write: legal, and what the race
 * needs) or completed while mprotect had returned before and after it
 * (impossible: the flush must make it fault, a stale_tlb_write).  The
 * migrator's "moving" word, read beside the epoch, says whether a window
 * write also ran while the pages moved.
 */
static void writer_loop(struct mmr_priv *p, struct mmr_writer *ws, unsigned w)
{
	struct mmr_ctl *c = p->ctl;
	const bool inject = p->variant == V_BROKEN_STALE_MAPPING;

	while (!READ_ONCE(c->stop)) {
		for (unsigned k = 0; k < ws->nwords; k++) {
			uint64_t v = mmr_tag(w, ++ws->seq), e1, e2, mv1, mv2;
			uint64_t *dst = ws->words[k];
			int cpu = -1;

			if (inject && unlikely(ws->stale_hold)) {
				/* As a CPU inside the window: no fresh store may
				 * overwrite the stale ones before the next walk has
				 * protected the region (the store then faults and the
				 * writer checks its words). */
				while (MMR_PHASE(smp_load_acquire(&c->epoch)) != 2 && !READ_ONCE(c->stop))
					cpu_relax();
				if (READ_ONCE(c->stop))
					return;	/* the final check finds them */
				ws->stale_hold = false;
			}
			e1 = smp_load_acquire(&c->epoch);
			mv1 = READ_ONCE(c->moving);
			if (unlikely(mv1) && ws->moving_store_walk != mv1)
				cpu = sched_getcpu();	/* once a walk: before the store */
			ws->faulted = 0;
			if (inject && ws->stale_left) {
				/* The stale TLB entry, made explicit: the same word
				 * through the injector's old mapping. */
				dst = (uint64_t *)(p->view[!READ_ONCE(p->current)] + ((char *)dst - p->region));
				ws->stale_hold = !--ws->stale_left;
				ws->stale_stores++;
			}
			WRITE_ONCE(*dst, v);
			/* Volatile, so the compiler cannot put the ledger ahead of
			 * the store that may fault. */
			WRITE_ONCE(ws->ledger[k], v);
			smp_rmb();
			e2 = READ_ONCE(c->epoch);
			mv2 = READ_ONCE(c->moving);
			ws->stores++;
			if (unlikely(MMR_PHASE(e1)) && e1 == e2 && !ws->faulted) {
				if (MMR_PHASE(e1) == 1) {
					ws->window_writes++;
					if (mv1 == MMR_ITER(e1) && mv2 == mv1)
						note_store_while_moving(ws, mv1, cpu);
				} else if (MMR_PHASE(e1) == 2) {
					ws->stale_violations++;
				}
			}
		}
	}
}

void mmr_writer_main(struct mmr_priv *p, unsigned w)
{
	struct mmr_writer *ws = &p->ws[w];

	ws->cpu = sched_getcpu();
	ws->moving_store_cpu = -1;
	my_index = w;
	my_writer = ws;
	if (sigsetjmp(ws->crash_env, 1)) {
		my_writer = NULL;
		return;
	}
	writer_loop(p, ws, w);
	my_writer = NULL;
}
