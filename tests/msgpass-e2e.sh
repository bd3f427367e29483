#!/bin/sh
# msgpass end to end: what its results carry, and the output modes
# (every variant of every scenario: scenarios-e2e.sh).
. "${MMT_SRCDIR:-.}/tests/lib.sh"

need_cpus 2 "msgpass"

run msgpass --variant mb,plain --placement same-node --duration 100ms --output "$scratch/all.json"
[ "$rc" -eq 0 ] && printf '%s\n' "$out" | grep -q "results: $scratch/all.json"
ok $? "the table names the results file"
[ "$(get "$scratch/all.json" runs.0.metrics.round_trip_ns.samples)" -gt 0 ] &&
	get "$scratch/all.json" runs.0.metrics.round_trip_ns.p99 | grep -q '^[0-9]'
ok $? "round-trip latency recorded with percentiles"
[ "$(get "$scratch/all.json" metadata.liburcu_version)" != unknown ] &&
	get "$scratch/all.json" metadata.harness.git_revision | grep -q .
ok $? "liburcu version and git revision recorded"
[ "$(get "$scratch/all.json" runs.0.probe.before.0.one_way_ns | cut -d. -f1)" -ge 0 ] &&
	get "$scratch/all.json" runs.0.probe.stable | grep -Eq 'true|false'
ok $? "placement probe recorded before and after"

run msgpass --variant mb,c11-release-acquire --iterations 5000 --repeat 2 --output "$scratch/it.json"
[ "$rc" -eq 0 ] && [ "$(runs "$scratch/it.json" | awk '$6 == 5000' | wc -l)" -eq 4 ]
ok $? "--iterations 5000 --repeat 2: four runs of exactly 5000 messages"

run msgpass --variant release-acquire --duration 50ms --output -
printf '%s\n' "$out" >"$scratch/stdout.json"
[ "$rc" -eq 0 ] && "$MMT_VALIDATE" "$scratch/stdout.json" && printf '%s' "$err" | grep -q release-acquire
ok $? "--output -: JSON document on stdout, table on stderr"
[ ! -e "$MMT_RESULTS_DIR" ] || [ -z "$(ls -A "$MMT_RESULTS_DIR")" ]
ok $? "--output -: no file written"

run msgpass --variant mb --duration 50ms --format json
printf '%s\n' "$out" >"$scratch/fmt.json"
[ "$rc" -eq 0 ] && "$MMT_VALIDATE" "$scratch/fmt.json" && [ "$(ls "$MMT_RESULTS_DIR"/msgpass-*.json | wc -l)" -eq 1 ]
ok $? "--format json: JSON on stdout and the default results file"

run msgpass --variant mb --duration 50ms --payload-words 200 --seed 7 --output "$scratch/opt.json"
[ "$rc" -eq 0 ] && grep -q '"payload-words": 200' "$scratch/opt.json" && grep -q '"seed": "7",' "$scratch/opt.json"
ok $? "scenario option and seed recorded in the result"

if [ "$ncpus" -ge 3 ]; then
	run msgpass --variant release-acquire --threads 3 --placement spread --iterations 2000 --output "$scratch/t3.json"
	[ "$rc" -eq 0 ] && runs "$scratch/t3.json" | awk '$4 == "ok" && $5 == 0 { f = 1 } END { exit !f }'
	ok $? "two consumers: every message checked by both, no witness"
else
	skip "two consumers need 3 CPUs, this machine has $ncpus"
fi

run --duration 50ms
[ "$rc" -eq 0 ] && [ "$(ls "$MMT_RESULTS_DIR"/smoke-*.json | wc -l)" -eq 1 ]
ok $? "no scenario: smoke suite runs and writes results/smoke-*.json"

done_testing
