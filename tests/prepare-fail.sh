#!/bin/sh
# cleanup() follows a prepare() that failed (harness/scenario.h): with the
# test hook MMT_TEST_PREPARE_FAIL=1 the runner takes each prepare() that
# succeeded as failed, and under valgrind every scenario's run must end in
# that error having lost no heap block and left open no descriptor it
# opened.  A prepare() that stopped part-way leaves less than a whole one;
# unit-descriptor checks the least (run->priv NULL).  Mappings and sysctls
# valgrind does not count: cleanup() undoes them beside what it does count.
. "${MMT_SRCDIR:-.}/tests/lib.sh"

# A bad value is refused before anything runs.
MMT_TEST_PREPARE_FAIL=yes run msgpass --variant mb --duration 50ms --events none --output "$scratch/bad.json"
[ "$rc" -eq 2 ] && [ "$err" = "mmtorture: MMT_TEST_PREPARE_FAIL 'yes' is not 0 or 1" ] && ! [ -e "$scratch/bad.json" ]
ok $? "MMT_TEST_PREPARE_FAIL=yes: exit $rc, one line, nothing written ($err)"

if ! command -v valgrind >/dev/null 2>&1; then
	skip "no valgrind: the runs after a failed prepare() are not checked for leaks"
	done_testing
	exit
fi
need_cpus 2 "two-worker scenario runs"

# One variant per scenario, the one whose prepare() holds the most: mmrace
# race (the migrator process, sysctls, /dev/kmsg), race-compaction (the
# filler and its pipes), broken-stale-mapping (two memfds); ring's urcu
# queues and ck buffer; madvise nested-free's page-flag descriptors;
# numascan scan-fault's shared control page, region and scan-count file; the
# other hunters' and softdirty's shadow or alias.
cases="barrier-cost:mb litmus:2+2W/kernel madvise:nested-free mmrace:race mmrace:race-compaction
mmrace:broken-stale-mapping mremap:broken-stale msgpass:mb numascan:scan-fault pmdshare:shared-punch ring:urcu-wfcq ring:ck-spsc
seqcount:urcu-rcu softdirty:broken-untracked"
missing=""
for sc in $(scenarios); do
	case " $(echo $cases) " in *" $sc:"*) ;; *) missing="$missing $sc" ;; esac
done
[ -z "$missing" ]
ok $? "every scenario has a case here (missing:${missing:- none})"

# No config: a need it declares is not known unmet, so every run reaches
# prepare() (softdirty's CONFIG_MEM_SOFT_DIRTY, off on many kernels).
MMT_KERNEL_CONFIG="$scratch/no-config"
MMT_TEST_PREPARE_FAIL=1
export MMT_KERNEL_CONFIG MMT_TEST_PREPARE_FAIL
for c in $cases; do
	sc=${c%%:*}
	v=${c#*:}
	log="$scratch/vg.log"
	# --fair-sched: the probe's threads spin on each other, a minute
	# each under valgrind's default lock, a second with it.  The
	# migrator process's exit is not this run's, and without
	# --run-libc-freeres=no it flushes the results file's buffer it
	# was forked with into the file a second time.
	timeout -k 10 300 valgrind -q --fair-sched=yes --child-silent-after-fork=yes --run-libc-freeres=no \
		--leak-check=full --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect \
		--error-exitcode=99 --track-fds=yes --log-file="$log" \
		"$MMT_BIN" "$sc" --variant "$v" --duration 50ms --events none --output "$scratch/r.json" \
		>"$scratch/out" 2>"$scratch/err"
	rc=$?
	if [ "$rc" -eq 77 ]; then
		skip "$sc $v: skipped before prepare(): $(grep -- "$sc $v" "$scratch/out" | head -1)"
		continue
	fi
	reason=$(get "$scratch/r.json" runs.0.reason 2>&1)
	[ "$reason" = "$sc: prepare failed (MMT_TEST_PREPARE_FAIL)" ]
	ok $? "$sc $v: the run is the hook's error ($reason)"
	# Exit 99: valgrind's, for a block lost or a bad free or read.
	[ "$rc" -eq 3 ]
	ok $? "$sc $v: exit $rc, no heap block lost, nothing freed twice$([ "$rc" -eq 3 ] ||
		printf ': %s' "$(grep -m1 -E 'lost in loss record|Invalid|Mismatched' "$log" | tr -s ' ')")"
	# Each open descriptor's next line says where it came from.
	opened=$(awk '/Open file descriptor/ { d = $0; sub(/^==[0-9]*== /, "", d); next }
		d && !/<inherited from parent>/ { print d } { d = "" }' "$log" | head -4 | tr '\n' ' ')
	grep -q 'FILE DESCRIPTORS: ' "$log" && [ -z "$opened" ]
	ok $? "$sc $v: every descriptor it opened is closed${opened:+: $opened}"
done

done_testing
