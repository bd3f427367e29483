/* SPDX-License-Identifier: MIT */
/*
 * ring: a single-producer single-consumer queue, every item verified.
 *
 * Item n carries its sequence number and a checksum of it (word 0:
 * n << 16 | hash16(n), further words derived from n), so the consumer,
 * which knows which item must come next, catches with one compare per word:
 *   gap        an item from the future: something was skipped
 *   duplicate  an item from the past: read before it was (re)written
 *   corrupt    a word that is no item's, or a torn multi-word item
 *
 * Index rings (head: items written, published by the producer; tail: items
 * read, published by the consumer; slot = index & (size - 1)):
 *   cached   acquire/release, each side caches the other's index and only
 *            re-reads it when the cache says full/empty; indices published
 *            once per batch (the fast design)
 *   naive    acquire/release, both indices read and published per item
 *   mb       as naive, with smp_mb() instead of acquire/release
 *   c11      the cached design with C11 atomics
 *   broken-publish-first  fault injection: head is published before the
 *            batch is written; the checker must catch it
 *   broken-drop  fault injection: every 1024th item is lost; each loss
 *            must be reported as exactly one gap
 * liburcu queues (unbounded lists: a pool of ring-size nodes recycled
 * through the same tail counter bounds them like the rings):
 *   urcu-wfcq  cds_wfcq_enqueue / __cds_wfcq_dequeue_blocking
 *   urcu-lfq   cds_lfq_enqueue_rcu / cds_lfq_dequeue_rcu under
 *              rcu_read_lock; nodes reused after synchronize_rcu()
 * concurrencykit (where configure found libck-dev; skipped elsewhere):
 *   ck-spsc    ck_ring_enqueue_spsc / ck_ring_dequeue_spsc: a ring of
 *              pointers, as ck_ring carries them, to the same pool of
 *              nodes, recycled the same way (the consumer's dequeue
 *              publishes its index before it has read the node)
 */
#define URCU_INLINE_SMALL_FUNCTIONS
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <urcu.h>
#include <urcu/rculfqueue.h>
#include <urcu/wfcqueue.h>

#ifdef MMT_HAVE_CK
#include <ck_ring.h>
#endif

#include "metrics.h"
#include "placement-track.h"
#include "ring.h"

static const struct mmt_variant variants[NR_VARIANTS] = { RING_VARIANTS(MMT_X_ROW) };

enum { OPT_RING_SIZE, OPT_BATCH, OPT_ITEM_WORDS, OPT_BROKEN_DELAY };
static const struct mmt_option options[] = {
	[OPT_RING_SIZE] = { "ring-size", "slots (items), a power of two", 4096, 2, 1u << 24 },
	[OPT_BATCH] = { "batch", "cached/c11: items per index publication; urcu-lfq: items per grace period is ring-size/4",
		32, 1, 1u << 20 },
	[OPT_ITEM_WORDS] = { "item-words", "64-bit words per item", 1, 1, 64 },
	[OPT_BROKEN_DELAY] = { "broken-delay",
		"broken-publish-first: cpu_relax() spins between publishing and writing", 64, 0, 1000000 },
};

enum { OUT_OK, OUT_GAP, OUT_DUPLICATE, OUT_CORRUPT, NR_OUTCOMES };
static const char *const outcome_names[NR_OUTCOMES] = { "ok", "gap", "duplicate", "corrupt" };

struct qnode {
	struct cds_wfcq_node wfcq;
	struct cds_lfq_node_rcu lfq;
	uint64_t item[];
};

struct priv {
	uint64_t size, mask, batch, words, delay;
	uint64_t mix;
	/* urcu queues: one node per ring slot */
	char *pool;
	size_t node_bytes;
	struct cds_wfcq_head wq_head __mmt_aligned;
	struct cds_wfcq_tail wq_tail __mmt_aligned;
	struct cds_lfq_queue_rcu lfq __mmt_aligned;
#ifdef MMT_HAVE_CK
	ck_ring_t ck __mmt_aligned;	/* its indices on lines of their own */
	ck_ring_buffer_t *ck_buf;	/* ring-size slots, each a node pointer */
#endif
	uint64_t dropped;	/* broken-drop: items the producer lost */
	/* consumer's findings */
	uint64_t first_bad_index, first_bad_found;
	bool seen_bad;
	uint64_t grace_periods;
};

