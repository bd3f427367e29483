/* SPDX-License-Identifier: MIT */
/*
 * The rounds of a stale-access hunter: what madvise, mremap and pmdshare
 * each kept for themselves.  A hunter makes rounds; a round whose premise
 * held (the race's window was open: "raced", "held") counts toward the
 * run's end, the first finding is timed, the first error and the first
 * bounded wait that gave up are kept, and without --duration the run ends
 * by one rule: the first finding, or MMT_HUNT_TARGET rounds whose premise
 * held (an injected fault: MMT_HUNT_INJECT_ROUNDS rounds; a control whose
 * premise cannot hold, MMT_HUNT_TARGET rounds), at most the scenario's
 * default bound.  The record's keys are the scenario's own:
 * time_to_first_<finding>_ms, <rounds>_to_first_<finding> (round_word),
 * <premise>_to_first_<finding>, ended_by, wait_timeouts, wait_timeout and
 * error (MMT_HUNT_ROWS).
 */
#ifndef MMT_HUNT_H
#define MMT_HUNT_H

#include <stdbool.h>
#include <stdint.h>

#include "mutant.h"
#include "scenario.h"

#define MMT_HUNT_TARGET 64
#define MMT_HUNT_INJECT_ROUNDS 50

struct mmt_hunt {
	/* The scenario's words, set before the first round. */
	const char *first_rule;		/* ended_by at the first finding: "first stale read" */
	const char *premise_rule;	/* ended_by at the target: "rounds raced" */
	const char *target_option;	/* its --target-... option's ended_by: "--target-raced" */
	uint64_t target;		/* that option's value; 0: the default rule */
	bool count_rounds;		/* a control whose premise cannot hold: the default rule counts rounds */
	const char *round_word;		/* what a round is, plural ("clears"); NULL: "rounds" */
	char round_unit[32];		/* one of them, for the waits' messages (set at the first) */
	/* Kept by the hunt. */
	uint64_t start_ns, rounds, premise;
	uint64_t first_ns, first_round, premise_at_first;
	const char *ended_by;
	char error[160];
	uint64_t wait_timeouts;
	char wait_timeout_what[120];
	struct mmt_mutant_state mutant_before, mutant_after;
};

/* At the end of prepare: the mutant kernel's counters before the run. */
void mmt_hunt_prepared(struct mmt_hunt *h);

/*
 * The driver's rounds, n = 1, 2, ... until round(priv, n, wk) fails
 * (nonzero), the run is stopped, or mmt_hunt_enough() says the run has
 * what it came for (*findings: the run's so far); then *stop tells the
 * other actors, and the rounds are the worker's ops.
 */
void mmt_hunt_drive(struct mmt_hunt *h, const struct mmt_run *run, struct mmt_worker *wk,
		    int (*round)(void *priv, uint64_t n, struct mmt_worker *wk), void *priv,
		    const uint64_t *findings, int *stop);

/*
 * The run's record, from verify: the outcomes (size bytes) and the rounds
 * as its ops, the scenario's metrics (put(run, priv)), then the mutant
 * kernel's counters over the run ("mutant", null on another kernel).
 */
void mmt_hunt_record(struct mmt_run *run, struct mmt_hunt *h, const uint64_t *outcomes, size_t size,
		     void (*put)(struct mmt_run *run, const void *priv), const void *priv);

/* The first error, "what: strerror(err)"; later ones are dropped. */
void mmt_hunt_fail(struct mmt_hunt *h, const char *what, int err);

/* A bounded wait for *x >= n (mmt_wait_step), the first that gave up kept. */
bool mmt_hunt_wait(struct mmt_hunt *h, const uint64_t *x, uint64_t n, uint64_t bound_ns, const char *what);

/* Round n ended; premise: its window was open.  found: it found
 * something, timed if it is the first finding (and noted as the worker's
 * first witness). */
void mmt_hunt_round(struct mmt_hunt *h, uint64_t n, bool premise, bool found, struct mmt_worker *wk);

/* Why the run ends after round n, or NULL: --iterations, the target
 * option, and without --duration the default rule (findings: the run's
 * so far). */
const char *mmt_hunt_enough(const struct mmt_hunt *h, const struct mmt_run *run, uint64_t n, uint64_t findings);

/* The hunt's metrics, keyed by the scenario's finding and premise words
 * (as in MMT_HUNT_ROWS). */
void mmt_hunt_metrics(struct mmt_run *run, const struct mmt_hunt *h, const char *finding, const char *premise);

/* A hunter's words for the table's detail (at most 18 characters, as
 * mmrace's), following the run's status: witnessed says found;
 * inconclusive with the premise's metric 0 says no_premise; an injected
 * run "fault injected"; ok says kept, or control where control_key's
 * metric is 0 (a control whose premise cannot hold). */
struct mmt_hunt_words {
	const char *found, *premise, *no_premise, *control_key, *control, *kept;
};
void mmt_hunt_words(const json_t *run, const struct mmt_hunt_words *w, char *buf, size_t len);

/* Their rows, for the scenario's metric table: finding and premise are
 * string literals ("stale", "raced"); what names the finding in words.
 * For a hunt whose round_word is NULL ("rounds"); softdirty's clears
 * write their own rows. */
#define MMT_HUNT_ROWS(finding, premise, what)                                                                     \
	MMT_MAYBE_ROW("time_to_first_" finding "_ms", MMT_METRIC_REAL, "ms",                                     \
		      "run start to the first " what "; null without one"),                                       \
	MMT_MAYBE_ROW("rounds_to_first_" finding, MMT_METRIC_COUNT, "rounds", "the round of the first " what),  \
	MMT_MAYBE_ROW(premise "_to_first_" finding, MMT_METRIC_COUNT, "rounds",                                  \
		      "rounds " premise " up to the first " what),                                                \
	{ "ended_by", MMT_METRIC_TEXT, "", MMT_BETTER_NEUTRAL, false,                                             \
	  "what ended the run: its own rule (the first " what ", rounds " premise ", ...), the duration, or a signal", \
	  NULL },                                                                                                 \
	MMT_COUNT_ROW("wait_timeouts", "waits", "bounded waits of the round's driver that gave up"),             \
	MMT_MAYBE_ROW("wait_timeout", MMT_METRIC_TEXT, "", "what the first wait that gave up waited for")

#endif
