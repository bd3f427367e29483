# SPDX-License-Identifier: MIT
"""What the scenarios declare, for the analysis: each metric's unit and
direction, each variant's family and ratio-table row (struct mmt_metric and
struct mmt_variant in harness/scenario.h).

The source is each results document's own "catalogue" (the descriptors of
what it ran).  A document written before it has none: its scenarios are
read from the mmtorture binary's --list --format json ($MMT_BIN, the source
tree's build, or mmtorture on PATH).  Nothing here names a scenario.
"""
import json
import os
import shutil
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.normpath(os.path.join(HERE, "..", ".."))

_scenarios = {}     # name -> {"metrics": {name: decl}, "variants": {name: decl}, "order": [variant names]}
_record = {}        # the record's own figures (ops_per_sec, ns_per_op) -> decl
_binary_read = False


class CatalogueError(Exception):
    pass


def register(cat):
    """Adds a catalogue (a document's, or the binary's) to what is known;
    a variant or metric seen before keeps its first declaration."""
    for m in cat.get("record_metrics") or []:
        _record.setdefault(m["name"], m)
    for sc in cat.get("scenarios") or []:
        known = _scenarios.setdefault(sc["name"], {"metrics": {}, "variants": {}, "order": []})
        for m in sc.get("metrics") or []:
            known["metrics"].setdefault(m["name"], m)
        for v in sc.get("variants") or []:
            if v["name"] not in known["variants"]:
                known["variants"][v["name"]] = v
                known["order"].append(v["name"])


def binary():
    """The mmtorture whose catalogue stands in for a document without one."""
    for cand in (os.environ.get("MMT_BIN"), os.path.join(TOP, "build", "mmtorture"), os.path.join(TOP, "mmtorture"),
                 shutil.which("mmtorture")):
        if cand and os.path.isfile(cand) and os.access(cand, os.X_OK):
            return cand
    return None


def _read_binary(why):
    global _binary_read
    if _binary_read:
        return
    _binary_read = True
    exe = binary()
    if not exe:
        raise CatalogueError(f"{why}, and no mmtorture binary was found to read one from "
                             "(set MMT_BIN to one, or build the tree)")
    try:
        out = subprocess.run([exe, "--list", "--format", "json"], capture_output=True, text=True, timeout=60,
                             check=True).stdout
        register(json.loads(out))
    except (OSError, subprocess.SubprocessError, ValueError) as e:
        raise CatalogueError(f"{why}; reading {exe} --list --format json failed: {e}") from None


def register_document(doc):
    """A results document's catalogue, or the binary's when it has none."""
    if isinstance(doc.get("catalogue"), dict):
        register(doc["catalogue"])
    else:
        _read_binary(f"{doc.get('_path', 'a results document')} has no catalogue (written before it was recorded)")


def scenario(name):
    """The declarations of a scenario, or None when nothing declares it."""
    if name not in _scenarios:
        try:
            _read_binary(f"scenario {name} is in no document's catalogue")
        except CatalogueError:
            return None
    return _scenarios.get(name)


def record_metrics():
    if not _record:
        _read_binary("no document declares the record's figures")
    return _record


def metric(scenario_name, name):
    sc = scenario(scenario_name)
    return (sc or {}).get("metrics", {}).get(name)


def variant(scenario_name, name):
    sc = scenario(scenario_name)
    return (sc or {}).get("variants", {}).get(name)


def variant_order(scenario_name):
    return (scenario(scenario_name) or {}).get("order", [])


def latency_names(name):
    """A latency metric's compared quantiles: round_trip_ns -> round_trip_p50_ns,
    round_trip_p99_ns (the unit stays last)."""
    stem, _, unit = name.rpartition("_")
    if not stem:
        stem, unit = name, ""
    return [(q, f"{stem}_{label}" + (f"_{unit}" if unit else "")) for q, label in (("median", "p50"), ("p99", "p99"))]