static int ring_check_options(const uint64_t *opt, char *err, size_t len)
{
	if (opt[OPT_RING_SIZE] & (opt[OPT_RING_SIZE] - 1)) {
		snprintf(err, len, "--ring-size %llu is not a power of two",
			 (unsigned long long)opt[OPT_RING_SIZE]);
		return -1;
	}
	return 0;
}

static size_t ring_shared_size(const struct mmt_run *run)
{
	return sizeof(struct shared) + run->opt[OPT_RING_SIZE] * run->opt[OPT_ITEM_WORDS] * sizeof(uint64_t);
}

static struct qnode *node_at(const struct priv *p, uint64_t n)
{
	return (struct qnode *)(p->pool + (n & p->mask) * p->node_bytes);
}

static bool urcu_queue(const struct mmt_variant *v)
{
	return v == &variants[V_URCU_WFCQ] || v == &variants[V_URCU_LFQ];
}

static int ring_prepare(struct mmt_run *run)
{
	struct priv *p;
	uint64_t size = run->opt[OPT_RING_SIZE];

	p = mmt_alloc_lines(sizeof(*p));
	if (!p)
		return -1;
	run->priv = p;	/* from here what a failure leaves is cleanup()'s */
	p->size = size;
	p->mask = size - 1;
	p->batch = run->opt[OPT_BATCH] < size ? run->opt[OPT_BATCH] : size;
	p->words = run->opt[OPT_ITEM_WORDS];
	p->delay = run->opt[OPT_BROKEN_DELAY];
	p->mix = mmt_mix64(run->seed);
	if (urcu_queue(run->variant) || run->variant == &variants[V_CK_SPSC]) {
		p->node_bytes = (sizeof(struct qnode) + p->words * sizeof(uint64_t) + 63) / 64 * 64;
		p->pool = aligned_alloc(MMT_PAD_BYTES, p->node_bytes * size);
		if (!p->pool)
			return -1;
		memset(p->pool, 0, p->node_bytes * size);
	}
	if (urcu_queue(run->variant)) {
		cds_wfcq_init(&p->wq_head, &p->wq_tail);
		cds_lfq_init_rcu(&p->lfq, call_rcu);
	}
#ifdef MMT_HAVE_CK
	if (run->variant == &variants[V_CK_SPSC]) {
		/* --ring-size slots hold ring-size - 1 pointers: one of the
		 * pool's nodes may wait for a free slot (queue_producer). */
		p->ck_buf = mmt_alloc_lines(size * sizeof(ck_ring_buffer_t));
		if (!p->ck_buf)
			return -1;
		ck_ring_init(&p->ck, (unsigned int)size);
	}
#endif
	return 0;
}

/* ---- index rings --------------------------------------------------------- */

static inline __attribute__((always_inline)) void ring_producer(const int v, struct mmt_worker *w)
{
	struct shared *s = w->run->shared;
	struct priv *p = w->run->priv;
	const uint64_t last = w->run->iterations ? w->run->iterations : UINT64_MAX;
	uint64_t head = 0, tail_cache = 0, seq = 0;

	while (head < last) {
		uint64_t free_slots, n;

		if (!caches(v) || head - tail_cache == p->size)
			tail_cache = idx_load(v, &s->tail);
		free_slots = p->size - (head - tail_cache);
		if (!free_slots) {
			if (mmt_should_stop())
				break;
			mmt_track_poll(w, head);
			continue;
		}
		n = caches(v) ? p->batch : 1;
		if (n > free_slots)
			n = free_slots;
		if (n > last - head)
			n = last - head;
		if (v == V_BROKEN) {
			idx_store(v, &s->head, head + n);
			for (uint64_t d = 0; d < p->delay; d++)
				cpu_relax();
		}
		for (uint64_t i = 0; i < n; i++, seq++) {
			if (v == V_DROP && seq % DROP_EVERY == DROP_EVERY - 1) {
				seq++;	/* the lost item: its number is never written */
				p->dropped++;
			}
			write_item(p->mix, p->words, &s->slots[((head + i) & p->mask) * p->words], seq);
		}
		head += n;
		if (v != V_BROKEN)
			idx_store(v, &s->head, head);
		if (mmt_should_stop())
			break;
		mmt_track_poll(w, head);
	}
	w->ops = head;
	w->role = "producer";
}

