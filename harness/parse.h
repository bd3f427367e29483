/* SPDX-License-Identifier: MIT */
/*
 * Parsers for command-line values.  Each returns 0 on success or -1 with a
 * one-line reason in err (no trailing newline), never exits: the caller
 * decides that bad input is exit 2.
 */
#ifndef MMT_PARSE_H
#define MMT_PARSE_H

#include <stddef.h>
#include <stdint.h>

#define MMT_ERRLEN 256

/* Decimal integer with an optional k/M/G (x1000) suffix: "100000", "10M". */
int mmt_parse_u64(const char *s, uint64_t *out, char *err, size_t errlen);

/* A value by name (names[i] is min + i: an option's named values, NULL-
 * terminated) or as mmt_parse_u64 reads it; names may be NULL. */
int mmt_parse_named_u64(const char *const *names, uint64_t min, const char *s, uint64_t *out,
			char *err, size_t errlen);

/* Plain decimal, the whole 64-bit range, no suffix: seeds. */
int mmt_parse_u64_decimal(const char *s, uint64_t *out, char *err, size_t errlen);

/* A comma list has no empty item ("a,,b", ",a", "a,"). */
int mmt_parse_list_items(const char *s, char *err, size_t errlen);

/* Duration with unit ns/us/ms/s/m, a bare number meaning seconds:
 * "500ms", "5s", "1.5s", "2m".  Decimal only (no hex, exponent, inf,
 * nan); zero, fractions of a nanosecond and more than 1e18 ns refused. */
int mmt_parse_duration(const char *s, uint64_t *ns, char *err, size_t errlen);

/* Kernel cpulist syntax: "0-3,8,10-11".  Fills up to max entries in
 * ascending order, refuses duplicates; *n gets the count. */
int mmt_parse_cpulist(const char *s, int *cpus, int max, int *n, char *err,
		      size_t errlen);

/* Same syntax, duplicates silently merged: for reading sysfs, where
 * ranges never overlap but we should not trust that blindly. */
int mmt_parse_cpulist_loose(const char *s, int *cpus, int max, int *n);

#endif
