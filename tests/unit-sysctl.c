/* SPDX-License-Identifier: MIT */
/*
 * The sysctl journal against a fake /proc/sys (MMT_SYSCTL_ROOT): every
 * exit path restores, a dead run's journal is repaired before its values
 * could be taken for the machine's, and journals that name anything but a
 * sysctl, or that are not ours alone, are refused.
 */
#include "document-json.h"
#include "sysctl.h"
#include "tap.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char top[64], nb[256], journal[320], dir[256];

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	fputs(text, f);
	fclose(f);
}

static const char *get(const char *path)
{
	static char buf[64];
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = '\0';
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	while (d && readdir(d))
		n++;
	if (d)
		closedir(d);
	return n;
}

/* Child: change numa_balancing to 1, then end as told. */
static int child(int how)
{
	pid_t pid = fork();
	int status;

	if (!pid) {
		char err[256];
		sigset_t none;

		/* As from a terminal: a shell's background job (make check
		 * under nohup) inherits SIGQUIT ignored, and an ignored signal
		 * is rightly left alone by the guard. */
		for (int s = 1; s < 32; s++)
			if (s != SIGKILL && s != SIGSTOP)
				signal(s, SIG_DFL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		mmt_sysctl_guard_signals();
		if (mmt_sysctl_set("/proc/sys/kernel/numa_balancing", "1", err, sizeof(err))) {
			printf("# child: %s\n", err);
			_exit(99);
		}
		if (how == 0)
			exit(3);	/* a worker that cannot start */
		raise(how);
		_exit(98);
	}
	waitpid(pid, &status, 0);
	return status;
}

/* A fake /proc/sys under a fresh directory, numa_balancing at 0. */
static int make_fake_root(void)
{
	char cmd[256];

	snprintf(top, sizeof(top), "/tmp/mmt-unit-sysctl.XXXXXX");
	if (!mkdtemp(top))
		return -1;
	snprintf(nb, sizeof(nb), "%s/proc/sys/kernel/numa_balancing", top);
	snprintf(dir, sizeof(dir), "%s/run/mmtorture", top);
	snprintf(journal, sizeof(journal), "%s/journal", dir);
	snprintf(cmd, sizeof(cmd), "mkdir -p %s/proc/sys/kernel %s/run", top, top);
	if (system(cmd))
		return -1;
	put(nb, "0\n");
	setenv("MMT_SYSCTL_ROOT", top, 1);
	return 0;
}

static int remove_fake_root(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", top);
	return system(cmd) ? -1 : 0;
}

/* Every way out that runs a handler restores. */
static void test_exit_paths(void)
{
	static const int sigs[] = { SIGQUIT, SIGABRT, SIGBUS, SIGUSR1, SIGALRM, SIGPIPE, SIGSEGV, SIGTERM };
	int st;

	st = child(0);
	tap_ok(WIFEXITED(st) && WEXITSTATUS(st) == 3 && !strcmp(get(nb), "0") && access(journal, F_OK),
	       "exit(3) after a change: restored (%s), journal gone", get(nb));

	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		st = child(sigs[i]);
		tap_ok(WIFSIGNALED(st) && WTERMSIG(st) == sigs[i] && !strcmp(get(nb), "0"),
		       "%s: died of it, restored (%s)", strsignal(sigs[i]), get(nb));
	}
}

