#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What counting costs: msgpass and ring throughput with --events none
against the default event set, as a ratio per placement (goal: < 1%).

Each repeat runs, per scenario and placement, three runs back to back on the
same CPUs: without counters, with the default set, without again.  The
ratio is the counted rate over the mean of the two around it (a linear
drift of the host cancels); the two uncounted runs against each other are
the control, whose median distance from 1 is the noise floor printed next
to the overhead: an overhead below the noise floor is not resolved.  The
median over repeats is printed with the spread: absolute rates move tenfold
when the host moves the vCPUs, ratios far less.
A pair whose placement probe moved (drift > 1.5x) is shown and left out of
the median.  A benchmark, not a test: it prints and exits 0 when it ran.

  scripts/bench-counters [--repeat N] [--duration D] [--placement P]...
                         [--scenario msgpass|ring]... [--events LIST]
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
sys.path.insert(0, os.path.join(TOP, "analysis", "lib"))
import mmt_results as R  # noqa: E402  (every results file read through the schema check)
# One representative, hand-rolled variant each: the cost of counting is
# per worker and per run, not per variant.
VARIANT = {"msgpass": "mb", "ring": "cached"}
GOAL = 0.01


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--repeat", type=int, default=5, help="triples (none, counted, none) per scenario and placement (default 5)")
    p.add_argument("--duration", default="1s", help="per run (default 1s)")
    p.add_argument("--placement", action="append",
                   help="placement (repeatable; default same-node; run-scenario's names)")
    p.add_argument("--scenario", action="append", choices=sorted(VARIANT),
                   help="scenario (repeatable; default both)")
    p.add_argument("--events", default=None,
                   help="the counted side's --events (default: the harness's default set)")
    p.add_argument("--keep", metavar="DIR", help="keep the results files in DIR")
    a = p.parse_args()
    if a.repeat < 1:
        p.error("--repeat must be at least 1")
    a.placement = a.placement or ["same-node"]
    a.scenario = a.scenario or ["msgpass", "ring"]
    return a


def one_run(scenario, placement, duration, events, out):
    """ops/s, probe drift and status of one run (None when it did not run)."""
    cmd = [os.path.join(TOP, "run-scenario"), scenario, "--variant", VARIANT[scenario],
           "--placement", placement, "--duration", duration, "--output", out, "--format", "json"]
    if events is not None:
        cmd += ["--events", events]
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=600)
    if r.returncode == 2:
        sys.exit("bench-counters: " + (r.stderr.strip().splitlines() or ["bad input"])[-1])
    try:
        run = R.load(out)["runs"][0]
    except (R.ResultsError, IndexError) as e:
        return None, None, "no results (exit %d: %s; %s)" % (r.returncode, r.stderr.strip()[-200:], e)
    if run["status"] != "ok" or not run.get("ops_per_sec"):
        return None, None, "%s: %s" % (run["status"], run.get("reason") or "")
    drift = (run.get("probe") or {}).get("drift")
    return run["ops_per_sec"], drift, "ok"


def main():
    a = parse_args()
    subprocess.run([os.path.join(TOP, "run-scenario"), "--version"], check=True, stdout=subprocess.DEVNULL)
    work = a.keep or tempfile.mkdtemp(prefix="mmt-bench-counters.")
    os.makedirs(work, exist_ok=True)
    counted = a.events if a.events is not None else "the default set"
    print("counting overhead: ops/s with %s / ops/s with --events none, %d triples x %s, "
          "in order none, counted, none" % (counted, a.repeat, a.duration))
    print("%-8s %-10s %6s %12s %12s %12s %8s %8s" % ("scenario", "placement", "pair", "none ops/s", "counted",
                                                   "none again", "ratio", "control"))
    summary = []
    for sc in a.scenario:
        for pl in a.placement:
            ratios, controls, skipped = [], [], None
            for rep in range(a.repeat):
                # none, counted, none: the counted run against the mean of
                # the two around it cancels a linear drift, and the two
                # uncounted runs against each other are the noise floor.
                rates, moved = [], False
                for k, tag in enumerate(("none", "counted", "none2")):
                    out = os.path.join(work, "%s-%s-%d-%s.json" % (sc, pl.replace(":", "_"), rep, tag))
                    events = a.events if tag == "counted" else "none"
                    rate, drift, status = one_run(sc, pl, a.duration, events, out)
                    if rate is None:
                        skipped = status
                        break
                    rates.append(rate)
                    moved |= drift is not None and drift > 1.5
                if len(rates) < 3:
                    break
                q = rates[1] / ((rates[0] + rates[2]) / 2)
                ctl = rates[2] / rates[0]
                print("%-8s %-10s %5d%s %12.4g %12.4g %12.4g %8.4f %8.4f" % (
                    sc, pl, rep, "!" if moved else " ", rates[0], rates[1], rates[2], q, ctl))
                if not moved:
                    ratios.append(q)
                    controls.append(ctl)
            if skipped and not ratios:
                print("%-8s %-10s skipped: %s" % (sc, pl, skipped))
                continue
            summary.append((sc, pl, ratios, controls))
    print()
    print("%-8s %-10s %6s %9s %9s %9s %10s %12s" % ("scenario", "placement", "pairs", "median", "min", "max",
                                                   "overhead", "noise floor"))
    for sc, pl, ratios, controls in summary:
        if not ratios:
            print("%-8s %-10s %6d   (every pair moved CPUs)" % (sc, pl, 0))
            continue
        med = statistics.median(ratios)
        cost = 1 - med
        noise = statistics.median(abs(1 - c) for c in controls)
        verdict = ("goal < 1%: met" if cost < GOAL else "goal < 1%: NOT met")
        if noise > GOAL:
            verdict += "; noise above 1%: not resolved here"
        print("%-8s %-10s %6d %9.4f %9.4f %9.4f %9.2f%% %11.2f%%  (%s)" % (
            sc, pl, len(ratios), med, min(ratios), max(ratios), 100 * cost, 100 * noise, verdict))
    print("'!': the placement probe moved by more than 1.5x during a run; left out of the median")
    if a.keep:
        print("results: %s" % work)
    else:
        for name in os.listdir(work):
            os.unlink(os.path.join(work, name))
        os.rmdir(work)


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit(130)
