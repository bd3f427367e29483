/* SPDX-License-Identifier: MIT */
/*
 * A run's record, typed: who ran (identity), what became of it (a status
 * from one enum, its reason and verdict), the totals, and the parts their
 * owners still build as JSON (probe, histogram, metrics, workers,
 * counters, detection, placement tracking, integrity).  The runner and main() fill
 * it; mmt_record_json() is its one JSON renderer, and the key order and
 * types are the results schema's (tests/record-shape.py holds them).
 */
#ifndef MMT_RECORD_H
#define MMT_RECORD_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "placement.h"
#include "scenario.h"

enum mmt_status {
	MMT_STATUS_OK,
	MMT_STATUS_WITNESSED,
	MMT_STATUS_SKIPPED,
	MMT_STATUS_ERROR,
	MMT_STATUS_INTERRUPTED,
	MMT_STATUS_HUNG,
	MMT_STATUS_INCONCLUSIVE,
	MMT_STATUS_INVALID,
	MMT_NR_STATUS
};

/* The schema's names, results/verdicts.json's run verdicts. */
extern const char *const mmt_status_names[MMT_NR_STATUS];

struct mmt_record {
	/* identity */
	const struct mmt_scenario *sc;
	const struct mmt_variant *variant;
	const char *placement;
	unsigned repeat, threads;
	uint64_t seed;
	uint64_t opt[MMT_MAX_OPTIONS];
	bool forbidden, injected;
	/* what became of it */
	enum mmt_status status;
	char reason[320];	/* "" : null */
	char verdict[320];	/* "" : null */
	/* where it ran: nr_cpus 0 is null, mem_node < 0 is null */
	int cpus[MMT_MAX_CPUS];
	unsigned nr_cpus;
	int mem_node;
	/* totals, once measured */
	bool measured;
	uint64_t iterations, elapsed_ns, witnesses;
	/* built by their owners; each NULL is null (owned references) */
	json_t *histogram, *probe, *metrics, *workers, *counters, *detection, *placement_track, *integrity;
	json_t *conditions;	/* conditions.h; NULL: not measured */
};

/* A record of run rep of variant v at pl, status skipped until told. */
void mmt_record_init(struct mmt_record *r, const struct mmt_scenario *sc,
		     const struct mmt_variant *v, const char *placement, unsigned rep,
		     unsigned threads, uint64_t seed, const uint64_t *opt, bool forbidden);

void mmt_record_set_reason(struct mmt_record *r, const char *reason);
void mmt_record_set_cpus(struct mmt_record *r, const int *cpus, unsigned n);

/* A struct of that shape as the record has it (a new reference): how
 * the harness's own parts (integrity, conditions, detection, ...) and
 * the scenarios' structured metrics are rendered. */
json_t *mmt_shape_json(const struct mmt_shape *s, const void *obj);
/* n such structs as one object, their fields in order. */
json_t *mmt_shapes_json(unsigned n, const struct mmt_shape *const *shapes, const void *const *objs);

/* The record's parts of a run (new references): the probes around it
 * ({"before", "after", "drift", "stable"}), its workers, its outcomes by
 * name. */
struct mmt_probe_set;
json_t *mmt_probe_json(const struct mmt_probe_set *before, const struct mmt_probe_set *after);
json_t *mmt_workers_json(const struct mmt_run *run);
json_t *mmt_histogram_json(const struct mmt_scenario *sc, const uint64_t *outcomes);

/* A run's metrics as put by verify() (values.h), in the order first put
 * (a new reference; record-json.c). */
json_t *mmt_metrics_json(const struct mmt_scenario *sc, const struct mmt_value *values);

/* The record as the results file has it (a new reference). */
json_t *mmt_record_json(const struct mmt_record *r);

/* Drops the JSON parts it holds. */
void mmt_record_release(struct mmt_record *r);

#endif
