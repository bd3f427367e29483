#!/usr/bin/env python3
"""msgpass against its ruler: efficiency = scenario msgs/s / ruler msgs/s.

The ruler (bench/msgpass-bare) is msgpass's protocol with no harness around
it: the same publication primitives, payload written and every word
checked, the same two counter reads and histograms, pinned to the same
CPUs.  This runs the scenario and the ruler interleaved, one pair per
variant per repeat (scenario, ruler, scenario, ruler, ...), each with the
placement probe before and after it, and prints per variant and placement
class the median efficiency with its distribution-free interval, the
range and the number of pairs; beside it the round trips' ratio (ruler's
median round trip / the scenario's), the same question asked of latency.

On a VM the host moves the vCPUs between SMT siblings, cores of one L3
and different dies, and rates follow tenfold: a pair counts only when
both runs' probes were stable (before and after within 1.5x, the
scenario's in-run samples saw no move) and the two runs sat within 1.5x
of each other.  Placement classes are the pairs' one-way latencies cut
where the next is more than 1.5x the smallest of the current class
(MMT_PROBE_STABLE_RATIO, as placement-track.c and bench/ring.py).
Pairs left out are counted.  Speed is measured here, never asserted.
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
sys.path.insert(0, os.path.join(TOP, "analysis", "lib"))
import stats  # noqa: E402  (median_ci: order-statistic interval)

RATIO = 1.5          # MMT_PROBE_STABLE_RATIO (harness/probe.h)
PROG = "bench-efficiency"
FORMAT = "mmtorture-efficiency-pairs/1"


def fail(msg, code=2):
    print("%s: %s" % (PROG, msg), file=sys.stderr)
    sys.exit(code)


# ---- one side of a pair, as a small record --------------------------------

def mean_probe(before, after):
    vals = [p["one_way_ns"] for p in (before, after) if isinstance(p, dict) and p.get("one_way_ns")]
    return statistics.mean(vals) if vals else None


def scenario_side(doc):
    """The scenario's record: its run, or None when it did not measure
    (skipped, no operations)."""
    runs = doc.get("runs") or []
    if not runs:
        return None
    r = runs[0]
    if r.get("status") not in ("ok", "witnessed") or not r.get("ops_per_sec"):
        return None
    p = r.get("probe") or {}
    t = r.get("placement_track") or {}
    rt = (r.get("metrics") or {}).get("round_trip_ns") or {}
    return {"msgs_per_sec": r["ops_per_sec"], "round_trip_ns": rt.get("median"),
            "one_way_ns": mean_probe((p.get("before") or [None])[0], (p.get("after") or [None])[0]),
            "stable": bool(p.get("stable")) and not t.get("moved")}


def ruler_side(doc):
    p = doc.get("probe") or {}
    if not doc.get("msgs_per_sec"):
        return None
    return {"msgs_per_sec": doc["msgs_per_sec"], "round_trip_ns": (doc.get("round_trip_ns") or {}).get("median"),
            "one_way_ns": mean_probe(p.get("before"), p.get("after")), "stable": bool(p.get("stable"))}


# ---- the arithmetic, on pairs (tested on canned inputs) -------------------

def pair_placement(pair):
    """The pair's one-way latency, or None when it is no pair: a side
    missing or moved, or the two sides at different placements."""
    s, r = pair.get("scenario"), pair.get("ruler")
    if not s or not r or not s["stable"] or not r["stable"] or not s["one_way_ns"] or not r["one_way_ns"]:
        return None
    a, b = s["one_way_ns"], r["one_way_ns"]
    if max(a, b) > RATIO * min(a, b):
        return None
    return math.sqrt(a * b)


def classes(values):
    """Sorted one-way latencies cut where the next is more than RATIO
    above the smallest of the current class."""
    groups = []
    for v in sorted(values):
        if groups and v <= groups[-1][0] * RATIO:
            groups[-1].append(v)
        else:
            groups.append([v])
    return groups


def class_of(groups, v):
    for i, g in enumerate(groups):
        if g[0] <= v <= g[0] * RATIO:
            return i
    return None


def summarise(pairs):
    """{variant: {"rows": [row per class], "left_out": n}}; a row: the
    class's median one-way, pairs, efficiency (median, lo, hi, coverage,
    min, max) and the round trips' ratio (median)."""
    placed = [(p, pair_placement(p)) for p in pairs]
    groups = classes([ow for _, ow in placed if ow is not None])
    out = {}
    for p, ow in placed:
        v = out.setdefault(p["variant"], {"rows": {}, "left_out": 0})
        if ow is None:
            v["left_out"] += 1
            continue
        v["rows"].setdefault(class_of(groups, ow), []).append(p)
    for name, v in out.items():
        rows = []
        for gi in sorted(v["rows"]):
            got = v["rows"][gi]
            eff = [p["scenario"]["msgs_per_sec"] / p["ruler"]["msgs_per_sec"] for p in got]
            rt = [p["ruler"]["round_trip_ns"] / p["scenario"]["round_trip_ns"] for p in got
                  if p["ruler"]["round_trip_ns"] and p["scenario"]["round_trip_ns"]]
            med, lo, hi, cov = stats.median_ci(eff)
            rows.append({"one_way_ns": statistics.median(groups[gi]), "pairs": len(got),
                         "median": med, "lo": lo, "hi": hi, "coverage": cov, "min": min(eff), "max": max(eff),
                         "rt_median": statistics.median(rt) if rt else None})
        v["rows"] = rows
    return out


