/* SPDX-License-Identifier: MIT */
/*
 * The document's JSON (document-json.h): one renderer per typed struct,
 * as fio's stat.c has one printer per output format.  Key order is the
 * results' (results/schema.json): readers diff files, and tests compare
 * shapes.
 */
#include "document-json.h"
#include "catalogue.h"
#include "descriptor.h"
#include "metadata.h"
#include "schema.h"
#include "scenario.h"
#include "sysctl.h"

#include <stdint.h>
#include <stdio.h>

/* ---- common ------------------------------------------------------------- */

static json_t *string_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *line_json(const struct mmt_line *l)
{
	return l->ok ? json_string(l->text) : json_null();
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

/* A NULL-terminated list of strings (NULL: empty). */
static json_t *string_list(const char *const *list)
{
	json_t *a = json_array();

	for (; list && *list; list++)
		json_array_append_new(a, json_string(*list));
	return a;
}

/* ---- metadata ----------------------------------------------------------- */

/* Online CPUs sharing a last-level (L3) cache, as topology.c read them:
 * two CPUs of one NUMA node may still sit on different dies with
 * different L3s, which changes every cache-line round trip.  Empty where
 * sysfs has no L3; the groups same-l3 plans from. */
static json_t *l3_groups_json(const struct mmt_topology *t)
{
	static int keys[MMT_MAX_CPUS];
	int n = mmt_topology_l3_groups(t, keys, MMT_MAX_CPUS);
	json_t *groups = json_array();

	for (int g = 0; g < n; g++) {
		json_t *cpus = json_array();

		for (int i = 0; i < t->nr_cpus; i++)
			if (t->cpus[i].l3 == keys[g])
				json_array_append_new(cpus, json_integer(t->cpus[i].id));
		json_array_append_new(groups, cpus);
	}
	return groups;
}

static json_t *node_json(const struct mmt_topology *t, const struct mmt_node *nd)
{
	json_t *cpus = json_array(), *dist = json_array();

	for (int c = 0; c < nd->nr_cpus; c++)
		json_array_append_new(cpus, json_integer(nd->cpus[c]));
	for (int k = 0; k < t->nr_nodes; k++)
		json_array_append_new(dist, json_integer(nd->distance[k]));
	return json_pack("{s:i,s:o,s:b,s:o,s:o}", "id", nd->id, "cpus", cpus, "has_memory", nd->has_memory,
			 "mem_total_kb", nd->mem_total_kb < 0 ? json_null() : json_integer(nd->mem_total_kb),
			 "distances", dist);
}

static json_t *topology_json(const struct mmt_metadata *md)
{
	const struct mmt_topology *t = md->topology;
	json_t *nodes = json_array();

	for (int i = 0; i < t->nr_nodes; i++)
		json_array_append_new(nodes, node_json(t, &t->nodes[i]));
	return json_pack("{s:i,s:i,s:b,s:b,s:o,s:o,s:o}", "online_cpus", t->nr_cpus, "cores", md->cores,
			 "smt", md->smt, "numa_sysfs", t->numa_sysfs,
			 "libnuma_nodes", md->libnuma_nodes < 0 ? json_null() : json_integer(md->libnuma_nodes),
			 "nodes", nodes, "l3_groups", l3_groups_json(t));
}

static json_t *urcu_json(const struct mmt_metadata *md)
{
	json_t *libs = json_array();

	for (unsigned i = 0; i < md->nr_urcu; i++)
		json_array_append_new(libs, json_pack("{s:s,s:o}", "path", md->urcu[i].path, "build_id",
						      md->urcu[i].has_build_id ? json_string(md->urcu[i].build_id)
									       : json_null()));
	return libs;
}

json_t *mmt_metadata_json(const struct mmt_metadata *md)
{
	json_t *cmd = json_array();

	for (int i = 0; i < md->argc; i++)
		json_array_append_new(cmd, json_string(md->argv[i]));
	return json_pack(
		"{s:{s:s,s:s,s:s,s:s,s:s},s:{s:s,s:s,s:s},s:{s:o},s:o,s:{s:o,s:o,s:o,s:o},"
		"s:s,s:o,s:s,s:s,s:s,s:{s:f,s:b},s:{s:s,s:o,s:o,s:s,s:o},s:{s:o,s:o,s:o,s:o},s:o,s:o}",
		"harness", "version", md->version, "git_revision", md->git_revision,
		"compiler", md->compiler, "cflags", md->cflags, "arch", md->arch,
		"kernel", "release", md->uts.release, "version", md->uts.version, "machine", md->uts.machine,
		"cpu", "model", line_json(&md->cpu_model),
		"topology", topology_json(md),
		"settings", "thp_enabled", line_json(&md->thp_enabled), "thp_defrag", line_json(&md->thp_defrag),
		"numa_balancing", line_json(&md->numa_balancing),
		"perf_event_paranoid", line_json(&md->perf_event_paranoid),
		"liburcu_version", md->liburcu_version,
		"command_line", cmd,
		"seed", md->seed,
		"started_at", md->started_at,
		"hostname", md->hostname,
		"clock", "cycles_per_ns", md->cycles_per_ns, "synchronised", md->clock_synchronised,
		"host", "hostname", md->hostname, "machine_id", line_json(&md->machine_id),
		"cpu_model", line_json(&md->cpu_model), "kernel_release", md->uts.release, "vm", line_json(&md->vm),
		"system", "loadavg", md->has_loadavg ? json_pack("[f,f,f]", md->loadavg[0], md->loadavg[1],
								 md->loadavg[2]) : json_null(),
		"cpufreq_governor", line_json(&md->cpufreq_governor), "cpufreq_boost", line_json(&md->cpufreq_boost),
		"cmdline", line_json(&md->cmdline),
		"liburcu", urcu_json(md),
		"ck_version", string_or_null(md->ck_version));
}

/* ---- catalogue: straight from the descriptors ---------------------------- */

static json_t *arch_names_json(unsigned mask)
{
	json_t *a = json_array();

	for (unsigned i = 0; i < mmt_nr_arch_names; i++)
		if (mask & mmt_arch_names[i].bit)
			json_array_append_new(a, json_string(mmt_arch_names[i].name));
	return a;
}

static json_t *variant_json(const struct mmt_variant *var)
{
	return json_pack("{s:s,s:s,s:s,s:o,s:b,s:o,s:s,s:o,s:o,s:o}", "name", var->name, "help", var->help,
			 "expectation", mmt_variant_expectation(var), "forbidden_on", arch_names_json(var->forbidden_on),
			 "injected", var->injected, "threads", var->threads ? json_integer(var->threads) : json_null(),
			 "family", mmt_family_name(var->family), "compares", string_or_null(var->compares),
			 "hunts", string_or_null(var->hunts), "not_built", string_or_null(mmt_family_not_built(var->family)));
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

static json_t *options_json(const struct mmt_scenario *sc)
{
	json_t *a = json_array();

	for (unsigned k = 0; k < sc->nr_options; k++) {
		const struct mmt_option *o = &sc->options[k];

		json_array_append_new(a, json_pack("{s:s,s:s,s:o,s:o,s:o,s:o}", "name", o->name, "help", o->help,
						   "default", u64_json(o->def), "min", u64_json(o->min),
						   "max", u64_json(o->max), "value_names", string_list(o->names)));
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

static json_t *needs_json(const struct mmt_needs *n)
{
	return json_pack("{s:o,s:b,s:o,s:o}", "root", string_or_null(n->root), "root_optional", n->root_optional,
			 "sysctls", string_list(n->sysctls), "kernel_config", string_list(n->kernel_config));
}

static json_t *scenario_json(const struct mmt_scenario *sc, const unsigned *only, unsigned nr)
{
	return json_pack("{s:s,s:s,s:{s:i,s:i,s:o,s:b},s:s,s:s,s:o,s:o,s:o,s:o,s:o}", "name", sc->name,
			 "help", sc->help, "threads", "min", sc->min_threads, "default", sc->default_threads,
			 "max", sc->max_threads ? json_integer(sc->max_threads) : json_null(),
			 "fit_placement", sc->default_threads_fit,
			 "default_placement", sc->default_placement ? sc->default_placement : "same-node",
			 "ops_unit", sc->ops_unit, "outcomes", outcomes_json(sc), "variants",
			 variants_json(sc, only, nr), "options", options_json(sc), "metrics",
			 metrics_json(sc->metrics, sc->nr_metrics), "needs", needs_json(&sc->needs));
}

static json_t *catalogue_json(json_t *list)
{
	return json_pack("{s:s,s:o,s:o}", "arch", mmt_arch_name(mmt_this_arch()),
			 "record_metrics", metrics_json(mmt_record_metrics, mmt_nr_record_metrics),
			 "scenarios", list);
}

json_t *mmt_catalogue_json(const struct mmt_scenario *const *scenarios, unsigned n)
{
	json_t *list = json_array();

	for (unsigned s = 0; s < n; s++)
		json_array_append_new(list, scenario_json(scenarios[s], NULL, 0));
	return catalogue_json(list);
}

json_t *mmt_catalogue_selected_json(const struct mmt_scenario *const *scenarios, unsigned n,
				    const unsigned (*variants)[MMT_MAX_VARIANTS], const unsigned *nr_variants)
{
	json_t *list = json_array();

	for (unsigned s = 0; s < n; s++)
		json_array_append_new(list, scenario_json(scenarios[s], variants[s], nr_variants[s]));
	return catalogue_json(list);
}

/* ---- the sysctl journal ------------------------------------------------- */

json_t *mmt_sysctl_journal_render(const struct mmt_sysctl_journal *j)
{
	json_t *repairs = json_array();

	for (unsigned i = 0; i < j->nr_repairs; i++) {
		const struct mmt_sysctl_repair_note *r = &j->repairs[i];

		json_array_append_new(repairs, json_pack("{s:I,s:s,s:s,s:b,s:o}", "left_by_pid",
							 (json_int_t)r->left_by_pid, "path", r->path, "value",
							 r->value, "restored", r->restored, "error",
							 r->restored ? json_null() : json_string(r->error)));
	}
	return json_pack("{s:s,s:s,s:o,s:o}", "state_dir", j->state_dir, "status", j->status, "reason",
			 string_or_null(j->reason), "repairs", repairs);
}

json_t *mmt_sysctl_journal_json(void)
{
	struct mmt_sysctl_journal j;

	mmt_sysctl_journal_get(&j);
	return mmt_sysctl_journal_render(&j);
}

/* ---- the document ------------------------------------------------------- */

static json_t *summary_json(const struct mmt_summary *s)
{
	return json_pack("{s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:i}", "runs", s->runs, "ok", s->ok, "skipped",
			 s->skipped, "errors", s->errors, "inconclusive", s->inconclusive, "invalid", s->invalid,
			 "forbidden_witnessed", s->forbidden_witnessed, "injected_missed", s->injected_missed,
			 "exit_code", s->exit_code);
}

json_t *mmt_document_json(const struct mmt_document *d)
{
	json_t *metadata = mmt_metadata_json(d->metadata), *runs = json_array();

	if (d->label)
		json_object_set_new(metadata, "label", json_string(d->label));
	json_object_set_new(metadata, "sysctl_journal", mmt_sysctl_journal_render(d->journal));
	for (size_t i = 0; i < d->nr_runs; i++)
		json_array_append(runs, d->runs[i]);
	return json_pack("{s:i,s:o,s:b,s:o,s:o,s:o}", "schema_version", MMT_SCHEMA_VERSION, "metadata", metadata,
			 "interrupted", d->interrupted, "catalogue",
			 mmt_catalogue_selected_json(d->scenarios, d->nr_scenarios, d->variants, d->nr_variants),
			 "summary", summary_json(&d->summary), "runs", runs);
}

json_t *mmt_table_row_json(const json_t *record, bool counters)
{
	json_t *slim = json_deep_copy(record), *probe;

	json_object_del(slim, "workers");
	json_object_del(slim, "options");
	if (!counters)
		json_object_set_new(slim, "counters", json_null());
	probe = json_object_get(slim, "probe");
	if (json_is_object(probe))
		for (const char *const *side = (const char *const[]){ "before", "after", NULL }; *side; side++) {
			json_t *a = json_object_get(probe, *side);

			while (json_array_size(a) > 1)
				json_array_remove(a, json_array_size(a) - 1);
		}
	return slim;
}

json_t *mmt_frame_json(const json_t *doc)
{
	json_t *frame = json_copy((json_t *)doc);

	json_object_set_new(frame, "runs", json_array());
	return frame;
}

char *mmt_key_text(const char *key)
{
	json_t *k = json_string(key);
	char *text = json_dumps(k, JSON_ENCODE_ANY | JSON_ENSURE_ASCII);

	json_decref(k);
	return text;
}
