/* SPDX-License-Identifier: MIT */
/*
 * validate-result FILE [--runs]: checks a results file against the schema
 * (exit 0 valid, 1 not, 2 usage); with --runs prints one line per run:
 *   scenario variant placement status witnesses iterations
 * so shell tests can assert on behaviour without a JSON tool.
 */
#include "results.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	char err[1024] = "";
	const json_t *run;
	json_t *doc;
	size_t i;

	if (argc < 2 || argc > 3 || (argc == 3 && strcmp(argv[2], "--runs"))) {
		fprintf(stderr, "usage: validate-result FILE [--runs]\n");
		return 2;
	}
	doc = mmt_results_load(argv[1], err, sizeof(err));
	if (!doc) {
		fprintf(stderr, "validate-result: %s\n", err);
		return 1;
	}
	if (argc == 3) {
		json_array_foreach(json_object_get(doc, "runs"), i, run) {
			const json_t *w = json_object_get(json_object_get(run, "witnesses"), "count");
			const json_t *it = json_object_get(run, "iterations");

			printf("%s %s %s %s %lld %lld\n", json_string_value(json_object_get(run, "scenario")),
			       json_string_value(json_object_get(run, "variant")),
			       json_string_value(json_object_get(run, "placement")),
			       json_string_value(json_object_get(run, "status")),
			       w ? (long long)json_integer_value(w) : -1LL,
			       json_is_integer(it) ? (long long)json_integer_value(it) : -1LL);
		}
	}
	json_decref(doc);
	return 0;
}