/*
 * A slot that is not item n.  Returns the number expected next: after a
 * gap the consumer resynchronises on what it found, so one lost item is one
 * gap, not a mismatch for every item after it.
 */
static uint64_t __attribute__((noinline)) classify(struct priv *p, uint64_t *outcomes, uint64_t n,
						   const uint64_t *slot)
{
	uint64_t x = slot[0] ^ p->mix, found = x >> 16, next = n + 1;
	int out = OUT_CORRUPT;

	/* A valid word 0 of another number; the same number with bad later
	 * words is a torn item and stays corrupt. */
	if (word0(p->mix, found) == slot[0] && found != n) {
		out = found > n ? OUT_GAP : OUT_DUPLICATE;
		if (found > n)
			next = found + 1;
	}
	outcomes[out]++;
	if (!p->seen_bad) {
		p->seen_bad = true;
		p->first_bad_index = n;
		p->first_bad_found = slot[0];
	}
	return next;
}

static inline __attribute__((always_inline)) void ring_consumer(const int v, struct mmt_worker *w)
{
	struct shared *s = w->run->shared;
	struct priv *p = w->run->priv;
	const uint64_t last = w->run->iterations ? w->run->iterations : UINT64_MAX;
	uint64_t tail = 0, head_cache = 0, expect = 0;

	w->role = "consumer";
	while (tail < last) {
		uint64_t n;

		if (!caches(v) || tail == head_cache) {
			head_cache = idx_load(v, &s->head);
			if (tail == head_cache) {
				if (mmt_should_stop())
					break;
				mmt_track_poll(w, tail);
				continue;
			}
		}
		n = head_cache - tail;
		if (caches(v) && n > p->batch)
			n = p->batch;
		if (!caches(v))
			n = 1;
		for (uint64_t i = 0; i < n; i++) {
			const uint64_t *slot = &s->slots[((tail + i) & p->mask) * p->words];

			if (unlikely(check_item(p->mix, p->words, slot, expect))) {
				mmt_witness_first(w, tail + i);
				expect = classify(p, w->outcomes, expect, slot);
			} else {
				w->outcomes[OUT_OK]++;
				expect++;
			}
		}
		tail += n;
		idx_store(v, &s->tail, tail);
		mmt_track_poll(w, tail);
	}
	w->ops = tail;
}

/* ---- queues of nodes: liburcu, concurrencykit ---------------------------- */

static void queue_producer(const int v, struct mmt_worker *w)
{
	struct shared *s = w->run->shared;
	struct priv *p = w->run->priv;
	const uint64_t last = w->run->iterations ? w->run->iterations : UINT64_MAX;
	uint64_t n = 0, released = 0;

	if (!MMT_FAMILY_BUILT(variants[v].family))
		return;	/* never started: mmt_family_not_built() */
	if (v == V_URCU_LFQ)
		rcu_register_thread();
	while (n < last) {
		struct qnode *q;

		/* Node n is node n - size again: wait until that one is free. */
		if (n - released == p->size) {
			released = smp_load_acquire(&s->tail);
			if (n - released == p->size) {
				if (mmt_should_stop())
					break;
				mmt_track_poll(w, n);
				continue;
			}
		}
		q = node_at(p, n);
		write_item(p->mix, p->words, q->item, n);
		if (v == V_URCU_WFCQ) {
			cds_wfcq_node_init(&q->wfcq);
			cds_wfcq_enqueue(&p->wq_head, &p->wq_tail, &q->wfcq);
#ifdef MMT_HAVE_CK
		} else if (v == V_CK_SPSC) {
			/* Full (ring-size - 1 in flight): node n waits for a slot. */
			while (!ck_ring_enqueue_spsc(&p->ck, p->ck_buf, q)) {
				if (mmt_should_stop())
					goto out;
				mmt_track_poll(w, n);
			}
#endif
		} else {
			cds_lfq_node_init_rcu(&q->lfq);
			rcu_read_lock();
			cds_lfq_enqueue_rcu(&p->lfq, &q->lfq);
			rcu_read_unlock();
		}
		n++;
		if ((n & 63) == 0 && mmt_should_stop())
			break;
		mmt_track_poll(w, n);
	}
#ifdef MMT_HAVE_CK
out:
#endif
	if (v == V_URCU_LFQ)
		rcu_unregister_thread();
	w->ops = n;
	w->role = "producer";
}

