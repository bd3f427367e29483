/* SPDX-License-Identifier: MIT */
/*
 * madvise: stores lost after a madvise() of their page returned.  Two
 * threads zapping the same range under mmap_lock read (MADV_DONTNEED,
 * MADV_FREE) each gather what they cleared and flush it at the end; the
 * one that finds the PTEs already cleared by the other gathers nothing.
 * Kernel commit 99baac21e458 made tlb_finish_mmu() flush the whole mm
 * when another such zap is pending (mm_tlb_flush_nested()): without it
 * the second madvise() returns while another CPU still holds a writable
 * TLB entry for the page, and a store through it lands in a frame the
 * first zapper frees once it flushes.  The program was told the page is
 * gone and its next store starts a new one: that store is lost.
 *
 * Actors (madvise-actors.c): worker 0 is the first zapper (the whole
 * region), worker 1 the writer (the region's first page, the target),
 * worker 2 the second zapper (the target alone); with two workers the
 * second zapper is a thread on the first zapper's CPU, never the
 * writer's.  A round: every page present, the writer storing to the
 * target, the first zapper's madvise(); the second zapper's once mincore()
 * reads the target out while the first still runs; the writer's tag
 * after the second returned; the target must hold it (lost_write).
 *
 * Evidence that can be false: a round raced (rounds_raced) only if the
 * second zapper saw the target out while the first zapper's call ran, and
 * once the writer's tag was visible the first zapper's walk had still not
 * reached the region's last page (mincore): its flush, which follows the
 * walk, was still to come.  --pages is capped below what one gather holds
 * before it must flush mid-walk.  A round whose second zapper never saw
 * the walk pass the target is void, not judged: a later zap could take
 * the store legitimately.  A run that found nothing with no raced round
 * is INCONCLUSIVE, saying which premise failed.  Memory is
 * private anonymous, 2 MiB aligned, MADV_NOHUGEPAGE (a THP takes another
 * path), between guard pages.  On a mutant kernel its count of nested
 * zaps that skipped the flush adds evidence; nothing depends on it.
 *
 * nested-free: the same race through MADV_FREE, the other call the fix
 * names.  MADV_FREE leaves the page mapped and makes its PTE clean, so a
 * store after the call dirties it again and reclaim must keep it; a store
 * through a TLB entry the zap left dirty sets no dirty bit, and reclaim
 * (MADV_PAGEOUT at the round's end) discards the page with the store.
 * Its evidence: the walk passing a page is its being marked lazily freed
 * (/proc/kpageflags, root), and the round's reclaim must discard a clean
 * check page beside the target, else the round could not have shown the
 * loss.  Each round starts on new pages (MADV_DONTNEED first).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "clock.h"
#include "madvise.h"
#include "metrics.h"
#include "pagemap.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23	/* Linux 5.14 */
#endif

