/* SPDX-License-Identifier: MIT */
/*
 * numascan's actors:
 *   writers   each stores increasing values to its own line of the hot
 *             page and reads the word back before every store: the value
 *             it stored last, or a store of its was lost (a store that went
 *             through a stale TLB entry into the frame migration had
 *             already copied reads back older once that entry is flushed)
 *   toucher   reads the hot page, then yields its CPU to the mover process:
 *             every switch to another mm empties its TLB where there are
 *             no PCIDs (as in the TCG guest), so each read walks the page
 *             table, and a read of a PTE the scan has made PROT_NONE takes
 *             NUMA balancing's hinting fault, which migrates the page to
 *             the toucher's node (do_numa_page(), migrate_misplaced_page())
 *   mover     a second process on the toucher's CPU: puts the hot page back
 *             on its home node whenever it is on the toucher's, and yields
 *   driver    makes rounds: the cold pages' PTEs made present again (see
 *             rearm()), then the next end of a scan of the process
 *             (mm->numa_scan_seq in /proc/self/sched)
 * broken-rewind: no NUMA at all; each round writer 0 sets its own word back
 * to its value before last between two stores: exactly one lost write a
 * round for the checker to report.
 */
#include <errno.h>
#include <fcntl.h>
#include <numaif.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "arch/barrier.h"
#include "bounded-wait.h"
#include "child.h"
#include "clock.h"
#include "numascan.h"
#include "timing.h"

/* ---- the writers ---------------------------------------------------------- */

static void note_lost(struct ns_priv *p, struct ns_writer *ws, unsigned w, uint64_t want, uint64_t got)
{
	uint64_t mask = (1ull << 56) - 1;

	ws->lost++;
	/* got is an older value of ours: the stores after it are gone */
	if (got >> 56 == w + 1 && (got & mask) < (want & mask))
		ws->stores_lost += (want & mask) - (got & mask);
	if (ws->wk && !ws->wk->first_witness_ns)
		mmt_witness_first(ws->wk, ws->stores);
	while (__atomic_test_and_set(&p->lock, __ATOMIC_ACQUIRE))
		cpu_relax();
	if (p->nr_first < NS_MAX_FIRST)
		p->first[p->nr_first++] = (struct ns_witness){
			.round = READ_ONCE(p->round_now), .stored = want, .found = got, .writer = (int)w,
			.writer_cpu = ws->cpu, .raced = READ_ONCE(p->round_raced),
		};
	__atomic_clear(&p->lock, __ATOMIC_RELEASE);
}

void ns_writer_main(struct ns_priv *p, unsigned w)
{
	struct ns_writer *ws = &p->ws[w];
	struct ns_ctl *c = p->ctl;
	volatile uint64_t *word = ws->word;
	uint64_t seq = ws->seq, want = ns_tag(w, seq), paused = 0;

	while (!READ_ONCE(c->stop)) {
		for (unsigned k = 0; k < NS_BATCH; k++) {
			uint64_t got = *word;

			if (unlikely(got != want))
				note_lost(p, ws, w, want, got);
			want = ns_tag(w, ++seq);
			*word = want;
		}
		ws->stores += NS_BATCH;
		WRITE_ONCE(c->w[w].stores, ws->stores);
		if (unlikely(READ_ONCE(c->pause) != paused)) {
			/* broken-rewind: its word set back to its value before
			 * last, by itself between two stores (exact whatever the
			 * other CPUs' TLBs hold): its next read-back finds it */
			paused = READ_ONCE(c->pause);
			if (w == 0) {
				*word = want - 1;
				smp_store_release(&c->paused, paused);
			}
		}
	}
	ws->seq = seq;
}

static uint64_t other_writers_stores(const struct ns_ctl *c, unsigned nwriters, int cpu)
{
	uint64_t n = 0;

	for (unsigned w = 0; w < nwriters; w++)
		if (READ_ONCE(c->w[w].cpu) != cpu)
			n += READ_ONCE(c->w[w].stores);
	return n;
}

/* ---- the toucher ---------------------------------------------------------- */

int ns_node_of(const void *addr)
{
	void *page = (void *)addr;
	int status = -1;

	if (move_pages(0, 1, &page, NULL, &status, 0))
		return -1;
	return status;
}

static long minor_faults(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_THREAD, &ru) ? -1 : ru.ru_minflt;
}

/*
 * A migration qualifies for round n if the toucher read the hot page
 * without a fault after round n began (its PTE present then: the toucher's
 * reads walk the table) and a later read of its took the fault that
 * brought the page to its node: a scan began in round n and had made the
 * PTE PROT_NONE.  The driver then checks that the scan had not ended yet.
 */
