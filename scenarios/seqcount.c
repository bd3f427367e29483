/* SPDX-License-Identifier: MIT */
/*
 * seqcount: one writer updates a multi-word record, N readers take
 * snapshots.  Every version v of the record is w[k] = v * (2k + 1): odd
 * multipliers are invertible modulo 2^64, so a snapshot mixing two versions
 * always breaks w[k] == w[0] * (2k + 1), and a reader that accepts one has
 * witnessed a torn read.
 *
 * Worker 0 writes a new version every --write-interval-ns; workers 1..N
 * read.  Sequence-count variants count reader retries; the others show what
 * the same protection costs with RCU, a reader-writer lock or a spinlock.
 * ck uses concurrencykit's ck_sequence where configure found libck-dev (it
 * is skipped elsewhere).
 */
#define URCU_INLINE_SMALL_FUNCTIONS
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <urcu.h>

#include "clock.h"
#include "metrics.h"
#include "placement-track.h"
#include "seqcount.h"

static const struct mmt_variant variants[NR_VARIANTS] = { SEQCOUNT_VARIANTS(MMT_X_ROW) };

enum { OPT_RECORD_WORDS, OPT_WRITE_INTERVAL };
static const struct mmt_option options[] = {
	[OPT_RECORD_WORDS] = { "record-words", "64-bit words in the record", 8, 2, 512 },
	[OPT_WRITE_INTERVAL] = { "write-interval-ns", "the writer's pause between versions (0: flat out)",
		1000, 0, 1000000000 },
};

enum { OUT_CONSISTENT, OUT_TORN, NR_OUTCOMES };
static const char *const outcome_names[NR_OUTCOMES] = { "consistent", "torn" };

struct reader_state {
	uint64_t retries;
	uint64_t first_torn[2];	/* w[0] and the first bad word of the first torn snapshot */
	unsigned first_torn_k;
} __mmt_aligned;

/* The first torn read, for the record. */
struct torn_report {
	int reader;
	uint64_t word0;
	int word;
	uint64_t value;
};

struct priv {
	unsigned words;
	uint64_t interval_cycles;
	uint64_t writes;
	struct record *copies;	/* urcu-rcu: two, alternating */
	struct torn_report torn;
	pthread_rwlock_t rwlock __mmt_aligned;
	pthread_spinlock_t spin __mmt_aligned;
	struct reader_state rs[];
};

static size_t seqcount_shared_size(const struct mmt_run *run)
{
	return sizeof(struct shared);
}

static int seqcount_prepare(struct mmt_run *run)
{
	size_t size = sizeof(struct priv) + run->nr_workers * sizeof(struct reader_state);
	struct priv *p = mmt_alloc_lines(size);
	struct shared *s = run->shared;
	pthread_rwlockattr_t attr;

	if (!p)
		return -1;
	run->priv = p;
	/* First: cleanup() destroys them whatever failed after. */
	pthread_rwlockattr_init(&attr);
	pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	pthread_rwlock_init(&p->rwlock, &attr);
	pthread_rwlockattr_destroy(&attr);
	pthread_spin_init(&p->spin, PTHREAD_PROCESS_PRIVATE);
	p->words = (unsigned)run->opt[OPT_RECORD_WORDS];
	p->interval_cycles = (uint64_t)((double)run->opt[OPT_WRITE_INTERVAL] * run->cycles_per_ns);
	p->copies = aligned_alloc(MMT_PAD_BYTES, 2 * sizeof(struct record));
	if (!p->copies)
		return -1;
	memset(p->copies, 0, 2 * sizeof(struct record));
	s->gp = &p->copies[0];	/* version 0: all zero, consistent */
	return 0;
}

/* ---- writer -------------------------------------------------------------- */

static inline __attribute__((always_inline)) void write_version(const int v, struct shared *s,
								 struct priv *p, uint64_t ver)
{
	switch (v) {
	case V_URCU_RCU: {
		struct record *next = &p->copies[ver & 1];

		/* The spare copy is unreachable since the last grace period. */
		fill(next->w, p->words, ver);
		rcu_assign_pointer(s->gp, next);
		synchronize_rcu();
		break;
	}
	case V_RWLOCK:
		pthread_rwlock_wrlock(&p->rwlock);
		fill(s->words, p->words, ver);
		pthread_rwlock_unlock(&p->rwlock);
		break;
	case V_SPINLOCK:
		pthread_spin_lock(&p->spin);
		fill(s->words, p->words, ver);
		pthread_spin_unlock(&p->spin);
		break;
	default:	/* the sequence counts (seqcount.h) */
		seq_write_version(v, s, p->words, ver);
	}
}

