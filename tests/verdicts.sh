#!/bin/sh
# One verdict table (results/verdicts.json): for every run, the harness's
# exit code, mmtorture-result --cases (what lava/run-suite reports),
# scripts/kcidb-export and scripts/nightly's JUnit each do what the run's
# verdict's row says, and the C and Python readers derive the same verdict.
# Whatever verdict a real run gets (luck decides none of these checks), its
# consumers must agree with that verdict's row.
. "${MMT_SRCDIR:-.}/tests/lib.sh"

if ! "$MMT_PYTHON3" -c 'import jsonschema' 2>/dev/null; then
	skip "python3-jsonschema is needed for kcidb-export and nightly"
	done_testing
	exit
fi
S="$MMT_SRCDIR/scripts"
T="$MMT_SRCDIR/results/verdicts.json"
row() {  # row KIND VERDICT FIELD
	"$MMT_PYTHON3" -c 'import json, sys
t = json.load(open(sys.argv[1]))
print({r["verdict"]: r for r in t[sys.argv[2]]}.get(sys.argv[3], {}).get(sys.argv[4], "no-row"))' "$T" "$@"
}
py_verdict() {  # py_verdict FILE: the Python reader's verdict of each run
	"$MMT_PYTHON3" -c 'import json, sys
sys.path.insert(0, sys.argv[1])
import verdicts as V
for r in json.load(open(sys.argv[2]))["runs"]:
    print(V.of_run(r))' "$MMT_SRCDIR/analysis/lib" "$1"
}
kcidb_status() {
	"$MMT_PYTHON3" "$S/kcidb-export" "$1" 2>/dev/null | "$MMT_PYTHON3" -c 'import json, sys
for t in json.load(sys.stdin)["tests"]:
    print(t["status"])'
}

# One verdict each, as far as this machine allows: each its own invocation
# so that its exit code is its own.
lines="ok:msgpass --variant mb --iterations 2000
caught:msgpass --variant broken-publish-first --iterations 20000
witnessed:msgpass --variant broken-publish-first --iterations 20000 --assume-forbidden
skipped:msgpass --variant mb --threads $((ncpus + 1)) --iterations 2000"
printf '%s\n' "$lines" >"$scratch/lines"
seen=
while IFS=: read -r name args; do
	# shellcheck disable=SC2086 # the arguments are words
	run $args --output "$scratch/$name.json"
	code=$rc
	if [ ! -s "$scratch/$name.json" ]; then
		ok 1 "$name: no results file (exit $code): $err"
		continue
	fi
	v=$("$MMT_VALIDATE" "$scratch/$name.json" --cases | awk '{ print $10 }')
	lava=$("$MMT_VALIDATE" "$scratch/$name.json" --cases | awk '{ print $11 }')
	seen="$seen $v"
	[ "$code" = "$(row run "$v" exit)" ]
	ok $? "$name line, verdict $v: exit $code, the table says $(row run "$v" exit)"
	[ "$lava" = "$(row run "$v" lava)" ]
	ok $? "$name line, verdict $v: --cases gives LAVA '$lava', the table '$(row run "$v" lava)'"
	[ "$(py_verdict "$scratch/$name.json")" = "$v" ]
	ok $? "$name line: the Python reader's verdict is the C reader's ($v)"
	[ "$(kcidb_status "$scratch/$name.json")" = "$(row run "$v" kcidb)" ]
	ok $? "$name line, verdict $v: KCIDB $(kcidb_status "$scratch/$name.json"), the table $(row run "$v" kcidb)"
done <"$scratch/lines"
echo "# verdicts seen:$seen"

# missed cannot be made to order: the caught run's file, its witnesses taken
# away, is what a blind checker leaves.
"$MMT_PYTHON3" - "$scratch/caught.json" "$scratch/missed.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["runs"]:
    r["witnesses"]["count"] = 0
    r["witnesses"]["examples"] = []
    r["status"] = "ok"
