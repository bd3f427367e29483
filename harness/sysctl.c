/* SPDX-License-Identifier: MIT */
#include "sysctl.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define JOURNAL "journal"
#define LOCK "lock"
#define JOURNAL_MAGIC "mmtorture-sysctl-journal 1 pid "
#define JOURNAL_MAX (64 * 1024)
#define MAX_SYSCTLS 8

/* Saved values live in static storage: a signal handler restores them
 * with open/write/close only. */
enum { SLOT_PENDING, SLOT_BUSY, SLOT_DONE, SLOT_FAILED };
static struct {
	char path[512];
	char value[256];
	size_t len;
	int state;
} saved[MAX_SYSCTLS];
static volatile int nr_saved;
/* The process that changed them: a forked child (mmrace's migrator) that
 * dies of a signal must not restore its parent's values under it. */
static volatile pid_t owner;
static int state_fd = -1, lock_fd = -1, journal_fd = -1;
static char root[256], state_dir[512];

/* What this process found and did, for the metadata. */
static const char *journal_status = "clean";
static char journal_reason[512];
static struct mmt_sysctl_repair_note *repairs;
static unsigned nr_repairs;

__attribute__((format(printf, 3, 4)))
static int fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return -1;
}

static void resolve_paths(void)
{
	const char *r = getenv("MMT_SYSCTL_ROOT");

	snprintf(root, sizeof(root), "%s", r && *r ? r : "");
	snprintf(state_dir, sizeof(state_dir), "%s/run/mmtorture", root);
}

const char *mmt_sysctl_state_dir(void)
{
	if (!state_dir[0])
		resolve_paths();
	return state_dir;
}

/* Ours alone: owned by our effective uid, nothing for group or others. */
static int check_private(int fd, const char *what, bool dir, char *err, size_t len)
{
	struct stat st;

	if (fstat(fd, &st))
		return fail(err, len, "%s: %s", what, strerror(errno));
	if (dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode))
		return fail(err, len, "%s is not a %s", what, dir ? "directory" : "regular file");
	if (st.st_uid != geteuid())
		return fail(err, len, "%s belongs to uid %u, not to us (uid %u): refusing it", what,
			    (unsigned)st.st_uid, (unsigned)geteuid());
	if (st.st_mode & 077)
		return fail(err, len, "%s is open to other users (mode %04o, want 0%s): refusing it",
			    what, (unsigned)(st.st_mode & 07777), dir ? "700" : "600");
	if (!dir && st.st_nlink != 1)
		return fail(err, len, "%s has %u links: refusing it", what, (unsigned)st.st_nlink);
	return 0;
}

/* Returns the directory fd, -1 with err, or -2 when it does not exist
 * and create is false (so there is no journal). */