void ns_toucher_main(struct ns_priv *p)
{
	struct ns_toucher *t = p->t;
	struct ns_ctl *c = p->ctl;
	volatile uint64_t *hot = (volatile uint64_t *)(p->region + p->psz / 2);
	uint64_t last_clean = 0, back_seen = READ_ONCE(c->moved_back);
	int node = ns_node_of(p->region);

	while (!READ_ONCE(c->stop)) {
		long f0 = minor_faults(), f1;
		bool away = node != t->node || READ_ONCE(c->moved_back) != back_seen;

		(void)*hot;
		f1 = minor_faults();
		t->touches++;
		if (f1 == f0) {
			last_clean = mmt_now_ns();
		} else {
			uint64_t now = mmt_now_ns(), n = READ_ONCE(t->round);

			t->faults++;
			back_seen = READ_ONCE(c->moved_back);
			node = ns_node_of(p->region);
			if (away && node == t->node) {
				t->migrations++;
				if (last_clean > READ_ONCE(t->round_start_ns) && n == READ_ONCE(t->round)) {
					WRITE_ONCE(t->qual_ns, now);
					WRITE_ONCE(t->qual_stores, other_writers_stores(c, p->nwriters, t->cpu));
					smp_store_release(&t->qual_round, n);
				}
			}
		}
		sched_yield();
	}
}

/* ---- the scan count ------------------------------------------------------- */

long ns_scan_seq(int fd)
{
	static const char key[] = "mm->numa_scan_seq";
	char buf[8192], *at;
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return -1;
	buf[n] = '\0';
	at = strstr(buf, key);
	if (!at || !(at = strchr(at, ':')))
		return -1;
	return strtol(at + 1, NULL, 10);
}

/* ---- the driver's rounds -------------------------------------------------- */

static uint64_t total_lost(const struct ns_priv *p)
{
	uint64_t n = 0;

	for (unsigned w = 0; w < p->nwriters; w++)
		n += READ_ONCE(p->ws[w].lost);
	return n;
}

/*
 * The cold pages' PTEs present again, so that the next walk must change
 * every one of them after the hot page's before it flushes: a walk skips
 * a PTE that is already PROT_NONE.  An mprotect() of the cold pages to
 * read-only and back rewrites each PTE from the VMA's protection (it
 * splits the VMA, then merges it back); it never touches the hot page, and
 * it holds mmap_lock for writing, so no scan runs beside it.  Ten times
 * cheaper than new pages (MADV_DONTNEED, MADV_POPULATE_WRITE): 6-40 ms
 * against 400-570 ms for 64 MiB in the TCG guest.
 */
static int rearm(struct ns_priv *p)
{
	char *cold = p->region + p->psz;
	size_t len = (size_t)p->cold * p->psz;

	if (mprotect(cold, len, PROT_READ) || mprotect(cold, len, PROT_READ | PROT_WRITE)) {
		mmt_hunt_fail(&p->hunt, "mprotect() of the cold pages", errno);
		return -1;
	}
	return 0;
}

/* Until the mm's scan count passes seq0: true, with *last_ns the last look
 * that still read seq0 and *stores the other writers' stores then; false
 * if the bound ran out (kept as the run's first wait that gave up), the
 * count could not be read, or the run stopped. */
static bool wait_scan(struct ns_priv *p, long seq0, uint64_t *last_ns, uint64_t *stores)
{
	uint64_t t0 = mmt_now_ns();

	while (!READ_ONCE(p->ctl->stop) && !mmt_should_stop()) {
		uint64_t now = mmt_now_ns(), st = other_writers_stores(p->ctl, p->nwriters, p->t->cpu);
		long s = ns_scan_seq(p->sched_fd);

		if (s < 0) {
			mmt_hunt_fail(&p->hunt, "reading mm->numa_scan_seq in /proc/self/sched", errno ? errno : EIO);
			return false;
		}
		if (s > seq0)
			return true;
		*last_ns = now;
		*stores = st;
		if (now - t0 > NS_SCAN_WAIT_NS) {
			if (!p->hunt.wait_timeouts++)
				snprintf(p->hunt.wait_timeout_what, sizeof(p->hunt.wait_timeout_what),
					 "NUMA balancing's next scan of the process (scan %ld) for more than %llu s", seq0 + 1,
					 (unsigned long long)(NS_SCAN_WAIT_NS / 1000000000ull));
			return false;
		}
		usleep(NS_NAP_US);
	}
	return false;
}

static int rewind_round(struct ns_priv *p, uint64_t n, struct mmt_worker *wk)
{
	struct ns_ctl *c = p->ctl;
	uint64_t lost0 = total_lost(p);

	smp_store_release(&c->pause, n);
	if (!mmt_hunt_wait(&p->hunt, &c->paused, n, NS_WAIT_NS, "writer 0 to set its word back"))
		return -1;
	p->rewinds++;
	/* its next batch's first read-back finds it */
	mmt_wait_at_least(&c->w[0].stores, READ_ONCE(c->w[0].stores) + 1, NULL, NS_WAIT_NS);
	p->outcomes[OUT_LOST] = total_lost(p);
	mmt_hunt_round(&p->hunt, n, false, p->outcomes[OUT_LOST] > lost0, wk);
	return 0;
}

