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
# A CPU or node the machine does not have is a mistake in the command:
# tests/cli-errors.sh (exit 2, nothing written), not a skip.

if [ "$nnodes" -lt 2 ] && [ "$ncpus" -ge 2 ]; then
	run msgpass --variant mb --placement same-node --placement cross-node --duration 50ms --output "$scratch/m.json"
	[ "$rc" -eq 0 ] && runs "$scratch/m.json" | grep -q ' ok ' && runs "$scratch/m.json" | grep -q ' skipped '
	ok $? "one placement runs and one is skipped: exit 0, both recorded"
fi

# same-l3: distinct cores under one L3 from the metadata's own groups, or
# a skip that names the L3 where no group has two cores.
run msgpass --variant mb --placement same-l3 --duration 50ms --output "$scratch/l3.json"
"${MMT_PYTHON3:-python3}" - "$scratch/l3.json" "$rc" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
rc = int(sys.argv[2])
groups = doc["metadata"]["topology"]["l3_groups"]
run = doc["runs"][0]
if rc == 0:
    cpus = run["cpus"]
    ok = run["status"] == "ok" and len(set(cpus)) == 2 and any(set(cpus) <= set(g) for g in groups)
else:
    ok = rc == 77 and run["status"] == "skipped" and "L3" in run["reason"]
print("# rc %d, l3_groups %s, run %s %s" % (rc, groups, run["status"], run.get("cpus") or run["reason"]))
sys.exit(0 if ok else 1)
PY
ok $? "same-l3 runs inside one of the metadata's L3 groups, or skips naming the L3"

# A scenario's declared needs (struct mmt_needs): mmrace needs
# CONFIG_MIGRATION; a kernel config that leaves it out skips it, saying
# which option and which file, in the run and in --dry-run alike.
printf '# CONFIG_MIGRATION is not set\nCONFIG_NUMA=y\n' > "$scratch/config"
MMT_KERNEL_CONFIG="$scratch/config"
export MMT_KERNEL_CONFIG
skipped "needs CONFIG_MIGRATION, which this kernel's config ($scratch/config) does not set" \
	mmrace --variant broken-early-epoch --duration 50ms
out=$("$MMT_BIN" mmrace --variant race --dry-run 2>&1)
printf '%s\n' "$out" | grep -q "skipped: needs CONFIG_MIGRATION"
ok $? "--dry-run says the same ($out)"
unset MMT_KERNEL_CONFIG

done_testing
