/* SPDX-License-Identifier: MIT */
#include "runner.h"
#include "descriptor.h"
#include "integrity.h"
#include "metrics.h"
#include "arch/barrier.h"
#include "clock.h"
#include "conditions.h"
#include "exit-codes.h"
#include "parse.h"
#include "placement-track.h"
#include "record.h"
#include "sysctl.h"
#include "timing.h"
#include "topology.h"

#include <errno.h>
#include <numa.h>
#include <numaif.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define HANG_GRACE_NS (10ull * 1000000000ull)


/* Start/finish bookkeeping, each counter on its own line: workers spin on
 * 'armed' at the start and we do not want that to slow the 'finished' add. */
static struct {
	unsigned armed __mmt_aligned;
	unsigned finished __mmt_aligned;
	pthread_barrier_t barrier;
	uint64_t t_begin[MMT_MAX_CPUS];
	uint64_t t_end[MMT_MAX_CPUS];
	uint64_t preemptions[MMT_MAX_CPUS];	/* involuntary switches in the loop */
	uint64_t cpu_ns[MMT_MAX_CPUS];		/* CPU time in the loop */
	struct mmt_conditions conditions;	/* the machine meanwhile */
} sync_state;

/* The calling thread's involuntary switches and CPU time so far, from one
 * system call. */
static void thread_usage(uint64_t *switches, uint64_t *cpu_ns)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru)) {
		*switches = *cpu_ns = 0;
		return;
	}
	*switches = (uint64_t)ru.ru_nivcsw;
	*cpu_ns = ((uint64_t)ru.ru_utime.tv_sec + (uint64_t)ru.ru_stime.tv_sec) * 1000000000ull +
		  ((uint64_t)ru.ru_utime.tv_usec + (uint64_t)ru.ru_stime.tv_usec) * 1000ull;
}

/* The test hooks (placement-track.h), read once before the first run. */
static const struct mmt_track_env *track_env(void)
{
	static struct mmt_track_env env;
	static bool loaded;
	char err[256];

	if (!loaded) {
		if (mmt_track_env_parse(getenv("MMT_TRACK_INTERVAL_MS"), getenv("MMT_TEST_MOVE"), &env,
					err, sizeof(err))) {
			fprintf(stderr, "mmtorture: %s\n", err);
			exit(2);
		}
		loaded = true;
	}
	return &env;
}

/* MMT_TEST_MOVE: re-pin worker threads at their times into the run. */
static void apply_moves(const struct mmt_run *run, const pthread_t *threads, uint64_t since_ns,
			unsigned *done)
{
	const struct mmt_track_env *env = track_env();

	for (; *done < env->nr_moves && env->move[*done].at_ns <= since_ns; (*done)++) {
		const struct mmt_move *m = &env->move[*done];
		int err;

		if (m->worker >= run->nr_workers)
			continue;	/* this run has no such worker */
		err = mmt_pin_thread(threads[m->worker], m->cpu);
		if (err)
			fprintf(stderr, "mmtorture: MMT_TEST_MOVE: cannot move worker %u to CPU %d: %s\n",
				m->worker, m->cpu, strerror(err));
	}
}

/* Nanoseconds until the next test move, or UINT64_MAX. */
static uint64_t next_move_in(uint64_t since_ns, unsigned done)
{
	const struct mmt_track_env *env = track_env();

	if (done >= env->nr_moves)
		return UINT64_MAX;
	return env->move[done].at_ns > since_ns ? env->move[done].at_ns - since_ns : 0;
}

