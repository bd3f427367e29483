/* SPDX-License-Identifier: MIT */
/*
 * The scenario descriptor.  A scenario is one file under scenarios/ that
 * fills one struct mmt_scenario and registers it with MMT_SCENARIO(); the
 * harness finds it in a linker section, so adding one touches no other C
 * file (only the source list in scenarios/Makefile.inc).
 *
 * Life of one run (one variant, one placement, one repeat):
 *   prepare()  allocate private state (shared memory is already on the node);
 *              -1 when it cannot (the run is an error), 0 otherwise, also
 *              when it skips the run (mmt_run_skip)
 *   worker()   called once per pinned worker thread after the start barrier
 *              (or variant_worker[v]); loops until mmt_should_stop() or its
 *              iteration target
 *   verify()   after every worker has returned: fold per-worker results into
 *              run->ops and run->metrics; run->outcomes[] arrives as the sum
 *              of the workers' outcomes[] (overwrite it if counted elsewhere)
 *   cleanup()  free private state: after every prepare() that was called,
 *              whether it succeeded, skipped or failed part-way, so it
 *              frees what is there and nothing else (run->priv may be
 *              NULL, its fields still as prepare() first set them); not
 *              after a run whose workers hung, which may still use it
 */
#ifndef MMT_SCENARIO_H
#define MMT_SCENARIO_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compiler.h"
#include "counters.h"
#include "values.h"

#define MMT_MAX_OUTCOMES 16
#define MMT_MAX_OPTIONS 16

/* Architectures, for declaring where an outcome is forbidden. */
#define MMT_ARCH_X86_64 (1u << 0)
#define MMT_ARCH_AARCH64 (1u << 1)
#define MMT_ARCH_GENERIC (1u << 2)
#define MMT_ARCH_ALL (MMT_ARCH_X86_64 | MMT_ARCH_AARCH64 | MMT_ARCH_GENERIC)
unsigned mmt_this_arch(void);

/* What a variant is built from, for the hand-rolled : liburcu : ck : C11
 * tables and the reports' colours.  Every variant declares one. */
enum mmt_family {
	MMT_FAMILY_UNDECLARED,	/* refused by the catalogue's tests */
	MMT_FAMILY_HAND_ROLLED,	/* this project's per-arch primitives */
	MMT_FAMILY_LIBURCU,
	MMT_FAMILY_CK,		/* concurrencykit: optional, see mmt_family_not_built */
	MMT_FAMILY_C11,
	MMT_FAMILY_LOCK,	/* a lock instead of ordering */
	MMT_FAMILY_UNORDERED,	/* no ordering at all: the baseline */
	MMT_FAMILY_INJECTED,	/* a deliberately broken variant */
	MMT_FAMILY_KERNEL,	/* exercises the kernel, not a primitive */
	MMT_NR_FAMILIES
};
const char *mmt_family_name(enum mmt_family f);
/* Why this build has no variant of family f (configure found no library
 * for it): such a variant is skipped with this reason, --list says so, and
 * its loops are never started (their code for the library is compiled
 * out); NULL: the family is built. */
const char *mmt_family_not_built(enum mmt_family f);
#ifdef MMT_HAVE_CK
#define MMT_CK_BUILT 1
#else
#define MMT_CK_BUILT 0
#endif
/* The same as a constant, for a variant's loops: one whose family is not
 * built returns at once (its library code is compiled out, and the runner
 * never starts it), so no half loop is left behind to warn about. */
#define MMT_FAMILY_BUILT(f) ((f) != MMT_FAMILY_CK || MMT_CK_BUILT)

