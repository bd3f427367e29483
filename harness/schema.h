/* SPDX-License-Identifier: MIT */
/*
 * results/schema.json, embedded at build time and interpreted (schema.c):
 * the same schema the Python readers use.
 */
#ifndef MMT_SCHEMA_H
#define MMT_SCHEMA_H

#include <jansson.h>
#include <stddef.h>

/* The results files this build writes (results/schema.json's version). */
#define MMT_SCHEMA_VERSION 1

/* The parsed schema (kept for the process), or NULL with the reason. */
const json_t *mmt_schema(char *err, size_t len);

/* A schema from text, every keyword checked as implemented: a new
 * reference, or NULL with the reason (the first unknown keyword). */
json_t *mmt_schema_parse(const char *text, char *err, size_t len);
int mmt_schema_validate_with(const json_t *schema, const json_t *doc, char *err, size_t len);

/* 0, or -1 with "<field path>: <problem>" in err. */
int mmt_schema_validate(const json_t *doc, char *err, size_t len);

/* One part against one of the schema's $defs (e.g. "run", "metadata"),
 * for a writer that checks records as it streams them; where names the
 * part in messages ("runs[3]"). */
int mmt_schema_validate_def(const char *def, const json_t *v, const char *where, char *err, size_t len);

#endif
