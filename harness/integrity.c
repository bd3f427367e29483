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

json_t *mmt_integrity_json(const struct mmt_integrity *in)
{
	char why[256];
	int valid = mmt_integrity_valid(in, why, sizeof(why));
	json_t *pre = json_array();

	for (unsigned i = 0; i < in->nr_workers; i++)
		json_array_append_new(pre, json_integer((json_int_t)in->preemptions[i]));
	return json_pack("{s:I,s:I,s:I,s:I,s:o,s:b,s:o}", "ops", (json_int_t)in->ops,
			 "overlap_ns", (json_int_t)overlap_ns(in), "requested_ns", (json_int_t)in->requested_ns,
			 "overrun_ns", (json_int_t)overrun_ns(in), "preemptions", pre, "valid", valid,
			 "invalid_reason", valid ? json_null() : json_string(why));
}