static void *trampoline(void *arg)
{
	struct mmt_worker *w = arg;
	unsigned n = w->run->nr_workers;

	w->cpu_seen_start = sched_getcpu();
	mmt_worker_at(w, "start-up (waiting for the other workers)");
	if (w->run->events)
		mmt_counters_open_thread(w->run->events, &w->run->counters[w->id]);
	/* Counted from here, not between the spin and the loop: nothing may
	 * come between those two (a system call there, slow under qemu-user,
	 * let the ring's consumer start behind its producer and miss the
	 * injected fault in 12 runs of 20). */
	thread_usage(&sync_state.preemptions[w->id], &sync_state.cpu_ns[w->id]);
	/* The pthread barrier wakes everyone from sleep with tens of
	 * microseconds of skew; the spin that follows lines them up within
	 * a cache-line transfer, so the racing loops start together. */
	pthread_barrier_wait(&sync_state.barrier);
	__atomic_fetch_add(&sync_state.armed, 1, __ATOMIC_ACQ_REL);
	while (__atomic_load_n(&sync_state.armed, __ATOMIC_ACQUIRE) < n)
		cpu_relax();
	if (w->run->events)
		mmt_counters_enable(w->run->events, &w->run->counters[w->id]);
	sync_state.t_begin[w->id] = mmt_now_ns();
	mmt_worker_at(w, "its loop");
	if (w->run->sc->variant_worker)
		w->run->sc->variant_worker[w->run->variant - w->run->sc->variants](w);
	else
		w->run->sc->worker(w);
	sync_state.t_end[w->id] = mmt_now_ns();
	{
		uint64_t switches, cpu;

		thread_usage(&switches, &cpu);
		sync_state.preemptions[w->id] = switches - sync_state.preemptions[w->id];
		sync_state.cpu_ns[w->id] = cpu - sync_state.cpu_ns[w->id];
	}
	if (w->run->events) {
		mmt_counters_disable(w->run->events, &w->run->counters[w->id]);
		mmt_counters_collect(w->run->events, &w->run->counters[w->id]);
	}
	w->cpu_seen_end = sched_getcpu();
	mmt_worker_at(w, NULL);
	__atomic_fetch_add(&sync_state.finished, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* System-wide tracepoint counters on every online CPU: kernel work such as
 * kcompactd or TLB shootdown IPIs runs on CPUs and in threads of its own.
 * They span thread start-up too, a few hundred microseconds. */
static void open_cpu_counters(struct mmt_run *run)
{
	static int online[MMT_MAX_CPUS];
	char list[4096] = "";
	bool any = false;
	int n = 0;
	FILE *f;

	for (unsigned i = 0; i < run->events->nr; i++)
		any |= run->events->ev[i].kind == MMT_EV_TRACEPOINT;
	if (!any || !run->events->system_wide_tracepoints)
		return;
	f = fopen("/sys/devices/system/cpu/online", "r");
	if (!f)
		return;
	if (!fgets(list, sizeof(list), f) || mmt_parse_cpulist_loose(list, online, MMT_MAX_CPUS, &n))
		n = 0;
	fclose(f);
	run->cpu_counters = calloc((size_t)n, sizeof(*run->cpu_counters));
	run->cpu_ids = calloc((size_t)n, sizeof(*run->cpu_ids));
	if (!run->cpu_counters || !run->cpu_ids)
		return;
	for (int k = 0; k < n; k++) {
		run->cpu_ids[run->nr_cpu_counters] = online[k];
		mmt_counters_open_cpu(run->events, online[k], &run->cpu_counters[run->nr_cpu_counters++]);
	}
	for (unsigned k = 0; k < run->nr_cpu_counters; k++)
		mmt_counters_enable(run->events, &run->cpu_counters[k]);
}

static void close_cpu_counters(struct mmt_run *run)
{
	for (unsigned k = 0; k < run->nr_cpu_counters; k++) {
		mmt_counters_disable(run->events, &run->cpu_counters[k]);
		mmt_counters_collect(run->events, &run->cpu_counters[k]);
	}
}

static void record_integrity(struct mmt_run *run)
{
	struct mmt_integrity in = { .nr_workers = run->nr_workers, .t_begin = sync_state.t_begin,
				    .t_end = sync_state.t_end, .preemptions = sync_state.preemptions,
				    .ops = run->ops, .requested_ns = run->requested_ns };

	struct mmt_integrity_report ir;
	struct mmt_conditions_report cr;

	run->invalid = !mmt_integrity_valid(&in, run->invalid_reason, sizeof(run->invalid_reason));
	mmt_integrity_report(&in, &ir);
	run->integrity = mmt_shape_json(&mmt_integrity_shape, &ir);
	mmt_conditions_report(&sync_state.conditions, sync_state.cpu_ns, sync_state.t_begin, sync_state.t_end,
			      run->nr_workers, run->ops, &cr);
	run->conditions = mmt_shape_json(&mmt_conditions_shape, &cr);
}

/*
 * Detection speed, from the workers' first witnesses: the earliest time
 * since the run started, the fewest iterations, and witnesses per second
 * over the run.  Then the placement split, while the workers' final
 * counts are still there.
 */
struct detection {
	uint64_t witnesses;
	double witnesses_per_sec;
	uint64_t first_witness_ns, first_witness_iteration;	/* MMT_NONE: none seen */
};

static const struct mmt_field detection_fields[] = {
	MMT_FIELD(struct detection, witnesses, MMT_F_COUNT),
	MMT_FIELD(struct detection, witnesses_per_sec, MMT_F_REAL),
	MMT_FIELD(struct detection, first_witness_ns, MMT_F_COUNT),
	MMT_FIELD(struct detection, first_witness_iteration, MMT_F_COUNT),
};
static const struct mmt_shape detection_shape = MMT_SHAPE(struct detection, detection_fields);

static void record_harness_figures(struct mmt_run *run)
{
	uint64_t first_ns = 0, first_iter = UINT64_MAX, start = UINT64_MAX, witnesses = 0;
	struct detection det;
	double secs = (double)run->elapsed_ns / 1e9;

	for (unsigned i = 0; i < run->nr_workers; i++) {
		const struct mmt_worker *w = &run->workers[i];

		if (sync_state.t_begin[i] < start)
			start = sync_state.t_begin[i];
		if (w->first_witness_ns && (!first_ns || w->first_witness_ns < first_ns))
			first_ns = w->first_witness_ns;
		if (w->first_witness_ns && w->first_witness_iteration < first_iter)
			first_iter = w->first_witness_iteration;
	}
	for (unsigned o = 1; o < run->sc->nr_outcomes; o++)
		witnesses += run->outcomes[o];
	det = (struct detection){
		.witnesses = witnesses, .witnesses_per_sec = secs > 0 ? (double)witnesses / secs : 0.0,
		.first_witness_ns = first_ns ? (first_ns > start ? first_ns - start : 0) : MMT_NONE,
		.first_witness_iteration = first_ns ? first_iter : MMT_NONE,
	};
	run->detection = mmt_shape_json(&detection_shape, &det);
	if (run->track) {
		struct mmt_track_report *tr = malloc(sizeof(*tr));

		/* NULL (nothing to say) is the record's null */
		if (tr && !mmt_track_report(run->track, run, run->elapsed_ns, tr))
			run->placement_track = mmt_shape_json(&mmt_track_shape, tr);
		free(tr);
	}
	record_integrity(run);
}

static void *alloc_shared(size_t size, int node, int *actual)
{
	void *p;

	*actual = -1;
	if (numa_available() < 0) {
		p = aligned_alloc(4096, (size + 4095) & ~(size_t)4095);
		if (p)
			memset(p, 0, size);
		return p;
	}
	p = numa_alloc_onnode(size, node);
	if (!p)
		return NULL;
	/* Fault every page in now, under the node binding, rather than on the
	 * first racing access. */
	memset(p, 0, size);
	if (get_mempolicy(actual, NULL, 0, p, MPOL_F_NODE | MPOL_F_ADDR))
		*actual = -1;
	return p;
}

static void free_shared(void *p, size_t size)
{
	if (!p)
		return;
	if (numa_available() < 0)
		free(p);
	else
		numa_free(p, size);
}

static int wait_signal(const sigset_t *sigs, uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000ull),
			       .tv_nsec = (long)(ns % 1000000000ull) };
	siginfo_t info;
	int sig = sigtimedwait(sigs, &info, &ts);

	return sig > 0 ? sig : 0;
}

