#!/bin/sh
# bench/efficiency.py's arithmetic and grouping, on canned pairs whose
# answer is known, and the rulers' behaviour (no speed asserted).
. "$MMT_SRCDIR/tests/lib.sh"
command -v python3 >/dev/null || { skip "python3 not installed"; done_testing; exit; }
eff="$MMT_SRCDIR/scripts/bench-efficiency"
ruler="$MMT_BUILDDIR/bench/msgpass-bare"
ring_ruler="$MMT_BUILDDIR/bench/ring-bare"
seq_ruler="$MMT_BUILDDIR/bench/seqcount-bare"
lit_ruler="$MMT_BUILDDIR/bench/litmus-bare"

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
ra30=$(printf '%s\n' "$out" | awk '$1 == "msgpass" && $2 == "release-acquire" && $3 ~ /^~(2[89]|3[0-9])$/')
ra200=$(printf '%s\n' "$out" | awk '$1 == "msgpass" && $2 == "release-acquire" && $3 ~ /^~20[0-9]$/')
[ -n "$ra30" ] && [ -n "$ra200" ]
ok $? "release-acquire: one row per placement class (~30 ns and ~200 ns)"
printf '%s\n' "$ra30" | awk '{ exit !($6 == 3 && $7 == "0.900" && $10 == "0.800-1.000") }'
ok $? "~30 ns: 3 pairs, median 0.900, range 0.800-1.000"
# round trips: ruler/scenario 100/200, 150/200, 200/200: median 0.750
printf '%s\n' "$ra30" | awk '{ exit !($11 == "0.750") }'
ok $? "~30 ns: round-trip ratio median 0.750"
printf '%s\n' "$ra30" | awk '{ exit !($12 == "2") }'
ok $? "the pair whose sides sat apart and the one that moved are left out (2)"
printf '%s\n' "$ra200" | awk '{ exit !($6 == 1 && $7 == "0.500") }'
ok $? "~200 ns: 1 pair, 0.500"
printf '%s\n' "$out" | awk '$1 == "msgpass" && $2 == "mb" { exit !($6 == 2 && $7 == "0.650" && $10 == "0.600-0.700") }'
ok $? "mb: 2 pairs, median 0.650, range 0.600-0.700"

# ring and seqcount: each divides its own rate (items/s, reads/s), in a
# table of its own, classes cut per scenario; ring has no second ratio,
# seqcount's is the writer's rate, scenario / ruler.  c11 is in both:
# its rows stay apart.  ring cached: 0.8 and 0.6 at ~30 ns; ring c11: 0.5;
# seqcount kernel: 0.9, 0.7, 1.1 (writes 500k vs 1M: load ratio 0.5);
# seqcount c11: 0.25.
python3 - "$scratch/rs.json" <<'PY'
import json, sys
def side(key, rate, ow, **more):
    d = {key: float(rate), "one_way_ns": float(ow), "stable": True}
    d.update(more)
    return d
pairs = []
for bench, var, s, r in [("ring", "cached", 800, 1000), ("ring", "cached", 600, 1000), ("ring", "c11", 500, 1000)]:
    pairs.append({"bench": bench, "variant": var, "scenario": side("items_per_sec", s, 30),
                  "ruler": side("items_per_sec", r, 31)})
for var, s, r in [("kernel", 900, 1000), ("kernel", 700, 1000), ("kernel", 1100, 1000), ("c11", 250, 1000)]:
    pairs.append({"bench": "seqcount", "variant": var,
                  "scenario": side("reads_per_sec", s, 30, writes_per_sec=500000.0),
                  "ruler": side("reads_per_sec", r, 30, writes_per_sec=1000000.0)})
json.dump({"format": "mmtorture-efficiency-pairs/1", "pairs": pairs,
           "meta": {"placement": "cpus:0,1", "repeat": 3, "duration": "1s",
                    "scenarios": {"ring": ["cached", "c11"], "seqcount": ["kernel", "c11"]}}},
          open(sys.argv[1], "w"))
PY
out=$("$eff" --from "$scratch/rs.json")
rc=$?
printf '%s\n' "$out" | sed 's/^/# /'
ok $rc "--from reports on saved ring and seqcount pairs (rc $rc)"
printf '%s\n' "$out" | grep -q '^efficiency: ring items/s / ring-bare items/s' &&
	printf '%s\n' "$out" | grep -q '^efficiency: seqcount reads/s / seqcount-bare reads/s' &&
	! printf '%s\n' "$out" | grep -q '^efficiency: msgpass'
