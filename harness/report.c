/* SPDX-License-Identifier: MIT */
#include "report.h"
#include "probe.h"
#include "scenario.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

/* 1234567 -> "1.23M": rates span six orders of magnitude across placements. */
static void si(char *buf, size_t len, double v)
{
	static const char *const unit[] = { "", "k", "M", "G", "T" };
	int u = 0;

	while (fabs(v) >= 1000 && u < 4) {
		v /= 1000;
		u++;
	}
	snprintf(buf, len, u ? "%.3g%s" : "%.3g%s", v, unit[u]);
}

static void detail(char *buf, size_t len, const json_t *run)
{
	const struct mmt_scenario *sc =
		mmt_scenario_find(json_string_value(json_object_get(run, "scenario")));

	snprintf(buf, len, "-");
	if (sc && sc->describe && json_is_object(json_object_get(run, "metrics")))
		sc->describe(run, buf, len);
}

static void probe_ns(char *buf, size_t len, double ns)
{
	if (ns < 10000)
		snprintf(buf, len, "%.0f", ns);
	else
		si(buf, len, ns);
}

/* One-way probe of the first CPU pair, before->after the run. */
static void probe(char *buf, size_t len, const json_t *run)
{
	const json_t *p = json_object_get(run, "probe");
	const json_t *b = json_array_get(json_object_get(p, "before"), 0);
	const json_t *a = json_array_get(json_object_get(p, "after"), 0);
	const json_t *track = json_object_get(run, "placement_track");
	char before[12], after[12];

	if (!b || !a) {
		snprintf(buf, len, "-");
		return;
	}
	/* Nanoseconds whole up to 9999 (a line crosses sockets in well under
	 * a microsecond), shorter above: a preempted probe reads millions, and
	 * "1625445->1156625" pushed the detail past 120 columns. */
	probe_ns(before, sizeof(before), json_number_value(json_object_get(b, "one_way_ns")));
	probe_ns(after, sizeof(after), json_number_value(json_object_get(a, "one_way_ns")));
	/* '!' marks a run during which the CPUs' physical placement changed:
	 * the probes differ, or the samples taken during the run saw a move
	 * the probes missed. */
	snprintf(buf, len, "%s->%s%s", before, after,
		 json_is_true(json_object_get(p, "stable")) &&
				 !json_is_true(json_object_get(track, "moved")) ? "" : "!");
}


/* Under a memory-ordering clear count, the checker's witnesses per op:
 * what the CPU caught and undid next to what escaped. */
static void ordering_beside(FILE *f, const json_t *run, const json_t *ev)
{
	const json_t *w = json_object_get(json_object_get(run, "witnesses"), "count");
	const json_t *ops = json_object_get(run, "iterations");
	char val[32];

	if (!json_is_string(json_object_get(json_object_get(ev, "encoding"), "role")) || !json_is_integer(w))
		return;
	si(val, sizeof(val), (double)json_integer_value(w));
	if (json_is_integer(ops) && json_integer_value(ops) > 0)
		fprintf(f, "    %-46s %10s %11.4g/op  checker\n", "witnesses (escaped, beside the clears)", val,
			(double)json_integer_value(w) / (double)json_integer_value(ops));
	else
		fprintf(f, "    %-46s %10s  checker\n", "witnesses (escaped, beside the clears)", val);
}

static void cpus(char *buf, size_t len, const json_t *arr)
{
	size_t off = 0, i;
	const json_t *v;

	buf[0] = '\0';
	json_array_foreach(arr, i, v) {
		int n = snprintf(buf + off, len - off, "%s%lld", i ? "," : "",
				 (long long)json_integer_value(v));

		if (n < 0 || (size_t)n >= len - off) {
			snprintf(buf + (len > 4 ? len - 4 : 0), 4, "...");
			break;
		}
		off += (size_t)n;
	}
}

/* The table fits a 120-column terminal; --format wide adds the full
 * verdict and the whole detail column instead of cutting it. */
#define TABLE_COLUMNS 120
static bool wide;

void mmt_report_set_wide(bool on)
{
	wide = on;
}

