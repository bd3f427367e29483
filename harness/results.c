/* SPDX-License-Identifier: MIT */
#include "results.h"
#include "document-json.h"
#include "schema.h"
#include "sysctl.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void dir_of(const char *path, char *dir, size_t len)
{
	char tmp[PATH_MAX];

	snprintf(tmp, sizeof(tmp), "%s", path);
	snprintf(dir, len, "%s", dirname(tmp));
}

static const char *file_kind(mode_t m)
{
	return S_ISLNK(m) ? "a symlink" : S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device"
	     : S_ISFIFO(m) ? "a FIFO" : S_ISSOCK(m) ? "a socket" : "not a regular file";
}

/* The name and the target, before anything is created: rename() would
 * replace whatever is there, a device node included. */
/*
 * The harness's own files are never a target: its state directory holds
 * the sysctl journal and the lock that guards it (a results file there
 * would replace them), and a name of its temp-file pattern may be another
 * run's results in the making.  Resolved, so "..", "//" and symlinked
 * directories lead to the same answer.
 */
static int own_file(const char *path, const char *dir, const char *base, char *err, size_t len)
{
	char real_dir[PATH_MAX], real_state[PATH_MAX];
	const char *state = mmt_sysctl_state_dir();
	size_t n;

	if (!strncmp(base, MMT_RESULTS_TMP_PREFIX, strlen(MMT_RESULTS_TMP_PREFIX))) {
		snprintf(err, len, "--output %s: a name of mmtorture's own temp files (%s*): refusing it", path,
			 MMT_RESULTS_TMP_PREFIX);
		return -1;
	}
	if (!realpath(dir, real_dir))
		return 0;	/* a missing directory is said below */
	if (!realpath(state, real_state))
		snprintf(real_state, sizeof(real_state), "%s", state);
	n = strlen(real_state);
	if (strncmp(real_dir, real_state, n) || (real_dir[n] && real_dir[n] != '/'))
		return 0;
	snprintf(err, len, "--output %s: inside mmtorture's state directory %s (the sysctl journal and its lock): refusing it",
		 path, real_state);
	return -1;
}

static int check_target(const char *path, char *err, size_t len)
{
	char dir[PATH_MAX], tmp[PATH_MAX];
	const char *base;
	struct stat st;
	long name_max;

	if (strlen(path) >= PATH_MAX - 32) {
		snprintf(err, len, "--output: the path is %zu characters, longer than this system allows",
			 strlen(path));
		return -1;
	}
	if (!lstat(path, &st)) {
		if (S_ISDIR(st.st_mode)) {
			snprintf(err, len, "--output %s is a directory", path);
			return -1;
		}
		if (!S_ISREG(st.st_mode)) {
			snprintf(err, len, "--output %s is %s, not a regular file: refusing to replace it",
				 path, file_kind(st.st_mode));
			return -1;
		}
	}
	dir_of(path, dir, sizeof(dir));
	snprintf(tmp, sizeof(tmp), "%s", path);
	base = basename(tmp);
	if (own_file(path, dir, base, err, len))
		return -1;
	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		snprintf(err, len, "--output %s: directory %s does not exist", path, dir);
		return -1;
	}
	name_max = pathconf(dir, _PC_NAME_MAX);
	if (name_max <= 0)
		name_max = NAME_MAX;
	if ((long)strlen(base) > name_max) {
		snprintf(err, len, "--output: the name is %zu characters, the file system of %s allows %ld",
			 strlen(base), dir, name_max);
		return -1;
	}
	if (access(dir, W_OK | X_OK)) {
		snprintf(err, len, "--output %s: directory %s is not writable", path, dir);
		return -1;
	}
	return 0;
}

/* The temp file: unnamed (O_TMPFILE) where the file system can, so that
 * a run killed mid-way leaves nothing behind; a hidden name otherwise. */
