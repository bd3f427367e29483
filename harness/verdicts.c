/* SPDX-License-Identifier: MIT */
#include "verdicts.h"
#include "verdicts-text.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* The parsed table; NULL (every lookup finds nothing) if it does not parse. */
static json_t *table(void)
{
	static json_t *doc;
	static bool loaded;

	if (!loaded) {
		json_error_t e;

		loaded = true;
		doc = json_loads(mmt_verdicts_text, 0, &e);
		if (!doc)	/* tests/verdicts.sh loads the same file: never here */
			fprintf(stderr, "mmtorture: internal error, results/verdicts.json line %d: %s\n",
				e.line, e.text);
	}
	return doc;
}

const json_t *mmt_verdict_table(void)
{
	return table();
}

const char *mmt_run_verdict(const json_t *run)
{
	const char *status = json_string_value(json_object_get(run, "status"));
	const json_t *w = json_object_get(json_object_get(run, "witnesses"), "count");
	/* a count is an integer or, past 2^53, a decimal string: never "0" then */
	int seen = json_is_integer(w) ? json_integer_value(w) != 0 : json_is_string(w);

	if (status && !strcmp(status, "ok") && json_is_true(json_object_get(run, "injected")))
		return seen ? "caught" : "missed";
	return status;
}

const char *mmt_verdict_field(const char *kind, const char *verdict, const char *field)
{
	size_t i;
	const json_t *row;
	static char number[24];

	if (!verdict)
		return NULL;
	json_array_foreach(json_object_get(table(), kind), i, row) {
		const json_t *v = json_object_get(row, field);

		if (strcmp(json_string_value(json_object_get(row, "verdict")), verdict))
			continue;
		if (json_is_integer(v)) {
			snprintf(number, sizeof(number), "%lld", (long long)json_integer_value(v));
			return number;
		}
		return json_string_value(v);
	}
	return NULL;
}
