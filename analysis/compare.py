#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Compare mmtorture results: two sets of runs, or the variants within one.

  scripts/compare [options] BASE... -- NEW...
      Runs matched by host, scenario, variant, placement and threads.  Per
      metric: median and 95% interval of each side, n, the change as a
      Hodges-Lehmann ratio with its distribution-free 95% interval, the
      Mann-Whitney p, and the smallest change these repeats could detect.
      A change is a REGRESSION (or an improvement) only if p < alpha and it
      exceeds --min-delta percent.  Repeats too few to ever reach p < alpha
      are UNDERPOWERED, never "no regression".  Pairs whose CPUs sat
      differently (probe one-way latency differing by more than 1.5x) are
      NOT COMPARABLE, every metric of them, however many repeats.  Hosts are never pooled: a run is only compared with
      runs of the same machine.

  scripts/compare --variants RESULTS...
      Within one result set, per host, scenario, placement and threads:
      each variant's median ns/op (net of the loop where the scenario measures it) with its
      95% interval and n, then the ratios hand-rolled : liburcu : ck : C11,
      paired by repeat (the variants of one repeat run interleaved).

  scripts/compare --hosts RESULTS...
      The same medians with one column per host, side by side.

Exit: 0 nothing regressed, 1 something regressed, 2 bad input,
3 internal error.
"""
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "lib"))
import cli  # noqa: E402
import mmt_results as R  # noqa: E402
import primitives as P  # noqa: E402
import stats as S  # noqa: E402
from mwu import mann_whitney  # noqa: E402

PROBE_RATIO = 1.5


def group(docs):
    g = {}
    for r in R.tag_runs(docs):
        if R.measured(r):
            g.setdefault(R.key(r), []).append(r)
    return g


def fmt_ci(med, lo, hi, cover, fmt=R.si):
    if lo is None:
        return f"{fmt(med)} [n too small]"
    tag = "" if cover >= 0.95 else f" {cover * 100:.0f}%"
    return f"{fmt(med)} [{fmt(lo)}, {fmt(hi)}]{tag}"


def pct(x):
    return f"{(x - 1) * 100:+.1f}%"


class Outcome:
    """What a comparison found, for the caller (nightly turns it into JUnit)."""

    def __init__(self):
        self.regressions, self.improvements, self.not_comparable, self.underpowered = [], [], [], []
        self.loaded = []    # (key, metric, change %, p): a change the two sides' load explains
        # Every metric compared, for the report's base-vs-new view: key,
        # metric, unit, base and new (median, lo, hi, coverage), the change
        # as a ratio (est, lo, hi; None when a side is 0), p, the mark, and
        # whether the metric is a counter's per-op figure.
        self.rows = []
        self.compared = 0
        self.keys = 0
        self.min_repeats = None


# One side ran loaded beside the other when its workers were off their
# CPUs this much more of the time, or this many more other tasks were
# runnable on average (conditions in the record, harness/conditions.h).
ON_CPU_DROP = 0.05
OTHERS_RISE = 1.0


def conditions(runs):
    """Medians of the runs' conditions (None where no run recorded one)."""
    def med(key):
        vals = [(r.get("conditions") or {}).get(key) for r in runs]
        vals = [v for v in vals if isinstance(v, (int, float))]
        return statistics.median(vals) if vals else None
    return {"on_cpu": med("on_cpu"), "others": med("others_running"), "load": med("loadavg_after")}


def more_loaded(a, b):
    """Whether conditions a were more loaded than b: the workers held their
    CPUs less, or more other tasks wanted them."""
    if a["on_cpu"] is not None and b["on_cpu"] is not None and a["on_cpu"] < b["on_cpu"] - ON_CPU_DROP:
        return True
    return a["others"] is not None and b["others"] is not None and a["others"] - b["others"] >= OTHERS_RISE


def explained(loaded, other, threads):
    """How large a change (a factor) the loaded side's conditions can
    explain: a run whose workers held their CPUs a share s of the time
    progresses, where all its threads must run at once, about s^threads as
    fast; twice that for what the shares miss (a sibling's load, caches).
    Without the shares, one more runnable task explains up to 2x."""
    if loaded["on_cpu"] and other["on_cpu"] and loaded["on_cpu"] < other["on_cpu"]:
        return 2 * (other["on_cpu"] / loaded["on_cpu"]) ** max(threads, 1)
    return 2.0


