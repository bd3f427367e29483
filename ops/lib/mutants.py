# SPDX-License-Identifier: MIT
"""kernel/mutants.tsv, the one table of mutant-kernel switches: one row
per hunter of a switch, with the upstream fix it reverts, the kernel
options and guest it needs, the scenario variant that hunts it, its
control and the outcome it must produce.  A switch reached by more than
one path has a row per path's hunter; its rows agree on what it reverts.
scripts/mutant-proof loops over the rows."""
import os

COLUMNS = ("name", "reverts", "title", "config", "guest", "hunter", "control", "finding", "what")


class MutantTableError(Exception):
    pass


def rows(path):
    """[{column: value}], with guest parsed ({"nodes": 2, "mem": 2048, ...})
    and hunter/control split into (scenario, variant)."""
    with open(path, encoding="utf-8") as f:
        lines = [ln.rstrip("\n") for ln in f if ln.strip()]
    head = tuple(lines[0].split("\t"))
    if head[:len(COLUMNS) - 1] != COLUMNS[:-1]:
        raise MutantTableError(f"{path}: header {head}, expected {COLUMNS}")
    out = []
    for n, ln in enumerate(lines[1:], 2):
        cells = ln.split("\t")
        if len(cells) != len(COLUMNS):
            raise MutantTableError(f"{path}:{n}: {len(cells)} columns, expected {len(COLUMNS)}")
        r = dict(zip(COLUMNS, cells))
        try:
            r["guest"] = {k: int(v) for k, v in (kv.split("=", 1) for kv in r["guest"].split())}
            r["hunter"] = tuple(r["hunter"].split())
            r["control"] = tuple(r["control"].split())
        except ValueError:
            raise MutantTableError(f"{path}:{n}: guest must be KEY=NUMBER..., hunter and control SCENARIO VARIANT")
        if len(r["hunter"]) != 2 or len(r["control"]) != 2:
            raise MutantTableError(f"{path}:{n}: hunter and control are 'SCENARIO VARIANT'")
        r["config"] = [c for c in r["config"].split(",") if c]
        out.append(r)
    return out


def table_path(top):
    return os.path.join(top, "kernel", "mutants.tsv")
