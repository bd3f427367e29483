/* SPDX-License-Identifier: MIT */
/*
 * Mutant kernels (scripts/mutant-kernel): runtime switches that re-create
 * fixed mm bugs, so that a detector is proven by the real defect it
 * targets.  Each switch is /sys/module/mmt_mutant/parameters/NAME with
 * counters NAME_hits (the buggy path changed the outcome) and NAME_window
 * (the race window was reached, switch on or off).
 */
#ifndef MMT_MUTANT_H
#define MMT_MUTANT_H

#include <jansson.h>
#include <stddef.h>

#define MMT_MUTANT_DIR "/sys/module/mmt_mutant/parameters"

/*
 * --mutant NAME[=on|off][,...]: checked against this kernel's switches (a
 * switch it lacks, or any switch on a kernel without them, is bad input),
 * then set for the whole invocation; the old values come back through
 * mmt_sysctl_restore_all().  Returns 0, or -1 with one line.  The
 * switches are read from MMT_MUTANT_DIR (under $MMT_SYSCTL_ROOT in the
 * tests): every parameter with a NAME_hits counter beside it.
 */
int mmt_mutant_check(const char *list, char *err, size_t len);
int mmt_mutant_apply(const char *list, char *err, size_t len);

/* null on a kernel without the patch; else {"patch_version": N,
 * "switches": {NAME: {"on": bool, "hits": N, "window": N, "reverts": the
 * table's commit or null}}}. */
json_t *mmt_mutant_snapshot(void);
/* after with hits and window as deltas from before (null if either is). */
json_t *mmt_mutant_delta(const json_t *before, const json_t *after);

/* The switch of kernel/mutants.tsv's row that names scenario variant as
 * its hunter or its control, into buf; NULL when no row does.  What a
 * scenario reads the window counter of (no switch name typed in C). */
const char *mmt_mutant_of_variant(const char *scenario, const char *variant, char *buf, size_t len);

/* The path of switch name's counter ("hits", "window") on this kernel,
 * into buf; 0 when it can be read. */
int mmt_mutant_counter_path(const char *name, const char *counter, char *buf, size_t len);

/* Name list for messages: this kernel's switches, or kernel/mutants.tsv's
 * when it has none. */
const char *mmt_mutant_names(void);

#endif
