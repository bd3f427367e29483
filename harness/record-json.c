/* SPDX-License-Identifier: MIT */
/*
 * The run record's JSON: the one place a run's entry of "runs" is built.
 * The runner, the scenarios and the harness's parts fill typed data
 * (record.h, values.h and the parts' own structs); this renders it in the
 * results schema's key order and types (tests/record-shape.py holds them).
 */
#include "record.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "counters.h"
#include "probe.h"
#include "values.h"

static json_t *hex_json(uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%016llx", (unsigned long long)v);
	return json_string(buf);
}

/* ---- a scenario's metrics, by their declared shapes ---------------------- */

enum rows_as { AS_ONE, AS_LIST, AS_MAP };

static json_t *rows_json(const struct mmt_shape *s, const void *base, unsigned n, enum rows_as as);

static json_t *count_json(uint64_t v)
{
	return v == MMT_NONE ? json_null() : json_integer((json_int_t)v);
}

static json_t *field_json(const struct mmt_field *f, const char *row)
{
	const char *at = row + f->offset;
	const char *text;
	double real;

	switch (f->kind) {
	case MMT_F_COUNT:
		return count_json(*(const uint64_t *)at);
	case MMT_F_INT:
		return json_integer(*(const int *)at);
	case MMT_F_SIGNED:
		return *(const int64_t *)at == MMT_NONE_SIGNED ? json_null() : json_integer(*(const int64_t *)at);
	case MMT_F_HEX:
		return hex_json(*(const uint64_t *)at);
	case MMT_F_REAL:
		real = *(const double *)at;
		return isnan(real) ? json_null() : json_real(real);
	case MMT_F_TEXT:
		text = *(const char *const *)at;
		return text ? json_string(text) : json_null();
	case MMT_F_CHARS:
		return json_string(at);
	case MMT_F_BOOL:
		return json_boolean(*(const bool *)at);
	case MMT_F_OBJECT:
		return rows_json(f->shape, at, 1, AS_ONE);
	case MMT_F_OBJECT_PTR:
		at = *(const char *const *)at;
		return at ? rows_json(f->shape, at, 1, AS_ONE) : json_null();
	case MMT_F_LIST:
	case MMT_F_MAP:
		return rows_json(f->shape, at, *(const unsigned *)(row + f->count_offset),
				 f->kind == MMT_F_MAP ? AS_MAP : AS_LIST);
	case MMT_F_COUNTS_AT:
		return rows_json(NULL, *(const uint64_t *const *)at, *(const unsigned *)(row + f->count_offset),
				 AS_LIST);
	case MMT_F_SWITCH:
		text = *(const char *const *)at;
		return text ? json_pack("{s:s}", "skipped", text) : json_string("on");
	}
	return json_null();
}

/* One row: an object of its fields from the first (a keyed row's from the
 * second); a row whose field has no name, or a keyed row of one value
 * field, is that value. */
static json_t *row_json(const struct mmt_shape *s, const char *row, unsigned first)
{
	json_t *o;

	if (!s->fields[first].name || (first && s->nr_fields == 2))
		return field_json(&s->fields[first], row);
	o = json_object();
	for (unsigned i = first; i < s->nr_fields; i++)
		json_object_set_new(o, s->fields[i].name, field_json(&s->fields[i], row));
	return o;
}

static const char *row_key(const struct mmt_shape *s, const char *row)
{
	const char *at = row + s->fields[0].offset;

	return s->fields[0].kind == MMT_F_CHARS ? at : *(const char *const *)at;
}

/* n rows of shape s at base: the one row, a list, or an object keyed by
 * the rows' first fields.  A list without a shape is of counts. */
