/* SPDX-License-Identifier: MIT */
/* The scenarios as data (--list --format json): names, help, threads,
 * outcomes, variants with their expectation here, options with their
 * ranges and value names. */
#ifndef MMT_CATALOGUE_H
#define MMT_CATALOGUE_H

#include <jansson.h>

#include "cli.h"

struct mmt_scenario;

json_t *mmt_catalogue_json(const struct mmt_scenario *const *scenarios, unsigned n);

/* The same for the scenarios and variants an invocation ran, for the
 * results' "catalogue": what the analysis reads units, directions and
 * families from.  variants[s]: indexes into scenarios[s]->variants. */
json_t *mmt_catalogue_selected_json(const struct mmt_scenario *const *scenarios, unsigned n,
				    const unsigned (*variants)[MMT_MAX_VARIANTS], const unsigned *nr_variants);

#endif
