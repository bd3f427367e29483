#!/bin/sh
# One schema: results/schema.json as read by the Python readers and by
# mmtorture-result (harness/schema.c) agree on a generated corpus of valid
# and damaged files; every refusal names the file and the field; each
# damaged file through compare, compare --variants or report in turn, and
# nightly on a sixth of them, exits 2 with one line, never a traceback,
# and writes nothing.
. "${MMT_SRCDIR:-.}/tests/lib.sh"

if ! python3 -c 'import jsonschema' 2>/dev/null; then
	skip "python3 and python3-jsonschema are needed for the Python readers"
	done_testing
	exit
fi
S="$MMT_SRCDIR/scripts"
run msgpass --variant mb,once-wmb-rmb --iterations 2000 --output "$scratch/real.json"
[ "$rc" -eq 0 ]
ok $? "a real result to damage (exit $rc)"
run msgpass --variant mb --threads $((ncpus + 1)) --duration 50ms --output "$scratch/skipped.json"
[ -s "$scratch/skipped.json" ] || cp "$scratch/real.json" "$scratch/skipped.json"

C="$scratch/corpus"
n=$(python3 "$MMT_SRCDIR/tests/reports-corpus.py" "$C" "$scratch/real.json" "$scratch/skipped.json")
[ "$n" -ge 60 ]
ok $? "corpus of $n files generated (at least 60)"

# The C verdicts, one line per file: NAME rc message
for f in "$C"/*.json; do
	"$MMT_VALIDATE" "$f" >/dev/null 2>"$scratch/c.err"
	crc=$?
	printf '%s\t%s\t%s\n' "$(basename "$f")" "$crc" "$(head -c 400 "$scratch/c.err" | tr '\t\n' '  ')"
done >"$scratch/c.tsv"

python3 - "$MMT_SRCDIR/analysis/lib" "$C" "$scratch/c.tsv" <<'PY'
import os, sys
sys.path.insert(0, sys.argv[1])
import mmt_results as R
corpus, ctsv = sys.argv[2], sys.argv[3]
expect = {}
for line in open(os.path.join(corpus, "expect.tsv"), encoding="utf-8"):
    name, cls, field = line.rstrip("\n").split("\t")
    expect[name] = (cls, field)
c = {}
for line in open(ctsv, encoding="utf-8"):
    name, rc, msg = line.rstrip("\n").split("\t", 2)
    c[name] = (int(rc), msg)
bad = []
for name, (cls, field) in sorted(expect.items()):
    path = os.path.join(corpus, name)
    try:
        R.load(path)
        py_ok, py_msg = True, ""
    except R.ResultsError as e:
        py_ok, py_msg = False, str(e)
    crc, cmsg = c[name]
    if crc not in (0, 1, 2):
        bad.append(f"{name}: mmtorture-result exit {crc} (crashed?) {cmsg}")
        continue
    c_ok = crc == 0
    if c_ok != py_ok:
        bad.append(f"{name}: C {'accepts' if c_ok else 'refuses'} ({cmsg}), Python {'accepts' if py_ok else 'refuses'} ({py_msg})")
    elif cls == "valid" and not py_ok:
        bad.append(f"{name}: a valid file refused by both: {py_msg}")
    elif cls == "bad" and py_ok:
        bad.append(f"{name}: a damaged file accepted by both")
    elif not c_ok and path not in cmsg:
        bad.append(f"{name}: mmtorture-result's message does not name the file: {cmsg}")
    elif not py_ok and not py_msg.startswith(path + ": "):
        bad.append(f"{name}: Python's message does not start with the file: {py_msg}")
    elif cls == "bad" and field and (field not in py_msg or field not in cmsg):
        bad.append(f"{name}: a message does not name {field}: C '{cmsg}', Python '{py_msg}'")
    print(f"# {name}: {'accepted' if py_ok else 'refused: ' + py_msg[len(path) + 2:][:110]}")
for b in bad:
    print(f"# DISAGREE {b}")
sys.exit(1 if bad else 0)
PY
ok $? "schema in Python and C agree on all $n corpus files; both name the file, and the field of each designed damage"


# The readers on the files both refuse: exit 2, one line naming the
# file, no traceback, nothing on stdout, nothing written.
good="$C/$(ls "$C" | grep '^valid-.*-real-0.json$')"
printf '%s\n' "msgpass --variant mb --duration 50ms" >"$scratch/suite"
fails=0
checked=0
# check_reader NAME FILE CMD...: exit 2, one stderr line naming FILE, no
# traceback, nothing on stdout.
check_reader() {
	name=$1 f=$2
	shift 2
	"$@" >"$scratch/o" 2>"$scratch/e"
	r=$?
	if [ "$r" -ne 2 ] || [ -s "$scratch/o" ] || grep -q Traceback "$scratch/e" ||
		[ "$(wc -l <"$scratch/e")" -ne 1 ] || ! grep -qF "$f" "$scratch/e"; then
		echo "# $name on $(basename "$f"): exit $r: $(head -c 300 "$scratch/e")"
		fails=$((fails + 1))
	fi
}
# Each damaged file through one reader, the three in turn: every file's
# refusal is the loader's, checked in-process above for all of them; what
# a reader adds is its exit code and its one line, the same code for every
# file (a Python start is a second on a loaded 2-vCPU machine, and three a
# file took a quarter of this suite's CPU time on this test).
for f in "$C"/bad-*.json; do
	checked=$((checked + 1))
	case $((checked % 3)) in
	0) check_reader compare "$f" "$S/compare" "$good" -- "$f" ;;
	1) check_reader "compare --variants" "$f" "$S/compare" --variants "$f" ;;
	2) check_reader report "$f" "$S/report" --output "$scratch/rep.html" "$f" ;;
	esac
	[ -e "$scratch/rep.html" ] && { echo "# report wrote a file for $(basename "$f")"; fails=$((fails + 1)); rm -f "$scratch/rep.html"; }
done
[ "$fails" -eq 0 ] && [ "$checked" -ge 40 ]
ok $? "$checked damaged files, each through compare, compare --variants or report in turn: exit 2, one line naming the file ($fails failures)"

fails=0
for f in $(ls "$C"/bad-*.json | awk 'NR % 6 == 1'); do
	rm -rf "$scratch/base" "$scratch/res"
	mkdir -p "$scratch/base"
	cp "$f" "$scratch/base/"
	MMT_RESULTS_DIR="$scratch/res" "$S/nightly" "$scratch/suite" --runner "$MMT_BIN" --baseline "$scratch/base" >"$scratch/o" 2>"$scratch/e"
	r=$?
	if [ "$r" -ne 2 ] || grep -q Traceback "$scratch/e" || ! grep -q "$(basename "$f")" "$scratch/e" ||
		[ -e "$scratch/res/nightly" ]; then
		echo "# nightly with baseline $(basename "$f"): exit $r: $(head -c 300 "$scratch/e")"
		fails=$((fails + 1))
	fi
done
[ "$fails" -eq 0 ]
ok $? "nightly refuses a damaged baseline before running anything, exit 2 naming the file"

# compare's own failure is never exit 1 (1 means "regressed").
MMT_COMPARE_SELFTEST_CRASH=1 "$S/compare" "$good" -- "$good" >/dev/null 2>"$scratch/e"
r=$?
[ "$r" -eq 3 ] && grep -q 'internal error' "$scratch/e"
ok $? "an internal error in compare exits 3, not 1 (exit $r: $(head -c 200 "$scratch/e"))"

done_testing
