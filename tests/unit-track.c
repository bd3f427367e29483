/* SPDX-License-Identifier: MIT */
/* In-run placement tracking: segmentation of latency samples and the test
 * hooks' parser.  Series shaped like this VM's: SMT siblings ~10 ns, one
 * L3 ~30 ns, different dies ~100-230 ns. */
#include "placement-track.h"
#include "probe.h"
#include "tap.h"

#define R MMT_PROBE_STABLE_RATIO

static unsigned seg(const double *x, unsigned n, struct mmt_track_segment *s, unsigned *outliers)
{
	return mmt_track_segment(x, n, R, s, 16, outliers);
}

int main(void)
{
	struct mmt_track_segment s[16];
	unsigned out, n;
	struct mmt_track_env env;
	char err[256];

	{
		static const double x[] = { 30, 31, 29, 30, 32, 30, 29, 31 };

		n = seg(x, 8, s, &out);
		tap_is_int(n, 1, "a steady series is one segment");
		tap_is_int(out, 0, "with no outliers");
		tap_ok(s[0].first == 0 && s[0].last == 7 && s[0].samples == 8, "covering every sample");
		tap_ok(s[0].one_way_ns >= 29 && s[0].one_way_ns <= 32, "at the median (%.1f)", s[0].one_way_ns);
	}
	{
		/* The probes' case: 44 before, 38 after, 243 in between. */
		static const double x[] = { 44, 43, 45, 243, 240, 238, 245, 241, 39, 38, 38 };

		n = seg(x, 11, s, &out);
		tap_is_int(n, 3, "a move there and back is three segments");
		tap_ok(n == 3 && s[1].first == 3 && s[1].last == 7, "the middle one is samples 3-7");
		tap_ok(n == 3 && s[1].one_way_ns > 200, "at the cross-die latency (%.0f)", n == 3 ? s[1].one_way_ns : 0);
		tap_ok(n == 3 && s[2].one_way_ns < 45, "and back (%.0f)", n == 3 ? s[2].one_way_ns : 0);
	}
	{
		/* One preempted sample is not a move. */
		static const double x[] = { 30, 30, 31, 900, 30, 29, 30 };

		n = seg(x, 7, s, &out);
		tap_is_int(n, 1, "one excursion is no move");
		tap_is_int(out, 1, "but one outlier");
		tap_ok(s[0].one_way_ns < 35, "left out of the median (%.1f)", s[0].one_way_ns);
	}
	{
		/* Three levels: SMT siblings, one L3, different dies. */
		static const double x[] = { 10, 11, 10, 30, 29, 31, 30, 120, 118, 125, 11, 10 };

		n = seg(x, 12, s, &out);
		tap_is_int(n, 4, "three levels and back are four segments");
	}
	{
		/* A drift within the ratio is not a move: 30 -> 40 -> 44. */
		static const double x[] = { 30, 32, 34, 36, 38, 40, 42, 44 };

		n = seg(x, 8, s, &out);
		tap_is_int(n, 1, "a drift under %.1fx stays one segment", R);
	}
	{
		/* A move in the last sample cannot be confirmed. */
		static const double x[] = { 30, 30, 30, 200 };

		n = seg(x, 4, s, &out);
		tap_ok(n == 1 && out == 1, "an unconfirmed last sample is an outlier");
	}
	{
		static const double x[] = { 30, 200, 30, 200, 30, 200, 30, 200 };
		/* More segments than room: the rest merge into the last. */
		n = mmt_track_segment(x, 8, R, s, 1, &out);
		tap_is_int(n, 1, "segments beyond the maximum merge into the last");
	}
	n = mmt_track_segment(NULL, 0, R, s, 16, &out);
	tap_is_int(n, 0, "no samples, no segments");

	tap_ok(!mmt_track_env_parse(NULL, NULL, &env, err, sizeof(err)) && env.interval_ns == 10000000 &&
	       !env.nr_moves, "defaults: every 10 ms, no moves");
	tap_ok(!mmt_track_env_parse("0", "1:0@300,1:1@700", &env, err, sizeof(err)) && !env.interval_ns &&
	       env.nr_moves == 2 && env.move[1].worker == 1 && env.move[1].cpu == 1 &&
	       env.move[1].at_ns == 700000000ull, "MMT_TEST_MOVE parses two moves");
	tap_ok(mmt_track_env_parse("10ms", NULL, &env, err, sizeof(err)) &&
	       strstr(err, "MMT_TRACK_INTERVAL_MS"), "a malformed interval is refused: %s", err);
	tap_ok(mmt_track_env_parse(NULL, "1:0@300,1@700", &env, err, sizeof(err)) && strstr(err, "'1@700'"),
	       "a malformed move is refused, naming it: %s", err);
	tap_ok(mmt_track_env_parse(NULL, "1:0@", &env, err, sizeof(err)), "a move without a time is refused");
	return tap_done();
}