ok $? "one table per scenario in the pairs, each naming its rate and its ruler"
printf '%s\n' "$out" | awk '$1 == "ring" && $2 == "cached" { exit !($6 == 2 && $7 == "0.700" && $10 == "0.600-0.800" && $11 == "-") }'
ok $? "ring cached: 2 pairs, items/s median 0.700, range 0.600-0.800, no second ratio"
printf '%s\n' "$out" | awk '$1 == "ring" && $2 == "c11" { exit !($6 == 1 && $7 == "0.500") }' &&
	printf '%s\n' "$out" | awk '$1 == "seqcount" && $2 == "c11" { exit !($6 == 1 && $7 == "0.250") }'
ok $? "c11 of ring (0.500) and of seqcount (0.250) in rows of their own"
printf '%s\n' "$out" | awk '$1 == "seqcount" && $2 == "kernel" { exit !($6 == 3 && $7 == "0.900" && $10 == "0.700-1.100" && $11 == "0.500") }'
ok $? "seqcount kernel: 3 pairs, reads/s median 0.900, range 0.700-1.100, load ratio 0.500"
# litmus: iterations/s divided, the second ratio the witnesses' (scenario /
# ruler): SB/kernel 0.6 and 0.8 at ~60 ns, witnesses 1.5M and 2M against 1M.
python3 - "$scratch/lit.json" <<'PY'
import json, sys
side = lambda it, wit: {"iterations_per_sec": float(it), "witnesses_per_sec": float(wit), "one_way_ns": 60.0,
                        "stable": True}
pairs = [{"bench": "litmus", "variant": "SB/kernel", "scenario": side(s, w), "ruler": side(r, 1e6)}
         for s, w, r in [(6e6, 1.5e6, 1e7), (8e6, 2e6, 1e7)]]
json.dump({"format": "mmtorture-efficiency-pairs/1", "pairs": pairs,
           "meta": {"placement": "cpus:0,1", "repeat": 2, "duration": "1s",
                    "scenarios": {"litmus": ["SB/kernel"]}}}, open(sys.argv[1], "w"))
PY
out=$("$eff" --from "$scratch/lit.json")
rc=$?
printf '%s\n' "$out" | sed 's/^/# /'
printf '%s\n' "$out" | grep -q '^efficiency: litmus iterations/s / litmus-bare iterations/s' &&
	printf '%s\n' "$out" | awk '$1 == "litmus" && $2 == "SB/kernel" { exit !($6 == 2 && $7 == "0.700" && $10 == "0.600-0.800" && $11 == "1.750") }'
ok $? "litmus SB/kernel: 2 pairs, iterations/s median 0.700, range 0.600-0.800, witness ratio 1.750 (rc $rc)"
"$eff" --scenario ring,nonesuch --from "$scratch/rs.json" >/dev/null 2>&1
[ $? -eq 2 ]
ok $? "--scenario with an unknown name is refused with exit 2"
"$eff" --scenario ring,seqcount --ruler "$ring_ruler" --from "$scratch/rs.json" >/dev/null 2>&1
[ $? -eq 2 ]
ok $? "--ruler with two scenarios is refused with exit 2"
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
"$ruler" --list | grep -qx release-acquire && ! "$ruler" --list | grep -qx broken-publish-first
ok $? "msgpass-bare --list: its variants, the injected one left out"
"$ring_ruler" --help >/dev/null && "$seq_ruler" --help >/dev/null
ok $? "ring-bare and seqcount-bare --help exit 0"
[ "$("$ring_ruler" --list | tr '\n' ' ')" = "cached naive mb c11 " ]
ok $? "ring-bare --list: the index rings (cached naive mb c11)"
"$seq_ruler" --list | grep -qx kernel && "$seq_ruler" --list | grep -qx c11 && ! "$seq_ruler" --list | grep -qx rwlock
ok $? "seqcount-bare --list: the sequence counts, not the locks"
# Bad input: one line, exit 2, per ruler (a line: ruler, then its arguments).
while read -r which bad; do
	eval "r=\$$which"
	e=$("$r" $bad 2>&1 >/dev/null)
	[ $? -eq 2 ] && [ "$(printf '%s\n' "$e" | wc -l)" -eq 1 ]
	ok $? "$(basename "$r") $bad: one line, exit 2 ($e)"
done <<'EOF'
ring_ruler --variant cahced
ring_ruler --ring-size 100
ring_ruler --batch 0
ring_ruler --item-words 65
ring_ruler --cpus 0
seq_ruler --variant kernal
seq_ruler --record-words 1
seq_ruler --write-interval-ns x
lit_ruler --variant SB/kernal
lit_ruler --sync 2
lit_ruler --batch 8
lit_ruler --stride 0
lit_ruler --period x
EOF
for v in broken-drop urcu-wfcq; do
	"$ring_ruler" --variant $v >/dev/null 2>&1
	[ $? -eq 77 ]
	ok $? "ring-bare --variant $v: no ruler (exit 77)"
