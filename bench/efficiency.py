#!/usr/bin/env python3
"""Throughput scenarios against their rulers: efficiency = scenario rate / ruler rate.

A ruler (bench/msgpass-bare, bench/ring-bare, bench/seqcount-bare,
bench/litmus-bare) is a scenario's protocol with no harness around it: the
same primitives from the same header, every payload word, item, snapshot
or outcome checked, pinned to the same CPUs.  The rate each divides is the
scenario's ops: msgpass msgs/s, ring items/s (the consumer's), seqcount
reads/s (one reader, the scenario's default), litmus iterations/s of SB
(the test bench/litmus.py races, under each primitive set).  This runs
scenario and ruler interleaved, one pair per variant per repeat (scenario
then ruler on even repeats, ruler then scenario on odd ones), each with
the placement probe before and after it, and prints per scenario, variant
and placement class the median efficiency with its distribution-free
interval, the range and the number of pairs; beside it a second ratio
where the scenario has one: msgpass the round trips' (ruler's median /
the scenario's, the same question asked of latency), seqcount the writer's
rate (scenario's writes/s / the ruler's: the load both readers ran under),
litmus the witnesses' (scenario's witnesses/s / the ruler's: whether the
harness's loop finds the reorderings a bare loop finds).
Variants are those both the scenario and its ruler have (--list).

On a VM the host moves the vCPUs between SMT siblings, cores of one L3
and different dies, and rates follow tenfold: a pair counts only when
both runs' probes were stable (before and after within 1.5x, the
scenario's in-run samples saw no move) and the two runs sat within 1.5x
of each other.  Placement classes are the pairs' one-way latencies cut
where the next is more than 1.5x the smallest of the current class
(MMT_PROBE_STABLE_RATIO: analysis/lib/placement.py, shared with bench/ring.py), per
scenario.  Pairs left out are counted.  Speed is measured here, never
asserted.
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
from placement import RATIO, class_of, classes, same_placement  # noqa: E402
PROG = "bench-efficiency"
FORMAT = "mmtorture-efficiency-pairs/1"

# Per scenario: its ruler, the rate divided (the key in both sides'
# records), the second ratio (key, column title, which side is the
# numerator, what it says) or None, and the options both sides run with.
BENCHES = {
    "msgpass": {"ruler": "msgpass-bare", "ops": "msgs_per_sec", "unit": "msgs/s",
                "second": ("round_trip_ns", "rt ratio", "ruler",
                           "ruler's median round trip / the scenario's"),
                "options": lambda a: ["--payload-words", str(a.payload_words)],
                "setting": lambda a: "%d payload words" % a.payload_words},
    "ring": {"ruler": "ring-bare", "ops": "items_per_sec", "unit": "items/s", "second": None,
             "options": lambda a: [], "setting": lambda a: "default ring (4096 slots, batch 32, 1 word)"},
    "seqcount": {"ruler": "seqcount-bare", "ops": "reads_per_sec", "unit": "reads/s",
                 "second": ("writes_per_sec", "load ratio", "scenario",
                            "scenario's writes/s / the ruler's: the writer load the reader ran under"),
                 "options": lambda a: [],
                 "setting": lambda a: "1 reader, 8 words, a write every 1000 ns"},
    "litmus": {"ruler": "litmus-bare", "ops": "iterations_per_sec", "unit": "iterations/s",
               "second": ("witnesses_per_sec", "wit ratio", "scenario",
                          "scenario's witnesses/s / the ruler's: the reorderings found in the same time"),
               "options": lambda a: ["--sync", a.sync],
               "setting": lambda a: "SB, --sync %s, period from the latency, batches up to 10000" % a.sync},
}
# litmus's --sync modes (both sides take the name).
LITMUS_SYNC = ["none", "userfence", "tsc"]


def fail(msg, code=2):
    print("%s: %s" % (PROG, msg), file=sys.stderr)
    sys.exit(code)


# ---- one side of a pair, as a small record --------------------------------

def mean_probe(before, after):
    vals = [p["one_way_ns"] for p in (before, after) if isinstance(p, dict) and p.get("one_way_ns")]
    return statistics.mean(vals) if vals else None


def scenario_side(bench, doc):
    """The scenario's record: its run, or None when it did not measure
    (skipped, no operations)."""
    b = BENCHES[bench]
    runs = doc.get("runs") or []
    if not runs:
        return None
    r = runs[0]
    if r.get("status") not in ("ok", "witnessed") or not r.get("ops_per_sec"):
        return None
    p = r.get("probe") or {}
    t = r.get("placement_track") or {}
    m = r.get("metrics") or {}
    side = {b["ops"]: r["ops_per_sec"],
            "one_way_ns": mean_probe((p.get("before") or [None])[0], (p.get("after") or [None])[0]),
            "stable": bool(p.get("stable")) and not t.get("moved")}
    if b["second"]:
        v = m.get(b["second"][0])
        side[b["second"][0]] = v.get("median") if isinstance(v, dict) else v
    return side


def ruler_side(bench, doc):
    b = BENCHES[bench]
    p = doc.get("probe") or {}
    if not doc.get(b["ops"]):
        return None
    side = {b["ops"]: doc[b["ops"]], "one_way_ns": mean_probe(p.get("before"), p.get("after")),
            "stable": bool(p.get("stable"))}
    if b["second"]:
        v = doc.get(b["second"][0])
        side[b["second"][0]] = v.get("median") if isinstance(v, dict) else v
    return side


def bench_of(pair):
    """A pair's scenario; files written before ring and seqcount had
    rulers hold msgpass's pairs only."""
    return pair.get("bench", "msgpass")