static inline __attribute__((always_inline)) void writer(const int v, struct mmt_worker *w)
{
	struct mmt_run *run = w->run;
	struct shared *s = run->shared;
	struct priv *p = run->priv;
	const unsigned readers = run->nr_workers - 1;
	uint64_t ver = 0, next = mmt_cycles();

	if (!MMT_FAMILY_BUILT(variants[v].family))
		return;	/* never started: mmt_family_not_built() */
	w->role = "writer";
	while (!mmt_should_stop() && __atomic_load_n(&s->readers_done, __ATOMIC_ACQUIRE) < readers) {
		mmt_track_poll(w, ver);
		if (p->interval_cycles) {
			/* Busy-wait: sleeping would hand the CPU back and change
			 * what the readers race against. */
			if ((int64_t)(mmt_cycles() - next) < 0)
				continue;
			next += p->interval_cycles;
		}
		write_version(v, s, p, ++ver);
	}
	p->writes = ver;
	w->ops = ver;
}

/* ---- readers ------------------------------------------------------------- */

/* Copies one snapshot into out; returns how often the re-check failed. */
static inline __attribute__((always_inline)) uint64_t read_snapshot(const int v, struct shared *s,
								     struct priv *p, uint64_t *out)
{
	switch (v) {
	case V_URCU_RCU: {
		struct record *r;

		rcu_read_lock();
		r = rcu_dereference(s->gp);
		memcpy(out, r->w, p->words * sizeof(uint64_t));
		rcu_read_unlock();
		return 0;
	}
	case V_RWLOCK:
		pthread_rwlock_rdlock(&p->rwlock);
		memcpy(out, s->words, p->words * sizeof(uint64_t));
		pthread_rwlock_unlock(&p->rwlock);
		return 0;
	case V_SPINLOCK:
		pthread_spin_lock(&p->spin);
		memcpy(out, s->words, p->words * sizeof(uint64_t));
		pthread_spin_unlock(&p->spin);
		return 0;
	default:	/* the sequence counts (seqcount.h) */
		return seq_read_snapshot(v, s, p->words, out);
	}
}

static inline __attribute__((always_inline)) void reader(const int v, struct mmt_worker *w)
{
	struct mmt_run *run = w->run;
	struct shared *s = run->shared;
	struct priv *p = run->priv;
	struct reader_state *rs = &p->rs[w->id];
	const uint64_t last = run->iterations ? run->iterations : UINT64_MAX;
	/* Counted in registers, stored once after the loop: a read-modify-
	 * write of memory per read put the loop's speed at the mercy of the
	 * build's layout (13% from a header move).  Torn reads stay counted
	 * in w->outcomes as they happen: the placement tracker samples them. */
	uint64_t n, retries = 0, consistent = 0;
	uint64_t room[SEQ_SNAP_ROOM] __attribute__((aligned(4096)));
	uint64_t *snap = seq_snapshot_at(room, s->words);

	if (!MMT_FAMILY_BUILT(variants[v].family))
		return;	/* never started: mmt_family_not_built() */
	w->role = "reader";
	if (v == V_URCU_RCU)
		rcu_register_thread();
	for (n = 0; n < last; n++) {
		uint64_t bad;

		if ((n & 255) == 0) {
			if (mmt_should_stop())
				break;
			mmt_track_poll(w, n);
		}
		retries += read_snapshot(v, s, p, snap);
		bad = seq_snapshot_bad(snap, p->words);
		if (unlikely(bad)) {
			mmt_witness_first(w, n);
			if (!w->outcomes[OUT_TORN]) {
				unsigned k = 1;

				while (snap[k] == snap[0] * (2 * k + 1))
					k++;
				rs->first_torn[0] = snap[0];
				rs->first_torn[1] = snap[k];
				rs->first_torn_k = k;
			}
			w->outcomes[OUT_TORN]++;
		} else {
			consistent++;
		}
	}
	if (v == V_URCU_RCU)
		rcu_unregister_thread();
	rs->retries = retries;
	w->outcomes[OUT_CONSISTENT] = consistent;
	w->ops = n;
	__atomic_fetch_add(&s->readers_done, 1, __ATOMIC_RELEASE);
}

#define AS_WORKER(e, ...) MMT_VARIANT_WORKER(V_##e, writer, reader)
SEQCOUNT_VARIANTS(AS_WORKER)
#undef AS_WORKER

static void (*const loops[NR_VARIANTS])(struct mmt_worker *) = { SEQCOUNT_VARIANTS(MMT_X_LOOP) };

