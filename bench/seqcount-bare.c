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

#include "seqcount.h"
#include "clock.h"
#include "ruler.h"

/* The sequence counts: the variants whose protocol seqcount.h holds. */
#define RULER_HAS(v) ((v) == V_KERNEL || (v) == V_C11 || (v) == V_CK)
#define RULER_ROLE0 writer
#define RULER_ROLE1 reader

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
	/* zeroed: a variant not built reads none; placed as the scenario's */
	uint64_t room[SEQ_SNAP_ROOM] __attribute__((aligned(4096))) = { 0 }, n, retries = 0, torn = 0;
	uint64_t *snap = seq_snapshot_at(room, s->words);

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

SEQCOUNT_VARIANTS(RULER_LOOP)
static const struct ruler_variant variants[NR_VARIANTS] = { SEQCOUNT_VARIANTS(RULER_ROW) };

enum { OPT_RECORD_WORDS, OPT_WRITE_INTERVAL_NS, NR_OPTS };
static const struct ruler_opt opts[NR_OPTS] = {
	[OPT_RECORD_WORDS] = { .name = "record-words", .text = "64-bit words in the record", .def = 8, .min = 2,
			       .max = 512 },
	[OPT_WRITE_INTERVAL_NS] = { .name = "write-interval-ns", .text = "the writer's pause between versions",
				    .def = 1000, .min = 0, .max = 1000000000 },
};

static void *prepare(const struct ruler_args *a)
{
	struct bare *x = mmt_alloc_lines(sizeof(*x));

	if (x)
		x->s = mmt_alloc_lines(sizeof(struct shared));	/* version 0: all zero, consistent */
	if (!x || !x->s)
		return NULL;
	x->words = (unsigned)a->val[OPT_RECORD_WORDS];
	x->interval_cycles = (uint64_t)((double)a->val[OPT_WRITE_INTERVAL_NS] * mmt_cycles_per_ns());
	return x;
}

/* What it prints after the run (bench/ruler.h). */
struct result {
	int record_words;
	uint64_t write_interval_ns, elapsed_ns, reads;
	double reads_per_sec;
	uint64_t writes;
	double writes_per_sec;
	uint64_t retries;
	double retry_rate;
	uint64_t torn_reads;
};
static const struct mmt_field result_fields[] = {
	MMT_FIELD(struct result, record_words, MMT_F_INT),
	MMT_FIELD(struct result, write_interval_ns, MMT_F_COUNT),
	MMT_FIELD(struct result, elapsed_ns, MMT_F_COUNT),
	MMT_FIELD(struct result, reads, MMT_F_COUNT),
	MMT_FIELD(struct result, reads_per_sec, MMT_F_REAL),
	MMT_FIELD(struct result, writes, MMT_F_COUNT),
	MMT_FIELD(struct result, writes_per_sec, MMT_F_REAL),
	MMT_FIELD(struct result, retries, MMT_F_COUNT),
	MMT_FIELD(struct result, retry_rate, MMT_F_REAL),
	MMT_FIELD(struct result, torn_reads, MMT_F_COUNT),
};
static const struct mmt_shape result_shape = MMT_SHAPE(struct result, result_fields);

static const void *result(void *arg, const struct ruler_args *a, bool *mismatched)
{
	static struct result res;
	const struct bare *x = arg;
	const struct side *w = &x->side[0], *r = &x->side[1];
	uint64_t elapsed = r->t_end_ns - r->t_begin_ns, w_elapsed = w->t_end_ns - w->t_begin_ns;

	/* A torn read accepted where the variant forbids it is a finding, as in the scenario. */
	*mismatched = r->torn != 0;
	res = (struct result){ (int)x->words, a->val[OPT_WRITE_INTERVAL_NS], elapsed, r->ops,
			       elapsed ? (double)r->ops * 1e9 / (double)elapsed : 0.0, w->ops,
			       w_elapsed ? (double)w->ops * 1e9 / (double)w_elapsed : 0.0, r->retries,
			       r->ops ? (double)r->retries / (double)r->ops : 0.0, r->torn };
	return &res;
}

static const struct ruler seqcount_ruler = {
	.prog = "seqcount-bare",
	.result_shape = &result_shape,
	.synopsis = "usage: seqcount-bare [--variant V] [--cpus A,B] [--duration D] [--record-words N]\n"
		    "                     [--write-interval-ns N] | --list\n"
		    "seqcount's sequence counts with no harness around them: the ruler bench/efficiency.py divides by.\n",
	.variant_help = "a seqcount variant with a ruler",
	.roles = { "writer", "reader" },
	.epilogue = "Prints one JSON object: reads and reads_per_sec (the reader's), writes and writes_per_sec,\n"
		    "retries, torn_reads and the probe before and after (one-way ns).\n"
		    "Exit 0; 1 a forbidden torn read; 2 bad input; 3 a CPU not pinned or a thread not started;\n"
		    "77 a variant without a ruler.\n",
	.help_column = 25,
	.no_ruler = "no ruler: RCU and the locks run the library's protocol",
	MMT_TABLE(variants, variants),
	.default_variant = V_KERNEL,
	MMT_TABLE(opts, opts),
	.prepare = prepare,
	.result = result,
};

RULER_MAIN(seqcount_ruler)
