/* SPDX-License-Identifier: MIT */
#include "histogram.h"
#include "parse.h"
#include "tap.h"

#include <math.h>

static void test_u64(void)
{
	char err[MMT_ERRLEN];
	uint64_t v;

	tap_ok(!mmt_parse_u64("0", &v, err, sizeof(err)) && v == 0, "u64: 0");
	tap_ok(!mmt_parse_u64("100000", &v, err, sizeof(err)) && v == 100000, "u64: 100000");
	tap_ok(!mmt_parse_u64("10M", &v, err, sizeof(err)) && v == 10000000, "u64: 10M");
	tap_ok(!mmt_parse_u64("3k", &v, err, sizeof(err)) && v == 3000, "u64: 3k");
	tap_ok(!mmt_parse_u64("18446744073709551615", &v, err, sizeof(err)) && v == UINT64_MAX,
	       "u64: max");
	tap_ok(mmt_parse_u64("18446744073709551616", &v, err, sizeof(err)) == -1, "u64: overflow refused");
	tap_ok(mmt_parse_u64("20000000000G", &v, err, sizeof(err)) == -1, "u64: suffix overflow refused");
	tap_ok(mmt_parse_u64("-1", &v, err, sizeof(err)) == -1, "u64: negative refused");
	tap_ok(mmt_parse_u64("", &v, err, sizeof(err)) == -1, "u64: empty refused");
	tap_ok(mmt_parse_u64("12x", &v, err, sizeof(err)) == -1 && strstr(err, "12x"),
	       "u64: junk refused, named in the message");
	tap_ok(mmt_parse_u64("1.5", &v, err, sizeof(err)) == -1, "u64: fraction refused");
	tap_ok(mmt_parse_u64("5kk", &v, err, sizeof(err)) == -1, "u64: double suffix refused");
}

static void test_duration(void)
{
	char err[MMT_ERRLEN];
	uint64_t ns;

	tap_ok(!mmt_parse_duration("500ms", &ns, err, sizeof(err)) && ns == 500000000ull, "duration: 500ms");
	tap_ok(!mmt_parse_duration("5s", &ns, err, sizeof(err)) && ns == 5000000000ull, "duration: 5s");
	tap_ok(!mmt_parse_duration("2", &ns, err, sizeof(err)) && ns == 2000000000ull, "duration: bare seconds");
	tap_ok(!mmt_parse_duration("1.5s", &ns, err, sizeof(err)) && ns == 1500000000ull, "duration: 1.5s");
	tap_ok(!mmt_parse_duration("2m", &ns, err, sizeof(err)) && ns == 120000000000ull, "duration: 2m");
	tap_ok(!mmt_parse_duration("250us", &ns, err, sizeof(err)) && ns == 250000ull, "duration: 250us");
	tap_ok(mmt_parse_duration("5h", &ns, err, sizeof(err)) == -1 && strstr(err, "unit"), "duration: unknown unit");
	tap_ok(mmt_parse_duration("0", &ns, err, sizeof(err)) == -1, "duration: zero refused");
	tap_ok(mmt_parse_duration("-1s", &ns, err, sizeof(err)) == -1, "duration: negative refused");
	tap_ok(mmt_parse_duration("ms", &ns, err, sizeof(err)) == -1, "duration: no number refused");
	tap_ok(mmt_parse_duration("1e30s", &ns, err, sizeof(err)) == -1, "duration: absurd length refused");
	tap_ok(mmt_parse_duration("0x10s", &ns, err, sizeof(err)) == -1, "duration: hex refused");
	tap_ok(mmt_parse_duration("inf", &ns, err, sizeof(err)) == -1, "duration: inf refused");
	tap_ok(mmt_parse_duration("nan", &ns, err, sizeof(err)) == -1, "duration: nan refused");
	tap_ok(mmt_parse_duration("1e3", &ns, err, sizeof(err)) == -1, "duration: exponent refused");
	tap_ok(mmt_parse_duration(".5s", &ns, err, sizeof(err)) == -1, "duration: no leading digit refused");
	tap_ok(mmt_parse_duration("1.s", &ns, err, sizeof(err)) == -1, "duration: no decimals after the point refused");
	tap_ok(mmt_parse_duration("1.5ns", &ns, err, sizeof(err)) == -1, "duration: a fraction of a ns refused");
	tap_ok(!mmt_parse_duration("1.5us", &ns, err, sizeof(err)) && ns == 1500, "duration: 1.5us is 1500 ns exactly");
	tap_ok(!mmt_parse_duration("0.000000001", &ns, err, sizeof(err)) && ns == 1, "duration: 1 ns in seconds");
	tap_ok(!mmt_parse_duration("1000000000s", &ns, err, sizeof(err)) && ns == 1000000000000000000ull,
	       "duration: 1e18 ns is the limit");
	tap_ok(mmt_parse_duration("1000000000.000000001s", &ns, err, sizeof(err)) == -1, "duration: beyond it refused");
	{
		uint64_t v;

		tap_ok(!mmt_parse_u64_decimal("18446744073709551615", &v, err, sizeof(err)) && v == UINT64_MAX,
		       "decimal: the whole 64-bit range");
		tap_ok(mmt_parse_u64_decimal("18446744073709551616", &v, err, sizeof(err)) == -1, "decimal: overflow refused");
		tap_ok(mmt_parse_u64_decimal("0x10", &v, err, sizeof(err)) == -1, "decimal: hex refused");
		tap_ok(mmt_parse_u64_decimal("5k", &v, err, sizeof(err)) == -1, "decimal: suffix refused");
		tap_ok(mmt_parse_u64_decimal("", &v, err, sizeof(err)) == -1, "decimal: empty refused");
		tap_ok(mmt_parse_list_items("a,,b", err, sizeof(err)) == -1 && mmt_parse_list_items(",a", err, sizeof(err)) == -1 &&
			       mmt_parse_list_items("a,", err, sizeof(err)) == -1 && !mmt_parse_list_items("a,b", err, sizeof(err)),
		       "lists: empty items refused");
	}
}