done
[ "$("$lit_ruler" --list | tr '\n' ' ')" = "SB/kernel SB/kernel-mfence SB/urcu SB/c11 " ] && "$lit_ruler" --help >/dev/null
ok $? "litmus-bare --list: SB under each primitive set; --help exits 0"
for v in broken-early-recheck rwlock; do
	"$seq_ruler" --variant $v >/dev/null 2>&1
	[ $? -eq 77 ]
	ok $? "seqcount-bare --variant $v: no ruler (exit 77)"
done
# Two CPUs of its own (it pins to CPUs 0 and 1 and spins on both).
if [ "$(nproc)" -lt 2 ]; then
	skip "msgpass-bare run: fewer than two CPUs in the affinity mask"
	done_testing
	exit
fi
# check_ruler RC PYTHON-RC WHAT: the checker exits 77 when a side counted
# nothing (on a loaded machine one thread may not have run in 20 ms):
# that premise is a skip with the reason, not a pass.
check_ruler() {
	if [ "$2" -eq 77 ]; then
		skip "$3: a side counted nothing in 20 ms (not scheduled; load $(cut -d' ' -f1 /proc/loadavg))"
	else
		[ "$1" -eq 0 ] && [ "$2" -eq 0 ]
		ok $? "$3 (exit $1, checks $2)"
	fi
}
j=$("$ruler" --variant release-acquire --duration 20ms --payload-words 7)
rc=$?
printf '# %s\n' "$j"
printf '%s' "$j" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["variant"] == "release-acquire" and d["payload_words"] == 7, d
if d["messages"] == 0: sys.exit(77)
assert d["mismatched_messages"] == 0, d
assert d["round_trip_ns"]["samples"] == d["messages"], d
assert d["probe"]["before"]["one_way_ns"] > 0, d'
prc=$?
check_ruler $rc $prc "msgpass-bare: exit 0, messages counted, one round trip each, none mismatched, probe recorded"
# A ring smaller than a batch, items of three words: every item checked,
# the consumer's count is the producer's.
for v in cached naive; do
	j=$("$ring_ruler" --variant $v --duration 20ms --ring-size 16 --batch 64 --item-words 3)
	rc=$?
	printf '# %s\n' "$j"
	printf '%s' "$j" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["ring_size"] == 16 and d["batch"] == 16 and d["item_words"] == 3, d
if d["items"] == 0: sys.exit(77)
assert d["items"] == d["produced"] and d["mismatched_items"] == 0, d
assert d["probe"]["before"]["one_way_ns"] > 0, d'
	prc=$?
	check_ruler $rc $prc "ring-bare $v: exit 0, items counted, all the producer wrote, none mismatched, probe recorded"
done
# A writer flat out: the reader retries, and accepts no torn snapshot.
j=$("$seq_ruler" --variant kernel --duration 20ms --record-words 16 --write-interval-ns 0)
rc=$?
printf '# %s\n' "$j"
printf '%s' "$j" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["record_words"] == 16 and d["write_interval_ns"] == 0, d
if d["reads"] == 0 or d["writes"] == 0: sys.exit(77)
assert d["torn_reads"] == 0, d
assert d["probe"]["before"]["one_way_ns"] > 0, d'
prc=$?
check_ruler $rc $prc "seqcount-bare kernel: exit 0, reads and writes counted, no torn snapshot, probe recorded"
# Each line-up: every iteration's outcome counted once, each one SB can
# give (a register holding neither 0 nor 1 would be the ruler's bug).  A
# small batch: a run ends only between batches, and on a loaded machine
# each userfence rendezvous may wait out the other thread's time slice.
for sync in none userfence tsc; do
	j=$("$lit_ruler" --variant SB/c11 --sync $sync --duration 20ms --batch 256)
	rc=$?
	printf '# %s\n' "$j"
	printf '%s' "$j" | SYNC=$sync python3 -c '
import json, os, sys
d = json.load(sys.stdin)
assert d["sync"] == os.environ["SYNC"] and d["batch"] == 256, d
if d["iterations"] == 0: sys.exit(77)
assert d["iterations"] % 256 == 0 and sum(d["outcomes"]) == d["iterations"], d
assert d["other_outcomes"] == 0 and d["witnesses"] == d["outcomes"][0], d
assert (d["period_cycles"] > 0) == (d["sync"] == "tsc") and (d["one_way_cycles"] > 0) == (d["sync"] != "none"), d
assert d["probe"]["before"]["one_way_ns"] > 0, d'
	prc=$?
	check_ruler $rc $prc "litmus-bare --sync $sync: exit 0, every iteration counted once, no other outcome, period and latency as the mode uses them"
done
done_testing
