/* SPDX-License-Identifier: MIT */
/*
 * pmdshare: reads through a hugetlb PMD table that two mappings share, of
 * a page already freed.  Two shared mappings of a hugetlb file that each
 * span a whole PMD table's 1 GiB on its own boundary share one PMD table
 * (x86-64, arm64 with 4K pages), and two kernel bugs of that sharing left
 * a CPU reaching a freed page through its TLB:
 *   a4a118f2eead  unmapping any part of one mapping unshares it (its PUD
 *                 cleared, every page of the 1 GiB unmapped); before the
 *                 fix nothing flushed that range, and a punch of the file
 *                 (which flushes only the addresses still mapped) freed the
 *                 pages the CPU still reached (the punch variants)
 *   017b1660df89  migration's rmap walk stopped after the first mapping
 *                 (one mapcount for all sharers): the PTE every sharer
 *                 sees became a migration entry flushed at that mapping's
 *                 address only, and the others read the old page after the
 *                 copy (the migrate variants)
 *
 * Actors (pmdshare-actors.c): worker 0 is the revoker, worker 1 the
 * reader.  A round: a new hugetlb memfd mapped twice (the owner builds the
 * table: the round's value at the target page, a witness page present;
 * the sharer's first read shares it), the reader reading the target
 * through the sharer, then the revocation: the revoker's MADV_DONTNEED of
 * another page of the sharer (the unshare) and fallocate(PUNCH_HOLE) of
 * the target, or move_pages() of the target to another node through the
 * owner and a second value stored into it; then 64 more reads of the
 * reader after the revocation returned.  Each must read the hole's 0 (a
 * correct kernel makes the read fault a new page in) or the second value;
 * anything else is a stale_read, of the freed page.
 *
 * Evidence that can be false: a round is shared only if the sharer's page
 * table maps the witness page, which only the owner touched (pagemap,
 * read without a fault): its PMD table is the owner's; moved (migrate)
 * only if move_pages() put the page on the other node; held only if, as
 * well, the reader ran unpreempted from before its first read, before the
 * revocation, to after its last (a preemption may switch page tables and
 * flush the entry the bug leaves).  The unshared controls place the sharer
 * 2 MiB off a 1 GiB boundary, where the kernel cannot share: none may
 * share.  A machine whose kernel flushes every user entry on a one-address
 * flush (x86 PTI without INVPCID) cannot keep the entry: it says so
 * (user_tlb).  A hunter that found nothing with no held round is
 * INCONCLUSIVE, saying why.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <numa.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "clock.h"
#include "metrics.h"
#include "pmdshare.h"
#include "sysctl.h"
#include "user-tlb.h"

const struct mmt_variant ps_variants[NR_VARIANTS] = {
	[V_SHARED_PUNCH] = { .name = "shared-punch",
		.help = "a reader reads a hugetlb memfd page through a mapping that shares another mapping's PMD table while a MADV_DONTNEED of another page unshares it and the page is punched out of the memfd (fallocate PUNCH_HOLE); a read made after the punch returned that does not read the hole's 0 is a stale_read (of the freed huge page). Without --duration it runs until the first stale read or 64 held rounds (table shared, reader unpreempted), at most 2 minutes. Plain run-scenario pmdshare --variant shared-punch read a freed huge page in 10 of 10 runs on a kernel with the fix it hunts reverted (the first 9-34 ms in, 2-node TCG guest) and nothing stale, conclusive in 10 of 10, with it in (scripts/mutant-proof). Needs 2 MiB hugetlb pages (it adds the few it needs to vm.nr_hugepages as root, and puts the count back) and a kernel that shares PMD tables (x86-64, arm64 with 4K pages)",
		.forbidden_on = MMT_ARCH_ALL, .family = MMT_FAMILY_KERNEL,
		.hunts = "a4a118f2eead hugetlbfs: flush TLBs correctly after huge_pmd_unshare" },
	[V_UNSHARED_PUNCH] = { .name = "unshared-punch",
		.help = "control: as shared-punch, but the reader's mapping starts 2 MiB past a 1 GiB boundary, where the kernel cannot share the PMD table: no round may share (the run is ok with none, and says so if one did), no read is stale, even on a kernel without a4a118f2eead",
		.forbidden_on = MMT_ARCH_ALL, .family = MMT_FAMILY_KERNEL },
	[V_SHARED_MIGRATE] = { .name = "shared-migrate",
		.help = "a reader reads a hugetlb memfd page through a mapping that shares another mapping's PMD table while move_pages() moves the page to another node through the other mapping, and a second value is stored into it through a fresh mapping of the file; a read made after that store returned that does not read it is a stale_read (of the old, freed huge page). Without --duration it runs until the first stale read or 64 held rounds (table shared, page moved, reader unpreempted), at most 2 minutes. Plain run-scenario pmdshare --variant shared-migrate read the old page in 10 of 10 runs on a kernel with the fix it hunts reverted (the first 38-308 ms in, 2-node TCG guest) and nothing stale, conclusive in 10 of 10, with it in (scripts/mutant-proof). Needs two NUMA nodes with memory, 2 MiB hugetlb pages on each (as root it adds them to vm.nr_hugepages, and puts the count back) and a kernel that shares PMD tables",
		.forbidden_on = MMT_ARCH_ALL, .family = MMT_FAMILY_KERNEL,
		.hunts = "017b1660df89 mm: migration: fix migration of huge PMD shared pages" },
	[V_UNSHARED_MIGRATE] = { .name = "unshared-migrate",
		.help = "control: as shared-migrate, but the reader's mapping starts 2 MiB past a 1 GiB boundary, where the kernel cannot share the PMD table: no round may share (the run is ok with none, and says so if one did), no read is stale, even on a kernel without 017b1660df89. Moving a page two mappings map needs root (MPOL_MF_MOVE_ALL)",
		.forbidden_on = MMT_ARCH_ALL, .family = MMT_FAMILY_KERNEL },
	[V_BROKEN_STALE] = { .name = "broken-stale",
		.help = "fault injection: the reader's reads after the punch come from a page of its own holding the file's old value instead of the target; each must be reported as a stale_read, exactly",
		.injected = true, .family = MMT_FAMILY_INJECTED },
};

static const struct mmt_option options[NR_OPTIONS] = {
	[OPT_TARGET_HELD] = { "target-held", "stop once this many rounds held (the table shared, the reader unpreempted from before the unshare to its last read; 0: the duration, or without one 64)",
		0, 0, UINT64_MAX },
};

static const char *const outcome_names[NR_OUTCOMES] = { "fresh", "stale_read" };

static const char *const sysctls_written[] = { "/proc/sys/vm/nr_hugepages", NULL };
static const char *const config_needed[] = { "CONFIG_HUGETLBFS", "CONFIG_MEMFD_CREATE", NULL };

#define PS_HPSZ (2ul << 20)
#define PS_SPAN (1ul << 30)
#define PS_FLUSHER_LEN (4ul << 20)

/* ---- huge pages ---------------------------------------------------------- */

