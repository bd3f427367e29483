/* SPDX-License-Identifier: MIT */
/*
 * The results document (schema in results/README.md): checked against the
 * schema and written atomically (temp file in the same directory, fsync,
 * rename), so a reader never sees half a result.
 */
#ifndef MMT_RESULTS_H
#define MMT_RESULTS_H

#include <jansson.h>
#include <stddef.h>

#include "schema.h"	/* MMT_SCHEMA_VERSION */
/* A results file in the making, where O_TMPFILE is not to be had; never
 * accepted as an --output name. */
#define MMT_RESULTS_TMP_PREFIX ".mmtorture-result."

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>

/*
 * A document written run by run: each record is checked and appended to
 * a temp file in the target's directory as soon as it is complete, so
 * memory does not grow with the number of runs; finish() appends the rest,
 * syncs and renames.  The target is checked when it is opened (before
 * anything runs): its directory exists and takes a new file, the name
 * fits, and whatever is there already is a regular file.
 */
struct mmt_results_writer {
	char path[PATH_MAX];	/* target; empty for stdout */
	char tmp[PATH_MAX + 64];	/* the temp file's name, empty while unnamed */
	/* One writer per target: the lock file beside it (a temp name) and
	 * its descriptor, held from open to the end; empty: none. */
	char lock[PATH_MAX + 64];
	int lock_fd;
	FILE *f;
	size_t nruns;
	bool to_stdout;
};

/* path NULL: stdout, no temp file. */
int mmt_results_open(struct mmt_results_writer *w, const char *path, char *err, size_t len);
int mmt_results_add_run(struct mmt_results_writer *w, const json_t *run, char *err, size_t len);
/* frame: the document without "runs". */
int mmt_results_finish(struct mmt_results_writer *w, const json_t *frame, char *err, size_t len);
/* Drops the temp file (bad input found later, a run that cannot finish). */
void mmt_results_abandon(struct mmt_results_writer *w);

/* Can a result be written there?  Creates a temp file and drops it. */
int mmt_results_check_path(const char *path, char *err, size_t len);

/* "<dir>/<label>-YYYYmmdd-HHMMSS-<pid>.json"; creates dir if missing. */
int mmt_results_default_path(const char *dir, const char *label, char *out, size_t len,
			     char *err, size_t errlen);

int mmt_results_write_atomic(const json_t *doc, const char *path, char *err, size_t len);

/* Structural check of a results document: 0, or -1 with the first problem. */
int mmt_results_validate(const json_t *doc, char *err, size_t len);
int mmt_results_validate_run(const json_t *run, size_t index, char *err, size_t len);
int mmt_results_validate_frame(const json_t *doc, size_t nruns, char *err, size_t len);

/* Loads and validates a results file. */
json_t *mmt_results_load(const char *path, char *err, size_t len);

#endif