def conditions_text(c):
    on = "-" if c["on_cpu"] is None else f"{c['on_cpu'] * 100:.0f}%"
    others = "-" if c["others"] is None else f"{c['others']:.1f}"
    load = "-" if c["load"] is None else f"{c['load']:.2f}"
    return f"workers on their CPUs {on}, other runnable tasks {others}, load {load}"


def compare(base_docs, new_docs, alpha, min_delta, out=sys.stdout):
    if os.environ.get("MMT_COMPARE_SELFTEST_CRASH"):
        raise RuntimeError("injected by MMT_COMPARE_SELFTEST_CRASH (proves internal errors exit 3)")
    res = Outcome()
    labels = R.host_labels(list(base_docs) + list(new_docs))
    bl, nl = R.run_labels(base_docs), R.run_labels(new_docs)
    if bl or nl:
        print(f"base: {', '.join(bl) or '(no --label)'}; new: {', '.join(nl) or '(no --label)'}", file=out)
    base, new = group(base_docs), group(new_docs)
    keys = sorted(set(base) & set(new))
    if keys:
        print(f"[CI]: distribution-free intervals of {(1 - alpha) * 100:.0f}% coverage; a cell from too few runs"
              " for that prints its own, lower coverage beside it", file=out)
    bh, nh = {k[0] for k in base}, {k[0] for k in new}
    if not keys:
        if bh and nh and not bh & nh:
            print(f"no host is in both sets: base from {', '.join(labels[h] for h in sorted(bh))}, new from "
                  f"{', '.join(labels[h] for h in sorted(nh))}; runs of different hosts are never compared", file=out)
        else:
            print("no run is in both sets (matched by host, scenario, variant, placement, threads)", file=out)
    for k in keys:
        b, n = base[k], new[k]
        res.keys += 1
        res.min_repeats = min(res.min_repeats or 10 ** 9, len(b), len(n))
        pb = [p for p in map(R.probe_ns, b) if p]
        pn = [p for p in map(R.probe_ns, n) if p]
        comparable, note = True, ""
        if pb and pn:
            mb, mn = statistics.median(pb), statistics.median(pn)
            if max(mb, mn) / min(mb, mn) > PROBE_RATIO:
                comparable = False
                note = f"  NOT COMPARABLE: CPUs sat differently (probe {mb:.0f} ns vs {mn:.0f} ns one-way)"
                res.not_comparable.append(k)
        cb, cn = conditions(b), conditions(n)
        new_loaded, base_loaded = more_loaded(cn, cb), more_loaded(cb, cn)
        if new_loaded or base_loaded:
            note += (f"\n  LOADED: conditions differ: base {conditions_text(cb)}; new {conditions_text(cn)}"
                     f" (a change the {'new' if new_loaded else 'base'} side's load can explain is no verdict)")
        # NOT COMPARABLE comes first: where the CPUs sat differently no
        # number of repeats gives an answer, so the group is not called
        # UNDERPOWERED as well (results/verdicts.json: both skip).
        power = "" if not comparable or S.min_p(len(b), len(n)) <= alpha else \
            f"  UNDERPOWERED: {len(b)} v {len(n)} repeats give p >= {S.min_p(len(b), len(n)):.3f}"
        print(f"\n{R.key_text(k, labels)}   base n={len(b)}, new n={len(n)}{note}{power}", file=out)
        print(f"  {'metric':<22} {'unit':<9} {'base median [CI]':>26} {'new median [CI]':>26} {'change [CI]':>22} "
              f"{'p':>6} {'detects':>8}", file=out)
        names = sorted(set().union(*(R.metrics(r).keys() for r in b)) & set().union(*(R.metrics(r).keys() for r in n)))
        counters = set().union(*(R.counter_metrics(r).keys() for r in b + n))
        for name in names:
            bv = [R.metrics(r)[name][0] for r in b if name in R.metrics(r)]
            nv = [R.metrics(r)[name][0] for r in n if name in R.metrics(r)]
            better = (R.metrics(b[0]).get(name) or R.metrics(n[0]).get(name))[1]
            res.compared += 1
            bm = S.median_ci(bv, alpha)
            nm = S.median_ci(nv, alpha)
            _, p = mann_whitney(bv, nv)
            mde = S.detectable_change(bv, nv, alpha)
            if min(bv + nv) > 0:
                est, lo, hi = S.ratio_ci(bv, nv, alpha)
                change = pct(est) + (f" [{pct(lo)}, {pct(hi)}]" if lo is not None else " [n too small]")
                delta = (est - 1) * 100
            elif bm[0] == 0 and nm[0] == 0:
                change, delta = "0 -> 0", 0.0
            else:
                change, delta = f"base {R.si(bm[0])} -> {R.si(nm[0])}", None
            mark = ""
            if not comparable:
                mark = "NOT COMPARABLE"
            elif S.min_p(len(bv), len(nv)) > alpha:
                mark = "UNDERPOWERED"
                res.underpowered.append((k, name))
            elif delta is not None and p < alpha and abs(delta) >= min_delta:
                worse = delta < 0 if better == "higher" else delta > 0
                factor = max(est, 1 / est)   # the change's size, either way
                if worse and new_loaded and factor <= explained(cn, cb, k[4]) or \
                        not worse and base_loaded and factor <= explained(cb, cn, k[4]):
                    mark = "LOADED"
                    res.loaded.append((k, name, delta, p))
                elif worse:
                    mark = "REGRESSION"
                    res.regressions.append((k, name, delta, p, b, n))
                else:
                    mark = "improvement"
                    res.improvements.append((k, name, delta, p))
            unit = R.metric_unit(b + n, name)
            res.rows.append({"key": k, "group": R.key_text(k, labels), "metric": name,
                             "unit": unit, "base": bm, "new": nm,
                             "ratio": (est, lo, hi) if delta is not None and min(bv + nv) > 0 else None,
                             "p": p, "mark": mark,
                             "counter": name in counters})
            det = "-" if mde is None else ("never" if mde == float("inf") else f"{mde:.1f}%")
            print(f"  {name:<22} {unit or '-':<9} {fmt_ci(*bm):>26} {fmt_ci(*nm):>26} {change:>22} {p:6.3f} "
                  f"{det:>8}  {mark}", file=out)
    for k in sorted(set(base) ^ set(new)):
        print(f"\n{R.key_text(k, labels)}: only in {'base' if k in base else 'new'}", file=out)
    nc = len(res.not_comparable)
    print(f"\n{len(res.regressions)} regressions, {len(res.improvements)} improvements in {res.compared} metrics of "
          f"{res.keys} run groups; {nc} group{'s' * (nc != 1)} not comparable (p < {alpha}, |change| >= {min_delta}%)",
          file=out)
    if res.loaded:
        groups = len({k for k, *_ in res.loaded})
        print(f"LOADED: {len(res.loaded)} change{'s' * (len(res.loaded) != 1)} in {groups} group{'s' * (groups != 1)} "
              "ran under other conditions than the other side's (workers off their CPUs, other tasks runnable): "
              "no verdict on them", file=out)
    if res.underpowered:
        need = S.repeats_needed(alpha)
        print(f"UNDERPOWERED: {len(res.underpowered)} of {res.compared} metrics had too few repeats to reach "
              f"p < {alpha} at all (at least {need} a side are needed); no verdict on them", file=out)
    return res