struct mmt_variant {
	const char *name;
	const char *help;
	/* Architectures on which a witness is forbidden: seeing one there is
	 * a real bug (in the hardware, compiler, or this harness) and exit 1. */
	unsigned forbidden_on;
	/* Deliberately broken (fault injection): the checker must report
	 * witnesses, and the test suite proves that it does. */
	bool injected;
	/* Threads this variant needs, when it fixes the count (litmus tests);
	 * 0: the scenario's default or --threads. */
	unsigned threads;
	/* Nothing says whether a witness is allowed (a litmus test without a
	 * Result line): the verdict says "expected unknown", never "allowed". */
	bool no_expectation;
	enum mmt_family family;
	/* Variants of one scenario with the same "compares" implement the
	 * same thing in different families: a row of the ratio tables
	 * ("full barrier both sides"); NULL: in no row. */
	const char *compares;
	/* The upstream fix whose bug this variant hunts: "<12-hex id> <title>";
	 * NULL: none. */
	const char *hunts;
};

/* A scenario's own number in run->metrics, declared where it is made: the
 * runner refuses a record with an undeclared or mistyped metric, and the
 * analysis scripts take units and directions from these rows (through the
 * results' "catalogue"), never from a list of their own. */
enum mmt_metric_kind {
	MMT_METRIC_COUNT,	/* integer */
	MMT_METRIC_REAL,	/* number */
	MMT_METRIC_TEXT,	/* string */
	MMT_METRIC_LATENCY,	/* object: median, p99, max, count (ns) */
	MMT_METRIC_OBJECT,	/* anything else structured */
	MMT_METRIC_LIST,	/* array */
	MMT_NR_METRIC_KINDS
};

/* Which way is better, for a figure worth comparing between runs; NEUTRAL:
 * a description of the run (a setting, a count of what happened), never
 * compared. */
enum mmt_better { MMT_BETTER_NEUTRAL, MMT_BETTER_HIGHER, MMT_BETTER_LOWER };

struct mmt_metric {
	const char *name;
	enum mmt_metric_kind kind;
	const char *unit;	/* "ns", "/s", "writes", ...; "" for none */
	enum mmt_better better;
	bool nullable;		/* null when the run had nothing to say */
	const char *help;
	/* OBJECT and LIST: the C struct a row is (values.h); LIST without
	 * one: a list of counts. */
	const struct mmt_shape *shape;
};

/* Rows of a metrics table that describe a run (never compared): a
 * count, a maybe-null value of any kind, a maybe-null structured object. */
#define MMT_COUNT_ROW(name, unit, help) { name, MMT_METRIC_COUNT, unit, MMT_BETTER_NEUTRAL, false, help, NULL }
#define MMT_MAYBE_ROW(name, kind, unit, help) { name, kind, unit, MMT_BETTER_NEUTRAL, true, help, NULL }
#define MMT_SHAPED_ROW(name, help, shape) { name, MMT_METRIC_OBJECT, "", MMT_BETTER_NEUTRAL, true, help, &(shape) }

/* A run record's metric as an integer (0 when absent), for describe(). */
static inline long long mmt_metric_int(const json_t *m, const char *name)
{
	return (long long)json_integer_value(json_object_get(m, name));
}

const char *mmt_metric_kind_name(enum mmt_metric_kind k);
const char *mmt_better_name(enum mmt_better b);

/* What a scenario needs from the machine, declared as LTP's struct
 * tst_test does: the harness checks it before the run and skips with the
 * reason, and allows only the declared sysctls to be written. */
struct mmt_needs {
	/* Without root: NULL, the scenario needs none; else what needs it.
	 * root_optional: runs anyway with those parts off (and says so). */
	const char *root;
	bool root_optional;
	/* The sysctls (/proc/sys paths) the scenario may write; each is
	 * journalled and put back (sysctl.h).  NULL-terminated. */
	const char *const *sysctls;
	/* Kernel options it needs (CONFIG_...), NULL-terminated: a kernel
	 * whose config says one is off is skipped; an unreadable config is
	 * not (it is recorded as unknown). */
	const char *const *kernel_config;
};

