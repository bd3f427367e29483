#!/bin/sh
# scripts/kcidb-export: KCIDB v5 tests from real results and from a LAVA
# job's REST API answers (tests/fixtures/lava: recorded with --record from
# two jobs of suites/lab on two qemu devices of a local LAVA 2023.01), all
# checked against lava/kcidb-schema.json, which is shown to refuse a null
# and an extra property; host identity in every test, two LAVA devices two
# hosts in scripts/report; bad input.
. "${MMT_SRCDIR:-.}/tests/lib.sh"

py=${MMT_PYTHON3:-python3}
exp="$MMT_SRCDIR/scripts/kcidb-export"
fix="$MMT_SRCDIR/tests/fixtures/lava"
if ! "$py" -c 'import jsonschema' 2>/dev/null; then
	skip "no python3-jsonschema (apt-get install python3-jsonschema)"
	done_testing
	exit
fi
# q FILE EXPR: a Python expression over the export d (tests t) printed
q() { "$py" -c "import json,sys; d=json.load(open(sys.argv[1])); t=d['tests']; print($2)" "$1"; }

# --- real results --------------------------------------------------------------------
# msgpass by count (20000 messages, each raced by both sides): beside
# stress-ng --cpu 4 a 100 ms run once missed its injected fault.
"$MMT_BIN" msgpass --variant mb,broken-publish-first,plain --placement same-node --placement cross-node \
	--iterations 20000 --events none --output "$scratch/r1.json" >/dev/null 2>&1
"$MMT_BIN" litmus --test SB --primitives kernel --duration 100ms --events none --assume-forbidden \
	--output "$scratch/r2.json" >/dev/null 2>&1
"$exp" "$scratch/r1.json" "$scratch/r2.json" -o "$scratch/k.json"
rc=$?
[ "$rc" -eq 0 ] && "$exp" --check "$scratch/k.json"
ok $? "real results: exported (rc $rc) and valid against lava/kcidb-schema.json"
runs=$(($(get "$scratch/r1.json" summary.runs) + $(get "$scratch/r2.json" summary.runs)))
[ "$(q "$scratch/k.json" 'len(t)')" -eq "$runs" ] &&
	[ "$(q "$scratch/k.json" 'len({x["id"] for x in t})')" -eq "$runs" ]
ok $? "one test per run ($runs), ids unique"
mid=$(get "$scratch/r1.json" metadata.host.machine_id)
[ "$(q "$scratch/k.json" 'sorted({x["environment"]["misc"]["host"]["host_id"] for x in t})')" = "['$mid']" ] &&
	[ "$(q "$scratch/k.json" 'all(x["environment"]["misc"]["host"]["hostname"] for x in t)')" = True ]
