/* SPDX-License-Identifier: MIT */
/*
 * The descriptor's declarations, checked (descriptor.h).
 */
#include "descriptor.h"
#include "kstate.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

const struct mmt_metric mmt_record_metrics[] = {
	{ "ops_per_sec", MMT_METRIC_REAL, "ops/s", MMT_BETTER_HIGHER, false,
	  "operations (the scenario's ops unit) per second of the run", NULL },
	{ "ns_per_op", MMT_METRIC_REAL, "ns", MMT_BETTER_LOWER, false,
	  "wall-clock nanoseconds per operation: the run's elapsed time over its operations", NULL },
};
const unsigned mmt_nr_record_metrics = sizeof(mmt_record_metrics) / sizeof(mmt_record_metrics[0]);

static const char *const family_names[MMT_NR_FAMILIES] = {
	[MMT_FAMILY_UNDECLARED] = "undeclared", [MMT_FAMILY_HAND_ROLLED] = "hand-rolled",
	[MMT_FAMILY_LIBURCU] = "liburcu", [MMT_FAMILY_CK] = "ck", [MMT_FAMILY_C11] = "C11",
	[MMT_FAMILY_LOCK] = "lock",
	[MMT_FAMILY_UNORDERED] = "unordered", [MMT_FAMILY_INJECTED] = "injected",
	[MMT_FAMILY_KERNEL] = "kernel",
};

/* Families on a library configure may leave out (configure.ac's
 * --with-ck): the reason a build without it gives for their variants. */
static const char *const family_missing[MMT_NR_FAMILIES] = {
	[MMT_FAMILY_CK] = "built without concurrencykit (libck-dev)",
};

static const char *const kind_names[MMT_NR_METRIC_KINDS] = {
	[MMT_METRIC_COUNT] = "count", [MMT_METRIC_REAL] = "real", [MMT_METRIC_TEXT] = "text",
	[MMT_METRIC_LATENCY] = "latency", [MMT_METRIC_OBJECT] = "object", [MMT_METRIC_LIST] = "list",
};

const char *mmt_family_name(enum mmt_family f)
{
	return (unsigned)f < MMT_NR_FAMILIES ? family_names[f] : "undeclared";
}

/* Here, not in registry.c: the ruler (bench/msgpass-bare) asks it without
 * the registry's linker section. */
unsigned mmt_this_arch(void)
{
#if defined(__x86_64__)
	return MMT_ARCH_X86_64;
#elif defined(__aarch64__)
	return MMT_ARCH_AARCH64;
#else
	return MMT_ARCH_GENERIC;
#endif
}

const char *mmt_family_not_built(enum mmt_family f)
{
	return (unsigned)f < MMT_NR_FAMILIES && !MMT_FAMILY_BUILT(f) ? family_missing[f] : NULL;
}

const char *mmt_metric_kind_name(enum mmt_metric_kind k)
{
	return (unsigned)k < MMT_NR_METRIC_KINDS ? kind_names[k] : "?";
}

const char *mmt_better_name(enum mmt_better b)
{
	return b == MMT_BETTER_HIGHER ? "higher" : b == MMT_BETTER_LOWER ? "lower" : "neutral";
}

const struct mmt_metric *mmt_metric_find(const struct mmt_scenario *sc, const char *name)
{
	for (unsigned i = 0; i < sc->nr_metrics; i++)
		if (!strcmp(sc->metrics[i].name, name))
			return &sc->metrics[i];
	return NULL;
}

/* A latency's fields, as the scenarios' latency summaries write them. */
static bool latency_ok(const json_t *v)
{
	return json_is_number(json_object_get(v, "median")) && json_is_number(json_object_get(v, "p99"));
}

static bool kind_ok(enum mmt_metric_kind k, const json_t *v)
{
	switch (k) {
	case MMT_METRIC_COUNT: return json_is_integer(v);
	case MMT_METRIC_REAL: return json_is_number(v);
	case MMT_METRIC_TEXT: return json_is_string(v);
	case MMT_METRIC_LATENCY: return json_is_object(v) && latency_ok(v);
	case MMT_METRIC_OBJECT: return json_is_object(v);
	case MMT_METRIC_LIST: return json_is_array(v);
	case MMT_NR_METRIC_KINDS: break;
	}
	return false;
}

int mmt_metrics_check(const struct mmt_scenario *sc, const json_t *metrics, char *err, size_t len)
{
	const char *key;
	json_t *v;

	if (!json_is_object(metrics)) {
		snprintf(err, len, "%s: metrics are not an object", sc->name);
		return -1;
	}
	json_object_foreach((json_t *)metrics, key, v) {
		const struct mmt_metric *m = mmt_metric_find(sc, key);

		if (!m) {
			snprintf(err, len, "%s: metric \"%s\" is not declared in its descriptor", sc->name, key);
			return -1;
		}
		if (json_is_null(v) ? !m->nullable : !kind_ok(m->kind, v)) {
			snprintf(err, len, "%s: metric \"%s\" is declared %s%s but is %s", sc->name, key,
				 mmt_metric_kind_name(m->kind), m->nullable ? " or null" : "",
				 json_is_null(v) ? "null" : json_is_object(v) ? "an object" : json_is_array(v) ? "a list"
				 : json_is_string(v) ? "a string" : json_is_real(v) ? "a real number" : "another type");
			return -1;
		}
	}
	return 0;
}

int mmt_needs_unmet(const struct mmt_scenario *sc, char *why, size_t len)
{
	const struct mmt_needs *n = &sc->needs;
	struct mmt_kconfig config;

	if (n->root && !n->root_optional && geteuid() != 0) {
		snprintf(why, len, "needs root: %s", n->root);
		return 1;
	}
	if (!n->kernel_config)
		return 0;
	mmt_kernel_config(n->kernel_config, &config);
	for (unsigned k = 0; config.found && k < config.n; k++) {
		const char *val = config.e[k].value;

		if (!strcmp(val, "not set") || !strcmp(val, "n")) {
			snprintf(why, len, "needs %s, which this kernel's config (%s) does not set", config.e[k].name,
				 mmt_kernel_config_path());
			return 1;
		}
	}
	return 0;
}
