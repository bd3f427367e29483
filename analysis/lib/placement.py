# SPDX-License-Identifier: MIT
"""Placement classes: which runs sat at the same placement.

On a VM the host moves the vCPUs between SMT siblings, cores of one L3
and different dies, and rates follow tenfold, so the benchmarks
(bench/efficiency.py, bench/ring.py) compare runs only at one placement,
told by the placement probe's one-way latency.  Two latencies are one
placement within RATIO of each other: MMT_PROBE_STABLE_RATIO
(harness/probe.h), the bound placement-track.c cuts its in-run classes
at.  Standard library only.
"""

RATIO = 1.5          # MMT_PROBE_STABLE_RATIO (harness/probe.h)


def same_placement(a, b):
    """Two one-way latencies at one placement: both measured (neither
    0 nor None) and within RATIO of each other."""
    return bool(a) and bool(b) and max(a, b) <= RATIO * min(a, b)


def classes(values):
    """Placements: sorted one-way latencies cut where the next is more
    than RATIO above the smallest of the current class."""
    groups = []
    for v in sorted(values):
        if groups and v <= groups[-1][0] * RATIO:
            groups[-1].append(v)
        else:
            groups.append([v])
    return groups


def class_of(groups, v):
    """The index in classes()' groups of the class v falls in, or None."""
    for i, g in enumerate(groups):
        if g[0] <= v <= g[0] * RATIO:
            return i
    return None
