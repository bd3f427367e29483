/* SPDX-License-Identifier: MIT */
#include "closest.h"

#include <stdio.h>
#include <string.h>

#define MAX_LEN 255
/* An abbreviation ranks before any typo; both rank by cost. */
#define PREFIX_COST 0u
#define TYPO_BASE 1u

unsigned mmt_edit_distance(const char *a, const char *b)
{
	size_t la = strnlen(a, MAX_LEN), lb = strnlen(b, MAX_LEN);
	unsigned rows[3][MAX_LEN + 1];	/* i-2, i-1, i: a swap looks two back */

	for (size_t j = 0; j <= lb; j++)
		rows[0][j] = (unsigned)j;
	for (size_t i = 1; i <= la; i++) {
		unsigned *cur = rows[i % 3], *up = rows[(i + 2) % 3], *up2 = rows[(i + 1) % 3];

		cur[0] = (unsigned)i;
		for (size_t j = 1; j <= lb; j++) {
			unsigned sub = up[j - 1] + (a[i - 1] != b[j - 1]);
			unsigned del = up[j] + 1, ins = cur[j - 1] + 1;
			unsigned best = sub < del ? sub : del;

			best = ins < best ? ins : best;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    up2[j - 2] + 1 < best)
				best = up2[j - 2] + 1;
			cur[j] = best;
		}
	}
	return rows[la % 3][lb];
}

void mmt_closest_init(struct mmt_closest *c, const char *word)
{
	c->word = word;
	c->best = NULL;
	c->best_cost = ~0u;
	c->tied = 0;
}

void mmt_closest_offer(struct mmt_closest *c, const char *candidate)
{
	size_t len = strlen(c->word);
	unsigned cost;

	if (!candidate || !len || !strcmp(candidate, c->word))
		return;
	if (len >= 2 && !strncmp(candidate, c->word, len)) {
		cost = PREFIX_COST;
	} else {
		unsigned d = mmt_edit_distance(c->word, candidate);

		/* More than a third wrong is another word, not a typo of it. */
		if (d * 3 > len && d > 1)
			return;
		cost = TYPO_BASE + d;
	}
	if (cost == c->best_cost && strcmp(candidate, c->best))
		c->tied = 1;
	if (cost < c->best_cost) {
		c->best = candidate;
		c->best_cost = cost;
		c->tied = 0;
	}
}

const char *mmt_closest_pick(const struct mmt_closest *c)
{
	return c->tied ? NULL : c->best;
}

const char *mmt_closest_hint(const struct mmt_closest *c, const char *prefix, char *buf,
			     size_t len)
{
	const char *pick = mmt_closest_pick(c);

	if (!pick)
		return "";
	snprintf(buf, len, " (did you mean %s%s?)", prefix, pick);
	return buf;
}
