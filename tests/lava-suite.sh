#!/bin/sh
# lava/run-suite, the script of the LAVA test definition, with stand-ins
# for LAVA's lava-test-case and lava-test-set that log their arguments:
# case names (scenario.variant.placement.repeat, LAVA-safe), test sets,
# measurements, the pass/fail/skip mapping of every run status, an
# --assume-forbidden run that must fail, a hung line stopped at the bound,
# the results file in the log, and bad input.
. "${MMT_SRCDIR:-.}/tests/lib.sh"

suite="$MMT_SRCDIR/lava/run-suite"
mkdir -p "$scratch/stub"
# The argument shapes of LAVA 2023.01's lava-test-case and lava-test-set.
cat >"$scratch/stub/lava-test-case" <<'EOF'
#!/bin/sh
echo "case $*" >>"$STUB_LOG"
EOF
cat >"$scratch/stub/lava-test-set" <<'EOF'
#!/bin/sh
echo "set $*" >>"$STUB_LOG"
EOF
chmod +x "$scratch/stub/"*
export STUB_LOG="$scratch/log"
result_tool=$MMT_VALIDATE
# lava SUITE [ARGS...]: run-suite with the stand-ins; rc, the log in $STUB_LOG
lava() {
	rm -f "$STUB_LOG"
	: >"$STUB_LOG"
	f=$1
	shift
	PATH="$scratch/stub:$PATH" MMT_BIN=${bin:-$MMT_BIN} MMT_RESULT_TOOL=${tool:-$result_tool} \
		timeout -k 5 120 "$suite" --suite "$f" --results "$scratch/res" "$@" >"$scratch/out" 2>"$scratch/err"
	rc=$?
}
has() { grep -qxF -- "$1" "$STUB_LOG"; }

# --- bad input: exit 2, nothing run --------------------------------------------
printf 'msgpass --variant mb --duration 50ms --events none\n' >"$scratch/one"
lava "$scratch/one" --timeout soon
[ "$rc" -eq 2 ] && grep -q "not a positive number" "$scratch/err" && [ ! -s "$STUB_LOG" ]
ok $? "--timeout soon: exit 2 with the reason, no case reported"
lava "$scratch/nope"
[ "$rc" -eq 2 ] && grep -q "no readable suite file" "$scratch/err"
ok $? "a missing suite: exit 2"
PATH=/usr/bin:/bin MMT_BIN=$MMT_BIN "$suite" --suite "$scratch/one" --results "$scratch/res" >/dev/null 2>"$scratch/err"
[ $? -eq 2 ] && grep -q "lava-test-case is not on PATH" "$scratch/err"
ok $? "outside a LAVA test shell (no lava-test-case): exit 2"

# --- a real suite: names, sets, measurements, the results file in the log ---------
# The injected fault's lines run by count (20000 messages), not by time:
# beside stress-ng --cpu 4 a 100 ms run once saw no witness, and its case
# rightly failed.
cat >"$scratch/real" <<'EOF'
# two lines of one scenario: sets msgpass and msgpass_2
msgpass --variant mb,broken-publish-first --placement same-node --iterations 20000 --events none
litmus --test SB+mbs --primitives kernel --placement same-node --duration 100ms --events none
msgpass --variant mb --placement same-node --duration 50ms --events none
EOF
lava "$scratch/real"
[ "$rc" -eq 0 ]
ok $? "a suite that passes: exit 0 (rc $rc: $(tail -n 1 "$scratch/err"))"
has "set start msgpass" && has "set start litmus" && has "set start msgpass_2" &&
	[ "$(grep -c '^set stop$' "$STUB_LOG")" -eq 3 ]
ok $? "one test set per suite line, a repeated scenario gets msgpass_2, every set stopped"
grep -q '^case msgpass\.mb\.same-node\.0 --result pass --measurement [0-9.e+]* --units messages/s$' "$STUB_LOG" &&
	grep -q '^case msgpass\.broken-publish-first\.same-node\.0 --result pass --measurement' "$STUB_LOG"