static void queue_consumer(const int v, struct mmt_worker *w)
{
	struct shared *s = w->run->shared;
	struct priv *p = w->run->priv;
	const uint64_t last = w->run->iterations ? w->run->iterations : UINT64_MAX;
	/* lfq nodes may still be read by the enqueuer until a grace period
	 * has passed; release them a quarter ring at a time. */
	const uint64_t release_every = v == V_URCU_LFQ ? (p->size / 4 ? p->size / 4 : 1) : p->batch;
	uint64_t n = 0, pending = 0;

	if (!MMT_FAMILY_BUILT(variants[v].family))
		return;	/* never started: mmt_family_not_built() */
	w->role = "consumer";
	if (v == V_URCU_LFQ)
		rcu_register_thread();
	while (n < last) {
		struct qnode *q;

		if (v == V_URCU_WFCQ) {
			struct cds_wfcq_node *node = __cds_wfcq_dequeue_blocking(&p->wq_head, &p->wq_tail);

			q = node ? caa_container_of(node, struct qnode, wfcq) : NULL;
#ifdef MMT_HAVE_CK
		} else if (v == V_CK_SPSC) {
			if (!ck_ring_dequeue_spsc(&p->ck, p->ck_buf, &q))
				q = NULL;
#endif
		} else {
			struct cds_lfq_node_rcu *node;

			rcu_read_lock();
			node = cds_lfq_dequeue_rcu(&p->lfq);
			rcu_read_unlock();
			q = node ? caa_container_of(node, struct qnode, lfq) : NULL;
		}
		if (!q) {
			if (pending) {
				/* Idle: hand back what was consumed so the producer,
				 * which may be waiting for nodes, can go on. */
				if (v == V_URCU_LFQ) {
					synchronize_rcu();
					p->grace_periods++;
				}
				smp_store_release(&s->tail, n);
				pending = 0;
			}
			if (mmt_should_stop())
				break;
			mmt_track_poll(w, n);
			continue;
		}
		if (unlikely(check_item(p->mix, p->words, q->item, n))) {
			mmt_witness_first(w, n);
			classify(p, w->outcomes, n, q->item);
		} else {
			w->outcomes[OUT_OK]++;
		}
		n++;
		mmt_track_poll(w, n);
		if (++pending == release_every) {
			if (v == V_URCU_LFQ) {
				synchronize_rcu();
				p->grace_periods++;
			}
			smp_store_release(&s->tail, n);
			pending = 0;
		}
	}
	if (v == V_URCU_LFQ)
		rcu_unregister_thread();
	w->ops = n;
}

#define AS_WORKER(e, n, forbidden, fam, cmp, text, first, rest) MMT_VARIANT_WORKER(V_##e, first, rest)
RING_VARIANTS(AS_WORKER)
#undef AS_WORKER

static void (*const loops[NR_VARIANTS])(struct mmt_worker *) = { RING_VARIANTS(MMT_X_LOOP) };

static const struct mmt_field first_bad_fields[] = {
	MMT_FIELD_AS("index", struct priv, first_bad_index, MMT_F_COUNT),
	MMT_FIELD_AS("found_word0", struct priv, first_bad_found, MMT_F_HEX),
};
static const struct mmt_shape first_bad_shape = MMT_SHAPE(struct priv, first_bad_fields);

