#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""SB witness benchmark, per placement.

Runs the SB litmus test over a set of sync settings, several repeats
interleaved, and reports SB witnesses/s and iterations/s per setting and per
placement (from each run's own probe: SMT siblings, one L3, different dies;
a run whose probe moved during it is counted apart as "moved").  A "best"
setting is named per placement only, never from runs of mixed placements.

With --baseline TREE (another checkout, built), every run is paired with
the same run of TREE's binary, back to back, and the report gives the
median of the per-pair ratios (this tree / baseline) over pairs whose two
runs landed at the same placement.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
sys.path.insert(0, os.path.join(TOP, "analysis", "lib"))
import mmt_results as R  # noqa: E402  (every results file read through the schema check)
# (name, options) -- the default (no options) first: what a user gets.
SETTINGS = [
    ("default", []),	# tsc, period following the measured latency
    ("none", ["--sync", "0"]),
    ("userfence", ["--sync", "1"]),
    ("tsc p=150", ["--sync", "2", "--period", "150"]),
    ("tsc p=300", ["--sync", "2", "--period", "300"]),
    ("tsc p=450", ["--sync", "2", "--period", "450"]),
]
# Placement from the probe's one-way latency (README: ~10 ns SMT siblings,
# ~30 ns one L3, ~100-200 ns different dies on the development VM).
PLACEMENTS = [(20.0, "smt"), (70.0, "one-L3"), (float("inf"), "dies")]


def placement(rec):
    probe = rec.get("probe") or {}
    try:
        a = probe["before"][0]["one_way_ns"]
        b = probe["after"][0]["one_way_ns"]
    except (KeyError, IndexError, TypeError):
        return "unknown"
    if not probe.get("stable"):
        return "moved"
    ns = (a + b) / 2
    return next(name for limit, name in PLACEMENTS if ns < limit)


def run(tree, opts, args, tmp):
    out = os.path.join(tmp, "r.json")
    cmd = [os.path.join(tree, "run-scenario"), "litmus", "--test", "SB", "--primitives", args.primitives,
           "--duration", args.duration, "--events", "none", "--output", out] + opts
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    try:
        rec = R.load(out)["runs"][0]
    except (R.ResultsError, IndexError) as e:
        sys.exit(f"bench-litmus: {' '.join(cmd)}: {e}")
    return {"place": placement(rec), "wps": rec["metrics"]["witnesses_per_sec"], "ips": rec["ops_per_sec"]}


def med(xs):
    return statistics.median(xs) if xs else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3, help="runs per setting (default 3)")
    ap.add_argument("--duration", default="1s", help="per run (default 1s)")
    ap.add_argument("--primitives", default="kernel", help="primitive set (default kernel)")
    ap.add_argument("--baseline", metavar="TREE", help="another built checkout to compare with, run for run")
    ap.add_argument("--settings", help="comma-separated subset of: " + ", ".join(n for n, _ in SETTINGS))
    args = ap.parse_args()
    settings = SETTINGS
    if args.settings:
        want = args.settings.split(",")
        unknown = [w for w in want if w not in dict(SETTINGS)]
        if unknown:
            ap.error("unknown setting '%s'" % unknown[0])
        settings = [s for s in SETTINGS if s[0] in want]
    if args.baseline and not os.access(os.path.join(args.baseline, "run-scenario"), os.X_OK):
        ap.error("--baseline %s: no run-scenario there" % args.baseline)

    # The host is shared: the load beside the figures, at the start and the end.
    print("loadavg at start: %s" % open("/proc/loadavg").read().strip())
    rows = []	# (setting, this run, baseline run or None)
    with tempfile.TemporaryDirectory(prefix="mmt-bench-litmus.") as tmp:
        print("%-12s %3s %-8s %14s %14s%s" % ("setting", "rep", "place", "witnesses/s", "iterations/s",
                                             "   baseline: place witnesses/s iterations/s" if args.baseline else ""))
        for r in range(args.repeat):
            for name, opts in settings:
                base = None
                # Alternate which goes first, so neither always gets the warmer machine.
                if args.baseline and r % 2:
                    base = run(args.baseline, opts, args, tmp)
                cur = run(TOP, opts, args, tmp)
                if args.baseline and not r % 2:
                    base = run(args.baseline, opts, args, tmp)
                rows.append((name, cur, base))
                line = "%-12s %3d %-8s %14.0f %14.0f" % (name, r, cur["place"], cur["wps"], cur["ips"])
                if base:
                    line += "   %-8s %14.0f %14.0f" % (base["place"], base["wps"], base["ips"])
                print(line, flush=True)

    print("loadavg at end: %s" % open("/proc/loadavg").read().strip())
    print("\nmedians per placement%s:" % (" (ratio: median of per-pair this/baseline, same placement)" if args.baseline else ""))
    places = sorted({c["place"] for _, c, _ in rows})
    for place in places:
        best = None
        for name, _ in settings:
            cur = [c for n, c, _ in rows if n == name and c["place"] == place]
            if not cur:
                continue
            wps, ips = med([c["wps"] for c in cur]), med([c["ips"] for c in cur])
            line = "  %-8s %-12s n=%d  %8.2fM witnesses/s  %8.2fM iterations/s" % (place, name, len(cur), wps / 1e6, ips / 1e6)
            pairs = [(c, b) for n, c, b in rows if n == name and b and c["place"] == place and b["place"] == place]
            if args.baseline:
                if pairs:
                    rw = med([c["wps"] / b["wps"] for c, b in pairs if b["wps"] > 0])
                    ri = med([c["ips"] / b["ips"] for c, b in pairs if b["ips"] > 0])
                    line += "   pairs=%d  ratio witnesses/s %.2fx  iterations/s %.2fx" % (len(pairs), rw, ri)
                else:
                    line += "   no pair at this placement"
            print(line)
            if place not in ("moved", "unknown") and (best is None or wps > best[1]):
                best = (name, wps)
        if best:
            print("  %-8s best: %s (%.2fM SB witnesses/s median)" % (place, best[0], best[1] / 1e6))
    return 0


if __name__ == "__main__":
    sys.exit(main())