/* Verdicts in a word, for the narrow table. */
static const char *short_verdict(const char *v)
{
	static const char *const map[][2] = {
		/* The one verdict that fails a run stays whole and loud. */
		{ "ok (forbidden, not seen)", "ok" }, { "FORBIDDEN AND SEEN", "FORBIDDEN AND SEEN" },
		{ "allowed, seen", "seen" }, { "allowed, not seen", "not-seen" },
		{ "caught (injected fault)", "caught" }, { "MISSED (injected fault not seen)", "MISSED" },
	};

	for (size_t i = 0; v && i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(v, map[i][0]))
			return map[i][1];
	/* Its reason is in the verdict of --format wide and in the results;
	 * the detail says in a few words what it means (mmrace). */
	if (v && !strncmp(v, "INVALID: ", 9))
		return "INVALID";
	if (v && !strncmp(v, "INCONCLUSIVE: ", 14))
		return "INCONCLUSIVE";
	return v ? v : "-";
}

/* One measured run's row; *cut when its detail had to be shortened.  The
 * detail gets what the other columns leave of TABLE_COLUMNS, measured as
 * printed: a long verdict, a preempted probe's millions or a slow run's
 * ns/op widen their columns. */
static void table_row(FILE *f, const json_t *run, int sw, int vw, bool *cut)
{
	const char *verdict = json_string_value(json_object_get(run, "verdict"));
	char rate[16], nsop[24], det[160], pr[32], cp[64], wit[16], head[320];
	const char *shown = wide ? (verdict ? verdict : "-") : short_verdict(verdict);
	int here;

	si(rate, sizeof(rate), json_number_value(json_object_get(run, "ops_per_sec")));
	snprintf(nsop, sizeof(nsop), "%.1f", json_number_value(json_object_get(run, "ns_per_op")));
	detail(det, sizeof(det), run);
	probe(pr, sizeof(pr), run);
	cpus(cp, sizeof(cp), json_object_get(run, "cpus"));
	si(wit, sizeof(wit), (double)json_integer_value(json_object_get(json_object_get(run, "witnesses"), "count")));
	here = TABLE_COLUMNS - snprintf(head, sizeof(head), "%-*s %-*s %-10s %-7s %3lld %7s %7s %9s %6s  %-*s ", sw,
		json_string_value(json_object_get(run, "scenario")), vw, json_string_value(json_object_get(run, "variant")),
		json_string_value(json_object_get(run, "placement")), cp,
		(long long)json_integer_value(json_object_get(run, "repeat")), rate, nsop, pr, wit, wide ? 32 : 9, shown);
	if (!wide && here > 1 && (int)strlen(det) > here) {
		det[here - 1] = '~';
		det[here] = '\0';
		*cut = true;
	}
	fprintf(f, "%s%s\n", head, det);
}

/* The runs, one row each (an error or hang with its reason); returns how
 * many were skipped, listed after the table. */
static int table_rows(FILE *f, const json_t *runs)
{
	const json_t *run;
	size_t i;
	int skipped = 0, vw = 16, sw = 8;
	bool cut = false;

	/* Litmus variants (TEST/PRIMITIVES) are long: size the columns. */
	json_array_foreach(runs, i, run) {
		int n = (int)json_string_length(json_object_get(run, "variant"));
		int m = (int)json_string_length(json_object_get(run, "scenario"));

		vw = n > vw ? n : vw;
		sw = m > sw ? m : sw;
	}
	fprintf(f, "%-*s %-*s %-10s %-7s %3s %7s %7s %9s %6s  %-*s %s\n", sw, "scenario", vw, "variant", "placement",
		"cpus", "rep", "ops/s", "ns/op", "probe ns", "witn.", wide ? 32 : 9, "verdict", "detail");
	json_array_foreach(runs, i, run) {
		const char *status = json_string_value(json_object_get(run, "status"));

		if (!strcmp(status, "skipped"))
			skipped++;
		else if (!strcmp(status, "error") || !strcmp(status, "hung"))
			fprintf(f, "%-*s %-*s %-10s %s: %s\n", sw, json_string_value(json_object_get(run, "scenario")),
				vw, json_string_value(json_object_get(run, "variant")),
				json_string_value(json_object_get(run, "placement")), status,
				json_string_value(json_object_get(run, "reason")));
		else
			table_row(f, run, sw, vw, &cut);
	}
	if (cut)
		fprintf(f, "(~: detail cut to fit %d columns; --format wide shows it whole)\n", TABLE_COLUMNS);
	return skipped;
}