# ---- the arithmetic, on pairs (tested on canned inputs) -------------------

def pair_placement(pair):
    """The pair's one-way latency, or None when it is no pair: a side
    missing or moved, or the two sides at different placements."""
    s, r = pair.get("scenario"), pair.get("ruler")
    if not s or not r or not s["stable"] or not r["stable"]:
        return None
    a, b = s["one_way_ns"], r["one_way_ns"]
    if not same_placement(a, b):
        return None
    return math.sqrt(a * b)


def summarise(pairs):
    """{scenario: {variant: {"rows": [row per class], "left_out": n}}}; a
    row: the class's median one-way, pairs, efficiency (median, lo, hi,
    coverage, min, max) and the second ratio (median) where the scenario
    has one.  Classes are cut per scenario."""
    out = {}
    for bench in sorted({bench_of(p) for p in pairs}):
        b = BENCHES[bench]
        mine = [p for p in pairs if bench_of(p) == bench]
        placed = [(p, pair_placement(p)) for p in mine]
        groups = classes([ow for _, ow in placed if ow is not None])
        per = out.setdefault(bench, {})
        for p, ow in placed:
            v = per.setdefault(p["variant"], {"rows": {}, "left_out": 0})
            if ow is None:
                v["left_out"] += 1
                continue
            v["rows"].setdefault(class_of(groups, ow), []).append(p)
        for name, v in per.items():
            rows = []
            for gi in sorted(v["rows"]):
                got = v["rows"][gi]
                eff = [p["scenario"][b["ops"]] / p["ruler"][b["ops"]] for p in got]
                second = []
                if b["second"]:
                    key, _, num, _ = b["second"]
                    den = "scenario" if num == "ruler" else "ruler"
                    second = [p[num][key] / p[den][key] for p in got if p[num].get(key) and p[den].get(key)]
                med, lo, hi, cov = stats.median_ci(eff)
                rows.append({"one_way_ns": statistics.median(groups[gi]), "pairs": len(got),
                             "median": med, "lo": lo, "hi": hi, "coverage": cov, "min": min(eff),
                             "max": max(eff), "second_median": statistics.median(second) if second else None})
            v["rows"] = rows
    return out


def report(pairs, meta):
    summary = summarise(pairs)
    order = meta.get("scenarios") or {"msgpass": meta.get("variants")}
    for bench in [b for b in BENCHES if b in order or b in summary]:
        b = BENCHES[bench]
        second = b["second"][1] if b["second"] else "-"
        settings = meta.get("settings", {}).get(bench) or (
            "%s payload words" % meta.get("payload_words", "?") if bench == "msgpass" else "?")
        print("efficiency: %s %s / %s %s, pairs run back to back at %s, %s x %s, %s, --events none"
              % (bench, b["unit"], b["ruler"], b["unit"], meta.get("placement", "?"), meta.get("repeat", "?"),
                 meta.get("duration", "?"), settings))
        print("%-9s %-20s %-16s %5s %7s %22s %13s %10s %9s" % ("scenario", "variant", "placement", "pairs",
                                                             "median", "interval", "range", second,
                                                             "left out"))
        got = summary.get(bench, {})
        for name in order.get(bench) or sorted(got):
            v = got.get(name)
            if not v:
                print("%-9s %-20s %-16s %5d" % (bench, name, "-", 0))
                continue
            if not v["rows"]:
                print("%-9s %-20s %-16s %5d %7s %22s %13s %10s %9d"
                      % (bench, name, "-", 0, "-", "-", "-", "-", v["left_out"]))
            for i, row in enumerate(v["rows"]):
                if row["lo"] is None:
                    interval = "-"
                else:
                    interval = "%.3f-%.3f (%.1f%%)" % (row["lo"], row["hi"], 100 * row["coverage"])
                print("%-9s %-20s %-16s %5d %7.3f %22s %13s %10s %9s"
                      % (bench, name, "~%.0f ns one-way" % row["one_way_ns"], row["pairs"], row["median"],
                         interval, "%.3f-%.3f" % (row["min"], row["max"]),
                         "%.3f" % row["second_median"] if row["second_median"] else "-",
                         str(v["left_out"]) if i == 0 else ""))
        if b["second"]:
            print("%s: %s" % (b["second"][1], b["second"][3]))
    print("pairs: both runs' probes stable and within %.1fx of each other; placement: their one-way "
          "latency, classes cut at %.1fx per scenario; interval: order statistics around the median "
          "(coverage in brackets, none under 2 pairs); left out: pairs whose CPUs moved or sat "
          "differently" % (RATIO, RATIO))
    return summary


