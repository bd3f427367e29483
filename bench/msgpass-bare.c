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
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "msgpass.h"
#include "clock.h"
#include "exit-codes.h"
#include "histogram.h"
#include "mix.h"
#include "parse.h"
#include "probe.h"
#include "timing.h"

struct names {
	const char *name;
	unsigned forbidden_on;
	enum mmt_family family;
};
#define AS_NAME(e, n, forbidden, fam, ...) [V_##e] = { n, forbidden, MMT_FAMILY_##fam },
static const struct names names[NR_VARIANTS] = { MSGPASS_VARIANTS(AS_NAME) };
#undef AS_NAME

/* The flags, each alone on its line: the producer reads time_up once per
 * message; the consumer reads done in its wait (a line nobody writes
 * until the end, so a hit in its own cache). */
static struct flag {
	int v;
} __mmt_aligned time_up, done, go;

struct side {
	struct mmt_hist lat;	/* producer: round trip; consumer: publish to seen (cycles) */
	uint64_t messages, bad_messages;
	uint64_t t_begin_ns, t_end_ns;
	int cpu, pin_err;
} __mmt_aligned;

struct bare {
	struct shared *s;
	struct payload_buf *buf[2];
	unsigned words;
	uint64_t mix;
	struct side side[2];
};

static void start_together(struct side *me)
{
	__atomic_add_fetch(&go.v, 1, __ATOMIC_SEQ_CST);
	while (READ_ONCE(go.v) < 2)
		;
	me->t_begin_ns = mmt_now_ns();
}

static inline __attribute__((always_inline)) void producer(const int v, struct bare *x)
{
	struct shared *s = x->s;
	struct side *me = &x->side[0];
	const unsigned words = x->words;
	const uint64_t mix = x->mix;
	uint64_t i;

	start_together(me);
	for (i = 1; !READ_ONCE(time_up.v); i++) {
		struct payload_buf *b = x->buf[i & 1];
		uint64_t *w = words_of(b), t0;

		for (unsigned k = 0; k < words; k++)
			w[k] = msgpass_value(mix, i, k);
		t0 = mmt_cycles();
		WRITE_ONCE(s->t_pub, t0);
		publish(v, s, b, i);
		while (smp_load_acquire(&ACK(s, 1)) != i)
			;
		mmt_hist_add(&me->lat, mmt_cycles() - t0);
	}
	me->t_end_ns = mmt_now_ns();
	me->messages = i - 1;
	WRITE_ONCE(done.v, 1);
}

static inline __attribute__((always_inline)) void consumer(const int v, struct bare *x)
{
	struct shared *s = x->s;
	struct side *me = &x->side[1];
	const unsigned words = x->words;
	const uint64_t mix = x->mix;
	uint64_t i;

	start_together(me);
	for (i = 1;; i++) {
		struct payload_buf *b = x->buf[i & 1];
		const uint64_t *w = words_of(b);
		uint64_t bad = 0, t, t_pub;

		while (!published(v, s, b, i))
			if (unlikely(READ_ONCE(done.v)))
				goto out;
		t = mmt_cycles();
		for (unsigned k = 0; k < words; k++)
			bad |= w[k] ^ msgpass_value(mix, i, k);
		/* Acknowledged as soon as every word is read and t_pub (which
		 * the producer rewrites after the acknowledgement) with them;
		 * the records come after, off the round trip. */
		t_pub = READ_ONCE(s->t_pub);
		smp_store_release(&ACK(s, 1), i);
		if (unlikely(bad))
			me->bad_messages++;
		mmt_hist_add(&me->lat, t - t_pub);
	}
out:
	me->messages = i - 1;
}

struct start {
	struct bare *x;
	int v, role;
};

/* One copy of the loops per variant, as in the scenario: the primitive is
 * a compile-time constant. */
