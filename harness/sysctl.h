/* SPDX-License-Identifier: MIT */
/*
 * Sysctls changed for a run, and put back whatever happens to the run.
 *
 * Before a value is changed its original is written (and synced) to a
 * journal in a root-only state directory, /run/mmtorture (0700).  The run
 * restores it on every exit path (return, exit(), the fatal signals), and
 * a run that dies where nothing can run (SIGKILL, the OOM killer) is
 * repaired by the next run, which says so, or by `mmtorture --restore`.
 *
 * A lock file in the same directory, held from the first change to the
 * restore, keeps two runs from restoring each other's values: the second
 * does without.  The directory, the lock and the journal are opened with
 * O_NOFOLLOW, created with O_EXCL, and refused unless they belong to us
 * and nobody else can open them.
 *
 * Test hook: MMT_SYSCTL_ROOT=DIR puts the sysctl files and the state
 * directory under DIR (DIR/proc/sys/..., DIR/run/mmtorture), so the suite
 * can kill runs without touching the machine.
 */
#ifndef MMT_SYSCTL_H
#define MMT_SYSCTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The scheduler's knobs that Linux 5.13 moved from /proc/sys to debugfs
 * (numa_balancing/scan_delay_ms, ...): journalled as sysctls are. */
#define MMT_SCHED_DEBUGFS "/sys/kernel/debug/sched"

/* Transparent huge pages' knobs (shmem_enabled, ...): a read shows every
 * choice with the one in force in brackets ("always [never] ..."), so
 * the journal keeps that word alone, which is what a write takes back. */
#define MMT_THP_SYSFS "/sys/kernel/mm/transparent_hugepage"

/* Such a knob's read (n bytes at buf): the bracketed choice moved to the
 * front of buf, NUL-terminated; its length, or 0 (buf untouched) where
 * there is none. */
size_t mmt_sysctl_choice_in_force(char *buf, size_t n);

/* Journals the current value of path (a /proc/sys file, or one of the
 * other knobs above), then writes
 * value.  0, or -1 with one line in err (the lock is held by another run,
 * the state directory is unsafe, the file cannot be read or written). */
int mmt_sysctl_set(const char *path, const char *value, char *err, size_t len);

/* Between a scenario's prepare and cleanup (running true), only the
 * sysctls in declared (its needs.sysctls, NULL-terminated) may be set:
 * a scenario changes only what it says it changes. */
void mmt_sysctl_scenario(const char *const *declared, bool running);

/* Restores everything set so far, then drops the journal and the lock;
 * async-signal-safe, so signal handlers may call it.  A value that cannot
 * be written back keeps the journal for the next run. */
void mmt_sysctl_restore_all(void);

/* Scoped restores, for a scenario that changes sysctls for one run while
 * the invocation keeps its own (--mutant): the count set so far, and a
 * restore of those set since (not async-signal-safe; a dying process
 * calls mmt_sysctl_restore_all). */
int mmt_sysctl_mark(void);
void mmt_sysctl_restore_to(int mark);

/* Fatal signals (everything whose default is to terminate, but SIGKILL,
 * SIGSTOP and the ones the caller has blocked) restore, then die as they
 * would have.  Install before the first mmt_sysctl_set. */
void mmt_sysctl_guard_signals(void);

enum mmt_repair {
	MMT_REPAIR_CLEAN,	/* no journal: nothing was left changed */
	MMT_REPAIR_DONE,	/* a dead run's values were put back */
	MMT_REPAIR_BUSY,	/* a live run holds the journal: its values, its restore */
	MMT_REPAIR_FAILED,	/* a journal could not be read or restored */
	MMT_REPAIR_NO_ACCESS,	/* the state directory is not ours to read (not root) */
};

/* Puts back what a dead run left changed: one line per sysctl on log.
 * err gets the reason for BUSY, FAILED and NO_ACCESS. */
enum mmt_repair mmt_sysctl_repair(FILE *log, char *err, size_t len);

/* One value a dead run left changed, and what this process did with it. */
struct mmt_sysctl_repair_note {
	long left_by_pid;
	char path[512];		/* under MMT_SYSCTL_ROOT, which is not shown */
	char value[256];	/* as written back, trailing blanks trimmed */
	bool restored;
	char error[128];	/* why not, where restored is false */
};

/* What this process found and did, for the results' metadata (rendered by
 * document-json.c as "sysctl_journal"). */
struct mmt_sysctl_journal {
	const char *state_dir;
	const char *status;	/* clean, repaired, busy, failed, unavailable */
	const char *reason;	/* NULL: none */
	const struct mmt_sysctl_repair_note *repairs;	/* every repair this process did */
	unsigned nr_repairs;
};

/* Valid until the next repair. */
void mmt_sysctl_journal_get(struct mmt_sysctl_journal *j);

/* The state directory in use (for messages). */
const char *mmt_sysctl_state_dir(void);

#endif
