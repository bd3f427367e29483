#!/bin/sh
# SIGINT, SIGTERM and SIGQUIT (no core: a user's "stop now") stop the
# workers, the results gathered so far are written (marked interrupted) and
# valid, and no temp file is left.
. "${MMT_SRCDIR:-.}/tests/lib.sh"

need_cpus 2 "a scenario run"

# wait_threads PID: until the run is under way (the worker threads exist),
# 10 s at most.
wait_threads() {
	n=0
	while [ "$(ls /proc/$1/task 2>/dev/null | wc -l)" -lt 3 ] && [ $n -lt 500 ]; do
		sleep 0.02
		n=$((n + 1))
	done
}

for sig in INT TERM QUIT; do
	out_file="$scratch/sig-$sig.json"
	"$MMT_BIN" msgpass --variant mb,release-acquire --duration 60s --output "$out_file" \
		>"$scratch/out" 2>&1 &
	pid=$!
	wait_threads "$pid"
	kill -s "$sig" "$pid"
	wait "$pid"
	rc=$?
	case $sig in INT) want=130 ;; TERM) want=143 ;; QUIT) want=131 ;; esac
	[ "$rc" -eq "$want" ]
	ok $? "SIG$sig: exit $want (got $rc)"
	"$MMT_VALIDATE" "$out_file"
	ok $? "SIG$sig: results written and valid"
	grep -q '"interrupted": true' "$out_file" && runs "$out_file" | grep -q ' interrupted '
	ok $? "SIG$sig: document and run marked interrupted"
	[ "$(runs "$out_file" | wc -l)" -eq 1 ]
	ok $? "SIG$sig: runs after the signal were not started"
	[ -z "$(ls -A "$scratch" | grep '^\.mmtorture-result')" ]
	ok $? "SIG$sig: no temp file left"
done

# A signal during a run that saw a forbidden witness still ends the
# invocation: the witness decides the exit code (1), the runs after it are
# not started, and the document says it was interrupted.
"$MMT_BIN" msgpass --variant broken-publish-first --assume-forbidden --duration 60s --repeat 3 \
	--output "$scratch/sig-witness.json" >"$scratch/out" 2>&1 &
pid=$!
wait_threads "$pid"
sleep 1
kill -s TERM "$pid"
wait "$pid"
rc=$?
seen=$(get "$scratch/sig-witness.json" runs.0.witnesses.count 2>/dev/null || echo 0)
if [ "$seen" = 0 ]; then
	# The signal came before the first witness: not the case under test.
	skip "SIGTERM came before the run saw its first witness (exit $rc)"
else
	[ "$rc" -eq 1 ] && [ "$(runs "$scratch/sig-witness.json" | wc -l)" -eq 1 ] &&
		grep -q '"interrupted": true' "$scratch/sig-witness.json"
	ok $? "SIGTERM during a witnessed run: exit $rc (the witness), one run, marked interrupted, the other repeats not started"
fi

done_testing