def sample(runs, metric):
    out = []
    for r in runs:
        got = R.metrics(r).get(metric)
        if got:
            out.append((r["_doc"]["_path"], r["repeat"], got[0]))
    return out


def pick_metric(runs, asked):
    if asked:
        return asked
    return "net_ns_per_op" if all(R.metrics(r).get("net_ns_per_op") for r in runs) else "ns_per_op"


def variants_report(docs, alpha, asked_metric, out=sys.stdout):
    labels = R.host_labels(docs)
    groups = {}
    for r in R.tag_runs(docs):
        if R.measured(r):
            groups.setdefault((r["_host"], r["scenario"], r["placement"], r["threads"]), []).append(r)
    if not groups:
        print("no measured runs", file=out)
    for g in sorted(groups):
        runs = groups[g]
        metric = pick_metric(runs, asked_metric)
        unit = R.metric_unit(runs, metric)
        by_var = {}
        for r in runs:
            by_var.setdefault(r["variant"], []).append(r)
        print(f"\n{g[1]} {g[2]} ({g[3]} thread{'s' * (g[3] != 1)}) on {labels[g[0]]}: {metric} ({unit}), median [CI], n",
              file=out)
        print(f"  {'variant':<28} {'family':<12} {'n':>3} {'median [CI]':>30} {'ops/s median':>14}", file=out)
        vals = {}
        for v in sorted(by_var, key=lambda v: (P.FAMILIES.index(P.family(g[1], v)) if P.family(g[1], v) in P.FAMILIES
                                               else 9, v)):
            s = sample(by_var[v], metric)
            vals[v] = {(path, rep): x for path, rep, x in s}
            if not s:
                continue
            m = S.median_ci([x for _, _, x in s], alpha)
            ops = statistics.median([r["ops_per_sec"] for r in by_var[v]])
            fam = P.family(g[1], v, by_var[v][0].get("injected"))
            print(f"  {v:<28} {fam:<12} {len(s):>3} {fmt_ci(*m, fmt=lambda x: f'{x:.3g}'):>30} {R.si(ops):>14}", file=out)
        rows = P.triples(g[1], set(vals))
        if not rows:
            continue
        print(f"  ratio of {metric}, hand-rolled = 1 (paired by repeat; > 1: costs more than hand-rolled)", file=out)
        for what, *names in rows:
            cells, as_diff = P.ratio_cells(names, vals, metric, S.paired_ratio_ci, alpha)
            if as_diff:
                what += " (difference in ns: the reference costs ~0)"
            print(f"    {what}: " + " : ".join(cells), file=out)
    return 0