ok $? "the results' host identity in every test (host_id $mid)"
# status against the harness's own status, run by run
want=$("$py" -c 'import json, sys
for r in json.load(open(sys.argv[1]))["runs"]:
    s = r["status"]
    s = {"ok": "FAIL" if (r["verdict"] or "").startswith("MISSED") else "PASS", "skipped": "SKIP", "witnessed": "FAIL"}.get(s, "?")
    print(r["scenario"] + "." + r["variant"] + "." + r["placement"], s)' "$scratch/r1.json")
got=$(q "$scratch/k.json" '"\n".join(x["misc"]["scenario"]+"."+x["misc"]["variant"]+"."+x["misc"]["placement"]+" "+x["status"] for x in t if x["misc"]["scenario"]=="msgpass")')
[ "$want" = "$got" ]
ok $? "msgpass statuses as the harness has them (ok PASS, a missed injected fault FAIL, skipped SKIP): $(echo "$got" | tr '\n' ';')"
[ "$(q "$scratch/k.json" '[x["status"] for x in t if x["misc"]["scenario"]=="litmus"]')" = "['FAIL']" ] &&
	[ "$(q "$scratch/k.json" '[x["misc"]["verdict"] for x in t if x["misc"]["scenario"]=="litmus"]')" = "['FORBIDDEN AND SEEN']" ] ||
	[ "$(get "$scratch/r2.json" runs.0.witnesses.count)" -eq 0 ]
ok $? "an --assume-forbidden witness is FAIL (or none was seen in 100 ms)"
q "$scratch/k.json" '[x for x in t if x["misc"]["variant"]=="mb" and x["misc"]["placement"]=="same-node"][0]' >"$scratch/mb"
grep -q "'path': 'mmtorture.msgpass.mb.same-node'" "$scratch/mb" && grep -q "'unit': 'messages/s'" "$scratch/mb" &&
	grep -q "'prefix': 'metric'" "$scratch/mb" && grep -q "'seed': '[0-9]*'" "$scratch/mb" &&
	grep -q "'histogram': {" "$scratch/mb" && grep -q "'cpus': \[" "$scratch/mb" && grep -q "'topology': {" "$scratch/mb"
ok $? "a test has its dot path, ops/s as number with unit, seed, CPUs, histogram, topology"
"$exp" "$scratch/r1.json" >"$scratch/k2.json" && "$exp" "$scratch/r1.json" >"$scratch/k3.json" && cmp -s "$scratch/k2.json" "$scratch/k3.json"
ok $? "exporting twice gives the same document (stable ids)"

# --- the schema can say no ---------------------------------------------------------
"$py" -c "import json,sys; d=json.load(open(sys.argv[1])); d['tests'][0]['misc']['reason']=None; json.dump(d,open(sys.argv[2],'w'))" \
	"$scratch/k.json" "$scratch/null.json"
"$exp" --check "$scratch/null.json" 2>"$scratch/err"
[ $? -eq 1 ] && grep -q 'misc.reason' "$scratch/err"
ok $? "a null in misc is refused: $(head -n 1 "$scratch/err")"
"$py" -c "import json,sys; d=json.load(open(sys.argv[1])); d['tests'][0]['environment']['host']='x'; json.dump(d,open(sys.argv[2],'w'))" \
	"$scratch/k.json" "$scratch/extra.json"
"$exp" --check "$scratch/extra.json" 2>"$scratch/err"
[ $? -eq 1 ] && grep -q 'Additional properties' "$scratch/err"
ok $? "an extra property is refused"
"$py" -c "import json,sys; d=json.load(open(sys.argv[1])); del d['tests'][0]['environment']['misc']['host']['host_id']; json.dump(d,open(sys.argv[2],'w'))" \
	"$scratch/k.json" "$scratch/nohost.json"
"$exp" --check "$scratch/nohost.json" 2>/dev/null
[ $? -eq 1 ]
ok $? "a test without its host identity is refused"

# --- a LAVA job, from its recorded REST answers -------------------------------------
for j in 4 5; do
	"$exp" --lava-url http://127.0.0.1:8000 --lava-job $j --replay "$fix/job-$j" \
		--save-results "$scratch/lab" -o "$scratch/lava-$j.json" 2>"$scratch/err-$j"
	echo $? >"$scratch/rc-$j"
done
[ "$(cat "$scratch/rc-4")" -eq 0 ] && [ "$(cat "$scratch/rc-5")" -eq 0 ] &&
	"$exp" --check "$scratch/lava-4.json" && "$exp" --check "$scratch/lava-5.json"
ok $? "LAVA jobs 4 and 5: exported and valid ($(cat "$scratch/err-4" "$scratch/err-5" | head -n 1))"
[ "$(q "$scratch/lava-4.json" 'len(t)')" -eq 10 ] &&
	[ "$(q "$scratch/lava-4.json" 'sorted(x["path"] for x in t if x["path"].endswith(".exit-code"))')" = \
		"['mmtorture.litmus.exit-code', 'mmtorture.msgpass.exit-code']" ]
ok $? "job 4: its 8 runs from the log's results files and 2 exit-code cases"
# The KCIDB status of each run agrees with the case LAVA recorded for it,
# including the injected fault that TCG missed across nodes (a LAVA fail).
[ "$(q "$scratch/lava-4.json" 'all({"PASS":"pass","FAIL":"fail","SKIP":"skip","DONE":"skip","ERROR":"fail"}[x["status"]]==x["misc"]["lava_result"] for x in t)')" = True ] &&
	[ "$(q "$scratch/lava-4.json" '[x["misc"]["lava_case"] for x in t if x["status"]=="FAIL"]')" = \
		"['msgpass.broken-publish-first.cross-node.0']" ]
ok $? "every run's status matches its LAVA case; the missed injected fault is FAIL in both"
h4=$(q "$scratch/lava-4.json" 'sorted({(x["environment"]["misc"]["host"]["host_id"], x["environment"]["misc"]["host"]["lava_device"]) for x in t})')
h5=$(q "$scratch/lava-5.json" 'sorted({(x["environment"]["misc"]["host"]["host_id"], x["environment"]["misc"]["host"]["lava_device"]) for x in t})')
[ "$(echo "$h4" | grep -o "'[0-9a-f]\{32\}'" | wc -l)" -eq 1 ] && [ "$(echo "$h5" | grep -o "'[0-9a-f]\{32\}'" | wc -l)" -eq 1 ] &&
	[ "$h4" != "$h5" ] && echo "$h4" | grep -q qemu-mmt02 && echo "$h5" | grep -q qemu-mmt01
ok $? "each job one host, the two devices two hosts: $h4 $h5"
ls "$scratch/lab"/lava-4-qemu-mmt02-*-msgpass.json >/dev/null 2>&1 && [ "$(ls "$scratch/lab" | wc -l)" -eq 4 ] &&
	for f in "$scratch/lab"/*.json; do "$MMT_VALIDATE" "$f" || exit 1; done
ok $? "--save-results: the 4 results files, valid, named by job and device"
"$py" "$MMT_SRCDIR/scripts/report" "$scratch/lab" -o "$scratch/rep.html" >/dev/null 2>&1 &&
	grep -q '^4 results files, 16 runs .* from 2 hosts: mmt-lava-x86_64-123458 ([0-9a-f]*), mmt-lava-x86_64-123459' "$scratch/rep.md" &&
	[ "$(grep -c '<section class="host"' "$scratch/rep.html")" -eq 2 ]
ok $? "scripts/report over both devices: 2 hosts, a section each ($(sed -n 3p "$scratch/rep.md" | cut -c1-100))"

# --- bad input and an unreachable server --------------------------------------------
"$exp" >/dev/null 2>"$scratch/err"
[ $? -eq 2 ] && grep -q 'no results' "$scratch/err"
ok $? "nothing to export: exit 2"
"$exp" --lava-job 4 --replay "$fix/job-4" >/dev/null 2>"$scratch/err"
[ $? -eq 2 ] && grep -q 'go together' "$scratch/err"
ok $? "--lava-job without --lava-url: exit 2"
"$exp" "$scratch/r1.json" --origin Bad-Origin -o "$scratch/none.json" 2>/dev/null
[ $? -eq 2 ] && [ ! -e "$scratch/none.json" ]
ok $? "--origin outside KCIDB's pattern: exit 2, nothing written"
printf '{"schema_version": 1}' >"$scratch/bad.json"
"$exp" "$scratch/bad.json" -o "$scratch/none.json" 2>"$scratch/err"
[ $? -eq 2 ] && [ ! -e "$scratch/none.json" ] && grep -q 'bad.json' "$scratch/err"
ok $? "a damaged results file: exit 2 naming it, nothing written"
"$exp" --lava-url http://127.0.0.1:8000 --lava-job 9 --replay "$fix/job-4" >/dev/null 2>"$scratch/err"
[ $? -eq 2 ] && grep -q 'no recorded answer' "$scratch/err"
ok $? "--replay without the job's answers: exit 2"
timeout 60 "$exp" --lava-url http://127.0.0.1:9 --lava-job 4 >/dev/null 2>"$scratch/err"
[ $? -eq 3 ] && grep -q 'LAVA: http://127.0.0.1:9/api/v0.2/jobs/4/' "$scratch/err"
ok $? "a LAVA server that does not answer: exit 3 naming the URL"

done_testing
