/* SPDX-License-Identifier: MIT */
/*
 * mremap: reads through an address mremap() moved away, of a page already
 * freed.  Moving a mapping moves its PTEs one page table at a time; kernel
 * commit eb66ae030829 (CVE-2018-18281) made move_ptes() flush the old
 * addresses' TLB entries before it drops the page table lock.  Before it,
 * a clean PTE's flush came once, after every page table had moved: in
 * between, a file's page could be truncated or punched out through its new
 * address and freed while another CPU still reached it through the old one
 * (a use after free: the freed frame read by that CPU).
 *
 * Actors (mremap-actors.c): worker 0 is the mover, worker 1 the reader,
 * worker 2 the puncher; with two workers the puncher is a thread on the
 * mover's CPU, never the reader's.  A round: the round's value written to
 * a memfd's first page (the target), the memfd mapped at the old place,
 * every page read in (clean PTEs), the reader reading the target through
 * the old address; the mover's mremap(MREMAP_FIXED | MREMAP_DONTUNMAP) to
 * the new place, two 2 MiB offsets that differ by a page so that the
 * kernel moves PTEs, not whole page tables; the puncher's
 * fallocate(PUNCH_HOLE) of the target a little into the call; then 64
 * more reads of the reader, after the punch returned, through the old
 * address (DONTUNMAP keeps the old mapping: a read there faults the file's
 * hole in).  Each must read 0: anything else (the punched page's value, or
 * whatever the freed frame holds now) is a stale_read.
 *
 * Evidence that can be false: a round raced (rounds_raced) only if the
 * punch returned before the mremap() call did, from the second round on
 * (the puncher aims at 30% of the mean call: past the first page table's
 * move, the target's): the target's PTE had moved and the old addresses'
 * flush of a kernel without the fix was still due.  The punch-after-move
 * control punches only once the call returned: no round may race.  A run
 * that found nothing with no raced round is INCONCLUSIVE, saying why.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "clock.h"
#include "metrics.h"
#include "mremap.h"
#include "user-tlb.h"

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif
#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP 4
#endif

const struct mmt_variant mr_variants[NR_VARIANTS] = {
	[V_PUNCH] = { .name = "punch",
		.help = "a reader reads through a memfd mapping's old address while mremap() moves it and the target page is punched out of the memfd (fallocate PUNCH_HOLE) through its new one; a read made after the punch returned that does not read the hole's 0 is a stale_read (of the freed frame). Without --duration it runs until the first stale read or 64 raced rounds (the punch inside the mremap() call), at most 2 minutes. Plain run-scenario mremap --variant punch read a freed frame in 10 of 10 runs on a kernel with the fix it hunts reverted (the first 219-1401 ms in, 2-node TCG guest) and nothing stale, conclusive in 10 of 10, with it in (scripts/mutant-proof). Needs MREMAP_DONTUNMAP of a shared mapping (Linux 5.13)",
		.forbidden_on = MMT_ARCH_ALL, .family = MMT_FAMILY_KERNEL,
		.hunts = "eb66ae030829 mremap: properly flush TLB before releasing the page" },
	[V_PUNCH_AFTER_MOVE] = { .name = "punch-after-move",
		.help = "control: as punch, but the punch comes once the mremap() call returned (its flush done): no round may race (the run is ok with none, and says so if one did), no read is stale, even on a kernel without eb66ae030829",
		.forbidden_on = MMT_ARCH_ALL, .family = MMT_FAMILY_KERNEL },
	[V_BROKEN_STALE] = { .name = "broken-stale",
		.help = "fault injection: the reader's reads after the punch come from a page of its own holding the file's old value instead of the target; each must be reported as a stale_read, exactly",
		.injected = true, .family = MMT_FAMILY_INJECTED },
};

static const struct mmt_option options[NR_OPTIONS] = {
	[OPT_PAGES] = { "pages", "pages of the memfd mapping mremap() moves each round, the target first: the move of the rest is the window",
		4096, 1024, 65536 },
	[OPT_TARGET_RACED] = { "target-raced", "stop once this many rounds raced (the punch returned inside the mremap() call; 0: the duration, or without one 64)",
		0, 0, UINT64_MAX },
};

static const char *const outcome_names[NR_OUTCOMES] = { "fresh", "stale_read" };

/* ---- memory -------------------------------------------------------------- */