static bool all_finished(unsigned n)
{
	return __atomic_load_n(&sync_state.finished, __ATOMIC_ACQUIRE) == n;
}

/* The workers that did not stop, and the phase each is in (mmt_worker_at):
 * "where it was", so a hang can be told from a slow loop and found. */
static void report_hang(const struct mmt_run *run, struct mmt_run_outcome *out, bool starting)
{
	unsigned n = run->nr_workers;
	const char *sep = "";
	int len;

	out->end = MMT_END_HUNG;
	if (starting)
		len = snprintf(out->error, sizeof(out->error), "%u of %u workers did not start within %llu s:",
			       n - __atomic_load_n(&sync_state.armed, __ATOMIC_ACQUIRE), n,
			       HANG_GRACE_NS / 1000000000ull);
	else
		len = snprintf(out->error, sizeof(out->error),
			       "%u of %u workers did not stop within %llu s of the stop request:",
			       n - __atomic_load_n(&sync_state.finished, __ATOMIC_ACQUIRE), n,
			       HANG_GRACE_NS / 1000000000ull);
	for (unsigned i = 0; i < n && len > 0 && (size_t)len < sizeof(out->error); i++) {
		const struct mmt_worker *w = &run->workers[i];
		const char *where = __atomic_load_n(&w->where, __ATOMIC_RELAXED);

		if (!where)
			continue;
		len += snprintf(out->error + len, sizeof(out->error) - (size_t)len,
				"%s worker %u (%s, CPU %d) in %s", sep, i,
				w->role ? w->role : "worker", w->cpu, where);
		sep = ";";
	}
}

