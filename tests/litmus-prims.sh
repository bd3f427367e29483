#!/bin/sh
# The primitives the kernel's catalogue needs, each proven to matter: the
# shipped test that relies on it passes with the real binding and, built
# again with that binding deliberately weakened (litmus-prims.h LK_WEAK_*:
# RMWs as a plain load and store, locks and RCU as nothing, C11 orders
# relaxed, smp_store_mb's fence dropped), shows its forbidden outcome: FORBIDDEN AND SEEN, exit 1.  On x86 only a weakened
# binding can show these outcomes at all, so this is where they are proven.
. "${MMT_SRCDIR:-.}/tests/lib.sh"

builddir=$(dirname "$MMT_BIN")
need_cpus 2 "racing two litmus threads"

# weak FLAG SETS TESTS...: build those tests with the binding weakened, run
# each with each set.
weak() {
	flag=$1 sets=$2
	shift 2
	dir="$scratch/$flag.$tap_n"
	mkdir -p "$dir"
	for t in "$@"; do cp "$MMT_SRCDIR/scenarios/litmus/$t.litmus" "$dir/"; done
	make -s -C "$builddir" litmus-alt LITMUS_ALT="$dir" LITMUS_ALT_CPPFLAGS="-D$flag" >"$dir/make.out" 2>&1
	ok $? "$flag: the weakened build compiles ($(tail -n 1 "$dir/make.out"))"
	tests=$(echo "$@" | tr ' ' ,)
	run litmus --test "$tests" --primitives all --sync 2 --duration 200ms --output "$dir/real.json"
	[ "$rc" -eq 0 ] && ! runs "$dir/real.json" | awk '$5 != 0' | grep -q .
	ok $? "$flag: with the real bindings, $tests never show the forbidden outcome (exit $rc)"
	for t in "$@"; do
		for s in $sets; do
			# A loaded machine can race a while without an overlap: up
			# to 5 tries of 500 ms, the first that shows it counts.
			try=0
			while [ $try -lt 5 ]; do
				try=$((try + 1))
				timeout -k 10 120 "$dir/mmtorture" litmus --test "$t" --primitives "$s" --sync 2 \
					--duration 500ms --output "$dir/w.json" >"$dir/out" 2>&1
				rc=$?
				[ "$rc" -eq 1 ] && break
			done
			w="$(get "$dir/w.json" runs.0.witnesses.count) witnesses, try $try"
			# The premise: both threads running together.  A run whose
			# workers had their CPUs less than 90% of the time (the
			# record's conditions.on_cpu) raced little or not at all.
			oncpu=$(get "$dir/w.json" runs.0.conditions.on_cpu)
			if [ "$rc" -ne 1 ] && awk -v c="$oncpu" 'BEGIN { exit !(c ~ /^[0-9.]+$/ && c + 0 < 0.9) }'; then
				skip "$flag: $t/$s: the workers had their CPUs $oncpu of the time in the last of 5 tries ($w): a loaded machine, no overlap to judge"
				continue
			fi
			[ "$rc" -eq 1 ] && grep -q 'FORBIDDEN AND SEEN' "$dir/out"
			ok $? "$flag: $t/$s with the weakened binding shows its forbidden outcome ($w, exit $rc)"
		done
	done
}

weak LK_WEAK_RMW kernel SB+xchgs SB+cmpxchgs SB+after-atomic LU+atomic-inc LU+dec-and-test LU+sub-and-test LU+inc-and-test
weak LK_WEAK_LOCK "kernel urcu c11" LU+locks SB+locks SB+trylocks IsLocked SB+unlock-lock-after
# smp_mb__after_spinlock() is a no-op only in the kernel set on x86, where
# the lock's xchg is the barrier (urcu and c11 bind it to a full fence).
if [ "$(uname -m)" = x86_64 ]; then
	weak LK_WEAK_LOCK kernel SB+after-spinlock
fi
weak LK_WEAK_RCU "kernel urcu c11" RCU+sync+SB
weak LK_WEAK_SRCU "kernel urcu c11" SRCU+sync+SB SRCU-down-up+sync+SB SB+after-srcu-read-unlock
# herd7's C11 dialect: every memory order relaxed (LK_WEAK_C11) shows the
# seq_cst store-to-load order SB needs, in every set; the RMWs made plain
# (LK_WEAK_RMW) their atomicity and, in the kernel set, whose seq_cst load
# carries no fence on x86 and arm64, the seq_cst RMW's order.  acquire and
# release are free on x86 (TSO): only arm64 can show C11-MP+rel-acq.
weak LK_WEAK_C11 "kernel urcu c11" C11-SB+sc C11-SB+sc-fences C11-SB+sc-fences+herd-orders
weak LK_WEAK_RMW kernel C11-SB+sc-rmws C11-LU+fetch-ops C11-LU+xchg-cas C11-LU+cas-reg
# smp_store_mb(): its fence (LK_WEAK_STORE_MB: the WRITE_ONCE alone)
weak LK_WEAK_STORE_MB "kernel kernel-mfence urcu c11" SB+store-mbs
if [ "$(uname -m)" = aarch64 ]; then
	weak LK_WEAK_C11 "kernel urcu c11" C11-MP+rel-acq
fi

done_testing
