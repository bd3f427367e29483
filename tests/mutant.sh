#!/bin/sh
# Mutant kernels: bad --mutant input is refused before anything runs; the
# mutant kernel, when cached (scripts/mutant-kernel builds it), proves
# mmrace against the real bug of 20841405940e as a user runs it: lost
# writes with the switch on, none and conclusive with it off, for the plain
# command and the smoke suite's line; none in the migrate-after-walk
# control; all in one boot (scripts/mutant-proof; the full proof, 10 runs a
# side and the smoke and lab suites, is `scripts/check --mutants`).
. "${MMT_SRCDIR:-.}/tests/lib.sh"

run mmrace --variant race --mutant no_such_bug --duration 100ms --output "$scratch/x.json"
[ "$rc" -eq 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] && printf '%s' "$err" | grep -q "unknown mutant 'no_such_bug' (known: tlb_flush_pending)" &&
	[ ! -e "$scratch/x.json" ]
ok $? "an unknown mutant: one line, exit 2, nothing written ($err)"
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

out=$("$MMT_SRCDIR/scripts/mutant-kernel" --bogus 2>&1)
[ $? -eq 2 ] && printf '%s' "$out" | grep -q "unknown argument '--bogus'"
ok $? "scripts/mutant-kernel: an unknown argument is exit 2"
"$MMT_SRCDIR/scripts/mutant-kernel" --list | grep -q '^tlb_flush_pending .*20841405940e'
ok $? "scripts/mutant-kernel --list names the switch and the commit it reverts"
out=$("$MMT_SRCDIR/scripts/mutant-proof" --runs 2 --need 3 2>&1)
[ $? -eq 2 ] && printf '%s' "$out" | grep -q "more than --runs"
ok $? "scripts/mutant-proof: --need above --runs is exit 2"

image=$("$MMT_SRCDIR/scripts/mutant-kernel" --cached 2>"$scratch/why")
if [ -z "$image" ]; then
	skip "$(cat "$scratch/why")"
elif ! command -v qemu-system-x86_64 >/dev/null 2>&1; then
	skip "qemu-system-x86_64 not installed (apt-get install qemu-system-x86)"
elif [ "$(id -u)" -ne 0 ]; then
	skip "the mutant proof needs root (the guest's harness is static, but numa-vm's build is root's)"
else
	# The short version: the user's plain command twice a side, the smoke
	# suite's mmrace line a side, two runs of each --mutant arm (one must hold: a 4 s run beside stress-ng once raced nothing): about 2
	# minutes of guest time.  2000 s is above the guest's own bound (every
	# run at its bound), which ends a stuck guest first, with its table.
	timeout -k 10 2000 "$MMT_SRCDIR/scripts/mutant-proof" --user-runs 2 --suites smoke --runs 2 --need 1 --control-runs 1 \
		--duration 8s --json "$scratch/proof.json" >"$scratch/proof.txt" 2>&1
	prc=$?
	sed 's/^/# /' "$scratch/proof.txt"
	[ "$prc" -eq 0 ]
	ok $? "mutant kernel, one boot: plain run-scenario mmrace and the smoke suite's line lose writes with the switch ON, none and conclusive with it OFF; the --mutant arms and the control agree (scripts/mutant-proof)"
	# The same boot checked that --mutant holds for every run of an
	# invocation and is put back after it: its line of the proof's checks.
	grep -q '^PASS: --mutant tlb_flush_pending=on: on for both runs of a --repeat 2 invocation, off after it' "$scratch/proof.txt"
	ok $? "--mutant: the switch is on for every run of the invocation, and off after it (the proof's boot)"
fi
done_testing
