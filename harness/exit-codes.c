/* SPDX-License-Identifier: MIT */
#include "exit-codes.h"

const struct mmt_exit_row mmt_exit_rows[] = {
	{ "0", "every run finished, no forbidden witness" },
	{ "1", "a forbidden outcome (or lost data) was witnessed" },
	{ "2", "bad input: one line on stderr, nothing run or written" },
	{ "3", "a run could not be set up, its results could not be written, or a worker hung "
	       "(its record is \"hung\", the reason names each worker that did not stop within "
	       "10 s of the stop request and the phase it was in)" },
	{ "77", "every run was skipped, inconclusive or invalid (reasons in the table and results)" },
	{ "128+N", "interrupted by signal N (SIGINT 130, SIGQUIT 131, SIGTERM 143, SIGHUP 129); results so far are "
		   "written, marked interrupted" },
};

const unsigned mmt_exit_nr_rows = sizeof(mmt_exit_rows) / sizeof(mmt_exit_rows[0]);
