/* SPDX-License-Identifier: MIT */
/*
 * numascan: stores lost when NUMA balancing alone is both the protector
 * and the racer.  Every scan period task_numa_work() walks the process's
 * memory and makes its PTEs PROT_NONE (change_prot_numa(), so that the
 * next access takes a hinting fault that tells where the page is used),
 * flushing the TLB once the range is done; until then another CPU may
 * still write through its old, writable entry.  A hinting fault taken
 * meanwhile by a CPU without that entry migrates the page to its node
 * (do_numa_page(), migrate_misplaced_page()).  Kernel commit 20841405940e
 * made migration treat such a PROT_NONE PTE as accessible while the mm
 * has a flush pending, so try_to_migrate_one() flushes it; without it the
 * page is copied while a CPU still writes to the old frame, and those
 * stores are lost.  mmrace hunts the same bug with mprotect() as the
 * protector and move_pages() as the racer; here both are NUMA
 * balancing's, the two the seed commit's message names.
 *
 * Actors (numascan-actors.c): writers store to the region's first page
 * (the hot page) and read each store back before the next; a toucher on
 * another node reads the hot page after each switch of its CPU to a
 * second process (the mover), so its reads walk the page table and fault
 * on the PROT_NONE PTE while the scan's walk goes on, and the kernel
 * migrates the page to the toucher's node; the mover puts the page back
 * on its home node for the next scan.  The driver makes the cold pages'
 * PTEs present again each round, so that every walk must change them all
 * after the hot PTE before it flushes (the window), and waits for the
 * scan's end.  NUMA balancing is switched on and its scan made frequent
 * for the run (debugfs: scan_delay_ms, scan_period_min_ms,
 * scan_period_max_ms), each value journalled and put back.
 *
 * Evidence that can be false: a round raced if the toucher read the hot
 * page without a fault after the round began (its PTE present), then took
 * the fault that brought the page to its node (a scan of this round had
 * made the PTE PROT_NONE), before the driver's last look that still read
 * the round's scan count (mm->numa_scan_seq, /proc/PID/sched: the scan had
 * not ended, and it ends right after its flush), while a writer on
 * another CPU stored between the two.  It rests on the toucher's reads
 * walking the page table (its CPU switches mm between them: a full TLB
 * flush without PCIDs, as in the TCG guest); with PCIDs its reads may hit
 * its own entry, fault less and race fewer rounds, never more.  The scan
 * ends a little after the region's flush (it walks the process's other
 * mappings last), so a migration in that gap counts too.  With NUMA
 * balancing off (no-scan) nothing faults and no round can race.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <numa.h>
#include <numaif.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "arch/barrier.h"
#include "kstate.h"
#include "metrics.h"
#include "mutant.h"
#include "numascan.h"
#include "sysctl.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23	/* Linux 5.14 */
#endif

#define NS_KNOBS MMT_SCHED_DEBUGFS "/numa_balancing/"

const struct mmt_variant ns_variants[NR_VARIANTS] = {
	[V_SCAN_FAULT] = { .name = "scan-fault",
		.help = "NUMA balancing's scan makes the hot page's PTE PROT_NONE while writers store to it, and a toucher on another node takes the hinting fault that migrates it there mid-walk: a store read back older than the writer stored is a lost_write. Without --duration it runs until the first lost write or 64 raced rounds (the page migrated on the toucher's fault before the scan ended, a writer on another CPU storing), at most 2 minutes. Plain run-scenario numascan --variant scan-fault lost a write in 10 of 10 runs on a kernel with the fix it hunts reverted (the first 42-2135 ms in, median 239 ms, 2-node TCG guest) and none, conclusive in 10 of 10, with it in (scripts/mutant-proof). Needs root, two NUMA nodes with memory, three workers, NUMA balancing and its debugfs knobs (CONFIG_SCHED_DEBUG, debugfs mounted)",
		.forbidden_on = MMT_ARCH_ALL, .family = MMT_FAMILY_KERNEL,
		.hunts = "20841405940e mm: fix TLB flush race between migration, and change_protection_range" },
	[V_NO_SCAN] = { .name = "no-scan",
		.help = "control: the same writers, toucher and mover with NUMA balancing switched off for the run: no PTE is made PROT_NONE, nothing faults or migrates, no round can race, and no write may be lost even on a kernel without 20841405940e. Needs root, two NUMA nodes with memory and three workers",
		.forbidden_on = MMT_ARCH_ALL, .family = MMT_FAMILY_KERNEL },
	[V_BROKEN_REWIND] = { .name = "broken-rewind",
		.help = "fault injection for the writers' checker: no NUMA, no toucher; each round writer 0 sets its word back to its value before last between two stores, as if its last store had been lost: every round must be reported as exactly one lost_write",
		.injected = true, .family = MMT_FAMILY_INJECTED },
};

