#!/bin/sh
# The analysis takes units, directions and families from the descriptors
# (the results' "catalogue"), never from a list of its own: a declared
# direction flipped in the document flips compare's verdict; a document
# without a catalogue (an older one) reads as before through the binary's,
# and without any binary says so, exit 2.
. "$MMT_SRCDIR/tests/lib.sh"
PY=${MMT_PYTHON3:-python3}
COMPARE="$MMT_SRCDIR/scripts/compare"

run barrier-cost --variant mb,urcu-mb --repeat 5 --duration 30ms --output "$scratch/base.json"
[ "$rc" -eq 0 ] && [ "$(get "$scratch/base.json" catalogue.scenarios.0.name)" = barrier-cost ]
ok $? "a results document carries the catalogue of what it ran (rc $rc)"

"$PY" - "$scratch/base.json" "$scratch" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
cat = doc["catalogue"]["scenarios"][0]
assert [v["name"] for v in cat["variants"]] == ["mb", "urcu-mb"], cat["variants"]
assert {v["family"] for v in cat["variants"]} == {"hand-rolled", "liburcu"}
declared = {m["name"] for m in cat["metrics"]}
assert all(set(r["metrics"]) <= declared for r in doc["runs"]), "an undeclared metric in a run"
# new: every net cost doubled, a new seed so it is another invocation
new = json.loads(json.dumps(doc))
new["metadata"]["seed"] = "12345"
for r in new["runs"]:
    r["metrics"]["net_ns_per_op"] = r["metrics"]["net_ns_per_op"] * 2 + 1
json.dump(new, open(sys.argv[2] + "/new.json", "w"))
# the same two, with net_ns_per_op declared "higher is better"
for d, name in ((doc, "base-flip"), (new, "new-flip")):
    d = json.loads(json.dumps(d))
    for m in d["catalogue"]["scenarios"][0]["metrics"]:
        if m["name"] == "net_ns_per_op":
            m["better"] = "higher"
    json.dump(d, open(f"{sys.argv[2]}/{name}.json", "w"))
# and both without a catalogue, as written before it was recorded
for src, name in ((doc, "base-old"), (new, "new-old")):
    d = json.loads(json.dumps(src))
    del d["catalogue"]
    json.dump(d, open(f"{sys.argv[2]}/{name}.json", "w"))
EOF
ok $? "every run's metrics are declared; altered copies written"

line() {  # line FILE: compare's net_ns_per_op line for urcu-mb
	awk '/urcu-mb/ { g = 1 } g && $1 == "net_ns_per_op" { print; exit }' "$1"
}
"$COMPARE" "$scratch/base.json" -- "$scratch/new.json" > "$scratch/c1" 2>&1
rc1=$?
l1=$(line "$scratch/c1")
[ "$rc1" -eq 1 ] && printf '%s' "$l1" | grep -q REGRESSION
ok $? "declared lower-is-better: a doubled net cost is a REGRESSION (rc $rc1: $l1)"
"$COMPARE" "$scratch/base-flip.json" -- "$scratch/new-flip.json" > "$scratch/c2" 2>&1
rc2=$?
l2=$(line "$scratch/c2")
[ "$rc2" -eq 0 ] && printf '%s' "$l2" | grep -q improvement
ok $? "the document's declaration flipped to higher-is-better: the same change is an improvement (rc $rc2: $l2)"
"$COMPARE" "$scratch/base-old.json" -- "$scratch/new-old.json" > "$scratch/c3" 2>&1
rc3=$?
[ "$rc3" -eq 1 ] && [ "$(line "$scratch/c3")" = "$l1" ]
ok $? "documents without a catalogue read through the binary's: the same line (rc $rc3)"
"$COMPARE" --variants "$scratch/base-old.json" > "$scratch/v" 2>&1
grep -q "full barrier: mb: " "$scratch/v" && grep -q "liburcu" "$scratch/v"
ok $? "... and the ratio table's rows and families come from it: $(grep 'full barrier' "$scratch/v")"

# Without a catalogue and without a binary to read one from: exit 2, saying so.
mkdir -p "$scratch/tree/analysis" "$scratch/tree/results"
cp -r "$MMT_SRCDIR/analysis/compare.py" "$MMT_SRCDIR/analysis/lib" "$scratch/tree/analysis/"
cp "$MMT_SRCDIR/results/schema.json" "$scratch/tree/results/"
env -u MMT_BIN PATH=/usr/bin:/bin "$scratch/tree/analysis/compare.py" "$scratch/base-old.json" -- "$scratch/new-old.json" \
	> "$scratch/c4" 2>&1
rc4=$?
[ "$rc4" -eq 2 ] && grep -q "has no catalogue.*no mmtorture binary was found" "$scratch/c4"
ok $? "no catalogue and no binary: exit 2 ($(tail -1 "$scratch/c4"))"

done_testing
