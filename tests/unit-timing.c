/* SPDX-License-Identifier: MIT */
/*
 * The timing layer (timing.h, sync-tune.h): pinning, bounded spins, the
 * ping-pong between two pinned threads, delays; then the placement tuner
 * over synthetic per-batch one-way latency series (cycles at ~2.6 per ns),
 * shaped like this VM's: one L3 ~30-60 ns (80-150 cycles), different dies
 * ~165-230 ns (430-600 cycles).
 */
#include "clock.h"
#include "probe.h"
#include "sync-tune.h"
#include "timing.h"
#include "tap.h"

#include <errno.h>
#include <sched.h>
#include <unistd.h>

#define R MMT_PROBE_STABLE_RATIO

/* Feeds x[0..n) after the first; returns the period the last one left. */
static uint64_t feed(struct mmt_tune *t, const uint64_t *x, unsigned n)
{
	mmt_tune_init(t, R, x[0]);
	for (unsigned i = 1; i < n; i++)
		mmt_tune_sample(t, x[i]);
	return mmt_tune_period(t->level);
}

struct pair {
	uint64_t line __mmt_aligned;
	int cpu, rounds;
	bool answer;		/* false: a side that never answers */
};

static bool never(const void *arg)
{
	(void)arg;
	return false;
}

static bool yes(const void *arg)
{
	(void)arg;
	return true;
}

static void *answerer(void *arg)
{
	struct pair *p = arg;
	struct mmt_spin spin = { .check_every = 1024, .yield_after = p->cpu ? 0 : 1, .timeout = 5000000000ull,
				 .clock = mmt_spin_clock_ns };

	mmt_pin_self(p->cpu);
	for (int r = 0; p->answer && r < p->rounds; r++) {
		spin.deadline = 0;
		if (mmt_pingpong_answer(&p->line, 2 * (uint64_t)r + 1, &spin) != MMT_SPIN_ON)
			break;
	}
	return NULL;
}

/* Chunks of rounds between CPU 0 and other; MMT_SPIN_ON and the one-way
 * latency, or how the asker's wait ended. */
static enum mmt_spin_end pingpong(int other, bool answer, uint64_t timeout_ns, double *one_way)
{
	static struct pair p;
	/* One CPU: each side steps aside for the other. */
	struct mmt_spin spin = { .check_every = 1024, .yield_after = other ? 0 : 1, .timeout = timeout_ns,
				 .clock = mmt_spin_clock_ns };
	uint64_t chunk[5], v = 1;
	enum mmt_spin_end e = MMT_SPIN_ON;
	pthread_t th;

	p = (struct pair){ .line = 0, .cpu = other, .rounds = 5 * 16, .answer = answer };
	mmt_pin_self(0);
	pthread_create(&th, NULL, answerer, &p);
	for (unsigned c = 0; c < 5 && e == MMT_SPIN_ON; c++) {
		uint64_t t0 = mmt_now_ns();

		for (unsigned r = 0; r < 16 && e == MMT_SPIN_ON; r++, v += 2) {
			spin.deadline = 0;
			e = mmt_pingpong_ask(&p.line, v, &spin);
		}
		chunk[c] = mmt_now_ns() - t0;
	}
	pthread_join(th, NULL);
	if (e == MMT_SPIN_ON)
		*one_way = mmt_pingpong_one_way(chunk, 5, 16);
	return e;
}

static void test_pin_and_spin(void)
{
	struct mmt_spin s = { .check_every = 4, .timeout = 1000000, .clock = mmt_spin_clock_ns };
	enum mmt_spin_end e;
	unsigned n = 0;

	tap_is_int(mmt_pin_self(-1), EINVAL, "pinning to CPU -1 is refused");
	tap_is_int(mmt_pin_self(CPU_SETSIZE), EINVAL, "pinning past CPU_SETSIZE is refused");
	tap_is_int(mmt_pin_self(0), 0, "pinning to CPU 0 works");
	tap_is_int(sched_getcpu(), 0, "and the thread runs there");
	while ((e = mmt_spin_step(&s)) == MMT_SPIN_ON && n < 100000000)
		n++;
	tap_is_int(e, MMT_SPIN_TIMEOUT, "a lazily armed 1 ms bound ends a wait (%u spins)", n);
	s = (struct mmt_spin){ .check_every = 4, .clock = mmt_spin_clock_ns, .stop = yes };
	for (n = 0; (e = mmt_spin_step(&s)) == MMT_SPIN_ON; n++)
		;
	tap_ok(e == MMT_SPIN_STOPPED && n == 3, "stop() ends it at the first check (%u spins)", n);
	s = (struct mmt_spin){ .check_every = 4, .clock = mmt_spin_clock_ns, .stop = never };
	for (n = 0; mmt_spin_step(&s) == MMT_SPIN_ON && n < 100000; n++)
		;
	tap_is_int(n, 100000, "no deadline, no timeout: it never gives up by itself");
}