/* SIGKILL runs no handler: the journal it leaves is repaired by the next run. */
static void test_dead_run_repaired(void)
{
	char err[512];
	json_t *j;
	int st;

	st = child(SIGKILL);
	tap_ok(WIFSIGNALED(st) && !strcmp(get(nb), "1") && !access(journal, F_OK),
	       "SIGKILL: left at 1, journal kept");
	/* The bug this exists for: the next change must not save 1 as the
	 * original.  It repairs first, so its own restore goes back to 0. */
	tap_ok(!mmt_sysctl_set("/proc/sys/kernel/numa_balancing", "1", err, sizeof(err)) &&
		       !strcmp(get(nb), "1"), "a later change finds the dead run's journal, sets 1");
	mmt_sysctl_restore_all();
	tap_is_str(get(nb), "0", "... and restores the machine's own value, not the dead run's");
	j = mmt_sysctl_journal_json();
	tap_is_str(json_string_value(json_object_get(j, "status")), "repaired",
		   "metadata: status repaired");
	tap_is_int((long long)json_array_size(json_object_get(j, "repairs")), 1, "metadata: one repair");
	json_decref(j);

	/* A torn last entry (died mid-write) changed nothing: ignored. */
	put(journal, "mmtorture-sysctl-journal 1 pid 4242\nset /proc/sys/kernel/numa_balancing 30");
	chmod(journal, 0600);
	tap_ok(mmt_sysctl_repair(stdout, err, sizeof(err)) == MMT_REPAIR_DONE && access(journal, F_OK),
	       "a torn entry is ignored and the journal dropped");
}

/* A journal may only write sysctls. */
static void test_journal_refused(void)
{
	char err[512], line[512], victim[128];

	snprintf(victim, sizeof(victim), "%s/victim", top);
	put(victim, "keep\n");
	snprintf(line, sizeof(line), "mmtorture-sysctl-journal 1 pid 4242\nset %s 300a\n", victim);
	put(journal, line);
	chmod(journal, 0600);
	tap_ok(mmt_sysctl_repair(stdout, err, sizeof(err)) == MMT_REPAIR_FAILED &&
		       strstr(err, "not a sysctl or module parameter") && !strcmp(get(victim), "keep"),
	       "a journal naming a file outside /proc/sys is refused: %s", err);
	snprintf(line, sizeof(line), "mmtorture-sysctl-journal 1 pid 4242\nset %s/proc/sys/../../victim 300a\n", top);
	put(journal, line);
	tap_ok(mmt_sysctl_repair(stdout, err, sizeof(err)) == MMT_REPAIR_FAILED && !strcmp(get(victim), "keep"),
	       "... and one climbing out with '..': %s", err);
	chmod(journal, 0644);
	tap_ok(mmt_sysctl_repair(stdout, err, sizeof(err)) == MMT_REPAIR_FAILED && strstr(err, "open to other users"),
	       "a journal others can read is refused: %s", err);
	unlink(journal);
	if (symlink(victim, journal) == 0)
		tap_ok(mmt_sysctl_repair(stdout, err, sizeof(err)) == MMT_REPAIR_FAILED && strstr(err, "symlink"),
		       "a journal that is a symlink is refused: %s", err);
	unlink(journal);
}

static void test_state_dir_owner(void)
{
	char err[512];

	if (geteuid() == 0) {
		tap_ok(!chown(dir, 65534, 65534) &&
			       mmt_sysctl_set("/proc/sys/kernel/numa_balancing", "1", err, sizeof(err)) &&
			       strstr(err, "belongs to uid 65534") && !strcmp(get(nb), "0"),
		       "a state directory owned by another user is refused: %s", err);
		tap_ok(!chown(dir, 0, 0), "chown back");
	} else {
		tap_ok(1, "# SKIP ownership needs root");
		tap_ok(1, "# SKIP ownership needs root");
	}
}

/* mmrace sets and restores once per run: nothing may pile up. */
static void test_no_fd_left(void)
{
	char err[512];
	int before = count_fds(), ok = 1;

	for (int i = 0; i < 50 && ok; i++) {
		ok = !mmt_sysctl_set("/proc/sys/kernel/numa_balancing", "1", err, sizeof(err));
		mmt_sysctl_restore_all();
	}
	tap_ok(ok && count_fds() == before && !strcmp(get(nb), "0"),
	       "50 set/restore cycles: no descriptor left open (%d before, %d after)", before, count_fds());
}

