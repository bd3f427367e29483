#!/bin/sh
# What the machine cannot do is skipped with its reason (exit 77 when
# every run is skipped), never run somewhere else silently.
. "${MMT_SRCDIR:-.}/tests/lib.sh"

skipped() {  # skipped NEEDLE ARGS...
	needle=$1
	shift
	run "$@" --output "$scratch/s.json"
	[ "$rc" -eq 77 ] && printf '%s' "$out" | grep -q -- "$needle" &&
		runs "$scratch/s.json" | grep -q ' skipped '
	ok $? "skip, exit 77, reason shown and recorded: $* ($(printf '%s' "$out" | grep -- "$needle" | head -1))"
}

if [ "$nnodes" -lt 2 ]; then
	skipped "cross-node needs 2 NUMA nodes" msgpass --variant mb --placement cross-node --duration 50ms
else
	run msgpass --variant mb --placement cross-node --duration 50ms --output "$scratch/x.json"
	[ "$rc" -eq 0 ]
	ok $? "cross-node runs on this $nnodes-node machine"
fi
if ! grep -q , /sys/devices/system/cpu/cpu0/topology/thread_siblings_list 2>/dev/null &&
	! grep -q - /sys/devices/system/cpu/cpu0/topology/thread_siblings_list 2>/dev/null; then
	skipped "no SMT" msgpass --variant mb --placement same-core --duration 50ms
else
	skip "this machine has SMT: same-core is satisfiable"
fi
skipped "never more spinning threads than CPUs" msgpass --variant mb --placement spread --threads $((ncpus + 1)) --duration 50ms
skipped "CPU 4095 is not online" msgpass --variant mb --placement cpus:0,4095 --duration 50ms
skipped "--mem-node 63: no such node" msgpass --variant mb --mem-node 63 --duration 50ms

if [ "$nnodes" -lt 2 ] && [ "$ncpus" -ge 2 ]; then
	run msgpass --variant mb --placement same-node --placement cross-node --duration 50ms --output "$scratch/m.json"
	[ "$rc" -eq 0 ] && runs "$scratch/m.json" | grep -q ' ok ' && runs "$scratch/m.json" | grep -q ' skipped '
	ok $? "one placement runs and one is skipped: exit 0, both recorded"
fi

done_testing
