#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks kernel/mutants.tsv against what it names: each row's hunter and
control are variants in mmtorture's catalogue, the hunter's "hunts" is the
row's commit and title, the finding is an outcome of the hunter's
scenario, the row's kernel options are in the config fragment, and its
switch is defined by MMT_MUTANT(NAME) in mm/mmt_mutants/NAME.c of a patch
of its own (a mutant touches no shared build file); a switch's rows (one
per hunter) agree on the fix and name different hunters.  Every MMT_MUTANT in
the patches has its row.  One line per problem, exit 1 if any."""
import argparse
import glob
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "ops", "lib"))
import mutants as M  # noqa: E402

SHARED = ("mm/Makefile", "mm/mmt_mutants/Makefile", "include/linux/mmt_mutant.h", "mm/mmt_mutant.c")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("table")
    ap.add_argument("kernel_dir", help="the directory with config.fragment and patches/")
    ap.add_argument("catalogue", help="mmtorture --list --format json, saved")
    a = ap.parse_args()
    problems = []
    rows = M.rows(a.table)
    cat = {s["name"]: s for s in json.load(open(a.catalogue))["scenarios"]}
    fragment = open(os.path.join(a.kernel_dir, "config.fragment")).read().split()
    patches = {p: open(p).read() for p in sorted(glob.glob(os.path.join(a.kernel_dir, "patches", "*.patch")))}
    defined = {}
    for path, text in patches.items():
        files = re.findall(r"^\+\+\+ b/(\S+)", text, re.M)
        for name in re.findall(r"^\+MMT_MUTANT\((\w+)\);", text, re.M):
            defined[name] = (path, files)
    seen = {}
    for r in rows:
        what = f"row {r['name']} ({' '.join(r['hunter'])})"
        first = seen.setdefault(r["name"], r)
        if (first["reverts"], first["title"]) != (r["reverts"], r["title"]):
            problems.append(f"{what}: reverts {r['reverts']}, its switch's first row {first['reverts']}")
        if first is not r and first["hunter"] == r["hunter"]:
            problems.append(f"{what}: a second row with the same hunter")
        for role in ("hunter", "control"):
            sc, var = r[role]
            vdecl = {v["name"]: v for v in (cat.get(sc) or {}).get("variants", [])}.get(var)
            if not vdecl:
                problems.append(f"{what}: {role} {sc} {var} is not a variant of the catalogue")
            elif role == "hunter" and (vdecl.get("hunts") or "") != f"{r['reverts']} {r['title']}":
                problems.append(f"{what}: {sc} {var} hunts {vdecl.get('hunts')!r}, the row says "
                                f"{r['reverts']} {r['title']!r}")
        sc = cat.get(r["hunter"][0]) or {}
        if r["finding"] not in sc.get("outcomes", []):
            problems.append(f"{what}: finding {r['finding']} is not an outcome of {r['hunter'][0]}")
        for opt in r["config"]:
            if f"{opt}=y" not in fragment:
                problems.append(f"{what}: {opt} is not set in config.fragment")
        if r["name"] not in defined:
            problems.append(f"{what}: no patch defines MMT_MUTANT({r['name']})")
        else:
            path, files = defined[r["name"]]
            if f"mm/mmt_mutants/{r['name']}.c" not in files:
                problems.append(f"{what}: MMT_MUTANT({r['name']}) is not in mm/mmt_mutants/{r['name']}.c")
            shared = [f for f in files if f in SHARED]
            if shared:
                problems.append(f"{what}: its patch {os.path.basename(path)} touches shared files {shared}")
    for name in sorted(set(defined) - {r["name"] for r in rows}):
        problems.append(f"MMT_MUTANT({name}) in {os.path.basename(defined[name][0])} has no row in the table")
    for p in problems:
        print(p)
    print(f"{len(rows)} rows, {len(defined)} switches in {len(patches)} patches: {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
