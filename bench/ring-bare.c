/* SPDX-License-Identifier: MIT */
/*
 * ring-bare: the ruler ring is measured against (bench/efficiency.py).
 *
 * The same protocol as scenarios/ring.c's index rings, from the same
 * header (the variants' index primitives, the shared layout, the item
 * values, the writing and checking of an item): one producer writes
 * items into the slots and publishes its head (once per batch where the
 * variant caches, per item where it does not); one consumer reads the
 * head, checks every word of every item against the item it must be, and
 * publishes its tail.  Pinned to the two CPUs given, probed before and
 * after with the harness's placement probe.
 *
 * What it leaves out is the harness: no stop flag or placement tracker
 * polled (the producer looks at a time-up flag once per pass of its loop;
 * the consumer at a done flag when the ring is empty, the least that lets
 * it end), no outcome counts or first-bad records, no worker records; the
 * ring's size, batch, item words and mix are locals.  A mismatch is
 * counted and the consumer goes on expecting the next number (the
 * scenario classifies it and resynchronises: a path a clean run never
 * takes).  The queues of nodes (urcu-wfcq, urcu-lfq, ck-spsc) have no
 * ruler: their protocol is the library's.
 *
 * Prints one JSON object on stdout.  Exit 0; 1 when the consumer saw an
 * item that was not the one due, on a variant that forbids it here; 2 bad
 * input (one line on stderr); 3 a CPU could not be pinned or a thread
 * started; 77 a variant without a ruler.
 */
#include <stdint.h>

#include "ring.h"
#include "clock.h"
#include "mix.h"
#include "ruler.h"

/* The index rings: the variants whose protocol ring.h holds. */
#define RULER_HAS(v) ((v) == V_CACHED || (v) == V_NAIVE || (v) == V_MB || (v) == V_C11)
#define RULER_ROLE0 producer
#define RULER_ROLE1 consumer

struct side {
	uint64_t items, bad_items;
	uint64_t t_begin_ns, t_end_ns;
} __mmt_aligned;

struct bare {
	struct shared *s;
	uint64_t size, batch, words, mix;
	struct side side[2];
};

static inline __attribute__((always_inline)) void producer(const int v, struct bare *x)
{
	struct shared *s = x->s;
	struct side *me = &x->side[0];
	const uint64_t size = x->size, mask = size - 1, batch = x->batch, words = x->words, mix = x->mix;
	uint64_t head = 0, tail_cache = 0;

	me->t_begin_ns = ruler_start_together();
	while (!READ_ONCE(ruler_time_up.v)) {
		uint64_t free_slots, n;

		if (!caches(v) || head - tail_cache == size)
			tail_cache = idx_load(v, &s->tail);
		free_slots = size - (head - tail_cache);
		if (!free_slots)
			continue;
		n = caches(v) ? batch : 1;
		if (n > free_slots)
			n = free_slots;
		for (uint64_t i = 0; i < n; i++)
			write_item(mix, words, &s->slots[((head + i) & mask) * words], head + i);
		head += n;
		idx_store(v, &s->head, head);
	}
	me->t_end_ns = mmt_now_ns();
	me->items = head;
	/* After the last head: a consumer that sees done reads that head. */
	smp_store_release(&ruler_done.v, 1);
}

static inline __attribute__((always_inline)) void consumer(const int v, struct bare *x)
{
	struct shared *s = x->s;
	struct side *me = &x->side[1];
	const uint64_t mask = x->size - 1, batch = x->batch, words = x->words, mix = x->mix;
	uint64_t tail = 0, head_cache = 0, bad = 0;

	me->t_begin_ns = ruler_start_together();
	for (;;) {
		uint64_t n;

		if (!caches(v) || tail == head_cache) {
			head_cache = idx_load(v, &s->head);
			if (tail == head_cache) {
				if (unlikely(smp_load_acquire(&ruler_done.v)) &&
				    tail == (head_cache = idx_load(v, &s->head)))
					break;
				continue;
			}
		}
		n = head_cache - tail;
		if (caches(v) && n > batch)
			n = batch;
		if (!caches(v))
			n = 1;
		for (uint64_t i = 0; i < n; i++)
			if (unlikely(check_item(mix, words, &s->slots[((tail + i) & mask) * words], tail + i)))
				bad++;
		tail += n;
		idx_store(v, &s->tail, tail);
	}
	me->t_end_ns = mmt_now_ns();
	me->items = tail;
	me->bad_items = bad;
}

