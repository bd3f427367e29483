/* SPDX-License-Identifier: MIT */
/*
 * msgpass-bare: the ruler msgpass is measured against (bench/efficiency.py).
 *
 * The same protocol as scenarios/msgpass.c, from the same header (the
 * variants' publication primitives, the shared layout, the payload values):
 * one producer writes every payload word, reads the counter, publishes and
 * waits for the acknowledgement; one consumer waits for the publication,
 * reads the counter, checks every payload word against its expected value
 * and acknowledges.  The same two counter reads feed the same two
 * histograms (round trip, publish to seen).  Pinned to the two CPUs given,
 * probed before and after with the harness's placement probe.
 *
 * What it leaves out is the harness: no stop flag or placement tracker
 * polled inside the waits (the producer looks at a time-up flag once per
 * message, outside them; the consumer at a done flag in its publication
 * wait, the least that lets it end), no copy of what was read, no worker
 * records, no counters.  A separate program rather than a `bare` variant
 * of the scenario, because a variant runs inside the runner's worker
 * threads: it would carry exactly what it is meant to measure.
 *
 * Prints one JSON object on stdout.  Exit 0; 1 when a consumer saw a
 * payload word of another message on a variant that forbids it here; 2 bad
 * input (one line on stderr); 3 a CPU could not be pinned or a thread
 * started.
 */
#include <stdint.h>

#include "msgpass.h"
#include "clock.h"
#include "histogram.h"
#include "mix.h"
#include "ruler.h"

/* Every variant's protocol is in msgpass.h (the injected fault's too:
 * ruler_main refuses it). */
#define RULER_HAS(v) true
#define RULER_ROLE0 producer
#define RULER_ROLE1 consumer

struct side {
	struct mmt_hist lat;	/* producer: round trip; consumer: publish to seen (cycles) */
	uint64_t messages, bad_messages;
	uint64_t t_begin_ns, t_end_ns;
} __mmt_aligned;

struct bare {
	struct shared *s;
	struct payload_buf *buf[2];
	unsigned words;
	uint64_t mix;
	double cycles_per_ns;
	struct side side[2];
};

/* The flags are the rulers' (ruler.h), each alone on its line: the
 * producer reads ruler_time_up once per message; the consumer reads
 * ruler_done in its wait (a line nobody writes until the end, so a hit in
 * its own cache). */
static inline __attribute__((always_inline)) void producer(const int v, struct bare *x)
{
	struct shared *s = x->s;
	struct side *me = &x->side[0];
	const unsigned words = x->words;
	const uint64_t mix = x->mix;
	uint64_t i;

	me->t_begin_ns = ruler_start_together();
	for (i = 1; !READ_ONCE(ruler_time_up.v); i++) {
		struct payload_buf *b = x->buf[i & 1];
		uint64_t t0;

		msgpass_fill(words, mix, words_of(b), i);
		t0 = mmt_cycles();
		WRITE_ONCE(s->t_pub, t0);
		publish(v, s, b, i);
		while (smp_load_acquire(&ACK(s, 1)) != i)
			;
		mmt_hist_add(&me->lat, mmt_cycles() - t0);
	}
	me->t_end_ns = mmt_now_ns();
	me->messages = i - 1;
	WRITE_ONCE(ruler_done.v, 1);
}

static inline __attribute__((always_inline)) void consumer(const int v, struct bare *x)
{
	struct shared *s = x->s;
	struct side *me = &x->side[1];
	const unsigned words = x->words;
	const uint64_t mix = x->mix;
	struct msgpass_mismatched m;	/* the scenario's check, to the word */
	uint64_t i;

	me->t_begin_ns = ruler_start_together();
	for (i = 1;; i++) {
		struct payload_buf *b = x->buf[i & 1];
		const uint64_t *w = words_of(b);
		uint64_t t, t_pub;

		while (!published(v, s, b, i))
			if (unlikely(READ_ONCE(ruler_done.v)))
				goto out;
		t = mmt_cycles();
		msgpass_check(words, mix, w, i, &m);
		/* Acknowledged as soon as every word is read and t_pub (which
		 * the producer rewrites after the acknowledgement) with them;
		 * the records come after, off the round trip. */
		t_pub = READ_ONCE(s->t_pub);
		smp_store_release(&ACK(s, 1), i);
		if (unlikely(m.n))
			me->bad_messages++;
		mmt_hist_add(&me->lat, t - t_pub);
	}
out:
	me->messages = i - 1;
}

MSGPASS_VARIANTS(RULER_LOOP)
static const struct ruler_variant variants[NR_VARIANTS] = { MSGPASS_VARIANTS(RULER_ROW) };