#define MR_ALIGN (2ul << 20)

/*
 * Room for both places: the old one 2 MiB aligned, the new one a page past
 * a 2 MiB boundary (so that mremap() cannot move whole page tables, and
 * moves each PTE), a gap between.
 */
static int reserve(struct mr_priv *p)
{
	uintptr_t at;

	p->reserve_len = 2 * p->len + 4 * MR_ALIGN;
	p->reserve = mmap(NULL, p->reserve_len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p->reserve == MAP_FAILED) {
		p->reserve = NULL;
		return -1;
	}
	at = ((uintptr_t)p->reserve + MR_ALIGN - 1) / MR_ALIGN * MR_ALIGN;
	p->old_at = (char *)at;
	at = (at + p->len + MR_ALIGN + MR_ALIGN - 1) / MR_ALIGN * MR_ALIGN;
	p->new_at = (char *)at + p->psz;
	return 0;
}

/* Whether this kernel moves a shared mapping with MREMAP_DONTUNMAP
 * (5.13): NULL, or why not. */
static const char *probe_dontunmap(const struct mr_priv *p)
{
	static char why[160];
	char *a = mmap(NULL, 2 * p->psz, PROT_READ, MAP_SHARED, p->memfd, 0);
	void *r;

	if (a == MAP_FAILED) {
		snprintf(why, sizeof(why), "mapping the memfd: %s", strerror(errno));
		return why;
	}
	r = mremap(a, p->psz, p->psz, MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP, a + p->psz);
	if (r == MAP_FAILED)
		snprintf(why, sizeof(why), "this kernel does not move a shared mapping with MREMAP_DONTUNMAP (Linux 5.13): %s",
			 strerror(errno));
	munmap(a, 2 * p->psz);
	return r == MAP_FAILED ? why : NULL;
}

static int mremap_prepare(struct mmt_run *run)
{
	struct mr_priv *p = calloc(1, sizeof(*p));
	const char *why;

	if (!p)
		return -1;
	run->priv = p;
	p->run = run;
	p->memfd = -1;
	p->variant = (int)(run->variant - mr_variants);
	p->psz = (size_t)sysconf(_SC_PAGESIZE);
	p->pages = (unsigned)run->opt[OPT_PAGES];
	p->len = (size_t)p->pages * p->psz;
	p->mover_cpu = -1;
	p->hunt.first_rule = "first stale read";
	p->hunt.premise_rule = "rounds raced";
	p->hunt.target_option = "--target-raced";
	p->hunt.target = run->opt[OPT_TARGET_RACED];
	p->ctl = mmt_alloc_lines(sizeof(*p->ctl));
	p->puncher = mmt_alloc_lines(sizeof(*p->puncher));
	p->reader = mmt_alloc_lines(sizeof(*p->reader));
	p->memfd = memfd_create("mmtorture-mremap", MFD_CLOEXEC);
	if (!p->ctl || !p->puncher || !p->reader || p->memfd < 0 || ftruncate(p->memfd, (off_t)p->len) || reserve(p))
		return -1;
	p->puncher->cpu = -1;
	p->reader->bound_cycles = (uint64_t)((double)MR_IDLE_WAIT_NS * (run->cycles_per_ns > 0 ? run->cycles_per_ns : 1));
	if (p->variant == V_BROKEN_STALE) {
		p->shadow = mmap(NULL, p->psz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p->shadow == MAP_FAILED) {
			p->shadow = NULL;
			return -1;
		}
	}
	why = probe_dontunmap(p);
	if (why) {
		mmt_run_skip(run, "%s", why);
		return 0;
	}
	/* MADV_POPULATE_READ (5.14) or a read per page: either works. */
	if (mmap(p->old_at, p->psz, PROT_READ, MAP_SHARED | MAP_FIXED, p->memfd, 0) != MAP_FAILED) {
		madvise(p->old_at, p->psz, MADV_NOHUGEPAGE);
		p->populate_read = !madvise(p->old_at, p->psz, MADV_POPULATE_READ);
	}
	p->puncher_threaded = run->nr_workers < 3;
	mmt_hunt_prepared(&p->hunt);
	return 0;
}