RING_VARIANTS(RULER_LOOP)
static const struct ruler_variant variants[NR_VARIANTS] = { RING_VARIANTS(RULER_ROW) };

enum { OPT_RING_SIZE, OPT_BATCH, OPT_ITEM_WORDS, OPT_SEED, NR_OPTS };
static const struct ruler_opt opts[NR_OPTS] = {
	[OPT_RING_SIZE] = { .name = "ring-size", .text = "slots, a power of two", .def = 4096, .min = 2,
			    .max = 1u << 24, .power_of_two = true },
	[OPT_BATCH] = { .name = "batch", .text = "items per head publication where the variant caches",
			.def = 32, .min = 1, .max = 1u << 20 },
	[OPT_ITEM_WORDS] = { .name = "item-words", .text = "64-bit words per item", .def = 1, .min = 1, .max = 64 },
	[OPT_SEED] = { .name = "seed", .arg = "S", .text = "seed for the item values", .def = 1, .max = UINT64_MAX,
		       .decimal = true },
};

static void *prepare(const struct ruler_args *a)
{
	const uint64_t size = a->val[OPT_RING_SIZE], batch = a->val[OPT_BATCH], words = a->val[OPT_ITEM_WORDS];
	struct bare *x = mmt_alloc_lines(sizeof(*x));

	if (x)
		x->s = mmt_alloc_lines(sizeof(struct shared) + size * words * sizeof(uint64_t));
	if (!x || !x->s)
		return NULL;
	x->size = size;
	x->batch = batch < size ? batch : size;	/* as the scenario */
	x->words = words;
	x->mix = mmt_mix64(a->val[OPT_SEED]);
	return x;
}

/* What it prints after the run (bench/ruler.h). */
struct result {
	uint64_t ring_size, batch;
	int item_words;
	uint64_t elapsed_ns, items;
	double items_per_sec;
	uint64_t produced, mismatched_items;
};
static const struct mmt_field result_fields[] = {
	MMT_FIELD(struct result, ring_size, MMT_F_COUNT),
	MMT_FIELD(struct result, batch, MMT_F_COUNT),
	MMT_FIELD(struct result, item_words, MMT_F_INT),
	MMT_FIELD(struct result, elapsed_ns, MMT_F_COUNT),
	MMT_FIELD(struct result, items, MMT_F_COUNT),
	MMT_FIELD(struct result, items_per_sec, MMT_F_REAL),
	MMT_FIELD(struct result, produced, MMT_F_COUNT),
	MMT_FIELD(struct result, mismatched_items, MMT_F_COUNT),
};
static const struct mmt_shape result_shape = MMT_SHAPE(struct result, result_fields);

static const void *result(void *arg, const struct ruler_args *a, bool *mismatched)
{
	static struct result res;
	const struct bare *x = arg;
	const struct side *p = &x->side[0], *c = &x->side[1];
	uint64_t elapsed = c->t_end_ns - c->t_begin_ns;

	(void)a;
	*mismatched = c->bad_items != 0;
	res = (struct result){ x->size, x->batch, (int)x->words, elapsed, c->items,
			       elapsed ? (double)c->items * 1e9 / (double)elapsed : 0.0, p->items, c->bad_items };
	return &res;
}

static const struct ruler ring_ruler = {
	.prog = "ring-bare",
	.result_shape = &result_shape,
	.synopsis = "usage: ring-bare [--variant V] [--cpus A,B] [--duration D] [--ring-size N] [--batch N]\n"
		    "                 [--item-words N] [--seed S] | --list\n"
		    "ring's index rings with no harness around them: the ruler bench/efficiency.py divides by.\n",
	.variant_help = "a ring variant with a ruler",
	.roles = { "producer", "consumer" },
	.epilogue = "Prints one JSON object: items and items_per_sec (the consumer's), mismatched_items and the\n"
		    "probe before and after (one-way ns).\n"
		    "Exit 0; 1 a forbidden mismatch; 2 bad input; 3 a CPU not pinned or a thread not started;\n"
		    "77 a variant without a ruler.\n",
	.help_column = 17,
	.no_ruler = "no ruler: a queue of nodes runs the library's protocol",
	MMT_TABLE(variants, variants),
	.default_variant = V_CACHED,
	MMT_TABLE(opts, opts),
	.prepare = prepare,
	.result = result,
};

RULER_MAIN(ring_ruler)
