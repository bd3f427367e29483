// SPDX-License-Identifier: MIT
/*
 * The rounds of a stale-access hunter (hunt.h).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bounded-wait.h"
#include "clock.h"
#include "compiler.h"
#include "hunt.h"
#include "metrics.h"

void mmt_hunt_fail(struct mmt_hunt *h, const char *what, int err)
{
	if (!h->error[0])
		snprintf(h->error, sizeof(h->error), "%s: %s", what, strerror(err));
}

static const char *rounds_of(const struct mmt_hunt *h)
{
	return h->round_word ? h->round_word : "rounds";
}

bool mmt_hunt_wait(struct mmt_hunt *h, const uint64_t *x, uint64_t n, uint64_t bound_ns, const char *what)
{
	/* one of them: "clears" -> "clear" */
	if (unlikely(!h->round_unit[0]))
		snprintf(h->round_unit, sizeof(h->round_unit), "%.*s", (int)strlen(rounds_of(h)) - 1, rounds_of(h));
	return mmt_wait_step(x, n, bound_ns, what, h->round_unit, &h->wait_timeouts, h->wait_timeout_what,
			     sizeof(h->wait_timeout_what));
}

void mmt_hunt_round(struct mmt_hunt *h, uint64_t n, bool premise, bool found, struct mmt_worker *wk)
{
	h->rounds = n;
	h->premise += premise;
	if (!found || h->first_ns)
		return;
	h->first_ns = mmt_now_ns();
	h->first_round = n;
	h->premise_at_first = h->premise;
	mmt_witness_first(wk, n);
}

const char *mmt_hunt_enough(const struct mmt_hunt *h, const struct mmt_run *run, uint64_t n, uint64_t findings)
{
	if (run->iterations && n >= run->iterations)
		return "--iterations";
	if (h->target)
		return h->premise >= h->target ? h->target_option : NULL;
	if (!run->duration_defaulted)
		return NULL;
	if (run->variant->injected)
		return n >= MMT_HUNT_INJECT_ROUNDS ? rounds_of(h) : NULL;
	if (h->count_rounds)
		return findings ? h->first_rule : n >= MMT_HUNT_TARGET ? rounds_of(h) : NULL;
	if (findings)
		return h->first_rule;
	return h->premise >= MMT_HUNT_TARGET ? h->premise_rule : NULL;
}

void mmt_hunt_metrics(struct mmt_run *run, const struct mmt_hunt *h, const char *finding, const char *premise)
{
	char name[64];

	snprintf(name, sizeof(name), "time_to_first_%s_ms", finding);
	mmt_put_real(run, name, h->first_ns ? (double)(h->first_ns - h->start_ns) / 1e6 : NAN);
	snprintf(name, sizeof(name), "%s_to_first_%s", rounds_of(h), finding);
	mmt_put_count(run, name, h->first_ns ? h->first_round : MMT_NONE);
	snprintf(name, sizeof(name), "%s_to_first_%s", premise, finding);
	mmt_put_count(run, name, h->first_ns ? h->premise_at_first : MMT_NONE);
	mmt_put_text(run, "ended_by", h->ended_by ? h->ended_by : "duration");
	mmt_put_count(run, "wait_timeouts", h->wait_timeouts);
	mmt_put_text(run, "wait_timeout", h->wait_timeouts ? h->wait_timeout_what : NULL);
	mmt_put_text(run, "error", h->error[0] ? h->error : NULL);
}

void mmt_hunt_prepared(struct mmt_hunt *h)
{
	mmt_mutant_snapshot(&h->mutant_before);
}

void mmt_hunt_drive(struct mmt_hunt *h, const struct mmt_run *run, struct mmt_worker *wk,
		    int (*round)(void *priv, uint64_t n, struct mmt_worker *wk), void *priv,
		    const uint64_t *findings, int *stop)
{
	h->start_ns = mmt_now_ns();
	for (uint64_t n = 1; !mmt_should_stop(); n++) {
		if (round(priv, n, wk))
			break;
		h->ended_by = mmt_hunt_enough(h, run, n, *findings);
		if (h->ended_by)
			mmt_request_stop();
	}
	WRITE_ONCE(*stop, 1);
	wk->ops = h->rounds;
}

void mmt_hunt_record(struct mmt_run *run, struct mmt_hunt *h, const uint64_t *outcomes, size_t size,
		     void (*put)(struct mmt_run *run, const void *priv), const void *priv)
{
	memcpy(run->outcomes, outcomes, size);
	run->ops = h->rounds;
	put(run, priv);
	mmt_mutant_snapshot(&h->mutant_after);
	mmt_mutant_delta(&h->mutant_before, &h->mutant_after);
	mmt_put_object(run, "mutant", h->mutant_after.present ? &h->mutant_after : NULL);
}

void mmt_hunt_words(const json_t *run, const struct mmt_hunt_words *w, char *buf, size_t len)
{
	const json_t *m = json_object_get(run, "metrics");
	const char *status = json_string_value(json_object_get(run, "status"));

	buf[0] = '\0';
	if (!status)
		return;
	if (!strcmp(status, "witnessed"))
		snprintf(buf, len, "%s", w->found);
	else if (!strcmp(status, "inconclusive"))
		snprintf(buf, len, "%s", !mmt_metric_int(m, w->premise) ? w->no_premise : "");
	else if (json_is_true(json_object_get(run, "injected")))
		snprintf(buf, len, "fault injected");
	else if (!strcmp(status, "ok") && w->control_key && !mmt_metric_int(m, w->control_key))
		snprintf(buf, len, "%s", w->control);
	else if (!strcmp(status, "ok"))
		snprintf(buf, len, "%s", w->kept);
}