/* /proc/meminfo's value for key (in its unit), or -1. */
static long meminfo(const char *key)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[128];
	const size_t len = strlen(key);
	long v = -1;

	if (!f)
		return -1;
	while (v < 0 && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, len) && line[len] == ':')
			v = strtol(line + len + 1, NULL, 10);
	fclose(f);
	return v;
}

/* Free 2 MiB huge pages on node, or -1. */
static long node_free(int node)
{
	char path[128];
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/hugepages/hugepages-2048kB/free_hugepages", node);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/* The migrate variants: the nodes with memory and at least
 * PS_NODE_HUGE_PAGES free huge pages, into p->nodes; how many. */
static unsigned ready_nodes(struct ps_priv *p)
{
	p->nr_nodes = 0;
	if (numa_available() < 0)
		return 0;
	for (int n = 0; n <= numa_max_node() && p->nr_nodes < PS_MAX_NODES; n++)
		if (numa_node_size64(n, NULL) > 0 && node_free(n) >= PS_NODE_HUGE_PAGES)
			p->nodes[p->nr_nodes++] = n;
	return p->nr_nodes;
}

/* Free huge pages a MAP_NORESERVE fault may take: those not reserved for
 * other mappings. */
static long usable_huge_pages(void)
{
	return meminfo("HugePages_Free") - meminfo("HugePages_Rsvd");
}

static unsigned memory_nodes(void)
{
	unsigned k = 0;

	if (numa_available() < 0)
		return 1;
	for (int n = 0; n <= numa_max_node(); n++)
		k += numa_node_size64(n, NULL) > 0;
	return k;
}

/* Whether the run has its huge pages: PS_HUGE_PAGES free, and for the
 * migrate variants PS_NODE_HUGE_PAGES free on each of two nodes. */
static bool have_huge_pages(struct ps_priv *p)
{
	return usable_huge_pages() >= PS_HUGE_PAGES && (!ps_migrates(p->variant) || ready_nodes(p) >= 2);
}

/*
 * The huge pages the run needs (have_huge_pages()): there already, or
 * added to vm.nr_hugepages as root (journalled, put back at cleanup; the
 * kernel spreads them over the nodes).  NULL, or why the run cannot have
 * them.
 */
static const char *reserve_huge_pages(struct ps_priv *p)
{
	static char why[320];
	const long size_kb = meminfo("Hugepagesize"), total = meminfo("HugePages_Total");
	const long free_pages = usable_huge_pages();
	const unsigned nodes = memory_nodes();
	long add = PS_HUGE_PAGES - free_pages;
	char value[32], err[256];

	if (size_kb != (long)(PS_HPSZ >> 10)) {
		snprintf(why, sizeof(why), "the default huge page size is %ld kB, not 2048 kB: vm.nr_hugepages cannot give the 2 MiB pages a PMD table maps",
			 size_kb);
		return size_kb < 0 ? "this kernel has no hugetlb pages (no Hugepagesize in /proc/meminfo)" : why;
	}
	if (ps_migrates(p->variant) && nodes < 2) {
		snprintf(why, sizeof(why), "needs two NUMA nodes with memory (this machine has %u): the target page moves from one to the other",
			 nodes);
		return why;
	}
	if (have_huge_pages(p))
		return NULL;
	if (geteuid()) {
		snprintf(why, sizeof(why), "needs %d free 2 MiB huge pages%s (HugePages_Free less HugePages_Rsvd is %ld): root, to add them to vm.nr_hugepages, or reserve them first",
			 PS_HUGE_PAGES, ps_migrates(p->variant) ? ", 2 on each of two nodes" : "", free_pages);
		return why;
	}
	if (ps_migrates(p->variant) && add < (long)(PS_NODE_HUGE_PAGES * nodes))
		add = PS_NODE_HUGE_PAGES * nodes;
	snprintf(value, sizeof(value), "%ld", total + add);
	if (mmt_sysctl_set("/proc/sys/vm/nr_hugepages", value, err, sizeof(err))) {
		snprintf(why, sizeof(why), "raising vm.nr_hugepages to %s: %s", value, err);
		return why;
	}
	p->huge_added = meminfo("HugePages_Total") - total;
	if (!have_huge_pages(p)) {
		snprintf(why, sizeof(why), "vm.nr_hugepages raised to %s gave %ld free 2 MiB huge pages%s of the %d needed (memory too fragmented?)",
			 value, usable_huge_pages(), ps_migrates(p->variant) ? ", not 2 on each of two nodes," : "",
			 PS_HUGE_PAGES);
		return why;
	}
	return NULL;
}

/* ---- memory -------------------------------------------------------------- */

/*
 * Room for both mappings, each on a 1 GiB boundary (unshared-punch: the
 * sharer 2 MiB past one), a gap between; reserved, never backed.
 */
static int reserve(struct ps_priv *p)
{
	uintptr_t at;

	/* The sharer ends at most 3 spans and a huge page past a boundary
	 * that is at most a span in. */
	p->reserve_len = 4 * p->span + p->hpsz;
	p->reserve = mmap(NULL, p->reserve_len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p->reserve == MAP_FAILED) {
		p->reserve = NULL;
		return -1;
	}
	at = ((uintptr_t)p->reserve + p->span - 1) / p->span * p->span;
	p->owner_at = (char *)at;
	p->sharer_at = (char *)at + 2 * p->span + (ps_unshared(p->variant) ? p->hpsz : 0);
	return 0;
}

/* Whether this kernel shares the table of two such mappings: NULL, or
 * why not. */
static const char *probe_sharing(struct ps_priv *p)
{
	static char why[240];
	bool shared;

	if (ps_map_round(p, 1, &shared)) {
		snprintf(why, sizeof(why), "%s", p->hunt.error);
		p->hunt.error[0] = '\0';
	} else if (!shared) {
		snprintf(why, sizeof(why), "this kernel did not share the PMD table of two hugetlb mappings spanning the same 1 GiB of a file (CONFIG_ARCH_WANT_HUGE_PMD_SHARE: x86-64, arm64 with 4K pages)");
	}
	ps_unmap_round(p);
	return shared ? NULL : why;
}

static int pmdshare_prepare(struct mmt_run *run)
{
	struct ps_priv *p = calloc(1, sizeof(*p));
	const char *why;

	if (!p)
		return -1;
	run->priv = p;
	p->run = run;
	p->memfd = -1;
	p->pagemap_fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	p->revoker_cpu = -1;
	p->variant = (int)(run->variant - ps_variants);
	p->hpsz = PS_HPSZ;
	p->span = PS_SPAN;
	p->flusher_len = PS_FLUSHER_LEN;
	p->sysctl_mark = mmt_sysctl_mark();
	p->hunt.first_rule = "first stale read";
	p->hunt.premise_rule = "rounds held";
	p->hunt.count_rounds = ps_unshared(p->variant);	/* the controls cannot hold */
	p->hunt.target_option = "--target-held";
	p->hunt.target = run->opt[OPT_TARGET_HELD];
	p->ctl = mmt_alloc_lines(sizeof(*p->ctl));
	p->reader = mmt_alloc_lines(sizeof(*p->reader));
	p->flusher = mmap(NULL, p->flusher_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p->flusher == MAP_FAILED)
		p->flusher = NULL;
	if (!p->ctl || !p->reader || !p->flusher || reserve(p))
		return -1;
	madvise(p->flusher, p->flusher_len, MADV_NOHUGEPAGE);
	p->reader->bound_cycles = (uint64_t)((double)PS_IDLE_WAIT_NS * (run->cycles_per_ns > 0 ? run->cycles_per_ns : 1));
	if (p->variant == V_BROKEN_STALE) {
		p->shadow = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p->shadow == MAP_FAILED) {
			p->shadow = NULL;
			return -1;
		}
	}
	why = p->pagemap_fd < 0 ? "needs /proc/self/pagemap (CONFIG_PROC_PAGE_MONITOR): whether the sharer maps the owner's page" :
				  reserve_huge_pages(p);
	if (!why && (p->variant == V_SHARED_PUNCH || p->variant == V_SHARED_MIGRATE))
		why = probe_sharing(p);
	if (why)
		mmt_run_skip(run, "%s", why);
	mmt_hunt_prepared(&p->hunt);
	return 0;
}

