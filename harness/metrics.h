/* SPDX-License-Identifier: MIT */
/*
 * A scenario's metrics, typed.  verify() puts each value with the setter of
 * the kind its descriptor row declares (mmt_put_count for a COUNT, ...); a
 * structured metric (OBJECT, LIST) is a struct of the row's shape
 * (values.h).  The runner renders them right after verify(), while the
 * memory they point into is still the scenario's.
 *
 * A put of an undeclared name or of another kind than the row's is a
 * harness bug: the run ends in an error naming the metric (the first one
 * is kept), so no reader meets a metric without its unit and direction.
 */
#ifndef MMT_METRICS_H
#define MMT_METRICS_H

#include "scenario.h"
#include "values.h"

void mmt_put_count(struct mmt_run *run, const char *name, uint64_t v);
void mmt_put_real(struct mmt_run *run, const char *name, double v);
void mmt_put_text(struct mmt_run *run, const char *name, const char *v);
void mmt_put_null(struct mmt_run *run, const char *name);
void mmt_put_latency(struct mmt_run *run, const char *name, const struct mmt_latency *v);
/* OBJECT: obj (NULL: null) has the row's shape.  LIST: n rows of it; a
 * row without a shape is a list of COUNTs (uint64_t). */
void mmt_put_object(struct mmt_run *run, const char *name, const void *obj);
void mmt_put_list(struct mmt_run *run, const char *name, const void *rows, unsigned n);
/* OBJECT with a MAP shape: n rows keyed by their first field. */
void mmt_put_map(struct mmt_run *run, const char *name, const void *rows, unsigned n);

/* After rendering: the texts put, and the slots. */
void mmt_values_free(struct mmt_run *run);

#endif
