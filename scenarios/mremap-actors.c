/* SPDX-License-Identifier: MIT */
/*
 * mremap's actors, per round n:
 *   mover    writes the round's value to the target (the memfd's first
 *            page) with pwrite(), maps the memfd at the old place, every
 *            page present and clean (read in), publishes round n, waits
 *            for the reader to read the value, then mremap(MREMAP_FIXED |
 *            MREMAP_DONTUNMAP) of the whole mapping to the new place; once
 *            the others are done, judges the reader's reads
 *   puncher  a little into the mremap() call (past the first page
 *            table's move: the target is the first page), punches the
 *            target page out of the memfd (fallocate PUNCH_HOLE) and
 *            publishes its return
 *   reader   reads the target through the OLD address until the punch
 *            returned, then MR_AFTER_READS more: reads made after the page
 *            left the file, each of which must read the hole's 0 (the old
 *            mapping stays, DONTUNMAP: a read there faults the file's new
 *            page in)
 * Nothing in the reader enters the kernel between its first read and its
 * last (a system call may switch page tables and flush the entry the race
 * needs): its bound is in cycles.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "arch/barrier.h"
#include "bounded-wait.h"
#include "clock.h"
#include "mremap.h"

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22	/* Linux 5.14 */
#endif
#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP 4	/* Linux 5.7; shared mappings since 5.13 */
#endif

static void fail(struct mr_priv *p, const char *what, int err)
{
	mmt_hunt_fail(&p->hunt, what, err);
}

static bool wait_for(struct mr_priv *p, const uint64_t *x, uint64_t v, const char *what)
{
	return mmt_hunt_wait(&p->hunt, x, v, MR_WAIT_NS, what);
}

/* ---- mover --------------------------------------------------------------- */

/*
 * Round n's value in the file's first page (pwrite(): a new page after a
 * punch), then the memfd at the old place again (over what DONTUNMAP left
 * there), every page present and its PTE clean: read in, never stored
 * through.  A clean PTE is the case the kernel before eb66ae030829 left
 * for one flush after the whole move (a dirty one it flushed at once).
 */
int mr_map_old(struct mr_priv *p, uint64_t n)
{
	const uint64_t v = mr_tag(n);

	if (pwrite(p->memfd, &v, sizeof(v), 0) != (ssize_t)sizeof(v)) {
		fail(p, "pwrite of the round's value to the memfd", errno);
		return -1;
	}
	if (mmap(p->old_at, p->len, PROT_READ, MAP_SHARED | MAP_FIXED, p->memfd, 0) == MAP_FAILED) {
		fail(p, "mmap of the memfd at the old place", errno);
		return -1;
	}
	madvise(p->old_at, p->len, MADV_NOHUGEPAGE);
	if (p->populate_read) {
		if (madvise(p->old_at, p->len, MADV_POPULATE_READ)) {
			fail(p, "madvise(MADV_POPULATE_READ)", errno);
			return -1;
		}
		return 0;
	}
	for (size_t off = 0; off < p->len; off += p->psz)
		(void)READ_ONCE(p->old_at[off]);
	return 0;
}

/* The new place reserved again (the moved mapping gone with it). */
static int reset_new(struct mr_priv *p)
{
	if (mmap(p->new_at, p->len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0) ==
	    MAP_FAILED) {
		fail(p, "reserving the new place again", errno);
		return -1;
	}
	return 0;
}

/*
 * Round n, every actor done: each of the reader's reads after the punch
 * returned must read 0, the hole's.  A kernel that flushed the old
 * address's TLB entries before dropping the page table lock it moved them
 * under made the reader fault, and the fault found the hole.  The round
 * raced (the premise of eb66ae030829) when the punch ran wholly inside the
 * mremap() call, past its start, from the second round on (the first
 * punches after the call: the puncher has no call length to aim with
 * yet): the target's PTE had moved, the punch unmapped it at the new
 * address and freed the page while the old address's flush was still due.
 */
static void judge_round(struct mr_priv *p, uint64_t n, uint64_t t_m1, struct mmt_worker *wk)
{
	const struct mr_puncher *u = p->puncher;
	const struct mmt_stale_reader *r = p->reader;
	struct mr_witness x = { .round = n, .reads = r->round_stale, .file_value = mr_tag(n), .found = r->first_value,
				.reader_cpu = r->cpu, .mover_cpu = p->mover_cpu, .puncher_cpu = u->cpu };

	if (u->t_p1 >= t_m1)
		p->punched_late++;
	else
		x.raced = true;
	p->outcomes[OUT_FRESH] += MR_AFTER_READS - r->round_stale;
	p->outcomes[OUT_STALE] += r->round_stale;
	if (r->round_stale && p->nr_first < MR_MAX_FIRST)
		p->first[p->nr_first++] = x;
	mmt_hunt_round(&p->hunt, n, x.raced, r->round_stale, wk);
}

