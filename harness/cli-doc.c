/* SPDX-License-Identifier: MIT */
/*
 * cli-doc options|exit-codes: the README's tables, printed from the rows
 * the binary parses with (make readme writes them in; tests/cli-doc.sh
 * fails when the README has drifted from them).
 */
#include "cli-options.h"

#include <stdio.h>
#include <string.h>

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
	fprintf(stderr, "usage: cli-doc options|exit-codes\n");
	return 2;
}