static void test_pingpong(void)
{
	int other = sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 1 : 0;
	uint64_t word = 0, chunk[] = { 900, 100, 120, 5000000, 110 };
	double one_way = 0;

	tap_is_int(mmt_pingpong_ask(&word, 7, &(struct mmt_spin){ .check_every = 1, .stop = yes }),
		   MMT_SPIN_STOPPED, "an asker nobody answers stops when told");
	tap_is_int(word, 7, "having left its question on the line");
	word = 8;
	tap_is_int(mmt_pingpong_ask(&word, 7, &(struct mmt_spin){ .check_every = 1, .stop = yes }),
		   MMT_SPIN_STOPPED, "an old answer on the line is no answer");
	word = 5;
	tap_is_int(mmt_pingpong_answer(&word, 5, &(struct mmt_spin){ .check_every = 1, .stop = yes }), MMT_SPIN_ON,
		   "an answerer that finds its question answers at once");
	tap_is_int(word, 6, "with the next value");

	tap_is_int(pingpong(other, true, 5000000000ull, &one_way), MMT_SPIN_ON, "a ping-pong with CPU %d completes",
		   other);
	tap_ok(one_way > 0 && one_way < 1e9, "a one-way latency (%.1f ns)", one_way);
	tap_is_int(pingpong(other, false, 20000000ull, &one_way), MMT_SPIN_TIMEOUT,
		   "a side that never answers: the asker's 20 ms bound ends it");
	tap_ok(mmt_pingpong_one_way(chunk, 5, 10) == 120.0 / 10 / 2,
	       "one way: the middle chunk, per round, halved (one preempted chunk ignored)");
}

static void test_delays(void)
{
	uint64_t even[] = { 4, 1, 3, 2 }, seed = 42, again = 42, t0;
	double d[] = { 3, 1, 2 };
	bool bounded = true, same = true;

	tap_ok(mmt_median_u64(even, 4) == 2 && mmt_median_double(d, 3) == 2, "medians");
	for (int i = 0; i < 10000; i++) {
		uint64_t x = mmt_random_upto(&seed, 6), y = mmt_random_upto(&again, 6);

		bounded &= x <= 6;
		same &= x == y;
	}
	tap_ok(bounded && same, "random delays stay in [0, max] and follow from the seed");
	tap_is_int(mmt_random_upto(&seed, 0), 0, "a zero bound is no delay");
	t0 = mmt_now_ns();
	mmt_spin_until_ns(t0 + 2000000);
	tap_ok(mmt_now_ns() - t0 >= 2000000, "a 2 ms spin lasts at least 2 ms");
}

static void test_tune_steady(void)
{
	static const uint64_t x[] = { 150, 152, 148, 151, 149, 150, 153, 147 };
	struct mmt_tune t;
	uint64_t p = feed(&t, x, 8);

	tap_is_int(t.retunes, 0, "a steady series needs no retune");
	tap_ok(t.level >= 140 && t.level <= 160, "the level sits at the latency (%llu)", (unsigned long long)t.level);
	tap_ok(p >= 16 && p < 2 * t.level, "the period is under twice the latency (%llu)", (unsigned long long)p);
}

/* One L3, then the vCPUs move to different dies. */
static void test_tune_move_apart(void)
{
	static const uint64_t l3[] = { 150, 152, 148, 151 };
	static const uint64_t dies[] = { 150, 152, 148, 151, 440, 450, 445, 452 };
	struct mmt_tune t;
	uint64_t before = feed(&t, l3, 4), after = feed(&t, dies, 8);

	tap_is_int(t.retunes, 1, "a move to another die is one retune");
	tap_ok(after > before, "and a longer period (%llu -> %llu)", (unsigned long long)before,
	       (unsigned long long)after);
	tap_ok(t.level >= 400 && t.level <= 500, "at the new latency (%llu)", (unsigned long long)t.level);
}