def report(pairs, meta):
    print("efficiency: msgpass msgs/s / msgpass-bare msgs/s, pairs run back to back at %s, %s x %s, "
          "%s payload words, --events none"
          % (meta.get("placement", "?"), meta.get("repeat", "?"), meta.get("duration", "?"),
             meta.get("payload_words", "?")))
    print("%-20s %-16s %5s %7s %22s %13s %9s %9s" % ("variant", "placement", "pairs", "median", "interval",
                                                   "range", "rt ratio", "left out"))
    summary = summarise(pairs)
    for name in meta.get("variants") or sorted(summary):
        v = summary.get(name)
        if not v:
            print("%-20s %-16s %5d" % (name, "-", 0))
            continue
        if not v["rows"]:
            print("%-20s %-16s %5d %7s %22s %13s %9s %9d" % (name, "-", 0, "-", "-", "-", "-", v["left_out"]))
        for i, row in enumerate(v["rows"]):
            if row["lo"] is None:
                interval = "-"
            else:
                interval = "%.3f-%.3f (%.1f%%)" % (row["lo"], row["hi"], 100 * row["coverage"])
            print("%-20s %-16s %5d %7.3f %22s %13s %9s %9s"
                  % (name, "~%.0f ns one-way" % row["one_way_ns"], row["pairs"], row["median"], interval,
                     "%.3f-%.3f" % (row["min"], row["max"]),
                     "%.3f" % row["rt_median"] if row["rt_median"] else "-",
                     str(v["left_out"]) if i == 0 else ""))
    print("pairs: both runs' probes stable and within %.1fx of each other; placement: their one-way "
          "latency, classes cut at %.1fx; interval: order statistics around the median (coverage in "
          "brackets, none under 2 pairs); rt ratio: ruler's median round trip / the scenario's; "
          "left out: pairs whose CPUs moved or sat differently" % (RATIO, RATIO))
    return summary


# ---- running ---------------------------------------------------------------

def variants_of(mmtorture):
    """msgpass's variants built here, injected ones left out."""
    out = subprocess.run([mmtorture, "--list", "--format", "json"], capture_output=True, text=True)
    if out.returncode != 0:
        fail("%s --list --format json exited %d" % (mmtorture, out.returncode), 3)
    doc = json.loads(out.stdout)
    scs = doc.get("scenarios", doc) if isinstance(doc, dict) else doc
    for sc in scs:
        if sc["name"] == "msgpass":
            return [v["name"] for v in sc["variants"] if not v.get("injected") and not v.get("not_built")]
    fail("%s lists no msgpass" % mmtorture, 3)


def cpus_of(mmtorture, placement):
    """The two CPUs a placement gives msgpass here (its --dry-run line)."""
    if placement.startswith("cpus:"):
        cpus = placement[5:].split(",")
        if len(cpus) != 2 or not all(c.isdigit() for c in cpus):
            fail("--placement %s: two CPUs, cpus:A,B" % placement)
        return cpus
    out = subprocess.run([mmtorture, "msgpass", "--variant", "release-acquire", "--placement", placement,
                          "--dry-run"], capture_output=True, text=True)
    f = out.stdout.split()
    if out.returncode != 0 or "cpus" not in f:
        fail("--placement %s: %s" % (placement, (out.stderr or out.stdout).strip() or "not on this machine"))
    return f[f.index("cpus") + 1].split(",")


