#!/bin/sh
# numascan: bad input is exit 2 with nothing written; broken-rewind (the
# writers' checker, no NUMA needed) reports exactly the stores it set
# back, one lost write a round; the hunter and its control skip with the
# reason where the machine lacks what they need (root, two memory nodes,
# NUMA balancing's knobs), and where it has them neither loses a write on
# this kernel.  The proof against the real bug is the mutant kernel's
# (tlb_flush_pending, scripts/mutant-proof --hunter scan-fault).
. "${MMT_SRCDIR:-.}/tests/lib.sh"

need_cpus 2 "numascan"

for bad in "--cold-pages 0" "--variant scan-faul" "--cold-pages 262145"; do
	# shellcheck disable=SC2086
	run numascan $bad --output "$scratch/bad.json"
	[ "$rc" -eq 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] && [ ! -e "$scratch/bad.json" ] &&
		[ -z "$(ls -A "$MMT_RESULTS_DIR" 2>/dev/null)" ]
	ok $? "numascan $bad: exit 2, one line, nothing written ($err)"
done

# The checker: 3 runs of 20 rounds, each round one word set back.
f="$scratch/rewind.json"
run numascan --variant broken-rewind --threads 2 --iterations 20 --repeat 3 --output "$f"
for i in 0 1 2; do
	[ "$(get "$f" runs.$i.status)" = ok ] && [ "$(get "$f" runs.$i.verdict)" = "caught (injected fault)" ] &&
		[ "$(get "$f" runs.$i.metrics.rounds)" -eq 20 ] &&
		[ "$(get "$f" runs.$i.metrics.injected_rewinds)" -eq 20 ] &&
		[ "$(get "$f" runs.$i.metrics.lost_writes)" -eq 20 ] && [ "$(get "$f" runs.$i.metrics.stores_lost)" -eq 20 ] &&
		[ "$(get "$f" runs.$i.metrics.first_lost.0.round)" -eq 1 ]
	ok $? "broken-rewind run $i: 20 rounds, 20 set back, 20 lost writes reported, 20 stores ($(get "$f" runs.$i.status): $(get "$f" runs.$i.metrics.lost_writes) lost)"
done

# The hunter and its control: skipped with the reason, or run.
f="$scratch/hunt.json"
run numascan --variant scan-fault,no-scan --duration 2s --output "$f"
printf '%s\n' "$out" | sed 's/^/# /'
for i in 0 1; do
	v=$(get "$f" runs.$i.variant)
	status=$(get "$f" runs.$i.status)
	if [ "$status" = skipped ]; then
		reason=$(get "$f" runs.$i.reason)
		if [ "$(id -u)" -ne 0 ]; then
			printf '%s' "$reason" | grep -q '^needs root'
		else
			printf '%s' "$reason" | grep -q '^needs \(two NUMA nodes\|three workers\|NUMA balancing\|mm->numa_scan_seq\|move_pages\)'
		fi
		ok $? "$v skipped here with its reason: $reason"
		continue
	fi
	[ "$(get "$f" runs.$i.metrics.lost_writes)" -eq 0 ] && [ "$status" != error ] &&
		{ [ "$v" = scan-fault ] || [ "$(get "$f" runs.$i.metrics.rounds_raced)" -eq 0 ]; }
	ok $? "$v: no write lost on this kernel, status $status ($(get "$f" runs.$i.reason))"
done
done_testing
