#!/bin/sh
# pmdshare: bad input is exit 2 with nothing written; on this kernel (the
# fix of a4a118f2eead is in every kernel since 5.15) shared-punch and its control
# read nothing stale: shared-punch ok with held rounds or INCONCLUSIVE saying no
# round held, the control ok with none shared; broken-stale reports
# exactly the reads it injected; the default runs end by their own rule;
# vm.nr_hugepages is what it was.  The proof against the real bug is the
# mutant kernel's (pmd_unshare_flush).
. "${MMT_SRCDIR:-.}/tests/lib.sh"

need_cpus 2 "pmdshare"

# Bad input: one line on stderr, exit 2, nothing written.
for bad in "--target-held x" "--variant punh" "--threads 3"; do
	# shellcheck disable=SC2086
	run pmdshare $bad --output "$scratch/bad.json"
	[ "$rc" -eq 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] && [ ! -e "$scratch/bad.json" ] &&
		[ -z "$(ls -A "$MMT_RESULTS_DIR" 2>/dev/null)" ]
	ok $? "pmdshare $bad: exit 2, one line, nothing written ($err)"
done

# On a mutant kernel with pmd_unshare_flush on, punch must find the bug:
# that is tests/mutant.sh's to prove, not this test's.
sw=/sys/module/mmt_mutant/parameters/pmd_unshare_flush
mutant_on=0
case $(cat "$sw" 2>/dev/null) in Y | 1) mutant_on=1 ;; esac

# A hunter's run on a kernel with the fix: ok with held rounds where a user
# TLB entry outlives another address's flush; else INCONCLUSIVE, saying
# why (no round held or moved, the machine cannot keep the entry, a wait
# that gave up).  Every round shared.
hunter_ok() {
	_f=$1 _i=$2
	_status=$(get "$_f" runs.$_i.status) _held=$(get "$_f" runs.$_i.metrics.rounds_held)
	_why=$(get "$_f" runs.$_i.reason)
	[ "$(get "$_f" runs.$_i.metrics.rounds_shared)" -eq "$(get "$_f" runs.$_i.metrics.rounds)" ] || return 1
	case $_status in
	ok) [ "$_held" -gt 0 ] && [ "$(get "$_f" runs.$_i.metrics.user_tlb)" = kept ] ;;
	inconclusive)
		case $_why in
		"no round held"* | "no round moved"*) [ "$_held" -eq 0 ] ;;
		*"cannot keep the TLB entry"*) [ "$(get "$_f" runs.$_i.metrics.user_tlb)" != kept ] ;;
		*"gave up waiting"* | *"waited more than"*) true ;;
		*) false ;;
		esac ;;
	*) false ;;
	esac
}

# Whether run I of F was stalled past a bound (a loaded machine): nothing
# of it to judge.
stalled() {
	[ "$(get "$1" runs.$2.status)" = invalid ] ||
		get "$1" runs.$2.reason | grep -q "gave up waiting\|waited more than"
}

# Whether run I of F read nothing stale on this kernel: HUNTER's run by
# hunter_ok, the control's by the command that follows (its evidence), and
# rounds made.  Returns 2, having said why, where there is nothing to judge:
# HUNTER on a mutant kernel with its switch on (MUTANT_ON 1: tests/mutant.sh
# proves it), or a run stalled past its bound.
judged_clean() {
	_f=$1 _i=$2 _hunter=$3 _mutant_on=$4 _switch=$5
	shift 5
	_v=$(get "$_f" runs.$_i.variant)
	if [ "$_mutant_on" -eq 1 ] && [ "$_v" = "$_hunter" ]; then
		skip "$_v on a mutant kernel with $_switch on: tests/mutant.sh's"
		return 2
	fi
	if stalled "$_f" $_i; then
		skip "$_v was stalled past its bound ($(get "$_f" runs.$_i.reason)): nothing to judge"
		return 2
	fi
	if [ "$_v" = "$_hunter" ]; then
		hunter_ok "$_f" $_i
	else
		"$@"
	fi &&
		[ "$(get "$_f" runs.$_i.metrics.stale_reads)" -eq 0 ] && [ "$(get "$_f" runs.$_i.witnesses.count)" -eq 0 ] &&
		[ "$(get "$_f" runs.$_i.metrics.rounds)" -gt 0 ]
}

