/* SPDX-License-Identifier: MIT */
/*
 * results/schema.json, embedded at build time and interpreted (schema.c):
 * the same schema the Python readers use.
 */
#ifndef MMT_SCHEMA_H
#define MMT_SCHEMA_H

#include <jansson.h>
#include <stddef.h>

/* The parsed schema (kept for the process), or NULL with the reason. */
const json_t *mmt_schema(char *err, size_t len);

/* 0, or -1 with "<field path>: <problem>" in err. */
int mmt_schema_validate(const json_t *doc, char *err, size_t len);

#endif