static void pmdshare_worker(struct mmt_worker *w)
{
	struct ps_priv *p = w->run->priv;

	if (w->id == 0) {
		w->role = "revoker";
		ps_revoker(p, w);
	} else {
		w->role = "reader";
		mmt_worker_at(w, "reading through the sharing mapping");
		ps_reader_main(p);
		w->ops = p->reader->reads;
	}
}

/* ---- results ------------------------------------------------------------- */

static const struct mmt_field witness_fields[] = {
	MMT_FIELD(struct ps_witness, round, MMT_F_COUNT),
	MMT_FIELD(struct ps_witness, reads, MMT_F_COUNT),
	MMT_FIELD(struct ps_witness, file_value, MMT_F_HEX),
	MMT_FIELD(struct ps_witness, found, MMT_F_HEX),
	MMT_FIELD(struct ps_witness, reader_cpu, MMT_F_INT),
	MMT_FIELD(struct ps_witness, revoker_cpu, MMT_F_INT),
	MMT_FIELD(struct ps_witness, shared, MMT_F_BOOL),
	MMT_FIELD(struct ps_witness, moved, MMT_F_BOOL),
	MMT_FIELD(struct ps_witness, held, MMT_F_BOOL),
};
static const struct mmt_shape witness_shape = MMT_SHAPE(struct ps_witness, witness_fields);

