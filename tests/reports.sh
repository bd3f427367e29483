#!/bin/sh
# compare, report and nightly: a synthetic 10% regression with low noise is
# flagged, noise alone is not, differently placed runs are not comparable,
# too few repeats are UNDERPOWERED (never "0 regressions"), hosts are never
# pooled; the report has a section per host and every plot has axes, ticks,
# a unit and a point per run (checked in headless Chromium when installed);
# nightly writes JUnit with regressions as failures and a reproduce command,
# moves the baseline only with --accept, and prunes.
. "${MMT_SRCDIR:-.}/tests/lib.sh"

if ! python3 -c 'import jsonschema' 2>/dev/null; then
	skip "python3 and python3-jsonschema are needed for compare, report and nightly"
	done_testing
	exit
fi
S="$MMT_SRCDIR/scripts"
run msgpass --variant mb --iterations 2000 --label 6.1-base --output "$scratch/real.json"
[ "$rc" -eq 0 ] && [ "$(get "$scratch/real.json" metadata.label)" = 6.1-base ]
ok $? "a real result to build synthetic ones from, under --label 6.1-base"

# synth DIR SCALE NOISE PROBE [COPIES [HOST]]: copies with ops_per_sec =
# 1e6 * SCALE * (1 + noise_i); HOST replaces the machine's identity.
synth() {
	mkdir -p "$1"
	python3 - "$scratch/real.json" "$@" <<'PY'
import json, sys
src, out, scale, noise, probe = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
copies = int(sys.argv[6]) if len(sys.argv) > 6 else 5
host = sys.argv[7] if len(sys.argv) > 7 else None
doc = json.load(open(src))
nights = bool(host)
if host:
    doc["metadata"]["hostname"] = host
    doc["metadata"]["host"] = {"hostname": host, "machine_id": host * 4, "cpu_model": "x", "kernel_release": "6.1"}
steps = [(-1 + 2 * i / (copies - 1)) if copies > 1 else 0 for i in range(copies)]
for i, n in enumerate(steps):
    r = doc["runs"][0]
    r["ops_per_sec"] = 1e6 * scale * (1 + n * noise)
    r["ns_per_op"] = 1e9 / r["ops_per_sec"]
    r["metrics"]["round_trip_ns"] = {"median": 1000 / scale, "p99": 1200 / scale, "p999": 2000, "samples": 100}
    r["metrics"]["stale_words"] = 0
    r["counters"] = None
    for side in ("before", "after"):
        r["probe"][side] = [{"cpus": [0, 1], "round_trip_ns": 2 * probe, "one_way_ns": probe}]
    if nights:   # one copy a night: the report draws their history
        doc["metadata"]["started_at"] = f"2026-11-{10 + i:02d}T03:00:00Z"
    json.dump(doc, open(f"{out}/r{i}.json", "w"))
PY
}
synth "$scratch/base" 1.0 0.005 30
synth "$scratch/slow" 0.9 0.005 30
synth "$scratch/noise" 1.0 0.012 31
synth "$scratch/moved" 0.9 0.005 100
synth "$scratch/base3" 1.0 0.005 30 3
synth "$scratch/slow3" 0.5 0.005 30 3
synth "$scratch/hostA" 1.0 0.005 30 5 alpha
synth "$scratch/hostB" 3.0 0.005 30 5 bravo
synth "$scratch/moved3" 0.5 0.005 100 3
python3 - "$scratch/slow" <<'PY'
import glob, json, sys
for f in glob.glob(sys.argv[1] + "/*.json"):
    d = json.load(open(f))
    d["metadata"]["label"] = "patched"
    json.dump(d, open(f, "w"))
PY

"$S/compare" "$scratch/base" -- "$scratch/slow" >"$scratch/out" 2>&1
rc=$?
[ "$rc" -eq 1 ] && grep -q 'ops_per_sec .* -10.0% \[.*\] .* REGRESSION' "$scratch/out"
ok $? "compare: a 10% loss with 0.5% noise is a REGRESSION with its interval (exit $rc)"
head -1 "$scratch/out" | grep -qx "base: 6.1-base; new: patched"
ok $? "compare: each side headed by its --label"
grep -q 'round_trip_p50_ns .* REGRESSION' "$scratch/out"
ok $? "compare: lower-is-better metrics judged the right way round"
grep -q 'stale_words' "$scratch/out" || ! grep -q '+0.0%' "$scratch/out"
ok $? "compare: no '+0.0%' printed for a change from a base of 0"
"$S/compare" "$scratch/base" -- "$scratch/noise" >"$scratch/out" 2>&1
rc=$?
[ "$rc" -eq 0 ] && ! grep -q REGRESSION "$scratch/out"
ok $? "compare: noise alone is not a regression (exit $rc)"
"$S/compare" "$scratch/base" -- "$scratch/moved" >"$scratch/out" 2>&1
rc=$?
[ "$rc" -eq 0 ] && grep -q 'NOT COMPARABLE' "$scratch/out" && ! grep -q REGRESSION "$scratch/out" &&
	grep -q '; 1 group not comparable' "$scratch/out"
ok $? "compare: runs whose CPUs sat differently are not comparable, header and footer agree"
# NOT COMPARABLE comes before UNDERPOWERED (#30: a moved group of 3 v 3
# repeats showed as grey UNDERPOWERED rows while the summary counted it
# NOT COMPARABLE): whatever its power, every row of the group, the
# report's view, nightly's JUnit and summary say NOT COMPARABLE alone.
"$S/compare" "$scratch/base3" -- "$scratch/moved3" >"$scratch/out" 2>&1
rc=$?
sed 's/^/# /' "$scratch/out"
rows=$(grep '^  [a-z]' "$scratch/out" | grep -v '^  metric ')
[ "$rc" -eq 0 ] && ! grep -q UNDERPOWERED "$scratch/out" && grep -q '; 1 group not comparable' "$scratch/out" &&
	[ -n "$rows" ] && ! printf '%s\n' "$rows" | grep -qv '  NOT COMPARABLE$'
ok $? "compare: a moved group with too few repeats is NOT COMPARABLE on every row, never UNDERPOWERED"
python3 - "$S" "$scratch/base3" "$scratch/moved3" >"$scratch/py.out" 2>&1 <<'PY'
import io, os, sys, xml.etree.ElementTree as ET
from importlib.machinery import SourceFileLoader
S = sys.argv[1]
nightly = SourceFileLoader("nightly", os.path.join(S, "nightly")).load_module()
report = SourceFileLoader("report", os.path.join(S, "report")).load_module()
R, compare = nightly.R, nightly.compare_mod
base, new = R.load_all([sys.argv[2]]), R.load_all([sys.argv[3]])
o = compare.compare(base, new, 0.05, 3.0, out=io.StringIO())
o.groups = set(compare.group(base)) & set(compare.group(new))
assert len(o.not_comparable) == 1 and not o.underpowered, (o.not_comparable, o.underpowered)
assert o.rows and {r["mark"] for r in o.rows} == {"NOT COMPARABLE"}, [r["mark"] for r in o.rows]
t = nightly.junit("s", [], [], o, 0, 0, R.host_labels(base)).getroot()
perf = [tc for tc in t.iter("testcase") if tc.get("classname").endswith(".performance")]
assert [(k.tag, k.get("message").split(":")[0]) for tc in perf for k in tc] == [("skipped", "NOT COMPARABLE")], \
    ET.tostring(t)
