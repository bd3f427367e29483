#!/bin/sh
# Mutant kernels: bad --mutant input is refused before anything runs; the
# mutant kernel, when cached (scripts/mutant-kernel builds it), proves
# mmrace against the real bug of 20841405940e as a user runs it: lost
# writes with the switch on, none and conclusive with it off, for the plain
# command and the smoke suite's line; none in the migrate-after-walk
# control; all in one boot (scripts/mutant-proof; the full proof, 10 runs a
# side and the smoke and lab suites, is `scripts/check --mutants`).
. "${MMT_SRCDIR:-.}/tests/lib.sh"

# The switches are the kernel's (enumerated from /sys, as a kernel built
# elsewhere names them), kernel/mutants.tsv says what the known ones
# revert: a fake /sys under MMT_SYSCTL_ROOT (sysctl.h's test hook).
fake="$scratch/fake"
params="$fake/sys/module/mmt_mutant/parameters"
mkdir -p "$params" "$fake/run"
for f in tlb_flush_pending other_bug; do echo N >"$params/$f"; echo 0 >"$params/${f}_hits"; done
echo 0 >"$params/tlb_flush_pending_window"
echo 2 >"$params/patch_version"
if [ "$(id -u)" -eq 0 ]; then
	MMT_SYSCTL_ROOT=$fake run mmrace --variant race --mutant no_such_bug --duration 100ms --output "$scratch/x.json"
	[ "$rc" -eq 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] &&
		printf '%s' "$err" | grep -q "this kernel has no switch 'no_such_bug' (its switches: other_bug, tlb_flush_pending)" &&
		[ ! -e "$scratch/x.json" ]
	ok $? "a switch this kernel lacks: one line naming the kernel's, exit 2, nothing written ($err)"
	MMT_SYSCTL_ROOT=$fake run mmrace --variant broken-early-epoch --mutant other_bug=on,tlb_flush_pending=off \
		--duration 200ms --output "$scratch/fake.json"
	"$MMT_PYTHON3" - "$scratch/fake.json" "$params" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))["runs"][0]
sw = run["metrics"]["mutant"]["switches"]
assert set(sw) == {"other_bug", "tlb_flush_pending"}, sw
assert sw["other_bug"]["on"] and sw["other_bug"]["reverts"] is None, sw
assert not sw["tlb_flush_pending"]["on"] and sw["tlb_flush_pending"]["reverts"] == "20841405940e", sw
assert open(sys.argv[2] + "/other_bug").read().strip() == "N", "not put back"
PY
	ok $? "a switch the table does not know is set like a known one, recorded with no revert, and put back (rc $rc)"
	# The window counter read is the one of the switch whose row names the
	# variant (hunter or control): no switch name is typed into mmrace.
	MMT_SYSCTL_ROOT=$fake run mmrace --variant migrate-after-walk --duration 200ms --output "$scratch/ctl.json"
	[ "$(get "$scratch/ctl.json" runs.0.metrics.kernel_window_during_migrations)" = 0 ] &&
		[ "$(get "$scratch/fake.json" runs.0.metrics.kernel_window_during_migrations)" = null ]
	ok $? "the control reads its row's switch's window counter; a variant no row names reads none"
else
	skip "setting switches needs root"
fi
MMT_SYSCTL_ROOT=$scratch/none run mmrace --variant race --mutant no_such_bug --duration 100ms --output "$scratch/x.json"
# every switch of the table, once each, in its order
switches=$(tail -n +2 "$MMT_SRCDIR/kernel/mutants.tsv" | cut -f1 | awk '!seen[$0]++' | paste -sd, - | sed 's/,/, /g')
[ "$rc" -eq 2 ] && printf '%s' "$err" | grep -qF "this kernel has no mutant switches" &&
	printf '%s' "$err" | grep -qF "(kernel/mutants.tsv: $switches)"
ok $? "no mutant kernel: exit 2, naming the table's switches ($err)"
run mmrace --variant race --mutant tlb_flush_pending=maybe --duration 100ms --output "$scratch/x.json"
[ "$rc" -eq 2 ] && printf '%s' "$err" | grep -q "must be on or off" && [ ! -e "$scratch/x.json" ]
ok $? "a switch value other than on/off: exit 2 ($err)"
run mmrace --variant race --mutant tlb_flush_pending, --duration 100ms --output "$scratch/x.json"
[ "$rc" -eq 2 ] && printf '%s' "$err" | grep -q "empty item"
ok $? "an empty item: exit 2 ($err)"
if [ ! -d /sys/module/mmt_mutant ]; then
	run mmrace --variant race --mutant tlb_flush_pending --duration 100ms --output "$scratch/x.json"
	[ "$rc" -eq 2 ] && printf '%s' "$err" | grep -q "this kernel has no mutant switches" && [ ! -e "$scratch/x.json" ]
	ok $? "a switch set on a kernel without the patch: exit 2, nothing run ($err)"
