/* SPDX-License-Identifier: MIT */
/*
 * What a scenario descriptor declares, checked: its metrics against what
 * verify() produced, its needs against the machine.  The declarations
 * themselves are in scenario.h (struct mmt_metric, struct mmt_needs).
 */
#ifndef MMT_DESCRIPTOR_H
#define MMT_DESCRIPTOR_H

#include <jansson.h>
#include <stddef.h>

#include "scenario.h"

/* The record's own figures (top level, not in "metrics"), declared as a
 * scenario declares its metrics: for the catalogue and the analysis. */
extern const struct mmt_metric mmt_record_metrics[];
extern const unsigned mmt_nr_record_metrics;

const struct mmt_metric *mmt_metric_find(const struct mmt_scenario *sc, const char *name);

/* Every key of metrics declared by sc, of its declared kind (null only
 * where nullable).  0, or -1 with one line in err naming the key. */
int mmt_metrics_check(const struct mmt_scenario *sc, const json_t *metrics, char *err, size_t len);

/* Whether this machine meets sc's needs: 0, or 1 with the reason to skip
 * in why.  Root: skipped without it unless root_optional.  Kernel config:
 * skipped when the running kernel's config says an option is not set; a
 * config that cannot be found is no reason to skip. */
int mmt_needs_unmet(const struct mmt_scenario *sc, char *why, size_t len);

#endif