static void mover(struct mr_priv *p, struct mmt_worker *w)
{
	int err = 0;

	w->role = "mover";
	/* Created here, it inherits this worker's CPU. */
	if (p->puncher_threaded)
		err = pthread_create(&p->puncher_thread, NULL, mr_puncher_thread, p);
	if (err) {
		mmt_hunt_fail(&p->hunt, "starting the puncher", err);
		p->puncher_threaded = false;
		WRITE_ONCE(p->ctl->stop, 1);
		return;
	}
	mr_mover(p, w);
	if (p->puncher_threaded)
		pthread_join(p->puncher_thread, NULL);
}

static void mremap_worker(struct mmt_worker *w)
{
	struct mr_priv *p = w->run->priv;

	if (w->id == 0) {
		mover(p, w);
	} else if (w->id == 1) {
		w->role = "reader";
		mmt_worker_at(w, "reading through the old address");
		mr_reader_main(p);
		w->ops = p->reader->reads;
	} else {
		w->role = "puncher";
		mmt_worker_at(w, "punching the target");
		mr_puncher_main(p);
		w->ops = p->puncher->calls;
	}
}

/* ---- results ------------------------------------------------------------- */

static const struct mmt_field witness_fields[] = {
	MMT_FIELD(struct mr_witness, round, MMT_F_COUNT),
	MMT_FIELD(struct mr_witness, reads, MMT_F_COUNT),
	MMT_FIELD(struct mr_witness, file_value, MMT_F_HEX),
	MMT_FIELD(struct mr_witness, found, MMT_F_HEX),
	MMT_FIELD(struct mr_witness, reader_cpu, MMT_F_INT),
	MMT_FIELD(struct mr_witness, mover_cpu, MMT_F_INT),
	MMT_FIELD(struct mr_witness, puncher_cpu, MMT_F_INT),
	MMT_FIELD(struct mr_witness, raced, MMT_F_BOOL),
};
static const struct mmt_shape witness_shape = MMT_SHAPE(struct mr_witness, witness_fields);

static void judge(struct mmt_run *run, const struct mr_priv *p)
{
	if (p->hunt.error[0])
		mmt_run_inconclusive(run, "%s", p->hunt.error);
	else if (p->reader->never_saw)
		mmt_run_inconclusive(run, "the reader never read round %llu's value through the old address",
			     (unsigned long long)p->hunt.rounds + 1);
	else if (p->reader->stuck || p->puncher->stuck)
		mmt_run_inconclusive(run, "the %s waited more than %llu s for the next round",
			     p->reader->stuck ? "reader" : "puncher", (unsigned long long)(MR_IDLE_WAIT_NS / 1000000000ull));
	else if (p->hunt.wait_timeouts)
		mmt_run_inconclusive(run, "the mover gave up waiting for %s", p->hunt.wait_timeout_what);
	else if (!p->hunt.rounds)
		mmt_run_inconclusive(run, "no round was made");
	else if (run->variant->injected)
		return;
	else if (p->variant == V_PUNCH_AFTER_MOVE && p->hunt.premise)
		mmt_run_inconclusive(run, "the control's punch ran inside the mremap() call in %llu of %llu rounds: it must wait for the call's return",
			     (unsigned long long)p->hunt.premise, (unsigned long long)p->hunt.rounds);
	else if (p->variant == V_PUNCH_AFTER_MOVE)
		return;
	else if (mmt_user_tlb_blind())
		mmt_run_inconclusive(run, "this machine cannot keep the TLB entry the bug leaves: %s", mmt_user_tlb_blind());
	else if (!p->hunt.premise)
		mmt_run_inconclusive(run, "no round raced: no punch returned inside the mremap() call (%llu rounds, %llu punched after it returned, the first always)",
			     (unsigned long long)p->hunt.rounds, (unsigned long long)p->punched_late);
}