lines = nightly.performance_lines(o, 0.05, 3.0)
print(lines)
assert any(l.startswith("NOT COMPARABLE: 1 of 1 groups") for l in lines) and not any("UNDERPOWERED" in l for l in lines)
md = []
view = report.base_vs_new(o, md)
print(view[:600])
assert report.MARK_COLOURS["UNDERPOWERED"] not in view, "grey rows"
assert view.count(report.MARK_COLOURS["NOT COMPARABLE"]) >= 2 * len(o.rows), "the plot and table rows purple"
PY
r=$?
sed 's/^/# /' "$scratch/py.out"
[ "$r" -eq 0 ]
ok $? "NOT COMPARABLE before UNDERPOWERED in compare's outcome, nightly's JUnit and summary, and the report's view"
"$S/compare" "$scratch/slow" -- "$scratch/base" >"$scratch/out" 2>&1
[ $? -eq 0 ] && grep -q improvement "$scratch/out"
ok $? "compare: the reverse is an improvement, exit 0"
"$S/compare" "$scratch/base3" -- "$scratch/slow3" >"$scratch/out" 2>&1
rc=$?
[ "$rc" -eq 0 ] && grep -q '^UNDERPOWERED: .*at least 4 a side' "$scratch/out" && ! grep -q REGRESSION "$scratch/out"
ok $? "compare: 3 v 3 repeats (best p 0.1) are UNDERPOWERED even for a halving, not '0 regressions'"
"$S/compare" "$scratch/hostA" -- "$scratch/hostB" >"$scratch/out" 2>&1
rc=$?
[ "$rc" -eq 0 ] && grep -q 'no host is in both sets' "$scratch/out" && ! grep -q REGRESSION "$scratch/out"
ok $? "compare: runs of two hosts are never compared with each other"
"$S/compare" "$scratch/base" "$scratch/hostA" -- "$scratch/slow" "$scratch/hostB" >"$scratch/out" 2>&1
[ $? -eq 1 ] && grep -c 'REGRESSION' "$scratch/out" | grep -qv '^0$' && grep -q 'on alpha' "$scratch/out" &&
	! grep -q 'alpha .*REGRESSION' "$scratch/out"
ok $? "compare: with two hosts on each side, each host is compared with itself only"
"$S/compare" --hosts "$scratch/hostA" "$scratch/hostB" >"$scratch/out" 2>&1
[ $? -eq 0 ] && head -n 1 "$scratch/out" | grep -q 'alpha.*bravo' && grep -q 'msgpass mb same-node' "$scratch/out"
ok $? "compare --hosts: hosts side by side, one column each"

head -c 300 "$scratch/real.json" >"$scratch/trunc.json"
"$S/compare" "$scratch/trunc.json" -- "$scratch/base" >"$scratch/out" 2>"$scratch/err"
[ $? -eq 2 ] && grep -q "trunc.json: not valid JSON" "$scratch/err" && [ ! -s "$scratch/out" ]
ok $? "compare: a truncated file is refused, exit 2 ($(cat "$scratch/err"))"
"$S/compare" "$scratch/base" >/dev/null 2>"$scratch/err"
[ $? -eq 2 ] && [ "$(wc -l <"$scratch/err")" -eq 1 ]
ok $? "compare: no '--' separator is a usage error, one line"
for s in compare report nightly bench-ring bench-litmus; do
	"$S/$s" --help >"$scratch/out" 2>&1 && grep -q -- '--help' "$scratch/out" && grep -qi 'usage' "$scratch/out"
	ok $? "$s --help"
done

if [ "$ncpus" -ge 2 ]; then
	run msgpass --variant mb,urcu-mb,c11-seq-cst --duration 100ms --repeat 6 --output "$scratch/var.json"
	[ "$rc" -eq 0 ]
	ok $? "18 runs for the within-run comparison (exit $rc: $(printf '%s' "$err" | head -c 300))"
	"$S/compare" --variants "$scratch/var.json" >"$scratch/out" 2>&1
	# n is 6 unless the loaded host left a 50 ms run without one message
	[ $? -eq 0 ] && grep -q '^  mb  *hand-rolled  *[4-6] ' "$scratch/out" &&
		grep -q 'full barrier both sides: mb: 1 : urcu-mb: [0-9.]* \[[0-9.]*, [0-9.]*\]\( [0-9]*%\)\{0,1\} (n=[4-6]) : - : c11-seq-cst: ' "$scratch/out"
	ok $? "compare --variants: medians with intervals and n, ratios hand-rolled : liburcu : ck : C11 with intervals (ck not run: -)"
	run litmus --test SB,MP --primitives kernel --sync 2 --duration 100ms --output "$scratch/lit.json"
	run mmrace --variant broken-stale-mapping --duration 200ms --walk-pages 2048 --output "$scratch/mm.json"
else
	skip "within-run comparison needs 2 CPUs"
fi
run barrier-cost --variant mb,urcu-mb,c11-fence-seq-cst,rmb --duration 50ms --repeat 2 --output "$scratch/bc.json"
[ "$rc" -eq 0 ] && python3 - "$scratch/bc.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["runs"]) == 8, len(d["runs"])
for r in d["runs"]:
    m = r["metrics"]
    assert m["chunks"] > 0 and r["iterations"] == m["chunks"] * m["ops_per_chunk"], m
    assert abs(m["gross_ns_per_op"] - m["loop_ns_per_op"] - m["net_ns_per_op"]) < 1e-9, m
    assert r["threads"] == 1 and len(r["cpus"]) == 1
PY
ok $? "barrier-cost: every run times chunks and reports net = gross - loop per op"

