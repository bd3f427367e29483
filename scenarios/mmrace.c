/* SPDX-License-Identifier: MIT */
/*
 * mmrace: mprotect racing page migration, every store accounted for.  The
 * race of kernel commit 20841405940e: mprotect(PROT_NONE) has changed the
 * PTEs but not yet flushed the TLB; migration moves the page and, on a
 * kernel without the fix, does not flush either (the PTE "is not
 * accessible"); a CPU keeps writing through its stale TLB entry to the old
 * frame after the copy.  The write is lost, or lands in a frame that now
 * belongs to someone else.
 *
 * Actors:
 *   writers    (threads) store increasing values to their words of the hot
 *              pages, the first pages of every walk, ledger per word
 *              (mmrace-writer.c)
 *   protector  (thread) mprotect(PROT_NONE) of the walk, then back; waits
 *              for the migrator and for every writer to fault in between
 *              (mmrace-protector.c)
 *   migrator   (a second process mapping the same memfd, so not serialised
 *              by the writers' mmap_lock) moves the hot pages at a random
 *              moment inside the walk (mmrace-migrator.c); race-compaction:
 *              compacts their node instead, the protector re-placing them
 *              below a striped filler between walks
 *   compactor  writes /proc/sys/vm/compact_memory (root); NUMA balancing
 *              is switched on for the run (root) and put back
 * Line-up: worker 0 is the protector; with N >= 3 workers (the default
 * where the placement has 3 CPUs), workers 1..N-2 are writers and the
 * migrator process runs on worker N-1's CPU, each actor on its own; with
 * 2, worker 1 is the writer and the migrator shares the protector's CPU,
 * never the writer's (--migrator-beside-writer 1 puts it there, a line-up
 * that cannot race, to check that the evidence says so).
 *
 * Findings: lost_write (a word older than its ledger after the writer's
 * TLB was flushed), foreign_write (a writer's value in freshly allocated
 * pages or the injector's old frames), stale_tlb_write (a store completed
 * although mprotect had returned before and after it), crash, kernel_splat.
 * Evidence that can be false: a page's migration is in the window only if
 * it began more than the guard after the walk's start and ended more than
 * the guard before its return (migrations_in_window): the migrate call's
 * start, and its return or, sooner, the migrator's watcher's read that saw
 * the page at a new frame after its old one (a call can run over the
 * walk's end).  It raced
 * only if, besides, a writer on another CPU than the migrator's stored to
 * the pages, unfaulted, while the call ran (migrations_raced: both CPUs
 * sampled around the stores and the call).  A race run is conclusive only
 * with a raced migration; the migrate-after-walk control drives both to
 * zero.  On a mutant kernel its own count of PROT_NONE PTEs (race-thp: PMDs)
 * taken with a flush pending adds evidence; nothing depends on it being there.
 */
#include <errno.h>
#include <fcntl.h>
#include <numa.h>
#include <numaif.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include "arch/barrier.h"
#include "clock.h"
#include "metrics.h"
#include "mmrace.h"
#include "mutant.h"

const struct mmt_variant mmr_variants[NR_VARIANTS] = {
	[V_RACE] = { .name = "race",
		.help = "4 KiB pages: a second process migrates the hot pages inside the mprotect walk; compactor and NUMA balancing at once. Without --duration it runs until 64 pages raced (moved in a walk while a writer on another CPU stored to them) or its first lost write, at most 2 minutes. Plain run-scenario mmrace --variant race lost writes in 10 of 10 runs on a kernel with the fix it hunts reverted (scripts/mutant-proof)",
		.forbidden_on = MMT_ARCH_ALL, .family = MMT_FAMILY_KERNEL,
		.hunts = "20841405940e mm: fix TLB flush race between migration, and change_protection_range" },
	[V_RACE_THP] = { .name = "race-thp",
		.help = "as race with the hot set one 2 MiB shmem huge page mapped by a PMD, ahead of the walk's 4 KiB cold pages: the THP migration path (set_pmd_migration_entry()), where 20841405940e's rule for PROT_NONE entries also applies. Without --duration it runs until the huge page raced 64 times or its first lost write. Where shmem_enabled is never or deny, a root run sets it to advise for the run (the journal puts it back). Plain run-scenario mmrace --variant race-thp lost writes in 10 of 10 runs on a kernel with the fix it hunts reverted for THPs (scripts/mutant-proof)",
		.forbidden_on = MMT_ARCH_ALL, .family = MMT_FAMILY_KERNEL,
		.hunts = "20841405940e mm: fix TLB flush race between migration, and change_protection_range" },
	[V_RACE_COMPACTION] = { .name = "race-compaction",
		.help = "as race, but compaction alone moves the hot pages: the second process writes their node's compact file at a random moment inside the walk instead of calling move_pages, and between walks the hot pages are re-placed below the holes of a striped 64 MiB filler (on an idle machine compaction finds no target and moves nothing); the walk crosses its cold pages as many times as make it twice a compaction pass measured before it (walk_aliases); NUMA balancing off for the run. Needs root and CONFIG_COMPACTION. Plain run-scenario mmrace --variant race-compaction lost writes in 10 of 10 runs on a kernel with the fix it hunts reverted (the first after 0.70-1.60 s, median 0.95 s, 2-node TCG guest) and none, conclusive in 10 of 10 (in 6.3-17.9 s), with it in (scripts/mutant-proof)",
		.forbidden_on = MMT_ARCH_ALL, .family = MMT_FAMILY_KERNEL,
		.hunts = "20841405940e mm: fix TLB flush race between migration, and change_protection_range" },
	[V_MIGRATE_AFTER_WALK] = { .name = "migrate-after-walk",
		.help = "control: the same migrations, only once mprotect has returned (flush done, none pending); migrations_in_window must be 0 and no write lost even on the mutant kernel",
		.forbidden_on = MMT_ARCH_ALL, .family = MMT_FAMILY_KERNEL },
	[V_MIGRATE_AFTER_WALK_THP] = { .name = "migrate-after-walk-thp",
		.help = "race-thp's control: its huge page moved only once mprotect has returned; migrations_in_window must be 0 and no write lost even on the mutant kernel",
		.forbidden_on = MMT_ARCH_ALL, .family = MMT_FAMILY_KERNEL },
	[V_BROKEN_STALE_MAPPING] = { .name = "broken-stale-mapping",
		.help = "fault injection in user space: the hot pages copied to a second memfd and mapped in their place, the old frames zeroed for a new owner, while each writer makes --inject-stores stores through the old mapping; each must be reported lost and foreign",
		.injected = true, .family = MMT_FAMILY_INJECTED },
	[V_BROKEN_EARLY_EPOCH] = { .name = "broken-early-epoch",
		.help = "fault injection: the protector announces \"mprotect returned\" before calling it, so stores that complete then look like stores through a flushed TLB; the stale_tlb_write check must fire",
		.injected = true, .family = MMT_FAMILY_INJECTED },
};

static const struct mmt_option options[NR_OPTIONS] = {
	[OPT_HOT_PAGES] = { "hot-pages", "4 KiB pages at the front of each walk that writers store to and the migrator moves (race-thp and its control: 512)",
		4, 1, MMR_MAX_HOT },
	[OPT_WALK_PAGES] = { "walk-pages", "4 KiB pages in each mprotect walk, hot ones first: the rest keep the flush pending while the walk crosses them. 65536 (256 MiB): in the 2-node TCG guest of the mutant kernel the first write was lost after a median 85 ms (8 runs), 234 ms with 16384 (5 runs)",
		65536, 1, 1u << 20 },
	[OPT_COMPACT] = { "compact", "on: a compactor thread writes compact_memory (root). On by default with NUMA balancing: they are the seed's other racers, and in the 2-node TCG guest of the mutant kernel they cost no speed (first write lost after a median 71 ms with both on, 69 ms with both off, 5 runs each)",
		1, 0, 1, mmt_option_off_on },
	[OPT_NUMA_BALANCING] = { "numa-balancing", "on: switch NUMA balancing on for the run (root); see --compact", 1, 0, 1, mmt_option_off_on },
	[OPT_TARGET_WINDOW] = { "target-window", "stop once this many 4 KiB pages raced (moved inside a walk while a writer on another CPU stored to them; race-thp's raced move counts 512; 0: run the whole duration)",
		0, 0, UINT64_MAX },
	[OPT_STOP_ON_LOST] = { "stop-on-lost", "on: end the run at the first lost write (time to it is recorded either way)",
		0, 0, 1, mmt_option_off_on },
	[OPT_INJECT_STORES] = { "inject-stores", "broken-stale-mapping: stores each writer makes through the old mapping per injection (at most one per word)",
		64, 1, 1000000 },
	[OPT_MIGRATOR_BESIDE_WRITER] = { "migrator-beside-writer", "1: the migrator process on the first writer's CPU; with that writer the only one (2 or 3 workers), a line-up that cannot race (a switch there empties that CPU's TLB under emulation): the run must come out INCONCLUSIVE saying so. A check of the evidence, not a way to hunt",
		0, 0, 1 },
};