static void judge(struct mmt_run *run, const struct ps_priv *p)
{
	if (p->hunt.error[0])
		mmt_run_inconclusive(run, "%s", p->hunt.error);
	else if (p->reader->never_saw)
		mmt_run_inconclusive(run, "the reader never read round %llu's value through the sharing mapping",
				     (unsigned long long)p->hunt.rounds + 1);
	else if (p->reader->stuck)
		mmt_run_inconclusive(run, "the reader waited more than %llu s for the next round",
				     (unsigned long long)(PS_IDLE_WAIT_NS / 1000000000ull));
	else if (p->hunt.wait_timeouts)
		mmt_run_inconclusive(run, "the revoker gave up waiting for %s", p->hunt.wait_timeout_what);
	else if (!p->hunt.rounds)
		mmt_run_inconclusive(run, "no round was made");
	else if (run->variant->injected)
		return;
	else if (ps_unshared(p->variant) && p->shared)
		mmt_run_inconclusive(run, "the control's mappings shared a PMD table in %llu of %llu rounds: 2 MiB off a 1 GiB boundary they must not",
				     (unsigned long long)p->shared, (unsigned long long)p->hunt.rounds);
	else if (ps_migrates(p->variant) && !p->moved)
		mmt_run_inconclusive(run, "no round moved the target page to another node (%llu rounds; the first refused move: %s)",
				     (unsigned long long)p->hunt.rounds, p->move_status < 0 ? strerror(-p->move_status) :
				     p->move_status ? "the page stayed where it was" : "none");
	else if (ps_unshared(p->variant))
		return;
	else if (mmt_user_tlb_blind())
		mmt_run_inconclusive(run, "this machine cannot keep the TLB entry the bug leaves: %s", mmt_user_tlb_blind());
	else if (!p->hunt.premise && ps_migrates(p->variant))
		mmt_run_inconclusive(run, "no round held: the table was shared in %llu and the page moved in %llu of %llu rounds, and the reader was preempted or moved in every one that did both",
				     (unsigned long long)p->shared, (unsigned long long)p->moved, (unsigned long long)p->hunt.rounds);
	else if (!p->hunt.premise)
		mmt_run_inconclusive(run, "no round held: the table was shared in %llu of %llu rounds, and the reader was preempted or moved in every one that was",
				     (unsigned long long)p->shared, (unsigned long long)p->hunt.rounds);
}

