/* SPDX-License-Identifier: MIT */
/*
 * The common options, one row each: the row makes the getopt entry, the
 * --help text, the manual (from --help) and the README's table (tests/
 * cli-doc.sh holds the README to it), and names the code that takes the
 * value.  A new option is one row and its setter.
 */
#ifndef MMT_CLI_OPTIONS_H
#define MMT_CLI_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct mmt_cli;

struct mmt_cli_row {
	const char *name;	/* without "--" */
	const char *arg;	/* the value's shape; NULL: a flag, no value */
	/* The allowed values by name (NULL-terminated), checked before the
	 * setter sees one and shown as the value's shape; NULL: free form. */
	const char *const *values;
	const char *help;	/* one paragraph; the printers wrap it */
	bool repeatable;	/* may be given more than once */
	bool acts_alone;	/* --help, --version, --restore: nothing else counts */
	/* Takes the value (NULL for a flag); 0, or -1 with a reason in err. */
	int (*set)(struct mmt_cli *cli, const char *arg, char *err, size_t errlen);
};

extern const struct mmt_cli_row mmt_cli_rows[];
extern const unsigned mmt_cli_nr_rows;

/* The row named name exactly, or NULL. */
const struct mmt_cli_row *mmt_cli_row_find(const char *name);

/* "table|wide|json" for a row with values, else its arg. */
const char *mmt_cli_row_arg(const struct mmt_cli_row *r, char *buf, size_t len);

/* The README's option and exit-code tables, in Markdown (cli-help.c). */
void mmt_cli_markdown(FILE *f);
void mmt_exit_markdown(FILE *f);

#endif