static void round_metrics(struct mmt_run *run, const struct mr_priv *p)
{
	mmt_put_count(run, "pages", p->pages);
	mmt_put_count(run, "page_size", p->psz);
	mmt_put_text(run, "line_up", p->puncher_threaded ? "the puncher shares the mover's CPU" : "each actor on its own CPU");
	mmt_put_text(run, "populate", p->populate_read ? "MADV_POPULATE_READ" : "a read per page");
	mmt_put_text(run, "user_tlb", mmt_user_tlb_words());
	mmt_put_count(run, "rounds", p->hunt.rounds);
	mmt_put_count(run, "rounds_raced", p->hunt.premise);
	mmt_put_count(run, "rounds_punched_late", p->punched_late);
	mmt_put_real(run, "move_mean_us", p->hunt.rounds ? (double)p->move_ns_sum / (double)p->hunt.rounds / 1000 : NAN);
	mmt_put_count(run, "reader_reads", p->reader->reads);
	mmt_put_count(run, "reads_judged", p->outcomes[OUT_FRESH] + p->outcomes[OUT_STALE]);
}

static void finding_metrics(struct mmt_run *run, const struct mr_priv *p)
{
	mmt_put_count(run, "stale_reads", p->outcomes[OUT_STALE]);
	mmt_put_count(run, "injected_stale_reads", p->variant == V_BROKEN_STALE ? p->reader->injected : MMT_NONE);
	mmt_put_list(run, "first_stale", p->first, p->nr_first);
	mmt_hunt_metrics(run, &p->hunt, "stale", "raced");
	mmt_put_count(run, "reader_stuck", p->reader->stuck);
	mmt_put_count(run, "puncher_stuck", p->puncher->stuck);
}

static void put_metrics(struct mmt_run *run, const void *priv)
{
	round_metrics(run, priv);
	finding_metrics(run, priv);
}

static void mremap_verify(struct mmt_run *run)
{
	struct mr_priv *p = run->priv;

	mmt_hunt_record(run, &p->hunt, p->outcomes, sizeof(p->outcomes), put_metrics, p);
	if (!p->outcomes[OUT_STALE])
		judge(run, p);
}

static void mremap_cleanup(struct mmt_run *run)
{
	struct mr_priv *p = run->priv;

	if (!p)
		return;
	if (p->reserve)
		munmap(p->reserve, p->reserve_len);
	if (p->shadow)
		munmap(p->shadow, p->psz);
	if (p->memfd >= 0)
		close(p->memfd);
	free(p->ctl);
	free(p->puncher);
	free(p->reader);
	free(p);
	run->priv = NULL;
}

