/* SPDX-License-Identifier: MIT */
/* Placement-adaptive synchronisation: the tuner over synthetic per-batch
 * one-way latency series (cycles at ~2.6 per ns), shaped like this VM's:
 * one L3 ~30-60 ns (80-150 cycles), different dies ~165-230 ns
 * (430-600 cycles). */
#include "probe.h"
#include "sync-tune.h"
#include "tap.h"

#define R MMT_PROBE_STABLE_RATIO

/* Feeds x[0..n) after the first; returns the period the last one left. */
static uint64_t feed(struct mmt_tune *t, const uint64_t *x, unsigned n)
{
	mmt_tune_init(t, R, x[0]);
	for (unsigned i = 1; i < n; i++)
		mmt_tune_sample(t, x[i]);
	return mmt_tune_period(t->level);
}

int main(void)
{
	struct mmt_tune t;

	{
		static const uint64_t x[] = { 150, 152, 148, 151, 149, 150, 153, 147 };
		uint64_t p = feed(&t, x, 8);

		tap_is_int(t.retunes, 0, "a steady series needs no retune");
		tap_ok(t.level >= 140 && t.level <= 160, "the level sits at the latency (%llu)", (unsigned long long)t.level);
		tap_ok(p >= 16 && p < 2 * t.level, "the period is under twice the latency (%llu)", (unsigned long long)p);
	}
	{
		/* One L3, then the vCPUs move to different dies. */
		static const uint64_t l3[] = { 150, 152, 148, 151 };
		static const uint64_t dies[] = { 150, 152, 148, 151, 440, 450, 445, 452 };
		uint64_t before = feed(&t, l3, 4), after = feed(&t, dies, 8);

		tap_is_int(t.retunes, 1, "a move to another die is one retune");
		tap_ok(after > before, "and a longer period (%llu -> %llu)", (unsigned long long)before,
		       (unsigned long long)after);
		tap_ok(t.level >= 400 && t.level <= 500, "at the new latency (%llu)", (unsigned long long)t.level);
	}
	{
		/* And back: from different dies to one L3. */
		static const uint64_t dies[] = { 600, 590, 610, 605 };
		static const uint64_t back[] = { 600, 590, 610, 605, 80, 78, 82, 79 };
		uint64_t before = feed(&t, dies, 4), after = feed(&t, back, 8);

		tap_is_int(t.retunes, 1, "a move into one L3 is one retune");
		tap_ok(after < before, "and a shorter period (%llu -> %llu)", (unsigned long long)before,
		       (unsigned long long)after);
	}
	{
		/* A ping-pong preempted once is not a move, up or down. */
		static const uint64_t up[] = { 150, 152, 148, 5000, 151, 149, 150 };
		static const uint64_t up_without[] = { 150, 152, 148, 151, 149, 150 };
		static const uint64_t down[] = { 450, 452, 448, 40, 451, 449, 450 };
		static const uint64_t down_without[] = { 450, 452, 448, 451, 449, 450 };
		uint64_t steady = feed(&t, up_without, 6), p = feed(&t, up, 7);

		tap_is_int(t.retunes, 0, "one outlier up is no retune");
		tap_is_int(t.outliers, 1, "but one outlier");
		tap_ok(p == steady, "and the period stays (%llu, %llu)", (unsigned long long)p, (unsigned long long)steady);
		steady = feed(&t, down_without, 6);
		p = feed(&t, down, 7);
		tap_is_int(t.retunes, 0, "one outlier down is no retune");
		tap_ok(p == steady, "and the period stays (%llu, %llu)", (unsigned long long)p, (unsigned long long)steady);
	}
	{
		/* While a sample is held back the loops keep the old level. */
		static const uint64_t x[] = { 150, 150, 151 };

		feed(&t, x, 3);
		tap_is_int(mmt_tune_sample(&t, 600), MMT_TUNE_HELD, "a first sample off the estimate is held");
		tap_ok(t.level < 200, "with the level unchanged (%llu)", (unsigned long long)t.level);
		tap_is_int(mmt_tune_sample(&t, 610), MMT_TUNE_MOVED, "the next one agreeing moves it");
		tap_ok(t.level > 500, "to the new level (%llu)", (unsigned long long)t.level);
	}
	{
		/* Two outliers in a row that disagree with each other are two
		 * outliers, not a move. */
		static const uint64_t x[] = { 150, 150, 151, 2000, 600, 150, 149 };

		feed(&t, x, 7);
		tap_is_int(t.retunes, 0, "two unlike excursions are no retune");
		tap_is_int(t.outliers, 2, "but two outliers");
	}
	{
		/* Jitter within a placement leaves the period alone; a drift
		 * past the grid step follows it. */
		static const uint64_t jitter[] = { 150, 156, 144, 153, 147, 158, 142, 150 };
		static const uint64_t drift[] = { 150, 160, 170, 180, 190, 200, 210, 220 };
		uint64_t p0 = mmt_tune_period(150), p;
		unsigned changes = 0;

		mmt_tune_init(&t, R, jitter[0]);
		p = mmt_tune_period(t.level);
		for (unsigned i = 1; i < 8; i++) {
			uint64_t q;

			mmt_tune_sample(&t, jitter[i]);
			q = mmt_tune_period(t.level);
			changes += q != p;
			p = q;
		}
		tap_is_int(changes, 0, "jitter of +-6%% keeps one period (%llu)", (unsigned long long)p);
		p = feed(&t, drift, 8);
		tap_ok(p > p0 && t.retunes == 0, "a slow drift to 220 lengthens it without a retune (%llu)",
		       (unsigned long long)p);
	}
	tap_ok(mmt_tune_period(100) < mmt_tune_period(200) && mmt_tune_period(200) < mmt_tune_period(600),
	       "the period grows with the latency");
	tap_ok(mmt_tune_period(0) >= 16 && mmt_tune_period(UINT64_MAX / 4) <= 1000000, "within --period's bounds");
	return tap_done();
}