static const struct mmt_option options[NR_OPTIONS] = {
	[OPT_COLD_PAGES] = { "cold-pages", "pages after the hot one, their PTEs made present again each round: the scan's walk must change them all after the hot page's PTE before its flush, the window",
		16384, 256, 262144 },
	[OPT_TARGET_RACED] = { "target-raced", "stop once this many rounds raced (0: the duration, or without one 64)",
		0, 0, UINT64_MAX },
};

static const char *const outcome_names[NR_OUTCOMES] = { "kept", "lost_write" };

static const char *const sysctls_written[] = {
	"/proc/sys/kernel/numa_balancing",
	NS_KNOBS "scan_delay_ms",
	NS_KNOBS "scan_period_min_ms",
	NS_KNOBS "scan_period_max_ms",
	NULL,
};

static const char *const vmstat_prefixes[] = { "numa_", "pgmigrate_", NULL };

/* ---- memory -------------------------------------------------------------- */

#define NS_ALIGN (2ul << 20)

/* The hot page and the cold pages, private anonymous, 2 MiB aligned inside
 * a PROT_NONE reservation (no neighbour merges with it: the walk's range
 * starts at the hot page), no huge pages (a THP takes another path), not
 * inherited by the mover process (a COW-shared page is neither
 * scanned nor moved). */
static int map_memory(struct ns_priv *p)
{
	char *at;

	p->region_len = (size_t)(1 + p->cold) * p->psz;
	p->reserve_len = p->region_len + NS_ALIGN + 2 * p->psz;
	p->reserve = mmap(NULL, p->reserve_len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p->reserve == MAP_FAILED) {
		p->reserve = NULL;
		return -1;
	}
	at = (char *)(((uintptr_t)p->reserve + p->psz + NS_ALIGN - 1) / NS_ALIGN * NS_ALIGN);
	if (mmap(at, p->region_len, PROT_READ | PROT_WRITE, MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) ==
	    MAP_FAILED)
		return -1;
	p->region = at;
	madvise(at, p->region_len, MADV_NOHUGEPAGE);
	if (madvise(at, p->region_len, MADV_DONTFORK))
		return -1;
	if (madvise(at, p->region_len, MADV_POPULATE_WRITE))
		for (size_t off = 0; off < p->region_len; off += p->psz)
			at[off] = 1;
	return 0;
}

/* ---- what the hunt needs ------------------------------------------------- */

/*
 * Roles by node: the last worker is the toucher; the driver is a worker on
 * the toucher's node if there is one (it never touches the hot page), so
 * that the writers sit on the other nodes, where the hot page lives (a
 * writer on the toucher's node would fault it over there itself, after
 * the flush, where nothing races).  The injected variant: worker 0 drives,
 * the others write.  The hot page's home: the first writer's node, or
 * another node with memory than the toucher's.
 */
static void roles(struct ns_priv *p)
{
	const struct mmt_run *run = p->run;
	unsigned n = run->nr_workers, last = run->variant->injected ? n : n - 1, w = 0;
	int driver = 0, tn = -1;

	if (!run->variant->injected && numa_available() >= 0) {
		tn = numa_node_of_cpu(run->workers[n - 1].cpu);
		p->role[n - 1] = NS_TOUCHER;
		p->t->cpu = run->workers[n - 1].cpu;
		p->t->node = tn;
		for (unsigned i = 0; i < last; i++)
			if (numa_node_of_cpu(run->workers[i].cpu) == tn) {
				driver = (int)i;
				break;
			}
	}
	for (unsigned i = 0; i < last; i++)
		p->role[i] = (int)i == driver ? NS_DRIVER : (int)w++;
	p->nwriters = w;
}

/* The hot page's home: the first writer's node, else another with memory. */
static int home_node(const struct ns_priv *p)
{
	for (unsigned i = 0; i < p->run->nr_workers; i++)
		if (p->role[i] == 0) {
			int nd = numa_node_of_cpu(p->run->workers[i].cpu);

			if (nd >= 0 && nd != p->t->node && numa_node_size64(nd, NULL) > 0)
				return nd;
		}
	for (int nd = 0; nd <= numa_max_node(); nd++)
		if (nd != p->t->node && numa_node_size64(nd, NULL) > 0)
			return nd;
	return -1;
}

