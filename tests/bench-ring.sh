#!/bin/sh
# scripts/bench-ring keeps placements apart: figures per placement, ratios
# only between runs of one repeat at the same placement.  Checked on
# synthetic results, so the outcome is known.
. "$MMT_SRCDIR/tests/lib.sh"
command -v python3 >/dev/null || { skip "python3 not installed"; done_testing; exit; }

# doc FILE SCENARIO "REPEAT VARIANT ONE_WAY OPS_PER_SEC [ONE_WAY OPS_PER_SEC]" ...
# Valid results documents (bench-ring reads through the schema check):
# a real run of the scenario, its run copied and its figures set.
doc() {
	"$MMT_BIN" "$2" --variant "$(variants_of "$2" forbidden | head -1)" --duration 20ms --events none \
		--output "$scratch/template-$2.json" >/dev/null 2>&1
	python3 - "$scratch/template-$2.json" "$@" <<'EOF'
import copy, json, sys
template, path, scenario = sys.argv[1], sys.argv[2], sys.argv[3]
doc = json.load(open(template))
base = doc["runs"][0]
runs = []
for spec in sys.argv[4:]:
    f = spec.split()
    rep, var, rest = int(f[0]), f[1], f[2:]
    split = [{"one_way_ns": float(rest[i]), "ops_per_sec": float(rest[i + 1]),
              "elapsed_ns": 1000000000 // (len(rest) // 2)} for i in range(0, len(rest), 2)]
    r = copy.deepcopy(base)
    r.update({"variant": var, "repeat": rep, "status": "ok", "elapsed_ns": 1000000000,
              "ops_per_sec": split[0]["ops_per_sec"], "placement_track": {"moved": len(split) > 1, "by_placement": split}})
    r["probe"]["stable"] = len(split) == 1
    r["probe"]["before"] = r["probe"]["before"][:1]
    r["probe"]["before"][0]["one_way_ns"] = split[0]["one_way_ns"]
    runs.append(r)
doc["runs"] = runs
doc["summary"]["runs"] = len(runs)
doc["metadata"]["command_line"] = ["mmtorture", scenario, "--repeat", "3", "--duration", "1s"]
json.dump(doc, open(path, "w"))
EOF
}

# Repeat 0: both at ~30 ns; repeat 1: cached at 30, naive at 200 (no
# pair); repeat 2: both at ~200 ns, and one of them half at each.
doc "$scratch/ring.json" ring \
	"0 cached 30 400e6" "0 naive 31 100e6" "0 urcu-wfcq 29 8e6" \
	"1 cached 32 420e6" "1 naive 210 20e6" "1 urcu-wfcq 30 8e6" \
	"2 cached 200 100e6 30 410e6" "2 naive 205 20e6" "2 urcu-wfcq 220 2e6"
doc "$scratch/seq.json" seqcount "0 kernel 30 70e6" "0 urcu-rcu 30 35e6" "0 rwlock 30 1e6"
out=$("$MMT_SRCDIR/scripts/bench-ring" --from "$scratch/ring.json" "$scratch/seq.json" --min-pairs 1)
rc=$?
printf '%s\n' "$out" | sed 's/^/# /'
ok $rc "bench-ring --from reports on given results (rc $rc)"
row30=$(printf '%s\n' "$out" | awk '/^ring:/ { r = 1 } r && /^~30 ns/ { print; exit }')
row200=$(printf '%s\n' "$out" | awk '/^ring:/ { r = 1 } r && /^~20[0-9] ns/ { print; exit }')
[ -n "$row30" ] && [ -n "$row200" ]
ok $? "ring: one row per placement (~30 ns and ~200 ns)"
# At ~30 ns cached ran in every repeat (half of repeat 2), naive only in
# repeat 0: one pair, 400/100 = 4.00x.
printf '%s\n' "$row30" | grep -q '4.00x (1)'
ok $? "cached/naive at ~30 ns is the one same-placement pair: 4.00x (1)"
# At ~200 ns: repeat 2 (100/20 = 5x); repeat 1's naive at 210 has no
# cached at 200 in the same repeat.
printf '%s\n' "$row200" | grep -q '5.00x (1)'
ok $? "cached/naive at ~200 ns comes from repeat 2 alone: 5.00x (1)"
printf '%s\n' "$out" | grep -q 'runs that moved mid-run: 1 of 9 (0 seen only'
ok $? "the run split over two placements is counted as moved"
"$MMT_SRCDIR/scripts/bench-ring" --from "$scratch/ring.json" "$scratch/seq.json" | grep -q 'no median'
ok $? "with the default --min-pairs 2 a single pair gets no median"
"$MMT_SRCDIR/scripts/bench-ring" --repeat 0 >/dev/null 2>&1
[ $? -eq 2 ]
ok $? "--repeat 0 is refused with exit 2"
echo '{"runs": [' >"$scratch/cut.json"
e=$("$MMT_SRCDIR/scripts/bench-ring" --from "$scratch/cut.json" "$scratch/seq.json" 2>&1 >/dev/null)
[ $? -eq 2 ] && [ "$(printf '%s\n' "$e" | wc -l)" -eq 1 ]
ok $? "a truncated results file: one line, exit 2 ($e)"
sed 's/"status": "ok"/"status": "fine"/' "$scratch/ring.json" >"$scratch/bad.json"
e=$("$MMT_SRCDIR/scripts/bench-ring" --from "$scratch/bad.json" "$scratch/seq.json" 2>&1 >/dev/null)
[ $? -eq 2 ] && printf '%s' "$e" | grep -q "status"
ok $? "valid JSON that fails the schema: refused, exit 2, naming the field ($e)"
done_testing
