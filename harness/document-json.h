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
#include <stdbool.h>
#include <stddef.h>

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

/* ---- the document ------------------------------------------------------- */

/* The results' "summary". */
struct mmt_summary {
	int runs, ok, skipped, errors, inconclusive, invalid, forbidden_witnessed, injected_missed;
	int exit_code;
};

/* A results document, as main() has it at the end of the runs. */
struct mmt_document {
	const struct mmt_metadata *metadata;
	const char *label;			/* --label; NULL: none */
	const struct mmt_sysctl_journal *journal;
	bool interrupted;
	/* what ran, for the catalogue: variants[s] index scenarios[s]->variants */
	const struct mmt_scenario *const *scenarios;
	unsigned nr_scenarios;
	const unsigned (*variants)[MMT_MAX_VARIANTS];
	const unsigned *nr_variants;
	struct mmt_summary summary;
	/* "runs": these records, referenced (the results file streams the
	 * full ones: mmt_results_finish leaves "runs" out) */
	json_t *const *runs;
	size_t nr_runs;
};

/* {"schema_version", "metadata", "interrupted", "catalogue", "summary",
 * "runs"}. */
json_t *mmt_document_json(const struct mmt_document *d);

/* The table's slim copy of a run record: no per-worker data or options,
 * counters only when asked for (null otherwise), one probe sample a side. */
json_t *mmt_table_row_json(const json_t *record, bool counters);

/* A shallow copy of a document with "runs" empty: the frame a streaming
 * writer checks against the schema, its runs checked as they came. */
json_t *mmt_frame_json(const json_t *doc);

/* A member name as JSON text (quoted, escaped as the values are); malloc'd,
 * NULL without memory. */
char *mmt_key_text(const char *key);

#endif