/*
 * Round n raced if a migration qualified in it (ns_toucher_main()) before
 * the driver's last look that still read the scan count of the round's
 * start (the scan that made the PTE PROT_NONE had not ended), while a
 * writer on another CPU than the toucher's stored between the two.
 */
static int scan_round(void *priv, uint64_t n, struct mmt_worker *wk)
{
	struct ns_priv *p = priv;
	struct ns_toucher *t = p->t;
	uint64_t lost0, last_ns = 0, stores = 0;
	bool raced = false;

	WRITE_ONCE(p->round_now, n);
	WRITE_ONCE(p->round_raced, false);
	if (p->variant == V_BROKEN_REWIND)
		return rewind_round(p, n, wk);
	if (n > 1) {
		uint64_t t0 = mmt_now_ns();

		if (rearm(p))
			return -1;
		p->rearm_ns += mmt_now_ns() - t0;
	}
	lost0 = total_lost(p);
	WRITE_ONCE(t->round_start_ns, mmt_now_ns());
	smp_store_release(&t->round, n);
	if (p->variant == V_SCAN_FAULT) {
		long seq0 = ns_scan_seq(p->sched_fd);

		if (!wait_scan(p, seq0, &last_ns, &stores))
			return p->hunt.error[0] || p->hunt.wait_timeouts ? -1 : 0;
		p->rounds_scanned++;
	} else {
		usleep(NS_CONTROL_ROUND_US);
		last_ns = mmt_now_ns();
		stores = other_writers_stores(p->ctl, p->nwriters, t->cpu);
	}
	if (smp_load_acquire(&t->qual_round) == n)
		raced = READ_ONCE(t->qual_ns) <= last_ns && stores > READ_ONCE(t->qual_stores);
	WRITE_ONCE(p->round_raced, raced);
	p->outcomes[OUT_LOST] = total_lost(p);
	mmt_hunt_round(&p->hunt, n, raced, p->outcomes[OUT_LOST] > lost0, wk);
	return 0;
}

void ns_driver(struct ns_priv *p, struct mmt_worker *wk)
{
	/* Every writer storing before the first round: on an overcommitted
	 * host a short run could otherwise end before one started. */
	for (unsigned w = 0; w < p->nwriters; w++)
		if (!mmt_hunt_wait(&p->hunt, &p->ctl->w[w].stores, 1, NS_WAIT_NS, "a writer's first stores")) {
			WRITE_ONCE(p->ctl->stop, 1);
			return;
		}
	mmt_hunt_drive(&p->hunt, p->run, wk, scan_round, p, &p->outcomes[OUT_LOST], &p->ctl->stop);
}

/* ---- the mover process ---------------------------------------------------- */

static void child_main(struct ns_priv *p, pid_t parent)
{
	struct ns_ctl *c = p->ctl;
	void *hot = p->region;
	int toucher_node = p->t->node, cpu;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(0);
	/* The CPU is known once the workers are placed. */
	while (!READ_ONCE(c->stop) && smp_load_acquire(&c->mover_cpu) < 0 && getppid() == parent)
		usleep(100);
	cpu = READ_ONCE(c->mover_cpu);
	mmt_pin_self(cpu < 0 ? 0 : cpu);
	while (!READ_ONCE(c->stop) && getppid() == parent) {
		int status = -1;

		if (move_pages(parent, 1, &hot, NULL, &status, 0) == 0 && status == toucher_node) {
			int target = p->home_node;

			if (move_pages(parent, 1, &hot, &target, &status, MPOL_MF_MOVE) || status != target) {
				c->errors++;
				c->last_errno = status < 0 ? -status : errno;
			} else {
				smp_store_release(&c->moved_back, c->moved_back + 1);
			}
		}
		c->looks++;
		/* the toucher's turn: its CPU switches mm, its TLB is emptied */
		sched_yield();
	}
	_exit(0);
}

static void mover(void *arg, pid_t parent)
{
	child_main(arg, parent);
}

int ns_mover_start(struct ns_priv *p, char *err, size_t len)
{
	p->child = mmt_child_start(mover, p, err, len);
	return p->child < 0 ? -1 : 0;
}

const char *ns_mover_stop(struct ns_priv *p)
{
	static char why[96];
	const char *r;

	if (p->child <= 0)
		return NULL;
	WRITE_ONCE(p->ctl->stop, 1);
	r = mmt_child_reap(p->child, NS_WAIT_NS, "mover", why, sizeof(why));
	p->child = 0;
	return r;
}
