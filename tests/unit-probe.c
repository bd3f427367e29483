/* SPDX-License-Identifier: MIT */
/*
 * The probe's bounds: a CPU that never answers is a hang, named with where
 * the probe was; a pending stop signal ends it; a slow machine gets the
 * chunks that fit the budget, and says how many.  Responders stand in for
 * the real one to make a CPU silent or slow.
 */
#include "probe.h"
#include "timing.h"
#include "arch/barrier.h"
#include "tap.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

/* Starts, then never answers: a CPU the host stopped running. */
static void *silent(void *arg)
{
	struct mmt_probe_state *s = arg;

	mmt_pin_self(s->cpu);
	WRITE_ONCE(s->pinned, 1);
	while (READ_ONCE(s->line) != MMT_PROBE_STOP)
		usleep(1000);
	return NULL;
}

/* Never even gets to say it is pinned. */
static void *never_starts(void *arg)
{
	struct mmt_probe_state *s = arg;

	while (READ_ONCE(s->line) != MMT_PROBE_STOP)
		usleep(1000);
	return NULL;
}

/* Answers, 1 ms late every time: a machine under heavy load. */
static void *slow(void *arg)
{
	struct mmt_probe_state *s = arg;
	uint64_t v;

	mmt_pin_self(s->cpu);
	WRITE_ONCE(s->pinned, 1);
	while ((v = READ_ONCE(s->line)) != MMT_PROBE_STOP) {
		if (v & 1) {
			usleep(1000);
			WRITE_ONCE(s->line, v + 1);
		} else {
			usleep(50);
		}
	}
	return NULL;
}

int main(void)
{
	int b = sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 1 : 0;
	struct mmt_probe_pair p;
	struct mmt_probe_status st;
	struct mmt_probe_limits lim = { MMT_PROBE_BUDGET_NS, 200000000ull, silent };
	sigset_t stop;
	enum mmt_probe_end e;

	sigemptyset(&stop);
	sigaddset(&stop, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &stop, NULL);

	e = mmt_probe_pair(0, b, &p, &stop, NULL, &st);
	tap_ok(e == MMT_PROBE_OK && p.chunks >= 1 && p.chunks <= 31 && p.one_way_ns > 0,
	       "the real responder: a measurement (%d chunks, %.1f ns one way)", p.chunks, p.one_way_ns);

	e = mmt_probe_pair(0, b, &p, &stop, &lim, &st);
	tap_ok(e == MMT_PROBE_HUNG && strstr(st.where, "did not answer") && strstr(st.where, "round 0 of chunk 0"),
	       "a CPU that never answers is a hang, with where: %s", st.where);

	lim.responder = never_starts;
	e = mmt_probe_pair(0, b, &p, &stop, &lim, &st);
	tap_ok(e == MMT_PROBE_HUNG && strstr(st.where, "never started"), "a responder that never starts: %s", st.where);

	lim.responder = silent;
	lim.hang_ns = 3600ull * 1000000000ull; /* only the signal can end it */
	kill(getpid(), SIGTERM);		/* blocked: it stays pending */
	e = mmt_probe_pair(0, b, &p, &stop, &lim, &st);
	tap_is_int(e, MMT_PROBE_INTERRUPTED, "a pending stop signal ends a probe that would wait an hour");
	{
		struct timespec zero = { 0, 0 };

		tap_is_int(sigtimedwait(&stop, NULL, &zero), SIGTERM, "... and is left pending for the caller");
	}

	lim.responder = slow;
	lim.budget_ns = 50000000ull;
	lim.hang_ns = MMT_PROBE_HANG_NS;
	e = mmt_probe_pair(0, b, &p, &stop, &lim, &st);
	tap_ok(e == MMT_PROBE_OK && p.chunks >= 1 && p.chunks < 31,
	       "a slow machine: the chunks that fit the budget (%d of 31), not a hang", p.chunks);

	{
		int cpus[2] = { 0, b };
		struct mmt_probe_set *set;

		lim.responder = NULL;
		set = mmt_probe_cpus(cpus, 2, &stop, &st);
		tap_ok(set && st.end == MMT_PROBE_OK && (b == 0 || set->n == 1), "mmt_probe_cpus: one pair, status ok");
		free(set);
	}
	return tap_done();
}