/* NULL, or why this machine cannot run the hunt. */
static const char *hunt_needs(struct ns_priv *p)
{
	unsigned nodes = 0;

	for (int nd = 0; numa_available() >= 0 && nd <= numa_max_node(); nd++)
		nodes += numa_node_size64(nd, NULL) > 0;
	if (nodes < 2)
		return "needs two NUMA nodes with memory: the hot page migrates between them";
	if (geteuid())
		return "needs root: NUMA balancing and its knobs, moving the hot page back (CAP_SYS_NICE)";
	if (p->run->nr_workers < 3)
		return "needs three workers: the driver, a writer and the toucher (on a CPU of another node than the hot page's)";
	p->home_node = home_node(p);
	if (p->t->node < 0 || numa_node_size64(p->t->node, NULL) <= 0 || p->home_node < 0)
		return "needs the toucher's CPU on a node with memory and another node with memory for the hot page";
	if (access("/proc/sys/kernel/numa_balancing", W_OK))
		return "needs NUMA balancing (CONFIG_NUMA_BALANCING: /proc/sys/kernel/numa_balancing)";
	if (p->variant == V_SCAN_FAULT && access(NS_KNOBS "scan_delay_ms", W_OK))
		return "needs NUMA balancing's scan knobs (CONFIG_SCHED_DEBUG, debugfs mounted: mount -t debugfs none /sys/kernel/debug): with the defaults a scan comes every 1-60 s";
	if (p->sched_fd < 0 || ns_scan_seq(p->sched_fd) < 0)
		return "needs mm->numa_scan_seq in /proc/self/sched (CONFIG_SCHED_DEBUG): the scans' ends";
	if (ns_node_of(p->region) < 0)
		return "needs move_pages() (CONFIG_MIGRATION): where the hot page is";
	return NULL;
}

/* NUMA balancing on, scanning often (scan-fault), or off (no-scan). */
static int set_knobs(struct ns_priv *p)
{
	static const struct { const char *path, *value; } scan[] = {
		{ NS_KNOBS "scan_delay_ms", NS_SCAN_DELAY_MS },
		{ NS_KNOBS "scan_period_min_ms", NS_SCAN_PERIOD_MIN_MS },
		{ NS_KNOBS "scan_period_max_ms", NS_SCAN_PERIOD_MAX_MS },
	};
	char err[256];

	p->sysctl_mark = mmt_sysctl_mark();
	if (mmt_sysctl_set("/proc/sys/kernel/numa_balancing", p->variant == V_SCAN_FAULT ? "1" : "0", err, sizeof(err)))
		goto fail;
	for (unsigned i = 0; p->variant == V_SCAN_FAULT && i < ARRAY_SIZE(scan); i++)
		if (mmt_sysctl_set(scan[i].path, scan[i].value, err, sizeof(err)))
			goto fail;
	return 0;
fail:
	fprintf(stderr, "mmtorture: numascan: %s\n", err);
	return -1;
}

