/* SPDX-License-Identifier: MIT */
/*
 * The progress line: "run i/N, elapsed, ETA" on stderr, one line rewritten
 * with \r between runs and cleared before the table.  Only on a terminal
 * (or when asked): a pipe, a log or a test never sees it.  Written between
 * runs and never during one: no thread of ours wakes while workers spin.
 */
#ifndef MMT_PROGRESS_H
#define MMT_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum mmt_progress_mode { MMT_PROGRESS_AUTO, MMT_PROGRESS_ON, MMT_PROGRESS_OFF };

struct mmt_progress {
	bool on;
	int fd;
	int width;		/* columns; the line is cut to fit, or it would wrap */
	unsigned total;
	uint64_t start_ns;
	uint64_t run_ns;	/* the requested duration per run, for the first ETA */
	int shown;		/* columns on screen now, to blank on the next write */
};

void mmt_progress_start(struct mmt_progress *p, enum mmt_progress_mode mode, int fd,
			unsigned total, uint64_t run_ns);
/* Run i (0-based) of total is about to start; label names it. */
void mmt_progress_run(struct mmt_progress *p, unsigned i, const char *label);
/* Blanks the line: what follows starts in column 0 of a clean line. */
void mmt_progress_end(struct mmt_progress *p);

/* "0:07", "12:30", "1:02:03": the line's times. */
void mmt_progress_clock(char *buf, size_t len, uint64_t ns);

#endif