/* The skipped runs with their reasons, and a note if the host moved CPUs. */
static void table_notes(FILE *f, const json_t *runs, int skipped)
{
	const json_t *run;
	size_t i;

	if (skipped) {
		fprintf(f, "\nskipped:\n");
		json_array_foreach(runs, i, run) {
			if (strcmp(json_string_value(json_object_get(run, "status")), "skipped"))
				continue;
			fprintf(f, "  %s %s %s: %s\n", json_string_value(json_object_get(run, "scenario")),
				json_string_value(json_object_get(run, "variant")),
				json_string_value(json_object_get(run, "placement")),
				json_string_value(json_object_get(run, "reason")));
		}
	}
	json_array_foreach(runs, i, run) {
		const json_t *p = json_object_get(run, "probe");

		/* Single-CPU runs have no pair to probe (drift null): nothing moved. */
		if (json_is_object(p) && json_is_number(json_object_get(p, "drift")) &&
		    !json_is_true(json_object_get(p, "stable"))) {
			fprintf(f, "\n! the CPUs' one-way latency changed by more than %.1fx during the run:\n"
				   "  the host moved them; compare such runs with care\n", MMT_PROBE_STABLE_RATIO);
			break;
		}
	}
}

void mmt_report_table(FILE *f, const json_t *doc, const char *result_path)
{
	const json_t *runs = json_object_get(doc, "runs");
	const json_t *sum = json_object_get(doc, "summary");

	table_notes(f, runs, table_rows(f, runs));
	fprintf(f, "\n%lld runs: %lld ok, %lld skipped, %lld inconclusive, %lld INVALID, %lld errors, "
		   "%lld FORBIDDEN witnessed, %lld injected faults missed%s\n",
		(long long)json_integer_value(json_object_get(sum, "runs")),
		(long long)json_integer_value(json_object_get(sum, "ok")),
		(long long)json_integer_value(json_object_get(sum, "skipped")),
		(long long)json_integer_value(json_object_get(sum, "inconclusive")),
		(long long)json_integer_value(json_object_get(sum, "invalid")),
		(long long)json_integer_value(json_object_get(sum, "errors")),
		(long long)json_integer_value(json_object_get(sum, "forbidden_witnessed")),
		(long long)json_integer_value(json_object_get(sum, "injected_missed")),
		json_is_true(json_object_get(doc, "interrupted")) ? " (INTERRUPTED)" : "");
	if (result_path)
		fprintf(f, "results: %s\n", result_path);
}

void mmt_report_counters(FILE *f, const json_t *doc)
{
	const json_t *run, *ev;
	size_t i, k;
	bool any = false;

	json_array_foreach(json_object_get(doc, "runs"), i, run)
		any |= json_is_object(json_object_get(run, "counters"));
	if (!any)
		return;
	fprintf(f, "\ncounters (total over workers; system-wide tracepoints: over all CPUs):\n");
	json_array_foreach(json_object_get(doc, "runs"), i, run) {
		const json_t *c = json_object_get(run, "counters");
		const json_t *ipc;

		if (!json_is_object(c))
			continue;
		fprintf(f, "  %s %s %s rep %lld:\n", json_string_value(json_object_get(run, "scenario")),
			json_string_value(json_object_get(run, "variant")),
			json_string_value(json_object_get(run, "placement")),
			(long long)json_integer_value(json_object_get(run, "repeat")));
		json_array_foreach(json_object_get(c, "events"), k, ev) {
			const char *status = json_string_value(json_object_get(ev, "status"));
			const json_t *per_op = json_object_get(ev, "per_op");
			double scaling = json_number_value(json_object_get(ev, "scaling"));
			char val[32], op[32] = "";

			if (strcmp(status, "ok")) {
				fprintf(f, "    %-46s %s: %s\n", json_string_value(json_object_get(ev, "name")),
					status, json_string_value(json_object_get(ev, "reason")));
				ordering_beside(f, run, ev);
				continue;
			}
			si(val, sizeof(val), json_number_value(json_object_get(ev, "value")));
			if (json_is_number(per_op))
				snprintf(op, sizeof(op), "%.4g/op", json_number_value(per_op));
			fprintf(f, "    %-46s %10s %14s  %s\n", json_string_value(json_object_get(ev, "name")),
				val, op, json_string_value(json_object_get(ev, "scope")));
			if (scaling < 0.999)
				fprintf(f, "    %-46s multiplexed: counted %.1f%% of the time, value scaled\n", "",
					100 * scaling);
			ordering_beside(f, run, ev);
		}
		ipc = json_object_get(json_object_get(c, "derived"), "ipc");
		if (json_is_number(ipc))
			fprintf(f, "    %-46s %10.2f\n", "IPC", json_number_value(ipc));
	}
}