#define AS_LOOP(e, ...)                                                                            \
	static void loop_##e(struct bare *x, int role)                                             \
	{                                                                                          \
		if (role == 0)                                                                     \
			producer(V_##e, x);                                                        \
		else                                                                               \
			consumer(V_##e, x);                                                        \
	}
MSGPASS_VARIANTS(AS_LOOP)
#undef AS_LOOP
#define AS_ENTRY(e, ...) [V_##e] = loop_##e,
static void (*const loops[NR_VARIANTS])(struct bare *, int) = { MSGPASS_VARIANTS(AS_ENTRY) };
#undef AS_ENTRY

static void *thread_main(void *arg)
{
	struct start *st = arg;

	loops[st->v](st->x, st->role);
	return NULL;
}

static json_t *latency(const struct mmt_hist *h, double cycles_per_ns)
{
	if (!h->count)
		return json_null();
	return json_pack("{s:f,s:f,s:f,s:I}", "median", mmt_hist_percentile(h, 0.5) / cycles_per_ns,
			 "p99", mmt_hist_percentile(h, 0.99) / cycles_per_ns,
			 "p999", mmt_hist_percentile(h, 0.999) / cycles_per_ns, "samples", (json_int_t)h->count);
}

static json_t *probe(int a, int b, double *one_way)
{
	struct mmt_probe_pair p;
	struct mmt_probe_status st;

	*one_way = NAN;
	if (mmt_probe_pair(a, b, &p, NULL, NULL, &st) != MMT_PROBE_OK)
		return json_null();
	*one_way = p.one_way_ns;
	return json_pack("{s:[i,i],s:f,s:f,s:i}", "cpus", a, b, "round_trip_ns", p.round_trip_ns,
			 "one_way_ns", p.one_way_ns, "chunks", p.chunks);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: msgpass-bare [--variant V] [--cpus A,B] [--duration D] [--payload-words N] [--seed S] | --list\n"
		   "msgpass's protocol with no harness around it: the ruler bench/efficiency.py divides by.\n"
		   "  --variant V        a msgpass variant (default release-acquire):");
	for (int v = 0; v < NR_VARIANTS; v++)
		fprintf(f, "%s %s", v ? "," : "", names[v].name);
	fprintf(f, "\n"
		   "  --cpus A,B         producer on A, consumer on B (default 0,1)\n"
		   "  --duration D       500ms, 1s, bare seconds (default 1s)\n"
		   "  --payload-words N  64-bit words per message, 1-4096 (default 16)\n"
		   "  --seed S           seed for the payload values, decimal (default 1)\n"
		   "  --list             the variants with a ruler built here, one a line\n"
		   "Prints one JSON object: msgs_per_sec, round_trip_ns and publish_to_seen_ns (median, p99,\n"
		   "p999, samples), the probe before and after (one-way ns) and mismatched_messages.\n"
		   "Exit 0; 1 a forbidden mismatch; 2 bad input; 3 a CPU not pinned or a thread not started.\n");
}

static int bad_input(const char *what)
{
	fprintf(stderr, "msgpass-bare: %s\n", what);
	return MMT_EXIT_USAGE;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "variant", required_argument, NULL, 'v' },	  { "cpus", required_argument, NULL, 'c' },
		{ "duration", required_argument, NULL, 'd' },	  { "payload-words", required_argument, NULL, 'w' },
		{ "seed", required_argument, NULL, 's' },	  { "list", no_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },		  { NULL, 0, NULL, 0 },
	};
	char err[MMT_ERRLEN], msg[MMT_ERRLEN + 64];
	uint64_t duration_ns = 1000000000ull, words = 16, seed = 1;
	int variant = V_RELEASE_ACQUIRE, cpus[2] = { 0, 1 }, ncpus = 2, opt;
	struct start st[2];
	pthread_t th[2];
	struct bare *x;
	size_t size;
	char *mem;

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
			if (mmt_parse_cpulist(optarg, cpus, 2, &ncpus, err, sizeof(err)) || ncpus != 2) {
				snprintf(msg, sizeof(msg), "--cpus: %s", ncpus != 2 && !*err ? "two CPUs, A,B" : err);
				return bad_input(msg);
			}
			/* parse_cpulist sorts: keep the order given */
			if (sscanf(optarg, "%d,%d", &cpus[0], &cpus[1]) != 2) {
				snprintf(msg, sizeof(msg), "--cpus: '%s' is not A,B", optarg);
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
			if (mmt_parse_u64(optarg, &words, err, sizeof(err)) || words < 1 || words > 4096) {
				snprintf(msg, sizeof(msg), "--payload-words: %s", *err ? err : "1 to 4096");
				return bad_input(msg);
			}
			break;
		case 's':
			if (mmt_parse_u64_decimal(optarg, &seed, err, sizeof(err))) {
				snprintf(msg, sizeof(msg), "--seed: %s", err);
				return bad_input(msg);
			}
			break;
		case 'l':
			for (int v = 0; v < NR_VARIANTS; v++)
				if (MMT_FAMILY_BUILT(names[v].family) && names[v].family != MMT_FAMILY_INJECTED)
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
	if (!MMT_FAMILY_BUILT(names[variant].family) || names[variant].family == MMT_FAMILY_INJECTED) {
		fprintf(stderr, "msgpass-bare: %s: %s\n", names[variant].name,
			names[variant].family == MMT_FAMILY_INJECTED ? "an injected fault has no ruler"
								     : mmt_family_not_built(names[variant].family));
		return MMT_EXIT_SKIPPED;
	}

	x = mmt_alloc_lines(sizeof(*x));
	size = msgpass_header_bytes(2) + 2 * msgpass_buf_bytes((unsigned)words);
	mem = mmt_alloc_lines(size);
	if (!x || !mem) {
		fprintf(stderr, "msgpass-bare: out of memory\n");
		return MMT_EXIT_HARNESS;
	}
	x->s = (struct shared *)mem;
	x->words = (unsigned)words;
	x->mix = mmt_mix64(seed) & ~0xffffull;
	x->buf[0] = (struct payload_buf *)(mem + msgpass_header_bytes(2));
	x->buf[1] = (struct payload_buf *)((char *)x->buf[0] + msgpass_buf_bytes((unsigned)words));
	for (unsigned k = 0; k < words; k++)
		words_of(x->buf[0])[k] = words_of(x->buf[1])[k] = msgpass_value(x->mix, 0, k);

	double before, after, cycles_per_ns = mmt_cycles_per_ns();
	json_t *probe_before = probe(cpus[0], cpus[1], &before);

	for (int r = 0; r < 2; r++) {
		pthread_attr_t attr;
		int e;

		st[r] = (struct start){ x, variant, r };
		pthread_attr_init(&attr);
		e = mmt_pin_attr(&attr, cpus[r]);
		if (!e)
			e = pthread_create(&th[r], &attr, thread_main, &st[r]);
		pthread_attr_destroy(&attr);
		if (e) {
			fprintf(stderr, "msgpass-bare: CPU %d: %s\n", cpus[r], strerror(e));
			return MMT_EXIT_HARNESS;
		}
	}
	/* Asleep, not spinning: the workers may have every CPU there is. */
	struct timespec until = { .tv_sec = (time_t)(duration_ns / 1000000000ull),
				  .tv_nsec = (long)(duration_ns % 1000000000ull) };

	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &until, &until) == EINTR)
		;
	WRITE_ONCE(time_up.v, 1);
	pthread_join(th[0], NULL);
	pthread_join(th[1], NULL);
	json_t *probe_after = probe(cpus[0], cpus[1], &after);

	const struct side *p = &x->side[0], *c = &x->side[1];
	uint64_t elapsed = p->t_end_ns - p->t_begin_ns;
	double drift = fmax(after / before, before / after);
	json_t *out = json_pack(
		"{s:s,s:s,s:[i,i],s:i,s:I,s:I,s:f,s:o,s:o,s:I,s:{s:o,s:o,s:b}}", "ruler", "msgpass-bare",
		"variant", names[variant].name, "cpus", cpus[0], cpus[1], "payload_words", (int)words,
		"elapsed_ns", (json_int_t)elapsed, "messages", (json_int_t)p->messages, "msgs_per_sec",
		elapsed ? (double)p->messages * 1e9 / (double)elapsed : 0.0, "round_trip_ns",
		latency(&p->lat, cycles_per_ns), "publish_to_seen_ns",
		mmt_cycles_synchronised() ? latency(&c->lat, cycles_per_ns) : json_null(), "mismatched_messages",
		(json_int_t)c->bad_messages, "probe", "before", probe_before, "after", probe_after, "stable",
		!isnan(drift) && drift <= MMT_PROBE_STABLE_RATIO);

	json_dumpf(out, stdout, JSON_COMPACT);
	putchar('\n');
	json_decref(out);
	/* A mismatch where the variant forbids it is a finding, as in the scenario. */
	return c->bad_messages && (names[variant].forbidden_on & mmt_this_arch()) ? MMT_EXIT_WITNESSED
										    : MMT_EXIT_OK;
}
