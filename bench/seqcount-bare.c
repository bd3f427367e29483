/* SPDX-License-Identifier: MIT */
/*
 * seqcount-bare: the ruler seqcount is measured against (bench/efficiency.py).
 *
 * The same protocol as scenarios/seqcount.c's sequence counts, from the
 * same header (the shared layout, the record's values, the writer's
 * version and the reader's snapshot per variant, the snapshot's check):
 * one writer publishes version after version, busy-waiting
 * --write-interval-ns between them as the scenario does; one reader takes
 * snapshots, retrying where the count says a write overlapped, and checks
 * every snapshot's every word.  Pinned to the two CPUs given (writer on A,
 * reader on B: the scenario's default of one reader), probed before and
 * after with the harness's placement probe.
 *
 * What it leaves out is the harness: no stop flag or placement tracker
 * polled (the writer looks at a time-up flag once per pass of its loop, as
 * the scenario looks at its stop flag; the reader every 256 snapshots), no
 * outcome counts or first-torn records, no worker records; the record's
 * length and the interval are locals.  The variants that protect with RCU
 * or a lock have no ruler: their protocol is the library's.
 *
 * Prints one JSON object on stdout.  Exit 0; 1 when the reader accepted a
 * torn snapshot on a variant that forbids it here; 2 bad input (one line
 * on stderr); 3 a CPU could not be pinned or a thread started; 77 a
 * variant without a ruler.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seqcount.h"
#include "clock.h"
#include "exit-codes.h"
#include "parse.h"
#include "ruler.h"

#define PROG "seqcount-bare"

struct names {
	const char *name;
	unsigned forbidden_on;
	enum mmt_family family;
};
#define AS_NAME(e, n, forbidden, fam, ...) [V_##e] = { n, forbidden, MMT_FAMILY_##fam },
static const struct names names[NR_VARIANTS] = { SEQCOUNT_VARIANTS(AS_NAME) };
#undef AS_NAME

/* The sequence counts: the variants whose protocol seqcount.h holds. */
static inline bool has_ruler(int v)
{
	return v == V_KERNEL || v == V_C11 || v == V_CK;
}

struct side {
	uint64_t ops;		/* writer: versions; reader: snapshots */
	uint64_t retries, torn;
	uint64_t t_begin_ns, t_end_ns;
} __mmt_aligned;

struct bare {
	struct shared *s;
	unsigned words;
	uint64_t interval_cycles;
	struct side side[2];
};

static inline __attribute__((always_inline)) void writer(const int v, struct bare *x)
{
	struct shared *s = x->s;
	struct side *me = &x->side[0];
	const unsigned words = x->words;
	const uint64_t interval = x->interval_cycles;
	uint64_t ver = 0, next;

	me->t_begin_ns = ruler_start_together();
	next = mmt_cycles();
	while (!READ_ONCE(ruler_time_up.v)) {
		if (interval) {
			/* Busy-wait, as the scenario: sleeping would change
			 * what the reader races against. */
			if ((int64_t)(mmt_cycles() - next) < 0)
				continue;
			next += interval;
		}
		seq_write_version(v, s, words, ++ver);
	}
	me->t_end_ns = mmt_now_ns();
	me->ops = ver;
}

static inline __attribute__((always_inline)) void reader(const int v, struct bare *x)
{
	struct shared *s = x->s;
	struct side *me = &x->side[1];
	const unsigned words = x->words;
	uint64_t snap[512], n, retries = 0, torn = 0;

	me->t_begin_ns = ruler_start_together();
	for (n = 0; (n & 255) || !READ_ONCE(ruler_time_up.v); n++) {
		retries += seq_read_snapshot(v, s, words, snap);
		if (unlikely(seq_snapshot_bad(snap, words)))
			torn++;
	}
	me->t_end_ns = mmt_now_ns();
	me->ops = n;
	me->retries = retries;
	me->torn = torn;
}

/* One copy of the loops per variant with a ruler, as in the scenario: the
 * primitives are compile-time constants.  The others' are empty (never
 * run: main refuses them). */