static json_t *rows_json(const struct mmt_shape *s, const void *base, unsigned n, enum rows_as as)
{
	const char *row = base;
	json_t *out;

	if (as == AS_ONE)
		return row_json(s, row, 0);
	if (!s) {
		out = json_array();
		for (unsigned i = 0; i < n; i++)
			json_array_append_new(out, count_json(((const uint64_t *)base)[i]));
		return out;
	}
	out = as == AS_MAP ? json_object() : json_array();
	for (unsigned i = 0; i < n; i++, row += s->size) {
		if (as == AS_MAP)
			json_object_set_new(out, row_key(s, row), row_json(s, row, 1));
		else
			json_array_append_new(out, row_json(s, row, 0));
	}
	return out;
}

static json_t *latency_json(const struct mmt_latency *l)
{
	return rows_json(&mmt_latency_shape, l, 1, AS_ONE);
}

static json_t *value_json(const struct mmt_metric *m, const struct mmt_value *v)
{
	if (v->state == MMT_VALUE_NULL)
		return json_null();
	switch (m->kind) {
	case MMT_METRIC_COUNT: return json_integer((json_int_t)v->v.count);
	case MMT_METRIC_REAL: return json_real(v->v.real);
	case MMT_METRIC_TEXT: return json_string(v->v.text);
	case MMT_METRIC_LATENCY: return latency_json(&v->v.latency);
	case MMT_METRIC_OBJECT:
		return rows_json(m->shape, v->v.rows.base, v->v.rows.n, v->v.rows.keyed ? AS_MAP : AS_ONE);
	case MMT_METRIC_LIST:
		return rows_json(m->shape, v->v.rows.base, v->v.rows.n, AS_LIST);
	case MMT_NR_METRIC_KINDS: break;
	}
	return json_null();
}

json_t *mmt_shape_json(const struct mmt_shape *s, const void *obj)
{
	return obj ? rows_json(s, obj, 1, AS_ONE) : json_null();
}

json_t *mmt_shapes_json(unsigned n, const struct mmt_shape *const *shapes, const void *const *objs)
{
	json_t *o = json_object();

	for (unsigned i = 0; i < n; i++)
		for (unsigned k = 0; k < shapes[i]->nr_fields; k++)
			json_object_set_new(o, shapes[i]->fields[k].name, field_json(&shapes[i]->fields[k], objs[i]));
	return o;
}

/* In the order verify() first put them. */
json_t *mmt_metrics_json(const struct mmt_scenario *sc, const struct mmt_value *values)
{
	json_t *o = json_object();

	for (unsigned seq = 1; seq <= sc->nr_metrics; seq++)
		for (unsigned i = 0; i < sc->nr_metrics; i++)
			if (values[i].seq == seq)
				json_object_set_new(o, sc->metrics[i].name, value_json(&sc->metrics[i], &values[i]));
	return o;
}

/* ---- the harness's parts of a run ---------------------------------------- */

static json_t *pairs_json(const struct mmt_probe_set *set)
{
	json_t *arr = json_array();

	for (unsigned i = 0; set && i < set->n; i++) {
		const struct mmt_probe_pair *p = &set->pairs[i];

		json_array_append_new(arr, json_pack("{s:[i,i],s:f,s:f,s:i}", "cpus", p->a, p->b, "round_trip_ns",
						     p->round_trip_ns, "one_way_ns", p->one_way_ns, "chunks",
						     p->chunks));
	}
	return arr;
}

/* The host may move vCPUs mid-run: say so next to the numbers. */
json_t *mmt_probe_json(const struct mmt_probe_set *before, const struct mmt_probe_set *after)
{
	double drift = mmt_probe_drift(before, after);

	return json_pack("{s:o,s:o,s:o,s:b}", "before", pairs_json(before), "after", pairs_json(after), "drift",
			 isnan(drift) ? json_null() : json_real(drift),
			 "stable", !isnan(drift) && drift <= MMT_PROBE_STABLE_RATIO);
}