const struct mmt_variant ma_variants[NR_VARIANTS] = {
	[V_NESTED_DONTNEED] = { .name = "nested-dontneed",
		.help = "a second thread's MADV_DONTNEED of a page that the first thread's MADV_DONTNEED of the whole region already cleared, then a writer on another CPU stores to it: a store made after the second madvise() returned that is not there afterwards is a lost_write. Without --duration it runs until the first lost write or 64 raced rounds (the second call returned, and the writer stored, before the first call's walk had ended), at most 2 minutes. Plain run-scenario madvise --variant nested-dontneed lost a write in 10 of 10 runs on a kernel with the fix it hunts reverted (the first 22-368 ms in, 2-node TCG guest) and none, conclusive in 10 of 10, with it in (scripts/mutant-proof)",
		.forbidden_on = MMT_ARCH_ALL, .family = MMT_FAMILY_KERNEL,
		.hunts = "99baac21e458 mm: fix MADV_[FREE|DONTNEED] TLB flush miss problem" },
	[V_NESTED_DONTNEED_FLUSHED] = { .name = "nested-dontneed-flushed",
		.help = "control: as nested-dontneed, and the second thread then makes the page present again and zaps it again, a zap that clears a present PTE and so flushes it from every CPU on any architecture: the writer's entry is gone before it stores, so no lost write even on a kernel without 99baac21e458's forced flush",
		.forbidden_on = MMT_ARCH_ALL, .family = MMT_FAMILY_KERNEL },
	[V_NESTED_FREE] = { .name = "nested-free",
		.help = "as nested-dontneed with MADV_FREE for both zaps (the page stays mapped, made clean), then reclaim of the page (MADV_PAGEOUT): a store made after the second madvise() returned must have dirtied the page, else reclaim discards it with the page and it is a lost_write. Rounds race as nested-dontneed's, the walk's passing seen in the page's flags (/proc/kpageflags) and the round's reclaim seen to discard a clean page. Needs root and MADV_PAGEOUT (Linux 5.4). Plain run-scenario madvise --variant nested-free lost a write in 10 of 10 runs on a kernel with the fix it hunts reverted (the first 71-172 ms in, median 92 ms, 2-node TCG guest) and none, conclusive in 10 of 10, with it in (scripts/mutant-proof)",
		.forbidden_on = MMT_ARCH_ALL, .family = MMT_FAMILY_KERNEL,
		.hunts = "99baac21e458 mm: fix MADV_[FREE|DONTNEED] TLB flush miss problem" },
	[V_NESTED_FREE_FLUSHED] = { .name = "nested-free-flushed",
		.help = "control: as nested-free, and the second thread then zaps the page with MADV_DONTNEED, which clears a present PTE and so flushes it from every CPU: no lost write even on a kernel without 99baac21e458's forced flush. Needs root and MADV_PAGEOUT",
		.forbidden_on = MMT_ARCH_ALL, .family = MMT_FAMILY_KERNEL },
	[V_BROKEN_LOST] = { .name = "broken-lost",
		.help = "fault injection: the writer stores each round's value to a page of its own instead of the target; every round must be reported as a lost_write, exactly",
		.injected = true, .family = MMT_FAMILY_INJECTED },
	[V_BROKEN_FREE] = { .name = "broken-free",
		.help = "fault injection for the FREE variants' checker: as nested-free, and the writer makes the target clean again after its tag (a MADV_FREE of its own, with its flush), so the round's reclaim discards it: every judged round must be reported as a lost_write, its check page discarded. Needs root and MADV_PAGEOUT",
		.injected = true, .family = MMT_FAMILY_INJECTED },
};

static const struct mmt_option options[NR_OPTIONS] = {
	[OPT_PAGES] = { "pages", "pages the first zapper zaps per round, the target first: its walk past the target's page table is the window",
		4096, 1024, MA_MAX_PAGES },
	[OPT_TARGET_RACED] = { "target-raced", "stop once this many rounds raced (the second zapper returned, and the writer stored, while the first zapper's call ran; 0: the duration, or without one 64)",
		0, 0, UINT64_MAX },
	[OPT_SECOND_AFTER_FIRST] = { "second-after-first", "1: the second zapper waits for the first zapper's call to return before its own, a line-up that cannot race, to check that the evidence says so",
		0, 0, 1 },
};

static const char *const outcome_names[NR_OUTCOMES] = { "kept", "lost_write" };

/* ---- memory -------------------------------------------------------------- */

#define MA_ALIGN (2ul << 20)

/*
 * len bytes of private anonymous memory inside a PROT_NONE reservation, a
 * page larger each side (no neighbour merges with it), at an align
 * boundary: the target starts a page table of its own.
 */
