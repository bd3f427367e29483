#!/bin/sh
# A run that did not do the work its record claims is invalid, never ok
# (harness/integrity.c): here the real case, a process stopped (SIGSTOP)
# in the middle of its run, as a debugger, a frozen cgroup or a stalled VM
# stops it.  Its numbers describe the stop, not the loop: status invalid,
# exit 77, counted in the summary, and every consumer of the verdict table
# skips it.  Zero operations and workers that never overlap are
# tests/unit-integrity's (they cannot be made to order on a real run).
. "${MMT_SRCDIR:-.}/tests/lib.sh"

need_cpus 2 "msgpass"

run msgpass --variant mb --duration 200ms --events none --output "$scratch/ok.json"
[ "$rc" -eq 0 ] && [ "$(get "$scratch/ok.json" runs.0.status)" = ok ] &&
	[ "$(get "$scratch/ok.json" runs.0.integrity.valid)" = true ] &&
	[ "$(get "$scratch/ok.json" runs.0.integrity.requested_ns)" = 200000000 ] &&
	[ "$(get "$scratch/ok.json" summary.invalid)" = 0 ]
ok $? "a plain run is valid: ops $(get "$scratch/ok.json" runs.0.integrity.ops), overlap $(get "$scratch/ok.json" runs.0.integrity.overlap_ns) ns, overrun $(get "$scratch/ok.json" runs.0.integrity.overrun_ns) ns"

# 4 s asked; stopped 2 s in (the start may take a second on a busy
# machine) for 6 s: it ends about 8 s after it began, past the bound (half
# the duration and 1 s: 3 s over, so more than 7 s in all).
timeout -k 10 60 "$MMT_BIN" msgpass --variant mb --duration 4s --events none --output "$scratch/stopped.json" \
	>"$scratch/out" 2>"$scratch/err" &
pid=$!
sleep 2
child=$(pgrep -P "$pid" | head -n 1)	# timeout's child: mmtorture itself
kill -STOP "${child:-$pid}" 2>/dev/null
sleep 6
kill -CONT "${child:-$pid}" 2>/dev/null
wait "$pid"
rc=$?
f="$scratch/stopped.json"
elapsed=$(get "$f" runs.0.elapsed_ns 2>/dev/null || echo 0)
if [ "$elapsed" -le 7000000000 ]; then
	# The stop landed before the loop began (a slow start on a busy
	# machine) or after it ended: nothing to judge.
	skip "the stop did not land inside the run (it took ${elapsed} ns, exit $rc)"
	skip "no invalid run to hand to the consumers"
else
	[ "$rc" -eq 77 ] && [ "$(get "$f" runs.0.status)" = invalid ] &&
		get "$f" runs.0.reason | grep -q "stopped or stalled" &&
		[ "$(get "$f" summary.invalid)" = 1 ] && [ "$(get "$f" summary.ok)" = 0 ] &&
		grep -q "1 INVALID" "$scratch/out" && grep -q " INVALID " "$scratch/out"
	ok $? "stopped 6 s inside a 4 s run (it took $elapsed ns): invalid, exit $rc, counted, shown INVALID"
	cases=$("$MMT_VALIDATE" "$f" --cases | awk '{ print $10 " " $11 }')
	kcidb=$("$MMT_PYTHON3" "$MMT_SRCDIR/scripts/kcidb-export" "$f" 2>/dev/null |
		"$MMT_PYTHON3" -c 'import json, sys; print(json.load(sys.stdin)["tests"][0]["status"])' 2>/dev/null)
	[ "$cases" = "invalid skip" ] && { [ "$kcidb" = MISS ] || ! "$MMT_PYTHON3" -c 'import jsonschema' 2>/dev/null; }
	ok $? "the invalid run is no pass for LAVA ($cases) or KCIDB (${kcidb:-not checked: no python3-jsonschema})"
fi

done_testing
