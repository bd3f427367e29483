/* SPDX-License-Identifier: MIT */
#include "results.h"
#include "schema.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void dir_of(const char *path, char *dir, size_t len)
{
	char tmp[4096];

	snprintf(tmp, sizeof(tmp), "%s", path);
	snprintf(dir, len, "%s", dirname(tmp));
}

int mmt_results_check_path(const char *path, char *err, size_t len)
{
	char dir[4096];
	struct stat st;

	if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
		snprintf(err, len, "--output %s is a directory", path);
		return -1;
	}
	dir_of(path, dir, sizeof(dir));
	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		snprintf(err, len, "--output %s: directory %s does not exist", path, dir);
		return -1;
	}
	if (access(dir, W_OK | X_OK)) {
		snprintf(err, len, "--output %s: directory %s is not writable", path, dir);
		return -1;
	}
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
	return mmt_results_check_path(out, err, errlen);
}

int mmt_results_write_atomic(const json_t *doc, const char *path, char *err, size_t len)
{
	char dir[4096], tmp[4200], *text;
	size_t n, off = 0;
	int fd;

	text = json_dumps(doc, JSON_INDENT(2) | JSON_ENSURE_ASCII);
	if (!text) {
		snprintf(err, len, "cannot serialise results");
		return -1;
	}
	dir_of(path, dir, sizeof(dir));
	/* Hidden name in the same directory: rename() is atomic only within
	 * one file system, and globbing *.json never picks up a temp file. */
	snprintf(tmp, sizeof(tmp), "%s/.mmtorture-result.XXXXXX", dir);
	fd = mkstemp(tmp);
	if (fd < 0) {
		snprintf(err, len, "cannot create a temp file in %s: %s", dir, strerror(errno));
		free(text);
		return -1;
	}
	n = strlen(text);
	text[n++] = '\n'; /* json_dumps leaves room: we replace the NUL */
	while (off < n) {
		ssize_t w = write(fd, text + off, n - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	free(text);
	if (off != n || fchmod(fd, 0644) || fsync(fd) || close(fd) || rename(tmp, path)) {
		snprintf(err, len, "cannot write %s: %s", path, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

/* ---- schema -------------------------------------------------------------- */

/* results/schema.json, through harness/schema.c, plus the one rule JSON
 * Schema cannot say; scripts/lib/mmt_results.py makes the same check. */
int mmt_results_validate(const json_t *doc, char *err, size_t len)
{
	const json_t *summary_runs;

	if (mmt_schema_validate(doc, err, len))
		return -1;
	summary_runs = json_object_get(json_object_get(doc, "summary"), "runs");
	if ((size_t)json_integer_value(summary_runs) != json_array_size(json_object_get(doc, "runs"))) {
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
		snprintf(err, len, "%s: not valid JSON (line %d: %s)", path, jerr.line, jerr.text);
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