struct mmt_option {
	const char *name;	/* long option, without "--" */
	const char *help;
	uint64_t def, min, max;
	/* Names of the values min.. in order (NULL-terminated), taken on the
	 * command line beside the numbers (--sync tsc, --compact on); NULL:
	 * numbers only.  Results record the number. */
	const char *const *names;
};

/* For a 0/1 option. */
extern const char *const mmt_option_off_on[];

struct mmt_run;
struct mmt_worker;

/* A descriptor's table and its length, from the array itself:
 * MMT_TABLE(metrics, metrics) in an initializer is .metrics and
 * .nr_metrics, so a row added cannot leave the count behind. */
#define MMT_TABLE(field, array) .field = (array), .nr_##field = ARRAY_SIZE(array)

struct mmt_scenario {
	const char *name;
	const char *help;
	const struct mmt_variant *variants;
	unsigned nr_variants;
	const struct mmt_option *options;
	unsigned nr_options;
	unsigned min_threads, default_threads, max_threads; /* max 0: no limit */
	/* Without --threads, a placement with fewer usable CPUs than
	 * default_threads runs with as many as it has, down to min_threads,
	 * instead of being skipped (mmrace: its migrator then shares the
	 * protector's CPU).  The record's "threads" says what ran. */
	bool default_threads_fit;
	/* The placement without --placement (NULL: same-node), e.g. mmrace's
	 * spread: its actors want CPUs of their own more than a shared node. */
	const char *default_placement;
	/* Without --duration and --iterations: the run's bound (0: the
	 * harness's 1 s).  A scenario with one ends the run itself once it
	 * has what it came for (run->duration_defaulted), however long that
	 * takes on this machine: mmrace stops at a count of raced pages. */
	uint64_t default_duration_ns;
	/* Outcome names for the histogram; outcome 0 is "as expected", every
	 * other outcome is a witness. */
	const char *const *outcomes;
	unsigned nr_outcomes;
	const char *ops_unit;	/* what run->ops counts: "messages", ... */
	/* Every key verify() puts in run->metrics, one row each. */
	const struct mmt_metric *metrics;
	unsigned nr_metrics;
	struct mmt_needs needs;
	/* Variants the no-argument smoke suite runs (comma list); NULL: all. */
	const char *smoke_variants;
	/* Events added to the default counter set when this scenario runs
	 * (tracepoints that show its kernel activity). */
	const char *extra_events;
	/* Optional: why a variant name is not available (e.g. a litmus test
	 * the engine cannot compile), for the error message; NULL if unknown. */
	const char *(*why_no_variant)(const char *name);
	/* Optional: checks option values together (e.g. a power of two);
	 * returns 0, or -1 with one line in err: exit 2 before anything runs. */
	int (*check_options)(const uint64_t *opt, char *err, size_t len);
	/* Bytes of memory shared by the workers, zeroed, on the mem node. */
	size_t (*shared_size)(const struct mmt_run *run);
	/* 0, or -1 (the run is an error).  It sets run->priv as soon as it is
	 * allocated, and every field that holds something to undo to what
	 * says "nothing" (NULL, fd -1; MAP_FAILED turned into NULL) before
	 * the first step that can fail: cleanup() follows a failure too. */
	int (*prepare)(struct mmt_run *run);
	void (*worker)(struct mmt_worker *w);
	/* Or one worker function per variant, indexed like variants[]: each
	 * variant's loops compiled separately (see MMT_VARIANT_WORKER). */
	void (*const *variant_worker)(struct mmt_worker *w);
	void (*verify)(struct mmt_run *run);
	/* After any prepare() called, whatever it returned (not after a hung
	 * run): undoes what exists, run->priv NULL included, then sets
	 * run->priv to NULL. */
	void (*cleanup)(struct mmt_run *run);
	/* Optional: the table's detail column for one run's record: the
	 * scenario's headline numbers, from the metrics verify() produced,
	 * and what the run's status and witnesses mean for it (mmrace). */
	void (*describe)(const json_t *run, char *buf, size_t len);
	/* Workers 0 and 1 call mmt_track_poll() (placement-track.h): the run
	 * is sampled for host moves and its figures split by placement. */
	bool tracks_placement;
	/* Which of workers 0 and 1 counts what run->ops counts, for that
	 * split (seqcount: reader 1, not the writer). */
	unsigned split_ops_worker;
};

