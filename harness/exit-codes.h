/* SPDX-License-Identifier: MIT */
/*
 * The exit codes, one row each: main() returns them, --help and the
 * README's table print them from here.
 */
#ifndef MMT_EXIT_CODES_H
#define MMT_EXIT_CODES_H

enum mmt_exit {
	MMT_EXIT_OK = 0,
	MMT_EXIT_WITNESSED = 1,
	MMT_EXIT_USAGE = 2,
	MMT_EXIT_HARNESS = 3,
	MMT_EXIT_SKIPPED = 77,	/* automake's and kselftest's "skip" */
	MMT_EXIT_SIGNAL = 128,	/* + the signal's number, as shells report it */
};

struct mmt_exit_row {
	const char *code;	/* "0", "128+N" */
	const char *meaning;
};

extern const struct mmt_exit_row mmt_exit_rows[];
extern const unsigned mmt_exit_nr_rows;

#endif