json_t *mmt_workers_json(const struct mmt_run *run)
{
	json_t *workers = json_array();

	for (unsigned i = 0; i < run->nr_workers; i++) {
		const struct mmt_worker *w = &run->workers[i];

		json_array_append_new(workers, json_pack("{s:i,s:s,s:i,s:[i,i],s:I}", "id", w->id,
							 "role", w->role ? w->role : "worker",
							 "cpu", w->cpu, "cpu_seen", w->cpu_seen_start,
							 w->cpu_seen_end, "ops", (json_int_t)w->ops));
	}
	return workers;
}

json_t *mmt_histogram_json(const struct mmt_scenario *sc, const uint64_t *outcomes)
{
	json_t *h = json_object();

	for (unsigned o = 0; o < sc->nr_outcomes; o++)
		json_object_set_new(h, sc->outcomes[o], json_integer((json_int_t)outcomes[o]));
	return h;
}

static json_t *real_or_null(double v)
{
	return isnan(v) ? json_null() : json_real(v);
}

static json_t *encoding_json(const struct mmt_event *e)
{
	json_t *j = json_pack("{s:s}", "via", e->via[0] ? e->via : "none");

	json_object_set_new(j, "pmu", e->pmu[0] ? json_string(e->pmu) : json_null());
	json_object_set_new(j, "note", e->via_note[0] ? json_string(e->via_note) : json_null());
	if (e->ordering)
		json_object_set_new(j, "role", json_string("ordering"));
	return j;
}

static json_t *event_json(const struct mmt_event_report *r)
{
	bool ok = !strcmp(r->status, "ok");
	json_t *ev = json_pack("{s:s,s:s,s:s,s:s,s:o,s:o,s:o,s:o}", "name", r->e->name, "kind", r->kind, "scope",
			       r->system ? "system" : "thread", "status", r->status, "reason",
			       ok ? json_null() : json_string(r->reason), "value", real_or_null(r->value),
			       "scaling", real_or_null(r->scaling), "per_op", real_or_null(r->per_op));
	json_t *per, *raw, *enabled, *running;

	json_object_set_new(ev, "encoding", encoding_json(r->e));
	if (!ok)
		return ev;
	per = json_array();
	raw = json_array();
	enabled = json_array();
	running = json_array();
	for (unsigned k = 0; k < r->n; k++) {
		const struct mmt_event_reading *x = &r->readings[k];

		json_array_append_new(per, x->opened && x->scaled ? json_real(x->per) : json_null());
		json_array_append_new(raw, x->opened ? json_integer((json_int_t)x->raw) : json_null());
		json_array_append_new(enabled, x->opened ? json_integer((json_int_t)x->enabled) : json_null());
		json_array_append_new(running, x->opened ? json_integer((json_int_t)x->running) : json_null());
	}
	json_object_set_new(ev, r->system ? "per_cpu" : "per_worker", per);
	json_object_set_new(ev, "raw", raw);
	json_object_set_new(ev, "enabled_ns", enabled);
	json_object_set_new(ev, "running_ns", running);
	if (r->system) {
		json_t *ids = json_array();

		for (unsigned k = 0; k < r->n; k++)
			json_array_append_new(ids, json_integer(r->cpu_ids[k]));
		json_object_set_new(ev, "cpus", ids);
	} else {
		json_object_set_new(ev, "partial", json_boolean(r->partial));
	}
	return ev;
}

json_t *mmt_counters_json(const struct mmt_event_set *set, const struct mmt_counters *threads,
			  unsigned nr_threads, const struct mmt_counters *cpus, const int *cpu_ids,
			  unsigned nr_cpus, uint64_t ops)
{
	struct mmt_counters_report r;
	json_t *events, *doc;

	if (mmt_counters_report(set, threads, nr_threads, cpus, cpu_ids, nr_cpus, ops, &r)) {
		mmt_counters_report_free(&r);
		return json_null();
	}
	events = json_array();
	for (unsigned i = 0; i < r.nr; i++)
		json_array_append_new(events, event_json(&r.events[i]));
	doc = json_pack("{s:o,s:{s:o,s:o,s:o,s:o}}", "events", events, "derived", "ordering_per_op",
			real_or_null(r.ordering_per_op), "ipc", real_or_null(r.ipc), "cycles_per_op",
			real_or_null(r.cycles_per_op), "instructions_per_op", real_or_null(r.instructions_per_op));
	mmt_counters_report_free(&r);
	return doc;
}

