/* SPDX-License-Identifier: MIT */
/*
 * msgpass: the message-passing pattern.
 *
 *   producer                          consumer(s)
 *   payload[0..W) = f(i, k)           wait until publication says i
 *   publish(i)                        check payload[k] == f(i, k) for all k
 *   wait for every ack == i           ack(i)
 *
 * A consumer that sees message i published but reads any payload word of
 * an older message has witnessed the reordering that publication is meant
 * to forbid.  Messages alternate between two payload buffers, so a stale
 * word is always one of message i-2 and is told apart from garbage.
 *
 * The variants differ only in how the payload is published and how the
 * publication is read.  The acknowledgement path back to the producer is
 * the same hand-rolled release/acquire in every variant, so that
 * throughput and latency differences come from the publication alone.
 * Each variant gets its own copy of the loops: the primitive is a
 * compile-time constant, so the hot loops carry no per-message dispatch.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "msgpass.h"
#include "clock.h"
#include "metrics.h"
#include "histogram.h"
#include "mix.h"
#include "placement-track.h"
#include "scenario.h"

static const struct mmt_variant variants[NR_VARIANTS] = { MSGPASS_VARIANTS(MMT_X_ROW) };

enum { OPT_PAYLOAD_WORDS, OPT_BROKEN_DELAY };
static const struct mmt_option options[] = {
	[OPT_PAYLOAD_WORDS] = { "payload-words",
		"64-bit words per message, checked by every consumer", 16, 1, 4096 },
	[OPT_BROKEN_DELAY] = { "broken-delay",
		"broken-publish-first: cpu_relax() spins between publishing and writing the payload; "
		"0 is the bare reordering, more widens the window", 64, 0, 1000000 },
};

enum { OUT_FRESH, OUT_STALE, OUT_CORRUPT, NR_OUTCOMES };
static const char *const outcome_names[NR_OUTCOMES] = { "fresh", "stale", "corrupt" };

#define MAX_MISMATCHES 8

struct mismatch {
	uint64_t message, word, expected, found;
	bool stale;		/* found is this word of an older message */
};

struct worker_state {
	struct mmt_hist lat;	/* producer: round trip; consumer: publish to seen (cycles) */
	uint64_t stale_words;
	unsigned nr_mismatches;
	struct mismatch mismatch[MAX_MISMATCHES];
} __mmt_aligned;

/* A mismatch as the record has it. */
struct mismatch_report {
	int consumer;
	uint64_t message, word, expected, found;
	uint64_t found_message;	/* MMT_NONE unless the word was stale */
};

struct priv {
	struct payload_buf *buf[2];
	unsigned words;
	uint64_t mix;		/* seed-derived: payload values differ per run */
	struct mismatch_report *report;	/* verify()'s, for the record */
	struct worker_state ws[];
};

static size_t msgpass_shared_size(const struct mmt_run *run)
{
	return msgpass_header_bytes(run->nr_workers) + 2 * msgpass_buf_bytes((unsigned)run->opt[OPT_PAYLOAD_WORDS]);
}

static int msgpass_prepare(struct mmt_run *run)
{
	unsigned words = (unsigned)run->opt[OPT_PAYLOAD_WORDS];
	size_t size = sizeof(struct priv) + run->nr_workers * sizeof(struct worker_state);
	struct priv *p = mmt_alloc_lines(size);
	char *base = run->shared;

	if (!p)
		return -1;
	p->words = words;
	p->mix = mmt_mix64(run->seed) & ~0xffffull;
	p->buf[0] = (struct payload_buf *)(base + msgpass_header_bytes(run->nr_workers));
	p->buf[1] = (struct payload_buf *)((char *)p->buf[0] + msgpass_buf_bytes(words));
	/* Both buffers start as "message 0", so a stale read of the first
	 * messages decodes as stale rather than as garbage. */
	for (unsigned k = 0; k < words; k++)
		words_of(p->buf[0])[k] = words_of(p->buf[1])[k] = msgpass_value(p->mix, 0, k);
	run->priv = p;
	return 0;
}

/* ---- the loops -----------------------------------------------------------
 *
 * What sits between one side seeing the other's store and making its own
 * is the round trip; everything else is taken off that path:
 *   - the payload's length and mix are locals: read through p, every word
 *     store in msgpass_fill() could alias them and the compiler reloads both per word;
 *   - the waits look at the stop flag and nothing else; the producer, the
 *     tracker's leader, polls it once per message with the counter it has
 *     just read (mmt_track_poll_clock), the consumer, the follower, in its
 *     wait as the tracker needs;
 *   - the consumer checks every word as it loads it and keeps a word only
 *     when it mismatches (a branch never taken on a clean message): no copy
 *     of the payload sits in the store buffer ahead of the acknowledgement
 *     (x86 commits stores in order), and what a mismatch report shows is
 *     still what this CPU read;
 *   - the consumer acknowledges first and records afterwards (outcome,
 *     histogram); t_pub is read before the acknowledgement, as the producer
 *     rewrites it for the next message after it.
 */