def hosts_report(docs, asked_metric, out=sys.stdout):
    labels = R.host_labels(docs)
    hosts = sorted(labels, key=lambda h: labels[h])
    cells = {}
    for r in R.tag_runs(docs):
        if R.measured(r):
            cells.setdefault((r["scenario"], r["variant"], r["placement"], r["threads"]), {}).setdefault(
                r["_host"], []).append(r)
    width = max(14, *(len(labels[h]) for h in hosts)) if hosts else 14
    print(f"{'scenario variant placement (threads)':<48} " + " ".join(f"{labels[h][:width]:>{width}}" for h in hosts),
          file=out)
    for k in sorted(cells):
        row = []
        for h in hosts:
            runs = cells[k].get(h, [])
            metric = pick_metric(runs, asked_metric) if runs else None
            s = [x for _, _, x in sample(runs, metric)] if runs else []
            row.append(f"{R.si(statistics.median(s))} n={len(s)}" if s else "-")
        print(f"{' '.join([k[0], k[1], k[2]]) + f' ({k[3]})':<48} " + " ".join(f"{c:>{width}}" for c in row), file=out)
    print(f"\nmedian ns/op per host (net of the loop where the scenario measures it); hosts are shown side by side, never pooled",
          file=out)
    return 0


def main(argv):
    args = list(argv)
    new_paths = None
    if "--" in args:
        i = args.index("--")
        args, new_paths = args[:i], args[i + 1:]
    ap = cli.Parser("compare", __doc__)
    ap.add_argument("paths", nargs="*", metavar="BASE", help="results files or directories")
    ap.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    ap.add_argument("--min-delta", type=float, default=3.0, metavar="PCT",
                    help="smallest change in percent worth calling a regression (default 3)")
    ap.add_argument("--metric", help="metric for --variants/--hosts: one the results' scenarios declare with a "
                    "direction (ops_per_sec, ns_per_op, net_ns_per_op, round_trip_p50_ns, ...)")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--variants", action="store_true", help="compare the variants within RESULTS")
    mode.add_argument("--hosts", action="store_true", help="one column per host, side by side")
    a = ap.parse_args(args)
    if not 0 < a.alpha < 1:
        ap.error(f"--alpha {a.alpha}: must be between 0 and 1")
    if a.min_delta < 0:
        ap.error(f"--min-delta {a.min_delta}: must not be negative")
    if a.variants or a.hosts:
        if new_paths is not None:
            ap.error("--variants and --hosts take one set of results, without '--'")
        if not a.paths:
            ap.error("no results given")
        docs = R.load_all(a.paths)
        if a.metric:
            known = R.metric_names(R.tag_runs(docs))
            if a.metric not in known:
                ap.error(f"--metric {a.metric}: not a metric these results declare with a direction "
                         f"({', '.join(known)})")
        return variants_report(docs, a.alpha, a.metric) if a.variants else hosts_report(docs, a.metric)
    if new_paths is None:
        ap.error("two sets are compared as BASE... -- NEW... (or use --variants RESULTS...)")
    if not a.paths or not new_paths:
        ap.error("both BASE and NEW need at least one results file or directory")
    base = R.load_all(a.paths)
    new = R.load_all(new_paths)
    return 1 if compare(base, new, a.alpha, a.min_delta).regressions else 0


if __name__ == "__main__":
    sys.exit(cli.run("compare", main, sys.argv[1:]))