static const struct mmt_metric metrics[] = {
	{ "ring_size", MMT_METRIC_COUNT, "slots", MMT_BETTER_NEUTRAL, false, "slots in the ring (--ring-size)", NULL },
	{ "batch", MMT_METRIC_COUNT, "items", MMT_BETTER_NEUTRAL, false,
	  "items written before the head is published (--batch)", NULL },
	{ "item_bytes", MMT_METRIC_COUNT, "bytes", MMT_BETTER_NEUTRAL, false, "bytes per item", NULL },
	{ "produced", MMT_METRIC_COUNT, "items", MMT_BETTER_NEUTRAL, false,
	  "items the producer wrote (the run's ops are the consumer's)", NULL },
	{ "dropped", MMT_METRIC_COUNT, "items", MMT_BETTER_NEUTRAL, false,
	  "broken-drop only: items the producer skipped on purpose", NULL },
	{ "grace_periods", MMT_METRIC_COUNT, "grace periods", MMT_BETTER_NEUTRAL, false,
	  "urcu-lfq only: synchronize_rcu() calls before nodes were reused", NULL },
	{ "first_bad", MMT_METRIC_OBJECT, "", MMT_BETTER_NEUTRAL, false,
	  "the first item whose sequence or checksum was wrong: index, found_word0", &first_bad_shape },
};

static void ring_verify(struct mmt_run *run)
{
	struct priv *p = run->priv;

	run->ops = run->workers[1].ops;
	mmt_put_count(run, "ring_size", p->size);
	mmt_put_count(run, "batch", p->batch);
	mmt_put_count(run, "item_bytes", p->words * 8);
	mmt_put_count(run, "produced", run->workers[0].ops);
	if (run->variant == &variants[V_DROP])
		mmt_put_count(run, "dropped", p->dropped);
	if (run->variant == &variants[V_URCU_LFQ])
		mmt_put_count(run, "grace_periods", p->grace_periods);
	if (p->seen_bad)
		mmt_put_object(run, "first_bad", p);
}

static void ring_describe(const json_t *run, char *buf, size_t len)
{
	const json_t *m = json_object_get(run, "metrics");
	const json_t *gp = json_object_get(m, "grace_periods");

	if (gp)
		snprintf(buf, len, "%lld B items, %lld grace periods",
			 (long long)json_integer_value(json_object_get(m, "item_bytes")),
			 (long long)json_integer_value(gp));
	else
		snprintf(buf, len, "%lld B items, batch %lld",
			 (long long)json_integer_value(json_object_get(m, "item_bytes")),
			 (long long)json_integer_value(json_object_get(m, "batch")));
}

static void ring_cleanup(struct mmt_run *run)
{
	struct priv *p = run->priv;

	if (!p)
		return;
#ifdef MMT_HAVE_CK
	free(p->ck_buf);
#endif
	/* Nothing can fail between a urcu pool's allocation and its
	 * queues' init: with the pool, the queues are there to drain. */
	if (p->pool && urcu_queue(run->variant)) {
		/* Drain what a stopped run left queued, so no node is in use. */
		while (__cds_wfcq_dequeue_blocking(&p->wq_head, &p->wq_tail))
			;
		cds_wfcq_destroy(&p->wq_head, &p->wq_tail);
		rcu_register_thread();
		for (;;) {
			struct cds_lfq_node_rcu *node;

			rcu_read_lock();
			node = cds_lfq_dequeue_rcu(&p->lfq);
			rcu_read_unlock();
			if (!node)
				break;
		}
		synchronize_rcu();
		cds_lfq_destroy_rcu(&p->lfq);
		rcu_unregister_thread();
		rcu_barrier(); /* the queue's dummy nodes are freed by call_rcu */
	}
	free(p->pool);
	free(p);
	run->priv = NULL;
}

static const struct mmt_scenario ring = {
	.name = "ring",
	.help = "SPSC queue: hand-rolled rings, C11, liburcu queues and ck_ring, every item's sequence and checksum verified",
	MMT_TABLE(variants, variants),
	MMT_TABLE(options, options),
	.min_threads = 2,
	.default_threads = 2,
	.max_threads = 2,
	MMT_TABLE(outcomes, outcome_names),
	.ops_unit = "items",
	MMT_TABLE(metrics, metrics),
	.check_options = ring_check_options,
	.shared_size = ring_shared_size,
	.prepare = ring_prepare,
	.variant_worker = loops,
	.verify = ring_verify,
	.cleanup = ring_cleanup,
	.describe = ring_describe,
	.tracks_placement = true,
	.split_ops_worker = 1,	/* the consumer's items are the run's */
};
MMT_SCENARIO(ring);
