/* SPDX-License-Identifier: MIT */
#include "results.h"

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

enum kind { K_OBJ, K_ARR, K_STR, K_INT, K_NUM, K_BOOL, K_STR_OR_NULL, K_NUM_OR_NULL,
	    K_INT_OR_NULL, K_ARR_OR_NULL, K_OBJ_OR_NULL };

struct field {
	const char *key;
	enum kind kind;
};

static bool kind_ok(const json_t *v, enum kind k)
{
	switch (k) {
	case K_OBJ: return json_is_object(v);
	case K_ARR: return json_is_array(v);
	case K_STR: return json_is_string(v);
	case K_INT: return json_is_integer(v);
	case K_NUM: return json_is_number(v);
	case K_BOOL: return json_is_boolean(v);
	case K_STR_OR_NULL: return json_is_string(v) || json_is_null(v);
	case K_NUM_OR_NULL: return json_is_number(v) || json_is_null(v);
	case K_INT_OR_NULL: return json_is_integer(v) || json_is_null(v);
	case K_ARR_OR_NULL: return json_is_array(v) || json_is_null(v);
	case K_OBJ_OR_NULL: return json_is_object(v) || json_is_null(v);
	}
	return false;
}

static int check_fields(const json_t *obj, const char *where, const struct field *f, size_t n,
			char *err, size_t len)
{
	if (!json_is_object(obj)) {
		snprintf(err, len, "%s is not an object", where);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		const json_t *v = json_object_get(obj, f[i].key);

		if (!v) {
			snprintf(err, len, "%s.%s is missing", where, f[i].key);
			return -1;
		}
		if (!kind_ok(v, f[i].kind)) {
			snprintf(err, len, "%s.%s has the wrong type", where, f[i].key);
			return -1;
		}
	}
	return 0;
}

static const struct field top_fields[] = {
	{ "schema_version", K_INT }, { "metadata", K_OBJ }, { "interrupted", K_BOOL },
	{ "runs", K_ARR }, { "summary", K_OBJ },
};
static const struct field metadata_fields[] = {
	{ "harness", K_OBJ }, { "kernel", K_OBJ }, { "cpu", K_OBJ }, { "topology", K_OBJ },
	{ "settings", K_OBJ }, { "liburcu_version", K_STR }, { "command_line", K_ARR },
	{ "seed", K_INT }, { "started_at", K_STR }, { "clock", K_OBJ },
};
static const struct field harness_fields[] = {
	{ "version", K_STR }, { "git_revision", K_STR }, { "compiler", K_STR },
	{ "cflags", K_STR }, { "arch", K_STR },
};
static const struct field run_fields[] = {
	{ "scenario", K_STR }, { "variant", K_STR }, { "placement", K_STR }, { "repeat", K_INT },
	{ "status", K_STR }, { "reason", K_STR_OR_NULL }, { "verdict", K_STR_OR_NULL },
	{ "forbidden", K_BOOL }, { "injected", K_BOOL }, { "threads", K_INT },
	{ "cpus", K_ARR_OR_NULL }, { "mem_node", K_INT_OR_NULL }, { "seed", K_INT },
	{ "options", K_OBJ }, { "iterations", K_INT_OR_NULL }, { "ops_unit", K_STR },
	{ "elapsed_ns", K_INT_OR_NULL }, { "ops_per_sec", K_NUM_OR_NULL },
	{ "ns_per_op", K_NUM_OR_NULL }, { "witnesses", K_OBJ_OR_NULL },
	{ "probe", K_OBJ_OR_NULL }, { "metrics", K_OBJ_OR_NULL }, { "workers", K_ARR },
	{ "counters", K_OBJ_OR_NULL },
};
static const struct field measured_fields[] = {
	{ "cpus", K_ARR }, { "iterations", K_INT }, { "elapsed_ns", K_INT },
	{ "ops_per_sec", K_NUM }, { "witnesses", K_OBJ }, { "probe", K_OBJ }, { "metrics", K_OBJ },
};
static const struct field witness_fields[] = { { "count", K_INT }, { "histogram", K_OBJ } };
static const struct field probe_fields[] = { { "before", K_ARR }, { "after", K_ARR },
					     { "drift", K_NUM_OR_NULL }, { "stable", K_BOOL } };
