#!/usr/bin/env python3
"""Ring and seqcount benchmark, per placement.

From one interleaved run per scenario: SPSC items/s of the fast hand-rolled
ring next to a naive acquire/release ring and liburcu's wfcqueue, and
seqcount reads/s next to RCU and a rwlock, with ratios to the hand-rolled
baseline.

On a VM the host moves the vCPUs between SMT siblings, cores of one L3 and
different dies, and absolute rates follow tenfold.  So every figure is
given per placement, never pooled: each run's rate at each placement comes
from its in-run placement split (results: placement_track.by_placement),
placements are the one-way latencies that lie within 1.5x of each other,
and a ratio is taken only between two runs of the same repeat at the same
placement, then the median over repeats.  A placement seen by fewer than
--min-pairs repeats is reported but gets no median.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time

TOP = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
sys.path.insert(0, os.path.join(TOP, "analysis", "lib"))
import mmt_results as R  # noqa: E402  (every results file read through the schema check)
from placement import RATIO, class_of, classes, same_placement  # noqa: E402
MIN_SHARE = 0.2      # a placement's slice of a run must be this long to count

BENCHES = [
    # scenario, baseline, others, what, extra options
    ("ring", "cached", ["naive", "urcu-wfcq"], "SPSC items/s, 8-byte items, 4096 slots", []),
    ("seqcount", "kernel", ["urcu-rcu", "rwlock"], "reads/s, 1 reader, a write every 1000 ns", []),
]


def run_scenario(args, scenario, variants, extra, out):
    cmd = [os.path.join(TOP, "run-scenario"), scenario, "--variant", ",".join(variants),
           "--placement", args.placement, "--repeat", str(args.repeat),
           "--duration", args.duration, "--events", "none", "--output", out] + extra
    rc = subprocess.call(cmd, stdout=subprocess.DEVNULL)
    if rc not in (0, 77):
        sys.exit("bench-ring: %s exited %d" % (" ".join(cmd), rc))


def slices(run):
    """(one_way_ns, ops/s) for each placement the run sat at long enough;
    the probe's when the run has no in-run split."""
    track = run.get("placement_track")
    if track and track.get("by_placement"):
        out = []
        for c in track["by_placement"]:
            if c["elapsed_ns"] >= MIN_SHARE * (run["elapsed_ns"] or 1):
                out.append((c["one_way_ns"], c["ops_per_sec"]))
        return out
    probe = run.get("probe") or {}
    if probe.get("stable") and probe.get("before"):
        return [(probe["before"][0]["one_way_ns"], run["ops_per_sec"])]
    return []


def moved(run):
    t = run.get("placement_track") or {}
    p = run.get("probe") or {}
    return bool(t.get("moved")) or not p.get("stable", True), bool(t.get("moved")) and p.get("stable", False)


def load(path):
    try:
        doc = R.load(path)
        doc["runs"], doc["metadata"]["command_line"]
        return doc
    except (R.ResultsError, KeyError, TypeError) as e:
        print("bench-ring: %s: not a readable results document (%s)" % (path, e), file=sys.stderr)
        sys.exit(2)


