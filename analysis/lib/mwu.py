# SPDX-License-Identifier: MIT
"""Mann-Whitney U test, two-sided, exact for small samples without ties
(the usual case: a handful of repeats per side), normal approximation with
tie correction otherwise.  Iterative throughout: thousands of repeats a
side cost seconds, never a RecursionError.  Standard library only."""
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


# Exact below this many pairs (m * n), the normal approximation above.
EXACT_PAIRS = 2500


@lru_cache(maxsize=64)
def u_distribution(m, n):
    """How many arrangements of m + n distinct values give U = 0 .. m*n: the
    coefficients of the Gaussian binomial [m+n choose m] in q, built
    iteratively (times (1 - q^(n+i)), over (1 - q^i), i = 1..m), so no
    recursion however large m and n are.  Exact integers."""
    c = [0] * (m * n + 1)
    c[0] = 1
    for i in range(1, m + 1):
        top = len(c)
        for k in range(top - 1, n + i - 1, -1):     # times (1 - q^(n+i))
            c[k] -= c[k - n - i]
        for k in range(i, top):                      # over (1 - q^i)
            c[k] += c[k - i]
    return tuple(c)


def mann_whitney(a, b):
    """Returns (U of a, two-sided p)."""
    m, n = len(a), len(b)
    if m == 0 or n == 0:
        return 0.0, 1.0
    values = list(a) + list(b)
    ranks = _ranks(values)
    u = sum(ranks[:m]) - m * (m + 1) / 2
    ties = len(set(values)) != len(values)
    if not ties and m * n <= EXACT_PAIRS:
        dist = u_distribution(m, n)
        total = math.comb(m + n, m)
        lo = sum(dist[:int(math.floor(u)) + 1])
        hi = sum(dist[int(math.ceil(u)):])
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