/* ---- the record ---------------------------------------------------------- */

static json_t *text_or_null(const char *s)
{
	return *s ? json_string(s) : json_null();
}

static json_t *or_null(json_t *part)
{
	return part ? json_incref(part) : json_null();
}

static json_t *options_json(const struct mmt_record *r)
{
	json_t *o = json_object();

	for (unsigned k = 0; k < r->sc->nr_options; k++)
		json_object_set_new(o, r->sc->options[k].name, json_integer((json_int_t)r->opt[k]));
	return o;
}

static json_t *cpus_json(const struct mmt_record *r)
{
	json_t *a;

	if (!r->nr_cpus)
		return json_null();
	a = json_array();
	for (unsigned i = 0; i < r->nr_cpus; i++)
		json_array_append_new(a, json_integer(r->cpus[i]));
	return a;
}

/* The totals: null until measured.  ops/s and ns/op derive from them. */
static void totals_json(const struct mmt_record *r, json_t *rec)
{
	double secs = (double)r->elapsed_ns / 1e9;

	if (!r->measured) {
		json_object_set_new(rec, "iterations", json_null());
		json_object_set_new(rec, "ops_unit", json_string(r->sc->ops_unit));
		json_object_set_new(rec, "elapsed_ns", json_null());
		json_object_set_new(rec, "ops_per_sec", json_null());
		json_object_set_new(rec, "ns_per_op", json_null());
		json_object_set_new(rec, "witnesses", json_null());
		return;
	}
	json_object_set_new(rec, "iterations", json_integer((json_int_t)r->iterations));
	json_object_set_new(rec, "ops_unit", json_string(r->sc->ops_unit));
	json_object_set_new(rec, "elapsed_ns", json_integer((json_int_t)r->elapsed_ns));
	json_object_set_new(rec, "ops_per_sec", json_real(secs > 0 ? (double)r->iterations / secs : 0));
	json_object_set_new(rec, "ns_per_op", r->iterations ? json_real((double)r->elapsed_ns / (double)r->iterations)
							    : json_null());
	json_object_set_new(rec, "witnesses", json_pack("{s:I,s:O}", "count", (json_int_t)r->witnesses,
							"histogram", r->histogram));
}

json_t *mmt_record_json(const struct mmt_record *r)
{
	char seed_text[24];
	json_t *rec;

	snprintf(seed_text, sizeof(seed_text), "%llu", (unsigned long long)r->seed);
	rec = json_pack("{s:s,s:s,s:s,s:i,s:s,s:o,s:o,s:b,s:b,s:i,s:o,s:o,s:s,s:o}",
			"scenario", r->sc->name, "variant", r->variant->name, "placement", r->placement,
			"repeat", r->repeat, "status", mmt_status_names[r->status],
			"reason", text_or_null(r->reason), "verdict", text_or_null(r->verdict),
			"forbidden", r->forbidden, "injected", r->injected, "threads", r->threads,
			"cpus", cpus_json(r),
			"mem_node", r->mem_node >= 0 ? json_integer(r->mem_node) : json_null(),
			"seed", seed_text, "options", options_json(r));
	totals_json(r, rec);
	json_object_set_new(rec, "probe", or_null(r->probe));
	json_object_set_new(rec, "metrics", or_null(r->metrics));
	json_object_set_new(rec, "workers", r->workers ? json_incref(r->workers) : json_array());
	json_object_set_new(rec, "counters", or_null(r->counters));
	json_object_set_new(rec, "detection", or_null(r->detection));
	json_object_set_new(rec, "placement_track", or_null(r->placement_track));
	json_object_set_new(rec, "integrity", or_null(r->integrity));
	json_object_set_new(rec, "conditions", or_null(r->conditions));
	return rec;
}