have=
for f in var lit mm bc; do [ -s "$scratch/$f.json" ] && have="$have $scratch/$f.json"; done
# shellcheck disable=SC2086
"$S/report" --output "$scratch/rep.html" "$scratch/real.json" $have "$scratch/hostA" "$scratch/hostB" >"$scratch/out" 2>&1
[ $? -eq 0 ] && [ -s "$scratch/rep.html" ] && [ -s "$scratch/rep.md" ]
ok $? "report: HTML and Markdown written ($(head -c 300 "$scratch/out"))"
python3 - "$scratch/rep.html" >"$scratch/py.out" 2>&1 <<'PY'
import re, sys, xml.etree.ElementTree as ET
text = open(sys.argv[1]).read()
svgs = re.findall(r"<svg.*?</svg>", text, re.S)
assert len(svgs) >= 5, len(svgs)
for s in svgs:
    root = ET.fromstring(s)
    ns = {"s": "http://www.w3.org/2000/svg"}
    axis = root.findall(".//s:g[@class='axis x']", ns)
    assert axis, "a plot without an x axis"
    ticks = axis[0].findall("s:g[@class='tick']", ns)
    assert len(ticks) >= 2 and all(t.find("s:text", ns).text for t in ticks), "ticks without labels"
    label = axis[0].find("s:text[@class='axis-label']", ns)
    assert label is not None and label.text, "an axis without a unit"
    for row in root.findall(".//s:g[@class='row']", ns):
        assert len(row.findall("s:circle[@class='point']", ns)) == int(row.get("data-n")), "a run without its point"
# hosts never pooled: one section each, and no bar drawn from both
assert text.count('<section class="host"') >= 3, text.count('<section class="host"')
assert 'Host alpha' in text and 'Host bravo' in text
for sid in ("metadata",):
    assert f'<section id="{sid}">' in text, sid
assert "unordered" in text and "barrier-cost" in text
# counters: one plot per counter and scenario, never one axis for all
counter_plots = re.findall(r'aria-label="([^"]*) per operation"', text)
assert counter_plots and all(": " in t and t.split(": ")[0] in ("msgpass", "litmus", "mmrace", "barrier-cost")
                             for t in counter_plots), counter_plots