static void round_metrics(struct mmt_run *run, const struct ps_priv *p)
{
	mmt_put_count(run, "huge_page_size", p->hpsz);
	mmt_put_count(run, "huge_pages_added", (uint64_t)p->huge_added);
	mmt_put_text(run, "user_tlb", mmt_user_tlb_words());
	mmt_put_count(run, "rounds", p->hunt.rounds);
	mmt_put_count(run, "rounds_shared", p->shared);
	mmt_put_count(run, "rounds_moved", ps_migrates(p->variant) ? p->moved : MMT_NONE);
	mmt_put_count(run, "rounds_held", p->hunt.premise);
	mmt_put_real(run, "revoke_mean_us", p->hunt.rounds ? (double)p->revoke_ns_sum / (double)p->hunt.rounds / 1000 : NAN);
	mmt_put_count(run, "reader_reads", p->reader->reads);
	mmt_put_count(run, "reads_judged", p->outcomes[OUT_FRESH] + p->outcomes[OUT_STALE]);
}

static void finding_metrics(struct mmt_run *run, const struct ps_priv *p)
{
	mmt_put_count(run, "stale_reads", p->outcomes[OUT_STALE]);
	mmt_put_count(run, "injected_stale_reads", p->variant == V_BROKEN_STALE ? p->reader->injected : MMT_NONE);
	mmt_put_list(run, "first_stale", p->first, p->nr_first);
	mmt_hunt_metrics(run, &p->hunt, "stale", "held");
	mmt_put_count(run, "reader_stuck", p->reader->stuck);
}

static void put_metrics(struct mmt_run *run, const void *priv)
{
	round_metrics(run, priv);
	finding_metrics(run, priv);
}

static void pmdshare_verify(struct mmt_run *run)
{
	struct ps_priv *p = run->priv;

	mmt_hunt_record(run, &p->hunt, p->outcomes, sizeof(p->outcomes), put_metrics, p);
	if (!p->outcomes[OUT_STALE])
		judge(run, p);
}

static void pmdshare_cleanup(struct mmt_run *run)
{
	struct ps_priv *p = run->priv;

	if (!p)
		return;
	if (p->memfd >= 0)
		close(p->memfd);
	if (p->pagemap_fd >= 0)
		close(p->pagemap_fd);
	if (p->reserve)
		munmap(p->reserve, p->reserve_len);
	if (p->flusher)
		munmap(p->flusher, p->flusher_len);
	if (p->shadow)
		munmap(p->shadow, 4096);
	/* The memfd's pages are free: the count can go back. */
	mmt_sysctl_restore_to(p->sysctl_mark);
	free(p->ctl);
	free(p->reader);
	free(p);
	run->priv = NULL;
}

