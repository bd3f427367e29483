#!/bin/sh
# mmtorture-result on damaged files: exit 2 (never 1, never a crash), one
# line on stderr naming the file and what is wrong with it.
. "${MMT_SRCDIR:-.}/tests/lib.sh"

need_cpus 2 "a run to damage"
good="$scratch/good.json"
run msgpass --variant mb,plain --duration 50ms --output "$good"
[ "$rc" -eq 0 ] && "$MMT_VALIDATE" "$good"
ok $? "a fresh result is valid (exit 0)"

# damaged NAME NEEDLE SED-SCRIPT: a copy of the good file, edited.
damaged() {
	f="$scratch/$1.json"
	sed "$3" "$good" >"$f"
	"$MMT_VALIDATE" "$f" >"$scratch/v.out" 2>"$scratch/v.err"
	vrc=$?
	[ "$vrc" -eq 2 ] && [ "$(wc -l <"$scratch/v.err")" -eq 1 ] && [ ! -s "$scratch/v.out" ] &&
		grep -q "^mmtorture-result: $f: .*$2" "$scratch/v.err"
	ok $? "$1: exit 2 ($vrc), names the file and the field: $(cat "$scratch/v.err")"
}
damaged status-number "runs\[0\].status: " '0,/"status": "ok"/s//"status": 7/'
damaged seed-letters "metadata.seed: " 's/^    "seed": "[0-9]*"/    "seed": "7x"/'
damaged run-seed-hex "runs\[0\].seed: " '0,/"seed": "[0-9]*"/s//"seed": "0x10"/'
damaged no-summary "summary: is missing" 's/"summary":/"summarx":/'
damaged key-flip "runs\[0\].variant: is missing" '0,/"variant":/s//"varianu":/'
damaged nan "not valid JSON (line" '0,/"ops_per_sec": [0-9.e+]*/s//"ops_per_sec": NaN/'
damaged huge-number "runs\[0\].iterations: \|not valid JSON" "0,/\"iterations\": [0-9]*/s//\"iterations\": $(printf '%05000d' 9)/"
damaged truncated "not valid JSON" '$d'
damaged schema-2 "schema_version: " 's/"schema_version": 1/"schema_version": 2/'
damaged count "summary.runs: does not match" 's/^    "runs": 2,/    "runs": 3,/'
printf '%*s' 3000 '' | tr ' ' '[' >"$scratch/deep.json"
"$MMT_VALIDATE" "$scratch/deep.json" 2>"$scratch/v.err"
[ $? -eq 2 ] && grep -q "deep.json" "$scratch/v.err"
ok $? "3000 nested arrays: exit 2: $(cat "$scratch/v.err")"
"$MMT_VALIDATE" "$scratch/absent.json" 2>"$scratch/v.err"
[ $? -eq 2 ] && grep -q "absent.json: unable to open" "$scratch/v.err"
ok $? "a missing file: exit 2: $(cat "$scratch/v.err")"
"$MMT_VALIDATE" "$good" --get runs.x.status >/dev/null 2>&1
[ $? -eq 1 ]
ok $? "--get runs.x.status: no such value (exit 1), not runs.0"
"$MMT_VALIDATE" "$good" --frobnicate >/dev/null 2>&1
[ $? -eq 2 ]
ok $? "usage error: exit 2"

done_testing
