/* SPDX-License-Identifier: MIT */
/*
 * mmrace: mprotect racing page migration and compaction, every store
 * accounted for.  The race of kernel commit 20841405940e: while
 * change_protection() has made PTEs inaccessible but not yet flushed the
 * TLB, migration moves the page, and a CPU keeps writing through its stale
 * TLB entry to the old frame.  The write is lost (or lands in a frame that
 * now belongs to someone else).
 *
 * Actors, each on its own thread:
 *   writers    store unique tags (writer, round, page) into their own slot
 *              (cache line) of every page of the region, once per round;
 *              a ledger (round, pages done) in memory that is never
 *              protected or migrated says what each has stored
 *   protector  per iteration: mprotect(PROT_NONE or PROT_READ) of a range
 *              around where the writers are (their TLB entries are hot),
 *              then back; writers that fault wait in their SIGSEGV handler
 *              until access is back and the store re-executes.  At the end
 *              of each round it verifies every slot against the ledgers.
 *   migrator   migrates the same range while it is protected: mbind(MPOL_BIND,
 *              MPOL_MF_MOVE) to the next node, or on one node
 *              mbind(MPOL_LOCAL, MPOL_MF_MOVE), which moves every page to a
 *              new frame; a page counts as moved only if its PFN changed
 *   compactor  writes /proc/sys/vm/compact_memory (root)
 *   NUMA balancing is switched on for the run (root) and restored.
 * Each iteration the protector announces itself, the migrator snapshots the
 * PFNs and says it is ready, the protector picks the range at the last
 * moment and starts its walk, and the migrator starts after a random delay
 * of up to twice the mean mprotect time (in the manner of LTP's fuzzy
 * sync), so migrations land inside mprotect walks rather than by luck.
 *
 * Findings: lost_write (a slot older than its writer's ledger says),
 * foreign_write (a writer's tag in freshly allocated victim pages),
 * stale_tlb_write (a store that completed without a fault although the
 * writer saw, before and after it, that mprotect had returned), crash
 * (SIGSEGV outside the region) and kernel_splat (new taint or
 * WARNING/BUG/Oops lines).  Evidence the window was exercised:
 * window_writes, migrations_in_window, overlap_witnesses; none means
 * INCONCLUSIVE, never a pass.
 */
#include <errno.h>
#include <fcntl.h>
#include <numa.h>
#include <numaif.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "arch/barrier.h"
#include "clock.h"
#include "kstate.h"
#include "mix.h"
#include "scenario.h"

enum mmrace_variant {
	V_RACE,
	V_RACE_THP,
	V_WRITER_ON_PROTECTOR_CPU,
	V_BROKEN_STALE_MAPPING,
	V_BROKEN_EARLY_EPOCH,
	NR_VARIANTS
};

static const struct mmt_variant variants[NR_VARIANTS] = {
	[V_RACE] = { "race",
		"4 KiB pages: writers, protector, migrator, compactor and NUMA balancing at once",
		MMT_ARCH_ALL, false },
	[V_RACE_THP] = { "race-thp",
		"as race on MADV_HUGEPAGE memory, ranges aligned to 2 MiB", MMT_ARCH_ALL, false },
	[V_WRITER_ON_PROTECTOR_CPU] = { "writer-on-protector-cpu",
		"one writer sharing the protector's CPU: it cannot store during an mprotect call, so window writes must be about zero",
		MMT_ARCH_ALL, false },
	[V_BROKEN_STALE_MAPPING] = { "broken-stale-mapping",
		"fault injection in user space: the region is a memfd copied to a second one and remapped, the old one zeroed for a new owner, while writers keep storing through the old mapping for --inject-stores stores; each must be reported lost and foreign",
		0, true },
	[V_BROKEN_EARLY_EPOCH] = { "broken-early-epoch",
		"fault injection: the protector announces \"mprotect returned\" before calling it, so stores that complete then look like stores through a flushed TLB; the stale_tlb_write check must fire",
		0, true },
};

enum { OPT_REGION_MB, OPT_PROTECT_PAGES, OPT_PROTECT_MODE, OPT_MIGRATE, OPT_COMPACT,
       OPT_NUMA_BALANCING, OPT_TARGET_OVERLAPS, OPT_INJECT_STORES, NR_OPTIONS };
static const struct mmt_option options[NR_OPTIONS] = {
	[OPT_REGION_MB] = { "region-mb", "size of the written region", 64, 4, 65536 },
	[OPT_PROTECT_PAGES] = { "protect-pages", "4 KiB pages per mprotect range", 4096, 16, 16777216 },
	[OPT_PROTECT_MODE] = { "protect-mode", "0: PROT_NONE, 1: PROT_READ, 2: alternate", 2, 0, 2 },
	[OPT_MIGRATE] = { "migrate", "1: migrate the protected range each iteration", 1, 0, 1 },
	[OPT_COMPACT] = { "compact", "1: a compactor thread writes compact_memory (root)", 1, 0, 1 },
	[OPT_NUMA_BALANCING] = { "numa-balancing", "1: switch NUMA balancing on for the run (root)", 1, 0, 1 },
	[OPT_TARGET_OVERLAPS] = { "target-overlaps", "stop once this many overlap witnesses were seen (0: no target)",
		0, 0, UINT64_MAX },
	[OPT_INJECT_STORES] = { "inject-stores", "broken-stale-mapping: stores each writer makes through the old mapping per injection",
		64, 1, 1000000 },
};

enum { OUT_VERIFIED, OUT_LOST, OUT_FOREIGN, OUT_STALE_TLB, OUT_CRASH, OUT_SPLAT, NR_OUTCOMES };
static const char *const outcome_names[NR_OUTCOMES] = { "verified", "lost_write", "foreign_write",
							 "stale_tlb_write", "crash", "kernel_splat" };

#define PAGE 4096ul
#define SLOT_STRIDE 64ul		/* each writer its own cache line of the page */
#define MAX_WRITERS (PAGE / SLOT_STRIDE)
#define MAX_MISMATCHES 16
#define WINDOW_LOG 256			/* window-write pages remembered per writer */
#define VICTIM_PAGES 64
#define HIST_BUCKETS 7

