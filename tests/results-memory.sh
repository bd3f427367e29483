#!/bin/sh
# Results are streamed run by run: while a 100,000-run invocation is under
# way its records are already in the temp file, and its memory does not
# grow from run to run (it grew by about 30 KB a run when the document was
# kept whole to the end).  Interrupted, it still leaves a valid file.
. "${MMT_SRCDIR:-.}/tests/lib.sh"

need_cpus 2 "msgpass"
f="$scratch/many.json"
"$MMT_BIN" msgpass --variant mb --iterations 1 --repeat 100000 --events none --output "$f" \
	>"$scratch/many.out" 2>&1 &
pid=$!

# records: runs written so far to the (unnamed) temp file of $pid.
records() {
	for fd in /proc/$pid/fd/*; do
		case $(readlink "$fd" 2>/dev/null) in
		"$scratch/.mmtorture-result."*.lock) ;;	# the one-writer lock, not the results
		"$scratch/#"*|"$scratch/.mmtorture-result."*) grep -c '^    {$' "$fd" 2>/dev/null; return ;;
		esac
	done
	echo 0
}
rss_kb() { awk '/^VmRSS:/ { print $2 }' /proc/$pid/status 2>/dev/null; }
# wait_records N: until N runs are on disk, 5 minutes at most.
wait_records() {
	n=0
	while [ "$(records)" -lt "$1" ] && [ $n -lt 3000 ] && kill -0 "$pid" 2>/dev/null; do
		sleep 0.1
		n=$((n + 1))
	done
	[ "$(records)" -ge "$1" ]
}

wait_records 5
ok $? "records are on disk while the runs go on ($(records) after $((n / 10)) s)"
a=$(rss_kb)
wait_records 45
ok $? "... and keep coming ($(records))"
b=$(rss_kb)
kill -INT "$pid"
wait "$pid"
rc=$?
[ -n "$a" ] && [ -n "$b" ] && [ $((b - a)) -lt 2048 ]
ok $? "40 more runs: resident memory within 2 MiB ($a KiB -> $b KiB)"
[ "$rc" -eq 130 ] && "$MMT_VALIDATE" "$f" && [ "$(get "$f" summary.runs)" -ge 45 ] && [ "$(get "$f" interrupted)" = true ]
ok $? "interrupted: exit 130 ($rc), a valid file with every run so far ($(get "$f" summary.runs))"

done_testing