# no Python in the cells: None is "-", a list its values
assert ">None<" not in text and "<td>[" not in text, "a Python repr in a cell"
hist = [s for s in svgs if 'class="plot history"' in s]
# alpha and bravo: one copy a night for five nights
assert sum(s.count('class="point"') >= 5 for s in hist) >= 2, [s.count('class="point"') for s in hist]
PY
r=$?
sed 's/^/# /' "$scratch/py.out"
[ "$r" -eq 0 ]
ok $? "report: every plot has an axis with labelled ticks and a unit, a point per run; a section per host; history across nights"
grep -q 'Host alpha' "$scratch/rep.md" && grep -q 'Host bravo' "$scratch/rep.md"
ok $? "report: the Markdown keeps hosts apart too"
# One stalled run does not stretch the axis until every median reads 0:
# it is drawn at the edge and counted.
mkdir -p "$scratch/stall"
cp "$scratch"/base/*.json "$scratch/stall/"
python3 - "$scratch/stall/r0.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["runs"][0]["ns_per_op"] *= 1e5
d["runs"][0]["ops_per_sec"] /= 1e5
json.dump(d, open(sys.argv[1], "w"))
PY
"$S/report" --output "$scratch/stall.html" "$scratch/stall" >/dev/null 2>&1
grep -q 'data-clipped="1"' "$scratch/stall.html" && grep -q '1 run past the axis (up to ' "$scratch/stall.html"
ok $? "report: a run 100000x the others is drawn at the axis' edge and counted, the rest keep their scale"

# Against a baseline the report leads with what moved: every metric as
# new/base with its interval on a log axis, the verdicts first, coloured,
# and a table of the same rows; compare's text folded below.
"$S/report" --output "$scratch/bl.html" --baseline "$scratch/base" "$scratch/slow" >"$scratch/out" 2>&1
python3 - "$scratch/bl.html" >"$scratch/py.out" 2>&1 <<'PY'
import re, sys, xml.etree.ElementTree as ET
text = open(sys.argv[1]).read()
sec = text[text.index('<section id="baseline">'):]
sec = sec[:sec.index("</section>")]
plot = re.search(r'<svg class="plot change".*?</svg>', sec, re.S).group(0)
root = ET.fromstring(plot)
ns = {"s": "http://www.w3.org/2000/svg"}
assert root.findall(".//s:g[@class='axis x']/s:text[@class='axis-label']", ns), "no axis"
rows = re.findall(r'<tr style="color:(#[0-9a-f]+)"><td>[^<]*</td><td>([^<]*)</td>.*?<td>([^<]*)</td></tr>', sec)
print(rows)
assert rows and rows[0][0] == "#cc0000" and rows[0][2] == "REGRESSION", rows
assert {r[1] for r in rows if r[2] == "REGRESSION"} >= {"ops_per_sec", "round_trip_p50_ns"}, rows
assert sec.index('class="plot change"') < sec.index("<details>"), "the view leads"
PY
r=$?
sed 's/^/# /' "$scratch/py.out"
[ "$r" -eq 0 ]
ok $? "report --baseline: the base-vs-new view leads, regressions first in red, with a log-scale axis"

# Counters beside the metrics (#30: a nightly's view was 30 grey,
# clipped context-switches/op rows with no verdict): a counter's row is
# drawn when it bears a verdict, else counted in one line under the plot.
for d in base slow; do
	mkdir -p "$scratch/$d-ctr"
	python3 - "$scratch/$d-ctr" "$scratch/$d"/*.json <<'PY'
import json, os, sys
def ev(name, per_op):
    return {"name": name, "kind": "software", "scope": "thread", "status": "ok", "reason": None, "value": 1.0,
            "scaling": 1.0, "per_op": per_op, "encoding": {"via": "software", "pmu": "perf", "note": None}}
slow = "slow" in os.path.basename(sys.argv[1])
for i, f in enumerate(sorted(sys.argv[2:])):
    d = json.load(open(f))
    r = d["runs"][0]
    # the same switches on both sides, shuffled; task-clock follows ns_per_op
    r["counters"] = {"events": [ev("context-switches", [1, 2, 3, 4, 5][(i + 2 * slow) % 5] * 1e-4),
                                ev("task-clock", r["ns_per_op"])]}
    json.dump(d, open(os.path.join(sys.argv[1], os.path.basename(f)), "w"))
PY
done
"$S/report" --output "$scratch/ctr.html" --baseline "$scratch/base-ctr" "$scratch/slow-ctr" >"$scratch/out" 2>&1
python3 - "$scratch/ctr.html" "$S" >"$scratch/py.out" 2>&1 <<'PY'
import math, re, sys, xml.etree.ElementTree as ET
from importlib.machinery import SourceFileLoader
text = open(sys.argv[1]).read()
sec = text[text.index('<section id="baseline">'):]
sec = sec[:sec.index("</section>")]
plot = re.search(r'<svg class="plot change".*?</svg>', sec, re.S).group(0)
labels = [t for t in re.findall(r'<text x="[0-9.]+" y="[0-9.]+" text-anchor="end">([^<]*)</text>', plot)]
print(labels)
assert any(l.startswith("task-clock/op") for l in labels), "a counter's REGRESSION is drawn"
assert any(l.startswith("ops_per_sec") for l in labels)
assert not any(l.startswith("context-switches/op") for l in labels), "a counter with no verdict is drawn"
assert "context-switches/op" not in re.search(r'<table class="changes">.*?</table>', sec, re.S).group(0), "in the table"
assert re.search(r'<p class="note left-out">1 counter row with no verdict \(UNDERPOWERED or no change\), '
                 r'not drawn: context-switches/op \(1\)\.</p>', sec), sec[:3000]

# The order, on rows of every mark: a regression, the other verdicts,
# then the rest, each by size of change; counters without a verdict out.
report = SourceFileLoader("report", sys.argv[2] + "/report").load_module()
class Res:
    rows = []
def row(metric, mark, ratio, counter=False):
    return {"metric": metric, "group": "g on h", "mark": mark, "ratio": (ratio, ratio * 0.9, ratio * 1.1),
            "counter": counter, "unit": "ns", "base": (1, 0, 2, 0.95), "new": (ratio, 0, 2, 0.95), "p": 0.01}
Res.rows = [row("quiet", "", 3.0), row("under", "UNDERPOWERED", 0.2), row("loaded", "LOADED", 1.3),
            row("nc", "NOT COMPARABLE", 0.5), row("reg", "REGRESSION", 1.05), row("imp", "improvement", 0.9),
            row("ctr-under", "UNDERPOWERED", 0.01, True), row("ctr-none", "", 5.0, True),
            row("ctr-reg", "REGRESSION", 2.0, True), row("ctr-nc", "NOT COMPARABLE", 1.2, True)]
md = []
got = re.findall(r'<text x="[0-9.]+" y="[0-9.]+" text-anchor="end">([a-z-]+) ', report.base_vs_new(Res, md))
print(got)
assert got == ["ctr-reg", "reg", "nc", "loaded", "ctr-nc", "imp", "under", "quiet"], got
assert any("2 counter rows with no verdict" in l and "ctr-none (1), ctr-under (1)" in l for l in md), md
PY
r=$?
sed 's/^/# /' "$scratch/py.out"
[ "$r" -eq 0 ]
ok $? "report --baseline: counters' rows drawn only with a verdict, the rest counted under the plot; verdicts first"
# Units on every row (#30: the counters' rows had none): task-clock per
# op in ns/op, the other counters in count/op, in compare's text and in
# the report's table and Markdown.
"$S/compare" "$scratch/base-ctr" -- "$scratch/slow-ctr" >"$scratch/out" 2>&1
sed 's/^/# /' "$scratch/out"
rows=$(grep '^  [a-z]' "$scratch/out" | grep -v '^  metric ')
grep -q '^  metric  *unit ' "$scratch/out" && grep -q '^  task-clock/op  *ns/op  ' "$scratch/out" &&
	grep -q '^  context-switches/op  *count/op  ' "$scratch/out" && grep -q '^  ops_per_sec  *ops/s  ' "$scratch/out" &&
	[ -n "$rows" ] && ! printf '%s\n' "$rows" | awk '{ print $2 }' | grep -q '^[0-9-]'
ok $? "compare: every row has its unit, counters' too (task-clock ns/op, context-switches count/op)"
python3 - "$scratch/ctr.html" "$scratch/ctr.md" >"$scratch/py.out" 2>&1 <<'PY'
import re, sys
text = open(sys.argv[1]).read()
table = re.search(r'<table class="changes">.*?</table>', text, re.S).group(0)
rows = re.findall(r'<tr style="color:#[0-9a-f]+"><td>[^<]*</td><td>([^<]*)</td><td>([^<]*)</td><td>([^<]*)</td>', table)
print(rows)
assert rows and all(re.fullmatch(r"-?[0-9.]+[kMG]? [a-z/%]+", c) for _, b, n in rows for c in (b, n)), "a cell without a unit"
assert [b.split()[1] for m, b, _ in rows if m == "task-clock/op"] == ["ns/op"], rows
md = [l for l in open(sys.argv[2]) if l.startswith("| ") and "task-clock/op" in l]
assert md and " ns/op |" in md[0], md
PY
r=$?
sed 's/^/# /' "$scratch/py.out"
[ "$r" -eq 0 ]
ok $? "report --baseline: every base and new median in the change table has its unit, a counter's too"

# Rows without a ratio (0 -> 0, or a base of 0) are listed and counted,
# never dropped (#30: they were in neither the plot nor the table, and the
# title did not count them).
for d in base slow; do
	mkdir -p "$scratch/$d-zero"
	python3 - "$scratch/$d-zero" "$scratch/$d"/*.json <<'PY'
import json, os, sys
slow = "slow" in os.path.basename(sys.argv[1])
for f in sys.argv[2:]:
    d = json.load(open(f))
    lat = d["runs"][0]["metrics"]["round_trip_ns"]
    lat["median"] = 0                       # 0 -> 0
    lat["p99"] = 1200 if slow else 0        # from a base of 0
    json.dump(d, open(os.path.join(sys.argv[1], os.path.basename(f)), "w"))
PY
done
"$S/report" --output "$scratch/zero.html" --baseline "$scratch/base-zero" "$scratch/slow-zero" >"$scratch/out" 2>&1
python3 - "$scratch/zero.html" "$scratch/zero.md" >"$scratch/py.out" 2>&1 <<'PY'
import html, re, sys
text = open(sys.argv[1]).read()
sec = text[text.index('<section id="baseline">'):]
sec = sec[:sec.index("</section>")]
title = re.search(r'<text class="plot-title"[^>]*>([^<]*)</text>', sec).group(1)
print(title)
assert "2 without a ratio" in title, title
line = html.unescape(re.search(r'<p class="note no-ratio">([^<]*)</p>', sec).group(1))
print(line)
assert line.startswith("2 rows without a ratio") and "round_trip_p50_ns" in line and "round_trip_p99_ns" in line, line
table = re.search(r'<table class="changes">.*?</table>', sec, re.S).group(0)
cells = {m: html.unescape(c) for m, c in re.findall(
    r'<tr style="[^"]*"><td>[^<]*</td><td>([^<]*)</td><td>[^<]*</td><td>[^<]*</td><td>([^<]*)</td>', table)}
print(cells)
assert cells.get("round_trip_p50_ns") == "0 ns -> 0 ns" and cells.get("round_trip_p99_ns") == "0 ns -> 1.2k ns", cells
assert cells.get("ops_per_sec", "").startswith("-10.0%"), cells
md = open(sys.argv[2]).read()
assert "| round_trip_p50_ns |" in md and "2 rows without a ratio" in md, md
PY
r=$?
sed 's/^/# /' "$scratch/py.out"
[ "$r" -eq 0 ]
ok $? "report --baseline: rows without a ratio are in the table, counted in the title and listed under the plot"

# The change axis' tick labels never overlap, whatever the range (#30:
# -10%, 0% and +11% were drawn over each other on a 4x axis): from a
# tiny +-2% to a 100x change drawn at the edge.  The labels' boxes come
# from the widths svg.py computes; Chromium checks the drawn ones below.
python3 - "$MMT_SRCDIR/analysis/lib" "$scratch/ranges.html" >"$scratch/py.out" 2>&1 <<'PY'
import re, sys, xml.etree.ElementTree as ET
sys.path.insert(0, sys.argv[1])
import svg
ns = {"s": "http://www.w3.org/2000/svg"}
ranges = {"tiny": [1.02, 0.98], "ten": [1.1, 0.9, 1.11], "third": [1.3, 0.75], "double": [2.0, 0.5, 1.1],
          "four": [4.0, 0.9, 1.05], "huge": [100.0, 1.01, 0.01], "one-sided": [1.5, 1.2]}
page = {name: svg.change_plot(f"range {name}", [(f"row {i}", "#3465a4", (e, e * 0.97, e * 1.03))
                                                for i, e in enumerate(ests)]) for name, ests in ranges.items()}
open(sys.argv[2], "w").write("<!DOCTYPE html>\n<html><body>\n" + "\n".join(page.values()) + "\n</body></html>\n")
for name, s in page.items():
    root = ET.fromstring(s)
    width = float(root.get("width"))
    ticks = root.findall(".//s:g[@class='axis x']/s:g[@class='tick']/s:text", ns)
    labels = [t.text for t in ticks]
    boxes = sorted((float(t.get("x")) - svg.text_width(t.text) / 2, float(t.get("x")) + svg.text_width(t.text) / 2, t.text)
                   for t in ticks)
    print(name, labels)
    assert len(ticks) >= 3 and "0%" in labels, (name, labels)
    assert all(a[1] <= b[0] for a, b in zip(boxes, boxes[1:])), (name, "overlap", boxes)
    assert boxes[0][0] >= 0 and boxes[-1][1] <= width, (name, "outside", boxes, width)
    if name == "huge":
        assert len(root.findall(".//s:text[@class='clipped']", ns)) == 2, "100x and 1/100 drawn at the edge"
PY
r=$?
sed 's/^/# /' "$scratch/py.out"
[ "$r" -eq 0 ]
ok $? "report: the change axis' tick labels do not overlap, from +-2% to 100x"

# History: one colour per line, each named in the legend (#30: the
# hand-rolled variants' lines were all the same blue).  Two nights of
# four variants, which real.json's catalogue (mb alone) puts in one
# family.
mkdir -p "$scratch/hist"
python3 - "$scratch/real.json" "$scratch/hist" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
r0 = doc["runs"][0]
for night in (1, 2):
    d = json.loads(json.dumps(doc))
    d["metadata"]["started_at"] = f"2026-11-1{night}T03:00:00Z"
    d["runs"] = []
    for i, v in enumerate(("mb", "mb-fence", "once-wmb-rmb", "urcu-mb")):
        r = json.loads(json.dumps(r0))
        r["variant"], r["ns_per_op"] = v, 100.0 * (i + 1) * night
        r["ops_per_sec"] = 1e9 / r["ns_per_op"]
        d["runs"].append(r)
    d["summary"]["runs"] = d["summary"]["ok"] = 4
    json.dump(d, open(f"{sys.argv[2]}/n{night}.json", "w"))
PY
"$S/report" --output "$scratch/hist.html" "$scratch/hist" >"$scratch/out" 2>&1
python3 - "$scratch/hist.html" >"$scratch/py.out" 2>&1 <<'PY'
import re, sys, xml.etree.ElementTree as ET
ns = {"s": "http://www.w3.org/2000/svg"}
text = open(sys.argv[1]).read()
hist = [ET.fromstring(s) for s in re.findall(r'<svg class="plot history".*?</svg>', text, re.S)]
assert hist, "no history plot"
for root in hist:
    lines = root.findall(".//s:polyline", ns)
    styles = [(p.get("stroke"), p.get("stroke-dasharray")) for p in lines]
    print(root.get("aria-label"), styles)
    assert len(set(styles)) == len(lines) == 4, ("lines share a colour", styles)
    legend = {g.get("data-label"): (g.find("s:line", ns).get("stroke"), g.find("s:line", ns).get("stroke-dasharray"))
              for g in root.findall(".//s:g[@class='legend']", ns)}
    drawn = {g.get("data-label"): (g.find("s:polyline", ns).get("stroke"), g.find("s:polyline", ns).get("stroke-dasharray"))
             for g in root.findall(".//s:g[@class='line']", ns)}
    assert legend == drawn and sorted(l.split(" (")[0] for l in legend) == ["mb", "mb-fence", "once-wmb-rmb", "urcu-mb"], \
        (legend, drawn)
PY
r=$?
sed 's/^/# /' "$scratch/py.out"
[ "$r" -eq 0 ]
ok $? "report: history draws each variant's line in its own colour, named in the legend"
python3 - "$MMT_SRCDIR/analysis/lib" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import svg
assert len(set(svg.line_styles(30))) == 30
PY
ok $? "report: 30 history lines in one plot still have 30 styles"

# History's time axis: adjacent tick labels never read the same (#30:
# nights a minute apart were all labelled to the minute, one label
# several times).  Nights a minute, seconds, days and years apart, in the
# report and in the plot alone.
mkdir -p "$scratch/minutes"
python3 - "$scratch/real.json" "$scratch/minutes" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
for i, at in enumerate(("03:00:00", "03:01:00", "03:02:00")):
    doc["metadata"]["started_at"] = f"2026-11-10T{at}Z"
    doc["runs"][0]["ns_per_op"] = 100.0 + i
    json.dump(doc, open(f"{sys.argv[2]}/m{i}.json", "w"))
PY
"$S/report" --output "$scratch/minutes.html" "$scratch/minutes" >"$scratch/out" 2>&1
python3 - "$MMT_SRCDIR/analysis/lib" "$scratch/minutes.html" >"$scratch/py.out" 2>&1 <<'PY'
import re, sys, xml.etree.ElementTree as ET
sys.path.insert(0, sys.argv[1])
import svg
ns = {"s": "http://www.w3.org/2000/svg"}
def x_labels(plot):
    root = ET.fromstring(plot)
    return [t.text for t in root.findall(".//s:g[@class='axis x']/s:g[@class='tick']/s:text", ns)]
def check(name, plot):
    labels = x_labels(plot)
    print(name, labels)
    assert len(labels) >= 2, (name, labels)
    assert all(a != b for a, b in zip(labels, labels[1:])), (name, "a label repeats", labels)
hist = re.findall(r'<svg class="plot history".*?</svg>', open(sys.argv[2]).read(), re.S)
assert hist, "no history plot"
for h in hist:
    check("report, a minute apart", h)
day = 1795000000   # 2026-11-18
for name, times in (("a minute apart", (0, 60, 120)), ("seconds apart", (0, 1, 2)), ("one second", (0, 1)),
                    ("the same second", (0, 0)), ("hours", (0, 3600, 7 * 3600)), ("nights", (0, 86400, 2 * 86400)),
                    ("years", (0, 365 * 86400, 4 * 365 * 86400 + 86400))):
    check(name, svg.line_plot(name, "ns", [("a", [(day + t, 1.0 + i, "") for i, t in enumerate(times)])]))
PY
r=$?
sed 's/^/# /' "$scratch/py.out"
[ "$r" -eq 0 ]
ok $? "report: history's time axis never repeats a label on adjacent ticks, nights a minute to years apart"

"$S/report" --output "$scratch/bad.html" "$scratch/trunc.json" >/dev/null 2>"$scratch/err"
[ $? -eq 2 ] && [ ! -e "$scratch/bad.html" ]
ok $? "report: bad input refused, nothing written"

chromium=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -n "$chromium" ]; then
	# The page checks itself after layout: every plot's axis has visible
	# ticks and labels inside the plot, and the result lands in the DOM.
	cat >"$scratch/check.js" <<'JS'
var bad = [];
document.querySelectorAll("svg.plot").forEach(function (s, i) {
  var box = s.getBoundingClientRect();
  var ax = s.querySelector("g.axis.x, g.axis.y");
  if (!ax) { bad.push(i + ": no axis"); return; }
  var ticks = s.querySelectorAll("g.axis g.tick text");
  var lab = s.querySelector("text.axis-label");
  if (ticks.length < 2) bad.push(i + ": ticks " + ticks.length);
  if (!lab || lab.getBBox().width <= 0) bad.push(i + ": no visible axis label");
  ticks.forEach(function (t) {
    var b = t.getBoundingClientRect();
    if (b.width <= 0 || b.right > box.right + 1 || b.left < box.left - 1) bad.push(i + ": tick outside");
  });
  // no two tick labels of one axis drawn over each other
  s.querySelectorAll("g.axis").forEach(function (a) {
    var r = Array.prototype.map.call(a.querySelectorAll("g.tick text"), function (t) {
      return [t.getBoundingClientRect(), t.textContent];
    });
    for (var j = 0; j < r.length; j++)
      for (var k = j + 1; k < r.length; k++) {
        var p = r[j][0], q = r[k][0];
        if (p.left < q.right && q.left < p.right && p.top < q.bottom && q.top < p.bottom)
          bad.push(i + ": tick labels " + r[j][1] + " and " + r[k][1] + " overlap");
      }
  });
  if (box.width <= 0 || box.height <= 0) bad.push(i + ": not rendered");
});
document.body.setAttribute("data-plot-check",
  bad.length ? "BAD " + bad.join("; ") : "ok " + document.querySelectorAll("svg.plot").length);
JS
	# check PAGE: the page with check.js run in it, its verdict in $res.
	check() {
		python3 -c 'import sys; t = open(sys.argv[1]).read(); j = open(sys.argv[2]).read()
open(sys.argv[3], "w").write(t.replace("</body>", "<script>" + j + "</script></body>"))' \
			"$scratch/$1.html" "$scratch/check.js" "$scratch/$1-check.html"
		# A profile of its own: a user without a home (nobody under make
		# distcheck) has nowhere else for it, and Chromium stops without one.
		timeout -k 5 90 "$chromium" --headless --no-sandbox --disable-gpu --dump-dom \
			--user-data-dir="$scratch/chromium-profile" \
			"file://$scratch/$1-check.html" >"$scratch/dom.html" 2>/dev/null
		res=$(grep -o 'data-plot-check="[^"]*"' "$scratch/dom.html")
		printf '%s' "$res" | grep -q 'data-plot-check="ok [1-9]'
	}
	check rep
	ok $? "report in headless Chromium: every plot has rendered axes, ticks and labels, none overlapping ($res)"
	check ctr
	ok $? "report --baseline in headless Chromium: the same, the base-vs-new view included ($res)"
	check ranges
	ok $? "change plots from +-2% to 100x in headless Chromium: no tick labels overlap ($res)"
	check minutes
	ok $? "history of nights a minute apart in headless Chromium: the time axis' labels do not overlap ($res)"
else
	skip "headless Chromium not installed (apt-get install chromium): the rendered check needs it"
fi

if [ "$ncpus" -ge 2 ]; then
	printf '%s\n' "# two lines" "msgpass --variant mb --duration 50ms --repeat 1" \
		"msgpass --variant broken-publish-first --iterations 20000 --assume-forbidden --repeat 1" >"$scratch/bad-suite"
	printf '%s\n' "msgpass --variant mb --duration 200ms" >"$scratch/good-suite"
	MMT_RESULTS_DIR="$scratch/res" "$S/nightly" "$scratch/bad-suite" --runner "$MMT_BIN" --accept >"$scratch/out" 2>&1
	rc=$?
	j=$(ls "$scratch"/res/nightly/bad-suite-2*/junit.xml 2>/dev/null | head -n 1)
	[ "$rc" -eq 1 ] && [ -n "$j" ] && python3 -c "
