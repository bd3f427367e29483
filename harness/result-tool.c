/* SPDX-License-Identifier: MIT */
/*
 * mmtorture-result FILE [--runs | --cases | --get PATH]: checks a results file against
 * the schema.  Exit 0 valid; 2 bad input: usage, or a file that is not a
 * valid results document (one line naming the file and the field); 1 only
 * for --get of a value the (valid) file does not have.  For scripts without
 * a JSON tool:
 *   --runs      one line per run, fields separated by spaces:
 *               scenario variant placement status witnesses iterations
 *               ops_per_sec probe_one_way_ns stable repeat
 *               ("moved" instead of stable: the probes differ by more than
 *               1.5x or the in-run placement samples saw a move)
 *               (-1 or - where a run has no such number)
 *   --cases     one line per run for test-case reporters (lava/run-suite):
 *               scenario variant placement repeat status injected
 *               witnesses ops_per_sec ops_unit verdict lava
 *               (injected 1 or 0; -1 where a run has no such number;
 *               verdict and its LAVA result from results/verdicts.json)
 *   --get PATH  one value, PATH like runs.0.witnesses.count; strings bare,
 *               anything else as JSON
 */
#include "results.h"
#include "verdicts.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --get PATH: one value (a string bare, anything else as compact JSON);
 * 1 when the path is not in the document. */
static int print_path(const json_t *doc, const char *file, const char *dotted)
{
	char path[512], *tok, *save = NULL;
	const json_t *v = doc;

	snprintf(path, sizeof(path), "%s", dotted);
	for (tok = strtok_r(path, ".", &save); tok && v; tok = strtok_r(NULL, ".", &save)) {
		char *end;
		unsigned long k = strtoul(tok, &end, 10);

		/* "runs.x" is not runs.0 */
		v = json_is_array(v) ? (*tok >= '0' && *tok <= '9' && !*end ? json_array_get(v, k) : NULL)
				     : json_object_get(v, tok);
	}
	if (!v) {
		fprintf(stderr, "mmtorture-result: no %s in %s\n", dotted, file);
		return 1;
	}
	if (json_is_string(v)) {
		puts(json_string_value(v));
	} else {
		char *text = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);

		puts(text);
		free(text);
	}
	return 0;
}

/* --cases: one line per run for lava/run-suite, with its verdict and LAVA
 * result from results/verdicts.json. */
static void print_cases(const json_t *doc)
{
	const json_t *run;
	size_t i;

	json_array_foreach(json_object_get(doc, "runs"), i, run) {
		const json_t *w = json_object_get(json_object_get(run, "witnesses"), "count");
		const json_t *rate = json_object_get(run, "ops_per_sec");
		char count[24] = "-1";
		const char *verdict = mmt_run_verdict(run);
		const char *lava = mmt_verdict_field("run", verdict, "lava");

		if (json_is_integer(w))
			snprintf(count, sizeof(count), "%lld", (long long)json_integer_value(w));
		/* a count is an integer or, exact past 2^53, a decimal string */
		printf("%s %s %s %lld %s %d %s %.6g %s %s %s\n", json_string_value(json_object_get(run, "scenario")),
		       json_string_value(json_object_get(run, "variant")),
		       json_string_value(json_object_get(run, "placement")),
		       (long long)json_integer_value(json_object_get(run, "repeat")),
		       json_string_value(json_object_get(run, "status")), json_is_true(json_object_get(run, "injected")),
		       json_is_string(w) ? json_string_value(w) : count,
		       json_is_number(rate) ? json_number_value(rate) : -1.0,
		       json_string_value(json_object_get(run, "ops_unit")), verdict,
		       lava ? lava : "fail");	/* a status the table lacks: never a pass */
	}
}

/* --runs: one line per run for the shell tests. */
static void print_runs(const json_t *doc)
{
	const json_t *run;
	size_t i;

	json_array_foreach(json_object_get(doc, "runs"), i, run) {
		const json_t *w = json_object_get(json_object_get(run, "witnesses"), "count");
		const json_t *it = json_object_get(run, "iterations");
		const json_t *rate = json_object_get(run, "ops_per_sec");
		const json_t *probe = json_object_get(run, "probe");
		const json_t *pb = json_array_get(json_object_get(probe, "before"), 0);
		bool moved = !json_is_true(json_object_get(probe, "stable")) ||
			     json_is_true(json_object_get(json_object_get(run, "placement_track"), "moved"));

		printf("%s %s %s %s %lld %lld %.6g %.1f %s %lld\n", json_string_value(json_object_get(run, "scenario")),
		       json_string_value(json_object_get(run, "variant")),
		       json_string_value(json_object_get(run, "placement")),
		       json_string_value(json_object_get(run, "status")), w ? (long long)json_integer_value(w) : -1LL,
		       json_is_integer(it) ? (long long)json_integer_value(it) : -1LL,
		       json_is_number(rate) ? json_number_value(rate) : -1.0,
		       pb ? json_number_value(json_object_get(pb, "one_way_ns")) : -1.0,
		       json_is_object(probe) ? (moved ? "moved" : "stable") : "-",
		       (long long)json_integer_value(json_object_get(run, "repeat")));
	}
}

int main(int argc, char **argv)
{
	char err[1024] = "";
	json_t *doc;
	int rc = 0;

	if (argc < 2 || argc > 4 || (argc == 3 && strcmp(argv[2], "--runs") && strcmp(argv[2], "--cases")) ||
	    (argc == 4 && strcmp(argv[2], "--get"))) {
		fprintf(stderr, "usage: mmtorture-result FILE [--runs | --cases | --get PATH]\n");
		return 2;
	}
	doc = mmt_results_load(argv[1], err, sizeof(err));
	if (!doc) {
		fprintf(stderr, "mmtorture-result: %s\n", err);
		return 2;
	}
	if (argc == 4)
		rc = print_path(doc, argv[1], argv[3]);
	else if (argc == 3 && !strcmp(argv[2], "--cases"))
		print_cases(doc);
	else if (argc == 3)
		print_runs(doc);
	json_decref(doc);
	return rc;
}
