# SPDX-License-Identifier: MIT
"""Reading mmtorture results documents for compare, report and nightly.

A file is checked against results/schema.json (the one description of the
format; build/mmtorture-result checks the same, tests/reports-schema.sh
proves they agree) after a JSON parse as strict as the harness's jansson:
no NaN or Infinity, no integer outside 64 bits, no duplicate key, no NUL or
lone surrogate in a string, nesting at most 2048 deep.  Anything else raises
ResultsError naming the file and the field: callers turn it into exit 2.
"""
import glob
import hashlib
import json
import math
import os
import re
import statistics
import sys

import catalogue
import python_env

python_env.require("jsonschema", "python3-jsonschema")
import jsonschema  # noqa: E402

SCHEMA_VERSION = 1
HERE = os.path.dirname(os.path.abspath(__file__))
# In the source tree results/ is two levels up; installed, the schema sits
# beside this file (Makefile.am installs it there too).
SCHEMA_PATHS = (os.path.join(HERE, "..", "..", "results", "schema.json"), os.path.join(HERE, "schema.json"))
MAX_DEPTH = 2048            # jansson's JSON_PARSER_MAX_DEPTH
INT64 = (-(1 << 63), (1 << 63) - 1)   # jansson's json_int_t


class ResultsError(Exception):
    pass


def _schema_path():
    for p in SCHEMA_PATHS:
        if os.path.exists(p):
            return os.path.normpath(p)
    raise ResultsError(f"results schema not found (looked in {', '.join(map(os.path.normpath, SCHEMA_PATHS))})")


_validator = None


def validator():
    """The schema validator; 'integer' is a number written without a fraction, as jansson has it."""
    global _validator
    if _validator is None:
        path = _schema_path()
        with open(path, encoding="utf-8") as f:
            schema = json.load(f)
        base = jsonschema.Draft202012Validator
        checker = base.TYPE_CHECKER.redefine(
            "integer", lambda _c, v: isinstance(v, int) and not isinstance(v, bool))
        cls = jsonschema.validators.extend(base, type_checker=checker)
        cls.check_schema(schema)
        _validator = cls(schema)
    return _validator


def field_path(path):
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out or "document"


class _Strict(Exception):
    pass


def _int(s):
    if len(s.lstrip("-")) > 19:
        raise _Strict(f"integer {s[:24]}{'...' if len(s) > 24 else ''} does not fit in 64 bits")
    v = int(s)
    if not INT64[0] <= v <= INT64[1]:
        raise _Strict(f"integer {s} does not fit in 64 bits")
    return v


def _float(s):
    v = float(s)
    if math.isinf(v):
        raise _Strict(f"number {s[:24]} overflows a double")
    return v


def _constant(s):
    raise _Strict(f"{s} is not JSON")


def _pairs(pairs):
    seen = {}
    for k, v in pairs:
        if k in seen:
            raise _Strict(f"duplicate key '{k}'")
        seen[k] = v
    return seen


def _bad_string(s):
    if "\0" in s:
        return "a string holds NUL"
    for ch in s:
        if 0xD800 <= ord(ch) <= 0xDFFF:
            return "a string holds a lone UTF-16 surrogate"
    return None


def _walk(doc):
    """Depth and string checks, iteratively (a deep document must not overflow our stack)."""
    stack = [(doc, 1, ())]
    while stack:
        v, depth, path = stack.pop()
        if isinstance(v, (dict, list)):
            if depth > MAX_DEPTH:
                return path, f"nested deeper than {MAX_DEPTH}"
            items = v.items() if isinstance(v, dict) else enumerate(v)
            for k, x in items:
                if isinstance(k, str):
                    why = _bad_string(k)
                    if why:
                        return path, f"{why} (a key)"
                stack.append((x, depth + 1, path + (k,)))
        elif isinstance(v, str):
            why = _bad_string(v)
            if why:
                return path, why
    return None


def parse(path):
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise ResultsError(f"{path}: cannot read: {e.strerror}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ResultsError(f"{path}: not UTF-8 (byte {e.start})") from None
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, MAX_DEPTH + 200))
    try:
        doc = json.loads(text, parse_int=_int, parse_float=_float, parse_constant=_constant,
                         object_pairs_hook=_pairs)
    except json.JSONDecodeError as e:
        raise ResultsError(f"{path}: not valid JSON (line {e.lineno}: {e.msg}); truncated?") from None
    except _Strict as e:
        raise ResultsError(f"{path}: not valid JSON: {e}") from None
    except RecursionError:
        raise ResultsError(f"{path}: not valid JSON: nested deeper than {MAX_DEPTH}") from None
    except ValueError as e:
        raise ResultsError(f"{path}: not valid JSON: {e}") from None
    finally:
        sys.setrecursionlimit(old)
    bad = _walk(doc)
    if bad:
        raise ResultsError(f"{path}: not valid JSON: {field_path(bad[0])}: {bad[1]}")
    return doc


