#!/bin/sh
# mmrace: the injected faults are reported exactly; the real race on this
# kernel hits the window with zero lost writes (root); a writer on the
# protector's CPU sees no window; root-only actors are skipped with reasons
# when not root; sysctls come back, even after SIGINT.
. "${MMT_SRCDIR:-.}/tests/lib.sh"

need_cpus 2 "mmrace"

for i in 1 2 3; do
	f="$scratch/inject-$i.json"
	run mmrace --variant broken-stale-mapping --duration 600ms --region-mb 16 --output "$f"
	lost=$(get "$f" runs.0.witnesses.histogram.lost_write)
	foreign=$(get "$f" runs.0.witnesses.histogram.foreign_write)
	injected=$(get "$f" runs.0.metrics.injected_stale_stores)
	[ "$rc" -eq 0 ] && [ "$injected" -gt 0 ] && [ "$lost" -eq "$injected" ] && [ "$foreign" -eq "$injected" ] &&
		[ "$(get "$f" runs.0.witnesses.count)" -eq $((lost + foreign)) ]
	ok $? "run $i: every store through the stale mapping reported lost and foreign, nothing else ($lost and $foreign of $injected)"
done
get "$scratch/inject-1.json" runs.0.metrics.first_mismatches | grep -q '"page":[0-9]*,"writer":0,"round":[0-9]*,"expected":"0x01'
ok $? "a lost write names page, writer, round, expected and found"
get "$scratch/inject-1.json" runs.0.metrics.first_mismatches | grep -q '"expected":"0x0000000000000000","found":"0x01'
ok $? "a foreign write names the tag found in another owner's page"

run mmrace --variant broken-early-epoch --duration 500ms --region-mb 16 --output "$scratch/epoch.json"
[ "$rc" -eq 0 ] && [ "$(get "$scratch/epoch.json" runs.0.witnesses.histogram.stale_tlb_write)" -gt 0 ]
ok $? "stale_tlb_write fires when stores complete after \"mprotect returned\" ($(get "$scratch/epoch.json" runs.0.witnesses.histogram.stale_tlb_write))"

if [ "$(id -u)" -ne 0 ]; then
	skip "the real race needs root here (PFNs, compaction, NUMA balancing)"
	done_testing
	exit
fi

nb_before=$(cat /proc/sys/kernel/numa_balancing 2>/dev/null || echo none)
f="$scratch/race.json"
run mmrace --variant race,writer-on-protector-cpu --duration 3s --output "$f"
[ "$rc" -eq 0 ]
ok $? "race and writer-on-protector-cpu: exit 0 ($(printf '%s' "$err" | head -1))"
[ "$(get "$f" runs.0.status)" = ok ] && [ "$(get "$f" runs.0.witnesses.count)" -eq 0 ]
ok $? "race: status ok, zero lost/foreign/stale writes on this kernel"
ov=$(get "$f" runs.0.metrics.overlap_witnesses)
[ "$ov" -gt 0 ] && [ "$(get "$f" runs.0.metrics.migrations_in_window)" -gt 0 ]
ok $? "race: the window was exercised ($ov overlap witnesses, $(get "$f" runs.0.metrics.migrations_in_window) pages migrated in window)"
[ "$(get "$f" runs.0.metrics.pages_moved)" -gt 0 ] && [ "$(get "$f" runs.0.metrics.vmstat_delta.pgmigrate_success)" -gt 0 ]
ok $? "race: pages really moved (PFNs changed; pgmigrate_success rose)"
[ "$(get "$f" runs.0.metrics.compact_calls)" -gt 0 ] && [ "$(get "$f" runs.0.metrics.actors.numa_balancing)" = on ]
ok $? "race: compactor and NUMA balancing ran"
[ "$(get "$f" runs.0.metrics.kernel_health.splat)" = false ]
ok $? "race: no new taint or kernel warning"
tlb=$(get "$f" runs.0.counters.events)
printf '%s' "$tlb" | grep -q '"name":"tlb:tlb_flush","kind":"tracepoint","scope":"system","status":"ok"'
ok $? "race: tlb:tlb_flush counted system-wide"
w_race=$(get "$f" runs.0.metrics.window_writes)
w_same=$(get "$f" runs.1.metrics.window_writes)
[ "$w_race" -gt 0 ] && [ $((w_same * 10)) -lt "$w_race" ]
ok $? "a writer on the protector's CPU sees (almost) no window: $w_same against $w_race"
[ "$(cat /proc/sys/kernel/numa_balancing 2>/dev/null || echo none)" = "$nb_before" ]
ok $? "numa_balancing restored ($nb_before)"

"$MMT_BIN" mmrace --variant race --duration 60s --output "$scratch/int.json" >/dev/null 2>&1 &
pid=$!
n=0
while [ "$(cat /proc/sys/kernel/numa_balancing)" = "$nb_before" ] && [ $n -lt 500 ]; do
	sleep 0.02
	n=$((n + 1))
done
kill -INT "$pid"
wait "$pid"
rc=$?
[ "$rc" -eq 130 ] && [ "$(cat /proc/sys/kernel/numa_balancing)" = "$nb_before" ] &&
	"$MMT_VALIDATE" "$scratch/int.json"
ok $? "SIGINT mid-race: exit 130, numa_balancing restored, results valid"

if command -v setpriv >/dev/null 2>&1; then
	chmod 755 "$scratch"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$MMT_BIN" mmrace --variant race \
		--duration 300ms --region-mb 16 --events none --output - >"$scratch/nr.json" 2>/dev/null
	grep -q '"compactor": {' "$scratch/nr.json" && grep -q 'needs root' "$scratch/nr.json" &&
		grep -q '"status": "inconclusive"' "$scratch/nr.json"
	ok $? "not root: compactor, NUMA balancing and PFNs skipped with reasons, run INCONCLUSIVE not passed"
else
	skip "no setpriv to run as an unprivileged user"
fi

done_testing
