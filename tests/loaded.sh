#!/bin/sh
# Load is not a regression (#30 item 2).  The same barrier-cost runs, the
# second beside busy loops on every CPU: each run records its conditions
# (the workers' CPU time over wall time, other runnable tasks, the load
# average), and compare calls the wall-time change LOADED, a skipped
# verdict, where the same documents without their conditions (as written
# before they were recorded) call it a REGRESSION; a change larger than
# the conditions can explain stays a REGRESSION.
. "$MMT_SRCDIR/tests/lib.sh"
PY=${MMT_PYTHON3:-python3}
COMPARE="$MMT_SRCDIR/scripts/compare"
ARGS="barrier-cost --variant mb --repeat 5 --duration 100ms --placement cpus:0"

# shellcheck disable=SC2086
run $ARGS --output "$scratch/base.json"
[ "$rc" -eq 0 ] && [ -n "$(get "$scratch/base.json" runs.0.conditions.on_cpu)" ]
ok $? "every run records its conditions (rc $rc: $(get "$scratch/base.json" runs.0.conditions))"

spinners=""
i=0
while [ "$i" -lt $((2 * ncpus)) ]; do
	sh -c 'while :; do :; done' &
	spinners="$spinners $!"
	i=$((i + 1))
done
# shellcheck disable=SC2086
run $ARGS --output "$scratch/new.json"
# shellcheck disable=SC2086
kill $spinners
ok "$rc" "the loaded runs ran (rc $rc)"

"$PY" - "$scratch" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1] + "/new.json"))
for r in d["runs"]:
    del r["conditions"]
json.dump(d, open(sys.argv[1] + "/new-old.json", "w"))
d = json.load(open(sys.argv[1] + "/base.json"))
for r in d["runs"]:
    del r["conditions"]
json.dump(d, open(sys.argv[1] + "/base-old.json", "w"))
EOF

"$COMPARE" "$scratch/base-old.json" -- "$scratch/new-old.json" > "$scratch/blind" 2>&1
rc_blind=$?
"$COMPARE" "$scratch/base.json" -- "$scratch/new.json" > "$scratch/seen" 2>&1
rc_seen=$?
sed 's/^/# /' "$scratch/seen"
# The premise: the busy loops took CPU time from the workers (or stood
# runnable beside them), and the wall-time figure moved the worse way.
if ! grep -q "LOADED: conditions differ" "$scratch/seen"; then
	skip "the busy loops did not change the conditions measurably on this machine"
elif ! grep -q "REGRESSION" "$scratch/blind"; then
	skip "the load moved no figure beyond chance here (blind compare exit $rc_blind)"
else
	ok 0 "blind to conditions, compare calls the loaded runs a REGRESSION (exit $rc_blind)"
	[ "$rc_seen" -eq 0 ] && ! grep -q REGRESSION "$scratch/seen" && grep -q "  LOADED$" "$scratch/seen" &&
		grep -q "^LOADED: [0-9]* change" "$scratch/seen"
	ok $? "with the conditions, the same change is LOADED, counted in the summary, exit 0 (was $rc_blind)"
	# ... but not a change no load explains: the loaded runs 100x slower
	"$PY" - "$scratch" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1] + "/new.json"))
d["metadata"]["seed"] = "777"
for r in d["runs"]:
    r["ns_per_op"] *= 100
    r["ops_per_sec"] /= 100
json.dump(d, open(sys.argv[1] + "/new-100x.json", "w"))
EOF
	"$COMPARE" "$scratch/base.json" -- "$scratch/new-100x.json" > "$scratch/big" 2>&1
	rc_big=$?
	[ "$rc_big" -eq 1 ] && grep -q "^  ns_per_op .*REGRESSION" "$scratch/big"
	ok $? "a 100x slowdown under the same load is still a REGRESSION (exit $rc_big): load explains a few times at most"
fi

done_testing
