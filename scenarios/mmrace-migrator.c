/* SPDX-License-Identifier: MIT */
/*
 * mmrace migrator: a second process that maps the same memfd and moves
 * the hot pages while the protector's mprotect walk is in progress.
 *
 * Why a process: migration from inside the writers' process (mbind,
 * move_pages of our own mm) takes that mm's mmap_lock, and mprotect holds
 * it for writing from tlb_gather_mmu() to tlb_finish_mmu(): exactly the
 * pending-flush window of 20841405940e.  The two would be serialised and
 * the race could never happen.  A second mm has its own mmap_lock; the
 * kernel's rmap walk (try_to_migrate_one) still reaches the writers'
 * PTEs, and that is where the fix's pte_accessible() check lives.
 * Moving pages mapped by another process needs MPOL_MF_MOVE_ALL, hence
 * CAP_SYS_NICE.
 *
 * Per walk n: touch the hot pages (a shared mapping is not inherited
 * populated), read their PFNs, say ready, wait for walk n to start (spin,
 * then a futex, so a migrator sharing a writer's CPU does not steal it),
 * wait a random delay below the walk's measured length, migrate, read the
 * PFNs again and say done.  m0/m1 bracket the migrate call, so the
 * protector can tell a migration inside its walk from one outside; the
 * "moving" word and the CPU sampled around the call let the writers say
 * whether one of them stored to the pages from another CPU meanwhile.
 *
 * race-compaction: the move is a compaction pass over the hot pages'
 * node (its sysfs compact file), timed the same way; before reading walk
 * n's PFNs it waits for walk n-1 to open, since the protector re-places
 * the hot pages between walks.
 *
 * A call can run over the walk's start or end (a compaction pass lasts a
 * good part of the walk; a move_pages() call under emulation takes
 * milliseconds) while a page's move is microseconds of it, so m0 and m1
 * alone would leave out moves that were inside: a watcher thread, on the
 * protector's CPU, reads the hot pages' PFNs during the call, and a page
 * that it saw at its old frame and then at another had moved by that
 * read.  Only the end is narrowed: the watcher reads this process's PTE,
 * which the kernel's rmap walk unmaps after the writers' (fork() put the
 * child's VMA after the parent's), so the last read of the old frame says
 * nothing of when the writers' PTE was taken; the new frame in ours says
 * the copy was done.
 *
 * Its CPU: its own where the line-up has one; else the protector's, never
 * a writer's (a switch to this process there loads another page table
 * and, under emulation, empties that CPU's TLB: no stale entry could
 * outlive the move).  On the protector's CPU it runs when the walk is
 * preempted, with the walk's flush still pending.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <numaif.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "arch/barrier.h"
#include "child.h"
#include "clock.h"
#include "mix.h"
#include "mmrace.h"
#include "mutant.h"
#include "pagemap.h"
#include "timing.h"

#define SPIN_BEFORE_SLEEP_NS 20000ull
#define NAP_MIN_NS 10000ull	/* the shortest nap on the protector's CPU */
/* The watcher's period during a call: a page's move is timed to about
 * this, against walks of milliseconds (hundreds under emulation). */
#define WATCH_PERIOD_NS 100000ull
#define WATCH_IDLE_WAIT_S 1	/* its bounded sleep between passes */

/* The watcher and the migrator: one process. */
struct move_watch {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	struct mmr_priv *p;
	int fd;			/* the migrator's pagemap */
	uint64_t pass;		/* n while walk n's call runs, else 0 */
	bool seen_old[MMR_MAX_HOT];	/* this call: a read saw the page's old frame */
	uint64_t before[MMR_MAX_HOT];	/* then the end of the first read that saw another */
	uint64_t polls;
};

static long futex(uint32_t *addr, int op, uint32_t val, const struct timespec *ts)
{
	return syscall(SYS_futex, addr, op, val, ts, NULL, 0);
}