huge_before=$(cat /proc/sys/vm/nr_hugepages 2>/dev/null)
f="$scratch/race.json"
run_sysctls "$f" pmdshare --variant shared-punch,unshared-punch --duration 2s
printf '%s\n' "$out" | sed 's/^/# /'
if [ "$(get "$f" runs.0.status)" = skipped ]; then
	skip "pmdshare skipped here: $(get "$f" runs.0.reason)"
	done_testing
	exit
fi
[ "$(cat /proc/sys/vm/nr_hugepages 2>/dev/null)" = "$huge_before" ]
ok $? "vm.nr_hugepages is back at $huge_before after runs that added $(get "$f" runs.0.metrics.huge_pages_added) huge pages"
for i in 0 1; do
	v=$(get "$f" runs.$i.variant)
	status=$(get "$f" runs.$i.status)
	shared=$(get "$f" runs.$i.metrics.rounds_shared)
	held=$(get "$f" runs.$i.metrics.rounds_held)
	rounds=$(get "$f" runs.$i.metrics.rounds)
	# 2 MiB off a 1 GiB boundary the kernel cannot share the table.
	judged_clean "$f" $i shared-punch "$mutant_on" pmd_unshare_flush test "$status/$shared" = ok/0
	r=$?
	[ $r -eq 2 ] && continue
	ok $r "$v: no stale read on this kernel in $(get "$f" runs.$i.metrics.reads_judged) reads judged, status $status agreeing with $shared shared and $held held rounds of $rounds ($(get "$f" runs.$i.reason))"
	row=$(printf '%s\n' "$out" | grep "^pmdshare  *$v ")
	case $status/$shared/$held in ok/0/*) words="none shared: kept;" ;; ok/*) words="held: kept;" ;; */0) words="no round held;" ;; *) words= ;; esac
	if [ -z "$words" ]; then
		skip "$v: an INCONCLUSIVE run with held rounds ($(get "$f" runs.$i.reason)) has no words of its own"
	else
		printf '%s' "$row" | grep -q "$words"
		ok $? "$v: the table's row says '$words' for a $status run"
	fi
done

# The migrate variants: on one node they are skipped with the reason; on
# two they must read nothing stale, as the punch variants.
# Nodes with memory (a memoryless node cannot hold the moved page).
nodes=0
for m in /sys/devices/system/node/node[0-9]*/meminfo; do
	[ -r "$m" ] && [ "$(awk '/MemTotal/ { print $4; exit }' "$m")" -gt 0 ] && nodes=$((nodes + 1))
done
sw=/sys/module/mmt_mutant/parameters/migrate_pmd_unshare
migrate_mutant_on=0
case $(cat "$sw" 2>/dev/null) in Y | 1) migrate_mutant_on=1 ;; esac
f="$scratch/migrate.json"
run pmdshare --variant shared-migrate,unshared-migrate --duration 2s --output "$f"
printf '%s\n' "$out" | sed 's/^/# /'
for i in 0 1; do
	v=$(get "$f" runs.$i.variant)
	status=$(get "$f" runs.$i.status)
	if [ "$status" = skipped ] && [ "$nodes" -ge 2 ]; then
		skip "$v skipped on $nodes nodes: $(get "$f" runs.$i.reason)"
		continue
	elif [ "$status" = skipped ]; then
		get "$f" runs.$i.reason | grep -q "needs two NUMA nodes with memory (this machine has $nodes)"
		ok $? "$v on $nodes node(s) with memory: skipped, saying why ($(get "$f" runs.$i.reason))"
		continue
	fi
	shared=$(get "$f" runs.$i.metrics.rounds_shared)
	moved=$(get "$f" runs.$i.metrics.rounds_moved)
	held=$(get "$f" runs.$i.metrics.rounds_held)
	rounds=$(get "$f" runs.$i.metrics.rounds)
	# The control's pages must move, none shared.
	judged_clean "$f" $i shared-migrate "$migrate_mutant_on" migrate_pmd_unshare \
		test "$status/$shared" = ok/0 -a "${moved:-0}" -gt 0
	r=$?
	[ $r -eq 2 ] && continue
	ok $r "$v: no stale read on this kernel in $(get "$f" runs.$i.metrics.reads_judged) reads judged, status $status agreeing with $shared shared, $moved moved, $held held of $rounds rounds ($(get "$f" runs.$i.reason))"
