#!/bin/sh
# The litmus engine: on this machine's architecture, SB (store buffering)
# is seen with every primitive set, SB+mbs and the MP family never; a
# deliberately wrong expectation is caught (exit 1); the generator rejects
# what it cannot compile with the construct and the line.
. "${MMT_SRCDIR:-.}/tests/lib.sh"

gen() { awk -f "$MMT_SRCDIR/scripts/litmus2c.awk" "$@"; }

gen "$MMT_SRCDIR/tests/fixtures/SB+locks.litmus" >"$scratch/g.h"
grep -q '\.unsupported = "line 7: parameter .spinlock_t \*s.: only int \* locations are supported"' "$scratch/g.h"
ok $? "generator: a lock parameter is rejected with its line ($(grep -o 'unsupported = "[^"]*"' "$scratch/g.h"))"
gen "$MMT_SRCDIR/tests/fixtures/MP+xchg.litmus" >"$scratch/g.h"
grep -q '\.unsupported = "line 8: xchg() is not supported' "$scratch/g.h"
ok $? "generator: xchg is rejected with its line ($(grep -o 'unsupported = "[^"]*"' "$scratch/g.h"))"
gen "$MMT_SRCDIR"/scenarios/litmus/*.litmus >"$scratch/g.h"
! grep -q '\.unsupported' "$scratch/g.h"
ok $? "generator: every shipped test compiles"

run litmus --test NoSuchTest
[ "$rc" -eq 2 ] && printf '%s' "$err" | grep -q "unknown test 'NoSuchTest'"
ok $? "unknown test: exit 2 ($err)"
run msgpass --test SB
[ "$rc" -eq 2 ]
ok $? "--test on a scenario without litmus tests: exit 2 ($err)"

need_cpus 2 "a litmus run"
arch=$(uname -m)
# Reliable run lengths: SB is seen in well over 1% of tsc-aligned
# iterations here; 300 ms is a million of them.
for prims in kernel kernel-mfence urcu c11; do
	f="$scratch/sb-$prims.json"
	run litmus --test SB,SB+mbs,MP,MP+wmb+rmb,MP+poreleaseacquire --primitives "$prims" --sync 2 \
		--duration 300ms --output "$f"
	[ "$rc" -eq 0 ]
	ok $? "$prims: SB, SB+mbs and the MP family run, exit 0"
	line=$(runs "$f" | awk '$2 ~ /^SB\//')
	set -- $line
	[ "$4" = ok ] && [ "$5" -gt 0 ] && grep -q '"verdict": "allowed, seen"' "$f"
	ok $? "$prims: SB's store buffering is seen ($5 witnesses)"
	if [ "$arch" = x86_64 ]; then
		for t in SB+mbs MP MP+wmb+rmb MP+poreleaseacquire; do
			line=$(runs "$f" | awk -v t="$t/$prims" '$2 == t')
			set -- $line
			[ "$4" = ok ] && [ "$5" -eq 0 ] && [ "$6" -gt 100000 ]
			ok $? "$prims: $t never seen on x86-64 ($6 iterations)"
		done
	fi
done
grep -q '"observation": "Observation SB Sometimes [0-9]* [0-9]*"' "$scratch/sb-kernel.json"
ok $? "litmus7-style Observation line recorded"
get "$scratch/sb-kernel.json" runs.1.metrics.not_seen_rate_below_95 | grep -Eq '^[0-9.e-]+$'
ok $? "not seen: the 95% upper bound on the rate is given"

run litmus --test SB --primitives kernel --sync 2 --duration 300ms --assume-forbidden --output "$scratch/wrong.json"
[ "$rc" -eq 1 ] && printf '%s' "$out" | grep -q 'FORBIDDEN AND SEEN'
ok $? "a wrong expectation (SB forbidden) is caught: exit 1, FORBIDDEN AND SEEN"

run litmus --test SB --primitives kernel --sync 3 --duration 300ms --output "$scratch/rot.json"
[ "$rc" -eq 0 ] && get "$scratch/rot.json" runs.0.metrics.by_sync | grep -q '"none"' &&
	get "$scratch/rot.json" runs.0.metrics.by_sync | grep -q '"tsc"'
ok $? "--sync 3: witnesses counted per sync mode"

done_testing