/* Sleeps until every worker returned, the duration passed or a signal came. */
/* The duration counts from the moment the last worker is ready: a run
 * whose threads were slow to start is not shortened by it.  Bounded: a
 * worker that never gets there is a hang, reported with where it is. */
static bool wait_armed(struct mmt_run *run, const sigset_t *sigs, struct mmt_run_outcome *out)
{
	uint64_t since = mmt_now_ns();

	while (__atomic_load_n(&sync_state.armed, __ATOMIC_ACQUIRE) < run->nr_workers) {
		int sig;

		if (mmt_now_ns() - since > HANG_GRACE_NS) {
			mmt_request_stop();
			report_hang(run, out, true);
			return false;
		}
		/* 20 ms as below, not finer: a supervisor waking often while
		 * the workers line up takes their CPU just as they start (the
		 * ring's injected fault under qemu-user beside stress-ng was
		 * missed in 7 runs of 20 at 1 ms). */
		sig = wait_signal(sigs, 20000000ull);
		if (sig) {
			out->end = MMT_END_INTERRUPTED;
			out->signo = sig;
			mmt_request_stop();
			return true;
		}
	}
	return true;
}

static void supervise(struct mmt_run *run, const pthread_t *threads, uint64_t duration_ns,
		      const sigset_t *sigs, struct mmt_run_outcome *out)
{
	uint64_t start, stop_at = 0;
	unsigned moves_done = 0;

	mmt_conditions_begin(&sync_state.conditions, run->nr_workers);
	if (!wait_armed(run, sigs, out))
		return;
	start = mmt_now_ns();
	if (out->end == MMT_END_INTERRUPTED)
		stop_at = start;

	for (;;) {
		uint64_t now = mmt_now_ns(), slice = 20000000ull;
		int sig;

		if (all_finished(run->nr_workers))
			return;
		mmt_conditions_sample(&sync_state.conditions);
		apply_moves(run, threads, now - start, &moves_done);
		if (next_move_in(now - start, moves_done) < slice)
			slice = next_move_in(now - start, moves_done);
		if (stop_at && now - stop_at > HANG_GRACE_NS) {
			report_hang(run, out, false);
			return;
		}
		if (!stop_at && duration_ns) {
			if (now - start >= duration_ns) {
				mmt_request_stop();
				stop_at = now;
				continue;
			}
			if (duration_ns - (now - start) < slice)
				slice = duration_ns - (now - start);
		}
		sig = wait_signal(sigs, slice);
		if (sig && out->end != MMT_END_INTERRUPTED) {
			out->end = MMT_END_INTERRUPTED;
			out->signo = sig;
			mmt_request_stop();
			stop_at = mmt_now_ns();
		}
	}
}

/* Test hook MMT_TEST_PREPARE_FAIL=1: a prepare() that returned 0 is taken
 * as failed, so the suite can see that cleanup() undoes everything a
 * prepare() did on the error path (tests/prepare-fail.sh).  Read once. */
static bool prepare_fails_for_test(void)
{
	static int fail = -1;

	if (fail < 0) {
		const char *v = getenv("MMT_TEST_PREPARE_FAIL");

		if (v && strcmp(v, "0") && strcmp(v, "1")) {
			fprintf(stderr, "mmtorture: MMT_TEST_PREPARE_FAIL '%s' is not 0 or 1\n", v);
			exit(MMT_EXIT_USAGE);
		}
		fail = v && !strcmp(v, "1");
	}
	return fail;
}

/* The run's memory, its workers' slots and the scenario's prepare(); -1
 * with out->error set (whatever failed, the shared memory is freed by the
 * caller, the rest by mmt_run_release).  *prepared: prepare() was called,
 * so cleanup() is due whatever it returned. */
