/* SPDX-License-Identifier: MIT */
#include "term.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

int mmt_term_width(int fd)
{
	const char *env = getenv("COLUMNS");
	struct winsize ws;
	char *end;
	long cols;

	if (!isatty(fd))
		return 0;
	if (env && *env) {
		cols = strtol(env, &end, 10);
		if (!*end && cols > 0 && cols < 10000)
			return (int)cols;
	}
	if (!ioctl(fd, TIOCGWINSZ, &ws) && ws.ws_col > 0)
		return ws.ws_col;
	return 80;
}

int mmt_term_columns(const char *s, size_t len)
{
	int n = 0;

	for (size_t i = 0; i < len && s[i]; i++)
		n += ((unsigned char)s[i] & 0xc0) != 0x80;
	return n;
}

void mmt_term_wrap(FILE *f, int width, const char *prefix, int hang, const char *text)
{
	int col = mmt_term_columns(prefix, strlen(prefix));
	bool line_empty = true; /* nothing of text on this line yet */

	fputs(prefix, f);
	if (width <= 0) {
		fprintf(f, "%s\n", text);
		return;
	}
	for (const char *p = text; *p;) {
		size_t n;
		int w;

		while (*p == ' ')
			p++;
		if (!*p)
			break;
		n = strcspn(p, " ");
		w = mmt_term_columns(p, n);
		/* Break before the word when it would pass the width: after
		 * another word, or after a prefix wider than the hang. */
		if ((!line_empty || col > hang) && col + !line_empty + w > width) {
			fprintf(f, "\n%*s", hang, "");
			col = hang;
			line_empty = true;
		}
		if (!line_empty) {
			fputc(' ', f);
			col++;
		}
		fwrite(p, 1, n, f);
		col += w;
		line_empty = false;
		p += n;
	}
	fputc('\n', f);
}