static inline __attribute__((always_inline)) void producer(const int v, struct mmt_worker *w)
{
	struct mmt_run *run = w->run;
	struct shared *s = run->shared;
	struct priv *p = run->priv;
	struct worker_state *ws = &p->ws[w->id];
	const unsigned consumers = run->nr_workers - 1, words = p->words;
	const uint64_t last = run->iterations ? run->iterations : UINT64_MAX, mix = p->mix;
	const uint64_t delay = run->opt[OPT_BROKEN_DELAY];
	uint64_t i;

	if (!MMT_FAMILY_BUILT(variants[v].family))
		return;	/* never started: mmt_family_not_built() */
	for (i = 1; i <= last && !mmt_should_stop(); i++) {
		struct payload_buf *b = p->buf[i & 1];
		uint64_t t0, t1;

		if (v == V_BROKEN_PUBLISH_FIRST) {
			t0 = mmt_cycles();
			WRITE_ONCE(s->t_pub, t0);
			publish(v, s, b, i);
			for (uint64_t d = 0; d < delay; d++)
				cpu_relax();
			msgpass_fill(words, mix, words_of(b), i);
		} else {
			msgpass_fill(words, mix, words_of(b), i);
			t0 = mmt_cycles();
			WRITE_ONCE(s->t_pub, t0);
			publish(v, s, b, i);
		}
		for (unsigned c = 1; c <= consumers; c++)
			while (smp_load_acquire(&ACK(s, c)) != i)
				if (unlikely(mmt_should_stop()))
					goto out;
		t1 = mmt_cycles();
		mmt_hist_add(&ws->lat, t1 - t0);
		mmt_track_poll_clock(w, i, t1);
	}
out:
	w->ops = i - 1;		/* messages every consumer acknowledged */
	w->role = "producer";
}

/* The words of message i that mismatched: their indices and what was read. */
static void __attribute__((noinline)) report_mismatch(struct priv *p, struct worker_state *ws,
						      uint64_t *outcomes, uint64_t i,
						      const struct msgpass_mismatched *m)
{
	bool corrupt = false;

	ws->stale_words += m->n;
	for (unsigned j = 0; j < m->n; j++) {
		unsigned k = m->word[j];
		uint64_t want = msgpass_value(p->mix, i, k), x = m->found[j] ^ p->mix;
		/* An older message's word has this word's index and a
		 * smaller message number; anything else is garbage. */
		bool stale = (x & 0xffff) == k && (x >> 16) < i;

		corrupt |= !stale;
		if (ws->nr_mismatches < MAX_MISMATCHES)
			ws->mismatch[ws->nr_mismatches++] = (struct mismatch){ i, k, want, m->found[j], stale };
	}
	outcomes[corrupt ? OUT_CORRUPT : OUT_STALE]++;
}

static inline __attribute__((always_inline)) void consumer(const int v, struct mmt_worker *w)
{
	struct mmt_run *run = w->run;
	struct shared *s = run->shared;
	struct priv *p = run->priv;
	struct worker_state *ws = &p->ws[w->id];
	const uint64_t last = run->iterations ? run->iterations : UINT64_MAX, mix = p->mix;
	const unsigned words = p->words;
	struct msgpass_mismatched m;
	uint64_t i;

	if (!MMT_FAMILY_BUILT(variants[v].family))
		return;	/* never started: mmt_family_not_built() */
	w->role = "consumer";
	for (i = 1; i <= last; i++) {
		struct payload_buf *b = p->buf[i & 1];
		const uint64_t *payload = words_of(b);
		uint64_t t, t_pub;

		while (!published(v, s, b, i)) {
			if (unlikely(mmt_should_stop()))
				goto out;
			mmt_track_poll(w, i - 1);
		}
		t = mmt_cycles();
		msgpass_check(words, mix, payload, i, &m);
		t_pub = READ_ONCE(s->t_pub);
		smp_store_release(&ACK(s, w->id), i);
		if (unlikely(m.n)) {
			mmt_witness_first(w, i - 1);
			report_mismatch(p, ws, w->outcomes, i, &m);
		} else {
			w->outcomes[OUT_FRESH]++;
		}
		mmt_hist_add(&ws->lat, t - t_pub);
	}
out:
	w->ops = i - 1;		/* messages checked and acknowledged */
}

#define AS_WORKER(e, ...) MMT_VARIANT_WORKER(V_##e, producer, consumer)
MSGPASS_VARIANTS(AS_WORKER)
#undef AS_WORKER

static void (*const loops[NR_VARIANTS])(struct mmt_worker *) = { MSGPASS_VARIANTS(MMT_X_LOOP) };

/* ---- results ------------------------------------------------------------- */

