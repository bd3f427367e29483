/* SPDX-License-Identifier: MIT */
/*
 * Typed values for the record: a structured value is a C struct, or an
 * array of them, described by a shape: its fields with their offsets and
 * kinds, as fio's option table describes its options.  A scenario's
 * metrics (metrics.h), the harness's own parts of a run (integrity,
 * conditions, counters, placement tracking, kernel state) and the rulers
 * declare theirs; nothing here builds JSON: record-json.c renders them.
 */
#ifndef MMT_VALUES_H
#define MMT_VALUES_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compiler.h"

/* A field whose value is this, or a COUNT put as this, is null. */
#define MMT_NONE UINT64_MAX
#define MMT_NONE_SIGNED INT64_MIN

enum mmt_field_kind {
	MMT_F_COUNT,		/* uint64_t; MMT_NONE: null */
	MMT_F_INT,		/* int */
	MMT_F_SIGNED,		/* int64_t; MMT_NONE_SIGNED: null */
	MMT_F_HEX,		/* uint64_t, as "0x%016llx" (JSON numbers lose bits past 2^53) */
	MMT_F_REAL,		/* double; NaN: null */
	MMT_F_TEXT,		/* const char *; NULL: null */
	MMT_F_CHARS,		/* char[] inside the struct */
	MMT_F_BOOL,		/* bool */
	MMT_F_OBJECT,		/* a struct inside the struct: .shape */
	MMT_F_OBJECT_PTR,	/* a pointer to one: .shape; NULL: null */
	MMT_F_LIST,		/* an array in the struct of .count_offset's unsigned count of .shape rows */
	MMT_F_MAP,		/* as LIST, each row keyed by its first field (TEXT or CHARS) */
	MMT_F_SWITCH,		/* const char *why_off: NULL is "on", else {"skipped": why} */
	MMT_F_COUNTS_AT,	/* const uint64_t *: .count_offset's unsigned count of counts */
};

struct mmt_shape;

struct mmt_field {
	const char *name;	/* NULL: a list of scalars, the row is the value */
	enum mmt_field_kind kind;
	size_t offset;
	const struct mmt_shape *shape;	/* OBJECT, OBJECT_PTR, LIST, MAP */
	size_t count_offset;	/* LIST, MAP */
};

struct mmt_shape {
	const struct mmt_field *fields;
	unsigned nr_fields;
	size_t size;		/* one row's bytes, for lists */
};

#define MMT_FIELD(type, member, kind) { #member, kind, offsetof(type, member), NULL, 0 }
#define MMT_FIELD_AS(name, type, member, kind) { name, kind, offsetof(type, member), NULL, 0 }
#define MMT_FIELD_OBJECT(type, member, kind, sub) { #member, kind, offsetof(type, member), &(sub), 0 }
#define MMT_FIELD_LIST(type, member, kind, sub, count) \
	{ #member, kind, offsetof(type, member), &(sub), offsetof(type, count) }
/* A list of counts (uint64_t), in the struct; _AT: through a pointer. */
#define MMT_FIELD_COUNTS_AT(type, member, count) \
	{ #member, MMT_F_COUNTS_AT, offsetof(type, member), NULL, offsetof(type, count) }
#define MMT_FIELD_COUNTS(type, member, count) \
	{ #member, MMT_F_LIST, offsetof(type, member), NULL, offsetof(type, count) }
#define MMT_SHAPE(type, fields) { (fields), ARRAY_SIZE(fields), sizeof(type) }

/* A latency summary in ns: null when count is 0. */
struct mmt_latency {
	double median, p99, p999;
	uint64_t count;
};
/* Its fields as a metric's: median, p99, p999, samples. */
extern const struct mmt_shape mmt_latency_shape;

/* One metric's value as put (record-json.c renders it). */
enum mmt_value_state { MMT_VALUE_UNSET, MMT_VALUE_NULL, MMT_VALUE_SET };

struct mmt_value {
	enum mmt_value_state state;
	unsigned seq;		/* 1 for the first metric put, ...; 0: unset */
	union {
		uint64_t count;
		double real;
		const char *text;
		struct mmt_latency latency;
		struct {
			const void *base;
			unsigned n;
			bool keyed;
		} rows;
	} v;
};

#endif
