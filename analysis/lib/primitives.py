# SPDX-License-Identifier: MIT
"""Which variants implement the same thing with hand-rolled, liburcu,
concurrencykit (ck) and C11 primitives: the rows of the
hand-rolled : liburcu : ck : C11 ratio tables.
Each variant's descriptor declares its family and the row it joins
("compares", struct mmt_variant); this module only lays the rows out."""

import catalogue

# The ratio tables' columns, in order.
FAMILIES = ("hand-rolled", "liburcu", "ck", "C11")


def family(scenario, variant, injected=False):
    """The variant's declared family; "other" for one nothing declares."""
    if injected:
        return "injected"
    decl = catalogue.variant(scenario, variant)
    return decl["family"] if decl else "other"


def triples(scenario, variants):
    """[(what, hand, urcu, ck, c11)] (one name per FAMILIES, None where
    absent) for the variants present (at least two), one row per
    "compares" value, in the descriptor's order."""
    rows = {}
    for v in catalogue.variant_order(scenario):
        decl = catalogue.variant(scenario, v)
        if v in variants and decl.get("compares") and decl["family"] in FAMILIES:
            rows.setdefault(decl["compares"], [None] * len(FAMILIES))[FAMILIES.index(decl["family"])] = v
    return [(what, *row) for what, row in rows.items() if sum(x is not None for x in row) >= 2]


# Below this a net cost is within the loop's own noise (a compiler barrier
# costs nothing): a ratio to it means nothing, the difference in ns does.
NEGLIGIBLE_NS = 0.1


def ratio_cells(names, vals, metric, paired_ratio_ci, alpha=0.05):
    """One row of the hand-rolled : liburcu : ck : C11 table.  names: one
    variant per FAMILIES (None when absent); vals: variant -> {(file, repeat): value}.
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
