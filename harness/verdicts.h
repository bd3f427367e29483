/* SPDX-License-Identifier: MIT */
/*
 * The one mapping from a verdict to an exit code, a JUnit case, a LAVA case
 * and a KCIDB status: results/verdicts.json, embedded at build (the Python
 * readers load the same file, analysis/lib/verdicts.py).
 */
#ifndef MMT_VERDICTS_H
#define MMT_VERDICTS_H

#include <jansson.h>

/* A run's verdict: its status, except that an ok run of an injected-fault
 * variant is "caught" or "missed" by its witnesses. */
const char *mmt_run_verdict(const json_t *run);

/* Column field ("exit", "junit", "lava", "kcidb", "meaning") of verdict in
 * the table of kind ("run", "comparison"), as text; NULL: no such row. */
const char *mmt_verdict_field(const char *kind, const char *verdict, const char *field);

/* The whole table, as parsed: {"run": [rows], "comparison": [rows]}; NULL if
 * results/verdicts.json did not parse (said on stderr). */
const json_t *mmt_verdict_table(void);

#endif