import sys, xml.etree.ElementTree as ET
t = ET.parse(sys.argv[1]).getroot()
assert t.tag == 'testsuite' and t.get('failures') == '1' and int(t.get('tests')) == 2, t.attrib
assert t.get('timestamp') and t.get('hostname') and t.get('time'), t.attrib
f = t.find('.//failure')
assert 'reproduce: ./run-scenario msgpass --variant broken-publish-first --placement cpus:' in f.text, f.text
assert '--assume-forbidden' in f.text.split('reproduce: ')[1], f.text   # the flag that made it a failure
assert '--seed ' in f.text and 'histogram: ' in f.text, f.text
" "$j" && ! ls "$scratch"/res/nightly/ | grep -q accepted
	ok $? "nightly: a forbidden witness fails the suite (exit $rc), JUnit has the reproduce command, nothing accepted"

	# A malformed line is bad input found before anything runs (#31):
	# exit 2 naming it, no night directory made.
	printf '%s\n' "msgpass --variant mb --duration 50ms" "msgpass --varient mb" >"$scratch/typo-suite"
	MMT_RESULTS_DIR="$scratch/typo-res" "$S/nightly" "$scratch/typo-suite" --runner "$MMT_BIN" >"$scratch/out" 2>&1
	rc=$?
	[ "$rc" -eq 2 ] && [ ! -e "$scratch/typo-res" ] && grep -q "invocation 2 (msgpass --varient mb):.*did you mean --variant" "$scratch/out"
	ok $? "nightly: a malformed suite line is exit $rc before anything runs: $(tail -n 1 "$scratch/out")"

	# --estimate: the runs each line plans (--dry-run) and their time
	# bounds, nothing run or written; the ETA as the night goes.
	printf '%s\n' "msgpass --variant mb,plain --duration 200ms" "ring --variant cached --repeat 2 --duration 1s" \
		"mmrace --variant broken-early-epoch --repeat 1" >"$scratch/est-suite"
	MMT_RESULTS_DIR="$scratch/est-res" "$S/nightly" "$scratch/est-suite" --runner "$MMT_BIN" --repeats 3 --estimate \
		>"$scratch/out" 2>&1
	rc=$?
	[ "$rc" -eq 0 ] && [ ! -e "$scratch/est-res" ] &&
		grep -q "estimate: 9 runs, about 5 s, plus 1 run that ends once done" "$scratch/out"
	ok $? "nightly --estimate: 2x3 + 2 runs bounded by 3.2 s plus 0.25 s each, one open-ended; nothing written ($(cat "$scratch/out"))"
	MMT_RESULTS_DIR="$scratch/est-res" "$S/nightly" "$MMT_SRCDIR/suites/quick" --runner "$MMT_BIN" --estimate \
		>"$scratch/out" 2>&1
	# "about N s", or from 90 s on "about N min"
	secs=$(sed -n 's/.*estimate: [0-9]* runs[^,]*, about \([0-9]*\) \(s\|min\)[ ,].*/\1 \2/p' "$scratch/out" |
		awk '{ print $2 == "min" ? $1 * 60 : $1 }')
	[ -n "$secs" ] && [ "$secs" -le 180 ]
	ok $? "the shipped quick suite plans at most 3 minutes of fixed-length runs ($(cat "$scratch/out"))"
	printf '%s\n' "msgpass --variant mb --duration 50ms" "ring --variant cached --duration 50ms" >"$scratch/eta-suite"
	MMT_RESULTS_DIR="$scratch/eta-res" "$S/nightly" "$scratch/eta-suite" --runner "$MMT_BIN" --repeats 1 \
		>"$scratch/out" 2>&1
	grep -q "^\[1/2\] run-scenario msgpass.*; about [0-9]* s left, done near [0-9][0-9]:[0-9][0-9]$" "$scratch/out" &&
		grep -q "^\[2/2\] run-scenario ring.*([0-9]* s)$" "$scratch/out"
	ok $? "nightly says after each line how long the rest should take: $(grep '^\[1/2\]' "$scratch/out")"

	MMT_RESULTS_DIR="$scratch/res" "$S/nightly" "$scratch/good-suite" --runner "$MMT_BIN" --repeats 4 >"$scratch/out" 2>&1
	rc=$?
	[ "$rc" -eq 0 ] && ! ls "$scratch"/res/nightly/ | grep -q 'good-suite-accepted' && grep -q 'run with --accept' "$scratch/out"
	ok $? "nightly: a clean run without --accept does not become the baseline (exit $rc)"
	MMT_RESULTS_DIR="$scratch/res" "$S/nightly" "$scratch/good-suite" --runner "$MMT_BIN" --repeats 4 --accept >"$scratch/out" 2>&1
	rc=$?
	acc=$(ls -d "$scratch"/res/nightly/good-suite-accepted-* 2>/dev/null)
	[ "$rc" -eq 0 ] && [ -L "$acc" ] && [ -L "$scratch/res/nightly/good-suite-latest" ]
	ok $? "nightly --accept: this host's baseline link and the latest link (exit $rc)"
	before=$(readlink "$acc")
	MMT_RESULTS_DIR="$scratch/res" "$S/nightly" "$scratch/good-suite" --runner "$MMT_BIN" --repeats 4 --keep 1 --junit "$scratch/j.xml" >"$scratch/out" 2>&1
	c=$(ls -t "$scratch"/res/nightly/good-suite-2*/compare.txt | head -n 1)
	grep -q '^baseline: ' "$c" && grep -q 'msgpass mb same-node' "$c" && [ "$(readlink "$acc")" = "$before" ] &&
		[ -d "$scratch/res/nightly/$before" ] && [ "$(ls -d "$scratch"/res/nightly/good-suite-2* | wc -l)" -eq 2 ] &&
		[ -s "$scratch/j.xml" ]
	ok $? "nightly: compared with the accepted run, which stays put and survives --keep 1 pruning"

	# A baseline 100x faster from this same host: the new runs regress.
	mkdir -p "$scratch/fast"
	python3 - "$scratch/fast" "$scratch"/res/nightly/good-suite-latest/*.json <<'PY'
import json, sys
# The first result of the latest night with an operation in it: a loaded
# host can leave a short run without one, and a baseline made from that
# would be no faster.  The copies carry no probe pairs: this baseline is
# made up, so where its CPUs sat is unknown, and a probe copied from an
# earlier night made the new runs NOT COMPARABLE whenever the host had
# moved the vCPUs since (the placement check has its own test above).
docs = [json.load(open(f)) for f in sys.argv[2:]]
doc = next(d for d in docs if any(r["ns_per_op"] is not None for r in d["runs"]))
for i in range(4):
    d = json.loads(json.dumps(doc))
    for r in d["runs"]:
        if r.get("probe"):
            r["probe"]["before"] = r["probe"]["after"] = []
        if r["ns_per_op"] is None:
            continue
        r["ops_per_sec"] *= 100 * (1 + i / 1000)
        r["ns_per_op"] /= 100 * (1 + i / 1000)
        # ... although its night was the more loaded: the new runs' load
        # can never explain their being slower (compare's LOADED: beside
        # stress-ng the new night's workers held their CPUs so much less
        # than the copied night's that 100x was load's, and no verdict).
        c = r.get("conditions")
        if c:
            c["on_cpu"] = 0.001
            c["others_running"] = 100.0
    json.dump(d, open(f"{sys.argv[1]}/f{i}.json", "w"))
PY
	MMT_RESULTS_DIR="$scratch/res" "$S/nightly" "$scratch/good-suite" --runner "$MMT_BIN" --repeats 6 --baseline "$scratch/fast" \
		--junit "$scratch/j.xml" >"$scratch/out" 2>&1
	rc=$?
	sed -n 's/^/# /; /^# \(suite\|performance\|UNDERPOWERED\|LOADED\|NOT COMPARABLE\)/p' "$scratch/out"
	[ "$rc" -eq 1 ] && grep -q 'REGRESSION msgpass mb same-node' "$scratch/out" && python3 -c "
import sys, xml.etree.ElementTree as ET
t = ET.parse(sys.argv[1]).getroot()
f = [x for x in t.iter('failure') if x.get('type') == 'regression']
assert f and int(t.get('failures')) == len(f), t.attrib
assert 'ops_per_sec' in f[0].get('message') and 'reproduce: ./run-scenario msgpass --variant mb' in f[0].text, f[0].text
# the regression's own line: as many runs, compared with the same baseline
assert 'reproduce the regression: ./run-scenario msgpass --variant mb' in f[0].text and ' --repeat 6 --output ' in f[0].text, f[0].text
assert 'scripts/compare ' in f[0].text and '/fast -- ' in f[0].text, f[0].text
" "$scratch/j.xml" && grep -q "reproduce: ./run-scenario msgpass .* --repeat 6 .*&& scripts/compare .*/fast -- " "$scratch/out"
	ok $? "nightly: a performance regression is a JUnit failure with the reproduce command, repeats and compare included (exit $rc)"

	# A night cut short is marked and never becomes -latest (#30: an
	# interrupted night left an empty directory that latest pointed at).
	printf '%s\n' "msgpass --variant mb --duration 30s --repeat 1" >"$scratch/long-suite"
	before=$(readlink "$scratch/res/nightly/long-suite-latest" 2>/dev/null)
	MMT_RESULTS_DIR="$scratch/res" "$S/nightly" "$scratch/long-suite" --runner "$MMT_BIN" >"$scratch/out" 2>&1 &
	pid=$!
	n=0
	while ! ls -d "$scratch"/res/nightly/long-suite-2* >/dev/null 2>&1 && [ $n -lt 500 ]; do
		sleep 0.02
		n=$((n + 1))
	done
	sleep 1
	kill -TERM "$pid"
	wait "$pid"
	rc=$?
	night=$(ls -d "$scratch"/res/nightly/long-suite-2* 2>/dev/null | head -n 1)
	[ "$rc" -eq 130 ] && [ -n "$night" ] && [ -e "$night/INTERRUPTED" ] &&
		[ "$(readlink "$scratch/res/nightly/long-suite-latest" 2>/dev/null)" = "$before" ]
	ok $? "nightly stopped mid-night: exit $rc, the night marked INTERRUPTED, -latest untouched ($(readlink "$scratch/res/nightly/long-suite-latest" 2>/dev/null || echo none))"
	rm -rf "$night"

	# The nightly directory holds its -latest and -accepted links, and a
	# copy and the schema are put beside: every run is counted once, and
	# what is skipped is said (#30: 781 runs were counted for 521).
	cp "$(ls "$scratch"/res/nightly/good-suite-latest/*.json | head -n 1)" "$scratch/res/nightly/copy.json"
	cp "$MMT_SRCDIR/results/schema.json" "$scratch/res/nightly/"
	real=$(python3 - "$scratch/res/nightly" <<'PY'
import glob, json, os, sys
seen, runs = set(), 0
for f in glob.glob(os.path.join(sys.argv[1], "**", "*.json"), recursive=True):
    rp = os.path.realpath(f)
    if rp in seen or f.endswith(("copy.json", "schema.json")):
        continue
    seen.add(rp)
    runs += len(json.load(open(f))["runs"])
print(runs)
PY
)
	"$S/report" "$scratch/res/nightly" -o "$scratch/nightly.html" >"$scratch/out" 2>&1
	rc=$?
	counted=$(python3 - "$MMT_SRCDIR/analysis/lib" "$scratch/res/nightly" <<'PY'
import io, sys
sys.path.insert(0, sys.argv[1])
import mmt_results as R
print(sum(len(d["runs"]) for d in R.load_all([sys.argv[2]], say=io.StringIO())))
PY
)
	[ "$rc" -eq 0 ] && [ "$counted" = "$real" ] && grep -q "skipped 1 file holding runs already read (a copy) counted once; 1 not a results document" "$scratch/out"
	ok $? "a nightly directory with its links, a copy and the schema: $counted runs counted, $real real (report exit $rc: $(grep skipped "$scratch/out"))"
	# That directory with a stalled run's outlier beside it, rendered: the
	# plots keep their axes, ticks and labels apart.
	"$S/report" "$scratch/res/nightly" "$scratch/stall" -o "$scratch/nightly-all.html" >/dev/null 2>&1
	if [ -n "$chromium" ]; then
		check nightly-all
		ok $? "a nightly directory with links and a copy, and an outlier, in headless Chromium: plots intact ($res)"
	else
		skip "headless Chromium not installed: the nightly directory's report is not rendered"
	fi
