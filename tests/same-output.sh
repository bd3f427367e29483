#!/bin/sh
# One run per results file: a second run onto the --output a first is
# writing fails at once with one line (exit 2, nothing run), never replacing
# the first one's results or losing its own silently; a killed writer's
# lock never blocks the next run.
. "${MMT_SRCDIR:-.}/tests/lib.sh"

need_cpus 2 "a scenario run"
f="$scratch/same.json"
lock="$scratch/.mmtorture-result.same.json.lock"

timeout -k 10 60 "$MMT_BIN" msgpass --variant mb --duration 3s --events none --output "$f" >"$scratch/first.out" 2>&1 &
first=$!
# The first holds the lock once its pid is in the lock file.
n=0
while ! grep -q '^[0-9]' "$lock" 2>/dev/null && [ $n -lt 500 ]; do
	sleep 0.02
	n=$((n + 1))
done
run msgpass --variant mb --duration 100ms --events none --output "$f"
second=$rc
wait "$first"
rc=$?
[ "$second" -eq 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] &&
	printf '%s' "$err" | grep -q "another mmtorture run (pid [0-9]*) is writing it" &&
	[ "$rc" -eq 0 ] && "$MMT_VALIDATE" "$f" && [ "$(get "$f" runs.0.elapsed_ns)" -ge 2000000000 ] && [ ! -e "$lock" ]
ok $? "a second run onto a file being written: exit $second, one line ($err); the first's results intact, its lock gone"

# Four at once: each either wrote the file or said why not; one file, valid.
rm -f "$f"
for i in 1 2 3 4; do
	( "$MMT_BIN" msgpass --variant mb --duration 300ms --events none --output "$f" >"$scratch/o$i" 2>"$scratch/e$i"
	  echo $? >"$scratch/rc$i" ) &
done
wait
wrote=0 refused=0
for i in 1 2 3 4; do
	case $(cat "$scratch/rc$i") in
	0) wrote=$((wrote + 1)) ;;
	2) grep -q "is writing it" "$scratch/e$i" && refused=$((refused + 1)) ;;
	esac
done
[ "$wrote" -ge 1 ] && [ $((wrote + refused)) -eq 4 ] && "$MMT_VALIDATE" "$f"
ok $? "four runs onto one file: $wrote wrote it, $refused refused with a line, none lost silently"

# A writer killed with SIGKILL leaves its lock file, unlocked: no obstacle.
"$MMT_BIN" msgpass --variant mb --duration 5s --events none --output "$f" >/dev/null 2>&1 &
pid=$!
n=0
while ! grep -q "^$pid\$" "$lock" 2>/dev/null && [ $n -lt 500 ]; do
	sleep 0.02
	n=$((n + 1))
done
kill -KILL "$pid"
wait "$pid" 2>/dev/null
run msgpass --variant mb --duration 100ms --events none --output "$f"
[ "$rc" -eq 0 ] && "$MMT_VALIDATE" "$f" && [ ! -e "$lock" ]
ok $? "after a SIGKILLed writer the next run writes the file (exit $rc)"

done_testing