ok $? "ok and a caught injected fault: pass, ops/s as the measurement in messages/s"
grep -q '^case litmus\.SB_mbs-kernel\.same-node\.0 --result pass --measurement [0-9.e+]* --units iterations/s$' "$STUB_LOG"
ok $? "SB+mbs/kernel becomes the LAVA-safe litmus.SB_mbs-kernel.same-node.0"
has "case msgpass.exit-code --result pass --measurement 0 --units exit" &&
	has "case litmus.exit-code --result pass --measurement 0 --units exit" &&
	has "case msgpass_2.exit-code --result pass --measurement 0 --units exit" &&
	grep -q '^case msgpass_2\.mb\.same-node\.0 ' "$STUB_LOG"
ok $? "one exit-code case per line, each in its own set's name"
# Every case name: dot-separated parts of [A-Za-z0-9_-] only.
! awk '$1 == "case" && $2 !~ /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/' "$STUB_LOG" | grep -q .
ok $? "every case name in LAVA-safe characters"
awk '/^@@MMT-FILE 02-litmus.json@@$/ { on = 1; next } /^@@MMT-END@@$/ { on = 0 } on' "$scratch/out" |
	base64 -d >"$scratch/back.json" 2>/dev/null && "$MMT_VALIDATE" "$scratch/back.json" &&
	[ "$(get "$scratch/back.json" runs.0.variant)" = SB+mbs/kernel ]
ok $? "each results file comes back in the log (base64 between markers), valid"

# --- --assume-forbidden: the forbidden witness must fail ----------------------------
printf 'msgpass --variant broken-publish-first --iterations 20000 --events none\n' >"$scratch/inj"
lava "$scratch/inj" -- --assume-forbidden
[ "$rc" -eq 1 ] && grep -q '^case msgpass\.broken-publish-first\.same-node\.0 --result fail ' "$STUB_LOG" &&
	has "case msgpass.exit-code --result fail --measurement 1 --units exit"
ok $? "--assume-forbidden: the witness fails its case and the exit-code case (1), run-suite exits 1 (rc $rc)"

# --- every status mapped, from a stand-in for mmtorture-result --cases ---------------
cat >"$scratch/cases" <<'EOF'
#!/bin/sh
cat <<'END'
msgpass mb same-node 0 ok 0 0 100 messages ok pass
msgpass broken-x same-node 0 ok 1 0 100 messages missed fail
msgpass broken-y same-node 0 ok 1 7 100 messages caught pass
msgpass mb same-node 1 witnessed 0 3 100 messages witnessed fail
msgpass mb same-node 2 error 0 -1 -1 messages error fail
msgpass mb same-node 3 hung 0 -1 -1 messages hung fail
msgpass mb same-node 4 interrupted 0 0 100 messages interrupted fail
msgpass mb cross-node 0 skipped 0 -1 -1 messages skipped skip
msgpass mb same-node 5 inconclusive 0 0 100 messages inconclusive skip
msgpass mb same-node 6 newstatus 0 0 100 messages newstatus
END
EOF
chmod +x "$scratch/cases"
tool="$scratch/cases" lava "$scratch/one"
tool=
has "case msgpass.mb.same-node.0 --result pass --measurement 100 --units messages/s" &&
	has "case msgpass.broken-x.same-node.0 --result fail --measurement 100 --units messages/s" &&
	has "case msgpass.broken-y.same-node.0 --result pass --measurement 100 --units messages/s" &&
	has "case msgpass.mb.same-node.1 --result fail --measurement 100 --units messages/s" &&
	has "case msgpass.mb.same-node.2 --result fail" && has "case msgpass.mb.same-node.3 --result fail" &&
	has "case msgpass.mb.same-node.4 --result fail --measurement 100 --units messages/s" &&
	has "case msgpass.mb.cross-node.0 --result skip" &&
	has "case msgpass.mb.same-node.5 --result skip --measurement 100 --units messages/s" &&
	has "case msgpass.mb.same-node.6 --result fail --measurement 100 --units messages/s" && [ "$rc" -eq 1 ]
ok $? "each case takes the result --cases gives it (the verdict table's); a line without one fails"