static int open_temp(struct mmt_results_writer *w, const char *dir, char *err, size_t len)
{
	int fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);

	w->tmp[0] = '\0';
	if (fd < 0) {
		snprintf(w->tmp, sizeof(w->tmp), "%s/" MMT_RESULTS_TMP_PREFIX "XXXXXX", dir);
		fd = mkostemp(w->tmp, O_CLOEXEC);
		if (fd < 0) {
			snprintf(err, len, "--output %s: cannot create files in %s: %s", w->path, dir,
				 strerror(errno));
			w->tmp[0] = '\0';
			return -1;
		}
	}
	w->f = fdopen(fd, "w");
	if (!w->f) {
		snprintf(err, len, "cannot write in %s: %s", dir, strerror(errno));
		close(fd);
		if (w->tmp[0])
			unlink(w->tmp);
		return -1;
	}
	return 0;
}

/* A name for the lock beside the target: readable when it fits, else a
 * hash of the target's name (NAME_MAX). */
static void lock_name(struct mmt_results_writer *w, const char *dir)
{
	const char *base = strrchr(w->path, '/') ? strrchr(w->path, '/') + 1 : w->path;
	uint64_t h = 1469598103934665603ull;

	if (strlen(base) < 200) {
		int n = snprintf(w->lock, sizeof(w->lock), "%s/" MMT_RESULTS_TMP_PREFIX "%s.lock", dir, base);

		if (n > 0 && (size_t)n < sizeof(w->lock))
			return;
	}
	for (const char *c = base; *c; c++)
		h = (h ^ (unsigned char)*c) * 1099511628211ull;
	snprintf(w->lock, sizeof(w->lock), "%s/" MMT_RESULTS_TMP_PREFIX "%016llx.lock", dir,
		 (unsigned long long)h);
}

/*
 * One run per results file: two runs onto the same --output would each
 * replace the other's results, and all but one set would be lost.  An
 * exclusive flock on a lock file beside the target, taken here and held
 * to the end; a second run fails at once, with the first one's pid.  The
 * kernel drops the lock of a killed run, so a stale file never blocks.
 */
static int lock_target(struct mmt_results_writer *w, const char *dir, char *err, size_t len)
{
	lock_name(w, dir);
	for (int tries = 0; tries < 8; tries++) {
		int fd = open(w->lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);

		/* Another user's lock file (left by a killed run): flock works
		 * on a descriptor opened for reading as well. */
		if (fd < 0 && errno == EACCES)
			fd = open(w->lock, O_RDONLY | O_CLOEXEC);
		struct stat held, named;
		char owner[24] = "?";
		ssize_t n;

		if (fd < 0) {
			snprintf(err, len, "--output %s: cannot create files in %s: %s", w->path, dir, strerror(errno));
			break;
		}
		if (flock(fd, LOCK_EX | LOCK_NB)) {
			int e = errno;

			n = read(fd, owner, sizeof(owner) - 1);
			owner[n > 0 ? n : 0] = '\0';
			owner[strcspn(owner, "\n")] = '\0';
			if (e == EWOULDBLOCK)
				snprintf(err, len, "--output %s: another mmtorture run (pid %s) is writing it: one run per results file",
					 w->path, owner[0] ? owner : "?");
			else
				snprintf(err, len, "--output %s: cannot lock %s: %s", w->path, w->lock, strerror(e));
			close(fd);
			break;
		}
		/* Its last holder may have removed it while we opened it. */
		if (!fstat(fd, &held) && !stat(w->lock, &named) && held.st_ino == named.st_ino &&
		    held.st_dev == named.st_dev) {
			if (ftruncate(fd, 0) == 0)
				dprintf(fd, "%d\n", (int)getpid());
			w->lock_fd = fd;
			return 0;
		}
		close(fd);
	}
	w->lock[0] = '\0';
	if (!err[0])
		snprintf(err, len, "--output %s: the lock beside it kept changing hands", w->path);
	return -1;
}

static void unlock_target(struct mmt_results_writer *w)
{
	if (!w->lock[0])
		return;
	unlink(w->lock);	/* while held: nobody else can hold this one */
	close(w->lock_fd);
	w->lock[0] = '\0';
	w->lock_fd = -1;
}

int mmt_results_check_path(const char *path, char *err, size_t len)
{
	struct mmt_results_writer w;

	/* The real test of a directory (read-only file systems, /proc, /sys,
	 * root squash) is creating a file there: do it, and let it go. */
	if (mmt_results_open(&w, path, err, len))
		return -1;
	mmt_results_abandon(&w);
	return 0;
}

