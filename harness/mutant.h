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

#include <stdbool.h>
#include <stdint.h>

#include "values.h"

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

/* The mutant kernel's switches and counters (mmt_mutant_shape):
 * {"patch_version": N, "switches": {NAME: {"on", "hits", "window",
 * "reverts": the table's commit or null, "was_on"}}}; present false on a
 * kernel without the patch.  hits and window: MMT_NONE_SIGNED where
 * unreadable. */
#define MMT_MUTANT_SWITCHES 64	/* mutant.c enumerates as many */
struct mmt_mutant_switch {
	char name[64];
	bool on;
	int64_t hits, window;
	const char *reverts;	/* reverts_text, or NULL */
	bool was_on;		/* a delta's: on in the snapshot before */
	char reverts_text[64];
};
struct mmt_mutant_state {
	bool present;
	int64_t patch_version;
	struct mmt_mutant_switch sw[MMT_MUTANT_SWITCHES];
	unsigned n;
};
extern const struct mmt_shape mmt_mutant_shape;
void mmt_mutant_snapshot(struct mmt_mutant_state *out);
/* after, with hits and window the change since before (MMT_NONE_SIGNED
 * where either is unknown) and was_on before's. */
void mmt_mutant_delta(const struct mmt_mutant_state *before, struct mmt_mutant_state *after);

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