struct mmt_worker {
	unsigned id;
	int cpu;		/* planned: set before prepare() */
	int cpu_seen_start;	/* where it actually ran: sched_getcpu() */
	int cpu_seen_end;
	struct mmt_run *run;
	uint64_t ops;		/* the worker's own count, for the record */
	uint64_t outcomes[MMT_MAX_OUTCOMES];
	const char *role;
	/* Detection speed: when and after how many of its operations this
	 * worker first saw a witness (mmt_witness_first); 0/0: never. */
	uint64_t first_witness_ns, first_witness_iteration;
	/* Placement tracking (placement-track.h), set by the runner. */
	struct mmt_track *track;
	unsigned track_role, track_countdown;
	uint64_t track_seen;
	/* Where the worker is (mmt_worker_at), for the report of a run whose
	 * workers do not stop: NULL once it has returned. */
	const char *where;
} __mmt_aligned;

struct mmt_run {
	const struct mmt_scenario *sc;
	const struct mmt_variant *variant;
	const uint64_t *opt;	/* values of sc->options, in order */
	unsigned nr_workers;
	struct mmt_worker *workers;
	void *shared;
	size_t shared_size;
	int mem_node;
	uint64_t iterations;	/* target per run; 0: until the stop flag */
	bool duration_defaulted;	/* no --duration or --iterations given */
	uint64_t seed;
	void *priv;
	uint64_t elapsed_ns;	/* set before verify(): first start to last end */
	/* Filled by verify(). */
	uint64_t ops;
	uint64_t outcomes[MMT_MAX_OUTCOMES];
	/* The scenario's own numbers, one per row of sc->metrics, put by
	 * verify() (values.h); a put that breaks its row is kept here. */
	struct mmt_value *values;
	unsigned values_put;
	char values_error[200];
	json_t *metrics;	/* the runner's rendering of values[] */
	/* The run did not exercise what it exists to test (e.g. no race
	 * window was hit): reported INCONCLUSIVE, never as a pass. */
	bool inconclusive;
	char inconclusive_reason[200];
	/* Set by prepare() through mmt_run_skip(): what this machine lacks,
	 * found only by trying (a probe); the run is skipped with it. */
	char skip_reason[256];
	/* mmt_cycles() ticks per ns, for converting cycle deltas. */
	double cycles_per_ns;
	/* Counters: opened by the runner, per worker and (tracepoints when
	 * permitted) per online CPU; NULL events: none. */
	const struct mmt_event_set *events;
	struct mmt_counters *counters;
	struct mmt_counters *cpu_counters;
	int *cpu_ids;
	unsigned nr_cpu_counters;
	/* In-run placement samples (placement-track.h); NULL: not tracked. */
	struct mmt_track *track;
	/* The runner's, for the record: set after verify(). */
	json_t *detection, *placement_track;
	/* Did the run do what its record claims (integrity.h)?  Set after
	 * verify(); an invalid run is reported INVALID, never as a pass. */
	uint64_t requested_ns;	/* the duration asked for; 0: none */
	json_t *integrity;
	json_t *conditions;	/* conditions.h: load beside the numbers */
	bool invalid;
	char invalid_reason[256];
};

/* The stop flag, set by the timer, the iteration target or a signal.
 * On its own line: workers read it in their loops. */
struct mmt_stop {
	int flag;
} __mmt_aligned;
extern struct mmt_stop mmt_stop;

static inline bool mmt_should_stop(void)
{
	return READ_ONCE(mmt_stop.flag) != 0;
}

/* Zeroed memory on its own cache lines (the size rounded up to whole
 * lines, as aligned_alloc requires); free() it. */
