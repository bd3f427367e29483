#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes a corpus of results files for tests/reports-schema.sh.

    reports-corpus.py OUTDIR REAL.json [MORE.json...]

From real results files: valid variations (both validators must accept),
designed damage (both must refuse, and the message must name the field,
given in OUTDIR/expect.tsv), and seeded single-bit flips (whatever the
verdict, the two validators must agree).  Files are named
<class>-NN-<what>.json with class valid, bad or flip.
"""
import argparse
import copy
import json
import os
import random


def dumps(doc, **kw):
    return json.dumps(doc, indent=kw.pop("indent", 1), ensure_ascii=kw.pop("ensure_ascii", True), **kw)


def nest(depth):
    text = '{"a":' * depth + "1" + "}" * depth
    return text


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("outdir")
    ap.add_argument("real", nargs="+", help="real results files (the first should hold a measured run)")
    a = ap.parse_args()
    os.makedirs(a.outdir, exist_ok=True)
    docs = [json.load(open(p, encoding="utf-8")) for p in a.real]
    base = docs[0]
    raw = dumps(base)
    files = []   # (class, name, bytes, expected substring or "")

    def add(cls, name, data, field=""):
        if isinstance(data, (dict, list)):
            data = dumps(data)
        if isinstance(data, str):
            data = data.encode("utf-8", "surrogatepass")
        files.append((cls, name, data, field))

    def damaged(name, field, fn):
        d = copy.deepcopy(base)
        fn(d)
        add("bad", name, d, field)

    def valid(name, fn):
        d = copy.deepcopy(base)
        fn(d)
        add("valid", name, d)

    # ---- valid ----
    for i, d in enumerate(docs):
        add("valid", f"real-{i}", dumps(d, indent=2))
    add("valid", "compact", json.dumps(base, separators=(",", ":")))
    add("valid", "reversed-keys", json.dumps(json.loads(raw, object_pairs_hook=lambda p: dict(reversed(p)))))
    valid("extra-keys", lambda d: (d.__setitem__("future", {"x": [1, 2]}), d["runs"][0].__setitem__("new_field", None)))
    valid("no-runs", lambda d: (d.__setitem__("runs", []), d["summary"].__setitem__("runs", 0)))
    valid("unicode-host", lambda d: d["metadata"].__setitem__("hostname", "ホスト-é"))
    add("valid", "unicode-raw", dumps(dict(base, metadata=dict(base["metadata"], hostname="prüf")), ensure_ascii=False))
    valid("ops-integer", lambda d: d["runs"][0].__setitem__("ops_per_sec", 1000000))
    valid("seed-int64-max", lambda d: d["metadata"].__setitem__("seed", 9223372036854775807))
    valid("seed-decimal-string", lambda d: d["metadata"].__setitem__("seed", "18446744073709551615"))
    valid("run-seed-string", lambda d: d["runs"][0].__setitem__("seed", "12345"))
    valid("iterations-string", lambda d: d["runs"][0].__setitem__("iterations", "134211"))
    add("valid", "exponent", raw.replace('"ops_per_sec": ', '"ops_per_sec": 1.5e6, "x_ops": ', 1))
    valid("host-identity", lambda d: d["metadata"].__setitem__("host", {
        "hostname": "vm", "machine_id": "0123456789abcdef0123456789abcdef", "cpu_model": None, "kernel_release": "6.1.0"}))
    add("valid", "nest-1000-in-options", raw.replace('"options": {', '"options": {"deep": ' + nest(1000) + ", ", 1))
    valid("skipped-with-nulls", lambda d: d["runs"][0].update(
        status="skipped", reason="test", iterations=None, elapsed_ns=None, ops_per_sec=None, ns_per_op=None,
        witnesses=None, probe=None, metrics=None, cpus=None, counters=None))

    # ---- designed damage: both refuse; the message names the field ----
    add("bad", "empty", b"", "not valid JSON")
    add("bad", "words", b"hello\n", "not valid JSON")
    add("bad", "array", b"[]\n", "")
    add("bad", "number", b"1\n", "")
    for i, frac in enumerate((0.001, 0.05, 0.1, 0.25, 0.4, 0.5, 0.6, 0.75, 0.9, 0.999)):
        add("bad", f"truncated-{i}", raw.encode()[:int(len(raw) * frac)], "not valid JSON")
    ops = '"ops_per_sec": '
    add("bad", "nan", raw.replace(ops, ops + "NaN, \"x\": ", 1), "not valid JSON")
    add("bad", "infinity", raw.replace(ops, ops + "Infinity, \"x\": ", 1), "not valid JSON")
    add("bad", "minus-infinity", raw.replace(ops, ops + "-Infinity, \"x\": ", 1), "not valid JSON")
    add("bad", "huge-real", raw.replace(ops, ops + "1e999, \"x\": ", 1), "not valid JSON")
    add("bad", "5000-digits", raw.replace('"iterations": ', '"iterations": ' + "9" * 5000 + ', "x": ', 1), "not valid JSON")
    add("bad", "5000-digits-in-options", raw.replace('"options": {', '"options": {"n": ' + "7" * 5000 + ", ", 1),
        "not valid JSON")
    add("bad", "2^64", raw.replace('"repeat": 0', '"repeat": 18446744073709551616', 1), "not valid JSON")
    add("bad", "nest-100000", raw.replace('"options": {', '"options": {"deep": ' + nest(100000) + ", ", 1),
        "not valid JSON")
    add("bad", "nest-3000", raw.replace('"options": {', '"options": {"deep": ' + nest(3000) + ", ", 1), "not valid JSON")
    add("bad", "duplicate-top", raw.replace('"interrupted": ', '"interrupted": false, "interrupted": ', 1), "not valid JSON")
    add("bad", "duplicate-deep", raw.replace('"options": {', '"options": {"x": 1, "x": 2, ', 1), "not valid JSON")
    add("bad", "nul-in-string", raw.replace('"hostname": "', '"hostname": "a\\u0000', 1), "not valid JSON")
    add("bad", "lone-surrogate", raw.replace('"hostname": "', '"hostname": "a\\ud800', 1), "not valid JSON")
    add("bad", "bad-utf8", raw.encode().replace(b'"hostname": "', b'"hostname": "\xff\xfe', 1), "")
    add("bad", "bom", b"\xef\xbb\xbf" + raw.encode(), "")
    add("bad", "trailing-garbage", raw + "\nx", "not valid JSON")
    add("bad", "two-documents", raw + "\n" + raw, "not valid JSON")
    add("bad", "comment", "// results\n" + raw, "not valid JSON")
    damaged("schema-2", "schema_version", lambda d: d.__setitem__("schema_version", 2))
    damaged("schema-string", "schema_version", lambda d: d.__setitem__("schema_version", "1"))
    damaged("schema-real", "schema_version", lambda d: d.__setitem__("schema_version", 1.0))
    damaged("schema-missing", "schema_version", lambda d: d.pop("schema_version"))
    damaged("no-metadata", "metadata", lambda d: d.pop("metadata"))
    damaged("metadata-null", "metadata", lambda d: d.__setitem__("metadata", None))
    damaged("no-runs", "runs", lambda d: d.pop("runs"))
    damaged("runs-object", "runs", lambda d: d.__setitem__("runs", {}))
    damaged("run-null", "runs[0]", lambda d: d["runs"].__setitem__(0, None))
    damaged("summary-count", "summary.runs", lambda d: d["summary"].__setitem__("runs", d["summary"]["runs"] + 1))
    damaged("interrupted-string", "interrupted", lambda d: d.__setitem__("interrupted", "false"))
    damaged("harness-arch", "metadata.harness.arch", lambda d: d["metadata"]["harness"].pop("arch"))
    damaged("command-line-ints", "metadata.command_line", lambda d: d["metadata"].__setitem__("command_line", [1, 2]))
    damaged("seed-negative", "metadata.seed", lambda d: d["metadata"].__setitem__("seed", -5))
    damaged("seed-hex", "metadata.seed", lambda d: d["metadata"].__setitem__("seed", "0x10"))
    damaged("seed-words", "metadata.seed", lambda d: d["metadata"].__setitem__("seed", "abc"))
    damaged("seed-leading-zero", "metadata.seed", lambda d: d["metadata"].__setitem__("seed", "007"))
    damaged("run-seed-real", "runs[0].seed", lambda d: d["runs"][0].__setitem__("seed", 1.5))
    damaged("status-missing", "runs[0].status", lambda d: d["runs"][0].pop("status"))
    damaged("status-unknown", "runs[0].status", lambda d: d["runs"][0].__setitem__("status", "fine"))
    damaged("status-number", "runs[0].status", lambda d: d["runs"][0].__setitem__("status", 5))
    damaged("repeat-real", "runs[0].repeat", lambda d: d["runs"][0].__setitem__("repeat", 1.5))
    damaged("threads-string", "runs[0].threads", lambda d: d["runs"][0].__setitem__("threads", "2"))
    damaged("iterations-negative", "runs[0].iterations", lambda d: d["runs"][0].__setitem__("iterations", -1))
    damaged("ops-string", "runs[0].ops_per_sec", lambda d: d["runs"][0].__setitem__("ops_per_sec", "fast"))
    damaged("ops-null-when-ok", "runs[0].ops_per_sec", lambda d: d["runs"][0].__setitem__("ops_per_sec", None))
    damaged("probe-missing", "runs[0].probe", lambda d: d["runs"][0].pop("probe"))
    damaged("probe-null-when-ok", "runs[0].probe", lambda d: d["runs"][0].__setitem__("probe", None))
    damaged("probe-stable-string", "runs[0].probe.stable", lambda d: d["runs"][0]["probe"].__setitem__("stable", "yes"))
    damaged("probe-one-way-string", "runs[0].probe.before[0].one_way_ns",
            lambda d: d["runs"][0]["probe"]["before"][0].__setitem__("one_way_ns", "x"))
    damaged("witness-count-missing", "runs[0].witnesses.count", lambda d: d["runs"][0]["witnesses"].pop("count"))
    damaged("histogram-array", "runs[0].witnesses.histogram", lambda d: d["runs"][0]["witnesses"].__setitem__("histogram", []))
    damaged("cpus-real", "runs[0].cpus[0]", lambda d: d["runs"][0].__setitem__("cpus", [0.5]))
    damaged("latency-string", "runs[0].metrics.round_trip_ns.median",
            lambda d: d["runs"][0]["metrics"]["round_trip_ns"].__setitem__("median", "x"))
    damaged("event-kind", "runs[0].counters.events[0].kind",
            lambda d: d["runs"][0]["counters"]["events"][0].__setitem__("kind", "bogus"))
    damaged("skipped-ops-string", "runs[0].ops_per_sec",
            lambda d: d["runs"][0].update(status="skipped", ops_per_sec="x"))

    # ---- seeded single-bit flips: the validators must agree ----
    rng = random.Random(20261203)
    data = raw.encode()
    for i in range(24):
        pos = rng.randrange(len(data))
        flipped = bytearray(data)
        flipped[pos] ^= 1 << rng.randrange(8)
        add("flip", f"byte{pos}", bytes(flipped))

    with open(os.path.join(a.outdir, "expect.tsv"), "w", encoding="utf-8") as tsv:
        for n, (cls, name, data, field) in enumerate(files):
            fn = f"{cls}-{n:02d}-{name}.json"
            with open(os.path.join(a.outdir, fn), "wb") as f:
                f.write(data)
            tsv.write(f"{fn}\t{cls}\t{field}\n")
    print(len(files))


if __name__ == "__main__":
    main()