def report(doc, scenario, base, others, what, args):
    runs = [r for r in doc["runs"] if r["status"] in ("ok", "witnessed")]
    argv = doc["metadata"]["command_line"]
    repeats = 1 + max((r["repeat"] for r in doc["runs"]), default=0)
    duration = argv[argv.index("--duration") + 1] if "--duration" in argv else "1s"
    placement = argv[argv.index("--placement") + 1] if "--placement" in argv else "same-node"
    print("%s: %s, %s, %d x %s" % (scenario, what, placement, repeats, duration))
    if not runs:
        print("  no runs (all skipped)\n")
        return
    rate = {}   # (repeat, variant) -> [(one_way, ops/s)]
    for r in runs:
        rate[(r["repeat"], r["variant"])] = slices(r)
    groups = classes([ow for v in rate.values() for ow, _ in v])
    variants = [base] + others
    head = "%-18s %6s" % ("placement", "slices") + "".join(" %14s" % (v + " M/s") for v in variants)
    head += "".join(" %20s" % (base + "/" + o) for o in others)
    print(head)
    for gi, g in enumerate(groups):
        cells, nruns = [], 0
        for v in variants:
            vals = [s for (rep, var), sl in rate.items() if var == v
                    for ow, s in sl if class_of(groups, ow) == gi]
            nruns += len(vals)
            cells.append(" %14s" % ("%.2f" % (statistics.median(vals) / 1e6) if vals else "-"))
        for o in others:
            pairs = []
            for rep in range(repeats):
                a = [s for ow, s in rate.get((rep, base), []) if class_of(groups, ow) == gi]
                b = [s for ow, s in rate.get((rep, o), []) if class_of(groups, ow) == gi]
                if a and b and b[0] > 0:
                    pairs.append(a[0] / b[0])
            if len(pairs) >= args.min_pairs:
                cells.append(" %20s" % ("%.2fx (%d)" % (statistics.median(pairs), len(pairs))))
            else:
                cells.append(" %20s" % ("%d pair%s, no median" % (len(pairs), "" if len(pairs) == 1 else "s")))
        print("%-18s %6d" % ("~%.0f ns one-way" % statistics.median(g), nruns) + "".join(cells))
    m = [moved(r) for r in runs]
    print("runs that moved mid-run: %d of %d (%d seen only by the in-run samples, the probes missed them)"
          % (sum(a for a, _ in m), len(runs), sum(b for _, b in m)))
    print()


COST_RUNS = [("ring", "cached", []), ("ring", "cached", ["--batch", "1"]),
             ("seqcount", "kernel", []), ("msgpass", "release-acquire", [])]


def probe_one_way(run):
    p = run.get("probe") or {}
    t = run.get("placement_track") or {}
    if not p.get("stable") or t.get("moved") or not p.get("before"):
        return None
    return p["before"][0]["one_way_ns"]