#define AS_LOOP(e, ...)                                                                            \
	static void loop_##e(void *x, int role)                                                    \
	{                                                                                          \
		if (!has_ruler(V_##e))                                                             \
			return;                                                                    \
		if (role == 0)                                                                     \
			writer(V_##e, x);                                                          \
		else                                                                               \
			reader(V_##e, x);                                                          \
	}
SEQCOUNT_VARIANTS(AS_LOOP)
#undef AS_LOOP
#define AS_ENTRY(e, ...) [V_##e] = loop_##e,
static void (*const loops[NR_VARIANTS])(void *, int) = { SEQCOUNT_VARIANTS(AS_ENTRY) };
#undef AS_ENTRY

static void usage(FILE *f)
{
	fprintf(f, "usage: " PROG " [--variant V] [--cpus A,B] [--duration D] [--record-words N]\n"
		   "                     [--write-interval-ns N] | --list\n"
		   "seqcount's sequence counts with no harness around them: the ruler bench/efficiency.py divides by.\n"
		   "  --variant V              a seqcount variant with a ruler (default kernel):");
	for (int v = 0, first = 1; v < NR_VARIANTS; v++)
		if (has_ruler(v)) {
			fprintf(f, "%s %s", first ? "" : ",", names[v].name);
			first = 0;
		}
	fprintf(f, "\n"
		   "  --cpus A,B               writer on A, reader on B (default 0,1)\n"
		   "  --duration D             500ms, 1s, bare seconds (default 1s)\n"
		   "  --record-words N         64-bit words in the record, 2-512 (default 8)\n"
		   "  --write-interval-ns N    the writer's pause between versions, 0-1000000000 (default 1000)\n"
		   "  --list                   the variants with a ruler built here, one a line\n"
		   "Prints one JSON object: reads and reads_per_sec (the reader's), writes and writes_per_sec,\n"
		   "retries, torn_reads and the probe before and after (one-way ns).\n"
		   "Exit 0; 1 a forbidden torn read; 2 bad input; 3 a CPU not pinned or a thread not started;\n"
		   "77 a variant without a ruler.\n");
}

static int bad_input(const char *what)
{
	fprintf(stderr, PROG ": %s\n", what);
	return MMT_EXIT_USAGE;
}

static int bad_number(const char *opt, const char *arg, uint64_t *out, uint64_t min, uint64_t max)
{
	char err[MMT_ERRLEN] = "", msg[2 * MMT_ERRLEN];

	if (mmt_parse_u64(arg, out, err, sizeof(err)) || *out < min || *out > max) {
		if (!*err)
			snprintf(err, sizeof(err), "%llu to %llu", (unsigned long long)min, (unsigned long long)max);
		snprintf(msg, sizeof(msg), "--%s: %s", opt, err);
		bad_input(msg);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "variant", required_argument, NULL, 'v' },	  { "cpus", required_argument, NULL, 'c' },
		{ "duration", required_argument, NULL, 'd' },	  { "record-words", required_argument, NULL, 'w' },
		{ "write-interval-ns", required_argument, NULL, 'i' }, { "list", no_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },		  { NULL, 0, NULL, 0 },
	};
	char err[MMT_ERRLEN], msg[MMT_ERRLEN + 64];
	uint64_t duration_ns = 1000000000ull, words = 8, interval_ns = 1000;
	int variant = V_KERNEL, cpus[2] = { 0, 1 }, opt;
	struct bare *x;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'v':
			variant = -1;
			for (int v = 0; v < NR_VARIANTS; v++)
				if (!strcmp(optarg, names[v].name))
					variant = v;
			if (variant < 0) {
				snprintf(msg, sizeof(msg), "unknown variant '%s' (--help lists them)", optarg);
				return bad_input(msg);
			}
			break;
		case 'c':
			if (ruler_parse_cpus(optarg, cpus, err, sizeof(err))) {
				snprintf(msg, sizeof(msg), "--cpus: %s", err);
				return bad_input(msg);
			}
			break;
		case 'd':
			if (mmt_parse_duration(optarg, &duration_ns, err, sizeof(err))) {
				snprintf(msg, sizeof(msg), "--duration: %s", err);
				return bad_input(msg);
			}
			break;
		case 'w':
			if (bad_number("record-words", optarg, &words, 2, 512))
				return MMT_EXIT_USAGE;
			break;
		case 'i':
			if (bad_number("write-interval-ns", optarg, &interval_ns, 0, 1000000000))
				return MMT_EXIT_USAGE;
			break;
		case 'l':
			for (int v = 0; v < NR_VARIANTS; v++)
				if (has_ruler(v) && MMT_FAMILY_BUILT(names[v].family))
					puts(names[v].name);
			return MMT_EXIT_OK;
		case 'h':
			usage(stdout);
			return MMT_EXIT_OK;
		default:
			snprintf(msg, sizeof(msg), "unknown option '%s' (--help lists them)", argv[optind - 1]);
			return bad_input(msg);
		}
	}
	if (optind < argc) {
		snprintf(msg, sizeof(msg), "unexpected argument '%s'", argv[optind]);
		return bad_input(msg);
	}
	if (!has_ruler(variant) || !MMT_FAMILY_BUILT(names[variant].family)) {
		fprintf(stderr, PROG ": %s: %s\n", names[variant].name,
			names[variant].family == MMT_FAMILY_INJECTED ? "an injected fault has no ruler"
			: !has_ruler(variant) ? "no ruler: RCU and the locks run the library's protocol"
					      : mmt_family_not_built(names[variant].family));
		return MMT_EXIT_SKIPPED;
	}

	x = mmt_alloc_lines(sizeof(*x));
	if (x)
		x->s = mmt_alloc_lines(sizeof(struct shared));	/* version 0: all zero, consistent */
	if (!x || !x->s) {
		fprintf(stderr, PROG ": out of memory\n");
		return MMT_EXIT_HARNESS;
	}
	x->words = (unsigned)words;
	x->interval_cycles = (uint64_t)((double)interval_ns * mmt_cycles_per_ns());

	double before, after;
	json_t *probe_before = ruler_probe(cpus[0], cpus[1], &before);

	if (ruler_run(PROG, cpus, loops[variant], x, duration_ns))
		return MMT_EXIT_HARNESS;
	json_t *probe_after = ruler_probe(cpus[0], cpus[1], &after);

	const struct side *w = &x->side[0], *r = &x->side[1];
	uint64_t elapsed = r->t_end_ns - r->t_begin_ns, w_elapsed = w->t_end_ns - w->t_begin_ns;
	json_t *out = json_pack(
		"{s:s,s:s,s:[i,i],s:i,s:I,s:I,s:I,s:f,s:I,s:f,s:I,s:f,s:I,s:o}", "ruler", PROG, "variant",
		names[variant].name, "cpus", cpus[0], cpus[1], "record_words", (int)words, "write_interval_ns",
		(json_int_t)interval_ns, "elapsed_ns", (json_int_t)elapsed, "reads", (json_int_t)r->ops,
		"reads_per_sec", elapsed ? (double)r->ops * 1e9 / (double)elapsed : 0.0, "writes",
		(json_int_t)w->ops, "writes_per_sec", w_elapsed ? (double)w->ops * 1e9 / (double)w_elapsed : 0.0,
		"retries", (json_int_t)r->retries, "retry_rate",
		r->ops ? (double)r->retries / (double)r->ops : 0.0, "torn_reads", (json_int_t)r->torn, "probe",
		ruler_probe_doc(probe_before, before, probe_after, after));

	json_dumpf(out, stdout, JSON_COMPACT);
	putchar('\n');
	json_decref(out);
	/* A torn read accepted where the variant forbids it is a finding, as in the scenario. */
	return r->torn && (names[variant].forbidden_on & mmt_this_arch()) ? MMT_EXIT_WITNESSED : MMT_EXIT_OK;
}