static void test_cpulist(void)
{
	char err[MMT_ERRLEN];
	int cpus[64], n;

	tap_ok(!mmt_parse_cpulist("0-3,8", cpus, 64, &n, err, sizeof(err)) && n == 5 && cpus[4] == 8,
	       "cpulist: 0-3,8");
	tap_ok(!mmt_parse_cpulist("5,1", cpus, 64, &n, err, sizeof(err)) && n == 2 && cpus[0] == 1,
	       "cpulist: sorted");
	tap_ok(mmt_parse_cpulist("1,1", cpus, 64, &n, err, sizeof(err)) == -1 && strstr(err, "twice"),
	       "cpulist: duplicate refused");
	tap_ok(mmt_parse_cpulist("3-1", cpus, 64, &n, err, sizeof(err)) == -1, "cpulist: reversed range");
	tap_ok(mmt_parse_cpulist("1,", cpus, 64, &n, err, sizeof(err)) == -1, "cpulist: trailing comma");
	tap_ok(mmt_parse_cpulist("a", cpus, 64, &n, err, sizeof(err)) == -1, "cpulist: junk");
	tap_ok(mmt_parse_cpulist("", cpus, 64, &n, err, sizeof(err)) == -1, "cpulist: empty");
	tap_ok(mmt_parse_cpulist("0-100", cpus, 64, &n, err, sizeof(err)) == -1, "cpulist: too long");
	tap_ok(!mmt_parse_cpulist_loose("0-1,1-2\n", cpus, 64, &n) && n == 3, "cpulist loose: merges overlap");
	tap_ok(!mmt_parse_cpulist_loose("\n", cpus, 64, &n) && n == 0, "cpulist loose: empty node");
}

static void test_histogram(void)
{
	static struct mmt_hist h;
	double p50, p99;

	for (uint64_t v = 1; v <= 100000; v++)
		mmt_hist_add(&h, v);
	p50 = mmt_hist_percentile(&h, 0.5);
	p99 = mmt_hist_percentile(&h, 0.99);
	tap_ok(fabs(p50 - 50000) / 50000 < 0.035, "histogram: median within 3.5%% (%.0f)", p50);
	tap_ok(fabs(p99 - 99000) / 99000 < 0.035, "histogram: p99 within 3.5%% (%.0f)", p99);
	memset(&h, 0, sizeof(h));
	for (uint64_t v = 0; v < 32; v++)
		mmt_hist_add(&h, v);
	tap_ok(mmt_hist_percentile(&h, 1.0) == 31, "histogram: small values exact");
	tap_ok(mmt_hist_index(UINT64_MAX) < MMT_HIST_BUCKETS, "histogram: largest value in range");
	memset(&h, 0, sizeof(h));
	tap_ok(isnan(mmt_hist_percentile(&h, 0.5)), "histogram: empty gives NaN, not a number");
}

int main(void)
{
	test_u64();
	test_duration();
	test_cpulist();
	test_histogram();
	return tap_done();
}