static int set_up(struct mmt_run *run, const int *cpus, uint64_t duration_ns, struct mmt_run_outcome *out,
		  bool *prepared)
{
	const struct mmt_scenario *sc = run->sc;
	const bool test_fail = prepare_fails_for_test();	/* before anything happens */
	unsigned n = run->nr_workers;

	memset(out, 0, sizeof(*out));
	out->end = MMT_END_DONE;
	out->actual_mem_node = -1;
	/* The plan skips these; their loops' library code is compiled out. */
	if (mmt_family_not_built(run->variant->family)) {
		snprintf(out->error, sizeof(out->error), "%s %s: %s", sc->name, run->variant->name,
			 mmt_family_not_built(run->variant->family));
		return -1;
	}
	run->cycles_per_ns = mmt_cycles_per_ns();
	run->requested_ns = duration_ns;
	run->shared_size = sc->shared_size ? sc->shared_size(run) : 0;
	run->workers = aligned_alloc(MMT_PAD_BYTES, n * sizeof(*run->workers));
	if (!run->workers) {
		snprintf(out->error, sizeof(out->error), "out of memory for %u workers", n);
		return -1;
	}
	memset(run->workers, 0, n * sizeof(*run->workers));
	/* The plan, for a prepare() that gives its actors roles by node. */
	for (unsigned i = 0; i < n; i++)
		run->workers[i].cpu = cpus[i];
	run->track = mmt_track_create(run, track_env()->interval_ns);
	if (run->shared_size) {
		run->shared = alloc_shared(run->shared_size, run->mem_node, &out->actual_mem_node);
		if (!run->shared) {
			snprintf(out->error, sizeof(out->error), "cannot allocate %zu bytes on node %d",
				 run->shared_size, run->mem_node);
			return -1;
		}
	}
	mmt_sysctl_scenario(sc->needs.sysctls, true);
	*prepared = true;
	if (sc->prepare && sc->prepare(run)) {
		snprintf(out->error, sizeof(out->error), "%s: prepare failed", sc->name);
		return -1;
	}
	if (test_fail) {
		snprintf(out->error, sizeof(out->error), "%s: prepare failed (MMT_TEST_PREPARE_FAIL)", sc->name);
		return -1;
	}
	if (run->events) {
		run->counters = calloc(n, sizeof(*run->counters));
		if (!run->counters)
			run->events = NULL;
		else
			open_cpu_counters(run);
	}
	return 0;
}

/* One pinned thread per worker, lined up at the start barrier. */
static void start_workers(struct mmt_run *run, const int *cpus, pthread_t *threads)
{
	unsigned n = run->nr_workers;

	WRITE_ONCE(mmt_stop.flag, 0);
	sync_state.armed = 0;
	sync_state.finished = 0;
	pthread_barrier_init(&sync_state.barrier, NULL, n);
	for (unsigned i = 0; i < n; i++) {
		struct mmt_worker *w = &run->workers[i];
		pthread_attr_t attr;
		int err;

		w->id = i;
		w->cpu = cpus[i];
		w->run = run;
		w->cpu_seen_start = w->cpu_seen_end = -1;
		w->where = "start-up (thread not yet running)";
		pthread_attr_init(&attr);
		mmt_pin_attr(&attr, cpus[i]);
		err = pthread_create(&threads[i], &attr, trampoline, w);
		pthread_attr_destroy(&attr);
		if (err) {
			/* Workers already started wait at the barrier forever:
			 * there is no clean way back, so say so and stop here. */
			fprintf(stderr, "mmtorture: cannot start worker %u on CPU %d: %s\n", i,
				cpus[i], strerror(err));
			exit(3);
		}
	}
}

/* After the workers returned: the run's span, the outcomes, verify() and
 * the harness's own figures. */
