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
    ("barrier-cost", "atomic add", None, "urcu-uatomic-add", "c11-fetch-add"),
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


# Below this a net cost is within the loop's own noise (a compiler barrier
# costs nothing): a ratio to it means nothing, the difference in ns does.
NEGLIGIBLE_NS = 0.1


def ratio_cells(names, vals, metric, paired_ratio_ci, alpha=0.05):
    """One row of the hand-rolled : liburcu : C11 table.  names: the three
    variants (None when absent); vals: variant -> {(file, repeat): value}.
    Each cell: 'variant ratio [lo, hi] (n=N)' paired by repeat against the
    first present variant, or a difference in ns when that one costs
    (next to) nothing."""
    import statistics
    ref = next(n for n in names if n)
    ref_med = statistics.median(vals[ref].values()) if vals.get(ref) else 0
    as_diff = metric == "net_ns_per_op" and abs(ref_med) < NEGLIGIBLE_NS
    cells = []
    for v in names:
        if v is None:
            cells.append("-")
        elif v == ref:
            cells.append(f"{v}: {ref_med:.2g} ns" if as_diff else f"{v}: 1")
        else:
            pairs = [(vals[v][k], vals[ref][k]) for k in vals[v] if k in vals[ref]]
            if not pairs:
                cells.append(f"{v}: no shared repeats")
            elif as_diff or min(b for _, b in pairs) <= 0:
                d = statistics.median(a - b for a, b in pairs)
                cells.append(f"{v}: {d:+.2g} ns (n={len(pairs)})")
            else:
                med, lo, hi, cover = paired_ratio_ci(pairs, alpha)
                ci = ""
                if lo is not None:
                    ci = f" [{lo:.2f}, {hi:.2f}]" + ("" if cover >= 0.95 else f" {cover * 100:.0f}%")
                cells.append(f"{v}: {med:.2f}{ci} (n={len(pairs)})")
    return cells, as_diff