static int open_state_dir(bool create, char *err, size_t len)
{
	int fd;

	resolve_paths();
	if (create) {
		/* A bare initramfs (scripts/numa-vm's guests) has no /run. */
		char run[300];

		snprintf(run, sizeof(run), "%s/run", root);
		if (mkdir(run, 0755) && errno != EEXIST)
			return fail(err, len, "cannot create %s: %s", run, strerror(errno));
	}
	if (create && mkdir(state_dir, 0700) && errno != EEXIST)
		return fail(err, len, "cannot create %s: %s", state_dir, strerror(errno));
	fd = open(state_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT && !create)
			return -2;
		if (errno == ELOOP || errno == ENOTDIR)
			return fail(err, len, "%s is a symlink or not a directory: refusing it", state_dir);
		return fail(err, len, "cannot open %s: %s", state_dir, strerror(errno));
	}
	if (check_private(fd, state_dir, true, err, len)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* O_EXCL when we create it; an existing one must pass check_private. */
static int open_private_file(int dfd, const char *name, int flags, char *err, size_t len)
{
	char what[600];
	int fd = openat(dfd, name, flags | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);

	snprintf(what, sizeof(what), "%s/%s", state_dir, name);
	if (fd < 0 && errno == EEXIST)
		fd = openat(dfd, name, flags | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return fail(err, len, "cannot open %s: %s", what,
			    errno == ELOOP ? "it is a symlink, refusing it" : strerror(errno));
	if (check_private(fd, what, false, err, len)) {
		close(fd);
		return -1;
	}
	return fd;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* A journal may only name sysctls (<root>/proc/sys/...), the scheduler's
 * knobs that moved from sysctl to debugfs in Linux 5.13 (NUMA balancing's
 * scan period and delay: MMT_SCHED_DEBUGFS), transparent huge pages'
 * knobs (MMT_THP_SYSFS) and module parameters
 * (<root>/sys/module/M/parameters/..., the mutant kernel's switches),
 * without "..". */
static bool sysctl_path_ok(const char *p)
{
	char sys[300], mod[300], sched[300], thp[300];
	size_t r = strlen(root);

	snprintf(sys, sizeof(sys), "%s/proc/sys/", root);
	snprintf(mod, sizeof(mod), "%s/sys/module/", root);
	snprintf(sched, sizeof(sched), "%s" MMT_SCHED_DEBUGFS "/", root);
	snprintf(thp, sizeof(thp), "%s" MMT_THP_SYSFS "/", root);
	if (strncmp(p, sys, strlen(sys)) && strncmp(p, sched, strlen(sched)) && strncmp(p, thp, strlen(thp)) &&
	    (strncmp(p, mod, strlen(mod)) || !strstr(p + r, "/parameters/")))
		return false;
	if (strstr(p, "/../") || strstr(p, "/./") || (strlen(p) >= 3 && !strcmp(p + strlen(p) - 3, "/..")))
		return false;
	for (const char *c = p; *c; c++)
		if (*c <= ' ' || *c == 0x7f)
			return false;
	return strlen(p) < sizeof(saved[0].path);
}

/* The note of one repair; NULL without memory (the repair itself goes on). */
static const struct mmt_sysctl_repair_note *note_repair(long pid, const char *path, const char *value,
							size_t vlen, const char *error)
{
	struct mmt_sysctl_repair_note *r, *grown = realloc(repairs, (nr_repairs + 1) * sizeof(*repairs));
	size_t n;

	if (!grown)
		return NULL;
	repairs = grown;
	r = &repairs[nr_repairs++];
	n = vlen < sizeof(r->value) - 1 ? vlen : sizeof(r->value) - 1;
	memcpy(r->value, value, n);
	while (n && (r->value[n - 1] == '\n' || r->value[n - 1] == ' '))
		n--;
	r->value[n] = '\0';
	r->left_by_pid = pid;
	snprintf(r->path, sizeof(r->path), "%s", path + strlen(root));
	r->restored = !error;
	snprintf(r->error, sizeof(r->error), "%s", error ? error : "");
	return r;
}

static int read_journal(int dfd, char *buf, size_t cap, size_t *n, char *err, size_t len)
{
	int fd = open_private_file(dfd, JOURNAL, O_RDONLY, err, len);
	ssize_t r;

	if (fd < 0)
		return -1;
	*n = 0;
	while ((r = read(fd, buf + *n, cap - 1 - *n)) > 0)
		*n += (size_t)r;
	close(fd);
	buf[*n] = '\0';
	if (r < 0)
		return fail(err, len, "cannot read %s/" JOURNAL ": %s", state_dir, strerror(errno));
	if (*n == cap - 1)
		return fail(err, len, "%s/" JOURNAL " is larger than %d bytes: not a journal", state_dir, JOURNAL_MAX);
	return 0;
}

/* The pid a journal names, 0 if none (for messages only). */
static long journal_pid(int dfd)
{
	static char buf[JOURNAL_MAX];
	char err[256];
	size_t n;

	if (faccessat(dfd, JOURNAL, F_OK, AT_SYMLINK_NOFOLLOW) ||
	    read_journal(dfd, buf, sizeof(buf), &n, err, sizeof(err)) ||
	    strncmp(buf, JOURNAL_MAGIC, strlen(JOURNAL_MAGIC)))
		return 0;
	return strtol(buf + strlen(JOURNAL_MAGIC), NULL, 10);
}

/*
 * Called with the lock held and no journal of our own: any journal there
 * is a dead run's.  Entries are written before the change they describe,
 * so a torn last line (no newline) changed nothing and is ignored.
 */
/* A journal entry: a sysctl and the value it had before the dead run. */
struct journal_entry {
	char *path;
	char value[256];
	size_t vlen;
};
#define JOURNAL_ENTRIES 64

/* The entries of a journal's body (buf after the header, modified in
 * place): -1 with one line naming the line that is not 'set PATH HEX'. */
static int parse_entries(char *next, struct journal_entry *ent, int *nent, char *err, size_t len)
{
	char *line;

	for (int lineno = 2; (line = next) && (next = strchr(line, '\n')); lineno++) {
		char *path, *hex;
		size_t k;

		*next++ = '\0';
		if (strncmp(line, "set ", 4) || !(hex = strchr(line + 4, ' ')) || *nent == JOURNAL_ENTRIES)
			return fail(err, len, "%s/" JOURNAL ": line %d is not 'set PATH HEX'", state_dir, lineno);
		*hex++ = '\0';
		path = line + 4;
		if (!sysctl_path_ok(path))
			return fail(err, len, "%s/" JOURNAL ": line %d names %s, not a sysctl or module parameter: refusing it",
				    state_dir, lineno, path);
		for (k = 0; hex[2 * k] && hex[2 * k + 1] && k < sizeof(ent[0].value); k++) {
			int hi = hexval(hex[2 * k]), lo = hexval(hex[2 * k + 1]);

			if (hi < 0 || lo < 0)
				break;
			ent[*nent].value[k] = (char)(hi << 4 | lo);
		}
		if (!k || hex[2 * k])
			return fail(err, len, "%s/" JOURNAL ": line %d has a bad value", state_dir, lineno);
		ent[*nent].path = path;
		ent[(*nent)++].vlen = k;
	}
	return 0;
}

/* Writes the entries back, newest first as the run itself would have,
 * each said on log; false if one could not be. */
static bool write_back(const struct journal_entry *ent, int nent, long pid, FILE *log)
{
	bool ok = true;

	for (int i = nent - 1; i >= 0; i--) {
		int fd = open(ent[i].path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
		const char *why = NULL;
		char ebuf[128];
		const struct mmt_sysctl_repair_note *note;

		if (fd < 0 || write(fd, ent[i].value, ent[i].vlen) != (ssize_t)ent[i].vlen) {
			snprintf(ebuf, sizeof(ebuf), "%s", strerror(errno));
			why = ebuf;
			ok = false;
		}
		if (fd >= 0)
			close(fd);
		note = note_repair(pid, ent[i].path, ent[i].value, ent[i].vlen, why);
		if (why)
			fprintf(log, "mmtorture: cannot restore %s (left changed by run %ld, which died): %s\n",
				ent[i].path, pid, why);
		else
			fprintf(log, "mmtorture: restored %s to %s (left changed by run %ld, which died)\n",
				ent[i].path, note ? note->value : "its old value", pid);
	}
	return ok;
}

static int repair_locked(int dfd, FILE *log, bool *repaired, char *err, size_t len)
{
	static char buf[JOURNAL_MAX];
	static struct journal_entry ent[JOURNAL_ENTRIES];
	char *line, *next;
	long pid;
	size_t n;
	int nent = 0;

	*repaired = false;
	if (faccessat(dfd, JOURNAL, F_OK, AT_SYMLINK_NOFOLLOW)) {
		if (errno == ENOENT)
			return 0;
		return fail(err, len, "cannot look for %s/" JOURNAL ": %s", state_dir, strerror(errno));
	}
	if (read_journal(dfd, buf, sizeof(buf), &n, err, len))
		return -1;
	line = buf;
	next = strchr(line, '\n');
	if (!next) {
		/* Died while writing the header: nothing was changed yet. */
		unlinkat(dfd, JOURNAL, 0);
		return 0;
	}
	*next++ = '\0';
	if (strncmp(line, JOURNAL_MAGIC, strlen(JOURNAL_MAGIC)))
		return fail(err, len, "%s/" JOURNAL ": line 1 is not a journal header", state_dir);
	pid = strtol(line + strlen(JOURNAL_MAGIC), NULL, 10);
	if (parse_entries(next, ent, &nent, err, len))
		return -1;
	if (!write_back(ent, nent, pid, log))
		return fail(err, len, "a sysctl left changed by run %ld cannot be restored (journal kept in %s)",
			    pid, state_dir);
	unlinkat(dfd, JOURNAL, 0);
	*repaired = true;
	return 0;
}

static void set_status(const char *status, const char *reason)
{
	journal_status = status;
	snprintf(journal_reason, sizeof(journal_reason), "%s", reason ? reason : "");
}

static void release_lock(void)
{
	if (lock_fd >= 0)
		close(lock_fd); /* releases the flock */
	lock_fd = -1;
	if (state_fd >= 0)
		close(state_fd);
	state_fd = -1;
}

/* Takes the lock; err names the holder when busy (returns -2). */
static int take_lock(bool create, char *err, size_t len)
{
	int fd;

	if (lock_fd >= 0)
		return 0;
	if (state_fd >= 0)
		close(state_fd);
	state_fd = open_state_dir(create, err, len);
	if (state_fd < 0) {
		int rc = state_fd;

		state_fd = -1;
		return rc == -2 ? -3 : -1;
	}
	fd = open_private_file(state_fd, LOCK, O_RDWR, err, len);
	if (fd < 0) {
		release_lock();
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		int e = errno;
		long pid = e == EWOULDBLOCK ? journal_pid(state_fd) : 0;

		if (e != EWOULDBLOCK)
			fail(err, len, "cannot lock %s/" LOCK ": %s", state_dir, strerror(e));
		else if (pid)
			fail(err, len, "another mmtorture run (pid %ld) is changing sysctls (%s)", pid, state_dir);
		else
			fail(err, len, "another mmtorture run is changing sysctls (%s)", state_dir);
		close(fd);
		release_lock();
		return e == EWOULDBLOCK ? -2 : -1;
	}
	lock_fd = fd;
	return 0;
}

enum mmt_repair mmt_sysctl_repair(FILE *log, char *err, size_t len)
{
	bool repaired;
	int rc;

	if (lock_fd >= 0)
		return MMT_REPAIR_CLEAN; /* ours: we restore it ourselves */
	rc = take_lock(false, err, len);
	if (rc == -3)
		return MMT_REPAIR_CLEAN; /* no state directory: nothing was ever journaled */
	if (rc == -2) {
		set_status("busy", err);
		return MMT_REPAIR_BUSY;
	}
	if (rc) {
		bool no_access = geteuid() != 0 && strstr(err, "Permission denied");

		set_status(no_access ? "unavailable" : "failed", err);
		return no_access ? MMT_REPAIR_NO_ACCESS : MMT_REPAIR_FAILED;
	}
	rc = repair_locked(state_fd, log, &repaired, err, len);
	release_lock();
	if (rc) {
		set_status("failed", err);
		return MMT_REPAIR_FAILED;
	}
	if (repaired)
		set_status("repaired", NULL);
	return repaired ? MMT_REPAIR_DONE : MMT_REPAIR_CLEAN;
}

void mmt_sysctl_journal_get(struct mmt_sysctl_journal *j)
{
	j->state_dir = mmt_sysctl_state_dir();
	j->status = journal_status;
	j->reason = journal_reason[0] ? journal_reason : NULL;
	j->repairs = repairs;
	j->nr_repairs = nr_repairs;
}

static void restore_at_exit(void)
{
	mmt_sysctl_restore_all();
}

static int append_journal(const char *path, const char *value, size_t vlen, char *err, size_t len)
{
	char line[1200];
	int n;

	if (journal_fd < 0) {
		journal_fd = open_private_file(state_fd, JOURNAL, O_WRONLY | O_APPEND, err, len);
		if (journal_fd < 0)
			return -1;
		n = snprintf(line, sizeof(line), JOURNAL_MAGIC "%ld\n", (long)getpid());
		if (ftruncate(journal_fd, 0) || write(journal_fd, line, (size_t)n) != n)
			return fail(err, len, "cannot write %s/" JOURNAL ": %s", state_dir, strerror(errno));
	}
	n = snprintf(line, sizeof(line), "set %s ", path);
	for (size_t i = 0; i < vlen; i++)
		n += snprintf(line + n, sizeof(line) - (size_t)n, "%02x", (unsigned char)value[i]);
	line[n++] = '\n';
	/* One write, synced before the sysctl changes: a journal never
	 * lacks a change that happened. */
	if (write(journal_fd, line, (size_t)n) != n || fdatasync(journal_fd))
		return fail(err, len, "cannot write %s/" JOURNAL ": %s", state_dir, strerror(errno));
	return 0;
}

size_t mmt_sysctl_choice_in_force(char *buf, size_t n)
{
	char *open = memchr(buf, '[', n), *close;

	if (!open)
		return 0;
	close = memchr(open, ']', n - (size_t)(open - buf));
	if (!close || close == open + 1)
		return 0;
	n = (size_t)(close - open - 1);
	memmove(buf, open + 1, n);
	buf[n] = '\0';
	return n;
}

/* While a scenario runs, the sysctls its descriptor declares (needs.sysctls). */
static const char *const *scenario_allows;
static bool scenario_running;

void mmt_sysctl_scenario(const char *const *declared, bool running)
{
	scenario_allows = declared;
	scenario_running = running;
}

static bool declared_by_scenario(const char *sysctl)
{
	for (const char *const *p = scenario_allows; p && *p; p++)
		if (!strcmp(*p, sysctl))
			return true;
	return false;
}

int mmt_sysctl_set(const char *sysctl, const char *value, char *err, size_t len)
{
	static bool at_exit;
	char path[512];
	int fd, i = nr_saved, rc;
	ssize_t n;
	bool known = false;

	if (scenario_running && !declared_by_scenario(sysctl))
		return fail(err, len, "%s is not among the sysctls the scenario declares (needs.sysctls)", sysctl);
	resolve_paths();
	snprintf(path, sizeof(path), "%s%s", root, sysctl);
	if (!sysctl_path_ok(path))
		return fail(err, len, "%s is not a sysctl (/proc/sys, " MMT_SCHED_DEBUGFS ", " MMT_THP_SYSFS ") or module parameter", sysctl);
	if (!at_exit) {
		atexit(restore_at_exit); /* exit() anywhere, e.g. a worker that cannot start */
		at_exit = true;
	}
	if (lock_fd < 0) {
		bool repaired;

		rc = take_lock(true, err, len);
		if (rc)
			return -1;
		/* A dead run's journal first, or its values would be saved
		 * here as the machine's own. */
		if (repair_locked(state_fd, stderr, &repaired, err, len)) {
			set_status("failed", err);
			release_lock();
			return -1;
		}
		if (repaired)
			set_status("repaired", NULL);
	}
	for (int k = 0; k < i; k++)
		known |= !strcmp(saved[k].path, path);
	if (!known) {
		if (i == MAX_SYSCTLS)
			return fail(err, len, "too many sysctls changed (at most %d)", MAX_SYSCTLS);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return fail(err, len, "cannot read %s: %s", path, strerror(errno));
		n = read(fd, saved[i].value, sizeof(saved[i].value));
		close(fd);
		if (n <= 0 || n == (ssize_t)sizeof(saved[i].value))
			return fail(err, len, "cannot read %s (empty, or longer than %zu bytes)", path,
				    sizeof(saved[i].value) - 1);
		if (!strncmp(sysctl, MMT_THP_SYSFS "/", strlen(MMT_THP_SYSFS "/"))) {
			size_t word = mmt_sysctl_choice_in_force(saved[i].value, (size_t)n);

			n = word ? (ssize_t)word : n;
		}
		if (append_journal(path, saved[i].value, (size_t)n, err, len))
			return -1;
		saved[i].len = (size_t)n;
		snprintf(saved[i].path, sizeof(saved[i].path), "%s", path);
		saved[i].state = SLOT_PENDING;
		owner = getpid();
		nr_saved = i + 1; /* before the write: a signal from now on restores it */
	}
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, value, strlen(value)) < 0) {
		fail(err, len, "cannot write %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

/* Writes back slots [lo, nr_saved), newest first; async-signal-safe.
 * True when every one of them is back. */
static bool restore_slots(int lo)
{
	bool all_done = true;

	for (int i = nr_saved - 1; i >= lo; i--) {
		int expect = SLOT_PENDING, fd;
		bool ok;

		/* Another thread (a fatal signal there) may be restoring too. */
		if (!__atomic_compare_exchange_n(&saved[i].state, &expect, SLOT_BUSY, false,
						 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
			all_done &= expect == SLOT_DONE;
			continue;
		}
		fd = open(saved[i].path, O_WRONLY | O_CLOEXEC);
		ok = fd >= 0 && write(fd, saved[i].value, saved[i].len) == (ssize_t)saved[i].len;
		if (fd >= 0)
			close(fd);
		__atomic_store_n(&saved[i].state, ok ? SLOT_DONE : SLOT_FAILED, __ATOMIC_RELEASE);
		all_done &= ok;
	}
	return all_done;
}

int mmt_sysctl_mark(void)
{
	return nr_saved;
}

void mmt_sysctl_restore_to(int mark)
{
	if (mark <= 0) {
		mmt_sysctl_restore_all();
		return;
	}
	/* The journal keeps their lines: restoring an original twice is
	 * harmless, and the earlier values are still changed. */
	if (owner == getpid() && restore_slots(mark))
		nr_saved = mark;
}

void mmt_sysctl_restore_all(void)
{
	int saved_errno = errno;
	bool all_done;

	if (nr_saved && owner != getpid())
		return;
	all_done = restore_slots(0);
	if (!all_done) {
		/* Keep journal and lock as they are: the process is dying
		 * with a value not put back, and the next run repairs it. */
		errno = saved_errno;
		return;
	}
	nr_saved = 0;
	if (journal_fd >= 0) {
		unlinkat(state_fd, JOURNAL, 0);
		close(journal_fd);
		journal_fd = -1;
	}
	if (lock_fd >= 0) {
		close(lock_fd);
		lock_fd = -1;
	}
	if (state_fd >= 0) {
		close(state_fd);
		state_fd = -1;
	}
	errno = saved_errno;
}

/* "mmtorture: signal N at 0x...": where a fault was, for a death that
 * leaves no result file (hand-made: snprintf is not async-signal-safe). */
static void say_fatal(int sig, const siginfo_t *si)
{
	static const char hex[] = "0123456789abcdef";
	char line[64] = "mmtorture: fatal signal ";
	size_t n = strlen(line);
	uintptr_t a = (uintptr_t)si->si_addr;

	line[n++] = (char)('0' + sig / 10);
	line[n++] = (char)('0' + sig % 10);
	if (sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE) {
		memcpy(line + n, " at 0x", 6);
		n += 6;
		for (int i = 60; i >= 0; i -= 4)
			line[n++] = hex[(a >> i) & 15];
	}
	line[n++] = '\n';
	if (write(2, line, n) < 0)
		(void)0;
}

static void on_fatal(int sig, siginfo_t *si, void *uc)
{
	/* SA_RESETHAND: the default action is back; SA_NODEFER: raise()
	 * delivers it now. */
	if (si && si->si_code > 0)	/* the kernel's, not a kill */
		say_fatal(sig, si);
	mmt_sysctl_restore_all();
	raise(sig);
	(void)uc;
}

void mmt_sysctl_guard_signals(void)
{
	static const int fatal[] = { SIGQUIT, SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGSEGV,
				     SIGUSR1, SIGUSR2, SIGPIPE, SIGALRM, SIGSTKFLT, SIGXCPU,
				     SIGXFSZ, SIGVTALRM, SIGPROF, SIGIO, SIGPWR, SIGSYS,
				     SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa;
	sigset_t blocked;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fatal;
	sa.sa_flags = SA_SIGINFO | SA_RESETHAND | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	pthread_sigmask(SIG_BLOCK, NULL, &blocked);
	for (size_t i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++) {
		struct sigaction old;

		/* Blocked ones are the caller's to handle (SIGINT/SIGTERM in
		 * main); one already handled or ignored is left alone. */
		if (sigismember(&blocked, fatal[i]) || sigaction(fatal[i], NULL, &old) ||
		    old.sa_handler != SIG_DFL)
			continue;
		sigaction(fatal[i], &sa, NULL);
	}
	for (int s = SIGRTMIN; s <= SIGRTMAX; s++) {
		struct sigaction old;

		if (!sigismember(&blocked, s) && !sigaction(s, NULL, &old) && old.sa_handler == SIG_DFL)
			sigaction(s, &sa, NULL);
	}
}