static int numascan_prepare(struct mmt_run *run)
{
	struct ns_priv *p = calloc(1, sizeof(*p));
	const char *why;
	char err[160];

	if (!p)
		return -1;
	run->priv = p;
	p->run = run;
	p->sched_fd = -1;
	p->sysctl_mark = -1;
	p->variant = (int)(run->variant - ns_variants);
	p->hunt.first_rule = "first lost write";
	p->hunt.premise_rule = "rounds raced";
	p->hunt.target_option = "--target-raced";
	p->hunt.target = run->opt[OPT_TARGET_RACED];
	p->hunt.count_rounds = p->variant == V_NO_SCAN;
	p->psz = (size_t)sysconf(_SC_PAGESIZE);
	p->cold = (unsigned)run->opt[OPT_COLD_PAGES];
	p->ctl = mmap(NULL, sizeof(*p->ctl), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p->ctl == MAP_FAILED) {
		p->ctl = NULL;
		return -1;
	}
	p->ctl->mover_cpu = -1;
	p->t = mmt_alloc_lines(sizeof(*p->t));
	if (!p->t)
		return -1;
	p->t->node = -1;
	roles(p);
	p->ws = mmt_alloc_lines((p->nwriters ? p->nwriters : 1) * sizeof(*p->ws));
	if (!p->t || !p->ws || map_memory(p))
		return -1;
	for (unsigned w = 0; w < p->nwriters; w++) {
		p->ws[w].word = (uint64_t *)(p->region + w * MMT_PAD_BYTES);
		*p->ws[w].word = ns_tag(w, 0);
	}
	for (unsigned i = 0; i < run->nr_workers; i++)
		if (p->role[i] >= 0)
			p->ctl->w[p->role[i]].cpu = run->workers[i].cpu;
	p->ctl->mover_cpu = p->t->cpu;
	if (run->variant->injected) {
		mmt_hunt_prepared(&p->hunt);
		return 0;
	}
	p->sched_fd = open("/proc/self/sched", O_RDONLY | O_CLOEXEC);
	why = hunt_needs(p);
	if (why) {
		mmt_run_skip(run, "%s", why);
		return 0;
	}
	/* the hot page starts at home, away from the toucher */
	{
		void *hot = p->region;
		int status = -1;

		move_pages(0, 1, &hot, &p->home_node, &status, MPOL_MF_MOVE);
	}
	if (set_knobs(p))
		return -1;
	mmt_kstate_counters(vmstat_prefixes, &p->vmstat_before);
	mmt_hunt_prepared(&p->hunt);
	/* Last: the child gets a copy of everything above. */
	if (ns_mover_start(p, err, sizeof(err))) {
		fprintf(stderr, "mmtorture: numascan: %s\n", err);
		return -1;
	}
	return 0;
}

/* ---- workers ------------------------------------------------------------- */

static void numascan_worker(struct mmt_worker *w)
{
	struct ns_priv *p = w->run->priv;
	int role = p->role[w->id];

	if (role == NS_DRIVER) {
		w->role = "driver";
		mmt_worker_at(w, "making rounds");
		ns_driver(p, w);
	} else if (role >= 0) {
		w->role = "writer";
		p->ws[role].wk = w;
		p->ws[role].cpu = w->cpu;
		mmt_worker_at(w, "storing to the hot page");
		ns_writer_main(p, (unsigned)role);
		w->ops = p->ws[role].stores;
	} else {
		w->role = "toucher";
		mmt_worker_at(w, "reading the hot page between switches to the mover");
		ns_toucher_main(p);
		w->ops = p->t->touches;
	}
}

/* ---- results ------------------------------------------------------------- */

static const struct mmt_field witness_fields[] = {
	MMT_FIELD(struct ns_witness, round, MMT_F_COUNT),
	MMT_FIELD(struct ns_witness, stored, MMT_F_HEX),
	MMT_FIELD(struct ns_witness, found, MMT_F_HEX),
	MMT_FIELD(struct ns_witness, writer, MMT_F_INT),
	MMT_FIELD(struct ns_witness, writer_cpu, MMT_F_INT),
	MMT_FIELD(struct ns_witness, raced, MMT_F_BOOL),
};
static const struct mmt_shape witness_shape = MMT_SHAPE(struct ns_witness, witness_fields);

/* A run that found nothing proves nothing unless a round raced. */
static void judge(struct mmt_run *run, const struct ns_priv *p)
{
	if (p->hunt.error[0])
		mmt_run_inconclusive(run, "%s", p->hunt.error);
	else if (p->hunt.wait_timeouts)
		mmt_run_inconclusive(run, "the driver gave up waiting for %s", p->hunt.wait_timeout_what);
	else if (!p->hunt.rounds)
		mmt_run_inconclusive(run, "no round was made");
	else if (run->variant->injected || p->variant == V_NO_SCAN)
		return;
	else if (!p->hunt.premise)
		mmt_run_inconclusive(run, "no round raced: in %llu rounds the toucher's reads faulted %llu times and brought the hot page to its node %llu times, none after a clean read of the round and before the scan ended with a writer storing",
			     (unsigned long long)p->hunt.rounds, (unsigned long long)p->t->faults,
			     (unsigned long long)p->t->migrations);
}

