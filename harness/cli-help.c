/* SPDX-License-Identifier: MIT */
/*
 * Printers of the option and exit-code tables: --help (which the manual is
 * made from, scripts/help2man.awk) and the README's Markdown.
 */
#include "cli.h"
#include "cli-options.h"
#include "exit-codes.h"
#include "term.h"

#include <stdio.h>
#include <string.h>

/* --help is 80 columns wherever it goes: help2man.awk reads its layout. */
#define HELP_WIDTH 80
#define HELP_HANG 27

static void option_synopsis(const struct mmt_cli_row *r, char *buf, size_t len)
{
	char values[128];
	const char *arg = mmt_cli_row_arg(r, values, sizeof(values));

	snprintf(buf, len, "--%s%s%s", r->name, arg ? " " : "", arg ? arg : "");
}

void mmt_cli_usage(FILE *f)
{
	char synopsis[160], prefix[200];

	fputs("usage: run-scenario [SCENARIO[,SCENARIO...]|all] [options]\n"
	      "\n"
	      "With no scenario: the smoke suite (every scenario and variant, placement\n"
	      "spread, 200ms each).\n"
	      "\n",
	      f);
	for (unsigned i = 0; i < mmt_cli_nr_rows; i++) {
		option_synopsis(&mmt_cli_rows[i], synopsis, sizeof(synopsis));
		snprintf(prefix, sizeof(prefix), "  %-*s  ", HELP_HANG - 4, synopsis);
		mmt_term_wrap(f, HELP_WIDTH, prefix, HELP_HANG, mmt_cli_rows[i].help);
	}
	fputs("\nScenario options (see --list) are given as --NAME VALUE.\n\nExit:\n", f);
	for (unsigned i = 0; i < mmt_exit_nr_rows; i++) {
		snprintf(prefix, sizeof(prefix), "  %-*s  ", HELP_HANG - 4, mmt_exit_rows[i].code);
		mmt_term_wrap(f, HELP_WIDTH, prefix, HELP_HANG, mmt_exit_rows[i].meaning);
	}
}

/* A table cell: '|' would end it. */
static void markdown_cell(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			fputc('\\', f);
		fputc(*s, f);
	}
}

void mmt_cli_markdown(FILE *f)
{
	char synopsis[160];

	fputs("| option | meaning |\n| --- | --- |\n", f);
	for (unsigned i = 0; i < mmt_cli_nr_rows; i++) {
		option_synopsis(&mmt_cli_rows[i], synopsis, sizeof(synopsis));
		fputs("| `", f);
		markdown_cell(f, synopsis);
		fputs("` | ", f);
		markdown_cell(f, mmt_cli_rows[i].help);
		fputs(" |\n", f);
	}
	fputs("| `--NAME VALUE` | a scenario option, e.g. `--payload-words 64` (see `--list`) |\n", f);
}

void mmt_exit_markdown(FILE *f)
{
	fputs("| code | meaning |\n| --- | --- |\n", f);
	for (unsigned i = 0; i < mmt_exit_nr_rows; i++) {
		fprintf(f, "| %s | ", mmt_exit_rows[i].code);
		markdown_cell(f, mmt_exit_rows[i].meaning);
		fputs(" |\n", f);
	}
}
