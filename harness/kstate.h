/* SPDX-License-Identifier: MIT */
/*
 * Kernel state around a run: /proc/vmstat counters and the TLB shootdown
 * row of /proc/interrupts as deltas, kernel health (taint, new WARNING /
 * BUG / Oops / Call Trace lines in the kernel log), the config options that
 * matter for mm races; sysctls changed for a run are sysctl.h's.
 */
#ifndef MMT_KSTATE_H
#define MMT_KSTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "values.h"

/* Counters of /proc/vmstat (and "tlb_shootdowns"), by name: a snapshot
 * or a delta.  mmt_kcounters_shape: {name: value}. */
#define MMT_KCOUNTERS_MAX 256
struct mmt_kcounter {
	char name[64];
	int64_t value;
};
struct mmt_kcounters {
	struct mmt_kcounter e[MMT_KCOUNTERS_MAX];
	unsigned n;
};
extern const struct mmt_shape mmt_kcounters_shape;

/* Snapshot of /proc/vmstat lines whose name starts with one of the
 * prefixes, plus "tlb_shootdowns" summed from /proc/interrupts. */
void mmt_kstate_counters(const char *const *prefixes, struct mmt_kcounters *out);
/* after - before, name by name (names only after has are left out). */
void mmt_kstate_delta(const struct mmt_kcounters *before, const struct mmt_kcounters *after,
		      struct mmt_kcounters *delta);

struct mmt_kernel_health {
	long long tainted;	/* -1: unreadable */
	int kmsg_fd;		/* -1: the kernel log cannot be read (not root) */
};

/* What the kernel said during a run (mmt_health_shape): tainted_before,
 * tainted_after (null: unreadable), log_readable, new_log_lines (the
 * first 32 of them), splat. */
#define MMT_HEALTH_LINES 32
struct mmt_log_line {
	char text[512];
};
struct mmt_health_report {
	int64_t tainted_before, tainted_after;
	bool log_readable;
	struct mmt_log_line lines[MMT_HEALTH_LINES];
	unsigned nr_lines;
	bool splat;
};
extern const struct mmt_shape mmt_health_shape;

void mmt_health_begin(struct mmt_kernel_health *h);
/* Closes the log. */
void mmt_health_end(struct mmt_kernel_health *h, struct mmt_health_report *out);

/* CONFIG_ options from /proc/config.gz or /boot/config-<release>: each
 * "y", "m", a value or "not set" (mmt_kconfig_shape: {"CONFIG_X": value});
 * found false: no config could be read whole. */
#define MMT_KCONFIG_MAX 16
struct mmt_kconfig_option {
	const char *name;
	char value[128];
};
struct mmt_kconfig {
	bool found;
	struct mmt_kconfig_option e[MMT_KCONFIG_MAX];
	unsigned n;
};
extern const struct mmt_shape mmt_kconfig_shape;
void mmt_kernel_config(const char *const *options, struct mmt_kconfig *out);
/* The file mmt_kernel_config() reads (it may not exist). */
const char *mmt_kernel_config_path(void);

/* Sysctls changed for a run: journaled, restored on every exit (sysctl.h). */
#include "sysctl.h"

#endif