static void round_metrics(struct mmt_run *run, const struct ns_priv *p)
{
	const struct ns_ctl *c = p->ctl;
	bool injected = run->variant->injected;
	uint64_t stores = 0;

	for (unsigned w = 0; w < p->nwriters; w++)
		stores += p->ws[w].stores;
	mmt_put_count(run, "cold_pages", p->cold);
	mmt_put_count(run, "page_size", p->psz);
	mmt_put_count(run, "writers", p->nwriters);
	mmt_put_count(run, "rounds", p->hunt.rounds);
	mmt_put_count(run, "rounds_raced", p->hunt.premise);
	mmt_put_count(run, "rounds_scanned", injected ? MMT_NONE : p->rounds_scanned);
	mmt_put_count(run, "toucher_reads", injected ? MMT_NONE : p->t->touches);
	mmt_put_count(run, "toucher_faults", injected ? MMT_NONE : p->t->faults);
	mmt_put_count(run, "migrations_to_toucher", injected ? MMT_NONE : p->t->migrations);
	mmt_put_count(run, "moved_back", injected ? MMT_NONE : c->moved_back);
	mmt_put_count(run, "move_errors", injected ? MMT_NONE : c->errors);
	mmt_put_real(run, "rearm_mean_ms",
		     !injected && p->hunt.rounds > 1 ? (double)p->rearm_ns / 1e6 / (double)(p->hunt.rounds - 1) : NAN);
	mmt_put_count(run, "writer_stores", stores);
}

static void finding_metrics(struct mmt_run *run, const struct ns_priv *p)
{
	uint64_t lost = 0;

	for (unsigned w = 0; w < p->nwriters; w++)
		lost += p->ws[w].stores_lost;
	mmt_put_count(run, "lost_writes", p->outcomes[OUT_LOST]);
	mmt_put_count(run, "stores_lost", lost);
	mmt_put_count(run, "injected_rewinds", run->variant->injected ? p->rewinds : MMT_NONE);
	mmt_put_list(run, "first_lost", p->first, p->nr_first);
	mmt_hunt_metrics(run, &p->hunt, "lost", "raced");
}

static void put_metrics(struct mmt_run *run, const void *priv)
{
	const struct ns_priv *p = priv;

	round_metrics(run, p);
	finding_metrics(run, p);
	if (run->variant->injected)
		mmt_put_object(run, "vmstat_delta", NULL);
	else
		mmt_put_map(run, "vmstat_delta", p->vmstat_delta.e, p->vmstat_delta.n);
}

static void numascan_verify(struct mmt_run *run)
{
	struct ns_priv *p = run->priv;
	const char *died = ns_mover_stop(p);
	struct mmt_kcounters after;

	if (died)
		mmt_hunt_fail(&p->hunt, died, ECHILD);
	p->outcomes[OUT_LOST] = 0;
	for (unsigned w = 0; w < p->nwriters; w++)
		p->outcomes[OUT_LOST] += p->ws[w].lost;
	if (!run->variant->injected) {
		mmt_kstate_counters(vmstat_prefixes, &after);
		mmt_kstate_delta(&p->vmstat_before, &after, &p->vmstat_delta);
	}
	mmt_hunt_record(run, &p->hunt, p->outcomes, sizeof(p->outcomes), put_metrics, p);
	/* Findings are conclusive by themselves. */
	if (!p->outcomes[OUT_LOST])
		judge(run, p);
}

static void numascan_cleanup(struct mmt_run *run)
{
	struct ns_priv *p = run->priv;

	if (!p)
		return;
	if (p->ctl)
		ns_mover_stop(p);
	if (p->sysctl_mark >= 0)
		mmt_sysctl_restore_to(p->sysctl_mark);
	if (p->reserve)
		munmap(p->reserve, p->reserve_len);
	if (p->sched_fd >= 0)
		close(p->sched_fd);
	if (p->ctl)
		munmap(p->ctl, sizeof(*p->ctl));
	free(p->t);
	free(p->ws);
	free(p);
	run->priv = NULL;
}

