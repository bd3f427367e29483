#!/bin/sh
# One prepared pass over a machine's real PMU, for a session that is lent
# the 16-core x86 box (issue 15, item 5): what it can count, cycles,
# instructions, cache-misses and memory-ordering clears for msgpass, ring
# and litmus SB, and forced multiplexing checked against a pinned copy.
# Every results file is kept; a summary is printed.  About 2 minutes.
#
#   scripts/pmu-survey [--out DIR] [--duration D] [--placement P]
#
#   --out DIR        where the JSON and the summary go (default: $OUT when
#                    set, else results/pmu-survey-<time>)
#   --duration D     per run (default 1s)
#   --placement P    run-scenario placement (default same-node; repeat
#                    the option for several)
#
# Exit 0 when every step ran (whatever it found), 2 on bad input, 3 when a
# step could not run.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib/build-dirs.sh"
out= duration=1s placements=
usage() { sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
	case $1 in
	--out) [ $# -ge 2 ] || { echo "pmu-survey: --out needs a directory" >&2; exit 2; }; out=$2; shift 2 ;;
	--duration) [ $# -ge 2 ] || { echo "pmu-survey: --duration needs a value" >&2; exit 2; }; duration=$2; shift 2 ;;
	--placement) [ $# -ge 2 ] || { echo "pmu-survey: --placement needs a value" >&2; exit 2; }
		placements="$placements --placement $2"; shift 2 ;;
	-h|--help) usage; exit 0 ;;
	*) echo "pmu-survey: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
done
[ -n "$placements" ] || placements="--placement same-node"
[ -n "$out" ] || out=${OUT:-$top/results/pmu-survey-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out"
rs="$top/run-scenario"
"$rs" --version >"$out/version.txt" || exit 3
summary="$out/summary.txt"
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }

# Steps that find a forbidden witness still produce their JSON: exit 1 is
# a finding, anything above is a step that did not run.
step() {  # step NAME ARGS...: one run-scenario invocation, JSON kept
	name=$1
	shift
	set +e
	# shellcheck disable=SC2086 # $placements is a list of options
	timeout -k 10 300 "$rs" "$@" $placements --duration "$duration" --output "$out/$name.json" \
		>"$out/$name.txt" 2>&1
	rc=$?
	set -e
	say "$name: exit $rc"
	[ "$rc" -le 1 ] || [ "$rc" -eq 77 ] || { tail -n 5 "$out/$name.txt" | tee -a "$summary"; return 1; }
}

{
	uname -a
	grep -m1 'model name' /proc/cpuinfo || true
	echo "perf_event_paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo '?')"
	ls /sys/bus/event_source/devices 2>/dev/null | tr '\n' ' '
	echo
} >"$out/machine.txt"
cat "$out/machine.txt" | tee -a "$summary"
"$(mmt_build_dir "$top")/mmtorture" --events list >"$out/events-list.txt" 2>&1 || true
grep -E '^  (cycles|instructions|cache-misses|ordering) ' "$out/events-list.txt" | tee -a "$summary" || true

failed=0
ev=cycles,instructions,cache-misses,ordering,task-clock
step msgpass msgpass --variant mb,mb-fence,release-acquire,plain --events "$ev" || failed=1
step ring ring --variant cached,naive,mb --events "$ev" || failed=1
step litmus-sb litmus --test SB,SB+mbs --primitives kernel,c11 --events "$ev" || failed=1
# Forced multiplexing: 12 copies of cycles on at most 8 general counters,
# beside one pinned copy that is never multiplexed.
mux="cycles:pinned=1"
for i in 1 2 3 4 5 6 7 8 9 10 11 12; do mux="$mux,cycles"; done
step multiplex msgpass --variant mb --events "$mux,task-clock" || failed=1

# What was found, from the JSON: per run the counters per op, IPC, the
# ordering clears beside the witnesses; the multiplexed copies against the
# pinned one.
python3 - "$out" <<'PY' | tee -a "$summary" || failed=1
import json, os, sys
d = sys.argv[1]
for name in ("msgpass", "ring", "litmus-sb", "multiplex"):
    path = os.path.join(d, name + ".json")
    if not os.path.exists(path):
        print(f"{name}: no results")
        continue
    for r in json.load(open(path))["runs"]:
        c = r.get("counters") or {}
        evs = c.get("events", [])
        head = f"{r['scenario']} {r['variant']} {r['placement']}: {r['status']}, ops/s {r.get('ops_per_sec') or 0:.4g}, witnesses {r['witnesses']['count'] if r.get('witnesses') else '-'}"
        print(head)
        if name == "multiplex":
            ok = [e for e in evs if e["name"].startswith("cycles") and e["status"] == "ok"]
            if ok and ok[0]["name"] == "cycles:pinned=1":
                ref = ok[0]["value"]
                dev = [abs(e["value"] / ref - 1) for e in ok[1:]]
                mux = [e for e in ok[1:] if e["scaling"] < 0.999]
                print(f"  pinned cycles {ref:.4g}; {len(mux)} of {len(ok) - 1} copies multiplexed, "
                      f"scaling {min((e['scaling'] for e in mux), default=1):.3f}..{max((e['scaling'] for e in mux), default=1):.3f}; "
                      f"worst scaled deviation {100 * max(dev, default=0):.2f}%")
            else:
                print("  cycles not counted: " + "; ".join(f"{e['name']}: {e.get('reason')}" for e in evs[:1]))
            continue
        for e in evs:
            if e["status"] == "ok":
                print(f"  {e['name']:<34} {e['value']:>14.4g} {e['per_op'] or 0:>12.4g}/op  scaling {e['scaling']:.3f}  via {e['encoding']['via']} {e['encoding']['pmu']}")
            else:
                print(f"  {e['name']:<34} {e['status']}: {e['reason']}")
        der = c.get("derived", {})
        print(f"  IPC {der.get('ipc')}  instructions/op {der.get('instructions_per_op')}  ordering clears/op {der.get('ordering_per_op')}")
# The input that must drive the clears toward 0: SB+mbs fences every load
# behind the store before it, so no load runs early to be snooped.
lit = os.path.join(d, "litmus-sb.json")
if os.path.exists(lit):
    per = {r["variant"]: (r.get("counters") or {}).get("derived", {}).get("ordering_per_op")
           for r in json.load(open(lit))["runs"]}
    print("ordering clears/op: SB/kernel %s vs SB+mbs/kernel %s (the fenced test must be far lower); "
          "SB/c11 %s vs SB+mbs/c11 %s" % (per.get("SB/kernel"), per.get("SB+mbs/kernel"),
                                          per.get("SB/c11"), per.get("SB+mbs/c11")))
PY
say "results: $out"
[ "$failed" -eq 0 ] || exit 3
