/* SPDX-License-Identifier: MIT */
/* The scenarios as data (--list --format json): names, help, threads,
 * outcomes, variants with their expectation here, options with their
 * ranges and value names. */
#ifndef MMT_CATALOGUE_H
#define MMT_CATALOGUE_H

#include <jansson.h>

struct mmt_scenario;

json_t *mmt_catalogue_json(const struct mmt_scenario *const *scenarios, unsigned n);

#endif
