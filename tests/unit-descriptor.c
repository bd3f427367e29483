/* SPDX-License-Identifier: MIT */
/*
 * The descriptors' declarations and their checks: every shipped variant
 * names its family, every ratio-table row holds one variant per family,
 * every metric is declared once; a metric verify() did not declare, or of
 * another kind, is refused by name, whether put (values.h) or rendered;
 * shaped metrics render as their rows say (a list of one row is a list,
 * a map is keyed by its rows' first field); a kernel config that says an option
 * is off skips, one that cannot be read does not; a scenario may set only
 * the sysctls it declares; mmrace's table detail says in words what its
 * run found; every cleanup() copes with a prepare() that allocated nothing.
 */
#include "descriptor.h"
#include "metrics.h"
#include "record.h"
#include "scenario.h"
#include "sysctl.h"
#include "report.h"
#include "tap.h"

#include <stdlib.h>
#include <unistd.h>

static void shipped_declarations(void)
{
	for (unsigned s = 0; s < mmt_scenario_count(); s++) {
		const struct mmt_scenario *sc = mmt_scenario_at(s);
		unsigned undeclared = 0, clashes = 0, dup_metrics = 0;

		for (unsigned v = 0; v < sc->nr_variants; v++) {
			const struct mmt_variant *a = &sc->variants[v];

			undeclared += a->family == MMT_FAMILY_UNDECLARED ||
				      (a->injected != (a->family == MMT_FAMILY_INJECTED));
			for (unsigned w = v + 1; a->compares && w < sc->nr_variants; w++) {
				const struct mmt_variant *b = &sc->variants[w];

				clashes += b->compares && !strcmp(a->compares, b->compares) && a->family == b->family;
			}
		}
		for (unsigned i = 0; i < sc->nr_metrics; i++)
			for (unsigned j = i + 1; j < sc->nr_metrics; j++)
				dup_metrics += !strcmp(sc->metrics[i].name, sc->metrics[j].name);
		tap_ok(!undeclared, "%s: every variant declares its family (injected ones INJECTED): %u do not",
		       sc->name, undeclared);
		tap_ok(!clashes, "%s: a ratio-table row has at most one variant per family (%u clashes)", sc->name,
		       clashes);
		tap_ok(sc->nr_metrics > 0 && !dup_metrics, "%s: %u metrics declared, none twice", sc->name,
		       sc->nr_metrics);
	}
}

/* A prepare() whose first allocation failed leaves run->priv NULL, and
 * the runner calls cleanup() after it all the same (scenario.h). */
static void cleanup_without_priv(void)
{
	for (unsigned s = 0; s < mmt_scenario_count(); s++) {
		const struct mmt_scenario *sc = mmt_scenario_at(s);
		struct mmt_run run = { .sc = sc, .variant = &sc->variants[0] };

		if (sc->cleanup)
			sc->cleanup(&run);
		tap_ok(!run.priv, "%s: cleanup() after a prepare() that allocated nothing returns", sc->name);
	}
}

static const struct mmt_metric fake_metrics[] = {
	{ "count", MMT_METRIC_COUNT, "items", MMT_BETTER_NEUTRAL, false, "a count", NULL },
	{ "rate", MMT_METRIC_REAL, "/s", MMT_BETTER_HIGHER, false, "a rate", NULL },
	{ "lat", MMT_METRIC_LATENCY, "ns", MMT_BETTER_LOWER, true, "a latency", NULL },
};
static const char *const fake_config[] = { "CONFIG_MMT_FAKE", NULL };
static const char *const fake_sysctls[] = { "/proc/sys/kernel/numa_balancing", NULL };
static const struct mmt_scenario fake = {
	.name = "fake", .metrics = fake_metrics, .nr_metrics = 3,
	.needs = { .kernel_config = fake_config, .sysctls = fake_sysctls },
};

static void check(const char *json, bool want_ok, const char *want_in, const char *what)
{
	json_t *m = json_loads(json, 0, NULL);
	char err[256] = "";
	int rc = mmt_metrics_check(&fake, m, err, sizeof(err));

	tap_ok((rc == 0) == want_ok && (!want_in || strstr(err, want_in)), "%s%s%s", what, err[0] ? ": " : "", err);
	json_decref(m);
}

