/* SPDX-License-Identifier: MIT */
/*
 * Command line: parsed and validated completely before anything runs or is
 * written, so bad input costs nothing but one line on stderr and exit 2.
 */
#ifndef MMT_CLI_H
#define MMT_CLI_H

#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>

#include "cli-settings.h"

/* Returns 0, or -1 with a one-line reason in err. */
int mmt_cli_parse(int argc, char **argv, struct mmt_cli *cli, char *err, size_t errlen);

/* Value of scenario option o for this run: the user's or the default. */
uint64_t mmt_cli_option_value(const struct mmt_cli *cli, const struct mmt_option *o);

/* --help, from the option and exit-code tables (cli-help.c). */
void mmt_cli_usage(FILE *f);

#endif
