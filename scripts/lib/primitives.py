# SPDX-License-Identifier: MIT
"""Which variants implement the same thing with hand-rolled, liburcu and
C11 primitives: the rows of the hand-rolled : liburcu : C11 ratio tables.
One table; a scenario's new variant that belongs in a ratio gets a row here.
Litmus variants (TEST/kernel, TEST/urcu, TEST/c11) pair up by test name."""

FAMILIES = ("hand-rolled", "liburcu", "C11")

# (scenario, what, hand-rolled, liburcu, C11); None: no such variant.
TRIPLES = [
    ("msgpass", "full barrier both sides", "mb", "urcu-mb", "c11-seq-cst"),
    ("msgpass", "release/acquire publication", "release-acquire", "urcu-rcu", "c11-release-acquire"),
    ("msgpass", "wmb/rmb publication", "once-wmb-rmb", "urcu-wmb-rmb", None),
    ("ring", "SPSC queue", "cached", "urcu-wfcq", "c11"),
    ("seqcount", "reader protection", "kernel", "urcu-rcu", "c11"),
    ("barrier-cost", "full barrier", "mb", "urcu-mb", "c11-fence-seq-cst"),
    ("barrier-cost", "fence instruction", "mb-fence", None, None),
    ("barrier-cost", "read barrier", "rmb", "urcu-rmb", "c11-fence-acquire"),
    ("barrier-cost", "write barrier", "wmb", "urcu-wmb", "c11-fence-release"),
    ("barrier-cost", "release store", "store-release", "urcu-assign-pointer", "c11-store-release"),
    ("barrier-cost", "acquire load", "load-acquire", "urcu-dereference", "c11-load-acquire"),
    ("barrier-cost", "atomic add", "atomic-add", "urcu-uatomic-add", "c11-fetch-add"),
]


def family(scenario, variant, injected=False):
    if injected or variant.startswith("broken"):
        return "injected"
    if scenario == "litmus" and "/" in variant:
        prim = variant.split("/", 1)[1]
        return {"kernel": "hand-rolled", "kernel-mfence": "hand-rolled", "urcu": "liburcu", "c11": "C11"}.get(prim, "other")
    for sc, _what, *names in TRIPLES:
        if sc == scenario and variant in names:
            return FAMILIES[names.index(variant)]
    if variant == "plain" or variant.startswith("once-") and scenario == "barrier-cost":
        return "unordered"
    if "urcu" in variant:
        return "liburcu"
    if "c11" in variant:
        return "C11"
    if variant in ("rwlock", "spinlock"):
        return "lock"
    if scenario == "mmrace":
        return "other"
    return "hand-rolled"


def triples(scenario, variants):
    """[(what, hand, urcu, c11)] for the variants present (at least two of three)."""
    out = []
    if scenario == "litmus":
        tests = sorted({v.split("/", 1)[0] for v in variants if "/" in v})
        for t in tests:
            row = [f"{t}/kernel", f"{t}/urcu", f"{t}/c11"]
            row = [v if v in variants else None for v in row]
            if sum(v is not None for v in row) >= 2:
                out.append((t, *row))
        return out
    for sc, what, *names in TRIPLES:
        if sc != scenario:
            continue
        row = [v if v in variants else None for v in names]
        if sum(v is not None for v in row) >= 2:
            out.append((what, *row))
    return out
