#!/bin/sh
# --events end to end: software events count real work during a scenario,
# hardware events that cannot be opened are reported unsupported and the
# run goes on; bad event names are bad input; --events list works.
. "${MMT_SRCDIR:-.}/tests/lib.sh"

run --events list
[ "$rc" -eq 0 ] && printf '%s' "$out" | grep -q 'task-clock  *available'
ok $? "--events list shows what is available"

need_cpus 2 "a scenario run"
f="$scratch/c.json"
run msgpass --variant mb --duration 100ms --events task-clock,context-switches,cycles --output "$f"
[ "$rc" -eq 0 ] && printf '%s' "$out" | grep -q '^counters'
ok $? "a run with --events exits 0 and prints its counters"
[ "$(get "$f" runs.0.counters.events.0.status)" = ok ] &&
	[ "$(get "$f" runs.0.counters.events.0.value | cut -d. -f1)" -gt 1000000 ]
ok $? "task-clock counted the workers' time ($(get "$f" runs.0.counters.events.0.value) ns)"
st=$(get "$f" runs.0.counters.events.2.status)
if [ "$st" = ok ]; then
	[ "$(get "$f" runs.0.counters.events.2.value | cut -d. -f1)" -gt 0 ]
	ok $? "cycles counted on this machine's PMU"
else
	[ "$st" = unsupported ] && [ "$(get "$f" runs.0.counters.events.2.value)" = null ] &&
		get "$f" runs.0.counters.events.2.reason | grep -q .
	ok $? "cycles unsupported here, with the reason, and no number"
fi

run msgpass --variant mb --duration 50ms --output "$scratch/d.json"
[ "$rc" -eq 0 ] && get "$scratch/d.json" runs.0.counters.events | grep -q task-clock
ok $? "the default event set is recorded without --events"
run msgpass --variant mb --duration 50ms --events none --output "$scratch/n.json"
[ "$rc" -eq 0 ] && [ "$(get "$scratch/n.json" runs.0.counters)" = null ]
ok $? "--events none records no counters"

# Ordering clears: litmus and msgpass count them by default; on a PMU
# without one (or a VM without a PMU) they are unsupported with the reason,
# and the table puts the checker's witnesses beside them.
run litmus --test SB --primitives kernel --duration 200ms --output "$scratch/l.json"
ord=$("$MMT_VALIDATE" "$scratch/l.json" --get runs.0.counters.events | grep -o '"role": *"ordering"' | wc -l)
[ "$rc" -eq 0 ] && [ "$ord" -eq 1 ]
ok $? "litmus counts one ordering event by default (rc $rc)"
run litmus --test SB --primitives kernel --duration 200ms --events ordering,task-clock --output "$scratch/o.json"
st=$(get "$scratch/o.json" runs.0.counters.events.0.status)
w=$(get "$scratch/o.json" runs.0.witnesses.count)
if [ "$st" = ok ]; then
	[ "$(get "$scratch/o.json" runs.0.counters.derived.ordering_per_op)" != null ]
	ok $? "ordering clears counted: $(get "$scratch/o.json" runs.0.counters.events.0.name) per op $(get "$scratch/o.json" runs.0.counters.derived.ordering_per_op), witnesses $w"
else
	[ "$st" = unsupported ] && [ "$(get "$scratch/o.json" runs.0.counters.derived.ordering_per_op)" = null ] &&
		get "$scratch/o.json" runs.0.counters.events.0.reason | grep -q 'memory-ordering\|not supported'
	ok $? "ordering clears unsupported here, with the reason: $(get "$scratch/o.json" runs.0.counters.events.0.reason | cut -c1-80)"
fi
printf '%s' "$out" | grep -q "witnesses (escaped, beside the clears) *$(printf '%s' "$w" | cut -c1-1)"
ok $? "the table shows the checker's witnesses beside the clears"
LIBPFM_FORCE_PMU=skl run msgpass --variant mb --duration 50ms --events ordering --output "$scratch/skl.json"
[ "$rc" -eq 0 ] && [ "$(get "$scratch/skl.json" runs.0.counters.events.0.name)" = MACHINE_CLEARS:MEMORY_ORDERING ] &&
	[ "$(get "$scratch/skl.json" runs.0.counters.events.0.encoding.pmu)" = skl ]
ok $? "on a Skylake PMU (libpfm4 forced) ordering is MACHINE_CLEARS:MEMORY_ORDERING ($(get "$scratch/skl.json" runs.0.counters.events.0.status))"

if [ "$(id -u)" -eq 0 ]; then
	mounted_before=$(grep -c tracefs /proc/mounts)
	run msgpass --variant mb --duration 100ms --events tlb:tlb_flush --output "$scratch/t.json"
	[ "$rc" -eq 0 ] && [ "$(get "$scratch/t.json" runs.0.counters.events.0.status)" = ok ] &&
		[ "$(get "$scratch/t.json" runs.0.counters.events.0.scope)" = system ]
	ok $? "tlb:tlb_flush counted system-wide as root"
	[ "$(grep -c tracefs /proc/mounts)" -eq "$mounted_before" ]
	ok $? "no tracefs mount left behind"
else
	skip "system-wide tracepoints need root"
	skip "system-wide tracepoints need root"
fi

done_testing