done

# The injected fault, exactly: every read after the punch made from the
# reader's own page (the file's old value) is one stale_read, nothing else.
for i in 1 2 3; do
	f="$scratch/inject-$i.json"
	run pmdshare --variant broken-stale --iterations 20 --output "$f"
	if stalled "$f" 0; then
		skip "broken-stale run $i was stalled past its bound ($(get "$f" runs.0.reason)): nothing to judge"
		continue
	fi
	injected=$(get "$f" runs.0.metrics.injected_stale_reads)
	stale=$(get "$f" runs.0.witnesses.histogram.stale_read)
	[ "$rc" -eq 0 ] && [ "$(get "$f" runs.0.verdict)" = "caught (injected fault)" ] && [ "$injected" -gt 0 ] &&
		[ "$stale" -eq "$injected" ] && [ "$(get "$f" runs.0.witnesses.count)" -eq "$stale" ] &&
		[ "$(get "$f" runs.0.metrics.rounds)" -eq 20 ]
	ok $? "broken-stale run $i: each of the $injected reads from the reader's own page reported stale ($stale), nothing else"
done
get "$scratch/inject-1.json" runs.0.metrics.first_stale | grep -q '"round":1,"reads":64,"file_value":"0x5b00000000000001","found":"0x5b00000000000001"'
ok $? "a stale read names its round, how many, the file's value and the value read"

# Without --duration: the hunter until 64 rounds held, the control 64
# rounds, injection 50.
f="$scratch/default.json"
run pmdshare --variant shared-punch,unshared-punch,broken-stale --output "$f"
held=$(get "$f" runs.0.metrics.rounds_held)
if [ "$mutant_on" -eq 1 ]; then
	skip "shared-punch without --duration on a mutant kernel with pmd_unshare_flush on: tests/mutant.sh's"
elif stalled "$f" 0 || [ "$(get "$f" runs.0.metrics.user_tlb)" != kept ]; then
	skip "shared-punch without --duration: $(get "$f" runs.0.reason)"
elif [ "$(get "$f" runs.0.metrics.ended_by)" = duration ] && [ "${held:-0}" -lt 64 ]; then
	skip "shared-punch without --duration: only $held rounds held in the 2-minute bound here"
else
	[ "$(get "$f" runs.0.metrics.ended_by)" = "rounds held" ] && [ "$held" -ge 64 ] &&
		[ "$(get "$f" runs.0.status)" = ok ]
	ok $? "shared-punch without --duration: ends at 64 rounds held, conclusive ($held held in $(get "$f" runs.0.elapsed_ns) ns)"
fi
for i in 1 2; do
	v=$(get "$f" runs.$i.variant)
	want=64
	[ "$v" = broken-stale ] && want=50
	if stalled "$f" $i; then
		skip "$v without --duration was stalled past its bound ($(get "$f" runs.$i.reason))"
		continue
	fi
	[ "$(get "$f" runs.$i.metrics.ended_by)" = rounds ] && [ "$(get "$f" runs.$i.metrics.rounds)" -eq $want ] &&
		[ "$(get "$f" runs.$i.status)" = ok ]
	ok $? "$v without --duration: ends after $want rounds, ok ($(get "$f" runs.$i.metrics.rounds))"
done
[ "$(cat /proc/sys/vm/nr_hugepages 2>/dev/null)" = "$huge_before" ]
ok $? "vm.nr_hugepages is back at $huge_before"

done_testing
