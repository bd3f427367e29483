#!/bin/sh
# compare, report and nightly: a synthetic 10% regression with low noise is
# flagged, noise alone is not, differently placed runs are not comparable,
# bad files are refused; the report is well-formed with every plot; the
# nightly runner writes JUnit, fails on a forbidden witness and accepts a
# clean run as the next baseline.
. "${MMT_SRCDIR:-.}/tests/lib.sh"

if ! command -v python3 >/dev/null 2>&1; then
	skip "python3 is needed for compare, report and nightly"
	done_testing
	exit
fi
S="$MMT_SRCDIR/scripts"
run msgpass --variant mb --iterations 2000 --output "$scratch/real.json"
[ "$rc" -eq 0 ]
ok $? "a real result to build synthetic ones from"

# synth DIR SCALE NOISE PROBE: 5 copies with ops_per_sec = 1e6 * SCALE * (1 + noise_i)
synth() {
	mkdir -p "$1"
	python3 - "$scratch/real.json" "$@" <<'PY'
import json, sys
src, out, scale, noise, probe = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
doc = json.load(open(src))
for i, n in enumerate([-1, -0.5, 0, 0.5, 1]):
    r = doc["runs"][0]
    r["ops_per_sec"] = 1e6 * scale * (1 + n * noise)
    r["ns_per_op"] = 1e9 / r["ops_per_sec"]
    r["metrics"]["round_trip_ns"] = {"median": 1000 / scale, "p99": 1200 / scale, "p999": 2000, "samples": 100}
    r["counters"] = None
    for side in ("before", "after"):
        r["probe"][side] = [{"cpus": [0, 1], "round_trip_ns": 2 * probe, "one_way_ns": probe}]
    json.dump(doc, open(f"{out}/r{i}.json", "w"))
PY
}
synth "$scratch/base" 1.0 0.005 30
synth "$scratch/slow" 0.9 0.005 30
synth "$scratch/noise" 1.0 0.012 31
synth "$scratch/moved" 0.9 0.005 100

"$S/compare" "$scratch/base" -- "$scratch/slow" >"$scratch/out" 2>&1
rc=$?
[ "$rc" -eq 1 ] && grep -q 'ops_per_sec .* -10.0% .* REGRESSION' "$scratch/out"
ok $? "compare: a 10% loss with 0.5% noise is a REGRESSION (exit $rc)"
grep -q 'round_trip_p50_ns .* REGRESSION' "$scratch/out"
ok $? "compare: lower-is-better metrics judged the right way round"
"$S/compare" "$scratch/base" -- "$scratch/noise" >"$scratch/out" 2>&1
rc=$?
[ "$rc" -eq 0 ] && ! grep -q REGRESSION "$scratch/out"
ok $? "compare: noise alone is not a regression (exit $rc)"
"$S/compare" "$scratch/base" -- "$scratch/moved" >"$scratch/out" 2>&1
rc=$?
[ "$rc" -eq 0 ] && grep -q 'NOT COMPARABLE' "$scratch/out" && ! grep -q REGRESSION "$scratch/out"
ok $? "compare: runs whose CPUs sat differently are not comparable, not a regression"
"$S/compare" "$scratch/slow" -- "$scratch/base" >"$scratch/out" 2>&1
[ $? -eq 0 ] && grep -q improvement "$scratch/out"
ok $? "compare: the reverse is an improvement, exit 0"

head -c 300 "$scratch/real.json" >"$scratch/trunc.json"
"$S/compare" "$scratch/trunc.json" -- "$scratch/base" >"$scratch/out" 2>"$scratch/err"
[ $? -eq 2 ] && grep -q "trunc.json: not valid JSON" "$scratch/err" && [ ! -s "$scratch/out" ]
ok $? "compare: a truncated file is refused, exit 2 ($(cat "$scratch/err"))"
echo '{"hello": 1}' >"$scratch/other.json"
"$S/compare" "$scratch/other.json" -- "$scratch/base" >/dev/null 2>"$scratch/err"
[ $? -eq 2 ] && grep -q "not an mmtorture results document" "$scratch/err"
ok $? "compare: another JSON document is refused, exit 2"
"$S/compare" "$scratch/base" >/dev/null 2>"$scratch/err"
[ $? -eq 2 ]
ok $? "compare: no '--' separator is a usage error"

