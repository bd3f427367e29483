/* SPDX-License-Identifier: MIT */
/*
 * Everything a results document or --list --format json holds that is not
 * a run record (record-json.c has those), rendered to JSON in one place
 * from the typed structs its modules gather: the metadata (metadata.h),
 * the catalogue (straight from the scenario descriptors), the sysctl
 * journal's status (sysctl.h) and the document's frame around the runs.
 * Nothing else in the harness builds JSON for a document.
 */
#ifndef MMT_DOCUMENT_JSON_H
#define MMT_DOCUMENT_JSON_H

#include <jansson.h>

#include "cli.h"

struct mmt_metadata;
struct mmt_scenario;

/* The results' "metadata" (label and sysctl_journal are the document's). */
json_t *mmt_metadata_json(const struct mmt_metadata *md);

/* --list --format json: the scenarios as data. */
json_t *mmt_catalogue_json(const struct mmt_scenario *const *scenarios, unsigned n);

/* The same for the scenarios and variants an invocation ran, for the
 * results' "catalogue": what the analysis reads units, directions and
 * families from.  variants[s]: indexes into scenarios[s]->variants. */
json_t *mmt_catalogue_selected_json(const struct mmt_scenario *const *scenarios, unsigned n,
				    const unsigned (*variants)[MMT_MAX_VARIANTS], const unsigned *nr_variants);

/* The results' metadata.sysctl_journal: {"state_dir", "status", "reason",
 * "repairs": [{"left_by_pid", "path", "value", "restored", "error"}]}. */
struct mmt_sysctl_journal;
json_t *mmt_sysctl_journal_render(const struct mmt_sysctl_journal *j);
/* The same for this process's journal, as it stands. */
json_t *mmt_sysctl_journal_json(void);

#endif