static const struct mmt_metric metrics[] = {
	MMT_COUNT_ROW("pages", "pages", "pages of the mapping mremap() moves each round, the target first"),
	MMT_COUNT_ROW("page_size", "bytes", "the page size"),
	{ "line_up", MMT_METRIC_TEXT, "", MMT_BETTER_NEUTRAL, false,
	  "where the actors ran: each on its own CPU, or the puncher on the mover's (two workers)", NULL },
	{ "populate", MMT_METRIC_TEXT, "", MMT_BETTER_NEUTRAL, false,
	  "how the pages are made present (clean) each round: MADV_POPULATE_READ, or a read per page", NULL },
	{ "user_tlb", MMT_METRIC_TEXT, "", MMT_BETTER_NEUTRAL, false,
	  "kept: a CPU's TLB entry for one user address outlives the kernel's flush of another (the premise of any stale read here: the punch flushes the new address); else why not (x86 page-table isolation without INVPCID or PCID)", NULL },
	MMT_COUNT_ROW("rounds", "rounds", "rounds made: write the value, map, move, punch, the reader's reads after it"),
	MMT_COUNT_ROW("rounds_raced", "rounds",
	      "rounds whose punch returned inside the mremap() call (from the second round on): the race's premise"),
	MMT_COUNT_ROW("rounds_punched_late", "rounds", "rounds whose punch returned after the mremap() call (the first, the control's): cannot race"),
	{ "move_mean_us", MMT_METRIC_REAL, "us", MMT_BETTER_NEUTRAL, false, "mean mremap() of the mapping", NULL },
	MMT_COUNT_ROW("reader_reads", "reads", "the reader's reads through the old address"),
	MMT_COUNT_ROW("reads_judged", "reads", "the reader's reads after a punch returned, each of which must read 0"),
	MMT_COUNT_ROW("stale_reads", "reads", "reads after the punch returned that did not read the hole's 0: the finding"),
	MMT_MAYBE_ROW("injected_stale_reads", MMT_METRIC_COUNT, "reads",
	      "broken-stale: the reads after the punch made from the reader's own page; null otherwise"),
	{ "first_stale", MMT_METRIC_LIST, "", MMT_BETTER_NEUTRAL, false,
	  "the first rounds with stale reads: round, how many, the file's value before the punch, the first value read, CPUs, whether the round raced",
	  &witness_shape },
	MMT_HUNT_ROWS("stale", "raced", "stale read"),
	MMT_COUNT_ROW("reader_stuck", "threads", "1 when the reader waited past its bound"),
	MMT_COUNT_ROW("puncher_stuck", "threads", "1 when the puncher waited past its bound for the next round"),
	MMT_MAYBE_ROW("error", MMT_METRIC_TEXT, "", "an mmap, mremap, pwrite, fallocate or thread start failing, and why"),
	MMT_SHAPED_ROW("mutant", "the mutant kernel's counters during the run; null on another kernel", mmt_mutant_shape),
};

static void mremap_words(const json_t *run, char *buf, size_t len)
{
	static const struct mmt_hunt_words w = {
		.found = "stale: no fix",
		.premise = "rounds_raced",
		.no_premise = "no round raced",
		.control_key = "rounds_raced",
		.control = "none raced: kept",
		.kept = "raced: kept",
	};

	mmt_hunt_words(run, &w, buf, len);
}

static void mremap_describe(const json_t *run, char *buf, size_t len)
{
	const json_t *m = json_object_get(run, "metrics");
	char words[64];

	mremap_words(run, words, sizeof(words));
	snprintf(buf, len, "%s%sraced %lld of %lld rounds, stale %lld, move %.0fus", words, words[0] ? "; " : "",
		 mmt_metric_int(m, "rounds_raced"), mmt_metric_int(m, "rounds"), mmt_metric_int(m, "stale_reads"),
		 json_number_value(json_object_get(m, "move_mean_us")));
}

static const struct mmt_scenario mremap_scenario = {
	.name = "mremap",
	.help = "mremap() of a memfd mapping while its first page is punched out through the new address and a reader on another CPU reads through the old one, every read after the punch checked: reads of a freed frame through a TLB entry the move left behind caught, the race proven run",
	MMT_TABLE(variants, mr_variants),
	MMT_TABLE(options, options),
	.min_threads = 2,
	.default_threads = 3,
	.default_threads_fit = true,
	.max_threads = 3,
	.default_duration_ns = MR_DEFAULT_BOUND_NS,
	MMT_TABLE(outcomes, outcome_names),
	.ops_unit = "rounds",
	MMT_TABLE(metrics, metrics),
	.extra_events = "tlb:tlb_flush",
	.prepare = mremap_prepare,
	.worker = mremap_worker,
	.verify = mremap_verify,
	.cleanup = mremap_cleanup,
	.describe = mremap_describe,
};
MMT_SCENARIO(mremap_scenario);