json.dump(d, open(sys.argv[2], "w"))
PY
v=$("$MMT_VALIDATE" "$scratch/missed.json" --cases | awk '{ print $10 " " $11 }')
[ "$v" = "missed fail" ] && [ "$(kcidb_status "$scratch/missed.json")" = FAIL ] &&
	[ "$(py_verdict "$scratch/missed.json")" = missed ]
ok $? "an injected fault's run without witnesses is missed: LAVA fail, KCIDB FAIL ($v)"

# nightly's JUnit: every run's case carries the element its verdict's row
# names, on the same lines as above (missed aside: nightly runs for real).
cut -d: -f2- "$scratch/lines" | sed 's/--output [^ ]*//' >"$scratch/suite"
MMT_RESULTS_DIR="$scratch/res" "$MMT_PYTHON3" "$S/nightly" "$scratch/suite" --runner "$MMT_BIN" \
	--repeats 1 >"$scratch/nightly.out" 2>&1
j=$(ls "$scratch"/res/nightly/suite-2*/junit.xml 2>/dev/null | head -n 1)
[ -n "$j" ] && "$MMT_PYTHON3" - "$MMT_SRCDIR/analysis/lib" "$T" "$j" "$(dirname "$j")" <<'PY'
import collections, glob, json, os, sys, xml.etree.ElementTree as ET
sys.path.insert(0, sys.argv[1])
import verdicts as V
rows = {r["verdict"]: r for r in json.load(open(sys.argv[2]))["run"]}
got = collections.Counter((tc.get("name"), tuple(k.tag for k in tc))
                          for tc in ET.parse(sys.argv[3]).getroot().iter("testcase")
                          if not tc.get("classname").endswith((".performance", ".invocation")))
want = collections.Counter()
for f in glob.glob(os.path.join(sys.argv[4], "*.json")):
    for r in json.load(open(f))["runs"]:
        junit = rows[V.of_run(r)]["junit"]
        want[(f"{r['variant']} {r['placement']} #{r['repeat']}", () if junit == "pass" else (junit,))] += 1
assert got == want and sum(want.values()) >= 4, (got, want)
PY
ok $? "nightly's JUnit: each run's case is what its verdict's row names ($(grep -c '<testcase' "$j" 2>/dev/null) cases)"

# A performance group NOT COMPARABLE, LOADED or UNDERPOWERED is a skipped
# case with its reason, never a silent pass.
"$MMT_PYTHON3" - "$S" <<'PY'
import os, sys, xml.etree.ElementTree as ET
from importlib.machinery import SourceFileLoader
nightly = SourceFileLoader("nightly", os.path.join(sys.argv[1], "nightly")).load_module()
class Outcome:
    pass
o = Outcome()
k1, k2, k3, k4 = (("h", sc, "v", "same-node", 2) for sc in ("ring", "msgpass", "seqcount", "barrier-cost"))
o.groups, o.regressions, o.improvements = {k1, k2, k3, k4}, [], [(k3, "ops_per_sec", 5.0, 0.01)]
o.not_comparable, o.underpowered = [k1], [(k2, "ops_per_sec")]
o.loaded = [(k4, "ns_per_op", 245.0, 0.008)]
t = nightly.junit("s", [], [], o, 0, 0, {"h": "h"}).getroot()
got = {tc.get("name").split()[0]: [(k.tag, k.get("message", "").split(":")[0]) for k in tc] for tc in t.iter("testcase")}
assert got == {"ring": [("skipped", "NOT COMPARABLE")], "msgpass": [("skipped", "UNDERPOWERED")], "seqcount": [],
               "barrier-cost": [("skipped", "LOADED")]}, got
assert t.get("skipped") == "3" and t.get("failures") == "0", t.attrib
PY
ok $? "nightly's JUnit: NOT COMPARABLE, LOADED and UNDERPOWERED groups are skipped cases with the verdict, an improvement passes"

done_testing
