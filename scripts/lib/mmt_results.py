# SPDX-License-Identifier: MIT
"""Reading mmtorture results documents for compare, report and nightly.

Python 3 standard library only.  A file that is not a complete results
document (truncated, corrupt, another schema) raises ResultsError with a
message naming the file and the problem: callers turn it into exit 2.
"""
import glob
import json
import os
import statistics

SCHEMA_VERSION = 1
RUN_KEYS = ("scenario", "variant", "placement", "repeat", "status", "threads")


class ResultsError(Exception):
    pass


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except OSError as e:
        raise ResultsError(f"{path}: cannot read: {e.strerror}") from None
    except json.JSONDecodeError as e:
        raise ResultsError(f"{path}: not valid JSON (line {e.lineno}: {e.msg}); truncated?") from None
    if not isinstance(doc, dict) or doc.get("schema_version") != SCHEMA_VERSION:
        raise ResultsError(f"{path}: not an mmtorture results document (schema_version {SCHEMA_VERSION})")
    runs = doc.get("runs")
    if not isinstance(runs, list) or not isinstance(doc.get("metadata"), dict):
        raise ResultsError(f"{path}: not an mmtorture results document (no runs or metadata)")
    for i, run in enumerate(runs):
        missing = [k for k in RUN_KEYS if k not in run]
        if missing:
            raise ResultsError(f"{path}: runs[{i}] lacks {', '.join(missing)}")
    doc["_path"] = path
    return doc


def expand(paths):
    """Files and directories (their *.json, recursively) in a stable order."""
    out = []
    for p in paths:
        if os.path.isdir(p):
            out.extend(sorted(glob.glob(os.path.join(p, "**", "*.json"), recursive=True)))
        else:
            out.append(p)
    if not out:
        raise ResultsError("no results files given")
    return out


def load_all(paths):
    return [load(p) for p in expand(paths)]


def key(run):
    return (run["scenario"], run["variant"], run["placement"], run["threads"])


def key_text(k):
    return f"{k[0]} {k[1]} {k[2]} ({k[3]} threads)"


def probe_ns(run):
    """Median one-way latency of the run's CPU pairs, before and after."""
    p = run.get("probe") or {}
    vals = [x.get("one_way_ns") for side in ("before", "after") for x in p.get(side) or []]
    vals = [v for v in vals if isinstance(v, (int, float)) and v > 0]
    return statistics.median(vals) if vals else None


def measured(run):
    return run["status"] in ("ok", "witnessed", "inconclusive") and run.get("ops_per_sec") is not None


def metrics(run):
    """name -> (value, better) for the numbers worth comparing."""
    out = {}
    if run.get("ops_per_sec") is not None:
        out["ops_per_sec"] = (run["ops_per_sec"], "higher")
    if run.get("ns_per_op") is not None:
        out["ns_per_op"] = (run["ns_per_op"], "lower")
    m = run.get("metrics") or {}
    rt = m.get("round_trip_ns")
    if isinstance(rt, dict):
        out["round_trip_p50_ns"] = (rt["median"], "lower")
        out["round_trip_p99_ns"] = (rt["p99"], "lower")
    if isinstance(m.get("witnesses_per_sec"), (int, float)) and run["scenario"] == "litmus":
        out["witnesses_per_sec"] = (m["witnesses_per_sec"], "higher")
    if isinstance(m.get("mprotect_per_sec"), (int, float)):
        out["mprotect_per_sec"] = (m["mprotect_per_sec"], "higher")
    for ev in ((run.get("counters") or {}).get("events") or []):
        if ev.get("status") == "ok" and isinstance(ev.get("per_op"), (int, float)) and ev["kind"] != "tracepoint":
            out[f"{ev['name']}/op"] = (ev["per_op"], "lower")
    return out


def si(v):
    for unit, div in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(v) >= div:
            return f"{v / div:.3g}{unit}"
    return f"{v:.3g}"
