/* SPDX-License-Identifier: MIT */
/*
 * --list --format json: the scenarios as data, for the tests and scripts
 * that would otherwise read the human --list with awk.  Everything here is
 * from the scenario descriptors (struct mmt_scenario), nothing restated.
 */
#include "catalogue.h"
#include "descriptor.h"
#include "scenario.h"

#include <stdint.h>
#include <stdio.h>

static const char *expectation(const struct mmt_variant *v)
{
	if (v->injected)
		return "injected";
	if (v->forbidden_on & mmt_this_arch())
		return "forbidden";
	return v->no_expectation ? "unknown" : "allowed";
}

static json_t *arch_names(unsigned mask)
{
	static const struct { unsigned bit; const char *name; } arch[] = {
		{ MMT_ARCH_X86_64, "x86_64" }, { MMT_ARCH_AARCH64, "aarch64" }, { MMT_ARCH_GENERIC, "generic" },
	};
	json_t *a = json_array();

	for (unsigned i = 0; i < sizeof(arch) / sizeof(arch[0]); i++)
		if (mask & arch[i].bit)
			json_array_append_new(a, json_string(arch[i].name));
	return a;
}

static json_t *variant_json(const struct mmt_variant *var)
{
	const char *not_built = mmt_family_not_built(var->family);

	return json_pack("{s:s,s:s,s:s,s:o,s:b,s:o,s:s,s:o,s:o,s:o}", "name", var->name, "help", var->help,
			 "expectation", expectation(var), "forbidden_on", arch_names(var->forbidden_on),
			 "injected", var->injected, "threads", var->threads ? json_integer(var->threads) : json_null(),
			 "family", mmt_family_name(var->family),
			 "compares", var->compares ? json_string(var->compares) : json_null(),
			 "hunts", var->hunts ? json_string(var->hunts) : json_null(),
			 "not_built", not_built ? json_string(not_built) : json_null());
}

/* All of sc's variants, or the nr given as indexes into sc->variants. */
static json_t *variants_json(const struct mmt_scenario *sc, const unsigned *only, unsigned nr)
{
	json_t *a = json_array();

	if (!only)
		for (unsigned v = 0; v < sc->nr_variants; v++)
			json_array_append_new(a, variant_json(&sc->variants[v]));
	for (unsigned k = 0; only && k < nr; k++)
		json_array_append_new(a, variant_json(&sc->variants[only[k]]));
	return a;
}

static json_t *metrics_json(const struct mmt_metric *m, unsigned n)
{
	json_t *a = json_array();

	for (unsigned i = 0; i < n; i++)
		json_array_append_new(a, json_pack("{s:s,s:s,s:s,s:s,s:b,s:s}", "name", m[i].name, "kind",
						   mmt_metric_kind_name(m[i].kind), "unit", m[i].unit, "better",
						   mmt_better_name(m[i].better), "nullable", m[i].nullable,
						   "help", m[i].help));
	return a;
}

/* A 64-bit value as the results do: an integer up to INT64_MAX, else its
 * decimal string (json_int_t is signed). */
static json_t *u64_json(uint64_t v)
{
	char text[24];

	if (v <= (uint64_t)INT64_MAX)
		return json_integer((json_int_t)v);
	snprintf(text, sizeof(text), "%llu", (unsigned long long)v);
	return json_string(text);
}

static json_t *options_json(const struct mmt_scenario *sc)
{
	json_t *a = json_array();

	for (unsigned k = 0; k < sc->nr_options; k++) {
		const struct mmt_option *o = &sc->options[k];
		json_t *names = json_array();

		for (unsigned i = 0; o->names && o->names[i]; i++)
			json_array_append_new(names, json_string(o->names[i]));
		json_array_append_new(a, json_pack("{s:s,s:s,s:o,s:o,s:o,s:o}", "name", o->name, "help", o->help,
						   "default", u64_json(o->def), "min", u64_json(o->min),
						   "max", u64_json(o->max), "value_names", names));
	}
	return a;
}

static json_t *outcomes_json(const struct mmt_scenario *sc)
{
	json_t *a = json_array();

	for (unsigned o = 0; o < sc->nr_outcomes; o++)
		json_array_append_new(a, json_string(sc->outcomes[o]));
	return a;
}

static json_t *scenario_json(const struct mmt_scenario *sc, const unsigned *only, unsigned nr)
{
	return json_pack("{s:s,s:s,s:{s:i,s:i,s:o,s:b},s:o,s:s,s:o,s:o,s:o,s:o,s:o}", "name", sc->name,
			 "help", sc->help, "threads", "min", sc->min_threads, "default", sc->default_threads,
			 "max", sc->max_threads ? json_integer(sc->max_threads) : json_null(),
			 "fit_placement", sc->default_threads_fit,
			 "default_placement", json_string(sc->default_placement ? sc->default_placement : "same-node"),
			 "ops_unit", sc->ops_unit, "outcomes", outcomes_json(sc), "variants",
			 variants_json(sc, only, nr), "options", options_json(sc), "metrics",
			 metrics_json(sc->metrics, sc->nr_metrics), "needs", mmt_needs_json(&sc->needs));
}

static json_t *catalogue(json_t *list)
{
	return json_pack("{s:s,s:o,s:o}", "arch", mmt_this_arch() == MMT_ARCH_X86_64 ? "x86_64"
				 : mmt_this_arch() == MMT_ARCH_AARCH64 ? "aarch64" : "generic",
			 "record_metrics", metrics_json(mmt_record_metrics, mmt_nr_record_metrics),
			 "scenarios", list);
}

json_t *mmt_catalogue_json(const struct mmt_scenario *const *scenarios, unsigned n)
{
	json_t *list = json_array();

	for (unsigned s = 0; s < n; s++)
		json_array_append_new(list, scenario_json(scenarios[s], NULL, 0));
	return catalogue(list);
}

json_t *mmt_catalogue_selected_json(const struct mmt_scenario *const *scenarios, unsigned n,
				    const unsigned (*variants)[MMT_MAX_VARIANTS], const unsigned *nr_variants)
{
	json_t *list = json_array();

	for (unsigned s = 0; s < n; s++)
		json_array_append_new(list, scenario_json(scenarios[s], variants[s], nr_variants[s]));
	return catalogue(list);
}
