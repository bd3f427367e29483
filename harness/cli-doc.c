/* SPDX-License-Identifier: MIT */
/*
 * cli-doc options|exit-codes|verdicts: the README's tables, printed from
 * the rows the binary parses with and the verdict table it embeds (make
 * readme writes them in; tests/cli-doc.sh fails when the README has
 * drifted from them).
 */
#include "cli-options.h"
#include "verdicts.h"

#include <stdio.h>
#include <string.h>

/* One Markdown row per verdict: what it means and what each consumer makes of it. */
static void verdicts_markdown(void)
{
	static const char *const kinds[] = { "run", "comparison" };

	puts("| verdict | meaning | exit | JUnit | LAVA | KCIDB |\n| --- | --- | --- | --- | --- | --- |");
	for (unsigned k = 0; k < 2; k++) {
		size_t i;
		const json_t *row;

		json_array_foreach(json_object_get(mmt_verdict_table(), kinds[k]), i, row) {
			const char *v = json_string_value(json_object_get(row, "verdict"));

			printf("| %s`%s` | %s | %s | %s | %s | %s |\n", k ? "comparison: " : "", v,
			       json_string_value(json_object_get(row, "meaning")),
			       mmt_verdict_field(kinds[k], v, "exit"), mmt_verdict_field(kinds[k], v, "junit"),
			       mmt_verdict_field(kinds[k], v, "lava"), mmt_verdict_field(kinds[k], v, "kcidb"));
		}
	}
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "options")) {
		mmt_cli_markdown(stdout);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "exit-codes")) {
		mmt_exit_markdown(stdout);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "verdicts")) {
		verdicts_markdown();
		return 0;
	}
	fprintf(stderr, "usage: cli-doc options|exit-codes|verdicts\n");
	return 2;
}
