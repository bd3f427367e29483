/* SPDX-License-Identifier: MIT */
/* The setters of metrics.h: each checks the put against the metric's row. */
#include "metrics.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario.h"

static const char *const put_names[MMT_NR_METRIC_KINDS] = {
	[MMT_METRIC_COUNT] = "a count", [MMT_METRIC_REAL] = "a real number", [MMT_METRIC_TEXT] = "a text",
	[MMT_METRIC_LATENCY] = "a latency", [MMT_METRIC_OBJECT] = "an object", [MMT_METRIC_LIST] = "a list",
};

/* The slot for name, when its row declares kind (MMT_NR_METRIC_KINDS: any);
 * else NULL and the first such mistake kept for the runner. */
static struct mmt_value *slot(struct mmt_run *run, const char *name, enum mmt_metric_kind kind)
{
	const struct mmt_scenario *sc = run->sc;

	for (unsigned i = 0; i < sc->nr_metrics; i++) {
		const struct mmt_metric *m = &sc->metrics[i];

		if (strcmp(m->name, name))
			continue;
		if (m->kind == kind || kind == MMT_NR_METRIC_KINDS) {
			if (!run->values[i].seq)
				run->values[i].seq = ++run->values_put;
			return &run->values[i];
		}
		if (!run->values_error[0])
			snprintf(run->values_error, sizeof(run->values_error),
				 "%s: metric \"%s\" is declared %s but was put as %s", sc->name, name,
				 mmt_metric_kind_name(m->kind), put_names[kind]);
		return NULL;
	}
	if (!run->values_error[0])
		snprintf(run->values_error, sizeof(run->values_error),
			 "%s: metric \"%s\" is not declared in its descriptor", sc->name, name);
	return NULL;
}

/* A null where the row allows none is the same kind of mistake. */
static void set_null(struct mmt_run *run, struct mmt_value *v, const char *name)
{
	unsigned i = (unsigned)(v - run->values);

	if (!run->sc->metrics[i].nullable && !run->values_error[0])
		snprintf(run->values_error, sizeof(run->values_error),
			 "%s: metric \"%s\" is not declared nullable but was put as null", run->sc->name, name);
	free((void *)(v->state == MMT_VALUE_SET && run->sc->metrics[i].kind == MMT_METRIC_TEXT ? v->v.text : NULL));
	v->state = MMT_VALUE_NULL;
}

void mmt_put_count(struct mmt_run *run, const char *name, uint64_t x)
{
	struct mmt_value *v = slot(run, name, MMT_METRIC_COUNT);

	if (!v)
		return;
	if (x == MMT_NONE) {
		set_null(run, v, name);
		return;
	}
	v->state = MMT_VALUE_SET;
	v->v.count = x;
}

void mmt_put_real(struct mmt_run *run, const char *name, double x)
{
	struct mmt_value *v = slot(run, name, MMT_METRIC_REAL);

	if (!v)
		return;
	if (isnan(x)) {
		set_null(run, v, name);
		return;
	}
	v->state = MMT_VALUE_SET;
	v->v.real = x;
}

/* A text is copied: verify() may put one from its own stack. */
void mmt_put_text(struct mmt_run *run, const char *name, const char *x)
{
	struct mmt_value *v = slot(run, name, MMT_METRIC_TEXT);

	if (!v)
		return;
	if (!x) {
		set_null(run, v, name);
		return;
	}
	if (v->state == MMT_VALUE_SET)
		free((void *)v->v.text);
	v->v.text = strdup(x);
	v->state = v->v.text ? MMT_VALUE_SET : MMT_VALUE_NULL;
	if (!v->v.text && !run->values_error[0])
		snprintf(run->values_error, sizeof(run->values_error), "%s: out of memory for metric \"%s\"",
			 run->sc->name, name);
}

void mmt_put_null(struct mmt_run *run, const char *name)
{
	struct mmt_value *v = slot(run, name, MMT_NR_METRIC_KINDS);

	if (v)
		set_null(run, v, name);
}

void mmt_put_latency(struct mmt_run *run, const char *name, const struct mmt_latency *x)
{
	struct mmt_value *v = slot(run, name, MMT_METRIC_LATENCY);

	if (!v)
		return;
	if (!x || !x->count) {
		set_null(run, v, name);
		return;
	}
	v->state = MMT_VALUE_SET;
	v->v.latency = *x;
}

static void put_rows(struct mmt_run *run, const char *name, enum mmt_metric_kind kind, const void *rows,
		     unsigned n, bool keyed)
{
	struct mmt_value *v = slot(run, name, kind);

	if (!v)
		return;
	if (!rows && kind == MMT_METRIC_OBJECT && !keyed) {
		set_null(run, v, name);
		return;
	}
	if (!run->sc->metrics[v - run->values].shape && (kind == MMT_METRIC_OBJECT || keyed)) {
		if (!run->values_error[0])
			snprintf(run->values_error, sizeof(run->values_error),
				 "%s: metric \"%s\" is put as a struct but its row declares no shape", run->sc->name,
				 name);
		return;
	}
	v->state = MMT_VALUE_SET;
	v->v.rows.base = rows;
	v->v.rows.n = n;
	v->v.rows.keyed = keyed;
}

void mmt_put_object(struct mmt_run *run, const char *name, const void *obj)
{
	put_rows(run, name, MMT_METRIC_OBJECT, obj, 1, false);
}

void mmt_put_list(struct mmt_run *run, const char *name, const void *rows, unsigned n)
{
	put_rows(run, name, MMT_METRIC_LIST, rows, n, false);
}

void mmt_put_map(struct mmt_run *run, const char *name, const void *rows, unsigned n)
{
	put_rows(run, name, MMT_METRIC_OBJECT, rows, n, true);
}

void mmt_values_free(struct mmt_run *run)
{
	for (unsigned i = 0; run->values && i < run->sc->nr_metrics; i++)
		if (run->sc->metrics[i].kind == MMT_METRIC_TEXT && run->values[i].state == MMT_VALUE_SET)
			free((void *)run->values[i].v.text);
	free(run->values);
	run->values = NULL;
}