def check(doc, path):
    """Schema and the cross-field rules; raises ResultsError naming the field."""
    if not isinstance(doc, dict) or "schema_version" not in doc:
        raise ResultsError(f"{path}: not an mmtorture results document (no schema_version)")
    v = doc["schema_version"]
    if type(v) is not int or v != SCHEMA_VERSION:
        raise ResultsError(f"{path}: schema_version {json.dumps(doc['schema_version'])[:40]} is not {SCHEMA_VERSION}"
                           " (not an mmtorture results document of this version)")
    errors = list(validator().iter_errors(doc))
    if errors:
        e = jsonschema.exceptions.best_match(errors)
        # Descend into oneOf/anyOf to the deepest reason, which names the real field.
        while e.context:
            e = jsonschema.exceptions.best_match(e.context)
        where = field_path(e.absolute_path)
        msg = e.message if len(e.message) <= 160 else e.message[:157] + "..."
        if e.validator == "required" and isinstance(e.instance, dict):
            missing = [k for k in e.validator_value if k not in e.instance]
            where = field_path(list(e.absolute_path) + missing[:1])
            msg = "is missing"
        raise ResultsError(f"{path}: {where}: {msg}")
    if doc["summary"]["runs"] != len(doc["runs"]):
        raise ResultsError(f"{path}: summary.runs: {doc['summary']['runs']} does not match the {len(doc['runs'])} runs")


def load(path):
    doc = parse(path)
    check(doc, path)
    doc["_path"] = path
    try:
        catalogue.register_document(doc)
    except catalogue.CatalogueError as e:
        raise ResultsError(str(e)) from None
    return doc


def expand(paths):
    """Files and directories (their *.json, recursively) in a stable order,
    each file once however many links or paths reach it.  Returns (files,
    found): found holds the files a directory walk found, which may be
    other JSON (the schema, a LAVA job) and are skipped if so."""
    out, found, seen = [], set(), set()
    for p in paths:
        if os.path.isdir(p):
            names = sorted(glob.glob(os.path.join(p, "**", "*.json"), recursive=True))
        elif os.path.exists(p) or os.path.islink(p):
            names = [p]
        else:
            raise ResultsError(f"{p}: no such file or directory")
        for n in names:
            real = os.path.realpath(n)
            if real in seen:
                continue
            seen.add(real)
            out.append(n)
            if n is not p:
                found.add(n)
    if not out:
        raise ResultsError(f"no results files in {' '.join(paths) or '(nothing given)'}")
    return out, found


def identity(doc):
    """One invocation's results, wherever a copy of its file lies: the
    document's content (metadata, its seed and start time among it, and
    every run), so copies count once and distinct documents never merge."""
    body = {k: v for k, v in doc.items() if not k.startswith("_")}
    return hashlib.sha1(json.dumps(body, sort_keys=True).encode()).hexdigest()


def load_all(paths, say=None):
    """Every results document under paths, each invocation's runs once:
    links (nightly's -latest and -accepted) and copies of a file count once,
    and JSON found in a directory that is not a results document (the
    schema itself, say) is skipped.  What was skipped goes to say (stderr
    by default), one line."""
    files, found = expand(paths)
    docs, ids, other, dups = [], set(), [], 0
    for f in files:
        if f in found and not _is_results_document(f):
            other.append(f)
            continue
        d = load(f)
        key = identity(d)
        if key in ids:
            dups += 1
            continue
        ids.add(key)
        docs.append(d)
    if other or dups:
        parts = ([f"{dups} file{'s' * (dups != 1)} holding runs already read (a copy) counted once"] if dups else []) + \
                ([f"{len(other)} not a results document ({', '.join(other[:3])}{', ...' if len(other) > 3 else ''})"]
                 if other else [])
        print(f"{os.path.basename(sys.argv[0])}: skipped {'; '.join(parts)}", file=say or sys.stderr)
    if not docs:
        raise ResultsError(f"no results documents in {' '.join(paths)}")
    return docs


def _is_results_document(path):
    """A JSON object with schema_version: a results document, damaged or not
    (damage is load()'s to report); anything else found in a directory is not."""
    try:
        with open(path, "rb") as f:
            head = f.read(4096)
            if re.match(rb'\s*\{\s*"schema_version"\s*:', head):
                return True     # the harness writes it first
            f.seek(0)
            doc = json.loads(f.read())
    except OSError:
        return True             # load() says what is wrong with it
    except (ValueError, UnicodeDecodeError):
        # Not JSON: a damaged results file or something else; a file that
        # says nothing of schema_version is something else.
        return b"schema_version" in head
    return isinstance(doc, dict) and "schema_version" in doc


def u64(v):
    """A 64-bit value as the schema allows it (decimal string or integer) -> int."""
    return int(v) if isinstance(v, str) else v


# ---- hosts: results of different machines are never pooled -----------------

def host_id(doc):
    """The machine: its machine-id when recorded, else hostname + CPU model.
    Never the kernel: comparing two kernels on one box is the point."""
    m = doc["metadata"]
    h = m.get("host") or {}
    if h.get("machine_id"):
        return h["machine_id"]
    return "|".join(str(x) for x in (h.get("hostname", m.get("hostname")), (m.get("cpu") or {}).get("model")))