/* Waits until walk n has started; false if told to stop or orphaned. */
static bool wait_walk(struct mmr_ctl *c, uint32_t n, pid_t parent)
{
	uint64_t t0 = mmt_now_ns();

	while (__atomic_load_n(&c->walk_seq, __ATOMIC_ACQUIRE) < n) {
		if (READ_ONCE(c->stop) || getppid() != parent)
			return false;
		if (mmt_now_ns() - t0 < SPIN_BEFORE_SLEEP_NS) {
			cpu_relax();
			continue;
		}
		{
			/* Dekker with the protector: it stores walk_seq then
			 * reads child_sleeping; we store child_sleeping then
			 * read walk_seq (FUTEX_WAIT compares it atomically). */
			struct timespec ts = { 0, 100 * 1000 * 1000 };

			__atomic_store_n(&c->child_sleeping, 1, __ATOMIC_SEQ_CST);
			futex(&c->walk_seq, FUTEX_WAIT, n - 1, &ts);
			__atomic_store_n(&c->child_sleeping, 0, __ATOMIC_SEQ_CST);
		}
	}
	return true;
}

/*
 * On the protector's CPU: waits for walk n by napping, each nap a random
 * length below the walk's, so that the wake-up that finds the walk begun
 * lands inside it and preempts it there, its flush pending.  A futex wake
 * at the walk's start would run this process before the walk instead.
 */
static bool nap_into_walk(struct mmr_ctl *c, uint32_t n, pid_t parent, uint64_t *seed)
{
	while (__atomic_load_n(&c->walk_seq, __ATOMIC_ACQUIRE) < n) {
		uint64_t bound = READ_ONCE(c->delay_max_ns);
		struct timespec ts = { 0, 0 };

		if (READ_ONCE(c->stop) || getppid() != parent)
			return false;
		ts.tv_nsec = (long)(NAP_MIN_NS + (bound ? mmt_random_upto(seed, bound - 1) : 0) % (1000000000ull - NAP_MIN_NS));
		nanosleep(&ts, NULL);
	}
	return true;
}

/* Waits for iteration n to open (the protector has restored access). */
static bool wait_open(struct mmr_ctl *c, uint64_t n, pid_t parent)
{
	while (smp_load_acquire(&c->epoch) < 4 * n) {
		if (READ_ONCE(c->stop) || getppid() != parent)
			return false;
		usleep(100);
	}
	return true;
}

/* The mutant kernel's count of PROT_NONE entries taken for migration with
 * a flush pending (PTEs cleared; race-thp's switch: PMDs invalidated), by
 * the switch kernel/mutants.tsv ties to the variant (mutant.h), or -1 on
 * an ordinary kernel. */
static int64_t kernel_window(int fd)
{
	char buf[32];
	ssize_t n = fd < 0 ? -1 : pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return -1;
	buf[n] = 0;
	return strtoll(buf, NULL, 10);
}

static void read_pfns(int fd, char *base, unsigned n, uint64_t *out)
{
	for (unsigned i = 0; i < n; i++)
		out[i] = mmr_read_pfn(fd, base + (size_t)i * MMR_PAGE);
}

/* Synchronous: the write returns when the pass is done. */
long mmr_compact(const struct mmr_priv *p)
{
	int fd = open(p->compact_path, O_WRONLY | O_CLOEXEC);
	long rc = fd < 0 ? -1 : write(fd, "1", 1) == 1 ? 0 : -1;

	if (fd >= 0)
		close(fd);
	return rc;
}

long mmr_move_hot(const struct mmr_priv *p, char *base, uint64_t n, void **pages, int *nodes, int *status)
{
	if (p->variant == V_RACE_COMPACTION)
		return mmr_compact(p);
	if (p->nodes > 1) {
		int target = p->node_ids[n % (uint64_t)p->nodes];

		for (unsigned i = 0; i < p->hot; i++)
			nodes[i] = target;
		return move_pages(0, p->hot, pages, nodes, status, MPOL_MF_MOVE_ALL);
	}
	/* One node: MPOL_LOCAL with a move still gives every page a new
	 * frame (the empty local mask makes every page "misplaced"). */
	return mbind(base, (size_t)p->hot * MMR_PAGE, MPOL_LOCAL, NULL, 0, MPOL_MF_MOVE_ALL);
}

