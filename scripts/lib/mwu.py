# SPDX-License-Identifier: MIT
"""Mann-Whitney U test, two-sided, exact for small samples without ties
(the usual case: a handful of repeats per side), normal approximation with
tie correction otherwise.  Standard library only."""
import math
from functools import lru_cache


def _ranks(values):
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


@lru_cache(maxsize=None)
def _count(u, m, n):
    """Arrangements of m + n distinct values whose U statistic equals u."""
    if u < 0 or u > m * n:
        return 0
    if m == 0 or n == 0:
        return 1 if u == 0 else 0
    return _count(u - n, m - 1, n) + _count(u, m, n - 1)


def mann_whitney(a, b):
    """Returns (U of a, two-sided p)."""
    m, n = len(a), len(b)
    if m == 0 or n == 0:
        return 0.0, 1.0
    values = list(a) + list(b)
    ranks = _ranks(values)
    u = sum(ranks[:m]) - m * (m + 1) / 2
    ties = len(set(values)) != len(values)
    if not ties and m * n <= 2500:
        total = math.comb(m + n, m)
        lo = sum(_count(k, m, n) for k in range(0, int(math.floor(u)) + 1))
        hi = sum(_count(k, m, n) for k in range(int(math.ceil(u)), m * n + 1))
        return u, min(1.0, 2 * min(lo, hi) / total)
    mean = m * n / 2
    counts = {}
    for v in values:
        counts[v] = counts.get(v, 0) + 1
    tie = sum(t ** 3 - t for t in counts.values())
    var = m * n / 12 * ((m + n + 1) - tie / ((m + n) * (m + n - 1)))
    if var <= 0:
        return u, 1.0
    z = (abs(u - mean) - 0.5) / math.sqrt(var)
    # Ties make the normal approximation optimistic with a few repeats; no
    # arrangement of m + n values, tied or not, gets below the exact bound.
    return u, min(1.0, max(math.erfc(max(z, 0) / math.sqrt(2)), 2 / math.comb(m + n, m)))
