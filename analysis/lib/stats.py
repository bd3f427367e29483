# SPDX-License-Identifier: MIT
"""Distribution-free intervals and power for a handful of repeats.

Benchmarks here give 3 to 10 repeats a side, with outliers from host
noise, so everything is rank based: the median with an order-statistic
interval, the change between two sets as a Hodges-Lehmann ratio with the
interval from inverting the Mann-Whitney test, and the power of that test
stated up front (the smallest p these repeats can give at all, and the
smallest change they could detect).  Standard library only.
"""
import math
import statistics

from mwu import EXACT_PAIRS, u_distribution


def binom_cdf(k, n):
    """P(X <= k) for X ~ Binomial(n, 1/2)."""
    return sum(math.comb(n, i) for i in range(0, k + 1)) / 2 ** n


def _binom_pmf(k, n):
    """P(X = k) for X ~ Binomial(n, 1/2), in floating point (any n)."""
    return math.exp(math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1) - n * math.log(2))


def median_ci(values, alpha=0.05):
    """(median, lo, hi, coverage).  lo/hi are order statistics whose
    coverage is at least 1 - alpha; below 6 values no such pair exists and
    the range is returned with its real coverage (93.8% for 5)."""
    x = sorted(values)
    n = len(x)
    if n == 0:
        return None, None, None, 0.0
    med = statistics.median(x)
    if n == 1:
        return med, None, None, 0.0
    # Cutting k values from each end covers the median with probability
    # 1 - 2 P(Bin(n, 1/2) <= k): cut as many as keep that >= 1 - alpha.
    # The tail is summed as k grows (one term a step), exactly for the
    # usual handful, in floating point for thousands.
    exact = n <= 1000
    tail = [binom_cdf(0, n) if exact else _binom_pmf(0, n)]   # tail[k] = P(X <= k)
    k = 0
    while k + 1 <= (n - 1) // 2:
        nxt = tail[k] + (math.comb(n, k + 1) / 2 ** n if exact else _binom_pmf(k + 1, n))
        if 2 * nxt > alpha:
            break
        tail.append(nxt)
        k += 1
    coverage = 1 - 2 * tail[k]
    return med, x[k], x[n - 1 - k], coverage


def u_cdf(c, m, n):
    """P(U <= c) under the null, no ties: exact up to EXACT_PAIRS pairs,
    else the normal approximation with continuity correction."""
    if c < 0:
        return 0.0
    if m * n <= EXACT_PAIRS:
        return sum(u_distribution(m, n)[:min(c, m * n) + 1]) / math.comb(m + n, m)
    mean, sd = m * n / 2, math.sqrt(m * n * (m + n + 1) / 12)
    return statistics.NormalDist().cdf((c + 0.5 - mean) / sd)


def _critical_u(m, n, alpha):
    """The largest c with P(U <= c) <= alpha / 2 (-1: none)."""
    if m * n > EXACT_PAIRS:
        mean, sd = m * n / 2, math.sqrt(m * n * (m + n + 1) / 12)
        c = int(math.floor(mean + sd * statistics.NormalDist().inv_cdf(alpha / 2) - 0.5))
        while c >= 0 and u_cdf(c, m, n) > alpha / 2:
            c -= 1
        while u_cdf(c + 1, m, n) <= alpha / 2:
            c += 1
        return c
    c = -1
    while u_cdf(c + 1, m, n) <= alpha / 2:
        c += 1
    return c


# Up to this many pairwise differences they are listed and sorted; above,
# each order statistic is found by bisection on the value, counting the
# differences below it in one merge-like pass (linear in m + n).
LISTED_PAIRS = 250000


def _kth_difference(a, b, k):
    """The k-th smallest (0-based) of {y - x : x in a, y in b}, a and b sorted."""
    lo, hi = b[0] - a[-1], b[-1] - a[0]
    for _ in range(200):
        mid = (lo + hi) / 2
        if mid <= lo or mid >= hi:
            break
        # differences <= mid: for each y (ascending), the x >= y - mid,
        # whose first index only moves right as y grows
        count, i = 0, 0
        for y in b:
            while i < len(a) and a[i] < y - mid:
                i += 1
            count += len(a) - i
        if count > k:
            hi = mid
        else:
            lo = mid
    return hi


def _differences(a, b, ks):
    """The order statistics ks of the pairwise log differences b - a."""
    if len(a) * len(b) <= LISTED_PAIRS:
        d = sorted(y - x for x in a for y in b)
        return [d[k] for k in ks]
    a, b = sorted(a), sorted(b)
    return [_kth_difference(a, b, k) for k in ks]


def min_p(m, n):
    """The smallest two-sided Mann-Whitney p-value m v n repeats can give."""
    if m == 0 or n == 0:
        return 1.0
    return min(1.0, 2 / math.comb(m + n, m))


def repeats_needed(alpha):
    """Smallest equal repeats per side whose best p is below alpha."""
    k = 1
    while min_p(k, k) >= alpha:
        k += 1
    return k


def ratio_ci(base, new, alpha=0.05):
    """Hodges-Lehmann estimate of new/base (all positive) and its
    distribution-free interval, or (estimate, None, None) when these
    repeats cannot give one at 1 - alpha."""
    if not base or not new or min(base) <= 0 or min(new) <= 0:
        return None, None, None
    la, lb = [math.log(a) for a in base], [math.log(b) for b in new]
    m, n = len(base), len(new)
    pairs = m * n
    mids = [(pairs - 1) // 2, pairs // 2]
    est = math.exp(sum(_differences(la, lb, mids)) / 2)
    if min_p(m, n) > alpha:
        return est, None, None
    c = _critical_u(m, n, alpha)
    # U <= c has probability <= alpha/2: the interval runs from the
    # (c+1)-th smallest difference to the (c+1)-th largest.
    lo, hi = _differences(la, lb, [max(c, 0), pairs - 1 - max(c, 0)])
    return est, math.exp(lo), math.exp(hi)


def paired_ratio_ci(pairs, alpha=0.05):
    """Median of per-repeat ratios a/b with its order-statistic interval:
    for variants interleaved in the same repeats, which share host noise."""
    r = [a / b for a, b in pairs if b]
    return median_ci(r, alpha)


def cv(values):
    """Robust relative spread: MAD scaled to a normal sigma, over the median."""
    if len(values) < 2:
        return None
    med = statistics.median(values)
    if not med:
        return None
    mad = statistics.median(abs(v - med) for v in values)
    return 1.4826 * mad / abs(med)


def detectable_change(base, new, alpha=0.05, power=0.8):
    """Smallest relative change (percent) a rank test on these repeats
    detects with the given power, from the pooled noise: the normal
    approximation with the Mann-Whitney efficiency (3/pi).  None when the
    noise is unknown; inf when the repeats cannot reach alpha at all."""
    m, n = len(base), len(new)
    if min_p(m, n) > alpha:
        return math.inf
    spreads = [s for s in (cv(base), cv(new)) if s is not None]
    if not spreads:
        return None
    sigma = max(spreads)
    z = statistics.NormalDist().inv_cdf
    return 100 * (z(1 - alpha / 2) + z(power)) * sigma * math.sqrt(1 / m + 1 / n) / math.sqrt(3 / math.pi)