# ---- running ---------------------------------------------------------------

def variants_of(mmtorture, bench, ruler):
    """The scenario's variants built here that its ruler has, injected
    ones left out, in the scenario's order."""
    out = subprocess.run([mmtorture, "--list", "--format", "json"], capture_output=True, text=True)
    if out.returncode != 0:
        fail("%s --list --format json exited %d" % (mmtorture, out.returncode), 3)
    doc = json.loads(out.stdout)
    scs = doc.get("scenarios", doc) if isinstance(doc, dict) else doc
    rl = subprocess.run([ruler, "--list"], capture_output=True, text=True)
    if rl.returncode != 0:
        fail("%s --list exited %d" % (ruler, rl.returncode), 3)
    has = set(rl.stdout.split())
    for sc in scs:
        if sc["name"] == bench:
            return [v["name"] for v in sc["variants"]
                    if not v.get("injected") and not v.get("not_built") and v["name"] in has]
    fail("%s lists no %s" % (mmtorture, bench), 3)


def cpus_of(mmtorture, bench, variant, placement):
    """The two CPUs a placement gives the scenario here (its --dry-run line)."""
    if placement.startswith("cpus:"):
        cpus = placement[5:].split(",")
        if len(cpus) != 2 or not all(c.isdigit() for c in cpus):
            fail("--placement %s: two CPUs, cpus:A,B" % placement)
        return cpus
    out = subprocess.run([mmtorture, bench, "--variant", variant, "--placement", placement,
                          "--dry-run"], capture_output=True, text=True)
    f = out.stdout.split()
    if out.returncode != 0 or "cpus" not in f:
        fail("--placement %s: %s" % (placement, (out.stderr or out.stdout).strip() or "not on this machine"))
    return f[f.index("cpus") + 1].split(",")


def run_scenario(args, bench, variant, cpus, tmp):
    b = BENCHES[bench]
    path = os.path.join(tmp, "scenario.json")
    cmd = [args.mmtorture, bench, "--variant", variant, "--placement", "cpus:" + ",".join(cpus),
           "--duration", args.duration, "--events", "none", "--output", path] + b["options"](args)
    rc = subprocess.call(cmd, stdout=subprocess.DEVNULL)
    if rc not in (0, 77):
        fail("%s exited %d" % (" ".join(cmd), rc), 3)
    with open(path) as f:
        return scenario_side(bench, json.load(f))


def run_ruler(args, bench, ruler, variant, cpus):
    cmd = [ruler, "--variant", variant, "--cpus", ",".join(cpus), "--duration", args.duration] + \
        BENCHES[bench]["options"](args)
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode not in (0, 77):
        fail("%s exited %d: %s" % (" ".join(cmd), out.returncode, out.stderr.strip()), 3)
    return ruler_side(bench, json.loads(out.stdout)) if out.returncode == 0 else None


def run_pair(args, bench, ruler, variant, cpus, tmp, ruler_first):
    """One pair, back to back; which side goes first alternates with the
    repeat, so that neither always runs on the machine the other left."""
    if ruler_first:
        rdoc = run_ruler(args, bench, ruler, variant, cpus)
        scen = run_scenario(args, bench, variant, cpus, tmp)
    else:
        scen = run_scenario(args, bench, variant, cpus, tmp)
        rdoc = run_ruler(args, bench, ruler, variant, cpus)
    return {"bench": bench, "variant": variant, "scenario": scen, "ruler": rdoc, "ruler_first": ruler_first}


