/* SPDX-License-Identifier: MIT */
#include "progress.h"
#include "clock.h"
#include "term.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

void mmt_progress_start(struct mmt_progress *p, enum mmt_progress_mode mode, int fd,
			unsigned total, uint64_t run_ns)
{
	memset(p, 0, sizeof(*p));
	p->fd = fd;
	p->width = mmt_term_width(fd);
	p->on = mode == MMT_PROGRESS_ON || (mode == MMT_PROGRESS_AUTO && p->width > 0);
	if (!p->width)
		p->width = 80; /* --progress into a pipe: still one bounded line */
	p->total = total;
	p->run_ns = run_ns;
	p->start_ns = mmt_now_ns();
}

void mmt_progress_clock(char *buf, size_t len, uint64_t ns)
{
	unsigned long long s = ns / 1000000000ull;

	if (s >= 3600)
		snprintf(buf, len, "%llu:%02llu:%02llu", s / 3600, s / 60 % 60, s % 60);
	else
		snprintf(buf, len, "%llu:%02llu", s / 60, s % 60);
}

/* \r, the text, blanks over what the last line left, then \r and the text
 * again to leave the cursor after it: no terminal escapes, so a dumb
 * terminal shows it as well. */
static void show(struct mmt_progress *p, const char *text)
{
	char buf[2048];
	int len = (int)strlen(text), room = p->width - 1, n, pad;

	if (room > 511)
		room = 511;
	if (len > room)
		len = room > 0 ? room : 0; /* a wrapped line cannot be rewritten with \r */
	n = snprintf(buf, sizeof(buf), "\r%.*s", len, text);
	pad = p->shown - len;
	if (pad > 0) {
		memset(buf + n, ' ', (size_t)pad);
		n += pad;
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, "\r%.*s", len, text);
	}
	if (write(p->fd, buf, (size_t)n) < 0)
		p->on = false; /* the terminal went away: stop, the runs go on */
	p->shown = len;
}

void mmt_progress_run(struct mmt_progress *p, unsigned i, const char *label)
{
	char line[512], elapsed[32], eta[32];
	uint64_t now, spent;

	if (!p->on)
		return;
	now = mmt_now_ns();
	spent = now - p->start_ns;
	mmt_progress_clock(elapsed, sizeof(elapsed), spent);
	/* The mean of the runs so far; before the first, the requested
	 * duration (probes and setup come on top: a floor, so "~"). */
	if (i > 0)
		mmt_progress_clock(eta, sizeof(eta), spent / i * (p->total - i));
	else if (p->run_ns) {
		eta[0] = '~';
		mmt_progress_clock(eta + 1, sizeof(eta) - 1, p->run_ns * p->total);
	} else
		snprintf(eta, sizeof(eta), "?");
	snprintf(line, sizeof(line), "run %u/%u, %s elapsed, ETA %s: %s", i + 1, p->total, elapsed,
		 eta, label);
	show(p, line);
}

void mmt_progress_end(struct mmt_progress *p)
{
	if (!p->on)
		return;
	if (p->shown)
		show(p, "");
	p->on = false;
}