/* And back: from different dies to one L3. */
static void test_tune_move_together(void)
{
	static const uint64_t dies[] = { 600, 590, 610, 605 };
	static const uint64_t back[] = { 600, 590, 610, 605, 80, 78, 82, 79 };
	struct mmt_tune t;
	uint64_t before = feed(&t, dies, 4), after = feed(&t, back, 8);

	tap_is_int(t.retunes, 1, "a move into one L3 is one retune");
	tap_ok(after < before, "and a shorter period (%llu -> %llu)", (unsigned long long)before,
	       (unsigned long long)after);
}

/* A ping-pong preempted once is not a move, up or down. */
static void test_tune_one_outlier(void)
{
	static const uint64_t up[] = { 150, 152, 148, 5000, 151, 149, 150 };
	static const uint64_t up_without[] = { 150, 152, 148, 151, 149, 150 };
	static const uint64_t down[] = { 450, 452, 448, 40, 451, 449, 450 };
	static const uint64_t down_without[] = { 450, 452, 448, 451, 449, 450 };
	struct mmt_tune t;
	uint64_t steady = feed(&t, up_without, 6), p = feed(&t, up, 7);

	tap_is_int(t.retunes, 0, "one outlier up is no retune");
	tap_is_int(t.outliers, 1, "but one outlier");
	tap_ok(p == steady, "and the period stays (%llu, %llu)", (unsigned long long)p, (unsigned long long)steady);
	steady = feed(&t, down_without, 6);
	p = feed(&t, down, 7);
	tap_is_int(t.retunes, 0, "one outlier down is no retune");
	tap_ok(p == steady, "and the period stays (%llu, %llu)", (unsigned long long)p, (unsigned long long)steady);
}

/* While a sample is held back the loops keep the old level. */
static void test_tune_held(void)
{
	static const uint64_t x[] = { 150, 150, 151 };
	struct mmt_tune t;

	feed(&t, x, 3);
	tap_is_int(mmt_tune_sample(&t, 600), MMT_TUNE_HELD, "a first sample off the estimate is held");
	tap_ok(t.level < 200, "with the level unchanged (%llu)", (unsigned long long)t.level);
	tap_is_int(mmt_tune_sample(&t, 610), MMT_TUNE_MOVED, "the next one agreeing moves it");
	tap_ok(t.level > 500, "to the new level (%llu)", (unsigned long long)t.level);
}

/* Two outliers in a row that disagree with each other are two outliers,
 * not a move. */
static void test_tune_two_outliers(void)
{
	static const uint64_t x[] = { 150, 150, 151, 2000, 600, 150, 149 };
	struct mmt_tune t;

	feed(&t, x, 7);
	tap_is_int(t.retunes, 0, "two unlike excursions are no retune");
	tap_is_int(t.outliers, 2, "but two outliers");
}

/* Jitter within a placement leaves the period alone; a drift past the
 * grid step follows it. */
static void test_tune_jitter_drift(void)
{
	static const uint64_t jitter[] = { 150, 156, 144, 153, 147, 158, 142, 150 };
	static const uint64_t drift[] = { 150, 160, 170, 180, 190, 200, 210, 220 };
	struct mmt_tune t;
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

static void test_tune_period(void)
{
	tap_ok(mmt_tune_period(100) < mmt_tune_period(200) && mmt_tune_period(200) < mmt_tune_period(600),
	       "the period grows with the latency");
	tap_ok(mmt_tune_period(0) >= 16 && mmt_tune_period(UINT64_MAX / 4) <= 1000000, "within --period's bounds");
}

int main(void)
{
	test_pin_and_spin();
	test_pingpong();
	test_delays();
	test_tune_steady();
	test_tune_move_apart();
	test_tune_move_together();
	test_tune_one_outlier();
	test_tune_held();
	test_tune_two_outliers();
	test_tune_jitter_drift();
	test_tune_period();
	return tap_done();
}