/* What it prints after the run (bench/ruler.h). */
struct result {
	int payload_words;
	uint64_t elapsed_ns, messages;
	double msgs_per_sec;
	const struct mmt_latency *round_trip_ns, *publish_to_seen_ns;	/* NULL: none */
	uint64_t mismatched_messages;
	struct mmt_latency lat[2];
};
static const struct mmt_field result_fields[] = {
	MMT_FIELD(struct result, payload_words, MMT_F_INT),
	MMT_FIELD(struct result, elapsed_ns, MMT_F_COUNT),
	MMT_FIELD(struct result, messages, MMT_F_COUNT),
	MMT_FIELD(struct result, msgs_per_sec, MMT_F_REAL),
	MMT_FIELD_OBJECT(struct result, round_trip_ns, MMT_F_OBJECT_PTR, mmt_latency_shape),
	MMT_FIELD_OBJECT(struct result, publish_to_seen_ns, MMT_F_OBJECT_PTR, mmt_latency_shape),
	MMT_FIELD(struct result, mismatched_messages, MMT_F_COUNT),
};
static const struct mmt_shape result_shape = MMT_SHAPE(struct result, result_fields);

static const struct mmt_latency *latency(const struct mmt_hist *h, double cycles_per_ns, struct mmt_latency *l)
{
	mmt_hist_latency(h, cycles_per_ns, l);
	return h->count ? l : NULL;
}

enum { OPT_PAYLOAD_WORDS, OPT_SEED, NR_OPTS };
static const struct ruler_opt opts[NR_OPTS] = {
	[OPT_PAYLOAD_WORDS] = { .name = "payload-words", .text = "64-bit words per message", .def = 16, .min = 1,
				.max = 4096 },
	[OPT_SEED] = { .name = "seed", .arg = "S", .text = "seed for the payload values", .def = 1,
		       .max = UINT64_MAX, .decimal = true },
};

static void *prepare(const struct ruler_args *a)
{
	const unsigned words = (unsigned)a->val[OPT_PAYLOAD_WORDS];
	struct bare *x = mmt_alloc_lines(sizeof(*x));
	char *mem = mmt_alloc_lines(msgpass_header_bytes(2) + 2 * msgpass_buf_bytes(words));

	if (!x || !mem)
		return NULL;
	x->s = (struct shared *)mem;
	x->words = words;
	x->mix = mmt_mix64(a->val[OPT_SEED]) & ~0xffffull;
	x->buf[0] = (struct payload_buf *)(mem + msgpass_header_bytes(2));
	x->buf[1] = (struct payload_buf *)((char *)x->buf[0] + msgpass_buf_bytes(words));
	for (unsigned k = 0; k < words; k++)
		words_of(x->buf[0])[k] = words_of(x->buf[1])[k] = msgpass_value(x->mix, 0, k);
	x->cycles_per_ns = mmt_cycles_per_ns();	/* calibrated here, off the run */
	return x;
}

static const void *result(void *arg, const struct ruler_args *a, bool *mismatched)
{
	static struct result res;
	const struct bare *x = arg;
	const struct side *p = &x->side[0], *c = &x->side[1];
	uint64_t elapsed = p->t_end_ns - p->t_begin_ns;

	(void)a;
	*mismatched = c->bad_messages != 0;
	res = (struct result){ .payload_words = (int)x->words, .elapsed_ns = elapsed, .messages = p->messages,
			       .msgs_per_sec = elapsed ? (double)p->messages * 1e9 / (double)elapsed : 0.0,
			       .mismatched_messages = c->bad_messages };
	res.round_trip_ns = latency(&p->lat, x->cycles_per_ns, &res.lat[0]);
	res.publish_to_seen_ns = mmt_cycles_synchronised() ? latency(&c->lat, x->cycles_per_ns, &res.lat[1]) : NULL;
	return &res;
}

static const struct ruler msgpass_ruler = {
	.prog = "msgpass-bare",
	.result_shape = &result_shape,
	.synopsis = "usage: msgpass-bare [--variant V] [--cpus A,B] [--duration D] [--payload-words N] [--seed S] | --list\n"
		    "msgpass's protocol with no harness around it: the ruler bench/efficiency.py divides by.\n",
	.variant_help = "a msgpass variant",
	.roles = { "producer", "consumer" },
	.epilogue = "Prints one JSON object: msgs_per_sec, round_trip_ns and publish_to_seen_ns (median, p99,\n"
		    "p999, samples), the probe before and after (one-way ns) and mismatched_messages.\n"
		    "Exit 0; 1 a forbidden mismatch; 2 bad input; 3 a CPU not pinned or a thread not started.\n",
	.help_column = 19,
	MMT_TABLE(variants, variants),
	.default_variant = V_RELEASE_ACQUIRE,
	MMT_TABLE(opts, opts),
	.prepare = prepare,
	.result = result,
};

RULER_MAIN(msgpass_ruler)
