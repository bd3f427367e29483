/* SPDX-License-Identifier: MIT */
/*
 * The terminal, when there is one: its width, and text broken to fit it.
 * Output that is not a terminal (a pipe, a file, a test) is never wrapped:
 * scripts read it line by line.
 */
#ifndef MMT_TERM_H
#define MMT_TERM_H

#include <stdio.h>

/* Columns of the terminal on fd: COLUMNS when set (the user's word, as
 * shells and Python's shutil read it), else TIOCGWINSZ, else 80; 0 when
 * fd is not a terminal. */
int mmt_term_width(int fd);

/* Columns text takes: UTF-8 continuation bytes take none. */
int mmt_term_columns(const char *s, size_t len);

/* prefix, then text broken at spaces so that no line passes width columns;
 * continuation lines start with hang spaces.  A word wider than the room
 * is printed whole on a line of its own.  width 0: one line, unbroken. */
void mmt_term_wrap(FILE *f, int width, const char *prefix, int hang, const char *text);

#endif
