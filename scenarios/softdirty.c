/* SPDX-License-Identifier: MIT */
/*
 * softdirty: writes the soft-dirty tracker never sees.  Writing "4" to
 * /proc/PID/clear_refs clears every PTE's soft-dirty bit and
 * write-protects it, so that the next store faults and the kernel sets
 * the bit again (CRIU's incremental dumps copy only such pages).  Kernel
 * commit 912efa17e512 added the flush_tlb_mm() after the walk: without it
 * a CPU still holding a writable TLB entry for a page keeps storing
 * through it without a fault, and a store made after clear_refs returned
 * is invisible to the tracker.  The detector needs user-space evidence
 * only: pagemap's soft-dirty bit (bit 55, readable without root).
 *
 * Actors (softdirty-actors.c): worker 0 is the tracker, workers 1.. are
 * writers, each owning one word of every page (a line pair of its own).
 * Per clear n the tracker publishes epoch 2n-1, writes clear_refs,
 * publishes 2n and waits for every writer to acknowledge n: a writer
 * stores to all its words while a clear runs and, on seeing 2n, once
 * more, then acknowledges and stays quiet.  The tracker then reads
 * pagemap: a page whose bit is clear although a writer stored to it after
 * seeing 2n is an untracked_write (one per page and writer), a finding.
 *
 * Evidence that can be false: a clear raced (clears_raced) only if a
 * writer on another CPU than the tracker's stored to the pages, the epoch
 * reading "clearing" before and after its stores, sched_getcpu() the same
 * around them, their span overlapping the clear_refs call.  A run with no
 * raced clear is INCONCLUSIVE, saying which premise failed.  Memory is
 * private anonymous, MADV_NOHUGEPAGE (a PMD-mapped THP takes another
 * path, clear_soft_dirty_pmd()), every page touched first, between guard
 * pages so that no neighbour merges with it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "arch/barrier.h"
#include "clock.h"
#include "metrics.h"
#include "softdirty.h"

const struct mmt_variant sd_variants[NR_VARIANTS] = {
	[V_CLEAR_REFS] = { .name = "clear-refs",
		.help = "the tracker writes 4 to /proc/self/clear_refs while writers on other CPUs store to every page; a page pagemap reads clean although a writer stored to it after the write returned is an untracked_write. Without --duration it runs until its first untracked write or 64 clears raced (a writer on another CPU stored while clear_refs ran), at most 2 minutes. Plain run-scenario softdirty --variant clear-refs found untracked writes in 10 of 10 runs on a kernel with the fix it hunts reverted (the first 0.6-1.6 ms in, 2-node TCG guest) and none, conclusive in 10 of 10, with it in (scripts/mutant-proof). Needs CONFIG_MEM_SOFT_DIRTY",
		.forbidden_on = MMT_ARCH_ALL, .family = MMT_FAMILY_KERNEL,
		.hunts = "912efa17e512 mm: proc: Invalidate TLB after clearing soft-dirty page state" },
	[V_CLEAR_REFS_REPROTECT] = { .name = "clear-refs-reprotect",
		.help = "control: as clear-refs, and after each clear_refs write the tracker mprotects the pages read-write-exec and back before announcing it (the NX flip flushes every CPU's entries; the PTEs stay write-protected while soft-dirty is clear): no untracked write even on a kernel without 912efa17e512's flush",
		.forbidden_on = MMT_ARCH_ALL, .family = MMT_FAMILY_KERNEL },
	[V_BROKEN_UNTRACKED] = { .name = "broken-untracked",
		.help = "fault injection: the pages are a memfd mapped twice and the writers store through the second mapping, whose PTEs are not the ones the tracker reads; every store after a clear must be reported as an untracked_write, exactly",
		.injected = true, .family = MMT_FAMILY_INJECTED },
};

static const struct mmt_option options[NR_OPTIONS] = {
	[OPT_PAGES] = { "pages", "pages every writer stores to and the tracker reads pagemap for, each cleared and judged per clear",
		64, 1, 65536 },
	[OPT_TARGET_RACED] = { "target-raced", "stop once this many clears raced (a writer on another CPU stored while clear_refs ran; 0: the duration, or without one 64)",
		0, 0, UINT64_MAX },
};

static const char *const outcome_names[NR_OUTCOMES] = { "tracked", "untracked_write", "lost_write" };

/* ---- memory -------------------------------------------------------------- */