def tracking_cost(args, results):
    """Each setting alternately with in-run tracking on and off (separate
    processes, MMT_TRACK_INTERVAL_MS=0), on/off ratio of adjacent runs
    whose probes put them at the same placement."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    os.makedirs(results, exist_ok=True)
    pairs, share = {}, {}
    for rep in range(args.repeat):
        for i, (scenario, variant, extra) in enumerate(COST_RUNS):
            got = []
            for on in (rep % 2 == 0, rep % 2 != 0):   # alternate which goes first
                path = os.path.join(results, "bench-cost-%s-%d-%d-%s.json" % (stamp, rep, i, "on" if on else "off"))
                env = dict(os.environ)
                env["MMT_TRACK_INTERVAL_MS"] = "10" if on else "0"
                cmd = [os.path.join(TOP, "run-scenario"), scenario, "--variant", variant, "--placement",
                       args.placement, "--duration", args.duration, "--events", "none", "--output", path] + extra
                if subprocess.call(cmd, stdout=subprocess.DEVNULL, env=env) not in (0, 77):
                    sys.exit("bench-ring: %s failed" % " ".join(cmd))
                r = load(path)["runs"][0]
                got.append((on, probe_one_way(r), r["ops_per_sec"]))
                t = r.get("placement_track")
                if on and t and r["elapsed_ns"]:
                    share.setdefault(i, []).append((t["sampling_ns"] / r["elapsed_ns"],
                                                    t["join_wait_ns"] / r["elapsed_ns"],
                                                    (t["session_ns_median"] or 0) / t["interval_ns"]))
            (_, ow_a, rate_a), (_, ow_b, rate_b) = sorted(got, reverse=True)   # on first
            if same_placement(ow_a, ow_b) and rate_b:
                pairs.setdefault(i, []).append(((ow_a + ow_b) / 2, rate_a / rate_b))
    print("in-run tracking cost: ops/s with tracking (every 10 ms) / without, adjacent runs at the same"
          " placement (stable probes, no in-run move), %s, %d x %s" % (args.placement, args.repeat, args.duration))
    print("%-34s %-18s %6s %10s %14s" % ("setting", "placement", "pairs", "median", "range"))
    for i, (scenario, variant, extra) in enumerate(COST_RUNS):
        got = pairs.get(i, [])
        groups = classes([ow for ow, _ in got])
        for g in groups:
            q = [x for ow, x in got if class_of(groups, ow) == groups.index(g)]
            print("%-34s %-18s %6d %9.3fx %6.3f-%.3fx" % (" ".join([scenario, variant] + extra),
                  "~%.0f ns one-way" % statistics.median(g), len(q), statistics.median(q), min(q), max(q)))
        if not got:
            print("%-34s %-18s %6d" % (" ".join([scenario, variant] + extra), "-", 0))
    print("\nshare of the run spent sampling: wall time in sessions (median, max; of which waiting for"
          " the follower to reach a poll: on a loaded machine mostly waiting for it to be scheduled),"
          " and the median session / the interval (what sampling costs when nothing is preempted)")
    print("%-34s %6s %10s %10s %12s %14s" % ("setting", "runs", "median", "max", "join median", "unpreempted"))
    for i, (scenario, variant, extra) in enumerate(COST_RUNS):
        v = share.get(i, [])
        if v:
            print("%-34s %6d %9.3f%% %9.3f%% %11.3f%% %13.3f%%" % (" ".join([scenario, variant] + extra), len(v),
                  100 * statistics.median(a for a, _, _ in v), 100 * max(a for a, _, _ in v),
                  100 * statistics.median(b for _, b, _ in v), 100 * statistics.median(c for _, _, c in v)))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=5, help="repeats, variants interleaved in each (default 5)")
    ap.add_argument("--duration", default="1s", help="per run (default 1s)")
    ap.add_argument("--placement", default="same-node", help="as run-scenario's (default same-node)")
    ap.add_argument("--batch", type=int, help="ring --batch (default the scenario's, 32)")
    ap.add_argument("--min-pairs", type=int, default=2,
                    help="repeats that must share a placement for a median ratio (default 2)")
    ap.add_argument("--from", dest="from_files", nargs=2, metavar=("RING_JSON", "SEQCOUNT_JSON"),
                    help="report on existing results instead of running")
    ap.add_argument("--tracking-cost", action="store_true",
                    help="instead: what in-run placement tracking costs, on/off per placement")
    args = ap.parse_args()
    if args.repeat < 1 or args.min_pairs < 1:
        ap.error("--repeat and --min-pairs must be at least 1")
    results = os.environ.get("MMT_RESULTS_DIR", os.path.join(TOP, "results"))
    if args.tracking_cost:
        tracking_cost(args, results)
        return
    stamp = time.strftime("%Y%m%d-%H%M%S")
    paths = []
    for i, (scenario, base, others, what, extra) in enumerate(BENCHES):
        if args.from_files:
            paths.append(args.from_files[i])
            continue
        if scenario == "ring" and args.batch:
            extra = extra + ["--batch", str(args.batch)]
        os.makedirs(results, exist_ok=True)
        path = os.path.join(results, "bench-%s-%s.json" % (scenario, stamp))
        run_scenario(args, scenario, [base] + others, extra, path)
        paths.append(path)
    docs = [load(p) for p in paths]
    for doc, (scenario, base, others, what, _) in zip(docs, BENCHES):
        if scenario == "ring" and args.batch:
            what = what + ", batch %d" % args.batch
        report(doc, scenario, base, others, what, args)
    print("placements: one-way latencies within %.1fx of each other; slices: a run counts once at every"
          " placement it spent %d%% or more of its time at (its in-run split); (N): repeats whose two"
          " runs shared that placement" % (RATIO, MIN_SHARE * 100))
    print("results: " + " ".join(paths))


if __name__ == "__main__":
    main()
