/* SPDX-License-Identifier: MIT */
#include "integrity.h"

#include <stdbool.h>
#include <stdio.h>

/* The span every worker was inside its loop: latest start to earliest end. */
static uint64_t overlap_ns(const struct mmt_integrity *in)
{
	uint64_t last_start = 0, first_end = UINT64_MAX;

	for (unsigned i = 0; i < in->nr_workers; i++) {
		if (in->t_begin[i] > last_start)
			last_start = in->t_begin[i];
		if (in->t_end[i] < first_end)
			first_end = in->t_end[i];
	}
	return in->nr_workers && first_end > last_start ? first_end - last_start : 0;
}

/* First start to last end, less the requested duration (negative: early). */
static int64_t overrun_ns(const struct mmt_integrity *in)
{
	uint64_t first = UINT64_MAX, last = 0;

	for (unsigned i = 0; i < in->nr_workers; i++) {
		if (in->t_begin[i] < first)
			first = in->t_begin[i];
		if (in->t_end[i] > last)
			last = in->t_end[i];
	}
	if (!in->nr_workers || last < first)
		return 0;
	return (int64_t)(last - first) - (int64_t)in->requested_ns;
}

int mmt_integrity_valid(const struct mmt_integrity *in, char *why, size_t len)
{
	int64_t over = overrun_ns(in);

	why[0] = '\0';
	if (!in->ops) {
		snprintf(why, len, "no operation was done");
		return 0;
	}
	if (in->nr_workers > 1 && !overlap_ns(in)) {
		snprintf(why, len, "the %u workers never ran at the same time", in->nr_workers);
		return 0;
	}
	if (in->requested_ns && over > 0 && (uint64_t)over > in->requested_ns / 2 + MMT_OVERRUN_SLACK_NS) {
		snprintf(why, len, "asked for %.3f s, it took %.3f s: stopped or stalled (the bound is half the "
			 "duration and %.0f s more)", (double)in->requested_ns / 1e9,
			 (double)((uint64_t)over + in->requested_ns) / 1e9, MMT_OVERRUN_SLACK_NS / 1e9);
		return 0;
	}
	return 1;
}

static const struct mmt_field integrity_fields[] = {
	MMT_FIELD(struct mmt_integrity_report, ops, MMT_F_COUNT),
	MMT_FIELD(struct mmt_integrity_report, overlap_ns, MMT_F_COUNT),
	MMT_FIELD(struct mmt_integrity_report, requested_ns, MMT_F_COUNT),
	MMT_FIELD(struct mmt_integrity_report, overrun_ns, MMT_F_SIGNED),
	MMT_FIELD_COUNTS_AT(struct mmt_integrity_report, preemptions, nr_workers),
	MMT_FIELD(struct mmt_integrity_report, valid, MMT_F_BOOL),
	MMT_FIELD(struct mmt_integrity_report, invalid_reason, MMT_F_TEXT),
};
const struct mmt_shape mmt_integrity_shape = MMT_SHAPE(struct mmt_integrity_report, integrity_fields);

void mmt_integrity_report(const struct mmt_integrity *in, struct mmt_integrity_report *out)
{
	out->valid = mmt_integrity_valid(in, out->why, sizeof(out->why));
	out->invalid_reason = out->valid ? NULL : out->why;
	out->ops = in->ops;
	out->overlap_ns = overlap_ns(in);
	out->requested_ns = in->requested_ns;
	out->overrun_ns = overrun_ns(in);
	out->preemptions = in->preemptions;
	out->nr_workers = in->nr_workers;
}