static char *map_guarded(size_t len, size_t align, size_t psz, char **reserve, size_t *reserve_len)
{
	char *at;

	*reserve_len = len + align + 2 * psz;
	*reserve = mmap(NULL, *reserve_len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (*reserve == MAP_FAILED) {
		*reserve = NULL;
		return NULL;
	}
	at = (char *)(((uintptr_t)*reserve + psz + align - 1) / align * align);
	if (mmap(at, len, PROT_READ | PROT_WRITE, MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == MAP_FAILED)
		return NULL;
	madvise(at, len, MADV_NOHUGEPAGE);
	return at;
}

static int map_memory(struct ma_priv *p)
{
	p->region_len = (size_t)p->pages * p->psz;
	p->region = map_guarded(p->region_len, MA_ALIGN, p->psz, &p->reserve, &p->reserve_len);
	if (!p->region)
		return -1;
	if (p->variant == V_BROKEN_LOST) {
		p->shadow = mmap(NULL, p->psz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p->shadow == MAP_FAILED) {
			p->shadow = NULL;
			return -1;
		}
	}
	/* MADV_POPULATE_WRITE (5.14) or a store per page: either works. */
	p->populate_write = !madvise(p->region, p->region_len, MADV_POPULATE_WRITE);
	return 0;
}

static void unmap_memory(struct ma_priv *p)
{
	if (p->reserve)
		munmap(p->reserve, p->reserve_len);
	if (p->shadow)
		munmap(p->shadow, p->psz);
}

/*
 * The FREE variants' needs: MADV_FREE, MADV_PAGEOUT, and the page flags
 * that show the walk passing (root: /proc/self/pagemap hides frames from
 * others).  NULL, or why the run cannot have them.
 */
static const char *free_evidence(struct ma_priv *p)
{
	uint64_t e = 0;

	if (madvise(p->region, p->psz, MADV_FREE))
		return "needs MADV_FREE (Linux 4.5)";
	if (madvise(p->region, p->psz, MADV_PAGEOUT))
		return "needs MADV_PAGEOUT (Linux 5.4): the round's reclaim of the target";
	p->pagemap_fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	p->kpageflags_fd = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
	if (p->pagemap_fd < 0 || p->kpageflags_fd < 0)
		return "needs /proc/self/pagemap and /proc/kpageflags (root, CONFIG_PROC_PAGE_MONITOR): the target's flags show the walk passing it";
	WRITE_ONCE(p->region[64], 1);
	if (mmt_pagemap_read(p->pagemap_fd, p->region, p->psz, &e) || !(e & MMT_PM_PFN_MASK))
		return "needs root: /proc/self/pagemap shows page frames only to CAP_SYS_ADMIN";
	return NULL;
}

static int madvise_prepare(struct mmt_run *run)
{
	struct ma_priv *p = calloc(1, sizeof(*p));

	if (!p)
		return -1;
	run->priv = p;
	p->run = run;
	p->pagemap_fd = p->kpageflags_fd = -1;
	p->variant = (int)(run->variant - ma_variants);
	p->hunt.first_rule = "first lost write";
	p->hunt.premise_rule = "rounds raced";
	p->hunt.target_option = "--target-raced";
	p->hunt.target = run->opt[OPT_TARGET_RACED];
	p->psz = (size_t)sysconf(_SC_PAGESIZE);
	p->pages = (unsigned)run->opt[OPT_PAGES];
	p->zapper_cpu = -1;
	p->ctl = mmt_alloc_lines(sizeof(*p->ctl));
	p->second = mmt_alloc_lines(sizeof(*p->second));
	p->writer = mmt_alloc_lines(sizeof(*p->writer));
	if (!p->ctl || !p->second || !p->writer || map_memory(p))
		return -1;
	p->second->cpu = -1;
	if (ma_frees(p->variant)) {
		const char *why = free_evidence(p);

		if (why)
			mmt_run_skip(run, "%s", why);
	}
	/* The writer's bound, in the cycles it can read without a system call. */
	p->writer->bound_cycles = (uint64_t)((double)MA_IDLE_WAIT_NS * (run->cycles_per_ns > 0 ? run->cycles_per_ns : 1));
	/* Two workers: the second zapper is the first's thread, on its CPU. */
	p->second_threaded = run->nr_workers < 3;
	mmt_hunt_prepared(&p->hunt);
	return 0;
}

static void first_zapper(struct ma_priv *p, struct mmt_worker *w)
{
	int err = 0;

	w->role = "zapper";
	/* Created here, it inherits this worker's CPU. */
	if (p->second_threaded)
		err = pthread_create(&p->second_thread, NULL, ma_second_thread, p);
	if (err) {
		mmt_hunt_fail(&p->hunt, "starting the second zapper", err);
		p->second_threaded = false;
		WRITE_ONCE(p->ctl->stop, 1);
		return;
	}
	ma_first_zapper(p, w);
	if (p->second_threaded)
		pthread_join(p->second_thread, NULL);
}

static void madvise_worker(struct mmt_worker *w)
{
	struct ma_priv *p = w->run->priv;

	if (w->id == 0) {
		first_zapper(p, w);
	} else if (w->id == 1) {
		w->role = "writer";
		mmt_worker_at(w, "storing to the target");
		ma_writer_main(p);
		w->ops = p->writer->stores;
	} else {
		w->role = "second zapper";
		mmt_worker_at(w, "zapping the target");
		ma_second_zapper(p);
		w->ops = p->second->calls;
	}
}

/* ---- results ------------------------------------------------------------- */

static const struct mmt_field witness_fields[] = {
	MMT_FIELD(struct ma_witness, round, MMT_F_COUNT),
	MMT_FIELD(struct ma_witness, stored, MMT_F_HEX),
	MMT_FIELD(struct ma_witness, found, MMT_F_HEX),
	MMT_FIELD(struct ma_witness, writer_cpu, MMT_F_INT),
	MMT_FIELD(struct ma_witness, zapper_cpu, MMT_F_INT),
	MMT_FIELD(struct ma_witness, second_cpu, MMT_F_INT),
	MMT_FIELD(struct ma_witness, raced, MMT_F_BOOL),
};
static const struct mmt_shape witness_shape = MMT_SHAPE(struct ma_witness, witness_fields);

/* A run that found nothing proves nothing unless a round raced. */
static void judge(struct mmt_run *run, const struct ma_priv *p)
{
	if (p->hunt.error[0])
		mmt_run_inconclusive(run, "%s", p->hunt.error);
	else if (p->writer->stuck || p->second->stuck)
		mmt_run_inconclusive(run, "the %s waited more than %llu s for the next round",
			     p->writer->stuck ? "writer" : "second zapper",
			     (unsigned long long)(MA_IDLE_WAIT_NS / 1000000000ull));
	else if (p->hunt.wait_timeouts)
		mmt_run_inconclusive(run, "the first zapper gave up waiting for %s", p->hunt.wait_timeout_what);
	else if (!p->hunt.rounds)
		mmt_run_inconclusive(run, "no round was made");
	else if (run->variant->injected)
		return;
	else if (!p->hunt.premise && ma_frees(p->variant) && !p->discarded)
		mmt_run_inconclusive(run, "no round raced: the round's reclaim (MADV_PAGEOUT) discarded the clean check page in none of %llu rounds, so it could not have discarded the target",
			     (unsigned long long)p->hunt.rounds);
	else if (!p->hunt.premise)
		mmt_run_inconclusive(run, "no round raced: the second zapper's madvise() and the writer's store did not both come while the first zapper's walk ran (%llu rounds: %llu with the target read out only after the first zapper returned, %llu with the walk ended before the store, %llu void: %llu the second zapper's wait gave up, %llu the target not present before the zap)",
			     (unsigned long long)p->hunt.rounds, (unsigned long long)p->late,
			     (unsigned long long)p->walk_done,
			     (unsigned long long)(p->void_rounds + p->not_resident), (unsigned long long)p->void_rounds,
			     (unsigned long long)p->not_resident);
}

static const char *line_up(const struct ma_priv *p)
{
	return p->second_threaded ? "the second zapper shares the first zapper's CPU" : "each actor on its own CPU";
}

/* What the rounds were and whether they raced. */
static void round_metrics(struct mmt_run *run, const struct ma_priv *p)
{
	mmt_put_count(run, "pages", p->pages);
	mmt_put_count(run, "page_size", p->psz);
	mmt_put_text(run, "line_up", line_up(p));
	mmt_put_text(run, "populate", p->populate_write ? "MADV_POPULATE_WRITE" : "a store per page");
	mmt_put_count(run, "rounds", p->hunt.rounds);
	mmt_put_count(run, "rounds_raced", p->hunt.premise);
	mmt_put_count(run, "rounds_seen_late", p->late);
	mmt_put_count(run, "rounds_walk_done", p->walk_done);
	mmt_put_count(run, "rounds_void", p->void_rounds);
	mmt_put_count(run, "rounds_not_present", p->not_resident);
	mmt_put_count(run, "rounds_discarded", ma_frees(p->variant) ? p->discarded : MMT_NONE);
	mmt_put_count(run, "rounds_frame_moved", ma_frees(p->variant) ? p->moved : MMT_NONE);
	mmt_put_real(run, "zap_mean_us", p->hunt.rounds ? (double)p->zap_ns_sum / (double)p->hunt.rounds / 1000 : NAN);
	mmt_put_count(run, "writer_stores", p->writer->stores);
	mmt_put_count(run, "window_stores", p->writer->window_stores);
}

/* What was found, how soon, and what ended the run. */
static void finding_metrics(struct mmt_run *run, const struct ma_priv *p)
{
	mmt_put_count(run, "lost_writes", p->outcomes[OUT_LOST]);
	mmt_put_count(run, "injected_lost_stores",
		      p->variant == V_BROKEN_LOST || p->variant == V_BROKEN_FREE ? p->writer->injected : MMT_NONE);
	mmt_put_list(run, "first_lost", p->first, p->nr_first);
	mmt_hunt_metrics(run, &p->hunt, "lost", "raced");
	mmt_put_count(run, "writer_stuck", p->writer->stuck);
	mmt_put_count(run, "second_stuck", p->second->stuck);
}

static void put_metrics(struct mmt_run *run, const void *priv)
{
	round_metrics(run, priv);
	finding_metrics(run, priv);
}

static void madvise_verify(struct mmt_run *run)
{
	struct ma_priv *p = run->priv;

	mmt_hunt_record(run, &p->hunt, p->outcomes, sizeof(p->outcomes), put_metrics, p);
	/* Findings are conclusive by themselves. */
	if (!p->outcomes[OUT_LOST])
		judge(run, p);
}

static void madvise_cleanup(struct mmt_run *run)
{
	struct ma_priv *p = run->priv;

	if (!p)
		return;
	unmap_memory(p);
	if (p->pagemap_fd >= 0)
		close(p->pagemap_fd);
	if (p->kpageflags_fd >= 0)
		close(p->kpageflags_fd);
	free(p->ctl);
	free(p->second);
	free(p->writer);
	free(p);
	run->priv = NULL;
}

static const struct mmt_metric metrics[] = {
	MMT_COUNT_ROW("pages", "pages", "pages the first zapper zaps per round, the target first"),
	MMT_COUNT_ROW("page_size", "bytes", "the page size"),
	{ "line_up", MMT_METRIC_TEXT, "", MMT_BETTER_NEUTRAL, false,
	  "where the actors ran: each on its own CPU, or the second zapper on the first zapper's (two workers)", NULL },
	{ "populate", MMT_METRIC_TEXT, "", MMT_BETTER_NEUTRAL, false,
	  "how the pages are made present each round: MADV_POPULATE_WRITE, or a store per page where the kernel lacks it",
	  NULL },
	MMT_COUNT_ROW("rounds", "rounds", "rounds made: populate, both zaps, the writer's store after the second (FREE: and the reclaim)"),
	MMT_COUNT_ROW("rounds_raced", "rounds",
	      "rounds whose second zap saw the target cleared (FREE: lazily freed) mid-walk and returned, and whose writer's store was visible, before the first zapper's walk ended (FREE: and whose reclaim discarded the clean check page): the race's premise"),
	MMT_COUNT_ROW("rounds_seen_late", "rounds", "rounds whose second zapper read the target out only after the first zapper returned: judged, cannot race"),
	MMT_COUNT_ROW("rounds_walk_done", "rounds", "rounds whose first zapper's walk had reached the region's last page when the writer's store was visible: judged, no evidence"),
	MMT_COUNT_ROW("rounds_void", "rounds", "rounds whose second zapper's wait for the target gave up (FREE: or found it unmarked once the first zapper had returned, the signal failing): it zapped nothing, not judged"),
	MMT_COUNT_ROW("rounds_not_present", "rounds", "rounds whose target was not present before the first zap: not judged"),
	MMT_MAYBE_ROW("rounds_discarded", MMT_METRIC_COUNT, "rounds",
	      "the FREE variants: judged rounds whose reclaim discarded the clean check page (it could discard the target: part of the premise); null otherwise"),
	MMT_MAYBE_ROW("rounds_frame_moved", MMT_METRIC_COUNT, "rounds",
	      "the FREE variants: void rounds whose target had left the frame whose flags were read (migrated), found once they showed the walk passing; null otherwise"),
	{ "zap_mean_us", MMT_METRIC_REAL, "us", MMT_BETTER_NEUTRAL, false, "mean first zapper's madvise() of the region", NULL },
	MMT_COUNT_ROW("writer_stores", "stores", "the writer's stores to the target"),
	MMT_COUNT_ROW("window_stores", "stores", "stores to the target before the second zapper returned (while the zaps ran)"),
	MMT_COUNT_ROW("lost_writes", "stores", "stores after the second zapper returned that the target did not hold, in a judged round: the finding"),
	MMT_MAYBE_ROW("injected_lost_stores", MMT_METRIC_COUNT, "stores",
	      "broken-lost: the stores made to the writer's own page instead of the target; broken-free: the tags made clean again; null otherwise"),
	{ "first_lost", MMT_METRIC_LIST, "", MMT_BETTER_NEUTRAL, false,
	  "the first lost writes: round, value stored and found, CPUs, whether the round raced", &witness_shape },
	MMT_HUNT_ROWS("lost", "raced", "lost write"),
	MMT_COUNT_ROW("writer_stuck", "threads", "1 when the writer waited past its bound for the next round"),
	MMT_COUNT_ROW("second_stuck", "threads", "1 when the second zapper waited past its bound for the next round"),
	MMT_MAYBE_ROW("error", MMT_METRIC_TEXT, "", "a madvise(), mincore(), page-flag read or thread start failing, and why"),
	MMT_SHAPED_ROW("mutant", "the mutant kernel's counters during the run; null on another kernel", mmt_mutant_shape),
};

/* In a few words (at most 18 characters, as mmrace's), what the run says
 * of the kernel, following its status. */
static void madvise_words(const json_t *run, char *buf, size_t len)
{
	static const struct mmt_hunt_words w = {
		.found = "lost: no fix",
		.premise = "rounds_raced",
		.no_premise = "no round raced",
		.kept = "raced: kept",
	};

	mmt_hunt_words(run, &w, buf, len);
}

static void madvise_describe(const json_t *run, char *buf, size_t len)
{
	const json_t *m = json_object_get(run, "metrics");
	char words[64];

	madvise_words(run, words, sizeof(words));
	snprintf(buf, len, "%s%sraced %lld of %lld rounds, lost %lld, zap %.0fus", words, words[0] ? "; " : "",
		 mmt_metric_int(m, "rounds_raced"), mmt_metric_int(m, "rounds"), mmt_metric_int(m, "lost_writes"),
		 json_number_value(json_object_get(m, "zap_mean_us")));
}

static const struct mmt_scenario madvise_scenario = {
	.name = "madvise",
	.help = "two threads' MADV_DONTNEED of one page racing a writer on another CPU, every store made after both calls returned checked: stores lost through a TLB entry the second call left behind caught, the race proven run",
	MMT_TABLE(variants, ma_variants),
	MMT_TABLE(options, options),
	.min_threads = 2,
	.default_threads = 3,
	.default_threads_fit = true,
	.max_threads = 3,
	.default_duration_ns = MA_DEFAULT_BOUND_NS,
	MMT_TABLE(outcomes, outcome_names),
	.ops_unit = "rounds",
	MMT_TABLE(metrics, metrics),
	.extra_events = "tlb:tlb_flush",
	.prepare = madvise_prepare,
	.worker = madvise_worker,
	.verify = madvise_verify,
	.cleanup = madvise_cleanup,
	.describe = madvise_describe,
};
MMT_SCENARIO(madvise_scenario);