static const char *const outcome_names[NR_OUTCOMES] = { "verified", "lost_write", "foreign_write",
							 "stale_tlb_write", "crash", "kernel_splat" };

static bool uses_migrator(int v)
{
	return v == V_RACE || v == V_RACE_COMPACTION || mmr_thp(v) || mmr_after_walk(v);
}

static struct mmr_actor *find_actor(struct mmr_priv *p, const char *name)
{
	for (unsigned i = 0; i < p->nr_actors; i++)
		if (!strcmp(p->actors[i].name, name))
			return &p->actors[i];
	return NULL;
}

static void actor(struct mmr_priv *p, const char *name, bool on, const char *why)
{
	struct mmr_actor *a = find_actor(p, name);

	if (!a && p->nr_actors < MMR_NR_ACTORS) {
		a = &p->actors[p->nr_actors++];
		a->name = name;
	}
	if (!a)
		return;
	snprintf(a->why, sizeof(a->why), "%s", why ? why : "");
	a->why_off = on ? NULL : a->why;
}

static bool actor_on(const struct mmr_priv *p, const char *name)
{
	const struct mmr_actor *a = find_actor((struct mmr_priv *)p, name);

	return a && !a->why_off;
}

/* Why an actor is off ("" when it is on or unknown). */
static const char *actor_why_off(const struct mmr_priv *p, const char *name)
{
	const struct mmr_actor *a = find_actor((struct mmr_priv *)p, name);

	return a && a->why_off ? a->why_off : "";
}

/* ---- memory -------------------------------------------------------------- */