static int round_once(void *priv, uint64_t n, struct mmt_worker *wk)
{
	struct mr_priv *p = priv;
	uint64_t t_m0, t_m1;
	void *r;
	int cpu, err;

	if (mr_map_old(p, n))
		return -1;
	smp_store_release(&p->ctl->round, n);
	if (!wait_for(p, &p->reader->armed, n, "the reader's first read of the round's value"))
		return -1;
	cpu = sched_getcpu();
	t_m0 = mmt_now_ns();
	WRITE_ONCE(p->ctl->t_m0, t_m0);
	smp_store_release(&p->ctl->moving, n);
	r = mremap(p->old_at, p->len, p->len, MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP, p->new_at);
	err = errno;
	t_m1 = mmt_now_ns();
	p->mover_cpu = sched_getcpu() == cpu ? cpu : -1;
	smp_store_release(&p->ctl->moved, n);
	if (r == MAP_FAILED) {
		fail(p, "mremap(MREMAP_DONTUNMAP) of the memfd mapping", err);
		return -1;
	}
	p->move_ns_sum += t_m1 - t_m0;
	WRITE_ONCE(p->ctl->mean_move_ns, p->move_ns_sum / n);
	if (!wait_for(p, &p->puncher->punched, n, "the puncher's fallocate()") ||
	    !wait_for(p, &p->reader->acked, n, "the reader's reads after the punch"))
		return -1;
	if (p->puncher->error)
		fail(p, "the puncher's fallocate(PUNCH_HOLE)", p->puncher->error);
	judge_round(p, n, t_m1, wk);
	if (reset_new(p))
		return -1;
	return p->hunt.error[0] ? -1 : 0;
}

void mr_mover(struct mr_priv *p, struct mmt_worker *wk)
{
	mmt_worker_at(wk, "mapping, moving, waiting for the others, judging");
	mmt_hunt_drive(&p->hunt, p->run, wk, round_once, p, &p->outcomes[OUT_STALE], &p->ctl->stop);
}

/* ---- puncher ------------------------------------------------------------- */

/* Until the moment to punch: MR_PUNCH_AT of the mean call into it, the
 * call's return, or (punch-after-move, and the first round, with no mean
 * yet) its return only; bounded. */
static void await_moment(const struct mr_priv *p, uint64_t n)
{
	const bool after = p->variant == V_PUNCH_AFTER_MOVE || !READ_ONCE(p->ctl->mean_move_ns);
	const uint64_t at = READ_ONCE(p->ctl->t_m0) + (uint64_t)(MR_PUNCH_AT * (double)READ_ONCE(p->ctl->mean_move_ns));
	const uint64_t t0 = mmt_now_ns();

	for (unsigned spins = 0; smp_load_acquire(&p->ctl->moved) < n; spins++) {
		const uint64_t now = mmt_now_ns();

		if ((!after && now >= at) || now - t0 > MR_WAIT_NS)
			return;
		mmt_pause_beside(p->puncher_threaded, spins, MR_NAP_NS);
	}
}

void mr_puncher_main(struct mr_priv *p)
{
	struct mr_puncher *u = p->puncher;

	for (uint64_t n = 1;; n++) {
		int r;

		if (!mmt_wait_beside(&p->ctl->moving, n, &p->ctl->stop, MR_IDLE_WAIT_NS, p->puncher_threaded, MR_NAP_NS)) {
			WRITE_ONCE(u->stuck, !READ_ONCE(p->ctl->stop));
			return;
		}
		await_moment(p, n);
		u->t_p0 = mmt_now_ns();
		r = fallocate(p->memfd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, (off_t)p->psz);
		u->t_p1 = mmt_now_ns();
		if (r && !u->error)
			u->error = errno;
		u->cpu = sched_getcpu();
		u->calls++;
		smp_store_release(&u->punched, n);
	}
}

void *mr_puncher_thread(void *arg)
{
	/* Its 20 us naps must not take the default 50 us of timer slack. */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	mr_puncher_main(arg);
	return NULL;
}

/* ---- reader -------------------------------------------------------------- */

/*
 * Round n: reads the target through the old address (its TLB entry in use
 * on this CPU) until it reads the round's value, then on until the punch
 * returned, then MR_AFTER_READS more (broken-stale: from a page of its own
 * holding the old value instead), counting those that did not read the
 * hole's 0 (stale-read.h).
 */
static bool read_round(void *arg, uint64_t n)
{
	struct mr_priv *p = arg;
	const struct mmt_stale_round x = {
		.at = (const volatile uint64_t *)p->old_at, .value = mr_tag(n), .want = 0,
		.revoked = &p->puncher->punched, .stop = &p->ctl->stop, .after_reads = MR_AFTER_READS,
		.shadow = p->variant == V_BROKEN_STALE ? (volatile uint64_t *)p->shadow : NULL,
	};

	if (!mmt_stale_read_round(p->reader, &x, n))
		return false;
	smp_store_release(&p->reader->acked, n);
	return true;
}

void mr_reader_main(struct mr_priv *p)
{
	mmt_stale_reader_main(p->reader, &p->ctl->round, &p->ctl->stop, MR_IDLE_WAIT_NS, read_round, p);
}
