/* SPDX-License-Identifier: MIT */
#include "clock.h"
#include "arch/barrier.h"

#include <stdio.h>
#include <string.h>

double mmt_cycles_per_ns(void)
{
	static double cached;
	uint64_t t0, t1, c0, c1;

	if (cached > 0)
		return cached;
	/* 20 ms of spinning: long enough that the two clock reads' own cost
	 * (tens of ns) is below 1e-5 of the interval. */
	t0 = mmt_now_ns();
	c0 = mmt_cycles();
	do
		t1 = mmt_now_ns();
	while (t1 - t0 < 20000000ull);
	c1 = mmt_cycles();
	cached = (double)(c1 - c0) / (double)(t1 - t0);
	return cached;
}

static bool read_synchronised(void)
{
#if defined(__x86_64__)
	char line[4096];
	bool constant = false, nonstop = false;
	FILE *f = fopen("/proc/cpuinfo", "r");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "flags", 5))
			continue;
		constant = strstr(line, " constant_tsc") != NULL;
		nonstop = strstr(line, " nonstop_tsc") != NULL;
		break;
	}
	fclose(f);
	return constant && nonstop;
#else
	return true;
#endif
}

bool mmt_cycles_synchronised(void)
{
	static int cached = -1;

	if (cached < 0)
		cached = read_synchronised();
	return cached;
}