static void msgpass_verify(struct mmt_run *run)
{
	struct priv *p = run->priv;
	struct mmt_hist *seen = calloc(1, sizeof(*seen));
	struct mmt_latency rt, pts;
	uint64_t stale_words = 0;
	unsigned n = 0;

	p->report = calloc((size_t)run->nr_workers * MAX_MISMATCHES, sizeof(*p->report));
	for (unsigned c = 1; c < run->nr_workers; c++) {
		struct worker_state *ws = &p->ws[c];

		if (seen)
			mmt_hist_merge(seen, &ws->lat);
		stale_words += ws->stale_words;
		for (unsigned k = 0; k < ws->nr_mismatches && p->report; k++) {
			const struct mismatch *m = &ws->mismatch[k];

			p->report[n++] = (struct mismatch_report){
				.consumer = (int)c, .message = m->message, .word = m->word, .expected = m->expected,
				.found = m->found, .found_message = m->stale ? (m->found ^ p->mix) >> 16 : MMT_NONE };
		}
	}
	run->ops = run->workers[0].ops;
	mmt_put_count(run, "payload_words", p->words);
	if (run->variant == &variants[V_BROKEN_PUBLISH_FIRST])
		mmt_put_count(run, "broken_delay", run->opt[OPT_BROKEN_DELAY]);
	mmt_hist_latency(&p->ws[0].lat, run->cycles_per_ns, &rt);
	mmt_put_latency(run, "round_trip_ns", &rt);
	/* Not the probe's one-way (half a one-line round trip): the producer's
	 * counter just before its publishing store to the consumer's just
	 * after its load saw it, so one transfer of the token line plus
	 * the spin that noticed it.  It subtracts counters read on two CPUs:
	 * only meaningful when the counter is synchronised across them. */
	if (seen && mmt_cycles_synchronised()) {
		mmt_hist_latency(seen, run->cycles_per_ns, &pts);
		mmt_put_latency(run, "publish_to_seen_ns", &pts);
	} else {
		mmt_put_null(run, "publish_to_seen_ns");
	}
	mmt_put_count(run, "stale_words", stale_words);
	mmt_put_list(run, "first_mismatches", p->report, n);
	free(seen);
}

static const struct mmt_field mismatch_fields[] = {
	MMT_FIELD(struct mismatch_report, consumer, MMT_F_INT),
	MMT_FIELD(struct mismatch_report, message, MMT_F_COUNT),
	MMT_FIELD(struct mismatch_report, word, MMT_F_COUNT),
	MMT_FIELD(struct mismatch_report, expected, MMT_F_HEX),
	MMT_FIELD(struct mismatch_report, found, MMT_F_HEX),
	MMT_FIELD(struct mismatch_report, found_message, MMT_F_COUNT),
};
static const struct mmt_shape mismatch_shape = MMT_SHAPE(struct mismatch_report, mismatch_fields);

static const struct mmt_metric metrics[] = {
	{ "payload_words", MMT_METRIC_COUNT, "words", MMT_BETTER_NEUTRAL, false,
	  "64-bit words per message (--payload-words)", NULL },
	{ "broken_delay", MMT_METRIC_COUNT, "spins", MMT_BETTER_NEUTRAL, false,
	  "broken-publish-first only: cpu_relax() spins between publishing and writing the payload", NULL },
	{ "round_trip_ns", MMT_METRIC_LATENCY, "ns", MMT_BETTER_LOWER, true,
	  "producer's publish to its last acknowledgement: median, p99, p999, samples", NULL },
	{ "publish_to_seen_ns", MMT_METRIC_LATENCY, "ns", MMT_BETTER_NEUTRAL, true,
	  "producer's counter before publishing to a consumer's after seeing it (null unless the counter is synchronised across CPUs); part of round_trip_ns, which is the one compared", NULL },
	{ "stale_words", MMT_METRIC_COUNT, "words", MMT_BETTER_NEUTRAL, false,
	  "payload words a consumer found from an older message: the witnesses' size", NULL },
	{ "first_mismatches", MMT_METRIC_LIST, "", MMT_BETTER_NEUTRAL, false,
	  "the first mismatching words each consumer saw: message, word, expected, found", &mismatch_shape },
};

static void msgpass_describe(const json_t *run, char *buf, size_t len)
{
	const json_t *m = json_object_get(run, "metrics");
	const json_t *rt = json_object_get(m, "round_trip_ns");

	if (json_is_object(rt))
		snprintf(buf, len, "rt p50 %.0fns p99 %.0fns",
			 json_number_value(json_object_get(rt, "median")),
			 json_number_value(json_object_get(rt, "p99")));
	else
		snprintf(buf, len, "-");
}

static void msgpass_cleanup(struct mmt_run *run)
{
	struct priv *p = run->priv;

	if (!p)
		return;
	free(p->report);
	free(p);
	run->priv = NULL;
}

static const struct mmt_scenario msgpass = {
	.name = "msgpass",
	.help = "message passing: a producer publishes a multi-word payload, consumers check every word",
	MMT_TABLE(variants, variants),
	MMT_TABLE(options, options),
	.min_threads = 2,
	.default_threads = 2,
	.max_threads = 0,
	MMT_TABLE(outcomes, outcome_names),
	.ops_unit = "messages",
	MMT_TABLE(metrics, metrics),
	.extra_events = "ordering",	/* memory-ordering clears beside the witnesses */
	.shared_size = msgpass_shared_size,
	.prepare = msgpass_prepare,
	.variant_worker = loops,
	.verify = msgpass_verify,
	.cleanup = msgpass_cleanup,
	.describe = msgpass_describe,
	.tracks_placement = true,
};
MMT_SCENARIO(msgpass);
