/* SPDX-License-Identifier: MIT */
/*
 * Scenarios register themselves with MMT_SCENARIO(), which drops a pointer
 * into the "mmt_scenarios" section; the linker provides its bounds.  The
 * registry hands them out sorted by name so --list and "all" are stable.
 */
#include "exit-codes.h"
#include "scenario.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const mmt_option_off_on[] = { "off", "on", NULL };

extern const struct mmt_scenario *const __start_mmt_scenarios[];
extern const struct mmt_scenario *const __stop_mmt_scenarios[];

static const struct mmt_scenario **sorted;
static unsigned nr_sorted;

static int by_name(const void *a, const void *b)
{
	const struct mmt_scenario *x = *(const struct mmt_scenario *const *)a;
	const struct mmt_scenario *y = *(const struct mmt_scenario *const *)b;

	return strcmp(x->name, y->name);
}

static void load(void)
{
	size_t n = (size_t)(__stop_mmt_scenarios - __start_mmt_scenarios);

	if (sorted)
		return;
	sorted = calloc(n ? n : 1, sizeof(*sorted));
	if (!sorted) {
		fprintf(stderr, "mmtorture: no memory for the scenario registry\n");
		exit(MMT_EXIT_HARNESS);
	}
	for (const struct mmt_scenario *const *p = __start_mmt_scenarios; p < __stop_mmt_scenarios; p++)
		sorted[nr_sorted++] = *p;
	qsort(sorted, nr_sorted, sizeof(sorted[0]), by_name);
}

unsigned mmt_scenario_count(void)
{
	load();
	return nr_sorted;
}

const struct mmt_scenario *mmt_scenario_at(unsigned i)
{
	load();
	return i < nr_sorted ? sorted[i] : NULL;
}

const struct mmt_scenario *mmt_scenario_find(const char *name)
{
	load();
	for (unsigned i = 0; i < nr_sorted; i++)
		if (!strcmp(sorted[i]->name, name))
			return sorted[i];
	return NULL;
}

const struct mmt_variant *mmt_variant_find(const struct mmt_scenario *sc, const char *name)
{
	for (unsigned i = 0; i < sc->nr_variants; i++)
		if (!strcmp(sc->variants[i].name, name))
			return &sc->variants[i];
	return NULL;
}