# --- ARGS replace the line's own use of an option (the harness refuses one given
# twice): the line's --duration 50ms and --events none give way to ARGS' -----------
lava "$scratch/one" -- --duration 120ms --events=none
f=$(ls "$scratch"/res/*-msgpass.json 2>/dev/null | head -n 1)
[ "$rc" -eq 0 ] && has "case msgpass.exit-code --result pass --measurement 0 --units exit" && [ -n "$f" ] &&
	[ "$(get "$f" runs.0.integrity.requested_ns)" = 120000000 ] &&
	grep -q "run-suite: msgpass: .* msgpass --variant mb --duration 120ms --events=none --output" "$scratch/out"
ok $? "ARGS --duration 120ms replaces the line's --duration 50ms (rc $rc: $(grep 'run-suite: msgpass:' "$scratch/out" | head -n 1))"

# --- a line that hangs is stopped at the bound and fails ----------------------------
printf '#!/bin/sh\nexec sleep 300\n' >"$scratch/hang"
chmod +x "$scratch/hang"
bin="$scratch/hang" lava "$scratch/one" --timeout 2
bin=
[ "$rc" -eq 1 ] && grep -q '^case msgpass\.exit-code --result fail --measurement 143 --units exit$' "$STUB_LOG" &&
	grep -q 'still running after 2s: stopped, a hang' "$scratch/out" && has "set stop"
ok $? "a hung line: stopped at --timeout, its exit-code case fails, the set is closed (rc $rc)"


# --- the job templates, rendered by lava/make-job ----------------------------------
# LAVA's python3 modules live in Debian's python3, which need not be $MMT_PYTHON3.
lava_py=
for p in "${MMT_PYTHON3:-python3}" /usr/bin/python3; do
	"$p" -c 'import lava_common.schemas, yaml' 2>/dev/null && { lava_py=$p; break; }
done
for t in "$MMT_SRCDIR"/lava/jobs/*.yaml; do
	name=${t##*/}
	"$MMT_SRCDIR/lava/make-job" "$t" --kernel-url http://lab.invalid/vmlinuz \
		--ramdisk-url http://lab.invalid/initramfs.cpio.gz --suite lab --args --assume-forbidden \
		>"$scratch/$name" 2>"$scratch/err"
	rc=$?
	# The definition inlined whole (its run step), every @FIELD@ filled.
	[ "$rc" -eq 0 ] && grep -q 'lava/run-suite" --suite "\$SUITE"' "$scratch/$name" &&
		! grep -v '^#' "$scratch/$name" | grep -v 'mmtorture@example' | grep -q '@[A-Z_]*@'
	ok $? "$name: rendered, lava/mmtorture.yaml inlined, no field left (rc $rc: $(cat "$scratch/err"))"
	if [ -n "$lava_py" ]; then
		# LAVA's own job schema (lava-dispatcher's lava_common) as the server
		# checks a submission: not strict, which 2023.01's inline definitions
		# need for their "parameters" (the strict schema has the key commented out).
		"$lava_py" -c "import sys, yaml; from lava_common.schemas import validate
validate(yaml.safe_load(open(sys.argv[1])), strict=False)" "$scratch/$name" 2>"$scratch/err"
		ok $? "$name: valid for LAVA's job schema ($(tail -n 1 "$scratch/err"))"
	else
		skip "$name: LAVA's job schema not installed (lava-dispatcher's python3 lava_common)"
	fi
done
"$MMT_SRCDIR/lava/make-job" "$MMT_SRCDIR/lava/jobs/qemu-x86_64.yaml" --ramdisk-url http://x/i >/dev/null 2>"$scratch/err"
[ $? -eq 2 ] && grep -q 'needs --kernel-url' "$scratch/err"
ok $? "make-job without the kernel URL the template needs: exit 2"
"$MMT_SRCDIR/lava/make-job" "$MMT_SRCDIR/lava/jobs/qemu-x86_64.yaml" --kernel-url http://x/k \
	--ramdisk-url http://x/i --args 'a"b' >/dev/null 2>"$scratch/err"
[ $? -eq 2 ]
ok $? "make-job with a quote in --args: exit 2"

done_testing
