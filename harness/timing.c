/* SPDX-License-Identifier: MIT */
#include "timing.h"
#include "clock.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>

static void one_cpu(cpu_set_t *set, int cpu)
{
	CPU_ZERO(set);
	CPU_SET(cpu, set);
}

int mmt_pin_self(int cpu)
{
	return mmt_pin_thread(pthread_self(), cpu);
}

int mmt_pin_thread(pthread_t thread, int cpu)
{
	cpu_set_t set;

	if (cpu < 0 || cpu >= CPU_SETSIZE)
		return EINVAL;
	one_cpu(&set, cpu);
	return pthread_setaffinity_np(thread, sizeof(set), &set);
}

int mmt_pin_attr(pthread_attr_t *attr, int cpu)
{
	cpu_set_t set;

	if (cpu < 0 || cpu >= CPU_SETSIZE)
		return EINVAL;
	one_cpu(&set, cpu);
	return pthread_attr_setaffinity_np(attr, sizeof(set), &set);
}

uint64_t mmt_spin_clock_cycles(void)
{
	return mmt_cycles();
}

uint64_t mmt_spin_clock_ns(void)
{
	return mmt_now_ns();
}

enum mmt_spin_end mmt_spin_check(struct mmt_spin *s)
{
	if (s->stop && s->stop(s->arg))
		return MMT_SPIN_STOPPED;
	if (!s->deadline) {
		if (s->timeout)
			s->deadline = s->clock() + s->timeout;
	} else if ((int64_t)(s->clock() - s->deadline) > 0) {
		return MMT_SPIN_TIMEOUT;
	}
	if (s->yield_after && s->spins >= s->yield_after)
		sched_yield();
	return MMT_SPIN_ON;
}

void mmt_spin_until_ns(uint64_t end_ns)
{
	while ((int64_t)(mmt_now_ns() - end_ns) < 0)
		cpu_relax();
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

uint64_t mmt_median_u64(uint64_t *v, unsigned n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_u64);
	return n % 2 ? v[n / 2] : v[n / 2 - 1] / 2 + v[n / 2] / 2 + (v[n / 2 - 1] & v[n / 2] & 1);
}

double mmt_median_double(double *v, unsigned n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double mmt_pingpong_one_way(uint64_t *chunk, unsigned n, unsigned rounds)
{
	if (!n || !rounds)
		return 0;
	qsort(chunk, n, sizeof(*chunk), cmp_u64);
	/* The middle chunk, not a mean of two: a figure one chunk measured. */
	return (double)chunk[n / 2] / rounds / 2;
}
