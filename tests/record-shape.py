#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The shape of mmtorture's run records: each key path and its JSON types.

  tests/record-shape.py dump RESULTS... > tests/fixtures/record-shape.txt
  tests/record-shape.py check FIXTURE RESULTS...

Stored baselines stay comparable only while a run record keeps its keys
and their types, so a change to how records are built (issue 27's typed
record) is held to the shape saved before it.  The shape of a scenario is
the union, over its measured runs (status ok, witnessed, inconclusive;
a skipped run is mostly nulls), of every key path down to DEPTH levels
(runs[].metrics.lost_writes is 'metrics.lost_writes') with the types seen
there (integer, real, string, bool, null, object, array).  counters and
per-worker entries depend on the machine (its PMU, its CPU count) and are
cut at their first level.

check: exit 1 naming each difference for the scenarios RESULTS hold: a key
path the fixture lacks, a type it never had there, or a key it has at the
first two levels that no measured run of that scenario carries.
"""
import argparse
import collections
import json
import sys

DEPTH = 3
MEASURED = ("ok", "witnessed", "inconclusive")
MACHINE = ("counters", "workers", "probe", "placement_track")   # cut at their first level
TYPES = {dict: "object", list: "array", str: "string", bool: "bool", int: "integer", float: "real",
         type(None): "null"}


def walk(v, path, depth, out):
    out[path].add(TYPES[type(v)])
    if depth == DEPTH or path.split(".")[0] in MACHINE and depth >= 1:
        return
    if isinstance(v, dict):
        for k, x in v.items():
            walk(x, f"{path}.{k}" if path else k, depth + 1, out)
    elif isinstance(v, list):
        for x in v:
            walk(x, f"{path}[]", depth + 1, out)


def shapes(files):
    per = collections.defaultdict(lambda: collections.defaultdict(set))
    for f in files:
        with open(f, encoding="utf-8") as fh:
            for r in json.load(fh)["runs"]:
                if r["status"] in MEASURED:
                    for k, v in r.items():
                        walk(v, k, 1, per[r["scenario"]])
    return per


def read_fixture(path):
    per = collections.defaultdict(dict)
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            sc, p, types = line.rstrip("\n").split("\t")
            per[sc][p] = set(types.split(","))
    return per


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("mode", choices=("dump", "check"))
    ap.add_argument("files", nargs="+", help="check: the fixture, then results files")
    a = ap.parse_args()
    if a.mode == "dump":
        print("# scenario\tkey path\ttypes: tests/record-shape.py dump (see its --help)")
        for sc, paths in sorted(shapes(a.files).items()):
            for p, t in sorted(paths.items()):
                print(f"{sc}\t{p}\t{','.join(sorted(t))}")
        return 0
    fixture, now = read_fixture(a.files[0]), shapes(a.files[1:])
    bad = []
    for sc, paths in sorted(now.items()):
        if sc not in fixture:
            bad.append(f"{sc}: no shape saved for this scenario")
            continue
        for p, t in sorted(paths.items()):
            if p not in fixture[sc]:
                bad.append(f"{sc}: new key {p} ({','.join(sorted(t))})")
            elif not t <= fixture[sc][p]:
                bad.append(f"{sc}: {p} is {','.join(sorted(t - fixture[sc][p]))}, was {','.join(sorted(fixture[sc][p]))}")
        for p in sorted(fixture[sc]):
            if p.count(".") < 2 and "[]" not in p and p not in paths:
                bad.append(f"{sc}: key {p} is gone")
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