int mmt_results_open(struct mmt_results_writer *w, const char *path, char *err, size_t len)
{
	char dir[PATH_MAX];

	memset(w, 0, sizeof(*w));
	w->lock_fd = -1;
	if (!path) {
		w->f = stdout;
		w->to_stdout = true;
	} else {
		if (check_target(path, err, len))
			return -1;
		snprintf(w->path, sizeof(w->path), "%s", path);
		dir_of(path, dir, sizeof(dir));
		err[0] = '\0';
		if (lock_target(w, dir, err, len))
			return -1;
		if (open_temp(w, dir, err, len)) {
			unlock_target(w);
			return -1;
		}
	}
	fprintf(w->f, "{\n  \"schema_version\": %d,\n  \"runs\": [", MMT_SCHEMA_VERSION);
	return 0;
}

int mmt_results_default_path(const char *dir, const char *label, char *out, size_t len,
			     char *err, size_t errlen)
{
	char stamp[32];
	time_t now = time(NULL);
	struct tm tm;

	if (mkdir(dir, 0777) && errno != EEXIST) {
		snprintf(err, errlen, "cannot create results directory %s: %s", dir, strerror(errno));
		return -1;
	}
	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	snprintf(out, len, "%s/%s-%s-%d.json", dir, label, stamp, (int)getpid());
	if (access(dir, W_OK | X_OK)) {
		snprintf(err, errlen, "results directory %s is not writable by you: set MMT_RESULTS_DIR or give --output",
			 dir);
		return -1;
	}
	return check_target(out, err, errlen);
}

/* One value, indented to sit at the given depth of the document. */
static void dump_at(FILE *f, const json_t *v, int depth)
{
	char *text = json_dumps(v, JSON_INDENT(2) | JSON_ENSURE_ASCII | JSON_ENCODE_ANY);

	if (!text) {
		fputs("null", f); /* cannot happen for validated values */
		return;
	}
	for (const char *c = text; *c; c++) {
		fputc(*c, f);
		if (*c == '\n')
			fprintf(f, "%*s", 2 * depth, "");
	}
	free(text);
}

int mmt_results_add_run(struct mmt_results_writer *w, const json_t *run, char *err, size_t len)
{
	if (mmt_results_validate_run(run, w->nruns, err, len))
		return -1;
	fputs(w->nruns ? ",\n    " : "\n    ", w->f);
	dump_at(w->f, run, 2);
	w->nruns++;
	/* Now, not at the end: what a killed run did so far is on disk
	 * (for --output -, on its way to the reader). */
	fflush(w->f);
	return 0;
}

void mmt_results_abandon(struct mmt_results_writer *w)
{
	if (!w->f || w->to_stdout)
		return;
	fclose(w->f);
	w->f = NULL;
	if (w->tmp[0])
		unlink(w->tmp);
	unlock_target(w);
}

/* Gives the unnamed temp file a hidden name, to rename() it from. */
static int name_temp(struct mmt_results_writer *w, char *err, size_t len)
{
	char dir[PATH_MAX], proc[64];

	if (w->tmp[0])
		return 0;
	dir_of(w->path, dir, sizeof(dir));
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fileno(w->f));
	for (int tries = 0; tries < 100; tries++) {
		snprintf(w->tmp, sizeof(w->tmp), "%s/.mmtorture-result.%d.%d", dir, (int)getpid(), tries);
		if (!linkat(AT_FDCWD, proc, AT_FDCWD, w->tmp, AT_SYMLINK_FOLLOW))
			return 0;
		if (errno != EEXIST)
			break;
	}
	snprintf(err, len, "cannot write %s: %s", w->path, strerror(errno));
	w->tmp[0] = '\0';
	return -1;
}