else
	skip "this kernel is a mutant: the no-patch refusal is checked on ordinary kernels"
fi

# The table is the one source: its rows against the catalogue, the config
# fragment and the patches; and the check can fail (a row whose hunter
# does not hunt what the row reverts, a switch without a row).
"$MMT_BIN" --list --format json >"$scratch/cat.json"
"$MMT_PYTHON3" "$MMT_SRCDIR/tests/mutants-table.py" "$MMT_SRCDIR/kernel/mutants.tsv" "$MMT_SRCDIR/kernel" \
	"$scratch/cat.json" >"$scratch/table" 2>&1
ok $? "kernel/mutants.tsv agrees with the catalogue, the config and the patches: $(tail -1 "$scratch/table")"
mkdir -p "$scratch/k/patches"
cp "$MMT_SRCDIR/kernel/config.fragment" "$scratch/k/"
cp "$MMT_SRCDIR"/kernel/patches/*.patch "$scratch/k/patches/"
sed 's/^+MMT_MUTANT(tlb_flush_pending);/+MMT_MUTANT(tlb_flush_pending);\n+MMT_MUTANT(rowless);/' \
	"$MMT_SRCDIR/kernel/patches/0002-mmt-mutant-tlb-flush-pending.patch" >"$scratch/k/patches/0002-mmt-mutant-tlb-flush-pending.patch"
sed 's/	20841405940e	/	0123456789ab	/' "$MMT_SRCDIR/kernel/mutants.tsv" >"$scratch/k/mutants.tsv"
"$MMT_PYTHON3" "$MMT_SRCDIR/tests/mutants-table.py" "$scratch/k/mutants.tsv" "$scratch/k" "$scratch/cat.json" \
	>"$scratch/table" 2>&1
[ $? -eq 1 ] && grep -q "mmrace race hunts '20841405940e" "$scratch/table" &&
	grep -q "MMT_MUTANT(rowless) in 0002-mmt-mutant-tlb-flush-pending.patch has no row" "$scratch/table"
ok $? "... and a row that disagrees, or a switch without a row, is named: $(head -2 "$scratch/table" | tr '\n' ';')"
{ cat "$MMT_SRCDIR/kernel/mutants.tsv"; sed -n 2p "$MMT_SRCDIR/kernel/mutants.tsv"; } >"$scratch/k/mutants.tsv"
cp "$MMT_SRCDIR"/kernel/patches/*.patch "$scratch/k/patches/"
"$MMT_PYTHON3" "$MMT_SRCDIR/tests/mutants-table.py" "$scratch/k/mutants.tsv" "$scratch/k" "$scratch/cat.json" \
	>"$scratch/table" 2>&1
[ $? -eq 1 ] && grep -q "a second row with the same hunter" "$scratch/table"
ok $? "... and so is a switch's second row with a hunter it already has (a switch has a row per hunter)"

out=$("$MMT_SRCDIR/scripts/mutant-kernel" --bogus 2>&1)
[ $? -eq 2 ] && printf '%s' "$out" | grep -q "unknown argument '--bogus'"
ok $? "scripts/mutant-kernel: an unknown argument is exit 2"
"$MMT_SRCDIR/scripts/mutant-kernel" --list | grep -q '^tlb_flush_pending .*20841405940e'
ok $? "scripts/mutant-kernel --list names the switch and the commit it reverts"
out=$("$MMT_SRCDIR/scripts/mutant-proof" --runs 2 --need 3 2>&1)
[ $? -eq 2 ] && printf '%s' "$out" | grep -q "more than --runs"
ok $? "scripts/mutant-proof: --need above --runs is exit 2"
out=$("$MMT_SRCDIR/scripts/mutant-proof" --mutant no_such_row 2>&1)
[ $? -eq 2 ] && printf '%s' "$out" | grep -q "no such row in kernel/mutants.tsv"
ok $? "scripts/mutant-proof --mutant: a row the table lacks is exit 2"
out=$("$MMT_SRCDIR/scripts/mutant-proof" --suite-arms sideways 2>&1)
[ $? -eq 2 ] && printf '%s' "$out" | grep -q "suite-arms: 'sideways' is not on, off or on,off"
ok $? "scripts/mutant-proof --suite-arms: a setting other than on and off is exit 2"
# The suite line's control with the switch ON (the compactor and NUMA
# balancing beside it, the bug's other protector): a loss counts only with
# flushes the kernel skipped in that run; OFF, none at all.
"$MMT_PYTHON3" - "$MMT_SRCDIR" <<'PY'
import importlib.util, sys
sys.path.insert(0, sys.argv[1] + "/analysis/lib")
spec = importlib.util.spec_from_file_location("mp", sys.argv[1] + "/ops/mutant-proof.py")
mp = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mp)
mut = {"name": "sw", "finding": "lost_write", "hunter": ["mmrace", "race"], "control": ["mmrace", "migrate-after-walk"]}
def run(v, lost, skipped, injected=False):
    return {"variant": v, "injected": injected, "status": "witnessed" if lost and not injected else "ok",
            "witnesses": {"histogram": {"lost_write": lost}},
            "metrics": {"kernel_window_during_migrations": 2, "mutant": {"switches": {"sw": {"hits": skipped}}}}}
def held(arm, rc, race, ctl):
    return mp.suite_row("smoke", arm, rc, [{"runs": [race, ctl, run("broken-stale-mapping", 12800, 0, True)]}], mut)["held"]
assert held("on", 1, run("race", 736, 156), run("migrate-after-walk", 64, 375))
assert not held("on", 1, run("race", 736, 156), run("migrate-after-walk", 64, 0))
assert not held("off", 0, run("race", 0, 0), run("migrate-after-walk", 64, 375))
assert held("off", 0, run("race", 0, 0), run("migrate-after-walk", 0, 0))
PY
ok $? "mutant-proof, a suite line's control: a loss with the switch ON only where the kernel skipped flushes in the run; OFF, none"
# mmrace's premise at the finding: judged only in runs whose timestamps
# placed a move inside a walk; a SKIP (None) where none did, never a pass.
"$MMT_PYTHON3" - "$MMT_SRCDIR" <<'PY'
import importlib.util, sys
sys.dont_write_bytecode = True
sys.path.insert(0, sys.argv[1] + "/analysis/lib")
spec = importlib.util.spec_from_file_location("mp", sys.argv[1] + "/ops/mutant-proof.py")
mp = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mp)
f = mp.premise_at_finding
assert f([{"in_window": 0, "raced_first": 0}]) is None and f([]) is None
assert f([{"in_window": 5, "raced_first": 0}]) is False
assert f([{"in_window": 5, "raced_first": 1}, {"in_window": 0, "raced_first": 0}]) is True
raced, unraced = {"in_window": 5, "raced_first": 1}, {"in_window": 5, "raced_first": 0}
assert f([raced] * 19 + [unraced]) is True and f([raced] * 8 + [unraced] * 2) is False
PY
ok $? "mutant-proof, mmrace's premise at the finding: FAIL where a move was placed in a walk and none raced (or 2 in 10 such), SKIP where no move was placed"

image=$("$MMT_SRCDIR/scripts/mutant-kernel" --cached 2>"$scratch/why")
if [ -z "$image" ]; then
	skip "$(cat "$scratch/why")"
elif ! command -v qemu-system-x86_64 >/dev/null 2>&1; then
	skip "qemu-system-x86_64 not installed (apt-get install qemu-system-x86)"
elif [ "$(id -u)" -ne 0 ]; then
	skip "the mutant proof needs root (the guest's harness is static, but numa-vm's build is root's)"
else
	# The short version: the user's plain command once a side, the smoke
	# suite's line of each with the switch ON (OFF, the plain command's run
	# shows the hunter finds nothing, and the ON line's control and
	# injected faults the rest; the line's OFF run is the full proof's),
	# the control once (through --mutant, so the option is run too) and no
	# --mutant arm (--runs 0: they repeat what the plain command proves):
	# about 60 s of guest time idle, 6 minutes beside stress-ng --cpu 4,
	# scripts/check's longest test.  2000 s is above the guest's own bound
	# (every run at its bound), which ends a stuck guest first, with its table.
	# One boot, of the race and clear-refs rows (one guest profile): the
	# other rows (race-compaction, minutes a run under TCG; madvise's,
	# mremap's and pmdshare's, another minute and a half each, past the 3
	# minutes of guest time make check has) are proven by
	# scripts/check --mutants.
	timeout -k 10 2000 "$MMT_SRCDIR/scripts/mutant-proof" --hunter race,clear-refs --user-runs 1 --suites smoke --suite-arms on --runs 0 --control-runs 1 \
		--duration 8s --json "$scratch/proof.json" >"$scratch/proof.txt" 2>&1
	prc=$?
	sed 's/^/# /' "$scratch/proof.txt"
	[ "$prc" -eq 0 ]
	ok $? "mutant kernel, one boot: plain run-scenario mmrace and softdirty and the smoke suite's lines find (lost, untracked writes) with the switches ON, the plain command nothing and conclusive with them OFF; the controls, switch ON through --mutant, find nothing (scripts/mutant-proof)"
	# The same boot checked that --mutant holds for every run of an
	# invocation and is put back after it: its line of the proof's checks.
	grep -q '^PASS: --mutant tlb_flush_pending=on: on for both runs of a --repeat 2 invocation, off after it' "$scratch/proof.txt"
	ok $? "--mutant: the switch is on for every run of the invocation, and off after it (the proof's boot)"
fi
done_testing