/* A MAP_SHARED view of fd at a 2 MiB boundary (huge pages need it). */
static char *map_aligned(int fd, size_t len)
{
	size_t slack = 2ul << 20;
	char *raw = mmap(NULL, len + slack, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *at;

	if (raw == MAP_FAILED)
		return NULL;
	at = (char *)(((uintptr_t)raw + slack - 1) & ~(slack - 1));
	if (mmap(at, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED) {
		munmap(raw, len + slack);	/* the caller knows nothing of it */
		return NULL;
	}
	if (at > raw)
		munmap(raw, (size_t)(at - raw));
	munmap(at + len, (size_t)(raw + len + slack - (at + len)));
	return at;
}

static void bind_to_node(void *at, size_t len, int node)
{
	struct bitmask *bm;

	if (numa_available() < 0 || node < 0)
		return;
	bm = numa_allocate_nodemask();
	numa_bitmask_setbit(bm, (unsigned)node);
	mbind(at, len, MPOL_PREFERRED, bm->maskp, bm->size + 1, 0);
	numa_free_nodemask(bm);
}

/* The run's memory node, or one other than it; -1 without NUMA or such. */
static int run_node(const struct mmr_priv *p, bool other)
{
	if (numa_available() < 0)
		return -1;
	for (int nd = 0; other && nd <= numa_max_node(); nd++)
		if (nd != p->run->mem_node && numa_bitmask_isbitset(numa_all_nodes_ptr, (unsigned)nd))
			return nd;
	return other ? -1 : p->run->mem_node;
}

static void bind_to_run_node(struct mmr_priv *p, void *at, size_t len)
{
	bind_to_node(at, len, run_node(p, false));
}

/* race-compaction: a view of the hot pages to re-place them through, and
 * the filler whose freed pages give compaction its targets (mmrace.h). */
/*
 * The filler's pages that stay, each referenced by a pipe (vmsplice takes
 * a reference to the page, not a copy): compaction passes over a page with
 * more references than mappings without trying to move it.  Measured in
 * the TCG guest before this: a pass moved 150-870 of the filler's own
 * pages into its holes (up to 1.9 s), where the 4 hot pages were the point.
 * Best effort: a page left unpinned only makes passes longer.  Whether
 * every page is pinned: then the holes can be freed in one call.
 */
static bool pin_filler(struct mmr_priv *p)
{
	struct iovec iov[MMR_PIN_PIPE_PAGES];
	bool all = true;

	for (unsigned k = 0; k < MMR_PIN_PIPES; k++) {
		int *fd = p->pin_pipe[k];

		if (pipe2(fd, O_CLOEXEC)) {
			fd[0] = fd[1] = -1;
			all = false;
			continue;
		}
		fcntl(fd[1], F_SETPIPE_SZ, MMR_PIN_PIPE_PAGES * (int)MMR_PAGE);
		for (unsigned j = 0; j < MMR_PIN_PIPE_PAGES; j++) {
			size_t page = ((size_t)k * MMR_PIN_PIPE_PAGES + j) * MMR_FILLER_STRIDE + 1;

			iov[j] = (struct iovec){ p->filler + page * MMR_PAGE, MMR_PAGE };
		}
		all &= vmsplice(fd[1], iov, MMR_PIN_PIPE_PAGES, SPLICE_F_NONBLOCK) ==
		       (ssize_t)(MMR_PIN_PIPE_PAGES * MMR_PAGE);
	}
	return all;
}

static int map_filler(struct mmr_priv *p)
{
	const size_t hot = (size_t)p->hot * MMR_PAGE, len = MMR_FILLER_PAGES * MMR_PAGE;

	p->view[0] = mmap(NULL, hot, PROT_READ | PROT_WRITE, MAP_SHARED, p->memfd[0], 0);
	p->filler = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	p->hot_copy = malloc(hot);
	if (p->view[0] == MAP_FAILED)
		p->view[0] = NULL;
	if (p->filler == MAP_FAILED)
		p->filler = NULL;
	if (!p->view[0] || !p->filler || !p->hot_copy)
		return -1;
	madvise(p->filler, len, MADV_NOHUGEPAGE);	/* order-0 pages, holes of one */
	madvise(p->filler, len, MADV_DONTFORK);		/* the migrator has no use for it */
	bind_to_run_node(p, p->filler, len);
	memset(p->filler, 1, len);
	p->filler_pinned = pin_filler(p);
	mmr_free_holes(p);
	return 0;
}

static int map_region(struct mmr_priv *p)
{
	const size_t hot = (size_t)p->hot * MMR_PAGE;
	const int nfd = p->variant == V_BROKEN_STALE_MAPPING ? 2 : 1;

	p->region_len = (size_t)p->walk * MMR_PAGE;
	p->walk_aliases = 1;
	/* race-compaction and race-thp hold the address space for lengthen_walk(). */
	p->reserve_len = p->region_len + (p->variant == V_RACE_COMPACTION || mmr_thp(p->variant) ?
		(size_t)(MMR_MAX_WALK_ALIASES - 1) * (p->region_len - (size_t)p->hot * MMR_PAGE) : 0);
	for (int i = 0; i < nfd; i++) {
		p->memfd[i] = memfd_create("mmtorture-mmrace", MFD_CLOEXEC);
		if (p->memfd[i] < 0 || ftruncate(p->memfd[i], (off_t)p->region_len))
			return -1;
		if (nfd == 2) {
			p->view[i] = mmap(NULL, hot, PROT_READ | PROT_WRITE, MAP_SHARED, p->memfd[i], 0);
			if (p->view[i] == MAP_FAILED) {
				p->view[i] = NULL;
				return -1;
			}
		}
	}
	p->region = map_aligned(p->memfd[0], p->reserve_len);
	if (!p->region)
		return -1;
	if (p->variant == V_RACE_COMPACTION && map_filler(p))
		return -1;
	/* A huge hot page alone: the 4 KiB cold pages after it keep the walk,
	 * and so its flush, pending (the walk crosses a PMD at once). */
	madvise(p->region, p->region_len, MADV_NOHUGEPAGE);
	if (mmr_thp(p->variant))
		madvise(p->region, hot, MADV_HUGEPAGE);
	bind_to_run_node(p, p->region, p->region_len);
	/* race-compaction: the cold pages on another node where there is one,
	 * so that a pass over the hot pages' node has little else to move. */
	if (p->variant == V_RACE_COMPACTION && p->walk > p->hot)
		bind_to_node(p->region + hot, p->region_len - hot, run_node(p, true));
	/* Every page of the walk populated: each PTE the walk changes is what
	 * keeps its flush pending. */
	memset(p->region, 0, p->region_len);
	return 0;
}

static void unmap_region(struct mmr_priv *p)
{
	if (p->region)
		munmap(p->region, p->reserve_len);
	if (p->filler)
		munmap(p->filler, MMR_FILLER_PAGES * MMR_PAGE);
	for (unsigned k = 0; k < MMR_PIN_PIPES; k++)
		for (int e = 0; e < 2; e++)
			if (p->pin_pipe[k][e] >= 0)
				close(p->pin_pipe[k][e]);
	free(p->hot_copy);
	for (int i = 0; i < 2; i++) {
		if (p->view[i])
			munmap(p->view[i], (size_t)p->hot * MMR_PAGE);
		if (p->memfd[i] >= 0)
			close(p->memfd[i]);
	}
}

/* kB of shmem mapped by PMDs in this process: whether huge pages back it. */
static long shmem_pmd_kb(void)
{
	FILE *f = fopen("/proc/self/smaps_rollup", "re");
	char line[128];
	long kb = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "ShmemPmdMapped: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

static int setup_writers(struct mmr_priv *p)
{
	p->ws = mmt_alloc_lines(p->nwriters * sizeof(*p->ws));
	if (!p->ws)
		return -1;
	for (unsigned w = 0; w < p->nwriters; w++) {
		struct mmr_writer *ws = &p->ws[w];
		unsigned k = 0;

		ws->nwords = p->hot * MMR_LINES_PER_WRITER * MMR_LINE_WORDS;
		ws->ledger = calloc(ws->nwords, sizeof(*ws->ledger));
		ws->words = calloc(ws->nwords, sizeof(*ws->words));
		if (!ws->ledger || !ws->words)
			return -1;
		for (unsigned pg = 0; pg < p->hot; pg++)
			for (unsigned l = 0; l < MMR_LINES_PER_WRITER; l++)
				for (unsigned i = 0; i < MMR_LINE_WORDS; i++)
					ws->words[k++] = (uint64_t *)(p->region + (size_t)pg * MMR_PAGE) +
							 ((w * MMR_LINES_PER_WRITER + l) * MMR_LINE_WORDS + i);
	}
	return 0;
}

/* ---- prepare ------------------------------------------------------------- */

/* race-compaction: compaction alone moves pages, so NUMA balancing,
 * which migrates on its hinting faults, is switched off for the run
 * where it is on (the journal puts it back). */
static void numa_balancing_off(struct mmr_priv *p)
{
	const char *path = "/proc/sys/kernel/numa_balancing";
	char err[256], why[320];

	if (access(path, F_OK))
		actor(p, "numa_balancing", false, "race-compaction: this kernel has no NUMA balancing");
	else if (!p->root)
		actor(p, "numa_balancing", false, "race-compaction: left as it is, not root");
	else if (mmt_sysctl_set(path, "0", err, sizeof(err))) {
		snprintf(why, sizeof(why), "race-compaction: could not switch it off: %s", err);
		actor(p, "numa_balancing", false, why);
	} else
		actor(p, "numa_balancing", false, "race-compaction: switched off for the run, compaction alone moves pages");
}

/* race-thp and its control: a memfd's page comes huge only where
 * shmem_enabled allows it.  advise asks no more than the hot page's
 * MADV_HUGEPAGE; where it is never or deny a root run sets advise for the
 * run (the journal puts it back).  Before the region is populated. */
static void shmem_huge_advise(struct mmr_priv *p)
{
	const char *path = MMT_THP_SYSFS "/shmem_enabled";
	char now[160] = "", err[256];	/* "always [never] ...", then its choice */
	const char *choice = now;
	FILE *f = fopen(path, "re");

	if (!f) {
		snprintf(p->shmem_thp_why, sizeof(p->shmem_thp_why), "this kernel has no shmem huge pages (%s: %s)", path,
			 strerror(errno));
		return;
	}
	if (!fgets(now, sizeof(now), f)) {
		snprintf(p->shmem_thp_why, sizeof(p->shmem_thp_why), "%s: %s", path,
			 ferror(f) ? strerror(errno) : "empty");
		fclose(f);
		return;
	}
	fclose(f);
	if (!mmt_sysctl_choice_in_force(now, strlen(now))) {	/* now untouched */
		snprintf(p->shmem_thp_why, sizeof(p->shmem_thp_why), "%s: no choice in force in '%.*s'", path,
			 (int)strcspn(now, "\n"), now);
		return;
	}
	p->shmem_thp_on = strcmp(choice, "never") && strcmp(choice, "deny");
	if (p->shmem_thp_on)
		snprintf(p->shmem_thp_why, sizeof(p->shmem_thp_why), "shmem_enabled %s", choice);
	else if (geteuid() != 0)
		snprintf(p->shmem_thp_why, sizeof(p->shmem_thp_why), "shmem_enabled is %s: needs root to set advise", choice);
	else if (mmt_sysctl_set(path, "advise", err, sizeof(err)))
		snprintf(p->shmem_thp_why, sizeof(p->shmem_thp_why), "shmem_enabled is %.16s: %.256s", choice, err);
	else {
		p->shmem_thp_on = true;
		snprintf(p->shmem_thp_why, sizeof(p->shmem_thp_why), "shmem_enabled was %s: advise for the run", choice);
	}
}

static void choose_actors(struct mmr_priv *p)
{
	const struct mmt_run *run = p->run;
	const bool injected = run->variant->injected;
	char err[256];

	p->nr_actors = 0;
	actor(p, "protector", true, NULL);
	if (!uses_migrator(p->variant))
		actor(p, "migrator", false, "not with injection");
	else if (!p->root)
		actor(p, "migrator", false, p->variant == V_RACE_COMPACTION ?
		      "needs root: the compact file, and the PFNs that show a page moved" :
		      "needs root: moving pages shared with another process needs CAP_SYS_NICE (MPOL_MF_MOVE_ALL)");
	else if (p->variant == V_RACE_COMPACTION && access(p->compact_path, W_OK)) {
		snprintf(err, sizeof(err), "race-compaction: %s: %s (CONFIG_COMPACTION?)", p->compact_path,
			 strerror(errno));
		actor(p, "migrator", false, err);
	} else
		actor(p, "migrator", true, NULL);
	if (p->variant == V_RACE_COMPACTION)
		actor(p, "compactor", false, "race-compaction: the migrator process compacts instead, inside the walk");
	else if (injected || !run->opt[OPT_COMPACT])
		actor(p, "compactor", false, injected ? "not with injection" : "--compact 0");
	else if (!p->root)
		actor(p, "compactor", false, "needs root (/proc/sys/vm/compact_memory)");
	else
		actor(p, "compactor", true, NULL);
	if (p->variant == V_RACE_COMPACTION)
		numa_balancing_off(p);
	else if (injected || !run->opt[OPT_NUMA_BALANCING])
		actor(p, "numa_balancing", false, injected ? "not with injection" : "--numa-balancing 0");
	else if (!p->root)
		actor(p, "numa_balancing", false, "needs root (/proc/sys/kernel/numa_balancing)");
	else if (access("/proc/sys/kernel/numa_balancing", W_OK))
		actor(p, "numa_balancing", false, "this kernel has no NUMA balancing");
	else if (mmt_sysctl_set("/proc/sys/kernel/numa_balancing", "1", err, sizeof(err)))
		actor(p, "numa_balancing", false, err);
	else
		actor(p, "numa_balancing", true, NULL);
	if (mmr_thp(p->variant))
		actor(p, "shmem_thp", p->shmem_thp_on, p->shmem_thp_why);
	if (!p->pagemap)
		actor(p, "pfn_tracking", false, "PFNs in /proc/self/pagemap need root: moves cannot be seen");
	else
		actor(p, "pfn_tracking", true, NULL);
}

/* race-compaction compacts the hot pages' node alone where the kernel
 * offers it (a whole machine's compaction can outlast any walk). */
static void find_compact_file(struct mmr_priv *p)
{
	snprintf(p->compact_path, sizeof(p->compact_path), "/sys/devices/system/node/node%d/compact",
		 p->run->mem_node < 0 ? 0 : p->run->mem_node);
	if (access(p->compact_path, F_OK))
		snprintf(p->compact_path, sizeof(p->compact_path), "/proc/sys/vm/compact_memory");
}

/* race-compaction: a first pass moves all that is movable on the node,
 * seconds under emulation; made before the first walk (and its bounded
 * waits), each walk's pass then moves little more than the hot pages. */
static void first_pass(struct mmr_priv *p)
{
	if (mmr_compact(p))
		actor(p, "migrator", false, "race-compaction: the first compaction pass failed");
}

/* One walk of the first len bytes of the region and back: how long the
 * PROT_NONE walk took. */
static uint64_t timed_walk(struct mmr_priv *p, size_t len)
{
	uint64_t t0 = mmt_now_ns(), t1;

	mprotect(p->region, len, PROT_NONE);
	t1 = mmt_now_ns();
	mprotect(p->region, len, PROT_READ | PROT_WRITE);
	return t1 - t0;
}

/* The longer of two of the migrator's moves, made before the writers
 * run: race-compaction's pass, or a move of race-thp's huge page to the
 * next node and back; *failed where one of them failed. */
static uint64_t timed_moves(struct mmr_priv *p, bool *failed)
{
	void *pages[MMR_MAX_HOT];
	int nodes[MMR_MAX_HOT], status[MMR_MAX_HOT];
	uint64_t most = 0;

	*failed = false;
	for (unsigned i = 0; i < p->hot; i++)
		pages[i] = p->region + (size_t)i * MMR_PAGE;
	for (uint64_t n = 1; n <= 2 && !*failed; n++) {
		uint64_t t0 = mmt_now_ns(), t;

		*failed = mmr_move_hot(p, p->region, n, pages, nodes, status) < 0;
		t = mmt_now_ns() - t0;
		most = !*failed && t > most ? t : most;
	}
	return most;
}

/*
 * race-compaction: a pass scans its whole node, and in the 2-node TCG
 * guest lasted 22 ms against a default walk's 8: no pass could begin and
 * end inside a walk, so no run with the fix in could be conclusive.
 * race-thp: a move of its huge page lasted 24 ms against a walk's 12, and
 * a call that runs over the walk's end cannot be placed inside it, so
 * lost writes came with no move counted raced.  The guest has no memory
 * to spare for a longer walk, but the walk's length is its PTEs, not its
 * memory: the cold pages mapped again after themselves (MAP_FIXED into
 * the address space map_region() held) add PTEs for the walk to cross,
 * with its flush pending, at the cost of page tables alone.  How many
 * mappings: measured here, so that a walk lasts at least twice the longer
 * of two moves.
 */
static void lengthen_walk(struct mmr_priv *p)
{
	const size_t hot = (size_t)p->hot * MMR_PAGE, cold = p->region_len - hot;
	uint64_t walk = UINT64_MAX, move;
	bool failed;
	unsigned k;

	if (!cold)
		return;
	move = timed_moves(p, &failed);
	if (p->variant == V_RACE_COMPACTION)
		p->pass_ns = move;
	else
		p->huge_move_ns = move;
	if (failed)
		return;
	for (int i = 0; i < 3; i++) {
		uint64_t t = timed_walk(p, p->region_len);

		walk = t < walk ? t : walk;
	}
	k = (unsigned)((2 * move + walk) / (walk ? walk : 1));
	k = k < 1 ? 1 : k > MMR_MAX_WALK_ALIASES ? MMR_MAX_WALK_ALIASES : k;
	for (unsigned i = 1; i < k; i++) {
		char *at = p->region + hot + (size_t)i * cold;

		if (mmap(at, cold, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED | MAP_POPULATE,
			 p->memfd[0], (off_t)hot) == MAP_FAILED)
			break;
		madvise(at, cold, MADV_NOHUGEPAGE);
		p->walk_aliases = i + 1;
	}
	p->region_len = hot + (size_t)p->walk_aliases * cold;
	/* The rest of the address space held goes back (and is no longer
	 * ours to unmap: later mappings may take it). */
	munmap(p->region + p->region_len, p->reserve_len - p->region_len);
	p->reserve_len = p->region_len;
}

/* The window counter of the switch kernel/mutants.tsv ties to this
 * variant, on a kernel that has it; kernel_in_window -1 otherwise. */
static void find_window_counter(struct mmr_priv *p)
{
	char name[64];

	p->window_path[0] = '\0';
	p->kernel_in_window = -1;
	if (!mmt_mutant_of_variant("mmrace", p->run->variant->name, name, sizeof(name)) ||
	    mmt_mutant_counter_path(name, "window", p->window_path, sizeof(p->window_path)))
		p->window_path[0] = '\0';
	else
		p->kernel_in_window = 0;
}

static int mmrace_prepare(struct mmt_run *run)
{
	static const char *const kprefix[] = { "pgmigrate_", "compact_", "numa_", "thp_", "nr_tlb_", NULL };
	struct mmr_priv *p = calloc(1, sizeof(*p));
	unsigned n = run->nr_workers;
	char err[256];

	if (!p)
		return -1;
	run->priv = p;
	p->run = run;
	p->sysctl_mark = mmt_sysctl_mark();
	p->memfd[0] = p->memfd[1] = p->pagemap_fd = p->health.kmsg_fd = -1;
	for (unsigned k = 0; k < MMR_PIN_PIPES; k++)
		p->pin_pipe[k][0] = p->pin_pipe[k][1] = -1;
	p->variant = (int)(run->variant - mmr_variants);
	p->hot = mmr_thp(p->variant) ? 512 : (unsigned)run->opt[OPT_HOT_PAGES];
	p->walk = (unsigned)run->opt[OPT_WALK_PAGES];
	if (p->walk < p->hot)
		p->walk = p->hot;
	if (mmr_thp(p->variant))
		p->walk = (p->walk + 511) / 512 * 512;
	p->nwriters = n <= 2 ? 1 : n - 2;
	if (p->nwriters > MMR_MAX_WRITERS)
		p->nwriters = MMR_MAX_WRITERS;
	p->ctl = mmap(NULL, sizeof(*p->ctl), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p->ctl == MAP_FAILED) {
		p->ctl = NULL;
		return -1;
	}
	memset(p->ctl, 0, sizeof(*p->ctl));
	if (mmr_thp(p->variant))
		shmem_huge_advise(p);
	if (map_region(p) || setup_writers(p))
		return -1;
	p->thp_kb = mmr_thp(p->variant) ? shmem_pmd_kb() : 0;
	p->root = geteuid() == 0;
	p->pagemap_fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	p->pagemap = mmr_read_pfn(p->pagemap_fd, p->region) != 0; /* 0 without CAP_SYS_ADMIN */
	if (numa_available() >= 0)
		for (int nd = 0; nd <= numa_max_node() && p->nodes < MMR_MAX_NODES; nd++)
			if (numa_bitmask_isbitset(numa_all_nodes_ptr, (unsigned)nd))
				p->node_ids[p->nodes++] = nd;
	if (p->nodes == 0)
		p->node_ids[p->nodes++] = 0;
	find_compact_file(p);
	choose_actors(p);
	if (p->variant == V_RACE_COMPACTION && actor_on(p, "migrator"))
		first_pass(p);
	if ((p->variant == V_RACE_COMPACTION || mmr_thp(p->variant)) && actor_on(p, "migrator"))
		lengthen_walk(p);
	p->guard_ns = mmr_calibrate_guard(p);
	/* The first walk's delay needs a walk's length and a move's: the
	 * walk measured here (race-compaction's move: its pass), the move by
	 * the migrator before walk 1 (mmrace-migrator.c).  Without them the
	 * first call began at the walk's start and ran over its end. */
	if (actor_on(p, "migrator")) {
		uint64_t walk = timed_walk(p, p->region_len), again = timed_walk(p, p->region_len);

		p->walk_ns_ema = (double)(walk < again ? walk : again);
		p->migrate_ns_ema = (double)(p->pass_ns ? p->pass_ns : p->huge_move_ns);
	}
	find_window_counter(p);
	if (mmr_install_segv(p))
		return -1;
	mmt_kstate_counters(kprefix, &p->kbefore);
	mmt_mutant_snapshot(&p->mutant_before);
	mmt_health_begin(&p->health);
	/* Last: the child gets a copy of everything above. */
	if (actor_on(p, "migrator") && mmr_migrator_start(p, err, sizeof(err))) {
		fprintf(stderr, "mmtorture: mmrace: %s\n", err);
		return -1;
	}
	return 0;
}

/* ---- workers ------------------------------------------------------------- */

/* Where the migrator process runs: see the line-up at the top. */
static int migrator_cpu(const struct mmt_run *run)
{
	const unsigned n = run->nr_workers;

	if (run->opt[OPT_MIGRATOR_BESIDE_WRITER])
		return run->workers[1].cpu;
	return n >= 3 ? run->workers[n - 1].cpu : run->workers[0].cpu;
}

static void mmrace_worker(struct mmt_worker *w)
{
	struct mmr_priv *p = w->run->priv;
	struct mmr_ctl *c = p->ctl;
	const unsigned n = w->run->nr_workers;

	if (w->id == 0) {
		pthread_t compactor;
		bool have_compactor = false;

		w->role = "protector";
		WRITE_ONCE(c->protector_cpu, w->cpu);
		smp_store_release(&c->child_cpu, migrator_cpu(w->run));
		p->start_ns = mmt_now_ns();
		if (actor_on(p, "compactor"))
			have_compactor = !pthread_create(&compactor, NULL, mmr_compactor, p);
		if (p->variant == V_BROKEN_STALE_MAPPING)
			mmr_injector(p, w);
		else
			mmr_protector(p, w);
		/* Access is open whenever the loops exit. */
		WRITE_ONCE(c->stop, 1);
		if (have_compactor)
			pthread_join(compactor, NULL);
	} else if (w->id - 1 < p->nwriters && (n == 2 || w->id < n - 1)) {
		w->role = "writer";
		p->ws[w->id - 1].wk = w;
		mmr_writer_main(p, w->id - 1);
		w->ops = p->ws[w->id - 1].stores;
	} else {
		/* the migrator process runs here, unless put beside a writer */
		w->role = w->run->opt[OPT_MIGRATOR_BESIDE_WRITER] ? "spare" : "migrator-cpu";
		while (!READ_ONCE(c->stop))
			usleep(1000);
	}
}

/* ---- results ------------------------------------------------------------- */

/* What the record says of a run, built by verify() for the renderer. */
struct mmr_mismatch_report {
	const char *kind;
	uint64_t page, word, writer, iteration, expected, found;
	uint64_t pfn_before, pfn_after, pfn_now;	/* MMT_NONE: unknown */
	int writer_cpu;
};

struct mmr_line_up {
	int protector;
	uint64_t writers[MMR_MAX_WRITERS];
	unsigned nr_writers;
	int64_t migrator;		/* MMT_NONE_SIGNED: no migrator; -1: not known yet */
	const char *migrator_shares, *pages_move, *why;
	char moves[64];
};

struct mmr_node_moves {
	char node[16];
	uint64_t moved;
};

struct mmr_crash {
	int writer;
	uint64_t address;
};

struct mmr_shmem_kb {
	int64_t populated, end;
};

struct mmr_report {
	struct mmr_line_up line_up;
	struct mmr_node_moves to[MMR_MAX_NODES];
	uint64_t cpus[64];
	struct mmr_crash crash;
	struct mmr_shmem_kb shmem;
	struct mmr_mismatch_report mism[MMR_MAX_MISMATCHES];
	struct mmt_health_report health;
	struct mmt_kcounters after, delta;
	struct mmt_mutant_state mutant;
	struct mmt_kconfig config;
};

static const struct mmt_field actor_fields[] = {
	MMT_FIELD(struct mmr_actor, name, MMT_F_TEXT),
	MMT_FIELD_AS("on", struct mmr_actor, why_off, MMT_F_SWITCH),
};
static const struct mmt_shape actor_shape = MMT_SHAPE(struct mmr_actor, actor_fields);

static const struct mmt_field mismatch_fields[] = {
	MMT_FIELD(struct mmr_mismatch_report, kind, MMT_F_TEXT),
	MMT_FIELD(struct mmr_mismatch_report, page, MMT_F_COUNT),
	MMT_FIELD(struct mmr_mismatch_report, word, MMT_F_COUNT),
	MMT_FIELD(struct mmr_mismatch_report, writer, MMT_F_COUNT),
	MMT_FIELD(struct mmr_mismatch_report, iteration, MMT_F_COUNT),
	MMT_FIELD(struct mmr_mismatch_report, expected, MMT_F_HEX),
	MMT_FIELD(struct mmr_mismatch_report, found, MMT_F_HEX),
	MMT_FIELD(struct mmr_mismatch_report, pfn_before, MMT_F_COUNT),
	MMT_FIELD(struct mmr_mismatch_report, pfn_after, MMT_F_COUNT),
	MMT_FIELD(struct mmr_mismatch_report, pfn_now, MMT_F_COUNT),
	MMT_FIELD(struct mmr_mismatch_report, writer_cpu, MMT_F_INT),
};
static const struct mmt_shape mismatch_shape = MMT_SHAPE(struct mmr_mismatch_report, mismatch_fields);

static const struct mmt_field line_up_fields[] = {
	MMT_FIELD(struct mmr_line_up, protector, MMT_F_INT),
	MMT_FIELD_COUNTS(struct mmr_line_up, writers, nr_writers),
	MMT_FIELD(struct mmr_line_up, migrator, MMT_F_SIGNED),
	MMT_FIELD(struct mmr_line_up, migrator_shares, MMT_F_TEXT),
	MMT_FIELD(struct mmr_line_up, pages_move, MMT_F_TEXT),
	MMT_FIELD(struct mmr_line_up, why, MMT_F_TEXT),
};
static const struct mmt_shape line_up_shape = MMT_SHAPE(struct mmr_line_up, line_up_fields);

static const struct mmt_field node_moves_fields[] = {
	MMT_FIELD(struct mmr_node_moves, node, MMT_F_CHARS),
	MMT_FIELD(struct mmr_node_moves, moved, MMT_F_COUNT),
};
static const struct mmt_shape node_moves_shape = MMT_SHAPE(struct mmr_node_moves, node_moves_fields);

static const struct mmt_field crash_fields[] = {
	MMT_FIELD(struct mmr_crash, writer, MMT_F_INT),
	MMT_FIELD(struct mmr_crash, address, MMT_F_COUNT),
};
static const struct mmt_shape crash_shape = MMT_SHAPE(struct mmr_crash, crash_fields);

static const struct mmt_field shmem_fields[] = {
	MMT_FIELD(struct mmr_shmem_kb, populated, MMT_F_SIGNED),
	MMT_FIELD(struct mmr_shmem_kb, end, MMT_F_SIGNED),
};
static const struct mmt_shape shmem_shape = MMT_SHAPE(struct mmr_shmem_kb, shmem_fields);

static uint64_t pfn_or_none(uint64_t pfn)
{
	return pfn ? pfn : MMT_NONE;
}

static void mismatch_report(const struct mmr_mismatch *m, struct mmr_mismatch_report *r)
{
	*r = (struct mmr_mismatch_report){
		.kind = m->foreign ? "foreign" : "lost", .page = m->page, .word = m->word, .writer = m->writer,
		.iteration = m->iteration, .expected = m->expected, .found = m->found,
		.pfn_before = pfn_or_none(m->pfn_before), .pfn_after = pfn_or_none(m->pfn_after),
		.pfn_now = pfn_or_none(m->pfn_now), .writer_cpu = m->cpu,
	};
}

/* Whose CPU the line-up gave the migrator: "writer", "protector" or NULL. */
static const char *migrator_shares(const struct mmr_priv *p)
{
	const int mcpu = READ_ONCE(p->ctl->child_cpu);

	for (unsigned w = 0; w < p->nwriters; w++)
		if (p->run->workers[1 + w].cpu == mcpu)
			return "writer";
	return mcpu == p->run->workers[0].cpu ? "protector" : NULL;
}

/* "; the migrator shares writer CPU n" where the line-up put it there. */
static const char *shares_writer(const struct mmr_priv *p)
{
	static char why[64];
	const char *shares = migrator_shares(p);

	if (!shares || strcmp(shares, "writer"))
		return "";
	snprintf(why, sizeof(why), "; the migrator shares writer CPU %d", READ_ONCE(p->ctl->child_cpu));
	return why;
}

/* A run that found nothing proves nothing unless the race was exercised. */
static void judge(struct mmt_run *run, struct mmr_priv *p, const char *child_death, uint64_t stuck,
		  uint64_t injected)
{
	const struct mmr_ctl *c = p->ctl;

	if (child_death)
		mmt_run_inconclusive(run, "%s", child_death);
	else if (stuck)
		mmt_run_inconclusive(run, "a writer waited more than %llu s in its fault handler for access to come back",
			     (unsigned long long)(MMR_HANDLER_WAIT_NS / 1000000000ull));
	else if (p->wait_timeouts)
		mmt_run_inconclusive(run, "an actor gave up waiting: %s", p->wait_timeout_what);
	else if (p->variant == V_BROKEN_STALE_MAPPING && !injected)
		mmt_run_inconclusive(run, "no stale store was injected (run too short: %llu iterations)",
			     (unsigned long long)p->iterations);
	else if (run->variant->injected)
		return;
	else if (!actor_on(p, "migrator"))
		mmt_run_inconclusive(run, "migrator skipped: %s", actor_why_off(p, "migrator"));
	else if (mmr_thp(p->variant) && p->thp_kb <= 0)
		mmt_run_inconclusive(run, "no shmem huge page backed the hot page when it was populated (ShmemPmdMapped %ld kB; shmem_thp: %s)",
			     p->thp_kb, p->shmem_thp_why);
	else if (!c->pages_moved)
		mmt_run_inconclusive(run, "no hot page moved in %llu %s", (unsigned long long)c->migrate_calls,
			     p->variant == V_RACE_COMPACTION ? "compaction passes" : "move_pages() calls");
	else if (!mmr_after_walk(p->variant) && p->kernel_in_window == 0)
		mmt_run_inconclusive(run, "the mutant kernel saw no PROT_NONE %s with a flush pending during the migrator's calls (%llu pages moved, %llu by the timestamps inside a walk)",
			     mmr_thp(p->variant) ? "PMD invalidated" : "PTE cleared", (unsigned long long)c->pages_moved, (unsigned long long)p->in_window);
	else if (!mmr_after_walk(p->variant) && !p->in_window)
		mmt_run_inconclusive(run, "no migration began and ended inside an mprotect walk (%llu pages moved, all outside)",
			     (unsigned long long)c->pages_moved);
	else if (!mmr_after_walk(p->variant) && !p->raced)
		mmt_run_inconclusive(run, "no writer on another CPU than the migrator's stored to the pages while they moved in a walk (%llu pages: %llu stored from its CPU only, %llu not at all)%s",
			     (unsigned long long)p->in_window, (unsigned long long)p->in_window_same_cpu,
			     (unsigned long long)p->in_window_no_store, shares_writer(p));
}

/* The CPUs set in a 64-bit mask, into cpus; how many. */
static unsigned cpu_mask_list(uint64_t mask, uint64_t *cpus)
{
	unsigned n = 0;

	for (int cpu = 0; cpu < 64; cpu++)
		if (mask & (1ull << cpu))
			cpus[n++] = (uint64_t)cpu;
	return n;
}

/* Who ran where, and which premise the line-up gives up on this machine. */
static void line_up(const struct mmr_priv *p, struct mmr_line_up *l)
{
	const struct mmt_run *run = p->run;
	const unsigned n = run->nr_workers;
	const char *shares = migrator_shares(p);

	l->protector = run->workers[0].cpu;
	l->nr_writers = 0;
	for (unsigned w = 0; w < p->nwriters && w < MMR_MAX_WRITERS; w++)
		l->writers[l->nr_writers++] = (uint64_t)run->workers[1 + w].cpu;
	if (!actor_on(p, "migrator")) {
		l->migrator = MMT_NONE_SIGNED;
		l->migrator_shares = l->pages_move = NULL;
		l->why = "no migrator process (actors.migrator says why)";
		return;
	}
	if (p->variant == V_RACE_COMPACTION)
		snprintf(l->moves, sizeof(l->moves), "by compaction of node %d, no move_pages",
			 p->run->mem_node < 0 ? 0 : p->run->mem_node);
	else if (p->nodes > 1)
		snprintf(l->moves, sizeof(l->moves), "between %d nodes, each walk to the next", p->nodes);
	else
		snprintf(l->moves, sizeof(l->moves), "to new frames on node %d, the only one", p->node_ids[0]);
	l->migrator = READ_ONCE(p->ctl->child_cpu);
	l->migrator_shares = shares;
	l->pages_move = l->moves;
	l->why = n >= 3 && !shares ? "each actor on its own CPU"
		 : shares && !strcmp(shares, "writer") ? "--migrator-beside-writer 1: a line-up that cannot race"
		 : "two workers: the migrator moves pages when the walk on its CPU is preempted";
}

/* The writers' counts, summed. */
struct writer_totals {
	uint64_t stores, faults, window, stale, injected, crashes, stuck;
	uint64_t lost, first_lost_ns, first_lost_iter, moving_stores;
	struct mmr_crash crash;	/* the first crash (crashes > 0): writer and address */
};

static struct writer_totals sum_writers(struct mmr_priv *p)
{
	struct writer_totals t = { 0 };

	for (unsigned w = 0; w < p->nwriters; w++) {
		const struct mmr_writer *ws = &p->ws[w];

		t.stores += ws->stores;
		t.moving_stores += ws->stores_while_moving;
		t.faults += ws->faults;
		t.window += ws->window_writes;
		t.stale += ws->stale_violations;
		t.injected += ws->stale_stores;
		t.lost += ws->lost;
		p->outcomes[OUT_VERIFIED] += ws->verified;
		t.stuck += ws->stuck;
		if (ws->wk && ws->wk->first_witness_ns &&
		    (!t.first_lost_ns || ws->wk->first_witness_ns < t.first_lost_ns)) {
			t.first_lost_ns = ws->wk->first_witness_ns;
			t.first_lost_iter = ws->first_lost_iter;
		}
		if (ws->crashed && !t.crashes++)
			t.crash = (struct mmr_crash){ (int)w, (uint64_t)ws->crash_addr };
	}
	return t;
}

/* What the migrator did: calls, errors, pages moved and where to. */
static void migrator_metrics(struct mmt_run *run, const struct mmr_priv *p, struct mmr_report *r)
{
	const struct mmr_ctl *c = p->ctl;
	unsigned n = 0;

	if (!actor_on(p, "migrator")) {
		mmt_put_null(run, "pages_moved");
		return;
	}
	mmt_put_count(run, "migrate_calls", c->migrate_calls);
	mmt_put_count(run, "migrate_errors", c->migrate_errors);
	mmt_put_text(run, "migrate_last_error", c->migrate_errors ? strerror(c->last_errno) : NULL);
	mmt_put_real(run, "migrate_mean_us", p->migrate_ns_ema / 1000);
	mmt_put_count(run, "pages_moved", c->pages_moved);
	for (int i = 0; p->nodes > 1 && i < p->nodes; i++, n++) {
		snprintf(r->to[n].node, sizeof(r->to[n].node), "%d", p->node_ids[i]);
		r->to[n].moved = c->moved_to[i];
	}
	mmt_put_map(run, "pages_moved_to_node", r->to, n);
}

/* Whether the race ran: migrations inside the protector's window, with a
 * writer's store while the pages moved. */
static void window_metrics(struct mmt_run *run, const struct mmr_priv *p, const struct writer_totals *t,
			   struct mmr_report *r)
{
	mmt_put_count(run, "migrations_in_window", p->in_window);
	mmt_put_count(run, "migrations_raced", p->raced);
	mmt_put_count(run, "migrations_in_window_writer_on_migrator_cpu", p->in_window_same_cpu);
	mmt_put_count(run, "migrations_in_window_no_store", p->in_window_no_store);
	mmt_put_count(run, "migrations_outside_window", p->outside_window);
	mmt_put_count(run, "migrations_in_window_by_watch", p->in_window_by_watch);
	mmt_put_count(run, "move_watch_polls", actor_on(p, "migrator") && p->pagemap ? p->ctl->watch_polls : MMT_NONE);
	mmt_put_count(run, "stores_while_moving", t->moving_stores);
	mmt_put_list(run, "migrator_cpus_seen", r->cpus, cpu_mask_list(p->migrator_cpus, r->cpus));
	line_up(p, &r->line_up);
	mmt_put_object(run, "line_up", &r->line_up);
	mmt_put_count(run, "kernel_window_during_migrations",
		      p->kernel_in_window < 0 || !actor_on(p, "migrator") ? MMT_NONE : (uint64_t)p->kernel_in_window);
	mmt_put_count(run, "writer_faults", t->faults);
	mmt_put_count(run, "window_writes", t->window);
	mmt_put_count(run, "compact_calls", p->compact_calls);
	mmt_put_count(run, "victim_checks", p->victim_checks);
}

/* What was found and how soon; what ended the run and what went wrong. */
static void finding_metrics(struct mmt_run *run, struct mmr_priv *p, const struct writer_totals *t,
			    const char *child_death, struct mmr_report *r)
{
	mmt_put_count(run, "injected_stale_stores", p->variant == V_BROKEN_STALE_MAPPING ? t->injected : MMT_NONE);
	mmt_put_real(run, "time_to_first_lost_ms",
		     t->first_lost_ns ? (double)(t->first_lost_ns - p->start_ns) / 1e6 : NAN);
	mmt_put_count(run, "iterations_to_first_lost", t->first_lost_ns ? t->first_lost_iter : MMT_NONE);
	/* Its own rule (pages raced, walks, ...) or the time bound: the
	 * harness's duration, or a signal. */
	mmt_put_text(run, "ended_by", p->ended_by ? p->ended_by : "duration");
	if (t->lost)	/* perhaps a loss only the final check found */
		mmr_note_lost(p);
	mmt_put_count(run, "raced_to_first_lost", p->lost_known ? p->raced_at_first_lost : MMT_NONE);
	mmt_put_count(run, "wait_timeouts", p->wait_timeouts);
	mmt_put_text(run, "wait_timeout", p->wait_timeouts ? p->wait_timeout_what : NULL);
	mmt_put_text(run, "migrator_death", child_death);
	if (mmr_thp(p->variant)) {
		r->shmem = (struct mmr_shmem_kb){ p->thp_kb, shmem_pmd_kb() };
		mmt_put_object(run, "shmem_pmd_mapped_kb", &r->shmem);
	}
}

/* The kernel's side: its mutant counters, health, vmstat and config. */
static void kernel_metrics(struct mmt_run *run, const struct mmr_priv *p, struct mmr_report *r)
{
	static const char *const config[] = { "CONFIG_NUMA_BALANCING", "CONFIG_COMPACTION",
		"CONFIG_MIGRATION", "CONFIG_TRANSPARENT_HUGEPAGE", "CONFIG_NUMA", NULL };

	mmt_mutant_snapshot(&r->mutant);
	mmt_mutant_delta(&p->mutant_before, &r->mutant);
	mmt_put_object(run, "mutant", r->mutant.present ? &r->mutant : NULL);
	mmt_put_object(run, "kernel_health", &r->health);
	mmt_kstate_delta(&p->kbefore, &r->after, &r->delta);
	mmt_put_map(run, "vmstat_delta", r->delta.e, r->delta.n);
	mmt_kernel_config(config, &r->config);
	if (r->config.found)
		mmt_put_map(run, "kernel_config", r->config.e, r->config.n);
	else
		mmt_put_null(run, "kernel_config");
}

static void mmrace_verify(struct mmt_run *run)
{
	static const char *const kprefix[] = { "pgmigrate_", "compact_", "numa_", "thp_", "nr_tlb_", NULL };
	struct mmr_priv *p = run->priv;
	const char *child_death = mmr_migrator_stop(p);
	struct mmr_report *r = calloc(1, sizeof(*r));
	struct writer_totals t;

	if (!r) {
		snprintf(run->values_error, sizeof(run->values_error), "mmrace: out of memory for the record");
		return;
	}
	p->report = r;
	/* The words written since each writer's last check (writers have
	 * stopped, access is open), and the injector's last old frames. */
	for (unsigned w = 0; w < p->nwriters; w++)
		if (!p->ws[w].crashed && !p->ws[w].stuck)
			mmr_verify_words(p, &p->ws[w], w, p->iterations + 1);
	if (p->variant == V_BROKEN_STALE_MAPPING && p->iterations)
		mmr_find_foreign(p, (const uint64_t *)p->view[!p->current], (size_t)p->hot * MMR_PAGE,
				 p->iterations + 1);
	t = sum_writers(p);
	p->outcomes[OUT_LOST] = t.lost;
	p->outcomes[OUT_STALE_TLB] = t.stale;
	p->outcomes[OUT_CRASH] = t.crashes;
	mmt_kstate_counters(kprefix, &r->after);
	mmt_health_end(&p->health, &r->health);
	if (r->health.splat)
		p->outcomes[OUT_SPLAT] = 1;
	memcpy(run->outcomes, p->outcomes, sizeof(p->outcomes));
	run->ops = t.stores;
	for (unsigned i = 0; i < p->nr_mismatches; i++)
		mismatch_report(&p->mismatch[i], &r->mism[i]);

	mmt_put_map(run, "actors", p->actors, p->nr_actors);
	mmt_put_count(run, "writers", p->nwriters);
	mmt_put_count(run, "hot_pages", p->hot);
	mmt_put_count(run, "walk_pages", p->walk);
	mmt_put_count(run, "walk_aliases", p->walk_aliases);
	mmt_put_real(run, "compaction_pass_us", (double)p->pass_ns / 1000);
	mmt_put_real(run, "huge_move_us", (double)p->huge_move_ns / 1000);
	mmt_put_count(run, "iterations", p->iterations);
	mmt_put_count(run, "mprotect_calls", p->mprotect_calls);
	mmt_put_real(run, "walk_mean_us", p->walk_ns_ema / 1000);
	mmt_put_real(run, "guard_us", (double)p->guard_ns / 1000);
	migrator_metrics(run, p, r);
	window_metrics(run, p, &t, r);
	finding_metrics(run, p, &t, child_death, r);
	mmt_put_list(run, "first_mismatches", r->mism, p->nr_mismatches);
	r->crash = t.crash;	/* rendered after verify() returns: not t's */
	mmt_put_object(run, "crash", t.crashes ? &r->crash : NULL);
	kernel_metrics(run, p, r);

	/* Findings are conclusive by themselves. */
	if (!t.lost && !p->outcomes[OUT_FOREIGN] && !t.stale && !t.crashes)
		judge(run, p, child_death, t.stuck, t.injected);
}

static void mmrace_cleanup(struct mmt_run *run)
{
	struct mmr_priv *p = run->priv;

	if (!p)
		return;
	mmr_migrator_stop(p);
	mmr_remove_segv();
	/* Only this run's: --mutant's switches stay for the invocation. */
	mmt_sysctl_restore_to(p->sysctl_mark);
	unmap_region(p);
	if (p->pagemap_fd >= 0)
		close(p->pagemap_fd);
	if (p->health.kmsg_fd >= 0)	/* verify()'s mmt_health_end did not run */
		close(p->health.kmsg_fd);
	for (unsigned w = 0; p->ws && w < p->nwriters; w++) {
		free(p->ws[w].ledger);
		free(p->ws[w].words);
	}
	free(p->ws);
	if (p->ctl)
		munmap(p->ctl, sizeof(*p->ctl));
	free(p->report);
	free(p);
	run->priv = NULL;
}

static const char *const sysctls_written[] = { "/proc/sys/kernel/numa_balancing", MMT_THP_SYSFS "/shmem_enabled", NULL };
/* move_pages() and NUMA balancing: without them nothing moves a page */
static const char *const config_needed[] = { "CONFIG_MIGRATION", NULL };

static const struct mmt_metric metrics[] = {
	{ "actors", MMT_METRIC_OBJECT, "", MMT_BETTER_NEUTRAL, false,
	  "each actor on, or {\"skipped\": why}: protector, migrator, compactor, numa_balancing, pfn_tracking",
	  &actor_shape },
	MMT_COUNT_ROW("writers", "threads", "writer threads"),
	MMT_COUNT_ROW("hot_pages", "pages", "pages the writers store to and the migrator moves"),
	MMT_COUNT_ROW("walk_pages", "pages", "pages in each mprotect walk"),
	MMT_COUNT_ROW("walk_aliases", "mappings", "mappings of the walk's cold pages it crosses (race-compaction, race-thp and its control: enough for a walk twice the move measured before it)"),
	{ "compaction_pass_us", MMT_METRIC_REAL, "us", MMT_BETTER_NEUTRAL, false,
	  "race-compaction: the longer of two compaction passes measured before the walks (0: none)", NULL },
	{ "huge_move_us", MMT_METRIC_REAL, "us", MMT_BETTER_NEUTRAL, false,
	  "race-thp and its control: the longer of two moves of the huge page measured before the walks (0: none)", NULL },
	MMT_COUNT_ROW("iterations", "walks", "mprotect walks (PROT_NONE and back)"),
	MMT_COUNT_ROW("mprotect_calls", "calls", "mprotect() calls"),
	{ "walk_mean_us", MMT_METRIC_REAL, "us", MMT_BETTER_NEUTRAL, false, "mean mprotect walk (moving average)", NULL },
	{ "guard_us", MMT_METRIC_REAL, "us", MMT_BETTER_NEUTRAL, false,
	  "calibrated guard between a store's epoch and the protector's announcement", NULL },
	MMT_COUNT_ROW("migrate_calls", "calls", "the migrator's move_pages() calls (race-compaction: its compaction passes)"),
	MMT_COUNT_ROW("migrate_errors", "calls", "move_pages() calls that failed"),
	MMT_MAYBE_ROW("migrate_last_error", MMT_METRIC_TEXT, "", "the last move_pages() error; null without one"),
	{ "migrate_mean_us", MMT_METRIC_REAL, "us", MMT_BETTER_NEUTRAL, false, "mean move_pages() call (moving average)", NULL },
	MMT_MAYBE_ROW("pages_moved", MMT_METRIC_COUNT, "pages", "pages move_pages() moved; null without the migrator"),
	{ "pages_moved_to_node", MMT_METRIC_OBJECT, "", MMT_BETTER_NEUTRAL, false, "pages moved, by target node",
	  &node_moves_shape },
	MMT_COUNT_ROW("migrations_in_window", "migrations", "migrations inside an mprotect walk"),
	MMT_COUNT_ROW("migrations_raced", "migrations",
	      "migrations inside a walk while a writer on another CPU stored to the page: the race's premise"),
	MMT_COUNT_ROW("migrations_in_window_writer_on_migrator_cpu", "migrations",
	      "in the window, but with the writer on the migrator's CPU: cannot race"),
	MMT_COUNT_ROW("migrations_in_window_no_store", "migrations", "in the window, but no store landed while the page moved"),
	MMT_COUNT_ROW("migrations_outside_window", "migrations", "migrations with no walk in progress"),
	MMT_COUNT_ROW("migrations_in_window_by_watch", "migrations",
	      "of migrations_in_window, those whose migrate call ran over the walk's end but whose move the watcher's reads saw done inside it"),
	MMT_MAYBE_ROW("move_watch_polls", MMT_METRIC_COUNT, "reads",
	      "the migrator's watcher's reads of the hot pages' frames during its calls, which time each page's move; null without PFNs (not root)"),
	MMT_COUNT_ROW("stores_while_moving", "stores", "stores that completed while their page was being moved"),
	{ "migrator_cpus_seen", MMT_METRIC_LIST, "", MMT_BETTER_NEUTRAL, false, "CPUs the migrator process ran on", NULL },
	{ "line_up", MMT_METRIC_OBJECT, "", MMT_BETTER_NEUTRAL, false, "which actor shares which CPU, and why", &line_up_shape },
	MMT_MAYBE_ROW("kernel_window_during_migrations", MMT_METRIC_COUNT, "PTEs",
	      "the mutant kernel's window count (of the switch kernel/mutants.tsv ties to this variant) during migrations; null without it"),
	MMT_COUNT_ROW("writer_faults", "faults", "SIGSEGVs the writers took on PROT_NONE pages (each retried)"),
	MMT_COUNT_ROW("window_writes", "stores", "stores that completed inside a walk"),
	MMT_COUNT_ROW("compact_calls", "writes", "writes to compact_memory"),
	MMT_COUNT_ROW("victim_checks", "checks", "checks of frames freed by migration for foreign writes"),
	MMT_MAYBE_ROW("injected_stale_stores", MMT_METRIC_COUNT, "stores", "broken-stale-mapping: stores made through the old mapping"),
	MMT_MAYBE_ROW("time_to_first_lost_ms", MMT_METRIC_REAL, "ms", "run start to the first lost write; null without one"),
	MMT_MAYBE_ROW("iterations_to_first_lost", MMT_METRIC_COUNT, "stores", "the first lost write's store count; null without one"),
	{ "ended_by", MMT_METRIC_TEXT, "", MMT_BETTER_NEUTRAL, false,
	  "what ended the run: its own rule (pages raced, a lost write, ...), the duration, or a signal", NULL },
	MMT_MAYBE_ROW("raced_to_first_lost", MMT_METRIC_COUNT, "migrations", "raced migrations before the first lost write"),
	MMT_COUNT_ROW("wait_timeouts", "waits", "bounded waits between actors that gave up"),
	MMT_MAYBE_ROW("wait_timeout", MMT_METRIC_TEXT, "", "what the first wait that gave up waited for"),
	MMT_MAYBE_ROW("migrator_death", MMT_METRIC_TEXT, "", "how the migrator process died, if it did"),
	{ "shmem_pmd_mapped_kb", MMT_METRIC_OBJECT, "KiB", MMT_BETTER_NEUTRAL, false,
	  "race-thp and its control: ShmemPmdMapped when populated and at the end", &shmem_shape },
	{ "first_mismatches", MMT_METRIC_LIST, "", MMT_BETTER_NEUTRAL, false, "the first words whose value was wrong",
	  &mismatch_shape },
	MMT_SHAPED_ROW("crash", "the first writer that crashed, and where", crash_shape),
	MMT_SHAPED_ROW("mutant", "the mutant kernel's counters during the run; null on another kernel", mmt_mutant_shape),
	{ "kernel_health", MMT_METRIC_OBJECT, "", MMT_BETTER_NEUTRAL, false, "taint and new kernel log lines during the run",
	  &mmt_health_shape },
	MMT_SHAPED_ROW("vmstat_delta", "migration, compaction, NUMA and TLB counters of /proc/vmstat, as deltas",
	       mmt_kcounters_shape),
	MMT_SHAPED_ROW("kernel_config", "the kernel options the race depends on; null when no config is found",
	       mmt_kconfig_shape),
};

/* In a few words, what the run says of the kernel and whether pages moved
 * inside the protector's window: "in window: has fix" (ok: pages raced,
 * no write lost), "lost: no fix" (a finding), or why an INCONCLUSIVE run
 * could not tell ("none in window", "no store raced", "no migrator").
 * They follow the run's status (judge() and the findings made it).  At
 * most 18 characters, first in the detail: the table has 120 columns, and
 * a row with the longest variant and verdict keeps that much of it. */
static void mmrace_words(const json_t *run, char *buf, size_t len)
{
	const json_t *m = json_object_get(run, "metrics");
	const json_t *h = json_object_get(json_object_get(run, "witnesses"), "histogram");
	const char *status = json_string_value(json_object_get(run, "status"));
	const char *variant = json_string_value(json_object_get(run, "variant"));
	bool control = false;

	buf[0] = '\0';
	if (!status || !variant)
		return;
	for (int i = 0; i < NR_VARIANTS; i++)
		control |= mmr_after_walk(i) && !strcmp(variant, mmr_variants[i].name);
	if (json_is_true(json_object_get(run, "injected")))
		snprintf(buf, len, "fault injected");
	else if (!strcmp(status, "witnessed"))
		snprintf(buf, len, "%s: no fix",
			 mmt_metric_int(h, "lost_write") || mmt_metric_int(h, "foreign_write") ? "lost"
			 : mmt_metric_int(h, "stale_tlb_write") ? "stale TLB" : mmt_metric_int(h, "crash") ? "crash" : "splat");
	else if (control && mmt_metric_int(m, "migrations_in_window"))
		snprintf(buf, len, "%lld in window", mmt_metric_int(m, "migrations_in_window"));
	else if (control)	/* as it must be */
		snprintf(buf, len, "none in window");
	else if (!strcmp(status, "ok"))
		snprintf(buf, len, "in window: has fix");
	else if (!strcmp(status, "inconclusive"))
		snprintf(buf, len, "%s", json_is_null(json_object_get(m, "pages_moved")) ? "no migrator"
			 : !mmt_metric_int(m, "migrations_in_window") ? "none in window"
			 : !mmt_metric_int(m, "migrations_raced") ? "no store raced" : "");
}

static void mmrace_describe(const json_t *run, char *buf, size_t len)
{
	const json_t *m = json_object_get(run, "metrics");
	char words[64];

	mmrace_words(run, words, sizeof(words));
	snprintf(buf, len, "%s%sraced %lld, in-window %lld, moved %lld, walk %.0fus, window writes %lld", words,
		 words[0] ? "; " : "", mmt_metric_int(m, "migrations_raced"), mmt_metric_int(m, "migrations_in_window"),
		 mmt_metric_int(m, "pages_moved"), json_number_value(json_object_get(m, "walk_mean_us")),
		 mmt_metric_int(m, "window_writes"));
}

static const struct mmt_scenario mmrace = {
	.name = "mmrace",
	.help = "mprotect racing page migration from a second process, every store verified: lost writes caught, the race window proven hit",
	MMT_TABLE(variants, mmr_variants),
	MMT_TABLE(options, options),
	.min_threads = 2,
	.default_threads = 3,
	.default_threads_fit = true,
	.default_placement = "spread",
	.default_duration_ns = MMR_DEFAULT_BOUND_NS,
	.max_threads = 2 + MMR_MAX_WRITERS,
	MMT_TABLE(outcomes, outcome_names),
	.ops_unit = "stores",
	MMT_TABLE(metrics, metrics),
	.needs = {
		.root = "moving pages shared with another process (CAP_SYS_NICE), compact_memory, NUMA balancing, PFNs in pagemap",
		.root_optional = true,	/* runs with those actors off, each said in "actors" */
		.sysctls = sysctls_written,
		.kernel_config = config_needed,
	},
	.extra_events = "tlb:tlb_flush,migrate:mm_migrate_pages,compaction:mm_compaction_migratepages",
	.prepare = mmrace_prepare,
	.worker = mmrace_worker,
	.verify = mmrace_verify,
	.cleanup = mmrace_cleanup,
	.describe = mmrace_describe,
};
MMT_SCENARIO(mmrace);
