/* SPDX-License-Identifier: MIT */
#include "sync-tune.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "timing.h"

/*
 * The period law's constants (mmt_tune_period), in cycles, chosen on this
 * project's VM (AMD EPYC, ~2.6 cycles per ns) from SB's witnesses/s per
 * tuned latency (sync_track segments), 2026-12-03, load 2.5-3:
 *   one L3 (one way ~108 cycles): 16 + L/4: 28.8-33.8M/s, 16 + L/3:
 *     20.3-25.4M/s, a fixed 150: 13.0M/s
 *   different dies (~412 cycles): 16 + L/3: 7.5-9.6M/s, a fixed 150:
 *     7.2M/s, 16 + L/4: 2.6-3.8M/s (nearly every slot missed, the threads
 *     run free)
 * so the period wants about 43 cycles at one L3 and 150 across dies: the
 * line through the two, 4 + 23/64 L (one L3 34.4M/s, dies 6.5M/s).
 */
#define PERIOD_FIXED 4
#define PERIOD_PER_LATENCY_NUM 23
#define PERIOD_PER_LATENCY_DEN 64
#define PERIOD_MIN 16
#define PERIOD_MAX 1000000
/* Grid steps per octave for the level. */
#define LEVEL_STEPS 8
#define HYSTERESIS 2.0

bool mmt_tune_differs(double x, double ref, double ratio)
{
	return x > ref * ratio || x * ratio < ref;
}

static void push(struct mmt_tune *t, double x)
{
	double v[MMT_TUNE_WINDOW];

	t->win[t->next] = x;
	t->next = (t->next + 1) % MMT_TUNE_WINDOW;
	if (t->n < MMT_TUNE_WINDOW)
		t->n++;
	memcpy(v, t->win, t->n * sizeof(v[0]));
	t->est = mmt_median_double(v, t->n);
}

/* The level follows the estimate once it is more than HYSTERESIS steps
 * away (a placement's samples spread about 10%), and then sits on the
 * grid point nearest. */
static void follow(struct mmt_tune *t)
{
	double steps = log2(t->est >= 1 ? t->est : 1) * LEVEL_STEPS;

	if (t->level && fabs(steps - log2((double)t->level) * LEVEL_STEPS) <= 1.0)
		return;
	t->level = (uint64_t)llround(exp2(round(steps) / LEVEL_STEPS));
	if (!t->level)
		t->level = 1;
}

void mmt_tune_init(struct mmt_tune *t, double ratio, double first)
{
	*t = (struct mmt_tune){ .ratio = ratio };
	push(t, first);
	follow(t);
}

int mmt_tune_sample(struct mmt_tune *t, double x)
{
	int what = MMT_TUNE_KEPT;

	t->samples++;
	if (!mmt_tune_differs(x, t->est, t->ratio)) {
		if (t->has_pending)
			t->outliers++;	/* the one held back stood alone */
		t->has_pending = false;
		push(t, x);
	} else if (t->has_pending && !mmt_tune_differs(x, t->pending, t->ratio)) {
		/* Two in a row agree on somewhere else: the vCPUs moved. */
		t->n = t->next = 0;
		push(t, t->pending);
		push(t, x);
		t->has_pending = false;
		t->retunes++;
		what = MMT_TUNE_MOVED;
	} else {
		if (t->has_pending)
			t->outliers++;
		t->pending = x;
		t->has_pending = true;
		return MMT_TUNE_HELD;
	}
	follow(t);
	return what;
}

uint64_t mmt_tune_period(uint64_t one_way)
{
	uint64_t p = PERIOD_FIXED + one_way * PERIOD_PER_LATENCY_NUM / PERIOD_PER_LATENCY_DEN;

	return p < PERIOD_MIN ? PERIOD_MIN : p > PERIOD_MAX ? PERIOD_MAX : p;
}
