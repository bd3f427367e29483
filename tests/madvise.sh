#!/bin/sh
# madvise: bad input is exit 2 with nothing written; on this kernel (the
# fix of 99baac21e458 is in every kernel since 4.20) nested-dontneed,
# nested-free and their controls lose no store (nested-free's reclaim
# discarding the clean check page where it raced), ok with raced rounds or INCONCLUSIVE saying
# no round raced; a line-up that cannot race says so; broken-lost reports
# exactly the stores it injected; the default run ends by its own rule.
# The proof against the real bug is the mutant kernel's (madv_nested_flush).
. "${MMT_SRCDIR:-.}/tests/lib.sh"

need_cpus 2 "madvise"

# Bad input: one line on stderr, exit 2, nothing written.
for bad in "--pages 0" "--variant nested-dontnee" "--pages 8193" "--second-after-first 2"; do
	# shellcheck disable=SC2086
	run madvise $bad --output "$scratch/bad.json"
	[ "$rc" -eq 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] && [ ! -e "$scratch/bad.json" ] &&
		[ -z "$(ls -A "$MMT_RESULTS_DIR" 2>/dev/null)" ]
	ok $? "madvise $bad: exit 2, one line, nothing written ($err)"
done

# On a mutant kernel with madv_nested_flush on, nested-dontneed must find
# the bug: that is tests/mutant.sh's to prove, not this test's.
sw=/sys/module/mmt_mutant/parameters/madv_nested_flush
mutant_on=0
case $(cat "$sw" 2>/dev/null) in Y | 1) mutant_on=1 ;; esac

f="$scratch/race.json"
run madvise --variant nested-dontneed,nested-dontneed-flushed,nested-free,nested-free-flushed --duration 2s --output "$f"
printf '%s\n' "$out" | sed 's/^/# /'
for i in 0 1 2 3; do
	v=$(get "$f" runs.$i.variant)
	status=$(get "$f" runs.$i.status)
	raced=$(get "$f" runs.$i.metrics.rounds_raced)
	if [ "$mutant_on" -eq 1 ] && { [ "$v" = nested-dontneed ] || [ "$v" = nested-free ]; }; then
		skip "$v on a mutant kernel with madv_nested_flush on: tests/mutant.sh's"
		continue
	fi
	# The FREE variants read page flags: root only.
	if [ "$status" = skipped ] && [ "$(id -u)" -ne 0 ]; then
		get "$f" runs.$i.reason | grep -q "root"
		ok $? "$v as a user: skipped, saying it needs root ($(get "$f" runs.$i.reason))"
		continue
	fi
	if [ "$status" = invalid ]; then
		skip "$v was stalled past its bound ($(get "$f" runs.$i.reason)): nothing to judge"
		continue
	fi
	[ "$(get "$f" runs.$i.metrics.lost_writes)" -eq 0 ] && [ "$(get "$f" runs.$i.witnesses.count)" -eq 0 ] &&
		[ "$(get "$f" runs.$i.metrics.rounds)" -gt 0 ] &&
		{ { [ "$status" = ok ] && [ "$raced" -gt 0 ]; } ||
			{ [ "$status" = inconclusive ] && [ "$raced" -eq 0 ] &&
				get "$f" runs.$i.reason | grep -q "no round raced"; } ||
			{ [ "$status" = inconclusive ] &&
				get "$f" runs.$i.reason | grep -q "gave up waiting\|waited more than"; }; }
	ok $? "$v: no lost write on this kernel, status $status agreeing with $raced raced rounds of $(get "$f" runs.$i.metrics.rounds) ($(get "$f" runs.$i.reason))"
	row=$(printf '%s\n' "$out" | grep "^madvise  *$v ")
	case $status in ok) words="raced: kept;" ;; *) words="no round raced;" ;; esac
	printf '%s' "$row" | grep -q "$words"
	ok $? "$v: the table's row says '$words' for a $status run"
done
# Where each actor ran: two workers put the second zapper on the first
# zapper's CPU, never the writer's.
lineup=$(get "$f" runs.0.metrics.line_up)
if [ "$(get "$f" runs.0.threads)" -eq 2 ]; then
	[ "$lineup" = "the second zapper shares the first zapper's CPU" ]
else
	[ "$lineup" = "each actor on its own CPU" ]
fi
ok $? "the line-up follows the workers ($(get "$f" runs.0.threads): $lineup)"

