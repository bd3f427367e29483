/* SPDX-License-Identifier: MIT */
/* What a result needs to be interpreted later: build, kernel, machine,
 * the settings that change mm behaviour, and how the run was asked for. */
#ifndef MMT_METADATA_H
#define MMT_METADATA_H

#include <jansson.h>
#include <stdint.h>

#include "topology.h"

json_t *mmt_topology_json(const struct mmt_topology *t);
json_t *mmt_metadata_collect(int argc, char **argv, uint64_t seed, const struct mmt_topology *t);
const char *mmt_version_string(void);

#endif