if [ "$ncpus" -ge 2 ]; then
	run litmus --test SB,MP --primitives kernel --sync 2 --duration 100ms --output "$scratch/lit.json"
	run mmrace --variant broken-stale-mapping --duration 200ms --walk-pages 2048 --output "$scratch/mm.json"
fi
"$S/report" --output "$scratch/rep.html" "$scratch/real.json" "$scratch/lit.json" "$scratch/mm.json" "$scratch/base" >/dev/null
[ $? -eq 0 ] && [ -s "$scratch/rep.html" ] && [ -s "$scratch/rep.md" ]
ok $? "report: HTML and Markdown written"
python3 - "$scratch/rep.html" <<'PY'
import re, sys, xml.etree.ElementTree as ET
from html.parser import HTMLParser
text = open(sys.argv[1]).read()
class P(HTMLParser):
    pass
P().feed(text)
svgs = re.findall(r"<svg.*?</svg>", text, re.S)
for s in svgs:
    ET.fromstring(s)
for sid in ("throughput", "latency", "litmus", "mmrace", "counters", "metadata"):
    assert f'<section id="{sid}">' in text, sid
assert len(svgs) >= 5, len(svgs)
PY
ok $? "report: every section present, every SVG well-formed XML"
"$S/report" --output "$scratch/bad.html" "$scratch/trunc.json" >/dev/null 2>"$scratch/err"
[ $? -eq 2 ] && [ ! -e "$scratch/bad.html" ]
ok $? "report: bad input refused, nothing written"

if [ "$ncpus" -ge 2 ]; then
	printf '%s\n' "# two lines" "msgpass --variant mb --duration 50ms" \
		"msgpass --variant broken-publish-first --iterations 20000 --assume-forbidden" >"$scratch/bad-suite"
	printf '%s\n' "msgpass --variant mb,release-acquire --duration 50ms --repeat 2" >"$scratch/good-suite"
	MMT_RESULTS_DIR="$scratch/res" "$S/nightly" "$scratch/bad-suite" >"$scratch/out" 2>&1
	rc=$?
	j=$(ls "$scratch"/res/nightly/bad-suite-*/junit.xml 2>/dev/null | head -n 1)
	[ "$rc" -eq 1 ] && [ -n "$j" ] && python3 -c "
import sys, xml.etree.ElementTree as ET
t = ET.parse(sys.argv[1]).getroot()
assert t.tag == 'testsuite' and t.get('failures') == '1' and int(t.get('tests')) == 2, t.attrib
" "$j" && [ ! -e "$scratch/res/nightly/bad-suite-accepted" ]
	ok $? "nightly: a forbidden witness fails the suite (exit $rc), JUnit says so, nothing accepted"
	MMT_RESULTS_DIR="$scratch/res" "$S/nightly" "$scratch/good-suite" >"$scratch/out" 2>&1
	rc=$?
	[ "$rc" -eq 0 ] && [ -L "$scratch/res/nightly/good-suite-accepted" ]
	ok $? "nightly: a clean run exits 0 and becomes the baseline"
	MMT_RESULTS_DIR="$scratch/res" "$S/nightly" "$scratch/good-suite" >"$scratch/out" 2>&1
	rc=$?
	c=$(ls -t "$scratch"/res/nightly/good-suite-2*/compare.txt | head -n 1)
	grep -q '^baseline: ' "$c" && grep -q 'msgpass mb' "$c"
	ok $? "nightly: the next run is compared with the accepted one (exit $rc)"
else
	skip "nightly runs need 2 CPUs"
fi

done_testing