static const struct mmt_metric metrics[] = {
	MMT_COUNT_ROW("cold_pages", "pages", "pages after the hot one that every scan's walk must change before its flush"),
	MMT_COUNT_ROW("page_size", "bytes", "the page size"),
	MMT_COUNT_ROW("writers", "threads", "writer threads"),
	MMT_COUNT_ROW("rounds", "rounds", "rounds made: the cold PTEs present again, then the next scan's end (no-scan: 50 ms)"),
	MMT_COUNT_ROW("rounds_raced", "rounds",
	      "rounds in which the toucher read the hot page cleanly, then took the fault that migrated it to its node before the scan ended, a writer on another CPU storing: the race's premise"),
	MMT_MAYBE_ROW("rounds_scanned", MMT_METRIC_COUNT, "rounds", "rounds that saw a scan of the process end; null for the injected variant"),
	MMT_MAYBE_ROW("toucher_reads", MMT_METRIC_COUNT, "reads", "the toucher's reads of the hot page"),
	MMT_MAYBE_ROW("toucher_faults", MMT_METRIC_COUNT, "reads", "those that took a fault"),
	MMT_MAYBE_ROW("migrations_to_toucher", MMT_METRIC_COUNT, "faults", "faults after which the hot page was on the toucher's node (NUMA balancing migrated it)"),
	MMT_MAYBE_ROW("moved_back", MMT_METRIC_COUNT, "moves", "the mover's moves of the hot page back to its home node"),
	MMT_MAYBE_ROW("move_errors", MMT_METRIC_COUNT, "moves", "moves back that failed or left the page where it was"),
	MMT_MAYBE_ROW("rearm_mean_ms", MMT_METRIC_REAL, "ms", "mean time to make the cold PTEs present again; null for the injected variant"),
	MMT_COUNT_ROW("writer_stores", "stores", "the writers' stores to the hot page"),
	MMT_COUNT_ROW("lost_writes", "reads", "reads back that found an older value than the writer's last store: the finding"),
	MMT_COUNT_ROW("stores_lost", "stores", "the stores those older values left out"),
	MMT_MAYBE_ROW("injected_rewinds", MMT_METRIC_COUNT, "stores", "broken-rewind: the words set back; null otherwise"),
	{ "first_lost", MMT_METRIC_LIST, "", MMT_BETTER_NEUTRAL, false,
	  "the first lost writes: round, value stored and found, writer and its CPU, whether the round had raced", &witness_shape },
	MMT_HUNT_ROWS("lost", "raced", "lost write"),
	MMT_MAYBE_ROW("error", MMT_METRIC_TEXT, "", "an mprotect(), a read of the scan count or the mover process failing, and why"),
	MMT_SHAPED_ROW("vmstat_delta", "NUMA balancing's and migration's counters of /proc/vmstat, as deltas; null for the injected variant",
	       mmt_kcounters_shape),
	MMT_SHAPED_ROW("mutant", "the mutant kernel's counters during the run; null on another kernel", mmt_mutant_shape),
};

/* In a few words (at most 18 characters, as mmrace's), what the run says
 * of the kernel, following its status. */
static void numascan_words(const json_t *run, char *buf, size_t len)
{
	static const struct mmt_hunt_words w = {
		.found = "lost: no fix",
		.premise = "rounds_raced",
		.no_premise = "no round raced",
		.control_key = "rounds_raced",
		.control = "control: kept",
		.kept = "raced: kept",
	};

	mmt_hunt_words(run, &w, buf, len);
}

static void numascan_describe(const json_t *run, char *buf, size_t len)
{
	const json_t *m = json_object_get(run, "metrics");
	char words[64];

	numascan_words(run, words, sizeof(words));
	snprintf(buf, len, "%s%sraced %lld of %lld rounds, migrated %lld, lost %lld", words, words[0] ? "; " : "",
		 mmt_metric_int(m, "rounds_raced"), mmt_metric_int(m, "rounds"), mmt_metric_int(m, "migrations_to_toucher"),
		 mmt_metric_int(m, "lost_writes"));
}

static const struct mmt_scenario numascan_scenario = {
	.name = "numascan",
	.help = "NUMA balancing's scan making a page PROT_NONE while another node's hinting fault migrates it and writers on other CPUs store to it, every store read back: stores lost through a TLB entry the scan had not yet flushed caught, the race proven run",
	MMT_TABLE(variants, ns_variants),
	MMT_TABLE(options, options),
	.min_threads = 2,
	.default_threads = 4,
	.default_threads_fit = true,
	.default_placement = "spread",
	.max_threads = 2 + NS_MAX_WRITERS,
	.default_duration_ns = NS_DEFAULT_BOUND_NS,
	MMT_TABLE(outcomes, outcome_names),
	.ops_unit = "rounds",
	MMT_TABLE(metrics, metrics),
	.needs = {
		.root = "NUMA balancing and its scan knobs, moving the hot page back (CAP_SYS_NICE)",
		.root_optional = true,	/* broken-rewind needs none; the others skip, saying so */
		.sysctls = sysctls_written,
	},
	.extra_events = "tlb:tlb_flush,migrate:mm_migrate_pages",
	.prepare = numascan_prepare,
	.worker = numascan_worker,
	.verify = numascan_verify,
	.cleanup = numascan_cleanup,
	.describe = numascan_describe,
};
MMT_SCENARIO(numascan_scenario);