else
	skip "nightly runs need 2 CPUs"
fi

# The headline says why runs gave no figure: "40 skipped" alone sent a
# reader of a guest's night looking (#30).  Two runs made skipped with
# reasons of their own, one inconclusive.
"$MMT_BIN" msgpass --variant mb,release-acquire,c11-release-acquire --duration 20ms --events none \
	--output "$scratch/why.json" >/dev/null 2>&1
python3 - "$scratch/why.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r, (st, why) in zip(d["runs"], [("skipped", "needs 9 nodes"), ("skipped", "needs 9 nodes"),
                                    ("inconclusive", "nothing raced")]):
    r["status"], r["reason"] = st, why
json.dump(d, open(sys.argv[1], "w"))
PY
"$S/report" "$scratch/why.json" -o "$scratch/why.html" >/dev/null 2>&1
rc=$?
[ "$rc" -eq 0 ] && grep -q '^- inconclusive: nothing raced (1)\.$' "$scratch/why.md" &&
	grep -q '^- skipped: needs 9 nodes (2)\.$' "$scratch/why.md" && grep -q 'skipped: needs 9 nodes (2)' "$scratch/why.html"
ok $? "the report's headline says why runs gave no figure, by status and reason with counts (exit $rc: $(grep '^- ' "$scratch/why.md" | tr '\n' ' '))"

# Three repeats give no 95% interval: the Markdown cell prints the
# coverage it has, under a header that does not claim 95% (#30).
"$MMT_BIN" msgpass --variant mb --repeat 3 --duration 20ms --events none --output "$scratch/three.json" >/dev/null 2>&1
"$S/report" "$scratch/three.json" -o "$scratch/three.html" >/dev/null 2>&1
rc=$?
[ "$rc" -eq 0 ] && grep -Eq '^\| mb \| 3 \| .*\] [0-9]+% \|$' "$scratch/three.md" && ! grep -q '\[95%\]' "$scratch/three.md"
ok $? "report: a 3-run cell prints its own coverage, no header claims 95% (exit $rc: $(grep '^| mb' "$scratch/three.md" | head -n 1))"

done_testing