/* Epoch phases, per protector iteration k: 4k+1 mprotect(NONE/READ) running,
 * 4k+2 protected (mprotect returned), 4k+3 access being restored, 4k+4 open. */
#define PHASE(e) ((e) & 3)

struct ctl {
	uint64_t epoch __mmt_aligned;
	uint64_t range_lo, range_hi;	/* page range of the current iteration */
	uint64_t round __mmt_aligned;	/* writers may write round 'round' */
	unsigned done __mmt_aligned;	/* writers finished the current round */
	uint64_t iter __mmt_aligned;	/* protector: iteration n announced */
	uint64_t migr_ready __mmt_aligned;
	uint64_t migr_done __mmt_aligned;
	uint64_t m0, m1;		/* migrator's call, mmt_cycles() */
	uint64_t moved_in_iter;
	uint64_t inject __mmt_aligned;	/* broken-stale-mapping: pause request count */
	unsigned paused __mmt_aligned;
	uint64_t *stale_base;		/* the old mapping, for stale stores */
	int stop_actors __mmt_aligned;
};

struct mismatch {
	uint64_t page, writer, round, expected, found;
	uint64_t pfn_before;	/* at the migrator's last snapshot */
	uint64_t pfn;		/* when the mismatch was found */
	int cpu;
};

struct writer_state {
	uint64_t ledger;		/* round << 32 | pages done in that round */
	uint64_t faults, window_writes, stale_violations, stores, stale_stores;
	uint64_t stale_left;
	uint64_t window_log[WINDOW_LOG];	/* iteration << 32 | page */
	uint64_t window_count;
	int cpu;
	sigjmp_buf crash_env;
	volatile sig_atomic_t faulted;
	bool crashed;
	uintptr_t crash_addr;
} __mmt_aligned;

struct priv {
	int variant;
	uint64_t npages, range_pages;
	char *region;			/* the writers' view */
	size_t region_len;
	/* broken-stale-mapping: two memfds and a fixed view of each */
	int memfd[2];
	char *view[2];
	int current;
	unsigned nwriters;
	struct writer_state *ws;
	int nodes;			/* NUMA nodes with memory */
	int node_ids[64];
	bool root, pagemap;
	int pagemap_fd;
	uint64_t *pfn_before, *pfn_after;
	uint8_t *moved;			/* per page of the current range */
	/* actors that could not run, and why */
	json_t *actors;
	/* results */
	uint64_t rounds, iterations, mprotect_calls, migrate_calls, pages_moved, migrations_in_window;
	uint64_t overlap_witnesses, overlap_hist[HIST_BUCKETS], compact_calls, victim_checks;
	uint64_t window_pages_checked;	/* window writes in iterations whose migration overlapped */
	uint64_t verified_round;	/* the last round checked in full */
	uint64_t moved_to[64];		/* pages moved, by target node (several nodes) */
	uint64_t outcomes[NR_OUTCOMES];
	struct mismatch mismatch[MAX_MISMATCHES];
	unsigned nr_mismatches;
	double mprotect_ns_ema;
	json_t *kbefore;
	struct mmt_kernel_health health;
	pthread_t extra[3];
	unsigned nr_extra;
	struct mmt_run *run;
};

static struct priv *active;		/* for the signal handler */
static __thread struct writer_state *my_writer;
static struct sigaction old_segv;

static inline uint64_t tag(unsigned w, uint64_t round, uint64_t page)
{
	return ((uint64_t)(w + 1) << 56) | ((round & 0xffffffffull) << 24) | (page & 0xffffff);
}

static inline uint64_t *slot_of(char *base, uint64_t page, unsigned w)
{
	return (uint64_t *)(base + page * PAGE + w * SLOT_STRIDE);
}

