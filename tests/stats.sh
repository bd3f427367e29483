#!/bin/sh
# compare's statistics at scale (#31): iterative, no recursion, and near
# linear, so thousands of repeats a side compare in seconds (300 a side
# was a RecursionError, 100 a side took 36 s).  The fast paths give what
# the exact ones give where both run.
. "${MMT_SRCDIR:-.}/tests/lib.sh"

py=${MMT_PYTHON3:-python3}
S="$MMT_SRCDIR/scripts"
check() {  # check DESCRIPTION: runs the Python on stdin with analysis/lib on its path
	timeout -k 5 300 "$py" - "$MMT_SRCDIR/analysis/lib" >"$scratch/py.out" 2>&1
	ok $? "$1$(tail -n 1 "$scratch/py.out" | sed 's/^/: /')"
}

check "the exact U distribution, built iteratively, is the brute-force count for every m, n <= 5" <<'PY'
import itertools, sys
sys.path.insert(0, sys.argv[1])
import mwu
for m in range(6):
    for n in range(6):
        count = [0] * (m * n + 1)
        for pick in itertools.combinations(range(m + n), m):
            count[sum(sum(1 for j in range(m + n) if j not in pick and j < i) for i in pick)] += 1
        assert list(mwu.u_distribution(m, n)) == count, (m, n)
PY

check "the Hodges-Lehmann ratio and interval by bisection are the sorted list's" <<'PY'
import random, sys
sys.path.insert(0, sys.argv[1])
import stats
random.seed(7)
for m, n in ((6, 9), (20, 30), (50, 50)):
    a = [random.lognormvariate(0, 0.1) for _ in range(m)]
    b = [random.lognormvariate(0.05, 0.1) for _ in range(n)]
    listed = stats.ratio_ci(a, b)
    stats.LISTED_PAIRS = 0
    bisected = stats.ratio_ci(a, b)
    stats.LISTED_PAIRS = 250000
    assert all(abs(x - y) <= 1e-9 * abs(x) for x, y in zip(listed, bisected)), (m, n, listed, bisected)
PY

check "the median's interval in floating point is the exact one past 1000 repeats" <<'PY'
import random, sys
sys.path.insert(0, sys.argv[1])
import stats
random.seed(3)
x = [random.random() for _ in range(1200)]
k = 0
while k + 1 <= (len(x) - 1) // 2 and 2 * stats.binom_cdf(k + 1, len(x)) <= 0.05:
    k += 1
s = sorted(x)
med, lo, hi, cov = stats.median_ci(x)
assert (lo, hi) == (s[k], s[len(x) - 1 - k]), (k, lo, hi)
PY

check "10,000 repeats a side: ratio, interval, p, median interval and detectable change, no recursion" <<'PY'
import random, sys, time
sys.path.insert(0, sys.argv[1])
import mwu, stats
random.seed(11)
a = [random.lognormvariate(0, 0.1) for _ in range(10000)]
b = [random.lognormvariate(0.01, 0.1) for _ in range(10000)]
t = time.time()
est, lo, hi = stats.ratio_ci(a, b)
u, p = mwu.mann_whitney(a, b)
med = stats.median_ci(a)
dc = stats.detectable_change(a, b)
assert lo <= est <= hi and 0 <= p <= 1 and med[1] <= med[0] <= med[2] and dc > 0
print(f"ratio {est:.4f} [{lo:.4f}, {hi:.4f}], p {p:.2g}, in {time.time() - t:.1f} s")
PY

# And compare itself on 300 repeats a side, built from a real run.
run msgpass --variant mb --iterations 2000 --events none --output "$scratch/real.json"
"$py" - "$scratch/real.json" "$scratch" <<'PY'
import copy, json, random, sys
d = json.load(open(sys.argv[1]))
random.seed(5)
for side, shift in (("base", 1.0), ("new", 1.02)):
    doc = copy.deepcopy(d)
    run = doc["runs"][0]
    doc["runs"] = []
    for rep in range(300):
        r = copy.deepcopy(run)
        r["repeat"] = rep
        r["ops_per_sec"] = run["ops_per_sec"] * shift * random.lognormvariate(0, 0.05)
        r["ns_per_op"] = 1e9 / r["ops_per_sec"]
        doc["runs"].append(r)
    doc["summary"]["runs"] = doc["summary"]["ok"] = 300
    json.dump(doc, open(f"{sys.argv[2]}/{side}.json", "w"))
PY
timeout -k 5 300 "$py" "$S/compare" "$scratch/base.json" -- "$scratch/new.json" >"$scratch/out" 2>&1
rc=$?
{ [ "$rc" -eq 0 ] || [ "$rc" -eq 1 ]; } && grep -q "base n=300, new n=300" "$scratch/out" && ! grep -q Traceback "$scratch/out"
ok $? "compare on 300 repeats a side: a verdict, exit $rc (was a RecursionError)"

# The header says what the intervals are; a side of 5 runs, which no
# pair of order statistics covers at 95%, prints its own coverage (#30:
# "[95%]" stood over 94% intervals).
"$py" - "$scratch/base.json" "$scratch/new.json" "$scratch" <<'PY'
import json, sys
for i, side in enumerate(("b5", "n5")):
    d = json.load(open(sys.argv[1 + i]))
    d["runs"] = d["runs"][:5]
    d["summary"]["runs"] = d["summary"]["ok"] = 5
    json.dump(d, open(f"{sys.argv[3]}/{side}.json", "w"))
PY
"$py" "$S/compare" "$scratch/b5.json" -- "$scratch/n5.json" >"$scratch/out5" 2>&1
rc=$?
{ [ "$rc" -eq 0 ] || [ "$rc" -eq 1 ]; } && grep -q '^\[CI\]: distribution-free intervals of 95% coverage' "$scratch/out5" &&
	grep -q 'base median \[CI\]' "$scratch/out5" && ! grep -q '\[95%\]' "$scratch/out5" &&
	grep -E -q '\] 94%' "$scratch/out5"
ok $? "compare: the header names the intervals' coverage, a 5-run cell prints its own (94%) (exit $rc)"

done_testing
