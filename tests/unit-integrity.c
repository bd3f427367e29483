/* SPDX-License-Identifier: MIT */
/* A run's integrity (harness/integrity.c): valid only when it did work,
 * its workers ran together, and it ended near the duration asked for. */
#include "conditions.h"
#include "integrity.h"
#include "record.h"
#include "tap.h"

#define MS 1000000ull

static int judge(unsigned n, const uint64_t *begin, const uint64_t *end, uint64_t ops,
		 uint64_t requested_ns, char *why)
{
	static const uint64_t none[8];
	struct mmt_integrity in = { .nr_workers = n, .t_begin = begin, .t_end = end,
				    .preemptions = none, .ops = ops, .requested_ns = requested_ns };

	return mmt_integrity_valid(&in, why, 256);
}

int main(void)
{
	char why[256];
	const uint64_t b2[] = { 1000 * MS, 1000 * MS + 5 }, e2[] = { 2000 * MS, 2000 * MS + 9 };
	const uint64_t apart_b[] = { 1000 * MS, 3000 * MS }, apart_e[] = { 2000 * MS, 4000 * MS };
	const uint64_t long_e[] = { 3500 * MS, 3500 * MS };
	const uint64_t stalled_e[] = { 3500 * MS + 1, 3500 * MS };
	struct mmt_integrity_report ir;
	json_t *j;

	tap_ok(judge(2, b2, e2, 1000, 1000 * MS, why) && !why[0], "a run that did work, together, on time: valid");
	tap_ok(!judge(2, b2, e2, 0, 1000 * MS, why) && strstr(why, "no operation"),
	       "no operation: invalid (%s)", why);
	tap_ok(!judge(2, apart_b, apart_e, 1000, 0, why) && strstr(why, "never ran at the same time"),
	       "workers one after the other: invalid (%s)", why);
	tap_ok(judge(1, apart_b, apart_e, 1000, 1000 * MS, why), "one worker has no one to overlap with");
	tap_ok(judge(2, b2, long_e, 1000, 1000 * MS, why), "2.5 s for 1 s: at the bound, half the duration and 1 s");
	tap_ok(!judge(2, b2, stalled_e, 1000, 1000 * MS, why) && strstr(why, "stopped or stalled"),
	       "2.5 s + 1 ns for 1 s: invalid (%s)", why);
	tap_ok(judge(2, b2, stalled_e, 1000, 0, why), "no duration asked (iterations): no overrun to judge");
	mmt_integrity_report(&(struct mmt_integrity){ .nr_workers = 2, .t_begin = apart_b, .t_end = apart_e,
						      .preemptions = (const uint64_t[]){ 3, 4 }, .ops = 7,
						      .requested_ns = 1000 * MS }, &ir);
	j = mmt_shape_json(&mmt_integrity_shape, &ir);
	tap_ok(json_integer_value(json_object_get(j, "overlap_ns")) == 0 &&
		       json_integer_value(json_object_get(j, "overrun_ns")) == (json_int_t)(2000 * MS) &&
		       json_is_false(json_object_get(j, "valid")) &&
		       json_is_string(json_object_get(j, "invalid_reason")) &&
		       json_integer_value(json_array_get(json_object_get(j, "preemptions"), 1)) == 4,
	       "the record: overlap 0, overrun 2 s, invalid with its reason, preemptions per worker");
	json_decref(j);
	/* The conditions beside the integrity: /proc/loadavg's fields, and
	 * the workers' share of their wall time on a CPU. */
	{
		double load = 0;
		unsigned running = 0;
		struct mmt_conditions c = { .own = 3, .load_before = 0.5, .samples = 4, .others_sum = 6, .others_max = 3 };
		const uint64_t cpu[2] = { 500000000, 1000000000 }, tb[2] = { 0, 0 }, te[2] = { 1000000000, 1000000000 };
		struct mmt_conditions_report cr;
		json_t *cj;

		int rc = mmt_loadavg_parse("0.20 0.18 0.12 3/80 11206\n", &load, &running);

		tap_ok(!rc && load == 0.20 && running == 3, "loadavg: 1-minute load and runnable count (%.2f, %u)", load,
		       running);
		tap_ok(mmt_loadavg_parse("0.20 0.18", &load, &running) == -1, "loadavg: a short line is refused");
		mmt_conditions_report(&c, cpu, tb, te, 2, 1000, &cr);
		cj = mmt_shape_json(&mmt_conditions_shape, &cr);
		tap_ok(json_real_value(json_object_get(cj, "on_cpu")) == 0.75 &&
			       json_real_value(json_object_get(cj, "others_running")) == 1.5 &&
			       json_real_value(json_object_get(cj, "cpu_ns_per_op")) == 1500000.0,
		       "conditions: 1.5 s of CPU over 2 s of loops is 0.75 on CPU; 6 others over 4 samples 1.5; 1.5 ms a op");
		json_decref(cj);
	}
	return tap_done();
}
