#!/bin/sh
# bench/efficiency.py's arithmetic and grouping, on canned pairs whose
# answer is known, and the ruler's behaviour (no speed asserted).
. "$MMT_SRCDIR/tests/lib.sh"
command -v python3 >/dev/null || { skip "python3 not installed"; done_testing; exit; }
eff="$MMT_SRCDIR/scripts/bench-efficiency"
ruler="$MMT_BUILDDIR/bench/msgpass-bare"

# pairs FILE "VARIANT S_RATE S_RT S_ONEWAY S_STABLE R_RATE R_RT R_ONEWAY R_STABLE" ...
pairs() {
	out=$1
	shift
	python3 - "$out" "$@" <<'PY'
import json, sys
pairs = []
for spec in sys.argv[2:]:
    v, sr, srt, sow, sst, rr, rrt, row, rst = spec.split()
    side = lambda rate, rt, ow, st: {"msgs_per_sec": float(rate), "round_trip_ns": float(rt),
                                     "one_way_ns": float(ow), "stable": st == "1"}
    pairs.append({"variant": v, "repeat": len(pairs), "scenario": side(sr, srt, sow, sst),
                  "ruler": side(rr, rrt, row, rst)})
json.dump({"format": "mmtorture-efficiency-pairs/1", "pairs": pairs,
           "meta": {"placement": "cpus:0,1", "repeat": 3, "duration": "1s", "payload_words": 16,
                    "variants": ["release-acquire", "mb"]}}, open(sys.argv[1], "w"))
PY
}

# release-acquire: three pairs at ~30 ns (0.9, 0.8, 1.0), one at ~200 ns
# (0.5), one whose sides sat at 30 and 200 ns (left out), one whose
# scenario moved (left out).  mb: two pairs at ~30 ns (0.6, 0.7).
pairs "$scratch/p.json" \
	"release-acquire 900 200 30 1 1000 100 31 1" \
	"release-acquire 800 200 32 1 1000 150 29 1" \
	"release-acquire 1000 200 28 1 1000 200 30 1" \
	"release-acquire 100 800 200 1 200 400 210 1" \
	"release-acquire 100 800 30 1 200 400 200 1" \
	"release-acquire 100 800 30 0 200 400 30 1" \
	"mb 600 100 30 1 1000 100 30 1" \
	"mb 700 100 31 1 1000 100 30 1"
out=$("$eff" --from "$scratch/p.json")
rc=$?
printf '%s\n' "$out" | sed 's/^/# /'
ok $rc "--from reports on saved pairs (rc $rc)"
ra30=$(printf '%s\n' "$out" | awk '$1 == "release-acquire" && $2 ~ /^~(2[89]|3[0-9])$/')
ra200=$(printf '%s\n' "$out" | awk '$1 == "release-acquire" && $2 ~ /^~20[0-9]$/')
[ -n "$ra30" ] && [ -n "$ra200" ]
ok $? "release-acquire: one row per placement class (~30 ns and ~200 ns)"
printf '%s\n' "$ra30" | awk '{ exit !($5 == 3 && $6 == "0.900" && $9 == "0.800-1.000") }'
ok $? "~30 ns: 3 pairs, median 0.900, range 0.800-1.000"
# round trips: ruler/scenario 100/200, 150/200, 200/200: median 0.750
printf '%s\n' "$ra30" | awk '{ exit !($10 == "0.750") }'
ok $? "~30 ns: round-trip ratio median 0.750"
printf '%s\n' "$ra30" | awk '{ exit !($11 == "2") }'
ok $? "the pair whose sides sat apart and the one that moved are left out (2)"
printf '%s\n' "$ra200" | awk '{ exit !($5 == 1 && $6 == "0.500") }'
ok $? "~200 ns: 1 pair, 0.500"
printf '%s\n' "$out" | awk '$1 == "mb" { exit !($5 == 2 && $6 == "0.650" && $9 == "0.600-0.700") }'
ok $? "mb: 2 pairs, median 0.650, range 0.600-0.700"
"$eff" --help >/dev/null
ok $? "--help exits 0"
"$eff" --repeat 0 >/dev/null 2>&1
[ $? -eq 2 ]
ok $? "--repeat 0 is refused with exit 2"
echo '{"pairs": [' >"$scratch/cut.json"
e=$("$eff" --from "$scratch/cut.json" 2>&1 >/dev/null)
[ $? -eq 2 ] && [ "$(printf '%s\n' "$e" | wc -l)" -eq 1 ]
ok $? "a truncated pairs file: one line, exit 2 ($e)"

# The ruler: the same protocol, checked.
"$ruler" --help >/dev/null
ok $? "msgpass-bare --help exits 0"
e=$("$ruler" --variant release-aquire 2>&1 >/dev/null)
[ $? -eq 2 ] && [ "$(printf '%s\n' "$e" | wc -l)" -eq 1 ]
ok $? "msgpass-bare: an unknown variant is one line, exit 2 ($e)"
"$ruler" --variant broken-publish-first >/dev/null 2>&1
[ $? -eq 77 ]
ok $? "msgpass-bare: an injected fault has no ruler (exit 77)"
# Two CPUs of its own (it pins to CPUs 0 and 1 and spins on both).
if [ "$(nproc)" -lt 2 ]; then
	skip "msgpass-bare run: fewer than two CPUs in the affinity mask"
	done_testing
	exit
fi
j=$("$ruler" --variant release-acquire --duration 20ms --payload-words 7)
rc=$?
printf '# %s\n' "$j"
printf '%s' "$j" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["variant"] == "release-acquire" and d["payload_words"] == 7, d
assert d["messages"] > 0 and d["mismatched_messages"] == 0, d
assert d["round_trip_ns"]["samples"] == d["messages"], d
assert d["probe"]["before"]["one_way_ns"] > 0, d'
[ $rc -eq 0 ] && [ $? -eq 0 ]
ok $? "msgpass-bare: exit 0, messages counted, one round trip each, none mismatched, probe recorded"
done_testing
