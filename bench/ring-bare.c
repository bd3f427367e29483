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
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ring.h"
#include "clock.h"
#include "exit-codes.h"
#include "mix.h"
#include "parse.h"
#include "ruler.h"

#define PROG "ring-bare"

struct names {
	const char *name;
	unsigned forbidden_on;
	enum mmt_family family;
};
#define AS_NAME(e, n, forbidden, fam, ...) [V_##e] = { n, forbidden, MMT_FAMILY_##fam },
static const struct names names[NR_VARIANTS] = { RING_VARIANTS(AS_NAME) };
#undef AS_NAME

/* The index rings: the variants whose protocol ring.h holds. */
static inline bool has_ruler(int v)
{
	return v == V_CACHED || v == V_NAIVE || v == V_MB || v == V_C11;
}

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

/* One copy of the loops per variant with a ruler, as in the scenario: the
 * primitives are compile-time constants.  The others' are empty (never
 * run: main refuses them). */
#define AS_LOOP(e, ...)                                                                            \
	static void loop_##e(void *x, int role)                                                    \
	{                                                                                          \
		if (!has_ruler(V_##e))                                                             \
			return;                                                                    \
		if (role == 0)                                                                     \
			producer(V_##e, x);                                                        \
		else                                                                               \
			consumer(V_##e, x);                                                        \
	}
RING_VARIANTS(AS_LOOP)
#undef AS_LOOP
#define AS_ENTRY(e, ...) [V_##e] = loop_##e,
static void (*const loops[NR_VARIANTS])(void *, int) = { RING_VARIANTS(AS_ENTRY) };
#undef AS_ENTRY

static void usage(FILE *f)
{
	fprintf(f, "usage: " PROG " [--variant V] [--cpus A,B] [--duration D] [--ring-size N] [--batch N]\n"
		   "                 [--item-words N] [--seed S] | --list\n"
		   "ring's index rings with no harness around them: the ruler bench/efficiency.py divides by.\n"
		   "  --variant V      a ring variant with a ruler (default cached):");
	for (int v = 0, first = 1; v < NR_VARIANTS; v++)
		if (has_ruler(v)) {
			fprintf(f, "%s %s", first ? "" : ",", names[v].name);
			first = 0;
		}
	fprintf(f, "\n"
		   "  --cpus A,B       producer on A, consumer on B (default 0,1)\n"
		   "  --duration D     500ms, 1s, bare seconds (default 1s)\n"
		   "  --ring-size N    slots, a power of two, 2-16777216 (default 4096)\n"
		   "  --batch N        items per head publication where the variant caches, 1-1048576 (default 32)\n"
		   "  --item-words N   64-bit words per item, 1-64 (default 1)\n"
		   "  --seed S         seed for the item values, decimal (default 1)\n"
		   "  --list           the variants with a ruler built here, one a line\n"
		   "Prints one JSON object: items and items_per_sec (the consumer's), mismatched_items and the\n"
		   "probe before and after (one-way ns).\n"
		   "Exit 0; 1 a forbidden mismatch; 2 bad input; 3 a CPU not pinned or a thread not started;\n"
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
		{ "variant", required_argument, NULL, 'v' },	{ "cpus", required_argument, NULL, 'c' },
		{ "duration", required_argument, NULL, 'd' },	{ "ring-size", required_argument, NULL, 'r' },
		{ "batch", required_argument, NULL, 'b' },	{ "item-words", required_argument, NULL, 'w' },
		{ "seed", required_argument, NULL, 's' },	{ "list", no_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },		{ NULL, 0, NULL, 0 },
	};
	char err[MMT_ERRLEN], msg[MMT_ERRLEN + 64];
	uint64_t duration_ns = 1000000000ull, size = 4096, batch = 32, words = 1, seed = 1;
	int variant = V_CACHED, cpus[2] = { 0, 1 }, opt;
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
		case 'r':
			if (bad_number("ring-size", optarg, &size, 2, 1u << 24))
				return MMT_EXIT_USAGE;
			if (size & (size - 1)) {
				snprintf(msg, sizeof(msg), "--ring-size %llu is not a power of two", (unsigned long long)size);
				return bad_input(msg);
			}
			break;
		case 'b':
			if (bad_number("batch", optarg, &batch, 1, 1u << 20))
				return MMT_EXIT_USAGE;
			break;
		case 'w':
			if (bad_number("item-words", optarg, &words, 1, 64))
				return MMT_EXIT_USAGE;
			break;
		case 's':
			if (mmt_parse_u64_decimal(optarg, &seed, err, sizeof(err))) {
				snprintf(msg, sizeof(msg), "--seed: %s", err);
				return bad_input(msg);
			}
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
			: !has_ruler(variant) ? "no ruler: a queue of nodes runs the library's protocol"
					      : mmt_family_not_built(names[variant].family));
		return MMT_EXIT_SKIPPED;
	}

	x = mmt_alloc_lines(sizeof(*x));
	if (x)
		x->s = mmt_alloc_lines(sizeof(struct shared) + size * words * sizeof(uint64_t));
	if (!x || !x->s) {
		fprintf(stderr, PROG ": out of memory\n");
		return MMT_EXIT_HARNESS;
	}
	x->size = size;
	x->batch = batch < size ? batch : size;	/* as the scenario */
	x->words = words;
	x->mix = mmt_mix64(seed);

	double before, after;
	json_t *probe_before = ruler_probe(cpus[0], cpus[1], &before);

	if (ruler_run(PROG, cpus, loops[variant], x, duration_ns))
		return MMT_EXIT_HARNESS;
	json_t *probe_after = ruler_probe(cpus[0], cpus[1], &after);

	const struct side *p = &x->side[0], *c = &x->side[1];
	uint64_t elapsed = c->t_end_ns - c->t_begin_ns;
	json_t *out = json_pack("{s:s,s:s,s:[i,i],s:I,s:I,s:i,s:I,s:I,s:f,s:I,s:I,s:o}", "ruler", PROG,
				"variant", names[variant].name, "cpus", cpus[0], cpus[1], "ring_size",
				(json_int_t)size, "batch", (json_int_t)x->batch, "item_words", (int)words,
				"elapsed_ns", (json_int_t)elapsed, "items", (json_int_t)c->items, "items_per_sec",
				elapsed ? (double)c->items * 1e9 / (double)elapsed : 0.0, "produced",
				(json_int_t)p->items, "mismatched_items", (json_int_t)c->bad_items, "probe",
				ruler_probe_doc(probe_before, before, probe_after, after));

	json_dumpf(out, stdout, JSON_COMPACT);
	putchar('\n');
	json_decref(out);
	/* A mismatch where the variant forbids it is a finding, as in the scenario. */
	return c->bad_items && (names[variant].forbidden_on & mmt_this_arch()) ? MMT_EXIT_WITNESSED
									      : MMT_EXIT_OK;
}
