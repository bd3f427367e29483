/* SPDX-License-Identifier: MIT */
#include "record.h"

#include <stdio.h>
#include <string.h>

const char *const mmt_status_names[MMT_NR_STATUS] = {
	[MMT_STATUS_OK] = "ok",
	[MMT_STATUS_WITNESSED] = "witnessed",
	[MMT_STATUS_SKIPPED] = "skipped",
	[MMT_STATUS_ERROR] = "error",
	[MMT_STATUS_INTERRUPTED] = "interrupted",
	[MMT_STATUS_HUNG] = "hung",
	[MMT_STATUS_INCONCLUSIVE] = "inconclusive",
	[MMT_STATUS_INVALID] = "invalid",
};

void mmt_record_init(struct mmt_record *r, const struct mmt_scenario *sc,
		     const struct mmt_variant *v, const char *placement, unsigned rep,
		     unsigned threads, uint64_t seed, const uint64_t *opt, bool forbidden)
{
	memset(r, 0, sizeof(*r));
	r->sc = sc;
	r->variant = v;
	r->placement = placement;
	r->repeat = rep;
	r->threads = threads;
	r->seed = seed;
	memcpy(r->opt, opt, sizeof(r->opt[0]) * sc->nr_options);
	r->forbidden = forbidden;
	r->injected = v->injected;
	r->status = MMT_STATUS_SKIPPED;
	r->mem_node = -1;
}

void mmt_record_set_reason(struct mmt_record *r, const char *reason)
{
	snprintf(r->reason, sizeof(r->reason), "%s", reason ? reason : "");
}

void mmt_record_set_cpus(struct mmt_record *r, const int *cpus, unsigned n)
{
	r->nr_cpus = n < MMT_MAX_CPUS ? n : MMT_MAX_CPUS;
	memcpy(r->cpus, cpus, sizeof(r->cpus[0]) * r->nr_cpus);
}

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

void mmt_record_release(struct mmt_record *r)
{
	json_t **parts[] = { &r->histogram, &r->probe, &r->metrics, &r->workers, &r->counters,
			     &r->detection, &r->placement_track, &r->integrity, &r->conditions };

	for (unsigned i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		json_decref(*parts[i]);
		*parts[i] = NULL;
	}
}