static void metric_checks(void)
{
	check("{\"count\": 3, \"rate\": 1.5, \"lat\": {\"median\": 10.0, \"p99\": 20}}", true, NULL,
	      "declared metrics of their kinds pass");
	check("{\"count\": 3, \"rate\": 2, \"lat\": null}", true, NULL, "an integer is a real; a nullable one may be null");
	check("{\"count\": 3, \"extra\": 1}", false, "\"extra\" is not declared", "an undeclared metric is refused by name");
	check("{\"count\": 3.5}", false, "\"count\" is declared count", "a real where a count is declared is refused");
	check("{\"rate\": null}", false, "\"rate\"", "null where the metric is not nullable is refused");
	check("{\"lat\": {\"median\": 1}}", false, "\"lat\"", "a latency without its p99 is refused");
}

struct fake_row {
	const char *name;
	uint64_t n;
	double x;
	const char *why_off;
};
static const struct mmt_field fake_row_fields[] = {
	MMT_FIELD(struct fake_row, name, MMT_F_TEXT),
	MMT_FIELD(struct fake_row, n, MMT_F_COUNT),
	MMT_FIELD(struct fake_row, x, MMT_F_REAL),
	MMT_FIELD_AS("on", struct fake_row, why_off, MMT_F_SWITCH),
};
static const struct mmt_shape fake_row_shape = MMT_SHAPE(struct fake_row, fake_row_fields);
static const struct mmt_field fake_switch_fields[] = {
	MMT_FIELD(struct fake_row, name, MMT_F_TEXT),
	MMT_FIELD_AS("on", struct fake_row, why_off, MMT_F_SWITCH),
};
static const struct mmt_shape fake_switch_shape = MMT_SHAPE(struct fake_row, fake_switch_fields);
static const struct mmt_metric shaped_metrics[] = {
	{ "count", MMT_METRIC_COUNT, "items", MMT_BETTER_NEUTRAL, true, "a count", NULL },
	{ "rows", MMT_METRIC_LIST, "", MMT_BETTER_NEUTRAL, false, "rows", &fake_row_shape },
	{ "one", MMT_METRIC_OBJECT, "", MMT_BETTER_NEUTRAL, true, "one row", &fake_row_shape },
	{ "actors", MMT_METRIC_OBJECT, "", MMT_BETTER_NEUTRAL, false, "keyed", &fake_switch_shape },
	{ "text", MMT_METRIC_TEXT, "", MMT_BETTER_NEUTRAL, false, "a text", NULL },
};
static const struct mmt_scenario shaped = { .name = "shaped", MMT_TABLE(metrics, shaped_metrics) };

/* A run's values as verify() would leave them, rendered. */
static char *put_and_render(void (*puts)(struct mmt_run *), char *err, size_t len)
{
	struct mmt_value values[ARRAY_SIZE(shaped_metrics)] = { 0 };
	struct mmt_run run = { .sc = &shaped, .values = values };
	json_t *m;
	char *text;

	puts(&run);
	snprintf(err, len, "%s", run.values_error);
	m = mmt_metrics_json(&shaped, values);
	text = json_dumps(m, JSON_COMPACT);
	json_decref(m);
	for (unsigned i = 0; i < ARRAY_SIZE(shaped_metrics); i++)
		if (shaped_metrics[i].kind == MMT_METRIC_TEXT && values[i].state == MMT_VALUE_SET)
			free((void *)values[i].v.text);
	return text;
}

static const struct fake_row fake_rows[] = { { "a", 1, 0.5, NULL }, { "b", MMT_NONE, NAN, "not root" } };

static void puts_good(struct mmt_run *run)
{
	char stack_text[16] = "from the stack";

	mmt_put_text(run, "text", stack_text);
	memset(stack_text, 'x', sizeof(stack_text) - 1);
	mmt_put_count(run, "count", MMT_NONE);
	mmt_put_list(run, "rows", fake_rows, 1);
	mmt_put_object(run, "one", &fake_rows[1]);
	mmt_put_map(run, "actors", fake_rows, 2);
}

static void puts_undeclared(struct mmt_run *run)
{
	mmt_put_count(run, "count", 1);
	mmt_put_count(run, "extra", 1);
}

static void puts_mistyped(struct mmt_run *run)
{
	mmt_put_real(run, "count", 1.5);
}

static void puts_null(struct mmt_run *run)
{
	mmt_put_text(run, "text", NULL);
}