static void collect(struct mmt_run *run, const pthread_t *threads, struct mmt_run_outcome *out)
{
	const struct mmt_scenario *sc = run->sc;
	unsigned n = run->nr_workers;
	uint64_t first = UINT64_MAX, last = 0;

	for (unsigned i = 0; i < n; i++)
		pthread_join(threads[i], NULL);
	if (run->events)
		close_cpu_counters(run);
	pthread_barrier_destroy(&sync_state.barrier);
	for (unsigned i = 0; i < n; i++) {
		if (sync_state.t_begin[i] < first)
			first = sync_state.t_begin[i];
		if (sync_state.t_end[i] > last)
			last = sync_state.t_end[i];
	}
	out->elapsed_ns = last > first ? last - first : 0;
	run->elapsed_ns = out->elapsed_ns;
	/* Outcomes default to the sum of the workers' own counts; a scenario
	 * that counts elsewhere overwrites them in verify(). */
	for (unsigned i = 0; i < n; i++)
		for (unsigned o = 0; o < MMT_MAX_OUTCOMES; o++)
			run->outcomes[o] += run->workers[i].outcomes[o];
	run->values = calloc(sc->nr_metrics ? sc->nr_metrics : 1, sizeof(*run->values));
	run->values_put = 0;
	run->values_error[0] = '\0';
	if (run->values)
		sc->verify(run);
	else
		snprintf(run->values_error, sizeof(run->values_error), "out of memory for %s's metrics", sc->name);
	/* Rendered now, while what the values point into is the scenario's. */
	run->metrics = run->values ? mmt_metrics_json(sc, run->values) : json_object();
	mmt_values_free(run);
	/* A metric the descriptor does not declare, or put as another kind,
	 * is a harness bug: no reader would know its unit or which way is
	 * better.  The check of the rendering holds the renderer to the rows. */
	if (run->values_error[0]) {
		snprintf(out->error, sizeof(out->error), "%s", run->values_error);
		out->end = MMT_END_ERROR;
	} else if (mmt_metrics_check(sc, run->metrics, out->error, sizeof(out->error))) {
		out->end = MMT_END_ERROR;
	}
	record_harness_figures(run);
}

void mmt_run_skip(struct mmt_run *run, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(run->skip_reason, sizeof(run->skip_reason), fmt, ap);
	va_end(ap);
}

void mmt_run_inconclusive(struct mmt_run *run, const char *fmt, ...)
{
	va_list ap;

	run->inconclusive = true;
	va_start(ap, fmt);
	vsnprintf(run->inconclusive_reason, sizeof(run->inconclusive_reason), fmt, ap);
	va_end(ap);
}

void mmt_run_execute(struct mmt_run *run, const int *cpus, uint64_t duration_ns,
		     const sigset_t *stop_signals, struct mmt_run_outcome *out)
{
	pthread_t *threads = calloc(run->nr_workers, sizeof(*threads));
	/* cleanup() after every prepare() called, not only one that
	 * succeeded: one that failed part-way has allocated, mapped, opened
	 * or journalled what only cleanup() knows how to undo.  Not after a
	 * hung run: its workers may still use all of it. */
	bool prepared = false;

	if (!threads || set_up(run, cpus, duration_ns, out, &prepared)) {
		out->end = MMT_END_ERROR;
		if (!threads)
			snprintf(out->error, sizeof(out->error), "out of memory for %u threads", run->nr_workers);
	} else if (run->skip_reason[0]) {
		/* prepare() found what the machine lacks: nothing runs. */
		out->end = MMT_END_SKIPPED;
		snprintf(out->error, sizeof(out->error), "%s", run->skip_reason);
	} else {
		start_workers(run, cpus, threads);
		supervise(run, threads, duration_ns, stop_signals, out);
		if (out->end == MMT_END_HUNG) {
			/* workers still spin on shared memory: leave it mapped */
			mmt_sysctl_scenario(NULL, false);
			return;
		}
		collect(run, threads, out);
	}
	if (prepared && run->sc->cleanup)
		run->sc->cleanup(run);
	mmt_sysctl_scenario(NULL, false);
	free_shared(run->shared, run->shared_size);
	run->shared = NULL;
	free(threads);
}

void mmt_run_release(struct mmt_run *run)
{
	json_decref(run->metrics);
	run->metrics = NULL;
	json_decref(run->detection);
	json_decref(run->placement_track);
	json_decref(run->integrity);
	json_decref(run->conditions);
	run->detection = run->placement_track = run->integrity = run->conditions = NULL;
	mmt_track_destroy(run->track);
	run->track = NULL;
	free(run->workers);
	run->workers = NULL;
	free(run->counters);
	free(run->cpu_counters);
	free(run->cpu_ids);
	run->counters = run->cpu_counters = NULL;
	run->cpu_ids = NULL;
}