static inline void *mmt_alloc_lines(size_t size)
{
	size_t len = (size + MMT_PAD_BYTES - 1) / MMT_PAD_BYTES * MMT_PAD_BYTES;
	void *p = aligned_alloc(MMT_PAD_BYTES, len);

	if (p)
		memset(p, 0, len);
	return p;
}


/* Called by prepare() (which then returns 0; cleanup() still runs) when
 * the machine cannot run the scenario and only trying could tell, as a
 * declared need (struct mmt_needs) tells before: the run is skipped with
 * the reason, nothing runs, and alone it is exit 77. */
void mmt_run_skip(struct mmt_run *run, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Called by verify(): the run did not exercise what it exists to test;
 * it is reported INCONCLUSIVE with the reason, never as a pass. */
void mmt_run_inconclusive(struct mmt_run *run, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Called by a worker that reached the run's iteration target. */
void mmt_request_stop(void);

/* A worker saw a witness at its iteration (in the scenario's ops unit);
 * only the first call counts.  Call it from the witness path, not per
 * operation: the record's "detection" (time and iterations to the first
 * witness) comes from it. */
void mmt_witness_note(struct mmt_worker *w, uint64_t iteration);
static inline void mmt_witness_first(struct mmt_worker *w, uint64_t iteration)
{
	if (!w->first_witness_ns)
		mmt_witness_note(w, iteration);
}

/* Names the phase the worker enters (a string literal): a wait between
 * phases that never ends is reported as a hang in it.  Once per phase, not
 * per iteration: it is a store to the worker's own line. */
static inline void mmt_worker_at(struct mmt_worker *w, const char *where)
{
	__atomic_store_n(&w->where, where, __ATOMIC_RELAXED);
}

/*
 * mmt_worker_<V>(): worker 0 runs first(V, w), the others rest(V, w).  With
 * first/rest always_inline and switching on V, every variant gets its own
 * copy of the loops with the primitive fixed at compile time: the hot loop
 * carries no per-iteration variant dispatch.
 */
#define MMT_VARIANT_WORKER(V, first, rest)                                     \
	static void mmt_worker_##V(struct mmt_worker *w)                       \
	{                                                                      \
		if (w->id == 0)                                                \
			first(V, w);                                           \
		else                                                           \
			rest(V, w);                                            \
	}

/*
 * A scenario's one list of variants, as an X() macro whose entries start
 * X(ENUM, "name", forbidden_on, FAMILY, "compares" or NULL, "help", ...):
 * these expand it into the enum (V_ENUM ..., then NR_VARIANTS), the table
 * of struct mmt_variant, and the table of per-variant loops made by
 * MMT_VARIANT_WORKER.  FAMILY is the MMT_FAMILY_ suffix; INJECTED marks
 * the variant injected.  Extra arguments (a scenario's own) are ignored.
 */
#define MMT_X_ENUM(e, ...) V_##e,
#define MMT_X_ROW(e, n, forbidden, fam, cmp, text, ...)                                        \
	[V_##e] = { .name = n, .help = text, .forbidden_on = forbidden,                         \
		    .injected = MMT_FAMILY_##fam == MMT_FAMILY_INJECTED, .family = MMT_FAMILY_##fam, \
		    .compares = cmp },
#define MMT_X_LOOP(e, ...) [V_##e] = mmt_worker_V_##e,

#define MMT_SCENARIO(var)                                                      \
	static const struct mmt_scenario *const __mmt_reg_##var                \
		__attribute__((used, section("mmt_scenarios"), aligned(8))) = &var

/* Registry iteration. */
unsigned mmt_scenario_count(void);
const struct mmt_scenario *mmt_scenario_at(unsigned i);
const struct mmt_scenario *mmt_scenario_find(const char *name);
const struct mmt_variant *mmt_variant_find(const struct mmt_scenario *sc, const char *name);

#endif