int mmt_results_finish(struct mmt_results_writer *w, const json_t *frame, char *err, size_t len)
{
	const char *key;
	const json_t *v;
	struct stat st;
	int rc = 0;

	if (mmt_results_validate_frame(frame, w->nruns, err, len)) {
		mmt_results_abandon(w);
		return -1;
	}
	fputs(w->nruns ? "\n  ]" : "]", w->f);
	json_object_foreach((json_t *)frame, key, v) {
		char *k;

		if (!strcmp(key, "schema_version") || !strcmp(key, "runs"))
			continue;
		k = mmt_key_text(key);
		fprintf(w->f, ",\n  %s: ", k ? k : "\"?\"");
		free(k);
		dump_at(w->f, v, 1);
	}
	fputs("\n}\n", w->f);
	if (w->to_stdout) {
		if (!fflush(w->f) && !ferror(w->f))
			return 0;
		snprintf(err, len, "cannot write the results to stdout: %s", strerror(errno ? errno : EIO));
		return -1;
	}
	if (fflush(w->f) || ferror(w->f) || fchmod(fileno(w->f), 0644) || fsync(fileno(w->f))) {
		snprintf(err, len, "cannot write %s: %s", w->path, strerror(errno));
		mmt_results_abandon(w);
		return -1;
	}
	/* Checked again: something other than a regular file may have
	 * appeared there while we ran, and rename() would replace it. */
	if (!lstat(w->path, &st) && !S_ISREG(st.st_mode)) {
		snprintf(err, len, "%s became %s while the runs went on: not replacing it", w->path,
			 file_kind(st.st_mode));
		rc = -1;
	} else if (name_temp(w, err, len)) {
		rc = -1;
	} else if (rename(w->tmp, w->path)) {
		snprintf(err, len, "cannot write %s: %s", w->path, strerror(errno));
		rc = -1;
	} else {
		w->tmp[0] = '\0';
	}
	mmt_results_abandon(w);
	return rc;
}

int mmt_results_write_atomic(const json_t *doc, const char *path, char *err, size_t len)
{
	struct mmt_results_writer w;
	json_t *frame;
	const json_t *run;
	size_t i;
	int rc;

	if (mmt_results_open(&w, path, err, len))
		return -1;
	json_array_foreach(json_object_get(doc, "runs"), i, run)
		if (mmt_results_add_run(&w, run, err, len)) {
			mmt_results_abandon(&w);
			return -1;
		}
	frame = json_deep_copy(doc);
	json_object_del(frame, "runs");
	rc = mmt_results_finish(&w, frame, err, len);
	json_decref(frame);
	return rc;
}

/* ---- schema -------------------------------------------------------------- */

/* results/schema.json, through harness/schema.c, plus the one rule JSON
 * Schema cannot say (summary.runs is the number of runs);
 * analysis/lib/mmt_results.py makes the same checks. */
int mmt_results_validate_run(const json_t *run, size_t i, char *err, size_t len)
{
	char where[32];

	snprintf(where, sizeof(where), "runs[%zu]", i);
	return mmt_schema_validate_def("run", run, where, err, len);
}

/* The document but its runs, which a streaming writer checks one by one
 * as they come. */
int mmt_results_validate_frame(const json_t *doc, size_t nruns, char *err, size_t len)
{
	json_t *frame;
	int rc;

	if (!json_is_object(doc)) {
		snprintf(err, len, "document is not an object");
		return -1;
	}
	frame = mmt_frame_json(doc);
	rc = mmt_schema_validate(frame, err, len);
	json_decref(frame);
	if (rc)
		return -1;
	if (json_integer_value(json_object_get(json_object_get(doc, "summary"), "runs")) != (json_int_t)nruns) {
		snprintf(err, len, "summary.runs: does not match the number of runs");
		return -1;
	}
	return 0;
}

int mmt_results_validate(const json_t *doc, char *err, size_t len)
{
	if (mmt_schema_validate(doc, err, len))
		return -1;
	if ((size_t)json_integer_value(json_object_get(json_object_get(doc, "summary"), "runs")) !=
	    json_array_size(json_object_get(doc, "runs"))) {
		snprintf(err, len, "summary.runs: does not match the number of runs");
		return -1;
	}
	return 0;
}

json_t *mmt_results_load(const char *path, char *err, size_t len)
{
	json_error_t jerr;
	json_t *doc = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);

	if (!doc) {
		if (jerr.line < 0)
			snprintf(err, len, "%s: %s", path, jerr.text);
		else
			snprintf(err, len, "%s: not valid JSON (line %d, column %d: %s)", path, jerr.line,
				 jerr.column, jerr.text);
		return NULL;
	}
	char why[512];

	if (mmt_results_validate(doc, why, sizeof(why))) {
		snprintf(err, len, "%s: not a results document: %s", path, why);
		json_decref(doc);
		return NULL;
	}
	return doc;
}