/*
 * The region inside a PROT_NONE reservation a page larger each side: a
 * mapping of its own that merges with no neighbour (a merged VMA could
 * take a neighbour's VM_SOFTDIRTY, and mprotect would split it).
 * broken-untracked: a memfd, mapped there and again at p->alias.
 */
static int map_region(struct sd_priv *p)
{
	const bool twice = p->variant == V_BROKEN_UNTRACKED;
	const int flags = MAP_FIXED | (twice ? MAP_SHARED : MAP_PRIVATE | MAP_ANONYMOUS);

	p->region_len = (size_t)p->pages * p->psz;
	p->reserve_len = p->region_len + 2 * p->psz;
	p->reserve = mmap(NULL, p->reserve_len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p->reserve == MAP_FAILED) {
		p->reserve = NULL;
		return -1;
	}
	p->region = p->reserve + p->psz;
	if (twice) {
		p->memfd = memfd_create("mmtorture-softdirty", MFD_CLOEXEC);
		if (p->memfd < 0 || ftruncate(p->memfd, (off_t)p->region_len))
			return -1;
		p->alias = mmap(NULL, p->region_len, PROT_READ | PROT_WRITE, MAP_SHARED, p->memfd, 0);
		if (p->alias == MAP_FAILED) {
			p->alias = NULL;
			return -1;
		}
		madvise(p->alias, p->region_len, MADV_NOHUGEPAGE);
	}
	if (mmap(p->region, p->region_len, PROT_READ | PROT_WRITE, flags, twice ? p->memfd : -1, 0) == MAP_FAILED)
		return -1;
	madvise(p->region, p->region_len, MADV_NOHUGEPAGE);
	/* Every page present: a PTE for clear_refs to clear and pagemap to read. */
	memset(p->region, 0, p->region_len);
	if (twice)
		memset(p->alias, 0, p->region_len);
	return 0;
}

static void unmap_region(struct sd_priv *p)
{
	if (p->reserve)
		munmap(p->reserve, p->reserve_len);
	if (p->alias)
		munmap(p->alias, p->region_len);
	if (p->memfd >= 0)
		close(p->memfd);
}

static int setup_writers(struct sd_priv *p)
{
	p->ws = mmt_alloc_lines(p->nwriters * sizeof(*p->ws));
	if (!p->ws)
		return -1;
	for (unsigned w = 0; w < p->nwriters; w++) {
		struct sd_writer *ws = &p->ws[w];

		ws->words = calloc(p->pages, sizeof(*ws->words));
		ws->ledger = calloc(p->pages, sizeof(*ws->ledger));
		if (!ws->words || !ws->ledger)
			return -1;
		/* broken-untracked: through the second mapping, always: no
		 * store of theirs ever reaches the PTEs the tracker reads. */
		for (unsigned pg = 0; pg < p->pages; pg++)
			ws->words[pg] = sd_word(p, p->alias ? p->alias : p->region, pg, w);
	}
	return 0;
}

/* ---- the probe ----------------------------------------------------------- */

static uint64_t pagemap_entry(int fd, size_t psz, const void *addr)
{
	uint64_t e;

	return mmt_pagemap_read(fd, addr, psz, &e) ? 0 : e;
}

static void __attribute__((format(printf, 2, 3))) unavailable(struct sd_priv *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->why, sizeof(p->why), fmt, ap);
	va_end(ap);
	p->unavailable = p->why;
}

/*
 * Whether soft-dirty works here, whatever the config says (it may be
 * unreadable): a page read in (the zero page: no writable TLB entry on any
 * CPU, so even a kernel without the flush hunted here cannot fool this),
 * cleared, must read clean; then stored to, dirty.
 */
