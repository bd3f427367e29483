/* SPDX-License-Identifier: MIT */
#include "record.h"

#include <stdio.h>
#include <string.h>

const char *const mmt_status_names[MMT_NR_STATUS] = {
	[MMT_STATUS_OK] = "ok",
	[MMT_STATUS_WITNESSED] = "witnessed",
	[MMT_STATUS_SKIPPED] = "skipped",
	[MMT_STATUS_ERROR] = "error",
	[MMT_STATUS_INTERRUPTED] = "interrupted",
	[MMT_STATUS_HUNG] = "hung",
	[MMT_STATUS_INCONCLUSIVE] = "inconclusive",
	[MMT_STATUS_INVALID] = "invalid",
};

void mmt_record_init(struct mmt_record *r, const struct mmt_scenario *sc,
		     const struct mmt_variant *v, const char *placement, unsigned rep,
		     unsigned threads, uint64_t seed, const uint64_t *opt, bool forbidden)
{
	memset(r, 0, sizeof(*r));
	r->sc = sc;
	r->variant = v;
	r->placement = placement;
	r->repeat = rep;
	r->threads = threads;
	r->seed = seed;
	memcpy(r->opt, opt, sizeof(r->opt[0]) * sc->nr_options);
	r->forbidden = forbidden;
	r->injected = v->injected;
	r->status = MMT_STATUS_SKIPPED;
	r->mem_node = -1;
}

void mmt_record_set_reason(struct mmt_record *r, const char *reason)
{
	snprintf(r->reason, sizeof(r->reason), "%s", reason ? reason : "");
}

void mmt_record_set_cpus(struct mmt_record *r, const int *cpus, unsigned n)
{
	r->nr_cpus = n < MMT_MAX_CPUS ? n : MMT_MAX_CPUS;
	memcpy(r->cpus, cpus, sizeof(r->cpus[0]) * r->nr_cpus);
}

void mmt_record_release(struct mmt_record *r)
{
	json_t **parts[] = { &r->histogram, &r->probe, &r->metrics, &r->workers, &r->counters,
			     &r->detection, &r->placement_track, &r->integrity, &r->conditions };

	for (unsigned i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		json_decref(*parts[i]);
		*parts[i] = NULL;
	}
}
