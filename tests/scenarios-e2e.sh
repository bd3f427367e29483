#!/bin/sh
# Every scenario, every variant, end to end: exit 0, a valid results file,
# and on every variant that forbids a witness: none seen, work done.
. "${MMT_SRCDIR:-.}/tests/lib.sh"

need_cpus 2 "every scenario"

for sc in $(scenarios); do
	f="$scratch/$sc.json"
	# mmrace's sysctl changes are tests/mmrace.sh's to check: running them
	# here too, in parallel, would only make the two runs share a lock.
	extra=
	[ "$sc" = mmrace ] && extra="--numa-balancing 0"
	# shellcheck disable=SC2086
	run "$sc" --variant all --placement same-node --duration 100ms $extra --output "$f"
	[ "$rc" -eq 0 ] || [ "$rc" -eq 77 ]
	ok $? "$sc: every variant runs, exit 0 ($(printf '%s' "$err" | head -1))"
	"$MMT_VALIDATE" "$f"
	ok $? "$sc: results pass the schema check"
	# One read of the file: the schema check of a 3 MB litmus record
	# costs a tenth of a second a call, and this loop asks per variant.
	runs "$f" >"$scratch/$sc.runs"
	total=$(variants_of "$sc" all | wc -l)
	[ "$(wc -l <"$scratch/$sc.runs")" -eq "$total" ]
	ok $? "$sc: one run per variant ($total)"
	for v in $(variants_of "$sc" forbidden); do
		line=$(awk -v v="$v" '$2 == v' "$scratch/$sc.runs")
		set -- $line
		if [ "$4" = skipped ]; then
			# e.g. a 4-thread litmus test on 2 CPUs: skipped with its reason
			skip "$sc $v: skipped here ($(get "$f" runs.$(awk -v v="$v" '$2 == v { print NR - 1 }' "$scratch/$sc.runs").reason))"
			skip "$sc $v: no row for a skipped run"
			continue
		fi
		if [ "$4" = invalid ] && [ "$5" -eq 0 ]; then
			# stalled past its bound on a loaded machine: did not do its
			# work, so its zero says nothing either way
			skip "$sc $v: INVALID here ($(get "$f" runs.$(awk -v v="$v" '$2 == v { print NR - 1 }' "$scratch/$sc.runs").reason))"
			continue
		fi
		# inconclusive: ran, saw nothing wrong, but could not show it hit
		# what it tests in so short a run (mmrace's window)
		{ [ "$4" = ok ] || [ "$4" = inconclusive ]; } && [ "$5" -eq 0 ] && [ "$6" -gt 0 ]
		ok $? "$sc $v: no witness, work done ($line)"
		printf '%s\n' "$out" | grep -q "^$sc  *$v "
		ok $? "$sc $v: a row in the table"
	done
done

# Stored baselines stay comparable only while records keep their keys and
# types: every scenario's measured runs against the shape saved before the
# record was rebuilt (tests/record-shape.py; a deliberate change regenerates
# the fixture and says so in the schema's version).
"$MMT_PYTHON3" "$MMT_SRCDIR/tests/record-shape.py" check "$MMT_SRCDIR/tests/fixtures/record-shape.txt" \
	"$scratch"/*.json >"$scratch/shape" 2>&1
ok $? "every scenario's records keep the saved keys and types$(head -c 600 "$scratch/shape" | tr '\n' ';')"
# ... and the check can fail: a record with a key renamed is caught.
"$MMT_PYTHON3" - "$scratch/msgpass.json" "$scratch/renamed.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["runs"]:
    r["ops_per_second"] = r.pop("ops_per_sec")
json.dump(d, open(sys.argv[2], "w"))
PY
! "$MMT_PYTHON3" "$MMT_SRCDIR/tests/record-shape.py" check "$MMT_SRCDIR/tests/fixtures/record-shape.txt" \
	"$scratch/renamed.json" >"$scratch/shape" 2>&1 && grep -q "new key ops_per_second" "$scratch/shape" &&
	grep -q "key ops_per_sec is gone" "$scratch/shape"
ok $? "a renamed key is caught: $(tr '\n' ';' <"$scratch/shape")"

done_testing