static const struct mmt_metric metrics[] = {
	MMT_COUNT_ROW("huge_page_size", "bytes", "the hugetlb page size the mappings use"),
	MMT_COUNT_ROW("huge_pages_added", "pages", "2 MiB huge pages this run added to vm.nr_hugepages (put back after it)"),
	{ "user_tlb", MMT_METRIC_TEXT, "", MMT_BETTER_NEUTRAL, false,
	  "kept: a CPU's TLB entry for one user address outlives the kernel's flush of another (the premise of any stale read here); else why not (x86 page-table isolation without INVPCID or PCID)", NULL },
	MMT_COUNT_ROW("rounds", "rounds", "rounds made: map twice, share, zap (unshare), punch, the reader's reads after it"),
	MMT_COUNT_ROW("rounds_shared", "rounds",
	      "rounds whose sharer's page table maps a page only the owner touched (pagemap): the PMD table was shared"),
	MMT_MAYBE_ROW("rounds_moved", MMT_METRIC_COUNT, "rounds",
	      "the migrate variants: rounds whose target page move_pages() moved to another node; null otherwise"),
	MMT_COUNT_ROW("rounds_held", "rounds",
	      "shared rounds (the migrate variants: that moved the page) whose reader kept its CPU, unpreempted, from before the unshare or the move to its last read: the bug's premise"),
	{ "revoke_mean_us", MMT_METRIC_REAL, "us", MMT_BETTER_NEUTRAL, false, "mean revocation of a round: the zap and the punch, or the move and the second value's store", NULL },
	MMT_COUNT_ROW("reader_reads", "reads", "the reader's reads through the sharing mapping"),
	MMT_COUNT_ROW("reads_judged", "reads", "reads after a revocation returned, each of which must read the hole's 0 (punch) or the moved page's second value (migrate): the reader's 64 through the sharer, and for the migrate variants the revoker's one through the owner"),
	MMT_COUNT_ROW("stale_reads", "reads", "reads after the revocation returned that did not read what they must: the finding"),
	MMT_MAYBE_ROW("injected_stale_reads", MMT_METRIC_COUNT, "reads",
	      "broken-stale: the reads after the punch made from the reader's own page; null otherwise"),
	{ "first_stale", MMT_METRIC_LIST, "", MMT_BETTER_NEUTRAL, false,
	  "the first rounds with stale reads: round, how many, the file's value before the revocation, the first value read, CPUs, whether the round shared, moved and held",
	  &witness_shape },
	MMT_HUNT_ROWS("stale", "held", "stale read"),
	MMT_COUNT_ROW("reader_stuck", "threads", "1 when the reader waited past its bound"),
	MMT_MAYBE_ROW("error", MMT_METRIC_TEXT, "", "a memfd_create, mmap, madvise, fallocate or move_pages failing, and why"),
	MMT_SHAPED_ROW("mutant", "the mutant kernel's counters during the run; null on another kernel", mmt_mutant_shape),
};

static void pmdshare_words(const json_t *run, char *buf, size_t len)
{
	static const struct mmt_hunt_words w = {
		.found = "stale: no fix",
		.premise = "rounds_held",
		.no_premise = "no round held",
		.control_key = "rounds_shared",
		.control = "none shared: kept",
		.kept = "held: kept",
	};

	mmt_hunt_words(run, &w, buf, len);
}

static void pmdshare_describe(const json_t *run, char *buf, size_t len)
{
	const json_t *m = json_object_get(run, "metrics");
	char words[64];

	pmdshare_words(run, words, sizeof(words));
	snprintf(buf, len, "%s%sshared %lld, held %lld of %lld rounds, stale %lld", words, words[0] ? "; " : "",
		 mmt_metric_int(m, "rounds_shared"), mmt_metric_int(m, "rounds_held"), mmt_metric_int(m, "rounds"),
		 mmt_metric_int(m, "stale_reads"));
}

static const struct mmt_scenario pmdshare_scenario = {
	.name = "pmdshare",
	.help = "two hugetlb mappings sharing one PMD table, one unshared by a MADV_DONTNEED while a reader on another CPU reads through it and the page is punched out of the file, every read after the punch checked: reads of a freed huge page through a TLB entry the unshare left behind caught, the premise proven per round",
	MMT_TABLE(variants, ps_variants),
	MMT_TABLE(options, options),
	.min_threads = 2,
	.default_threads = 2,
	.max_threads = 2,
	.default_duration_ns = PS_DEFAULT_BOUND_NS,
	MMT_TABLE(outcomes, outcome_names),
	.ops_unit = "rounds",
	MMT_TABLE(metrics, metrics),
	.needs = {
		.sysctls = sysctls_written,
		.kernel_config = config_needed,
	},
	.extra_events = "tlb:tlb_flush",
	.prepare = pmdshare_prepare,
	.worker = pmdshare_worker,
	.verify = pmdshare_verify,
	.cleanup = pmdshare_cleanup,
	.describe = pmdshare_describe,
};
MMT_SCENARIO(pmdshare_scenario);