def main():
    ap = argparse.ArgumentParser(prog=PROG, description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scenario", default=",".join(BENCHES),
                    help="S[,S...] of %s (default all)" % ", ".join(BENCHES))
    ap.add_argument("--repeat", type=int, default=10, help="pairs per variant (default 10)")
    ap.add_argument("--placement", default="cpus:0,1",
                    help="cpus:A,B, or a run-scenario placement resolved to its two CPUs (default cpus:0,1)")
    ap.add_argument("--variant", default="all",
                    help="V[,V...] or all: each scenario's variants its ruler has, injected ones left out; "
                         "a name runs in every chosen scenario that has it (default all)")
    ap.add_argument("--duration", default="1s", help="per run (default 1s)")
    ap.add_argument("--payload-words", type=int, default=16, help="msgpass's option (default 16)")
    ap.add_argument("--sync", choices=LITMUS_SYNC, default="tsc", help="litmus's option (default tsc)")
    ap.add_argument("--mmtorture", default=os.path.join(TOP, "build", "mmtorture"),
                    help="the binary (default build/mmtorture)")
    ap.add_argument("--ruler", help="the ruler, when one --scenario is given (default bench/NAME-bare "
                                    "beside the binary)")
    ap.add_argument("--save", help="write the pairs (JSON) here (default results/bench-efficiency-TIME.json)")
    ap.add_argument("--from", dest="from_file", metavar="PAIRS_JSON",
                    help="report on pairs saved by an earlier run instead of running")
    args = ap.parse_args()
    if args.repeat < 1:
        ap.error("--repeat must be at least 1")
    benches = args.scenario.split(",")
    for bench in benches:
        if bench not in BENCHES:
            ap.error("--scenario: unknown '%s' (one of %s)" % (bench, ", ".join(BENCHES)))
    if args.ruler and len(benches) != 1:
        ap.error("--ruler names one ruler: give one --scenario with it")
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
    if not os.access(args.mmtorture, os.X_OK):
        fail("%s: not built (make, or ./run-scenario --list)" % args.mmtorture)
    rulers, chosen = {}, {}
    for bench in benches:
        ruler = args.ruler or os.path.join(os.path.dirname(os.path.abspath(args.mmtorture)), "bench",
                                           BENCHES[bench]["ruler"])
        if not os.access(ruler, os.X_OK):
            fail("%s: not built (make)" % ruler)
        rulers[bench] = ruler
        known = variants_of(args.mmtorture, bench, ruler)
        chosen[bench] = known if args.variant == "all" else [v for v in args.variant.split(",") if v in known]
    if args.variant != "all":
        for v in args.variant.split(","):
            if not any(v in chosen[b] for b in benches):
                fail("unknown variant '%s' or one without a ruler (known: %s)"
                     % (v, "; ".join("%s: %s" % (b, ", ".join(variants_of(args.mmtorture, b, rulers[b])))
                                     for b in benches)))
    benches = [b for b in benches if chosen[b]]
    cpus = cpus_of(args.mmtorture, benches[0], chosen[benches[0]][0], args.placement)
    meta = {"placement": args.placement + ("" if args.placement.startswith("cpus:") else " (cpus:%s)" % ",".join(cpus)),
            "repeat": args.repeat, "duration": args.duration, "payload_words": args.payload_words,
            "scenarios": {b: chosen[b] for b in benches},
            "settings": {b: BENCHES[b]["setting"](args) for b in benches}, "cpus": cpus}
    pairs = []
    with tempfile.TemporaryDirectory(prefix="mmt-efficiency.") as tmp:
        for rep in range(args.repeat):
            for bench in benches:
                for v in chosen[bench]:
                    pair = run_pair(args, bench, rulers[bench], v, cpus, tmp, rep % 2 == 1)
                    pair["repeat"] = rep
                    pairs.append(pair)
                    key = BENCHES[bench]["ops"]
                    s, r = pair["scenario"] or {}, pair["ruler"] or {}
                    print("# rep %d %-8s %-20s scenario %10.0f/s ow %5.0f ns | bare %10.0f/s ow %5.0f ns"
                          % (rep, bench, v, s.get(key) or 0, s.get("one_way_ns") or 0,
                             r.get(key) or 0, r.get("one_way_ns") or 0), file=sys.stderr)
    save = args.save or os.path.join(os.environ.get("MMT_RESULTS_DIR", os.path.join(TOP, "results")),
                                     "bench-efficiency-%s.json" % time.strftime("%Y%m%d-%H%M%S"))
    os.makedirs(os.path.dirname(os.path.abspath(save)), exist_ok=True)
    with open(save, "w") as f:
        json.dump({"format": FORMAT, "meta": meta, "pairs": pairs}, f, indent=1)
    report(pairs, meta)
    print("pairs: " + save)


if __name__ == "__main__":
    main()