/* ---- signals ------------------------------------------------------------- */

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	struct priv *p = active;
	uintptr_t a = (uintptr_t)si->si_addr;
	struct writer_state *ws = my_writer;

	if (p && ws && a >= (uintptr_t)p->region && a < (uintptr_t)p->region + p->region_len) {
		struct ctl *c = p->run->shared;

		ws->faulted = 1;
		ws->faults++;
		/* Access comes back when the protector finishes the iteration;
		 * returning re-executes the store.  Yield after a short spin:
		 * the protector or migrator may need this CPU to get there. */
		for (unsigned spins = 0; PHASE(READ_ONCE(c->epoch)) != 0; spins++) {
			if (spins > 256)
				sched_yield();
			else
				cpu_relax();
		}
		return;
	}
	if (p && ws) {
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

/* ---- memory -------------------------------------------------------------- */

static int map_region(struct priv *p, const struct mmt_run *run)
{
	p->region_len = p->npages * PAGE;
	if (p->variant == V_BROKEN_STALE_MAPPING) {
		for (int i = 0; i < 2; i++) {
			p->memfd[i] = memfd_create("mmtorture-mmrace", MFD_CLOEXEC);
			if (p->memfd[i] < 0 || ftruncate(p->memfd[i], (off_t)p->region_len))
				return -1;
			p->view[i] = mmap(NULL, p->region_len, PROT_READ | PROT_WRITE, MAP_SHARED,
					  p->memfd[i], 0);
			if (p->view[i] == MAP_FAILED)
				return -1;
		}
		p->region = mmap(NULL, p->region_len, PROT_READ | PROT_WRITE, MAP_SHARED, p->memfd[0], 0);
		return p->region == MAP_FAILED ? -1 : 0;
	}
	/* 2 MiB of slack so a THP region can start on a huge-page boundary. */
	{
		size_t slack = 2ul << 20;
		char *raw = mmap(NULL, p->region_len + slack, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		uintptr_t start;

		if (raw == MAP_FAILED)
			return -1;
		start = ((uintptr_t)raw + slack - 1) & ~(slack - 1);
		if (start > (uintptr_t)raw)
			munmap(raw, start - (uintptr_t)raw);
		munmap((char *)start + p->region_len, (uintptr_t)raw + p->region_len + slack - start - p->region_len);
		p->region = (char *)start;
	}
	if (p->variant == V_RACE_THP)
		madvise(p->region, p->region_len, MADV_HUGEPAGE);
	else
		madvise(p->region, p->region_len, MADV_NOHUGEPAGE);
	if (numa_available() >= 0) {
		struct bitmask *bm = numa_allocate_nodemask();

		numa_bitmask_setbit(bm, (unsigned)run->mem_node);
		mbind(p->region, p->region_len, MPOL_PREFERRED, bm->maskp, bm->size + 1, 0);
		numa_free_nodemask(bm);
	}
	memset(p->region, 0, p->region_len);
	return 0;
}

static void unmap_region(struct priv *p)
{
	if (p->region && p->region != MAP_FAILED)
		munmap(p->region, p->region_len);
	for (int i = 0; i < 2; i++) {
		if (p->view[i] && p->view[i] != MAP_FAILED)
			munmap(p->view[i], p->region_len);
		if (p->memfd[i] > 0)
			close(p->memfd[i]);
	}
}

/* PFNs from /proc/self/pagemap (0 when not present or not root). */
static void read_pfns(struct priv *p, uint64_t lo, uint64_t n, uint64_t *out)
{
	off_t off = (off_t)(((uintptr_t)p->region / PAGE + lo) * 8);

	if (pread(p->pagemap_fd, out, n * 8, off) != (ssize_t)(n * 8)) {
		memset(out, 0, n * 8);
		return;
	}
	for (uint64_t i = 0; i < n; i++)
		out[i] = (out[i] >> 63) ? out[i] & ((1ull << 55) - 1) : 0;
}

/* ---- prepare ------------------------------------------------------------- */

static size_t mmrace_shared_size(const struct mmt_run *run)
{
	return sizeof(struct ctl);
}

static void actor(struct priv *p, const char *name, bool on, const char *why)
{
	json_object_set_new(p->actors, name, on ? json_string("on") : json_pack("{s:s}", "skipped", why));
}

static int mmrace_prepare(struct mmt_run *run)
{
	static const char *const kprefix[] = { "pgmigrate_", "compact_", "numa_", "thp_", NULL };
	struct priv *p = calloc(1, sizeof(*p));
	unsigned n = run->nr_workers;
	char err[256];

	if (!p)
		return -1;
	run->priv = p;
	p->run = run;
	p->variant = (int)(run->variant - variants);
	p->npages = run->opt[OPT_REGION_MB] * (1ul << 20) / PAGE;
	p->range_pages = run->opt[OPT_PROTECT_PAGES] < p->npages ? run->opt[OPT_PROTECT_PAGES] : p->npages;
	if (p->variant == V_RACE_THP)
		p->range_pages = (p->range_pages + 511) / 512 * 512;
	if (p->range_pages > p->npages)
		p->range_pages = p->npages;
	p->nwriters = (p->variant == V_WRITER_ON_PROTECTOR_CPU || n <= 2) ? 1 : n - 2;
	if (p->nwriters > MAX_WRITERS)
		p->nwriters = MAX_WRITERS;
	p->ws = aligned_alloc(MMT_PAD_BYTES, p->nwriters * sizeof(*p->ws));
	p->pfn_before = calloc(p->npages, sizeof(uint64_t));
	p->pfn_after = calloc(p->npages, sizeof(uint64_t));
	p->moved = calloc(p->npages, 1);
	if (!p->ws || !p->pfn_before || !p->pfn_after || !p->moved)
		return -1;
	memset(p->ws, 0, p->nwriters * sizeof(*p->ws));
	p->memfd[0] = p->memfd[1] = -1;
	if (map_region(p, run))
		return -1;
	p->root = geteuid() == 0;
	p->pagemap_fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (p->pagemap_fd >= 0) {
		uint64_t pfn;

		read_pfns(p, 0, 1, &pfn);
		p->pagemap = pfn != 0; /* PFNs read as 0 without CAP_SYS_ADMIN */
	}
	p->nodes = 0;
	if (numa_available() >= 0)
		for (int nd = 0; nd <= numa_max_node() && p->nodes < 64; nd++)
			if (numa_bitmask_isbitset(numa_all_nodes_ptr, (unsigned)nd))
				p->node_ids[p->nodes++] = nd;
	p->actors = json_object();
	actor(p, "protector", p->variant != V_BROKEN_STALE_MAPPING, "broken-stale-mapping injects instead");
	if (p->variant == V_BROKEN_STALE_MAPPING)
		actor(p, "migrator", false, "broken-stale-mapping injects instead");
	else if (p->variant == V_BROKEN_EARLY_EPOCH)
		actor(p, "migrator", false, "not needed to prove the stale-TLB check");
	else if (!run->opt[OPT_MIGRATE])
		actor(p, "migrator", false, "--migrate 0");
	else
		actor(p, "migrator", true, NULL);
	if (p->variant == V_BROKEN_STALE_MAPPING || p->variant == V_BROKEN_EARLY_EPOCH || !run->opt[OPT_COMPACT])
		actor(p, "compactor", false, run->variant->injected ? "not with injection" : "--compact 0");
	else if (!p->root)
		actor(p, "compactor", false, "needs root (/proc/sys/vm/compact_memory)");
	else
		actor(p, "compactor", true, NULL);
	if (run->variant->injected || !run->opt[OPT_NUMA_BALANCING])
		actor(p, "numa_balancing", false, run->variant->injected ? "not with injection" : "--numa-balancing 0");
	else if (!p->root)
		actor(p, "numa_balancing", false, "needs root (/proc/sys/kernel/numa_balancing)");
	else if (access("/proc/sys/kernel/numa_balancing", W_OK))
		actor(p, "numa_balancing", false, "this kernel has no NUMA balancing");
	else if (mmt_sysctl_set("/proc/sys/kernel/numa_balancing", "1", err, sizeof(err)))
		actor(p, "numa_balancing", false, err);
	else
		actor(p, "numa_balancing", true, NULL);
	if (p->variant == V_BROKEN_STALE_MAPPING)
		actor(p, "pfn_tracking", false, "not with injection");
	else if (!p->pagemap)
		actor(p, "pfn_tracking", false, "PFNs in /proc/self/pagemap need root: moves on one node cannot be seen");
	else
		actor(p, "pfn_tracking", true, NULL);

	{
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = on_segv;
		sa.sa_flags = SA_SIGINFO | SA_NODEFER;
		sigemptyset(&sa.sa_mask);
		active = p;
		sigaction(SIGSEGV, &sa, &old_segv);
	}
	p->kbefore = mmt_kstate_counters(kprefix);
	mmt_health_begin(&p->health);
	((struct ctl *)run->shared)->round = 0;
	return 0;
}

/* ---- writers ------------------------------------------------------------- */

static inline __attribute__((always_inline)) void
writer_loop(const int v, struct priv *p, struct ctl *c, unsigned w)
{
	struct writer_state *ws = &p->ws[w];
	uint64_t seen_inject = 0;

	for (uint64_t round = 1;; round++) {
		/* The protector opens each round after verifying the last. */
		while (READ_ONCE(c->round) < round) {
			if (READ_ONCE(c->stop_actors))
				goto out;
			cpu_relax();
		}
		for (uint64_t page = 0; page < p->npages; page++) {
			char *base = p->region;
			uint64_t e1, e2, lo, hi;

			if (v == V_BROKEN_STALE_MAPPING) {
				uint64_t req = READ_ONCE(c->inject);

				if (req != seen_inject) {
					/* Pause while the injector copies and remaps. */
					__atomic_fetch_add(&c->paused, 1, __ATOMIC_ACQ_REL);
					while (!READ_ONCE(c->stale_base) && !READ_ONCE(c->stop_actors))
						cpu_relax();
					seen_inject = req;
					/* Stopped instead of injected: no stale stores. */
					ws->stale_left = READ_ONCE(c->stale_base) ? p->run->opt[OPT_INJECT_STORES] : 0;
				}
				if (ws->stale_left) {
					/* The stale TLB entry, made explicit. */
					base = (char *)READ_ONCE(c->stale_base);
					ws->stale_left--;
					ws->stale_stores++;
				}
			}
			/* The range is read between the two epoch reads: if the
			 * epoch did not move, it is the range of that epoch (the
			 * protector only changes it while access is open). */
			e1 = smp_load_acquire(&c->epoch);
			lo = READ_ONCE(c->range_lo);
			hi = READ_ONCE(c->range_hi);
			ws->faulted = 0;
			WRITE_ONCE(*slot_of(base, page, w), tag(w, round, page));
			smp_rmb();
			e2 = READ_ONCE(c->epoch);
			ws->stores++;
			if (unlikely(PHASE(e1)) && e1 == e2 && !ws->faulted && page >= lo && page < hi) {
				if (PHASE(e1) == 1) {
					/* Stored while mprotect was walking this range:
					 * legal, and the window the race needs. */
					ws->window_writes++;
					ws->window_log[ws->window_count++ % WINDOW_LOG] = (e1 / 4 + 1) << 32 | page;
				} else if (PHASE(e1) == 2) {
					/* mprotect had returned before and after: the
					 * TLB must have been flushed, the store must fault. */
					ws->stale_violations++;
				}
			}
			smp_store_release(&ws->ledger, round << 32 | (page + 1));
			if ((page & 1023) == 0 && READ_ONCE(c->stop_actors))
				goto out;
		}
		__atomic_fetch_add(&c->done, 1, __ATOMIC_ACQ_REL);
	}
out:
	return;
}

static void writer_main(int v, struct priv *p, unsigned w)
{
	struct ctl *c = p->run->shared;
	struct writer_state *ws = &p->ws[w];

	my_writer = ws;
	ws->cpu = sched_getcpu();
	if (sigsetjmp(ws->crash_env, 1)) {
		my_writer = NULL;
		return;
	}
	switch (v) {
	case V_BROKEN_STALE_MAPPING:
		writer_loop(V_BROKEN_STALE_MAPPING, p, c, w);
		break;
	default:
		writer_loop(V_RACE, p, c, w);
	}
	my_writer = NULL;
}

struct extra_writer {
	struct priv *p;
	unsigned w;
	int cpu;
};

static void *extra_writer_thread(void *arg)
{
	struct extra_writer *e = arg;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(e->cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	writer_main(e->p->variant, e->p, e->w);
	return NULL;
}

static void spawn_writer(struct priv *p, unsigned w, int cpu)
{
	static struct extra_writer ew[2];
	struct extra_writer *e = &ew[p->nr_extra % 2];

	*e = (struct extra_writer){ p, w, cpu };
	if (!pthread_create(&p->extra[p->nr_extra], NULL, extra_writer_thread, e))
		p->nr_extra++;
}

/* ---- verification -------------------------------------------------------- */

/* The first few of each kind (lost, foreign) are kept: one kind must not
 * crowd the other out of the report. */
static void record_mismatch(struct priv *p, uint64_t page, unsigned w, uint64_t round,
			    uint64_t expected, uint64_t found)
{
	unsigned same = 0;
	struct mismatch *m;

	for (unsigned i = 0; i < p->nr_mismatches; i++)
		same += (p->mismatch[i].expected == 0) == (expected == 0);
	if (p->nr_mismatches == MAX_MISMATCHES || same == MAX_MISMATCHES / 2)
		return;
	m = &p->mismatch[p->nr_mismatches++];
	*m = (struct mismatch){ page, w, round, expected, found, 0, 0, p->ws[w].cpu };
	if (page < p->npages)
		m->pfn_before = p->pfn_before[page];
	if (p->pagemap)
		read_pfns(p, page, 1, &m->pfn);
}

/*
 * Every slot written since the last verification against its writer's
 * ledger.  Called with access restored, from the protector: a CPU with a
 * stale TLB entry would read back its own lost store and see nothing wrong.
 * At a round's end every writer has finished the round and every page is
 * checked; the last, partial round (at the stop) checks only the pages the
 * ledger says were written in it, so nothing is counted twice.
 */
static void verify_region(struct priv *p)
{
	for (unsigned w = 0; w < p->nwriters; w++) {
		uint64_t l = smp_load_acquire(&p->ws[w].ledger), round = l >> 32, done = l & 0xffffffff;
		uint64_t upto = round > p->verified_round ? done : 0;

		for (uint64_t page = 0; page < upto; page++) {
			uint64_t r = round;
			uint64_t want = tag(w, r, page);
			uint64_t got = READ_ONCE(*slot_of(p->region, page, w));

			if (likely(got == want)) {
				p->outcomes[OUT_VERIFIED]++;
				continue;
			}
			/* The writer may have moved on since the ledger was read:
			 * a newer tag of its own for this page is fine. */
			if ((got >> 56) == w + 1 && (got & 0xffffff) == (page & 0xffffff) &&
			    ((got >> 24) & 0xffffffff) > (r & 0xffffffff)) {
				p->outcomes[OUT_VERIFIED]++;
				continue;
			}
			p->outcomes[OUT_LOST]++;
			record_mismatch(p, page, w, r, want, got);
		}
	}
}

/* Fresh pages from the allocator are often the frames migration just
 * freed: a writer's tag in one is a store through a stale translation. */
static void find_foreign(struct priv *p, const uint64_t *v, size_t len)
{
	for (size_t i = 0; i < len / 8; i++) {
		uint64_t x = v[i], w = x >> 56;

		if (unlikely(x) && w >= 1 && w <= p->nwriters) {
			p->outcomes[OUT_FOREIGN]++;
			record_mismatch(p, i * 8 / PAGE, (unsigned)(w - 1), (x >> 24) & 0xffffffff, 0, x);
		}
	}
}

static void check_victims(struct priv *p)
{
	size_t len = VICTIM_PAGES * PAGE;
	uint64_t *v = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	if (v == MAP_FAILED)
		return;
	p->victim_checks++;
	find_foreign(p, v, len);
	munmap(v, len);
}

/* ---- protector, migrator, compactor, injector ----------------------------- */

static uint64_t rng_next(uint64_t *s)
{
	*s = mmt_mix64(*s);
	return *s;
}

/* Delay by spinning, or by yielding when a writer shares this CPU: a
 * spinning delay would keep the writer from storing during the walk. */
static void delay_cycles(uint64_t cycles, bool yield)
{
	uint64_t end = mmt_cycles() + cycles;

	while ((int64_t)(mmt_cycles() - end) < 0) {
		if (yield)
			sched_yield();
		else
			cpu_relax();
	}
}

/* Waits for *x to reach v; yields, since actors may share a CPU. */
static bool wait_for(const uint64_t *x, uint64_t v, const struct ctl *c)
{
	for (unsigned spins = 0; smp_load_acquire(x) < v; spins++) {
		if (READ_ONCE(c->stop_actors))
			return false;
		if (spins > 64)
			sched_yield();
		else
			cpu_relax();
	}
	return true;
}

static void migrate_range(struct priv *p, uint64_t lo, uint64_t n, uint64_t iter)
{
	char *start = p->region + lo * PAGE;

	if (p->nodes > 1) {
		/* Bounce between nodes: bind the range to the next node and move
		 * it there.  mbind walks the page tables itself, so PROT_NONE
		 * pages move too (move_pages would skip them). */
		struct bitmask *bm = numa_allocate_nodemask();

		numa_bitmask_setbit(bm, (unsigned)p->node_ids[iter % (uint64_t)p->nodes]);
		mbind(start, n * PAGE, MPOL_BIND, bm->maskp, bm->size + 1, MPOL_MF_MOVE);
		numa_free_nodemask(bm);
	} else {
		/* One node: MPOL_LOCAL with MPOL_MF_MOVE still moves every page
		 * to a new frame. */
		mbind(start, n * PAGE, MPOL_LOCAL, NULL, 0, MPOL_MF_MOVE);
	}
}

static void *migrator_thread_body(struct priv *p)
{
	struct ctl *c = p->run->shared;
	uint64_t seed = p->run->seed ^ 0x6d6967726174ull;

	for (uint64_t n = 1;; n++) {
		uint64_t lo, hi, moved = 0, delay;

		if (!wait_for(&c->iter, n, c))
			break;
		/* PFNs of the whole region now: the range is only known once
		 * the protector starts its walk, and then there is no time. */
		if (p->pagemap)
			read_pfns(p, 0, p->npages, p->pfn_before);
		smp_store_release(&c->migr_ready, n);
		if (!wait_for(&c->epoch, 4 * n - 3, c))
			break;
		lo = READ_ONCE(c->range_lo);
		hi = READ_ONCE(c->range_hi);
		/* Land somewhere inside the walk: a random offset up to twice
		 * the mean mprotect time (fuzzy-sync style). */
		delay = (uint64_t)(p->mprotect_ns_ema * p->run->cycles_per_ns);
		delay_cycles(delay ? rng_next(&seed) % (2 * delay) : 0, p->run->nr_workers == 2);
		c->m0 = mmt_cycles();
		migrate_range(p, lo, hi - lo, n);
		c->m1 = mmt_cycles();
		p->migrate_calls++;
		if (p->pagemap) {
			read_pfns(p, lo, hi - lo, p->pfn_after + lo);
			for (uint64_t i = lo; i < hi; i++) {
				p->moved[i] = p->pfn_before[i] && p->pfn_after[i] && p->pfn_before[i] != p->pfn_after[i];
				moved += p->moved[i];
			}
		}
		c->moved_in_iter = moved;
		p->pages_moved += moved;
		if (p->nodes > 1)
			p->moved_to[n % (uint64_t)p->nodes] += moved;
		check_victims(p);
		smp_store_release(&c->migr_done, n);
	}
	return NULL;
}

static void *compactor_thread(void *arg)
{
	struct priv *p = arg;
	struct ctl *c = p->run->shared;

	while (!READ_ONCE(c->stop_actors)) {
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

static int hist_bucket(double offset_us)
{
	static const double edges[HIST_BUCKETS - 1] = { -100, -10, -1, 1, 10, 100 };
	int b = 0;

	while (b < HIST_BUCKETS - 1 && offset_us >= edges[b])
		b++;
	return b;
}

/* After an iteration: pages a writer stored to during the mprotect walk that
 * the migrator also moved in this iteration are overlap witnesses. */
static void count_overlaps(struct priv *p, struct ctl *c, uint64_t iter, uint64_t p0, uint64_t p3)
{
	uint64_t m0 = c->m0, m1 = c->m1, found = 0;

	if (!(m0 < p3 && m1 > p0))
		return;
	p->migrations_in_window += c->moved_in_iter;
	for (unsigned w = 0; w < p->nwriters; w++) {
		struct writer_state *ws = &p->ws[w];
		uint64_t n = READ_ONCE(ws->window_count);

		for (uint64_t k = n > WINDOW_LOG ? n - WINDOW_LOG : 0; k < n; k++) {
			uint64_t e = ws->window_log[k % WINDOW_LOG];

			if (e >> 32 != iter)
				continue;
			p->window_pages_checked++;
			found += p->moved[e & 0xffffffff];
		}
	}
	if (found) {
		p->overlap_witnesses += found;
		p->overlap_hist[hist_bucket(((double)m0 - (double)p0) / p->run->cycles_per_ns / 1000)] += found;
	}
}

static bool round_done(struct priv *p, struct ctl *c)
{
	return __atomic_load_n(&c->done, __ATOMIC_ACQUIRE) == p->nwriters;
}

static void next_round(struct priv *p, struct ctl *c)
{
	verify_region(p);
	p->verified_round = c->round;
	p->rounds++;
	__atomic_store_n(&c->done, 0, __ATOMIC_RELEASE);
	smp_store_release(&c->round, c->round + 1);
}

static void protector(struct priv *p, struct mmt_worker *w)
{
	struct ctl *c = p->run->shared;
	const uint64_t target = p->run->opt[OPT_TARGET_OVERLAPS];
	const int mode = (int)p->run->opt[OPT_PROTECT_MODE];
	const bool migrate = json_is_string(json_object_get(p->actors, "migrator"));
	uint64_t seed = p->run->seed;

	next_round(p, c); /* round 1: nothing written yet, nothing to verify */
	p->rounds = 0;
	for (uint64_t n = 1; !mmt_should_stop(); n++) {
		uint64_t pos, lo, hi, p0, p1, p3;
		int prot = mode == 2 ? (n & 1 ? PROT_NONE : PROT_READ) : mode ? PROT_READ : PROT_NONE;

		smp_store_release(&c->iter, n);
		if (migrate && !wait_for(&c->migr_ready, n, c))
			break;
		/* Cover where writer 0 is now and is about to be: its TLB
		 * entries for these pages are hot.  Chosen at the last moment,
		 * since a writer crosses thousands of pages a millisecond. */
		pos = smp_load_acquire(&p->ws[0].ledger) & 0xffffffff;
		lo = pos > p->range_pages / 4 ? pos - p->range_pages / 4 : 0;
		lo += rng_next(&seed) % (p->range_pages / 8 + 1);
		if (p->variant == V_RACE_THP)
			lo &= ~511ull;
		if (lo + p->range_pages > p->npages)
			lo = p->npages - p->range_pages;
		hi = lo + p->range_pages;
		WRITE_ONCE(c->range_lo, lo);
		WRITE_ONCE(c->range_hi, hi);
		/* broken-early-epoch lies: "returned" before the call. */
		smp_store_release(&c->epoch, p->variant == V_BROKEN_EARLY_EPOCH ? 4 * n - 2 : 4 * n - 3);
		p0 = mmt_cycles();
		mprotect(p->region + lo * PAGE, (hi - lo) * PAGE, prot);
		p1 = mmt_cycles();
		smp_store_release(&c->epoch, 4 * n - 2);	/* protected, flushed */
		p->mprotect_calls++;
		p->mprotect_ns_ema = p->mprotect_ns_ema * 0.9 + 0.1 * ((double)(p1 - p0) / p->run->cycles_per_ns);
		if (migrate)
			wait_for(&c->migr_done, n, c);
		smp_store_release(&c->epoch, 4 * n - 1);	/* restoring */
		p3 = mmt_cycles();
		mprotect(p->region + lo * PAGE, (hi - lo) * PAGE, PROT_READ | PROT_WRITE);
		p->mprotect_calls++;
		smp_store_release(&c->epoch, 4 * n);		/* open */
		p->iterations = n;
		/* Keep access open until writer 0 has stored again (or 1 ms):
		 * a writer that faulted must get back to work before the next
		 * walk, or a fast protector starves it. */
		{
			uint64_t l = smp_load_acquire(&p->ws[0].ledger), t = mmt_now_ns();

			while (smp_load_acquire(&p->ws[0].ledger) == l && mmt_now_ns() - t < 1000000 &&
			       !round_done(p, c))
				sched_yield();
		}
		if (migrate)
			count_overlaps(p, c, n, p0, p3);
		if (round_done(p, c))
			next_round(p, c);
		if ((target && p->overlap_witnesses >= target) ||
		    (p->run->iterations && n >= p->run->iterations))
			mmt_request_stop();
	}
	w->ops = p->iterations;
}

static void injector(struct priv *p, struct mmt_worker *w)
{
	struct ctl *c = p->run->shared;

	next_round(p, c);
	p->rounds = 0;
	for (uint64_t n = 1; !mmt_should_stop(); n++) {
		int next = !p->current;

		/* Stop the writers (those at the round barrier pause at their
		 * first store of the next round)... */
		WRITE_ONCE(c->stale_base, NULL);
		__atomic_store_n(&c->paused, 0, __ATOMIC_RELEASE);
		smp_store_release(&c->inject, n);
		while (__atomic_load_n(&c->paused, __ATOMIC_ACQUIRE) < p->nwriters && !mmt_should_stop()) {
			if (round_done(p, c))
				next_round(p, c);
			cpu_relax();
		}
		if (mmt_should_stop())
			break;
		/* ...the last injection's freed frames (zeroed for their new
		 * owner): a writer's tag there is a store through the stale
		 * mapping, found by the same scan as the kernel's victim pages. */
		find_foreign(p, (const uint64_t *)p->view[next], p->region_len);
		/* "Migrate": copy every page to the other memfd, point the
		 * writers' view at it, and hand the old frames to a new owner
		 * (zeroed)... */
		memcpy(p->view[next], p->view[p->current], p->region_len);
		mmap(p->region, p->region_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, p->memfd[next], 0);
		memset(p->view[p->current], 0, p->region_len);
		/* ...while the writers go on storing through the old mapping for
		 * a while, as through a stale TLB entry: those stores are lost
		 * from the region, and land in the new owner's frames. */
		smp_store_release(&c->stale_base, (uint64_t *)p->view[p->current]);
		p->current = next;
		p->iterations = n;
		/* Let them write for a while before the next injection. */
		for (int k = 0; k < 50 && !mmt_should_stop(); k++) {
			if (round_done(p, c))
				next_round(p, c);
			usleep(200);
		}
	}
	w->ops = p->iterations;
}

static void mmrace_worker(struct mmt_worker *w)
{
	struct priv *p = w->run->priv;
	struct ctl *c = w->run->shared;
	bool root_compactor = json_is_string(json_object_get(p->actors, "compactor"));

	if (w->id == 0) {
		pthread_t compactor;
		bool have_compactor = false;

		w->role = "protector";
		if (p->variant == V_WRITER_ON_PROTECTOR_CPU)
			spawn_writer(p, 0, w->cpu);
		if (root_compactor)
			have_compactor = !pthread_create(&compactor, NULL, compactor_thread, p);
		if (p->variant == V_BROKEN_STALE_MAPPING)
			injector(p, w);
		else
			protector(p, w);
		/* Access is restored (epoch open) whenever the loops exit. */
		WRITE_ONCE(c->stop_actors, 1);
		if (have_compactor)
			pthread_join(compactor, NULL);
		for (unsigned i = 0; i < p->nr_extra; i++)
			pthread_join(p->extra[i], NULL);
	} else if (w->id == 1) {
		w->role = "migrator";
		if (p->variant != V_WRITER_ON_PROTECTOR_CPU && w->run->nr_workers == 2)
			spawn_writer(p, 0, w->cpu);	/* two CPUs: the writer shares this one */
		if (json_is_string(json_object_get(p->actors, "migrator")))
			migrator_thread_body(p);
		else
			while (!READ_ONCE(c->stop_actors))
				usleep(1000); /* idle: leave the CPU to the writer */
	} else if (p->variant != V_WRITER_ON_PROTECTOR_CPU && w->id - 2 < p->nwriters) {
		w->role = "writer";
		writer_main(p->variant, p, w->id - 2);
		w->ops = p->ws[w->id - 2].stores;
	}
}

/* ---- results ------------------------------------------------------------- */

static json_t *mismatch_json(const struct mismatch *m)
{
	return json_pack("{s:I,s:I,s:I,s:o,s:o,s:o,s:o,s:i}", "page", (json_int_t)m->page,
			 "writer", (json_int_t)m->writer, "round", (json_int_t)m->round,
			 "expected", mmt_json_hex(m->expected), "found", mmt_json_hex(m->found),
			 "pfn_before", m->pfn_before ? json_integer((json_int_t)m->pfn_before) : json_null(),
			 "pfn_now", m->pfn ? json_integer((json_int_t)m->pfn) : json_null(),
			 "writer_cpu", m->cpu);
}

static void mmrace_verify(struct mmt_run *run)
{
	static const char *const kprefix[] = { "pgmigrate_", "compact_", "numa_", "thp_", NULL };
	static const char *const config[] = { "CONFIG_NUMA_BALANCING", "CONFIG_COMPACTION",
		"CONFIG_MIGRATION", "CONFIG_TRANSPARENT_HUGEPAGE", "CONFIG_TRANSPARENT_HUGEPAGE_ALWAYS",
		"CONFIG_TRANSPARENT_HUGEPAGE_MADVISE", "CONFIG_NUMA", NULL };
	static const char *const bucket_names[HIST_BUCKETS] = { "<-100us", "-100..-10us", "-10..-1us",
		"-1..1us", "1..10us", "10..100us", ">100us" };
	struct priv *p = run->priv;
	double secs = (double)run->elapsed_ns / 1e9;
	uint64_t stores = 0, faults = 0, window = 0, stale = 0, injected = 0, crashes = 0;
	json_t *after, *health, *mism = json_array(), *hist = json_object(), *crash = json_null();

	/* Last, partial round: every slot against the ledgers. */
	verify_region(p);
	if (p->variant == V_BROKEN_STALE_MAPPING && p->iterations)
		find_foreign(p, (const uint64_t *)p->view[!p->current], p->region_len);
	for (unsigned w = 0; w < p->nwriters; w++) {
		stores += p->ws[w].stores;
		faults += p->ws[w].faults;
		window += p->ws[w].window_writes;
		stale += p->ws[w].stale_violations;
		injected += p->ws[w].stale_stores;
		if (p->ws[w].crashed) {
			crashes++;
			if (json_is_null(crash))
				crash = json_pack("{s:i,s:I}", "writer", w, "address", (json_int_t)p->ws[w].crash_addr);
		}
	}
	p->outcomes[OUT_STALE_TLB] = stale;
	p->outcomes[OUT_CRASH] = crashes;
	after = mmt_kstate_counters(kprefix);
	health = mmt_health_end(&p->health);
	if (json_is_true(json_object_get(health, "splat")))
		p->outcomes[OUT_SPLAT] = 1;
	memcpy(run->outcomes, p->outcomes, sizeof(p->outcomes));
	run->ops = stores;
	for (unsigned i = 0; i < p->nr_mismatches; i++)
		json_array_append_new(mism, mismatch_json(&p->mismatch[i]));
	for (int b = 0; b < HIST_BUCKETS; b++)
		json_object_set_new(hist, bucket_names[b], json_integer((json_int_t)p->overlap_hist[b]));

#define PER_SEC(x) json_real(secs > 0 ? (double)(x) / secs : 0)
	json_object_set_new(run->metrics, "actors", json_incref(p->actors));
	json_object_set_new(run->metrics, "writers", json_integer(p->nwriters));
	json_object_set_new(run->metrics, "region_pages", json_integer((json_int_t)p->npages));
	json_object_set_new(run->metrics, "range_pages", json_integer((json_int_t)p->range_pages));
	json_object_set_new(run->metrics, "rounds_verified", json_integer((json_int_t)p->rounds));
	json_object_set_new(run->metrics, "iterations", json_integer((json_int_t)p->iterations));
	json_object_set_new(run->metrics, "mprotect_calls", json_integer((json_int_t)p->mprotect_calls));
	json_object_set_new(run->metrics, "mprotect_per_sec", PER_SEC(p->mprotect_calls));
	json_object_set_new(run->metrics, "mprotect_mean_ns", json_real(p->mprotect_ns_ema));
	json_object_set_new(run->metrics, "migrate_calls", json_integer((json_int_t)p->migrate_calls));
	json_object_set_new(run->metrics, "pages_moved",
			    p->pagemap || p->nodes > 1 ? json_integer((json_int_t)p->pages_moved) : json_null());
	json_object_set_new(run->metrics, "pages_moved_per_sec", PER_SEC(p->pages_moved));
	if (p->nodes > 1) {
		json_t *to = json_object();

		for (int i = 0; i < p->nodes; i++) {
			char key[16];

			snprintf(key, sizeof(key), "%d", p->node_ids[i]);
			json_object_set_new(to, key, json_integer((json_int_t)p->moved_to[i]));
		}
		json_object_set_new(run->metrics, "pages_moved_to_node", to);
	}
	json_object_set_new(run->metrics, "writer_faults", json_integer((json_int_t)faults));
	json_object_set_new(run->metrics, "writer_faults_per_sec", PER_SEC(faults));
	json_object_set_new(run->metrics, "window_writes", json_integer((json_int_t)window));
	json_object_set_new(run->metrics, "migrations_in_window", json_integer((json_int_t)p->migrations_in_window));
	json_object_set_new(run->metrics, "window_pages_checked", json_integer((json_int_t)p->window_pages_checked));
	json_object_set_new(run->metrics, "overlap_witnesses", json_integer((json_int_t)p->overlap_witnesses));
	json_object_set_new(run->metrics, "overlap_by_migrator_offset", hist);
	json_object_set_new(run->metrics, "compact_calls", json_integer((json_int_t)p->compact_calls));
	json_object_set_new(run->metrics, "victim_checks", json_integer((json_int_t)p->victim_checks));
	json_object_set_new(run->metrics, "injected_stale_stores",
			    p->variant == V_BROKEN_STALE_MAPPING ? json_integer((json_int_t)injected) : json_null());
	json_object_set_new(run->metrics, "first_mismatches", mism);
	json_object_set_new(run->metrics, "crash", crash);
	json_object_set_new(run->metrics, "kernel_health", health);
	json_object_set_new(run->metrics, "vmstat_delta", mmt_kstate_delta(p->kbefore, after));
	json_object_set_new(run->metrics, "kernel_config", mmt_kernel_config(config));
	json_decref(after);
#undef PER_SEC

	if (p->variant == V_BROKEN_STALE_MAPPING) {
		if (!injected) {
			run->inconclusive = true;
			snprintf(run->inconclusive_reason, sizeof(run->inconclusive_reason),
				 "no stale store was injected (run too short)");
		}
	} else if (p->variant == V_WRITER_ON_PROTECTOR_CPU || p->variant == V_BROKEN_EARLY_EPOCH) {
		/* Their point is the window count, or the injected finding. */
	} else if (!p->pagemap && p->nodes < 2) {
		run->inconclusive = true;
		snprintf(run->inconclusive_reason, sizeof(run->inconclusive_reason),
			 "migrations cannot be seen on one node without root (PFNs), so overlap is unknown");
	} else if (!p->overlap_witnesses) {
		run->inconclusive = true;
		snprintf(run->inconclusive_reason, sizeof(run->inconclusive_reason),
			 "no store landed on a page migrated during its mprotect walk (%llu window writes, %llu pages moved in window)",
			 (unsigned long long)window, (unsigned long long)p->migrations_in_window);
	}
}

static void mmrace_cleanup(struct mmt_run *run)
{
	struct priv *p = run->priv;

	sigaction(SIGSEGV, &old_segv, NULL);
	active = NULL;
	mmt_sysctl_restore_all();
	unmap_region(p);
	if (p->pagemap_fd >= 0)
		close(p->pagemap_fd);
	json_decref(p->actors);
	json_decref(p->kbefore);
	free(p->ws);
	free(p->pfn_before);
	free(p->pfn_after);
	free(p->moved);
	free(p);
	run->priv = NULL;
}

static void mmrace_describe(const json_t *m, char *buf, size_t len)
{
	snprintf(buf, len, "overlap %lld, window %lld, moved %lld, mprotect %.0f/s",
		 (long long)json_integer_value(json_object_get(m, "overlap_witnesses")),
		 (long long)json_integer_value(json_object_get(m, "window_writes")),
		 (long long)json_integer_value(json_object_get(m, "pages_moved")),
		 json_number_value(json_object_get(m, "mprotect_per_sec")));
}

static const struct mmt_scenario mmrace = {
	.name = "mmrace",
	.help = "mprotect racing page migration and compaction, every store verified: lost writes caught, the race window proven hit",
	.variants = variants,
	.nr_variants = NR_VARIANTS,
	.options = options,
	.nr_options = NR_OPTIONS,
	.min_threads = 2,
	.default_threads = 2,
	.max_threads = 2 + MAX_WRITERS,
	.outcomes = outcome_names,
	.nr_outcomes = NR_OUTCOMES,
	.ops_unit = "stores",
	.extra_events = "tlb:tlb_flush,migrate:mm_migrate_pages,compaction:mm_compaction_migratepages",
	.shared_size = mmrace_shared_size,
	.prepare = mmrace_prepare,
	.worker = mmrace_worker,
	.verify = mmrace_verify,
	.cleanup = mmrace_cleanup,
	.describe = mmrace_describe,
};
MMT_SCENARIO(mmrace);
