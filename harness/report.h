/* SPDX-License-Identifier: MIT */
/* The human table: one row per run, then skips and a summary line. */
#ifndef MMT_REPORT_H
#define MMT_REPORT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

/* --format wide: full verdicts and the whole detail column. */
void mmt_report_set_wide(bool on);

void mmt_report_table(FILE *f, const json_t *doc, const char *result_path);
/* Counters per run: value, per operation, scaling; unsupported with why. */
void mmt_report_counters(FILE *f, const json_t *doc);

#endif