static void value_checks(void)
{
	char err[256];
	char *text = put_and_render(puts_good, err, sizeof(err));

	tap_ok(!err[0] && text && !strcmp(text, "{\"text\":\"from the stack\",\"count\":null,"
		"\"rows\":[{\"name\":\"a\",\"n\":1,\"x\":0.5,\"on\":\"on\"}],"
		"\"one\":{\"name\":\"b\",\"n\":null,\"x\":null,\"on\":{\"skipped\":\"not root\"}},"
		"\"actors\":{\"a\":\"on\",\"b\":{\"skipped\":\"not root\"}}}"),
	       "typed puts render in the order put: a text copied, nulls, a list of one row, an object, a keyed map (%s)",
	       text ? text : "nothing");
	free(text);
	free(put_and_render(puts_undeclared, err, sizeof(err)));
	tap_ok(strstr(err, "\"extra\" is not declared") != NULL, "a put of an undeclared metric is refused by name: %s",
	       err);
	free(put_and_render(puts_mistyped, err, sizeof(err)));
	tap_ok(strstr(err, "\"count\" is declared count but was put as a real number") != NULL,
	       "a put of another kind is refused: %s", err);
	free(put_and_render(puts_null, err, sizeof(err)));
	tap_ok(strstr(err, "\"text\" is not declared nullable") != NULL, "a null put where none is allowed is refused: %s",
	       err);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	fputs(text, f);
	fclose(f);
}

static void needs_checks(const char *top)
{
	char path[256], why[256] = "";

	snprintf(path, sizeof(path), "%s/config", top);
	setenv("MMT_KERNEL_CONFIG", path, 1);
	write_file(path, "CONFIG_MMT_FAKE=y\n");
	tap_ok(mmt_needs_unmet(&fake, why, sizeof(why)) == 0, "a config that sets the option: runs");
	write_file(path, "# CONFIG_MMT_FAKE is not set\n");
	tap_ok(mmt_needs_unmet(&fake, why, sizeof(why)) == 1 && strstr(why, "CONFIG_MMT_FAKE") && strstr(why, path),
	       "a config that leaves it out: skipped, saying which option and which file (%s)", why);
	snprintf(path, sizeof(path), "%s/no-such-config", top);
	setenv("MMT_KERNEL_CONFIG", path, 1);
	tap_ok(mmt_needs_unmet(&fake, why, sizeof(why)) == 0, "no config to read: runs (unknown is no reason to skip)");
	unsetenv("MMT_KERNEL_CONFIG");
}

static void sysctl_checks(const char *top)
{
	char path[320], err[256] = "";

	snprintf(path, sizeof(path), "mkdir -p %s/proc/sys/kernel %s/proc/sys/vm %s/run", top, top, top);
	if (system(path))
		return;
	snprintf(path, sizeof(path), "%s/proc/sys/kernel/numa_balancing", top);
	write_file(path, "0\n");
	snprintf(path, sizeof(path), "%s/proc/sys/vm/swappiness", top);
	write_file(path, "60\n");
	setenv("MMT_SYSCTL_ROOT", top, 1);
	mmt_sysctl_scenario(fake.needs.sysctls, true);
	tap_ok(mmt_sysctl_set("/proc/sys/vm/swappiness", "1", err, sizeof(err)) == -1 &&
		       strstr(err, "not among the sysctls the scenario declares"),
	       "a running scenario may not set a sysctl it did not declare: %s", err);
	tap_ok(mmt_sysctl_set("/proc/sys/kernel/numa_balancing", "1", err, sizeof(err)) == 0,
	       "... and may set one it declared");
	mmt_sysctl_scenario(NULL, false);
	tap_ok(mmt_sysctl_set("/proc/sys/vm/swappiness", "1", err, sizeof(err)) == 0,
	       "outside a scenario's run (--mutant's switches) the list does not apply");
	mmt_sysctl_restore_all();
}

/* mmrace's detail in the table says in words whether pages moved inside
 * the protector's window and what that says of the fix, from the run's
 * status, before the numbers a narrow table cuts. */
