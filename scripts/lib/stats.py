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

from mwu import _count


def binom_cdf(k, n):
    """P(X <= k) for X ~ Binomial(n, 1/2)."""
    return sum(math.comb(n, i) for i in range(0, k + 1)) / 2 ** n


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
    k = 0
    while k + 1 <= (n - 1) // 2 and 2 * binom_cdf(k + 1, n) <= alpha:
        k += 1
    coverage = 1 - 2 * binom_cdf(k, n)
    return med, x[k], x[n - 1 - k], coverage


def u_cdf(c, m, n):
    """P(U <= c) under the null, no ties."""
    if c < 0:
        return 0.0
    return sum(_count(u, m, n) for u in range(0, min(c, m * n) + 1)) / math.comb(m + n, m)


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
    d = sorted(math.log(b) - math.log(a) for a in base for b in new)
    est = math.exp(statistics.median(d))
    m, n = len(base), len(new)
    if min_p(m, n) > alpha:
        return est, None, None
    c = -1
    while u_cdf(c + 1, m, n) <= alpha / 2:
        c += 1
    # U <= c has probability <= alpha/2: the interval runs from the
    # (c+1)-th smallest difference to the (c+1)-th largest.
    lo, hi = d[c], d[len(d) - 1 - c]
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
