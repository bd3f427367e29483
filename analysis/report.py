#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""One self-contained HTML report (inline SVG) and a Markdown summary from mmtorture results.

RESULTS are files or directories, from one host or many: hosts are never
pooled, each gets its own section.  Per host, scenario and placement: each
variant's median with its 95% interval, every run as a point, and the
ratios hand-rolled : liburcu : ck : C11 with intervals; round-trip latency;
witness rates; the kernel's activity; each counter in its own plot; the
history of every headline metric when the results span several runs in
time; with --baseline, the comparison against it.  The Markdown summary
goes next to the HTML (report.md).  Exit 2 on bad input, writing nothing.
"""
import calendar
import html
import io
import math
import os
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.realpath(__file__))
sys.path.insert(0, os.path.join(HERE, "lib"))
import cli  # noqa: E402
import mmt_results as R  # noqa: E402
import catalogue as C  # noqa: E402
import primitives as P  # noqa: E402
import stats as S  # noqa: E402
import svg  # noqa: E402
from importlib.machinery import SourceFileLoader  # noqa: E402

COLOURS = {"hand-rolled": "#3465a4", "liburcu": "#4e9a06", "ck": "#c4a000", "C11": "#ce5c00", "injected": "#cc0000",
           "unordered": "#888a85", "lock": "#8f5902", "kernel": "#5c3566", "other": "#75507b"}
# Families whose variants are primitives measured against each other; a
# scenario of only "kernel" (and injected) variants exercises the kernel.
PRIMITIVE_FAMILIES = set(P.FAMILIES) | {"unordered", "lock"}
esc = svg.esc


def colour(run):
    return COLOURS.get(P.family(run["scenario"], run["variant"], run.get("injected")), COLOURS["other"])


def headline(runs):
    """The metric a variant table is drawn in: the net cost where the scenario measures one, else ns per op."""
    if all(isinstance((r.get("metrics") or {}).get("net_ns_per_op"), (int, float)) for r in runs):
        return "net_ns_per_op", "ns per operation, loop subtracted", lambda r: r["metrics"]["net_ns_per_op"]
    unit = runs[0]["ops_unit"].rstrip("s") if runs else "op"
    return "ns_per_op", f"ns per {unit}", lambda r: r["ns_per_op"]


def ratio_table(scenario, by_var, get, metric):
    rows = P.triples(scenario, set(by_var))
    if not rows:
        return "", []
    vals = {v: {(r["_doc"]["_path"], r["repeat"]): get(r) for r in runs} for v, runs in by_var.items()}
    out = ['<table class="ratios"><tr><th>what</th>' + "".join(f"<th>{f}</th>" for f in P.FAMILIES) + "</tr>"]
    md = []
    for what, *names in rows:
        cells, as_diff = P.ratio_cells(names, vals, metric, S.paired_ratio_ci)
        if as_diff:
            what += " (ns difference: the reference costs ~0)"
        out.append(f"<tr><td>{esc(what)}</td>" + "".join(f"<td>{esc(c)}</td>" for c in cells) + "</tr>")
        md.append(f"| {what} | " + " | ".join(cells) + " |")
    out.append("</table><p class=\"note\">Ratios of the metric above to the first present of "
               f"{', '.join(P.FAMILIES)} (1 = same cost, above 1 costs more), paired by repeat, median with its 95% "
               "interval (the range, with its real coverage, below 6 repeats).</p>")
    return "\n".join(out), md


def plot_rows(by_var, get):
    rows = []
    order = lambda v: (P.FAMILIES.index(P.family(by_var[v][0]["scenario"], v))  # noqa: E731
                       if P.family(by_var[v][0]["scenario"], v) in P.FAMILIES else 9, v)
    for v in sorted(by_var, key=order):
        vals = [get(r) for r in by_var[v] if isinstance(get(r), (int, float))]
        if vals:
            rows.append((v, colour(by_var[v][0]), vals, S.median_ci(vals)))
    return rows


# The base-vs-new view's colours, by compare's mark (every row of a group
# whose CPUs sat differently is NOT COMPARABLE, whatever its repeats).
MARK_COLOURS = {"REGRESSION": "#cc0000", "improvement": "#4e9a06", "LOADED": "#c4a000",
                "NOT COMPARABLE": "#75507b", "UNDERPOWERED": "#888a85", "": "#3465a4"}
# Marks that give no answer: too few repeats, or nothing moved past chance.
NO_VERDICT = ("UNDERPOWERED", "")


def change_of(row):
    return abs(math.log(row["ratio"][0])) if row["ratio"] and row["ratio"][0] > 0 else 0.0


def view_rank(row):
    """A regression first (it fails the night), then the other verdicts,
    then rows with none; each by the size of its change."""
    tier = 0 if row["mark"] == "REGRESSION" else 2 if row["mark"] in NO_VERDICT else 1
    return tier, -change_of(row)


def base_vs_new(res, md, top=30):
    """What moved, in ten seconds: every compared metric as new/base with its
    interval, the verdicts first and then by the size of the change, coloured
    by verdict; a table of the same rows below (units, both sides' medians).
    A counter's row with no verdict is not drawn: a handful of context
    switches per million operations halves or doubles between any two
    nights, and those rows would bury the ones that answer; they are
    counted in a line under the plot.  A row without a ratio (a side's runs
    hold a 0: 0 -> 0, or from a base of 0) cannot be drawn on a ratio axis:
    the title counts it, a line under the plot names it, and the table
    shows its medians."""
    quiet = [r for r in res.rows if r.get("counter") and r["mark"] in NO_VERDICT]
    rows = sorted((r for r in res.rows if not (r.get("counter") and r["mark"] in NO_VERDICT)), key=view_rank)
    shown = [r for r in rows if r["ratio"]][:top]
    no_ratio = [r for r in rows if not r["ratio"]]
    verdicts = sum(r["mark"] not in NO_VERDICT for r in shown)
    plot = svg.change_plot(f"new against base: {len(shown)} of {len(rows)} metrics"
                           + (f" ({len(no_ratio)} without a ratio, listed below)" if no_ratio else "")
                           + f", verdicts ({verdicts}) first, then by size of change",
                           [(f"{r['metric']} · {r['group'].split(' on ')[0]}", MARK_COLOURS.get(r["mark"], "#3465a4"),
                             r["ratio"]) for r in shown],
                           note="red: REGRESSION; green: improvement; yellow: LOADED; purple: NOT COMPARABLE; "
                                "grey: UNDERPOWERED; blue: no change")

    def with_unit(r, side):
        return svg.fmt(r[side][0]) + (f" {r['unit']}" if r["unit"] else "")

    def change(r):
        if r["ratio"]:
            return f"{(r['ratio'][0] - 1) * 100:+.1f}%"
        return f"{with_unit(r, 'base')} -> {with_unit(r, 'new')}"

    notes = []
    if no_ratio:
        names = ", ".join(f"{r['metric']} · {r['group'].split(' on ')[0]} ({change(r)})" for r in no_ratio)
        notes.append(("no-ratio", f"{len(no_ratio)} row{'s' * (len(no_ratio) != 1)} without a ratio (a side's runs "
                                  f"hold a 0), in the table, not drawn: {names}"))
    if quiet:
        by_name = {}
        for r in quiet:
            by_name[r["metric"]] = by_name.get(r["metric"], 0) + 1
        names = ", ".join(f"{m} ({n})" for m, n in sorted(by_name.items()))
        notes.append(("left-out", f"{len(quiet)} counter row{'s' * (len(quiet) != 1)} with no verdict (UNDERPOWERED "
                                  f"or no change), not drawn: {names}"))
    cells = []
    md.append("## Against the baseline\n\n| group | metric | base | new | change | p | verdict |\n|---|---|---|---|---|---|---|")
    for r in shown + no_ratio:
        # A row without a ratio has no change to judge: 0 -> 0 is none,
        # anything else no verdict.
        verdict = r["mark"] or ("no change" if r["ratio"] or r["base"][0] == r["new"][0] else "no verdict")
        cells.append(f'<tr style="color:{MARK_COLOURS.get(r["mark"], "#000")}"><td>{esc(r["group"])}</td>'
                     f'<td>{esc(r["metric"])}</td><td>{esc(with_unit(r, "base"))}</td>'
                     f'<td>{esc(with_unit(r, "new"))}</td><td>{esc(change(r))}</td>'
                     f'<td>{r["p"]:.3f}</td><td>{esc(verdict)}</td></tr>')
        md.append(f"| {r['group']} | {r['metric']} | {with_unit(r, 'base')} | {with_unit(r, 'new')} | "
                  f"{change(r)} | {r['p']:.3f} | {verdict} |")
    md.append("")
    for _cls, text in notes:
        md += [text + ".", ""]
    return (plot + "".join(f'<p class="note {cls}">{esc(text)}.</p>' for cls, text in notes)
            + '<table class="changes"><tr><th>group</th><th>metric</th><th>base median</th>'
            '<th>new median</th><th>change</th><th>p</th><th>verdict</th></tr>' + "".join(cells) + "</table>")


def latency_section(measured):
    """A dot plot per latency metric a scenario declares as worth comparing,
    per placement and quantile."""
    parts = []
    for sc in sorted({r["scenario"] for r in measured}):
        decls = (C.scenario(sc) or {}).get("metrics", {})
        for name, decl in decls.items():
            if decl["kind"] != "latency" or decl["better"] == "neutral":
                continue
            lat = [r for r in measured if r["scenario"] == sc and isinstance((r.get("metrics") or {}).get(name), dict)]
            for pl in sorted({r["placement"] for r in lat}):
                by_var = {}
                for r in lat:
                    if r["placement"] == pl:
                        by_var.setdefault(r["variant"], []).append(r)
                for q, qn in (("median", "median"), ("p99", "99th percentile")):
                    parts.append(svg.dot_plot(f"{sc} {name.replace('_', ' ')}, {qn} · {pl}", decl["unit"],
                                              plot_rows(by_var, lambda r, q=q, n=name: r["metrics"][n][q])))
    if parts:
        parts = ['<section class="latency"><h3>Latency</h3>'] + parts + ["</section>"]
    return parts


def host_section(label, runs, md):
    parts = []
    measured = [r for r in runs if R.measured(r)]
    groups = {}
    for r in measured:
        groups.setdefault((r["scenario"], r["placement"], r["threads"]), []).append(r)
    parts.append('<section class="comparison"><h3>Primitives compared</h3>')
    for (sc, pl, th) in sorted(groups):
        g = groups[(sc, pl, th)]
        if not any(P.family(sc, r["variant"]) in PRIMITIVE_FAMILIES for r in g):
            continue
        name, unit, get = headline(g)
        by_var = {}
        for r in g:
            by_var.setdefault(r["variant"], []).append(r)
        title = f"{sc} · {pl} · {th} thread{'s' * (th != 1)}"
        parts.append(f"<h4>{esc(title)}</h4>")
        parts.append(svg.dot_plot(f"{title}: {name}", unit, plot_rows(by_var, get)))
        table, rmd = ratio_table(sc, by_var, get, name)
        parts.append(table)
        md.append(f"#### {label}: {title} ({unit})\n\n| variant | n | median [interval, 95% unless printed] |\n|---|---|---|")
        for v, _c, vals, (med, lo, hi, cover) in plot_rows(by_var, get):
            tag = "" if cover >= 0.95 else f" {cover * 100:.0f}%"
            md.append(f"| {v} | {len(vals)} | {svg.fmt(med)} [{svg.fmt(lo)}, {svg.fmt(hi)}]{tag} |")
        if rmd:
            md.append("\n| ratio | " + " | ".join(P.FAMILIES) + " |\n|---" + "|---" * len(P.FAMILIES) + "|")
            md += rmd
        md.append("")
    parts.append("</section>")

    parts += latency_section(measured)

    # Runs that count how often a test's outcome showed (witness_rate).
    lit = [r for r in measured if isinstance((r.get("metrics") or {}).get("witness_rate"), (int, float))]
    if lit:
        by_var = {}
        for r in lit:
            by_var.setdefault(f"{r['variant']} · {r['placement']}", []).append(r)
        rows = []
        for v in sorted(by_var):
            vals = [r["metrics"]["witness_rate"] * 100 for r in by_var[v]]
            r0 = by_var[v][0]
            c = "#cc0000" if any(r["status"] == "witnessed" for r in by_var[v]) else (
                "#3465a4" if r0["forbidden"] else "#4e9a06")
            rows.append((v, c, vals, S.median_ci(vals)))
        parts.append('<section class="litmus"><h3>Witness rates</h3>')
        parts.append(svg.dot_plot("iterations whose outcome satisfies exists", "% of iterations", rows,
                                  note="blue: forbidden here; green: allowed; red: FORBIDDEN AND SEEN"))
        parts.append("</section>")
        md.append(f"#### {label}: witness rates\n\n| test | verdict | observation |\n|---|---|---|")
        md += [f"| {r['variant']} | {r['verdict']} | {r['metrics'].get('observation')} |" for r in lit]
        md.append("")

    # Scenarios that exercise the kernel (a variant of the "kernel" family),
    # their injected variants too: what it did, from the metrics of these
    # that the scenario declares.
    kernel = {r["scenario"] for r in measured if P.family(r["scenario"], r["variant"]) == "kernel"} | {
        sc for sc in {r["scenario"] for r in measured}
        if any(v["family"] == "kernel" for v in ((C.scenario(sc) or {}).get("variants") or {}).values())}
    mm = [r for r in measured if r["scenario"] in kernel]
    if mm:
        wanted = ("migrations_in_window", "window_writes", "pages_moved", "writer_faults", "walk_mean_us")
        cols = [c for c in wanted if any(C.metric(r["scenario"], c) for r in mm)]
        rows = "".join("<tr>" + "".join(f"<td>{esc(x)}</td>" for x in (
            r["scenario"], r["variant"], r["placement"], r["repeat"], r["status"],
            R.u64((r.get("witnesses") or {}).get("count")),
            *(svg.fmt(r["metrics"].get(c)) if isinstance(r["metrics"].get(c), (int, float))
              else "-" if r["metrics"].get(c) is None else r["metrics"].get(c) for c in cols))) + "</tr>" for r in mm)
        parts.append('<section class="mmrace"><h3>Kernel activity</h3><table><tr><th>scenario</th><th>variant</th>'
                     '<th>placement</th><th>rep</th><th>status</th><th>lost</th>'
                     + "".join(f"<th>{c}</th>" for c in cols) + f"</tr>{rows}</table></section>")

    # One plot per counter and scenario: scenarios count different things
    # per op, and one axis for all squeezes most rows to 0.  A counter that
    # stayed 0 everywhere is said in a line, not drawn.
    events = {}
    unsupported = set()
    for r in measured:
        for ev in ((r.get("counters") or {}).get("events") or []):
            if ev["status"] == "ok" and isinstance(ev.get("per_op"), (int, float)) and ev["kind"] != "tracepoint":
                events.setdefault((ev["name"], r["scenario"]), {}).setdefault(
                    f"{r['variant']} · {r['placement']}", []).append((r, ev["per_op"]))
            elif ev["status"] != "ok":
                unsupported.add(f"{ev['name']}: {ev.get('reason')}")
    parts.append('<section class="counters"><h3>Counters per operation</h3>')
    zero = []
    for name, sc in sorted(events):
        rows = events[(name, sc)]
        if all(x == 0 for v in rows.values() for _, x in v):
            zero.append(f"{name} ({sc})")
            continue
        unit = "ns per op" if R.counter_unit(name) == "ns/op" else f"{name} per op"
        parts.append(svg.dot_plot(f"{sc}: {name} per operation", unit,
                                  [(k, colour(v[0][0]), [x for _, x in v], S.median_ci([x for _, x in v]))
                                   for k, v in sorted(rows.items())]))
    if zero:
        parts.append(f"<p>0 in every run: {esc(', '.join(zero))}</p>")
    parts += [f"<p>unsupported: {esc(u)}</p>" for u in sorted(unsupported)]
    parts.append("</section>")
    return "\n".join(parts)


def epoch(doc):
    try:
        return calendar.timegm(time.strptime(doc["metadata"]["started_at"], "%Y-%m-%dT%H:%M:%SZ"))
    except (ValueError, TypeError):
        return None


def history(label, docs):
    """Headline metric per variant across runs made at different times."""
    times = {epoch(d) for d in docs} - {None}
    if len(times) < 2:
        return ""
    series = {}
    for d in docs:
        t = epoch(d)
        if t is None:
            continue
        per = {}
        for r in d["runs"]:
            if R.measured(r):
                per.setdefault((r["scenario"], r["placement"], r["variant"]), []).append(r)
        for k, runs in per.items():
            name, unit, get = headline(runs)
            vals = [get(r) for r in runs]
            series.setdefault((k[0], k[1], name, unit), {}).setdefault(k[2], []).append(
                (t, statistics.median(vals), f"{os.path.basename(d['_path'])}: median {svg.fmt(statistics.median(vals))} "
                                              f"of {len(vals)}"))
    out = []
    for (sc, pl, name, unit), by_var in sorted(series.items()):
        s = [(f"{v} ({P.family(sc, v)})", pts) for v, pts in sorted(by_var.items())]
        out.append(svg.line_plot(f"history: {sc} · {pl} · {name} (median of each run set)", unit, s))
    out = [o for o in out if o]
    return ('<section class="history"><h3>History</h3>' + "\n".join(out) + "</section>") if out else ""


def cell(x):
    """A table cell: a value as a reader would write it, never Python's None or a list's repr."""
    if x is None:
        return "-"
    if isinstance(x, (list, tuple)):
        return " ".join(cell(v) for v in x)
    return str(x)


def metadata_table(docs, labels):
    rows = []
    for d in docs:
        m = d["metadata"]
        sysm = m.get("system") or {}
        urcu = ", ".join(f"{os.path.basename(x['path'])} {(x.get('build_id') or '')[:12]}" for x in m.get("liburcu") or [])
        rows.append("<tr>" + "".join(f"<td>{esc(cell(x))}</td>" for x in (
            os.path.basename(d["_path"]), labels[R.host_id(d)], m.get("started_at"), (m.get("kernel") or {}).get("release"),
            (m.get("cpu") or {}).get("model"), (m.get("topology") or {}).get("online_cpus"),
            len((m.get("topology") or {}).get("nodes", [])), m["harness"].get("git_revision"),
            m["harness"].get("compiler"), f"{m.get('liburcu_version')} {urcu}".strip(),
            (m.get("settings") or {}).get("thp_enabled"), (m.get("settings") or {}).get("numa_balancing"),
            sysm.get("loadavg"), sysm.get("cpufreq_governor"))) + "</tr>")
    return ("<table><tr><th>file</th><th>host</th><th>started</th><th>kernel</th><th>CPU</th><th>CPUs</th><th>nodes</th>"
            "<th>git</th><th>compiler</th><th>liburcu (loaded)</th><th>THP</th><th>NUMA balancing</th><th>load</th>"
            "<th>governor</th></tr>" + "\n".join(rows) + "</table>")


def not_ok_reasons(runs, most=4):
    """The runs that did not give a figure (skipped, inconclusive,
    invalid...), by status and reason, most frequent first: a headline of
    "40 skipped" must say why."""
    why = {}
    for r in runs:
        if r["status"] in ("ok", "witnessed"):
            continue
        text = r.get("reason") or "no reason recorded"
        key = (r["status"], text)
        why[key] = why.get(key, 0) + 1
    out = []
    for status in sorted({k[0] for k in why}):
        rows = sorted(((n, t) for (s, t), n in why.items() if s == status), reverse=True)
        more = sum(n for n, _ in rows[most:])
        out.append(f"{status}: " + "; ".join(f"{t} ({n})" for n, t in rows[:most])
                   + (f"; {more} more for other reasons" if more else ""))
    return out


def build(docs, base_docs=None):
    labels = R.host_labels(docs + (base_docs or []))
    runs = R.tag_runs(docs)
    if base_docs:
        R.tag_runs(base_docs)
    counts = {}
    for r in runs:
        counts[r["status"]] = counts.get(r["status"], 0) + 1
    summary = ", ".join(f"{n} {s}" for s, n in sorted(counts.items()))
    hosts = sorted({R.host_id(d) for d in docs}, key=lambda h: labels[h])
    md = [f"# mmtorture report\n\n{len(docs)} results files, {len(runs)} runs ({summary}) from "
          f"{len(hosts)} host{'s' * (len(hosts) != 1)}: {', '.join(labels[h] for h in hosts)}.\n"]
    md += [f"- {w}.\n" for w in not_ok_reasons(runs)]
    body = [f"<h1>mmtorture report</h1><p>{len(docs)} results files, {len(runs)} runs: {esc(summary)}. "
            f"{len(hosts)} host{'s' * (len(hosts) != 1)}: {esc(', '.join(labels[h] for h in hosts))}"
            f"{' (never pooled: one section each)' if len(hosts) > 1 else ''}.</p>",
            "".join(f'<p class="note">{esc(w)}.</p>' for w in not_ok_reasons(runs)),
            '<p class="legend">' + " ".join(f'<span style="color:{c}">&#9632; {esc(n)}</span>'
                                            for n, c in COLOURS.items()) + "</p>"]
    if base_docs:
        compare_mod = SourceFileLoader("mmt_compare", os.path.join(HERE, "compare.py")).load_module()
        text = io.StringIO()
        res = compare_mod.compare(base_docs, docs, 0.05, 3.0, out=text)
        loaded = len({k for k, *_ in res.loaded})
        body.append(f'<section id="baseline"><h2>Against the baseline</h2><p>{len(res.regressions)} regressions, '
                    f'{len(res.improvements)} improvements, {len(res.underpowered)} metrics UNDERPOWERED, '
                    f'{len(res.not_comparable)} group{"s" * (len(res.not_comparable) != 1)} NOT COMPARABLE, '
                    f'{loaded} group{"s" * (loaded != 1)} LOADED.</p>'
                    + base_vs_new(res, md) +
                    f"<details><summary>compare's full text</summary><pre>{esc(text.getvalue())}</pre></details>"
                    "</section>")
        md.append(f"## Against the baseline (compare's text)\n\n```\n{text.getvalue()}```\n")
    for h in hosts:
        hdocs = [d for d in docs if R.host_id(d) == h]
        hruns = [r for r in runs if r["_host"] == h]
        body.append(f'<section class="host" id="host-{esc(h[:16])}"><h2>Host {esc(labels[h])}</h2>')
        md.append(f"## Host {labels[h]}\n")
        body.append(host_section(labels[h], hruns, md))
        body.append(history(labels[h], hdocs))
        body.append("</section>")
    body.append(f'<section id="metadata"><h2>Run metadata</h2>{metadata_table(docs, labels)}</section>')
    page = ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>mmtorture report</title>"
            "<style>body{font-family:sans-serif;max-width:1200px;margin:auto}td,th{border:1px solid #ccc;"
            "padding:2px 6px}table{border-collapse:collapse;font-size:12px;margin:6px 0}.note{color:#555;"
            "font-size:12px}pre{font-size:11px;overflow-x:auto}</style></head><body>\n"
            + "\n".join(body) + "\n</body></html>\n")
    return page, "\n".join(md) + "\n"


def write_atomic(path, text):
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".report.", dir=d)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def main(argv):
    ap = cli.Parser("report", __doc__)
    ap.add_argument("results", nargs="+", metavar="RESULTS", help="results files or directories")
    ap.add_argument("--output", "-o", default="report.html", metavar="FILE.html",
                    help="the HTML (default report.html); the Markdown goes beside it as .md")
    ap.add_argument("--baseline", metavar="DIR", action="append",
                    help="also compare RESULTS against these results (repeatable)")
    a = ap.parse_args(argv)
    out_dir = os.path.dirname(os.path.abspath(a.output))
    if not os.path.isdir(out_dir) or not os.access(out_dir, os.W_OK):
        raise R.ResultsError(f"--output {a.output}: directory {out_dir} is not a writable directory")
    docs = R.load_all(a.results)
    base = R.load_all(a.baseline) if a.baseline else None
    page, md = build(docs, base)
    md_path = os.path.splitext(a.output)[0] + ".md"
    write_atomic(a.output, page)
    write_atomic(md_path, md)
    print(f"report: {a.output} and {md_path} ({len(docs)} files)")
    return 0


if __name__ == "__main__":
    sys.exit(cli.run("report", main, sys.argv[1:]))
