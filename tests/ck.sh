#!/bin/sh
# The concurrencykit (ck) variants: in --list --format json with their
# family and ratio-table row; where this build has ck, they run clean (no
# witness, no lost item, work done) and compare --variants puts them in the
# hand-rolled : liburcu : ck : C11 row; where it has not, they are skipped
# with the reason, exit 77 when they were all that was asked.  (A build
# without ck on a machine with it: tests/build-layouts.sh.)
. "${MMT_SRCDIR:-.}/tests/lib.sh"
PY=${MMT_PYTHON3:-python3}

# scenario variant compares not_built, one line per ck variant
"$MMT_BIN" --list ring,seqcount,msgpass --format json | "$PY" -c 'import json, sys
for s in json.load(sys.stdin)["scenarios"]:
    rows = {}
    for v in s["variants"]:
        rows.setdefault(v["compares"], set()).add(v["family"])
    for v in s["variants"]:
        if v["family"] == "ck":
            # a ck variant shares its row with a hand-rolled one
            ok = v["compares"] and "hand-rolled" in rows[v["compares"]] and v["expectation"] == "forbidden"
            print(s["name"], v["name"], (v["compares"] or "-").replace(" ", "_"), v["not_built"] is None and "built"
                  or "not-built", "paired" if ok else "UNPAIRED")' >"$scratch/ck"
[ "$(awk '{ print $1, $2, $3, $5 }' "$scratch/ck" | tr '\n' ';')" = \
	"ring ck-spsc SPSC_queue paired;seqcount ck reader_protection paired;msgpass ck-fence wmb/rmb_publication paired;msgpass ck-release-acquire release/acquire_publication paired;msgpass ck-fence-memory full_barrier_both_sides paired;" ]
ok $? "--list --format json: ck-spsc, ck and three ck_pr msgpass variants, family ck, each in a row with a hand-rolled one, witness forbidden ($(tr '\n' ';' <"$scratch/ck"))"

if [ "$(awk '{ print $4 }' "$scratch/ck" | sort -u)" = not-built ]; then
	run ring --variant ck-spsc --duration 50ms --events none --output "$scratch/skip.json"
	[ "$rc" -eq 77 ] && runs "$scratch/skip.json" | awk '$4 == "skipped"' | grep -q ck-spsc &&
		[ "$(get "$scratch/skip.json" runs.0.reason)" = "built without concurrencykit (libck-dev)" ]
	ok $? "built without concurrencykit: ck-spsc alone is skipped with the reason, exit 77 (exit $rc)"
	skip "the ck variants' runs need a build with concurrencykit (libck-dev)"
	done_testing
	exit
fi
need_cpus 2 "the ck variants"

fail=
for sc in "ring ck-spsc,cached" "seqcount ck,kernel" "msgpass ck-fence,ck-fence-memory"; do
	set -- $sc
	run "$1" --variant "$2" --iterations 20000 --events none --output "$scratch/$1.json"
	# scenario variant placement status witnesses iterations: ok, none, all of them
	bad=$(runs "$scratch/$1.json" | awk '$4 != "ok" || $5 != 0 || $6 < 20000')
	# a stalled run (INVALID: the machine's load) did not do its work
	# (one line: two stalled variants are "seqcount ck kernel", not two TAP lines)
	stalled=$(runs "$scratch/$1.json" | awk '$4 == "invalid" && $5 == 0 { printf " %s", $2 }')
	if [ -n "$stalled" ]; then
		stalled_all="${stalled_all:-}$1$stalled; "
		continue
	fi
	[ "$rc" -eq 0 ] && [ "$(runs "$scratch/$1.json" | wc -l)" -eq 2 ] && [ -z "$bad" ] || fail="$fail $1 (exit $rc: $bad)"
done
if [ -n "${stalled_all:-}" ] && [ -z "$fail" ]; then
	skip "ck variants stalled (INVALID) on a loaded machine, no verdict: ${stalled_all%; }"
else
	[ -z "$fail" ]
	ok $? "ck-spsc, seqcount ck, ck-fence and ck-fence-memory: 20000 checked operations each, no witness, no lost item${fail:+:$fail}"
fi

[ "$(get "$scratch/ring.json" metadata.ck_version)" != null ]
ok $? "the results record the ck version built against ($(get "$scratch/ring.json" metadata.ck_version))"

# One table: the four families' release/acquire publication, paired by repeat.
run msgpass --variant release-acquire,urcu-rcu,ck-release-acquire,c11-release-acquire --iterations 5000 --repeat 2 \
	--events none --output "$scratch/four.json"
"$MMT_SRCDIR/scripts/compare" --variants "$scratch/four.json" >"$scratch/cmp" 2>&1
crc=$?
if runs "$scratch/four.json" | awk '$4 == "invalid"' | grep -q .; then
	skip "compare --variants: a run stalled (INVALID) on a loaded machine, so a pair is missing"
	done_testing
	exit
fi
[ "$rc" -eq 0 ] && [ "$crc" -eq 0 ] && grep -q '^  ck-release-acquire  *ck  *2 ' "$scratch/cmp" &&
	grep -q 'release/acquire publication: release-acquire: 1 : urcu-rcu: [0-9.]* .*(n=2) : ck-release-acquire: [0-9.]* .*(n=2) : c11-release-acquire: [0-9.]* .*(n=2)$' "$scratch/cmp"
ok $? "compare --variants: hand-rolled : liburcu : ck : C11 in one row (exit $rc/$crc: $(grep 'release/acquire publication' "$scratch/cmp"))"

done_testing
