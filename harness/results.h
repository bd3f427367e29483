/* SPDX-License-Identifier: MIT */
/*
 * The results document (schema in results/README.md): built in memory,
 * checked against the schema, written once, atomically (temp file in the
 * same directory, fsync, rename), so a reader never sees half a result.
 */
#ifndef MMT_RESULTS_H
#define MMT_RESULTS_H

#include <jansson.h>
#include <stddef.h>

#define MMT_SCHEMA_VERSION 1

/* Can a result be written there?  Checked before anything runs. */
int mmt_results_check_path(const char *path, char *err, size_t len);

/* "<dir>/<label>-YYYYmmdd-HHMMSS-<pid>.json"; creates dir if missing. */
int mmt_results_default_path(const char *dir, const char *label, char *out, size_t len,
			     char *err, size_t errlen);

int mmt_results_write_atomic(const json_t *doc, const char *path, char *err, size_t len);

/* Structural check of a results document: 0, or -1 with the first problem. */
int mmt_results_validate(const json_t *doc, char *err, size_t len);

/* Loads and validates a results file. */
json_t *mmt_results_load(const char *path, char *err, size_t len);

#endif