static const struct mmt_field torn_fields[] = {
	MMT_FIELD(struct torn_report, reader, MMT_F_INT),
	MMT_FIELD(struct torn_report, word0, MMT_F_HEX),
	MMT_FIELD(struct torn_report, word, MMT_F_INT),
	MMT_FIELD(struct torn_report, value, MMT_F_HEX),
};
static const struct mmt_shape torn_shape = MMT_SHAPE(struct torn_report, torn_fields);

static const struct mmt_metric metrics[] = {
	{ "readers", MMT_METRIC_COUNT, "threads", MMT_BETTER_NEUTRAL, false, "reader threads (workers but the writer)", NULL },
	{ "record_words", MMT_METRIC_COUNT, "words", MMT_BETTER_NEUTRAL, false, "64-bit words in the record (--record-words)", NULL },
	{ "writes", MMT_METRIC_COUNT, "writes", MMT_BETTER_NEUTRAL, false, "records the writer published", NULL },
	{ "writes_per_sec", MMT_METRIC_REAL, "/s", MMT_BETTER_NEUTRAL, false,
	  "the writer's rate, set by --write-interval: the load the readers ran under, not a figure of merit", NULL },
	{ "retries", MMT_METRIC_COUNT, "reads", MMT_BETTER_NEUTRAL, false, "reads retried because a write overlapped", NULL },
	{ "retry_rate", MMT_METRIC_REAL, "retries/read", MMT_BETTER_NEUTRAL, false,
	  "retries per completed read: how often the writer got in the way", NULL },
	{ "first_torn", MMT_METRIC_OBJECT, "", MMT_BETTER_NEUTRAL, true,
	  "the first torn read: reader, word0, word and value; null when none was seen", &torn_shape },
};

static void seqcount_verify(struct mmt_run *run)
{
	struct priv *p = run->priv;
	uint64_t reads = 0, retries = 0;
	const struct torn_report *torn = NULL;

	for (unsigned r = 1; r < run->nr_workers; r++) {
		const struct mmt_worker *w = &run->workers[r];

		reads += w->ops;
		retries += p->rs[r].retries;
		if (!torn && w->outcomes[OUT_TORN]) {
			p->torn = (struct torn_report){ .reader = (int)r, .word0 = p->rs[r].first_torn[0],
							.word = (int)p->rs[r].first_torn_k,
							.value = p->rs[r].first_torn[1] };
			torn = &p->torn;
		}
	}
	run->ops = reads;
	mmt_put_count(run, "readers", run->nr_workers - 1);
	mmt_put_count(run, "record_words", p->words);
	mmt_put_count(run, "writes", p->writes);
	mmt_put_real(run, "writes_per_sec", run->elapsed_ns ? (double)p->writes * 1e9 / (double)run->elapsed_ns : 0);
	mmt_put_count(run, "retries", retries);
	mmt_put_real(run, "retry_rate", reads ? (double)retries / (double)reads : 0);
	mmt_put_object(run, "first_torn", torn);
}

static void seqcount_describe(const json_t *run, char *buf, size_t len)
{
	const json_t *m = json_object_get(run, "metrics");
	snprintf(buf, len, "retry %.2f%%, %.3gM writes/s",
		 100 * json_number_value(json_object_get(m, "retry_rate")),
		 json_number_value(json_object_get(m, "writes_per_sec")) / 1e6);
}

static void seqcount_cleanup(struct mmt_run *run)
{
	struct priv *p = run->priv;

	if (!p)
		return;
	pthread_rwlock_destroy(&p->rwlock);
	pthread_spin_destroy(&p->spin);
	free(p->copies);
	free(p);
	run->priv = NULL;
}

static const struct mmt_scenario seqcount = {
	.name = "seqcount",
	.help = "sequence counts (hand-rolled, C11, ck_sequence): one writer, N readers check every snapshot; against RCU, rwlock and spinlock",
	MMT_TABLE(variants, variants),
	MMT_TABLE(options, options),
	.min_threads = 2,
	.default_threads = 2,
	.max_threads = 0,
	MMT_TABLE(outcomes, outcome_names),
	.ops_unit = "reads",
	MMT_TABLE(metrics, metrics),
	.shared_size = seqcount_shared_size,
	.prepare = seqcount_prepare,
	.variant_worker = loops,
	.verify = seqcount_verify,
	.cleanup = seqcount_cleanup,
	.describe = seqcount_describe,
	.tracks_placement = true,
	.split_ops_worker = 1,	/* reader 1's reads: the writer's are not the figure */
};
MMT_SCENARIO(seqcount);