def run_labels(docs):
    """The --label names a set of documents was recorded under, sorted."""
    return sorted({d.get("metadata", {}).get("label") for d in docs} - {None})


def host_label(doc):
    m = doc["metadata"]
    h = m.get("host") or {}
    name = h.get("hostname") or m.get("hostname") or "?"
    if h.get("machine_id"):
        name = f"{name} ({h['machine_id'][:8]})"
    if h.get("vm"):
        # an emulated machine's figures are the emulator's: said wherever the host is named
        name = f"{name} [emulated: {h['vm']}]"
    return name


def tag_runs(docs):
    """Each run with its host identity attached (as _host, _host_label, _doc)."""
    out = []
    for d in docs:
        hid, label = host_id(d), host_label(d)
        for r in d["runs"]:
            r["_host"], r["_host_label"], r["_doc"] = hid, label, d
            out.append(r)
    return out


def host_labels(docs):
    """host id -> label, made unique when two hosts share a hostname."""
    ids = {}
    for d in docs:
        ids.setdefault(host_id(d), host_label(d))
    seen = {}
    for hid, label in ids.items():
        seen.setdefault(label, []).append(hid)
    return {hid: (label if len(seen[label]) == 1 else f"{label} [{hid[-8:]}]") for hid, label in ids.items()}


def key(run):
    return (run.get("_host", ""), run["scenario"], run["variant"], run["placement"], run["threads"])


def key_text(k, labels=None):
    host = (labels or {}).get(k[0], k[0])
    return f"{k[1]} {k[2]} {k[3]} ({k[4]} threads) on {host}"


def probe_ns(run):
    """Median one-way latency of the run's CPU pairs, before and after."""
    p = run.get("probe") or {}
    vals = [x.get("one_way_ns") for side in ("before", "after") for x in p.get(side) or []]
    vals = [v for v in vals if isinstance(v, (int, float)) and v > 0]
    return statistics.median(vals) if vals else None


def measured(run):
    """A run with numbers to compare: it ran and did at least one operation
    (a loaded host can leave a short run with none, which says nothing)."""
    return run["status"] in ("ok", "witnessed", "inconclusive") and (run.get("ops_per_sec") or 0) > 0


# Metrics worth comparing: the record's own figures and each scenario's
# metrics whose descriptor declares a direction (catalogue.py); a latency
# is compared by its median and its 99th percentile.

def _compared(run):
    """[(name, unit, better, value)] for the run's figures worth comparing."""
    out = []
    for name, decl in catalogue.record_metrics().items():
        if decl["better"] != "neutral":
            out.append((name, decl["unit"], decl["better"], run.get(name)))
    sc = catalogue.scenario(run["scenario"]) or {"metrics": {}}
    got = run.get("metrics") or {}
    for name, decl in sc["metrics"].items():
        if decl["better"] == "neutral":
            continue
        v = got.get(name)
        if decl["kind"] == "latency":
            for q, qname in catalogue.latency_names(name):
                out.append((qname, decl["unit"], decl["better"], v.get(q) if isinstance(v, dict) else None))
        else:
            out.append((name, decl["unit"], decl["better"], v))
    return out


def metrics(run):
    """name -> (value, better) for the numbers worth comparing."""
    out = {}
    for name, _unit, better, v in _compared(run):
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            out[name] = (v, better)
    out.update(counter_metrics(run))
    return out


def counter_metrics(run):
    """name/op -> (per-op value, "lower") for each counter the run read:
    compared like the metrics, but what a counter says about the code
    under test is indirect (the report draws them apart)."""
    out = {}
    for ev in ((run.get("counters") or {}).get("events") or []):
        if ev.get("status") == "ok" and isinstance(ev.get("per_op"), (int, float)) and ev["kind"] != "tracepoint":
            out[f"{ev['name']}/op"] = (ev["per_op"], "lower")
    return out


# Counters that count time (perf's clocks count nanoseconds); every other
# counter counts events.
TIME_COUNTERS = ("task-clock", "cpu-clock")


def counter_unit(event):
    """The unit of a counter's per-op figure: ns/op for a clock, count/op else."""
    return "ns/op" if event in TIME_COUNTERS else "count/op"


def metric_unit(runs, name):
    """The unit of a compared metric among these runs' ("" if none declares it):
    the scenario's declaration, or a counter's (name/op) unit."""
    for r in runs:
        for n, unit, _better, _v in _compared(r):
            if n == name:
                return unit
        if name in counter_metrics(r):
            return counter_unit(name[:-len("/op")])
    return ""


def metric_names(runs):
    """Every compared metric some of these runs declare, in declaration order."""
    seen = []
    for r in runs:
        for n, _unit, _better, _v in _compared(r):
            if n not in seen:
                seen.append(n)
    return seen


def si(v):
    if v is None:
        return "-"
    for unit, div in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(v) >= div:
            return f"{v / div:.3g}{unit}"
    return f"{v:.3g}"