/* One read of the hot pages' PFNs during walk n's call, lock held (one
 * pread: their entries are contiguous).  A page seen at its old frame and
 * now at another had moved by t1; one never seen at its old frame during
 * the call may have moved before it, and is left to the call's return.
 * An entry with no frame (a migration entry: the page in motion) says
 * nothing. */
static void watch_once(struct move_watch *w, uint64_t n)
{
	const struct mmr_priv *p = w->p;
	uint64_t e[MMR_MAX_HOT], t1;
	const ssize_t len = (ssize_t)(p->hot * sizeof(e[0]));

	if (pread(w->fd, e, (size_t)len, (off_t)((uintptr_t)p->region / MMR_PAGE * sizeof(e[0]))) != len)
		return;
	t1 = mmt_now_ns();
	for (unsigned i = 0; i < p->hot; i++) {
		const uint64_t old = p->ctl->pfn_before[n & 1][i];
		const uint64_t pfn = e[i] & MMT_PM_PRESENT ? e[i] & MMT_PM_PFN_MASK : 0;

		if (!pfn || !old || w->before[i] != UINT64_MAX)
			continue;
		if (pfn == old)
			w->seen_old[i] = true;
		else if (w->seen_old[i])
			w->before[i] = t1;
	}
}

static void *watch_main(void *arg)
{
	struct move_watch *w = arg;
	const struct timespec period = { 0, WATCH_PERIOD_NS };

	pthread_mutex_lock(&w->lock);
	while (!READ_ONCE(w->p->ctl->stop)) {
		struct timespec until;

		if (w->pass) {
			watch_once(w, w->pass);
			w->polls++;	/* the thread's reads, not watch_begin()'s */
			pthread_mutex_unlock(&w->lock);
			nanosleep(&period, NULL);
			pthread_mutex_lock(&w->lock);
			continue;
		}
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += WATCH_IDLE_WAIT_S;
		pthread_cond_timedwait(&w->wake, &w->lock, &until);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

/* Before walk n's move: every page's move unknown, a first read made
 * here (the watcher, on the protector's CPU, may get no CPU until the
 * call is well under way: a page it first sees moved it cannot time),
 * the watcher told. */
static void watch_begin(struct move_watch *w, uint64_t n)
{
	pthread_mutex_lock(&w->lock);
	for (unsigned i = 0; i < w->p->hot; i++) {
		w->seen_old[i] = false;
		w->before[i] = UINT64_MAX;
	}
	watch_once(w, n);
	w->pass = n;
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
}

/* After walk n's move, between m0 and m1: each page's move done no later
 * than the call's return, or than the read that saw it moved (w NULL: no
 * watcher, the call's return). */
static void watch_end(struct move_watch *w, struct mmr_ctl *c, unsigned hot, uint64_t n)
{
	if (w) {
		pthread_mutex_lock(&w->lock);
		w->pass = 0;
	}
	for (unsigned i = 0; i < hot; i++)
		c->move_before[n & 1][i] = w && w->before[i] < c->m1 ? w->before[i] : c->m1;
	if (w) {
		c->watch_polls = w->polls;
		pthread_mutex_unlock(&w->lock);
	}
}

/* The watcher, on the protector's CPU: never a writer's, and not the
 * migrator's unless it shares the protector's, since beside the call it
 * could read only where the call lets it be scheduled (a move_pages() of
 * a few pages, none: measured in the TCG guest, one read per call).  NULL
 * without PFNs (not root) or a thread, and the calls' times stand. */
static struct move_watch *watch_start(struct mmr_priv *p, int fd)
{
	static struct move_watch w;
	pthread_attr_t attr;
	pthread_t t;
	int rc;

	if (fd < 0 || !p->pagemap || pthread_attr_init(&attr))
		return NULL;
	w.p = p;
	w.fd = fd;
	pthread_mutex_init(&w.lock, NULL);
	pthread_cond_init(&w.wake, NULL);
	/* Pinned from its start, or not at all: nowhere else is sure not
	 * to be a writer's CPU. */
	rc = mmt_pin_attr(&attr, READ_ONCE(p->ctl->protector_cpu)) ||
	     pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED) ||
	     pthread_create(&t, &attr, watch_main, &w);
	pthread_attr_destroy(&attr);
	return rc ? NULL : &w;
}

/* The control's wait: only once mprotect has returned, its flush done,
 * so no flush can be pending. */
static void wait_walk_returned(struct mmr_ctl *c, uint64_t n, bool shares_protector)
{
	while (smp_load_acquire(&c->epoch) < 4 * n - 2 && !READ_ONCE(c->stop)) {
		if (shares_protector)
			sched_yield();	/* the walk needs this CPU */
		else
			cpu_relax();
	}
}

/* Pages whose frame changed in move n, from the pagemap before and after. */
static void count_moved(struct mmr_priv *p, uint64_t n)
{
	struct mmr_ctl *c = p->ctl;
	uint64_t moved = 0;

	for (unsigned i = 0; i < p->hot; i++)
		moved += mmr_page_moved(c, n & 1, i);
	c->moved = moved;
	c->pages_moved += moved;
	if (p->nodes > 1 && p->variant != V_RACE_COMPACTION)
		c->moved_to[n % (uint64_t)p->nodes] += moved;
}

static void child_main(struct mmr_priv *p, pid_t parent)
{
	struct mmr_ctl *c = p->ctl;
	char *base = p->region;	/* our own mapping of it: fork copied the VMA, RW */
	void *pages[MMR_MAX_HOT];
	int nodes[MMR_MAX_HOT], status[MMR_MAX_HOT];
	uint64_t seed = p->run->seed ^ 0x6d6967726174ull;
	int fd, kfd;
	bool shares_protector;
	struct move_watch *watch;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(0);
	signal(SIGSEGV, SIG_DFL);
	fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	kfd = p->window_path[0] ? open(p->window_path, O_RDONLY | O_CLOEXEC) : -1;
	/* The CPU is known once the workers are placed. */
	/* Acquire: protector_cpu, stored before child_cpu's release. */
	while (READ_ONCE(c->stop) == 0 && smp_load_acquire(&c->child_cpu) < 0 && getppid() == parent)
		usleep(100);
	mmt_pin_self(READ_ONCE(c->child_cpu) < 0 ? 0 : READ_ONCE(c->child_cpu));
	prctl(PR_SET_TIMERSLACK, 1ul);	/* naps as long as asked */
	shares_protector = READ_ONCE(c->child_cpu) == READ_ONCE(c->protector_cpu);
	watch = watch_start(p, fd);
	for (unsigned i = 0; i < p->hot; i++)
		pages[i] = base + (size_t)i * MMR_PAGE;
	/* Two moves before walk 1, timed (to walk 0's target and back to
	 * walk 1's source), so that the protector's first delay knows how
	 * long a call takes; race-compaction's pass was timed in prepare. */
	if (p->variant != V_RACE_COMPACTION)
		for (uint64_t k = 1; k < 3 && !READ_ONCE(c->stop); k++) {
			uint64_t t0;

			for (unsigned i = 0; i < p->hot; i++)
				(void)READ_ONCE(*(volatile uint64_t *)pages[i]);
			t0 = mmt_now_ns();
			mmr_move_hot(p, base, k & 1, pages, nodes, status);
			t0 = mmt_now_ns() - t0;
			c->first_move_ns = t0 > c->first_move_ns ? t0 : c->first_move_ns;
		}

	for (uint64_t n = 1; !READ_ONCE(c->stop); n++) {
		uint64_t delay;
		int64_t k0, k1;
		int cpu0, cpu1;
		long rc;

		/* race-compaction: the PFNs of walk n are those the protector
		 * re-placed the hot pages at after walk n-1. */
		if (p->variant == V_RACE_COMPACTION && !wait_open(c, n - 1, parent))
			break;
		for (unsigned i = 0; i < p->hot; i++)
			(void)READ_ONCE(*(volatile uint64_t *)pages[i]);
		read_pfns(fd, base, p->hot, c->pfn_before[n & 1]);
		smp_store_release(&c->child_ready, n);
		if (!(shares_protector ? nap_into_walk(c, (uint32_t)n, parent, &seed)
				       : wait_walk(c, (uint32_t)n, parent)) || READ_ONCE(c->stop))
			break;
		if (mmr_after_walk(p->variant))
			wait_walk_returned(c, n, shares_protector);
		/* A spin on the protector's CPU would only hold the walk
		 * still: there the move comes when the walk is preempted.
		 * Elsewhere at least twice the guard after the walk's start:
		 * a call begun sooner is not counted inside the walk (the
		 * hot PTEs may not have changed yet), and the first walk,
		 * with no length measured yet, gives no delay at all (the
		 * guest proof: 1 of 10 lost writes in each row at walk 1
		 * with no page counted raced). */
		delay = shares_protector ? 0 : 2 * p->guard_ns + mmt_random_upto(&seed, READ_ONCE(c->delay_max_ns));
		mmt_spin_until_ns(mmt_now_ns() + delay);
		k0 = kernel_window(kfd);
		cpu0 = sched_getcpu();
		/* moving brackets m0..m1: a writer's store between its two
		 * reads of n ran while the call was moving the pages. */
		if (watch)	/* outside moving's bracket: no store "while moving" */
			watch_begin(watch, n);
		smp_store_release(&c->moving, n);
		c->m0 = mmt_now_ns();
		rc = mmr_move_hot(p, base, n, pages, nodes, status);
		c->m1 = mmt_now_ns();
		smp_store_release(&c->moving, 0);
		watch_end(watch, c, p->hot, n);
		cpu1 = sched_getcpu();
		c->migrator_cpu = cpu0 == cpu1 ? cpu0 : -1;
		k1 = kernel_window(kfd);
		c->kwindow = k0 < 0 || k1 < 0 ? -1 : k1 - k0;
		c->migrate_calls++;
		if (rc < 0) {
			c->migrate_errors++;
			c->last_errno = errno;
		}
		read_pfns(fd, base, p->hot, c->pfn_after[n & 1]);
		count_moved(p, n);
		smp_store_release(&c->child_done, n);
	}
	_exit(0);
}

static void migrator(void *arg, pid_t parent)
{
	child_main(arg, parent);
}

int mmr_migrator_start(struct mmr_priv *p, char *err, size_t len)
{
	p->ctl->child_cpu = -1;
	p->child = mmt_child_start(migrator, p, err, len);
	return p->child < 0 ? -1 : 0;
}

bool mmr_migrator_alive(struct mmr_priv *p)
{
	return p->child > 0 && waitpid(p->child, NULL, WNOHANG) == 0;
}

const char *mmr_migrator_stop(struct mmr_priv *p)
{
	static char why[96];
	const char *r;

	if (p->child <= 0)
		return NULL;
	WRITE_ONCE(p->ctl->stop, 1);
	__atomic_store_n(&p->ctl->walk_seq, UINT32_MAX, __ATOMIC_SEQ_CST);
	futex(&p->ctl->walk_seq, FUTEX_WAKE, 1, NULL);
	r = mmt_child_reap(p->child, MMR_WAIT_NS, "migrator", why, sizeof(why));
	p->child = 0;
	return r;
}