static const struct field later_fields[] = {
	{ "detection", K_OBJ_OR_NULL }, { "placement_track", K_OBJ_OR_NULL },
};
static const struct field summary_fields[] = {
	{ "runs", K_INT }, { "ok", K_INT }, { "skipped", K_INT }, { "errors", K_INT },
	{ "inconclusive", K_INT },
	{ "forbidden_witnessed", K_INT }, { "injected_missed", K_INT }, { "exit_code", K_INT },
};

static const char *const statuses[] = { "ok", "witnessed", "skipped", "error", "interrupted",
					"hung", "inconclusive" };

#define CHECK(obj, where, tbl) check_fields(obj, where, tbl, sizeof(tbl) / sizeof(tbl[0]), err, len)

static int validate_run(const json_t *run, size_t i, char *err, size_t len)
{
	char where[64];
	const char *status;
	bool known = false;

	snprintf(where, sizeof(where), "runs[%zu]", i);
	if (CHECK(run, where, run_fields))
		return -1;
	status = json_string_value(json_object_get(run, "status"));
	for (size_t k = 0; k < sizeof(statuses) / sizeof(statuses[0]); k++)
		known |= !strcmp(status, statuses[k]);
	if (!known) {
		snprintf(err, len, "%s.status '%s' is not a known status", where, status);
		return -1;
	}
	if (strcmp(status, "ok") && strcmp(status, "witnessed") && strcmp(status, "interrupted") &&
	    strcmp(status, "inconclusive"))
		return 0; /* skipped, error and hung runs carry no numbers */
	if (CHECK(run, where, measured_fields))
		return -1;
	snprintf(where, sizeof(where), "runs[%zu].witnesses", i);
	if (CHECK(json_object_get(run, "witnesses"), where, witness_fields))
		return -1;
	snprintf(where, sizeof(where), "runs[%zu].probe", i);
	if (CHECK(json_object_get(run, "probe"), where, probe_fields))
		return -1;
	/* Later additions: optional, so older documents stay readable. */
	for (size_t k = 0; k < sizeof(later_fields) / sizeof(later_fields[0]); k++) {
		const json_t *v = json_object_get(run, later_fields[k].key);

		if (v && !kind_ok(v, later_fields[k].kind)) {
			snprintf(err, len, "runs[%zu].%s has the wrong type", i, later_fields[k].key);
			return -1;
		}
	}
	return 0;
}

int mmt_results_validate(const json_t *doc, char *err, size_t len)
{
	const json_t *runs;
	json_int_t version;

	if (CHECK(doc, "document", top_fields))
		return -1;
	version = json_integer_value(json_object_get(doc, "schema_version"));
	if (version != MMT_SCHEMA_VERSION) {
		snprintf(err, len, "schema_version %lld is not %d", (long long)version, MMT_SCHEMA_VERSION);
		return -1;
	}
	if (CHECK(json_object_get(doc, "metadata"), "metadata", metadata_fields) ||
	    CHECK(json_object_get(json_object_get(doc, "metadata"), "harness"), "metadata.harness",
		  harness_fields) ||
	    CHECK(json_object_get(doc, "summary"), "summary", summary_fields))
		return -1;
	runs = json_object_get(doc, "runs");
	for (size_t i = 0; i < json_array_size(runs); i++)
		if (validate_run(json_array_get(runs, i), i, err, len))
			return -1;
	if ((size_t)json_integer_value(json_object_get(json_object_get(doc, "summary"), "runs")) !=
	    json_array_size(runs)) {
		snprintf(err, len, "summary.runs does not match the number of runs");
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
