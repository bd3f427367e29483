/* SPDX-License-Identifier: MIT */
/*
 * Kernel state around a run: /proc/vmstat counters and the TLB shootdown
 * row of /proc/interrupts as deltas, kernel health (taint, new WARNING /
 * BUG / Oops / Call Trace lines in the kernel log), the config options that
 * matter for mm races; sysctls changed for a run are sysctl.h's.
 */
#ifndef MMT_KSTATE_H
#define MMT_KSTATE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* Snapshot of /proc/vmstat lines whose name starts with one of the
 * prefixes, plus "tlb_shootdowns" summed from /proc/interrupts. */
json_t *mmt_kstate_counters(const char *const *prefixes);
/* after - before, key by key. */
json_t *mmt_kstate_delta(const json_t *before, const json_t *after);

struct mmt_kernel_health {
	long long tainted;	/* -1: unreadable */
	int kmsg_fd;		/* -1: the kernel log cannot be read (not root) */
};
void mmt_health_begin(struct mmt_kernel_health *h);
/* {"tainted_before", "tainted_after", "new_log_lines": [...], "splat": bool,
 *  "log_readable": bool}; closes the log. */
json_t *mmt_health_end(struct mmt_kernel_health *h);

/* CONFIG_ options from /proc/config.gz or /boot/config-<release>:
 * {"CONFIG_X": "y"|"m"|value|"not set"} or null if no config is found. */
json_t *mmt_kernel_config(const char *const *options);
/* The file mmt_kernel_config() reads (it may not exist). */
const char *mmt_kernel_config_path(void);

/* Sysctls changed for a run: journaled, restored on every exit (sysctl.h). */
#include "sysctl.h"

#endif