# A line-up that cannot race: the second zapper's call after the first
# returned.  The evidence must say no round raced, whatever the kernel.
f="$scratch/after.json"
run madvise --variant nested-dontneed,nested-free --second-after-first 1 --duration 1s --output "$f"
for i in 0 1; do
	v=$(get "$f" runs.$i.variant)
	if [ "$(get "$f" runs.$i.status)" = skipped ]; then
		skip "$v --second-after-first 1: $(get "$f" runs.$i.reason)"
		continue
	fi
	rounds=$(get "$f" runs.$i.metrics.rounds)
	judged=$((rounds - $(get "$f" runs.$i.metrics.rounds_void) - $(get "$f" runs.$i.metrics.rounds_not_present)))
	[ "$(get "$f" runs.$i.status)" = inconclusive ] && [ "$(get "$f" runs.$i.metrics.rounds_raced)" -eq 0 ] &&
		[ "$judged" -gt 0 ] && [ "$(get "$f" runs.$i.metrics.rounds_seen_late)" -eq "$judged" ] &&
		[ "$(get "$f" runs.$i.metrics.lost_writes)" -eq 0 ] && get "$f" runs.$i.reason | grep -q "no round raced"
	ok $? "$v --second-after-first 1: no round raced in $rounds ($judged judged, each seen late), INCONCLUSIVE saying so ($(get "$f" runs.$i.reason))"
done

# The FREE checker's injected fault: the writer makes the target clean
# again after its tag, so every judged round's reclaim discards it: each is
# one lost_write, its check page discarded, nothing else.  (A late round
# needs the target's lazily-freed mark: a page-flag reading that never
# fires leaves every round void, none judged.)
for i in 1 2 3; do
	f="$scratch/inject-free-$i.json"
	run madvise --variant broken-free --iterations 20 --output "$f"
	if [ "$(get "$f" runs.0.status)" = skipped ]; then
		skip "broken-free: $(get "$f" runs.0.reason)"
		break
	fi
	if [ "$(get "$f" runs.0.status)" = invalid ] || get "$f" runs.0.reason | grep -q "gave up waiting\|waited more than"; then
		skip "broken-free run $i was stalled past its bound ($(get "$f" runs.0.reason)): nothing to judge"
		continue
	fi
	judged=$(($(get "$f" runs.0.metrics.rounds) - $(get "$f" runs.0.metrics.rounds_void) - $(get "$f" runs.0.metrics.rounds_not_present)))
	[ "$rc" -eq 0 ] && [ "$(get "$f" runs.0.verdict)" = "caught (injected fault)" ] && [ "$judged" -gt 0 ] &&
		[ "$(get "$f" runs.0.metrics.lost_writes)" -eq "$judged" ] &&
		[ "$(get "$f" runs.0.metrics.rounds_discarded)" -eq "$judged" ] &&
		[ "$(get "$f" runs.0.metrics.injected_lost_stores)" -eq "$(get "$f" runs.0.metrics.rounds)" ]
	ok $? "broken-free run $i: each of the $judged judged rounds lost its tag to the reclaim ($(get "$f" runs.0.metrics.lost_writes)), its check page discarded ($(get "$f" runs.0.metrics.rounds_discarded))"
done

# The injected fault, exactly: every round's store to the writer's own
# page is one lost_write, nothing else.
for i in 1 2 3; do
	f="$scratch/inject-$i.json"
	run madvise --variant broken-lost --iterations 20 --output "$f"
	injected=$(get "$f" runs.0.metrics.injected_lost_stores)
	lost=$(get "$f" runs.0.witnesses.histogram.lost_write)
	[ "$rc" -eq 0 ] && [ "$(get "$f" runs.0.verdict)" = "caught (injected fault)" ] && [ "$injected" -eq 20 ] &&
		[ "$lost" -eq "$injected" ] && [ "$(get "$f" runs.0.witnesses.count)" -eq "$lost" ] &&
		[ "$(get "$f" runs.0.metrics.rounds)" -eq 20 ]
	ok $? "broken-lost run $i: each of the $injected stores to the writer's own page reported lost ($lost), nothing else"
done
get "$scratch/inject-1.json" runs.0.metrics.first_lost | grep -q '"round":1,"stored":"0xa500000000000001"'
ok $? "a lost write names its round and the value stored"

# Without --duration: the control until 64 rounds raced (injection: 50
# rounds).
f="$scratch/default.json"
run madvise --variant nested-dontneed-flushed,broken-lost --output "$f"
raced=$(get "$f" runs.0.metrics.rounds_raced)
if [ "$(get "$f" runs.0.metrics.ended_by)" = duration ] && [ "${raced:-0}" -lt 64 ]; then
	skip "nested-dontneed-flushed without --duration: only $raced rounds raced in the 2-minute bound here"
else
	[ "$(get "$f" runs.0.metrics.ended_by)" = "rounds raced" ] && [ "$raced" -ge 64 ] &&
		[ "$(get "$f" runs.0.status)" = ok ]
	ok $? "nested-dontneed-flushed without --duration: ends at 64 rounds raced, conclusive ($raced raced in $(get "$f" runs.0.elapsed_ns) ns)"
fi
[ "$(get "$f" runs.1.metrics.ended_by)" = rounds ] && [ "$(get "$f" runs.1.metrics.rounds)" -eq 50 ]
ok $? "broken-lost without --duration: ends after 50 rounds ($(get "$f" runs.1.metrics.rounds))"

done_testing