static void mmrace_detail(void)
{
	static const struct {
		const char *variant, *status;
		bool injected, migrator;
		long long in_window, raced, lost;
		const char *want;
	} cases[] = {
		{ "race", "ok", false, true, 151, 76, 0, "in window: has fix; raced 76, in-window 151" },
		{ "race", "witnessed", false, true, 40, 12, 3, "lost: no fix; raced 12" },
		{ "race", "inconclusive", false, true, 0, 0, 0, "none in window; raced 0" },
		{ "race", "inconclusive", false, true, 9, 0, 0, "no store raced; raced 0, in-window 9" },
		{ "race", "inconclusive", false, false, 0, 0, 0, "no migrator; " },
		{ "race-thp", "ok", false, true, 5, 5, 0, "in window: has fix; " },
		{ "migrate-after-walk", "ok", false, true, 0, 0, 0, "none in window; raced 0" },
		{ "migrate-after-walk-thp", "ok", false, true, 0, 0, 0, "none in window; raced 0" },
		{ "migrate-after-walk-thp", "ok", false, true, 3, 0, 0, "3 in window; " },
		{ "broken-early-epoch", "ok", true, false, 0, 0, 0, "fault injected; " },
	};
	const struct mmt_scenario *sc = mmt_scenario_find("mmrace");
	char buf[160];

	for (size_t i = 0; sc && sc->describe && i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *run = json_pack("{s:s,s:s,s:b,s:{s:{s:I,s:I}},s:{s:I,s:I,s:o,s:f,s:I}}", "variant",
					cases[i].variant, "status", cases[i].status, "injected", cases[i].injected,
					"witnesses", "histogram", "lost_write", cases[i].lost, "foreign_write", 0LL,
					"metrics", "migrations_in_window", cases[i].in_window, "migrations_raced",
					cases[i].raced, "pages_moved", cases[i].migrator ? json_integer(400) : json_null(),
					"walk_mean_us", 120.0, "window_writes", 1000LL);

		sc->describe(run, buf, sizeof(buf));
		tap_ok(!strncmp(buf, cases[i].want, strlen(cases[i].want)) && strcspn(buf, ";") <= 18,
		       "mmrace %s %s: \"%s\" (words of at most 18 characters)", cases[i].variant,
		       cases[i].status, buf);
		json_decref(run);
	}
	tap_ok(sc && sc->describe, "mmrace describes its runs");
}

/* The default table keeps to 120 columns whatever widens a column: a
 * preempted probe's millions of ns (1625445->1156625 under stress-ng made
 * mmrace's rows 127 wide), a slow run's ns/op, a long verdict. */
static void table_width(void)
{
	json_t *doc = json_pack("{s:[{s:s,s:s,s:s,s:s,s:[i,i],s:i,s:f,s:f,s:{s:[{s:f}],s:[{s:f}],s:b},"
				"s:{s:i},s:s,s:b,s:{s:I,s:I,s:o,s:f,s:I}}],s:{s:i}}",
		"runs", "scenario", "mmrace", "variant", "migrate-after-walk", "placement", "spread", "status", "ok",
		"cpus", 0, 1, "repeat", 0, "ops_per_sec", 26.6e6, "ns_per_op", 83903162.0, "probe", "before",
		"one_way_ns", 1625445.0, "after", "one_way_ns", 1156625.0, "stable", 0, "witnesses", "count", 0,
		"verdict", "ok", "injected", 0, "metrics", "migrations_in_window", (json_int_t)0,
		"migrations_raced", (json_int_t)0, "pages_moved", json_integer(400), "walk_mean_us", 120.0,
		"window_writes", (json_int_t)1000, "summary", "runs", 1);
	char *text = NULL, *line;
	size_t len = 0, longest = 0;
	FILE *f = open_memstream(&text, &len);
	bool short_probe;

	mmt_report_table(f, doc, NULL);
	fclose(f);
	short_probe = text && strstr(text, " 1.63M->1.16M! ");
	for (line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
		longest = strlen(line) > longest ? strlen(line) : longest;
	tap_ok(longest <= 120 && short_probe,
	       "the table keeps to 120 columns with a probe of 1.6 ms and 84 ms an op (longest %zu)", longest);
	free(text);
	json_decref(doc);
}

int main(void)
{
	char top[64], cmd[128];

	snprintf(top, sizeof(top), "/tmp/mmt-unit-descriptor.XXXXXX");
	if (!mkdtemp(top))
		return 1;
	shipped_declarations();
	cleanup_without_priv();
	metric_checks();
	value_checks();
	needs_checks(top);
	sysctl_checks(top);
	mmrace_detail();
	table_width();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", top);
	if (system(cmd))
		tap_ok(0, "cleaning %s", top);
	return tap_done();
}
