# SPDX-License-Identifier: MIT
"""The one mapping from a verdict to an exit code, a JUnit case, a LAVA case
and a KCIDB status: results/verdicts.json, read here and by harness/verdicts.c.
"""
import json
import os

import mmt_results as R

HERE = os.path.dirname(os.path.realpath(__file__))
PATHS = (os.path.join(HERE, "..", "..", "results", "verdicts.json"), os.path.join(HERE, "verdicts.json"))

_table = None


def table():
    """{"run": {verdict: row}, "comparison": {verdict: row}}, rows in file order."""
    global _table
    if _table is None:
        for p in PATHS:
            if os.path.exists(p):
                with open(p, encoding="utf-8") as f:
                    doc = json.load(f)
                _table = {kind: {row["verdict"]: row for row in doc[kind]} for kind in ("run", "comparison")}
                break
        else:
            raise R.ResultsError(f"verdict table not found (looked in {', '.join(map(os.path.normpath, PATHS))})")
    return _table


def of_run(run):
    """A run's verdict: its status, but an injected fault's ok run is caught or missed."""
    if run["status"] == "ok" and run.get("injected"):
        w = (run.get("witnesses") or {}).get("count") or 0
        return "caught" if R.u64(w) else "missed"
    return run["status"]


def run_row(run):
    return table()["run"][of_run(run)]


def comparison_row(verdict):
    return table()["comparison"][verdict]