static void test_only_sysctls(void)
{
	char err[512];

	char knob[400], cmd[512];

	tap_ok(mmt_sysctl_set("/etc/passwd", "x", err, sizeof(err)) && strstr(err, "not a sysctl"),
	       "only /proc/sys files and module parameters are changed: %s", err);
	tap_ok(mmt_sysctl_set("/sys/kernel/debug/tracing/tracing_on", "0", err, sizeof(err)) &&
		       strstr(err, "not a sysctl"),
	       "nor any debugfs file but the scheduler's knobs: %s", err);
	/* NUMA balancing's scan period moved from /proc/sys to debugfs (5.13) */
	snprintf(knob, sizeof(knob), "%s" MMT_SCHED_DEBUGFS "/numa_balancing/scan_delay_ms", top);
	snprintf(cmd, sizeof(cmd), "mkdir -p %s" MMT_SCHED_DEBUGFS "/numa_balancing", top);
	if (system(cmd))
		tap_ok(0, "mkdir: %s", cmd);
	/* the same length as the value set: a regular file is not truncated as a sysctl is */
	put(knob, "5\n");
	tap_ok(!mmt_sysctl_set(MMT_SCHED_DEBUGFS "/numa_balancing/scan_delay_ms", "0", err, sizeof(err)) &&
		       !strcmp(get(knob), "0"),
	       "a scheduler knob in debugfs is set (%s) %s", get(knob), err);
	mmt_sysctl_restore_all();
	tap_is_str(get(knob), "5", "... and put back");
	/* shmem_enabled reads back every choice, the one in force bracketed,
	 * and takes one word: that word is journalled and written back */
	snprintf(knob, sizeof(knob), "%s" MMT_THP_SYSFS "/shmem_enabled", top);
	snprintf(cmd, sizeof(cmd), "mkdir -p %s" MMT_THP_SYSFS, top);
	if (system(cmd))
		tap_ok(0, "mkdir: %s", cmd);
	put(knob, "always within_size advise [never] deny force\n");
	err[0] = '\0';
	/* the fake is not truncated by the write: its first word is the one written */
	tap_ok(!mmt_sysctl_set(MMT_THP_SYSFS "/shmem_enabled", "advise", err, sizeof(err)) &&
		       !strncmp(get(knob), "advise ", 7),
	       "a transparent huge page knob is set (%s) %s", get(knob), err);
	{
		FILE *f = fopen(journal, "r");
		char text[1024] = "";

		if (f) {
			text[fread(text, 1, sizeof(text) - 1, f)] = '\0';
			fclose(f);
		}
		/* "never" in hex, alone on its line */
		tap_ok(strstr(text, "/shmem_enabled 6e65766572\n") != NULL,
		       "... its journal keeps the word in force alone, as a write takes it: %s", text);
	}
	put(knob, ""); /* a write to the fake, a regular file, must replace it as one to sysfs does */
	mmt_sysctl_restore_all();
	tap_is_str(get(knob), "never", "... and it is put back as that word");
}

/* A forked child (mmrace's migrator) that dies of a signal leaves its
 * parent's values alone. */
static void test_child_leaves_parent(void)
{
	char err[512];
	pid_t pid;
	int st;

	mmt_sysctl_guard_signals();
	tap_ok(!mmt_sysctl_set("/proc/sys/kernel/numa_balancing", "1", err, sizeof(err)), "set in the parent");
	pid = fork();
	if (!pid) {
		raise(SIGTERM);
		_exit(1);
	}
	waitpid(pid, &st, 0);
	tap_ok(WIFSIGNALED(st) && !strcmp(get(nb), "1") && !access(journal, F_OK),
	       "a child killed by a signal restores nothing of its parent's (%s)", get(nb));
	mmt_sysctl_restore_all();
	tap_is_str(get(nb), "0", "the parent restores its own");
}

int main(void)
{
	if (make_fake_root())
		return 1;
	test_exit_paths();
	test_dead_run_repaired();
	test_journal_refused();
	test_state_dir_owner();
	test_no_fd_left();
	test_only_sysctls();
	test_child_leaves_parent();
	if (remove_fake_root())
		return 1;
	return tap_done();
}
