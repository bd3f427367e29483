/* SPDX-License-Identifier: MIT */
/*
 * "Did you mean": the known name nearest to a mistyped one, for the one
 * line an unknown option, scenario, variant or placement gets.  Offer every
 * candidate in turn, then ask for the pick.
 */
#ifndef MMT_CLOSEST_H
#define MMT_CLOSEST_H

#include <stddef.h>

struct mmt_closest {
	const char *word;
	const char *best;
	unsigned best_cost;
	int tied;		/* another candidate as near: no pick */
};

void mmt_closest_init(struct mmt_closest *c, const char *word);
void mmt_closest_offer(struct mmt_closest *c, const char *candidate);

/* The nearest candidate, or NULL when none is near enough to be a typo of
 * the word or two are equally near: a candidate the word begins (an
 * abbreviation, "ass" for "assume-forbidden"), else one at most a third
 * of the word's letters away (insertions, deletions, substitutions, swaps
 * of neighbours). */
const char *mmt_closest_pick(const struct mmt_closest *c);

/* " (did you mean PREFIX+NAME?)" or "" for the pick, into buf. */
const char *mmt_closest_hint(const struct mmt_closest *c, const char *prefix, char *buf,
			     size_t len);

/* Optimal string alignment distance, capped at 255 characters a side. */
unsigned mmt_edit_distance(const char *a, const char *b);

#endif
