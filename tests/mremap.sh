#!/bin/sh
# mremap: bad input is exit 2 with nothing written; on this kernel (the
# fix of eb66ae030829 is in every kernel since 4.20) punch and its control
# read nothing stale: punch ok with raced rounds or INCONCLUSIVE saying no
# round raced, the control ok with none raced; broken-stale reports
# exactly the reads it injected; the default run ends by its own rule.  The proof
# against the real bug is the mutant kernel's (mremap_flush).
. "${MMT_SRCDIR:-.}/tests/lib.sh"

need_cpus 2 "mremap"

# Bad input: one line on stderr, exit 2, nothing written.
for bad in "--pages 0" "--variant punh" "--pages 65537"; do
	# shellcheck disable=SC2086
	run mremap $bad --output "$scratch/bad.json"
	[ "$rc" -eq 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] && [ ! -e "$scratch/bad.json" ] &&
		[ -z "$(ls -A "$MMT_RESULTS_DIR" 2>/dev/null)" ]
	ok $? "mremap $bad: exit 2, one line, nothing written ($err)"
done

# On a mutant kernel with mremap_flush on, punch must find the bug: that
# is tests/mutant.sh's to prove, not this test's.
sw=/sys/module/mmt_mutant/parameters/mremap_flush
mutant_on=0
case $(cat "$sw" 2>/dev/null) in Y | 1) mutant_on=1 ;; esac

f="$scratch/race.json"
run mremap --variant punch,punch-after-move --duration 2s --output "$f"
printf '%s\n' "$out" | sed 's/^/# /'
if [ "$(get "$f" runs.0.status)" = skipped ]; then
	skip "mremap skipped here: $(get "$f" runs.0.reason)"
	done_testing
	exit
fi
for i in 0 1; do
	v=$(get "$f" runs.$i.variant)
	status=$(get "$f" runs.$i.status)
	raced=$(get "$f" runs.$i.metrics.rounds_raced)
	rounds=$(get "$f" runs.$i.metrics.rounds)
	if [ "$mutant_on" -eq 1 ] && [ "$v" = punch ]; then
		skip "punch on a mutant kernel with mremap_flush on: tests/mutant.sh's"
		continue
	fi
	if [ "$status" = invalid ]; then
		skip "$v was stalled past its bound ($(get "$f" runs.$i.reason)): nothing to judge"
		continue
	fi
	if [ "$v" = punch ]; then
		{ { [ "$status" = ok ] && [ "$raced" -gt 0 ]; } ||
			{ [ "$status" = inconclusive ] && [ "$raced" -eq 0 ] &&
				get "$f" runs.$i.reason | grep -q "no round raced"; } ||
			{ [ "$status" = inconclusive ] &&
				get "$f" runs.$i.reason | grep -q "gave up waiting\|waited more than"; }; }
	else
		# The control punches once the call returned: none may race.
		[ "$status" = ok ] && [ "$raced" -eq 0 ] && [ "$(get "$f" runs.$i.metrics.rounds_punched_late)" -eq "$rounds" ]
	fi &&
		[ "$(get "$f" runs.$i.metrics.stale_reads)" -eq 0 ] && [ "$(get "$f" runs.$i.witnesses.count)" -eq 0 ] &&
		[ "$rounds" -gt 0 ] && [ "$(get "$f" runs.$i.metrics.reads_judged)" -eq $((64 * rounds)) ]
	ok $? "$v: no stale read on this kernel in $(get "$f" runs.$i.metrics.reads_judged) reads judged, status $status agreeing with $raced raced rounds of $rounds ($(get "$f" runs.$i.reason))"
	row=$(printf '%s\n' "$out" | grep "^mremap  *$v ")
	case $status/$raced in ok/0) words="none raced: kept;" ;; ok/*) words="raced: kept;" ;; *) words="no round raced;" ;; esac
	printf '%s' "$row" | grep -q "$words"
	ok $? "$v: the table's row says '$words' for a $status run"
done

# The injected fault, exactly: every read after the punch made from the
# reader's own page (the file's old value) is one stale_read, nothing else.
for i in 1 2 3; do
	f="$scratch/inject-$i.json"
	run mremap --variant broken-stale --iterations 20 --output "$f"
	injected=$(get "$f" runs.0.metrics.injected_stale_reads)
	stale=$(get "$f" runs.0.witnesses.histogram.stale_read)
	[ "$rc" -eq 0 ] && [ "$(get "$f" runs.0.verdict)" = "caught (injected fault)" ] && [ "$injected" -eq $((20 * 64)) ] &&
		[ "$stale" -eq "$injected" ] && [ "$(get "$f" runs.0.witnesses.count)" -eq "$stale" ] &&
		[ "$(get "$f" runs.0.metrics.rounds)" -eq 20 ]
	ok $? "broken-stale run $i: each of the $injected reads from the reader's own page reported stale ($stale), nothing else"
done
get "$scratch/inject-1.json" runs.0.metrics.first_stale | grep -q '"round":1,"reads":64,"file_value":"0x5a00000000000001","found":"0x5a00000000000001"'
ok $? "a stale read names its round, how many, the file's value and the value read"

# Without --duration: the hunter until 64 rounds raced (injection: 50
# rounds).
f="$scratch/default.json"
run mremap --variant punch,broken-stale --output "$f"
raced=$(get "$f" runs.0.metrics.rounds_raced)
if [ "$mutant_on" -eq 1 ]; then
	skip "punch without --duration on a mutant kernel with mremap_flush on: tests/mutant.sh's"
elif [ "$(get "$f" runs.0.metrics.ended_by)" = duration ] && [ "${raced:-0}" -lt 64 ]; then
	skip "punch without --duration: only $raced rounds raced in the 2-minute bound here"
else
	[ "$(get "$f" runs.0.metrics.ended_by)" = "rounds raced" ] && [ "$raced" -ge 64 ] &&
		[ "$(get "$f" runs.0.status)" = ok ]
	ok $? "punch without --duration: ends at 64 rounds raced, conclusive ($raced raced in $(get "$f" runs.0.elapsed_ns) ns)"
fi
[ "$(get "$f" runs.1.metrics.ended_by)" = rounds ] && [ "$(get "$f" runs.1.metrics.rounds)" -eq 50 ]
ok $? "broken-stale without --duration: ends after 50 rounds ($(get "$f" runs.1.metrics.rounds))"

done_testing