def run_pair(args, variant, cpus, tmp):
    path = os.path.join(tmp, "scenario.json")
    cmd = [args.mmtorture, "msgpass", "--variant", variant, "--placement", "cpus:" + ",".join(cpus),
           "--duration", args.duration, "--payload-words", str(args.payload_words), "--events", "none",
           "--output", path]
    rc = subprocess.call(cmd, stdout=subprocess.DEVNULL)
    if rc not in (0, 77):
        fail("%s exited %d" % (" ".join(cmd), rc), 3)
    with open(path) as f:
        scen = scenario_side(json.load(f))
    cmd = [args.ruler, "--variant", variant, "--cpus", ",".join(cpus), "--duration", args.duration,
           "--payload-words", str(args.payload_words)]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode not in (0, 77):
        fail("%s exited %d: %s" % (" ".join(cmd), out.returncode, out.stderr.strip()), 3)
    ruler = ruler_side(json.loads(out.stdout)) if out.returncode == 0 else None
    return {"variant": variant, "scenario": scen, "ruler": ruler}


def main():
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=10, help="pairs per variant (default 10)")
    ap.add_argument("--placement", default="cpus:0,1",
                    help="cpus:A,B, or a run-scenario placement resolved to its two CPUs (default cpus:0,1)")
    ap.add_argument("--variant", default="all", help="V[,V...] or all: msgpass's, injected ones left out (default all)")
    ap.add_argument("--duration", default="1s", help="per run (default 1s)")
    ap.add_argument("--payload-words", type=int, default=16, help="as msgpass's option (default 16)")
    ap.add_argument("--mmtorture", default=os.path.join(TOP, "build", "mmtorture"),
                    help="the binary (default build/mmtorture)")
    ap.add_argument("--ruler", help="the ruler (default bench/msgpass-bare beside the binary)")
    ap.add_argument("--save", help="write the pairs (JSON) here (default results/bench-efficiency-TIME.json)")
    ap.add_argument("--from", dest="from_file", metavar="PAIRS_JSON",
                    help="report on pairs saved by an earlier run instead of running")
    args = ap.parse_args()
    if args.repeat < 1:
        ap.error("--repeat must be at least 1")
    if args.from_file:
        try:
            with open(args.from_file) as f:
                doc = json.load(f)
            if doc.get("format") != FORMAT:
                raise ValueError("format is not %s" % FORMAT)
            pairs = doc["pairs"]
            summarise(pairs)
        except (OSError, ValueError, KeyError, TypeError, AttributeError, ZeroDivisionError) as e:
            fail("%s: not a pairs file (%s)" % (args.from_file, e))
        report(pairs, doc.get("meta") or {})
        return
    for path in (args.mmtorture, args.ruler or ""):
        if path and not os.access(path, os.X_OK):
            fail("%s: not built (make, or ./run-scenario --list)" % path)
    if not args.ruler:
        args.ruler = os.path.join(os.path.dirname(os.path.abspath(args.mmtorture)), "bench", "msgpass-bare")
        if not os.access(args.ruler, os.X_OK):
            fail("%s: not built (make)" % args.ruler)
    known = variants_of(args.mmtorture)
    variants = known if args.variant == "all" else args.variant.split(",")
    for v in variants:
        if v not in known:
            fail("unknown or unbuilt variant '%s' (known: %s)" % (v, ", ".join(known)))
    cpus = cpus_of(args.mmtorture, args.placement)
    meta = {"placement": args.placement + ("" if args.placement.startswith("cpus:") else " (cpus:%s)" % ",".join(cpus)),
            "repeat": args.repeat, "duration": args.duration, "payload_words": args.payload_words,
            "variants": variants, "cpus": cpus}
    pairs = []
    with tempfile.TemporaryDirectory(prefix="mmt-efficiency.") as tmp:
        for rep in range(args.repeat):
            for v in variants:
                pair = run_pair(args, v, cpus, tmp)
                pair["repeat"] = rep
                pairs.append(pair)
                s, r = pair["scenario"] or {}, pair["ruler"] or {}
                print("# rep %d %-20s msgpass %9.0f/s ow %5.0f ns | bare %9.0f/s ow %5.0f ns"
                      % (rep, v, s.get("msgs_per_sec") or 0, s.get("one_way_ns") or 0,
                         r.get("msgs_per_sec") or 0, r.get("one_way_ns") or 0), file=sys.stderr)
    save = args.save or os.path.join(os.environ.get("MMT_RESULTS_DIR", os.path.join(TOP, "results")),
                                     "bench-efficiency-%s.json" % time.strftime("%Y%m%d-%H%M%S"))
    os.makedirs(os.path.dirname(os.path.abspath(save)), exist_ok=True)
    with open(save, "w") as f:
        json.dump({"format": FORMAT, "meta": meta, "pairs": pairs}, f, indent=1)
    report(pairs, meta)
    print("pairs: " + save)


if __name__ == "__main__":
    main()