static void probe_soft_dirty(struct sd_priv *p)
{
	volatile char *pg = mmap(NULL, p->psz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t e;

	if (pg == MAP_FAILED) {
		unavailable(p, "no page for the probe: %s", strerror(errno));
		return;
	}
	(void)pg[0];
	if (pwrite(p->clear_fd, "4", 1, 0) != 1) {
		unavailable(p, "writing 4 to /proc/self/clear_refs: %s", strerror(errno));
		goto out;
	}
	e = pagemap_entry(p->pagemap_fd, p->psz, (const void *)pg);
	if (e & MMT_PM_SOFT_DIRTY) {
		unavailable(p, "pagemap bit 55 (soft-dirty) still set after clear_refs 4 (entry 0x%016llx)",
			    (unsigned long long)e);
		goto out;
	}
	pg[0] = 1;
	e = pagemap_entry(p->pagemap_fd, p->psz, (const void *)pg);
	if (!(e & MMT_PM_SOFT_DIRTY))
		unavailable(p, "a store after clear_refs 4 left pagemap bit 55 clear (entry 0x%016llx): this kernel does not track soft-dirty (CONFIG_MEM_SOFT_DIRTY)",
			    (unsigned long long)e);
out:
	munmap((void *)pg, p->psz);
}

/* The files the tracker uses, and the probe; without soft-dirty (a
 * missing file is that) the run is skipped with the reason. */
static void open_files(struct sd_priv *p)
{
	p->clear_fd = open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
	p->pagemap_fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (p->clear_fd < 0)
		unavailable(p, "/proc/self/clear_refs: %s", strerror(errno));
	else if (p->pagemap_fd < 0)
		unavailable(p, "/proc/self/pagemap: %s", strerror(errno));
	else
		probe_soft_dirty(p);
}

static int softdirty_prepare(struct mmt_run *run)
{
	struct sd_priv *p = calloc(1, sizeof(*p));

	if (!p)
		return -1;
	run->priv = p;
	p->run = run;
	p->memfd = p->clear_fd = p->pagemap_fd = -1;
	p->variant = (int)(run->variant - sd_variants);
	p->psz = (size_t)sysconf(_SC_PAGESIZE);
	p->pages = (unsigned)run->opt[OPT_PAGES];
	p->nwriters = run->nr_workers - 1;
	if (p->nwriters > SD_MAX_WRITERS || p->nwriters * SD_WORD_STRIDE > p->psz) {
		fprintf(stderr, "mmtorture: softdirty: %u writers do not fit a page's words\n", p->nwriters);
		return -1;
	}
	p->ctl = mmt_alloc_lines(sizeof(*p->ctl));
	p->pm = calloc(p->pages, sizeof(*p->pm));
	if (!p->ctl || !p->pm || map_region(p) || setup_writers(p))
		return -1;
	open_files(p);
	/* Only trying tells: the config may be unreadable, or claim it. */
	if (p->unavailable)
		mmt_run_skip(run, "soft-dirty does not work here: %s", p->unavailable);
	p->hunt.first_rule = "first untracked or lost write";
	p->hunt.premise_rule = "clears raced";
	p->hunt.target_option = "--target-raced";
	p->hunt.target = run->opt[OPT_TARGET_RACED];
	p->hunt.round_word = "clears";
	mmt_hunt_prepared(&p->hunt);
	return 0;
}

static void softdirty_worker(struct mmt_worker *w)
{
	struct sd_priv *p = w->run->priv;

	if (w->id == 0) {
		w->role = "tracker";
		sd_tracker(p, w);
	} else {
		w->role = "writer";
		mmt_worker_at(w, "storing");
		sd_writer_main(p, w->id - 1);
		w->ops = p->ws[w->id - 1].stores;
	}
}

/* ---- results ------------------------------------------------------------- */

static const struct mmt_field witness_fields[] = {
	MMT_FIELD(struct sd_witness, kind, MMT_F_TEXT),
	MMT_FIELD(struct sd_witness, page, MMT_F_COUNT),
	MMT_FIELD(struct sd_witness, writer, MMT_F_COUNT),
	MMT_FIELD(struct sd_witness, iteration, MMT_F_COUNT),
	MMT_FIELD(struct sd_witness, stored, MMT_F_HEX),
	MMT_FIELD(struct sd_witness, found, MMT_F_HEX),
	MMT_FIELD(struct sd_witness, pagemap, MMT_F_HEX),
	MMT_FIELD(struct sd_witness, writer_cpu, MMT_F_INT),
	MMT_FIELD(struct sd_witness, tracker_cpu, MMT_F_INT),
};
static const struct mmt_shape witness_shape = MMT_SHAPE(struct sd_witness, witness_fields);

/* The writers' counts, summed. */
struct sd_totals {
	uint64_t stores, window_stores, after_clear, injected, stuck;
};

static struct sd_totals sum_writers(const struct sd_priv *p)
{
	struct sd_totals t = { 0 };

	for (unsigned w = 0; w < p->nwriters; w++) {
		const struct sd_writer *ws = &p->ws[w];

		t.stores += ws->stores;
		t.window_stores += ws->window_stores;
		t.after_clear += ws->stores_after_clear;
		t.injected += ws->injected;
		t.stuck += ws->stuck;
	}
	return t;
}

/* A run that found nothing proves nothing unless a clear raced. */
static void judge(struct mmt_run *run, const struct sd_priv *p, const struct sd_totals *t)
{
	if (p->hunt.error[0])
		mmt_run_inconclusive(run, "%s", p->hunt.error);
	else if (t->stuck)
		mmt_run_inconclusive(run, "%llu writer(s) waited more than %llu s for the tracker's next clear",
			     (unsigned long long)t->stuck, (unsigned long long)(SD_WRITER_WAIT_NS / 1000000000ull));
	else if (p->hunt.wait_timeouts)
		mmt_run_inconclusive(run, "the tracker gave up waiting for %s", p->hunt.wait_timeout_what);
	else if (!p->hunt.rounds)
		mmt_run_inconclusive(run, "no clear was made");
	else if (run->variant->injected)
		return;
	else if (!p->hunt.premise)
		mmt_run_inconclusive(run, "no writer on another CPU than the tracker's stored to the pages while clear_refs ran (%llu clears: %llu with a writer on the tracker's CPU only, %llu with no store spanning the call, %llu with a CPU that moved)",
			     (unsigned long long)p->hunt.rounds, (unsigned long long)p->same_cpu,
			     (unsigned long long)p->no_store, (unsigned long long)p->cpu_moved);
}

/* What the clears were and whether they raced. */
static void clear_metrics(struct mmt_run *run, const struct sd_priv *p, const struct sd_totals *t)
{
	mmt_put_count(run, "writers", p->nwriters);
	mmt_put_count(run, "pages", p->pages);
	mmt_put_count(run, "page_size", p->psz);
	mmt_put_text(run, "soft_dirty", p->unavailable ? p->unavailable : "works");
	mmt_put_count(run, "clears", p->hunt.rounds);
	mmt_put_count(run, "clears_raced", p->hunt.premise);
	mmt_put_count(run, "clears_same_cpu", p->same_cpu);
	mmt_put_count(run, "clears_no_store", p->no_store);
	mmt_put_count(run, "clears_cpu_moved", p->cpu_moved);
	mmt_put_real(run, "clear_mean_us", p->clear_ns_ema / 1000);
	mmt_put_count(run, "reprotects", p->reprotects);
	mmt_put_count(run, "stores", t->stores);
	mmt_put_count(run, "window_stores", t->window_stores);
	mmt_put_count(run, "stores_after_clear", t->after_clear);
}

/* What was judged and found, how soon, and what ended the run. */
static void finding_metrics(struct mmt_run *run, struct sd_priv *p, const struct sd_totals *t)
{
	mmt_put_count(run, "pages_checked", p->pages_checked);
	mmt_put_count(run, "pages_unjudged", p->pages_unjudged);
	mmt_put_count(run, "untracked_writes", p->outcomes[OUT_UNTRACKED]);
	mmt_put_count(run, "lost_writes", p->outcomes[OUT_LOST]);
	mmt_put_count(run, "injected_untracked_stores", p->variant == V_BROKEN_UNTRACKED ? t->injected : MMT_NONE);
	mmt_put_list(run, "first_untracked", p->first, p->nr_first);
	/* time_to_first_untracked_ms, clears_to_first_untracked,
	 * raced_to_first_untracked, ended_by, wait_timeouts, wait_timeout, error */
	mmt_hunt_metrics(run, &p->hunt, "untracked", "raced");
	mmt_put_count(run, "writers_stuck", t->stuck);
}

static void put_metrics(struct mmt_run *run, const void *priv)
{
	struct sd_priv *p = (struct sd_priv *)priv;
	const struct sd_totals t = sum_writers(p);

	/* The run's ops stay the writers' stores, not the clears (the hunt's
	 * rounds): what stored baselines of softdirty compare. */
	run->ops = t.stores;
	clear_metrics(run, p, &t);
	finding_metrics(run, p, &t);
}

static const char *const config_needed[] = { "CONFIG_MEM_SOFT_DIRTY", NULL };

static void softdirty_verify(struct mmt_run *run)
{
	struct sd_priv *p = run->priv;
	const struct sd_totals t = sum_writers(p);

	mmt_hunt_record(run, &p->hunt, p->outcomes, sizeof(p->outcomes), put_metrics, p);
	mmt_kernel_config(config_needed, &p->config);
	if (p->config.found)
		mmt_put_map(run, "kernel_config", p->config.e, p->config.n);
	else
		mmt_put_null(run, "kernel_config");
	/* Findings are conclusive by themselves. */
	if (!p->outcomes[OUT_UNTRACKED] && !p->outcomes[OUT_LOST])
		judge(run, p, &t);
}

static void softdirty_cleanup(struct mmt_run *run)
{
	struct sd_priv *p = run->priv;

	if (!p)
		return;
	unmap_region(p);
	if (p->clear_fd >= 0)
		close(p->clear_fd);
	if (p->pagemap_fd >= 0)
		close(p->pagemap_fd);
	for (unsigned w = 0; p->ws && w < p->nwriters; w++) {
		free(p->ws[w].words);
		free(p->ws[w].ledger);
	}
	free(p->ws);
	free(p->pm);
	free(p->ctl);
	free(p);
	run->priv = NULL;
}

static const struct mmt_metric metrics[] = {
	MMT_COUNT_ROW("writers", "threads", "writer threads"),
	MMT_COUNT_ROW("pages", "pages", "pages every writer stores to and the tracker judges per clear"),
	MMT_COUNT_ROW("page_size", "bytes", "the page size"),
	{ "soft_dirty", MMT_METRIC_TEXT, "", MMT_BETTER_NEUTRAL, false,
	  "\"works\" (the probe: a page read in, cleared, reads clean, then dirty once stored to), else why not", NULL },
	MMT_COUNT_ROW("clears", "clears", "writes of 4 to /proc/self/clear_refs, each judged"),
	MMT_COUNT_ROW("clears_raced", "clears",
	      "clears while a writer on another CPU than the tracker's stored to the pages: the race's premise"),
	MMT_COUNT_ROW("clears_same_cpu", "clears", "clears whose only writer storing during the call was on the tracker's CPU: cannot race"),
	MMT_COUNT_ROW("clears_no_store", "clears", "clears with no writer's stores spanning the call"),
	MMT_COUNT_ROW("clears_cpu_moved", "clears", "clears whose tracker or writer changed CPU around the call: no evidence"),
	{ "clear_mean_us", MMT_METRIC_REAL, "us", MMT_BETTER_NEUTRAL, false, "mean clear_refs write (moving average)", NULL },
	MMT_COUNT_ROW("reprotects", "calls", "clear-refs-reprotect: mprotect pairs (read-write-exec and back) after a clear"),
	MMT_COUNT_ROW("stores", "stores", "the writers' stores"),
	MMT_COUNT_ROW("window_stores", "stores", "stores while a clear ran, epoch and CPU the same around them"),
	MMT_COUNT_ROW("stores_after_clear", "stores", "stores made on seeing a clear returned: each one judged"),
	MMT_COUNT_ROW("pages_checked", "pages", "pagemap entries judged (present or swapped), one per page per clear"),
	MMT_COUNT_ROW("pages_unjudged", "pages", "pagemap entries neither present nor swapped: nothing to say of soft-dirty"),
	MMT_COUNT_ROW("untracked_writes", "stores", "stores after a clear whose page pagemap read clean: the finding"),
	MMT_COUNT_ROW("lost_writes", "stores", "words that did not hold the writer's last store when judged"),
	MMT_MAYBE_ROW("injected_untracked_stores", MMT_METRIC_COUNT, "stores",
	      "broken-untracked: stores after a clear through the second mapping; null otherwise"),
	{ "first_untracked", MMT_METRIC_LIST, "", MMT_BETTER_NEUTRAL, false,
	  "the first untracked (or lost) writes: page, writer, clear, value stored and found, pagemap entry, CPUs",
	  &witness_shape },
	MMT_MAYBE_ROW("time_to_first_untracked_ms", MMT_METRIC_REAL, "ms", "run start to the first untracked write; null without one"),
	MMT_MAYBE_ROW("clears_to_first_untracked", MMT_METRIC_COUNT, "clears", "the clear of the first untracked write"),
	MMT_MAYBE_ROW("raced_to_first_untracked", MMT_METRIC_COUNT, "clears",
	      "raced clears before the first untracked write was judged: what calibrates the default target"),
	{ "ended_by", MMT_METRIC_TEXT, "", MMT_BETTER_NEUTRAL, false,
	  "what ended the run: its own rule (the first untracked or lost write, clears raced, ...), the duration, or a signal",
	  NULL },
	MMT_COUNT_ROW("writers_stuck", "threads", "writers that waited past their bound for the next clear"),
	MMT_COUNT_ROW("wait_timeouts", "waits", "bounded waits of the tracker that gave up"),
	MMT_MAYBE_ROW("wait_timeout", MMT_METRIC_TEXT, "", "what the first wait that gave up waited for"),
	MMT_MAYBE_ROW("error", MMT_METRIC_TEXT, "", "clear_refs, pagemap or mprotect failing, and why"),
	MMT_SHAPED_ROW("mutant", "the mutant kernel's counters during the run; null on another kernel", mmt_mutant_shape),
	MMT_SHAPED_ROW("kernel_config", "CONFIG_MEM_SOFT_DIRTY as the kernel's config says; null when no config is found",
	       mmt_kconfig_shape),
};

/* In a few words (at most 18 characters, as mmrace's), what the run says
 * of the kernel, following its status. */
static void softdirty_words(const json_t *run, char *buf, size_t len)
{
	const json_t *m = json_object_get(run, "metrics");
	const char *status = json_string_value(json_object_get(run, "status"));
	const char *sd = json_string_value(json_object_get(m, "soft_dirty"));

	buf[0] = '\0';
	if (!status)
		return;
	if (!strcmp(status, "witnessed"))
		snprintf(buf, len, "%s", mmt_metric_int(m, "untracked_writes") ? "untracked: no fix" : "lost writes");
	else if (!strcmp(status, "inconclusive"))
		snprintf(buf, len, "%s", sd && strcmp(sd, "works") ? "no soft-dirty"
			 : !mmt_metric_int(m, "clears_raced") ? "no clear raced" : "");
	else if (json_is_true(json_object_get(run, "injected")))
		snprintf(buf, len, "fault injected");
	else if (!strcmp(status, "ok"))
		snprintf(buf, len, "raced: tracked");
}

static void softdirty_describe(const json_t *run, char *buf, size_t len)
{
	const json_t *m = json_object_get(run, "metrics");
	char words[64];

	softdirty_words(run, words, sizeof(words));
	snprintf(buf, len, "%s%sraced %lld of %lld clears, untracked %lld, clear %.0fus", words, words[0] ? "; " : "",
		 mmt_metric_int(m, "clears_raced"), mmt_metric_int(m, "clears"), mmt_metric_int(m, "untracked_writes"),
		 json_number_value(json_object_get(m, "clear_mean_us")));
}

static const struct mmt_scenario softdirty = {
	.name = "softdirty",
	.help = "clear_refs racing writers on other CPUs, every store after a clear checked against pagemap's soft-dirty bit: writes the tracker never saw caught, the race proven run",
	MMT_TABLE(variants, sd_variants),
	MMT_TABLE(options, options),
	.min_threads = 2,
	.default_threads = 2,
	.max_threads = 1 + SD_MAX_WRITERS,
	.default_duration_ns = SD_DEFAULT_BOUND_NS,
	MMT_TABLE(outcomes, outcome_names),
	.ops_unit = "stores",
	MMT_TABLE(metrics, metrics),
	.needs = { .kernel_config = config_needed },
	.extra_events = "tlb:tlb_flush",
	.prepare = softdirty_prepare,
	.worker = softdirty_worker,
	.verify = softdirty_verify,
	.cleanup = softdirty_cleanup,
	.describe = softdirty_describe,
};
MMT_SCENARIO(softdirty);
