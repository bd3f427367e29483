#!/bin/sh
# SIGINT, SIGTERM and SIGQUIT (no core: a user's "stop now") stop the
# workers, the results gathered so far are written (marked interrupted) and
# valid, and no temp file is left.
. "${MMT_SRCDIR:-.}/tests/lib.sh"

need_cpus 2 "a scenario run"

for sig in INT TERM QUIT; do
	out_file="$scratch/sig-$sig.json"
	"$MMT_BIN" msgpass --variant mb,release-acquire --duration 60s --output "$out_file" \
		>"$scratch/out" 2>&1 &
	pid=$!
	# Wait until the run is under way (the worker threads exist), then signal.
	n=0
	while [ "$(ls /proc/$pid/task 2>/dev/null | wc -l)" -lt 3 ] && [ $n -lt 500 ]; do
		sleep 0.02
		n=$((n + 1))
	done
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

done_testing
