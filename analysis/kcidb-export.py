#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""mmtorture results as KCIDB (v5.0) JSON: one KCIDB test per run.

From RESULTS (files or directories), or from a LAVA job through LAVA's REST
API (--lava-url URL --lava-job ID): the job's test cases and the results
files lava/run-suite printed into its log.  Each test has an id, origin and
build_id, a dot-separated path mmtorture.SCENARIO.VARIANT.PLACEMENT, a
status from results/verdicts.json (PASS; FAIL for a forbidden witness or a
missed injected fault; ERROR for an error, a hang or an interrupted run;
SKIP for a skipped run; DONE for an inconclusive one, which ran but could
not decide), the run's
ops/s as its number, the host identity and topology from the results
metadata in its environment, and seed, CPUs and the outcome histogram in
misc.  No nulls, no properties outside lava/kcidb-schema.json, which the
output is checked against before anything is written.  From LAVA, every
SCENARIO.exit-code case becomes a test as well, and --save-results DIR
keeps the results files (named by job and device) for scripts/report,
which keeps every host apart.

Exit 0 written; 2 bad input (one line, nothing written); 3 a LAVA server
that cannot be read, or our own bug.
"""
import base64
import gzip
import hashlib
import json
import os
import re
import sys
import tempfile
import urllib.error
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.realpath(__file__))
sys.path.insert(0, os.path.join(HERE, "lib"))
import cli  # noqa: E402
import mmt_results as R  # noqa: E402
import verdicts as V  # noqa: E402

import jsonschema  # noqa: E402

# Source tree and make install alike: lava/ beside scripts/.
SCHEMA_PATHS = (os.path.join(HERE, "..", "lava", "kcidb-schema.json"),)
API = "/api/v0.2/"
ORIGIN_RE = re.compile(r"^[a-z0-9_]+$")


class LavaError(Exception):
    """The LAVA server could not be read (exit 3: not the user's input)."""


def safe(part):
    """One part of a path or LAVA case name, as lava/run-suite writes it."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", part.replace("/", "-"))


def no_nulls(v):
    if isinstance(v, dict):
        return {k: no_nulls(x) for k, x in v.items() if x is not None}
    if isinstance(v, list):
        return [no_nulls(x) for x in v if x is not None]
    return v


def status(run):
    return V.run_row(run)["kcidb"]


def host(doc, device=None):
    m = doc["metadata"]
    h = m.get("host") or {}
    out = {"host_id": R.host_id(doc), "hostname": h.get("hostname") or m.get("hostname") or "?",
           "machine_id": h.get("machine_id"), "cpu_model": h.get("cpu_model") or (m.get("cpu") or {}).get("model"),
           "kernel_release": h.get("kernel_release") or (m.get("kernel") or {}).get("release", "?"),
           "lava_device": device}
    return no_nulls(out)


def topology(doc):
    t = doc["metadata"].get("topology") or {}
    nodes = t.get("nodes") or []
    return no_nulls({"online_cpus": t.get("online_cpus"), "nodes": len(nodes),
                     "node_cpus": {str(n.get("id")): n.get("cpus") for n in nodes if "id" in n},
                     "distances": {str(n.get("id")): n.get("distances") for n in nodes if "distances" in n}})


def build_id(origin, doc, given):
    if given:
        return given
    k = doc["metadata"].get("kernel") or {}
    digest = hashlib.sha1("|".join(str(k.get(x)) for x in ("release", "version", "machine")).encode()).hexdigest()
    return f"{origin}:kernel-{safe(str(k.get('release')))}-{digest[:12]}"


def doc_key(doc):
    """Stable for a results file: exporting it twice gives the same ids."""
    m = doc["metadata"]
    text = json.dumps([R.host_id(doc), m.get("started_at"), str(m.get("seed")), m.get("command_line")])
    return hashlib.sha1(text.encode()).hexdigest()[:16]


def run_tests(doc, origin, given_build, lava=None):
    """KCIDB tests of one results document; lava: {job, device, url, set, cases}."""
    env = {"comment": f"mmtorture on {R.host_label(doc)}",
           "misc": {"host": host(doc, lava and lava["device"]), "topology": topology(doc)}}
    if lava:
        env["misc"]["lava"] = {"job": lava["job"], "device": lava["device"], "url": lava["url"]}
    m = doc["metadata"]
    out = []
    for i, r in enumerate(doc["runs"]):
        w = r.get("witnesses") or {}
        test = {
            "id": f"{origin}:{doc_key(doc)}.{i}",
            "origin": origin,
            "build_id": build_id(origin, doc, given_build),
            "path": ".".join(["mmtorture"] + [safe(r[k]) for k in ("scenario", "variant", "placement")]),
            "status": status(r),
            "start_time": m["started_at"],
            "environment": env,
            "misc": no_nulls({
                "scenario": r["scenario"], "variant": r["variant"], "placement": r["placement"],
                "repeat": r["repeat"], "threads": r["threads"], "cpus": r.get("cpus"),
                "seed": str(R.u64(r["seed"])), "verdict": r.get("verdict"), "reason": r.get("reason"),
                "run_status": r["status"], "injected": r["injected"], "forbidden": r["forbidden"],
                "witnesses": str(R.u64(w["count"])) if "count" in w else None,
                "histogram": w.get("histogram"),
                "harness": {"version": m["harness"]["version"], "git_revision": m["harness"]["git_revision"]},
                "results_file": os.path.basename(doc.get("_name") or doc["_path"]),
            }),
        }
        if r.get("elapsed_ns") is not None:
            test["duration"] = R.u64(r["elapsed_ns"]) / 1e9
        if isinstance(r.get("ops_per_sec"), (int, float)):
            test["number"] = {"value": r["ops_per_sec"], "unit": f"{r['ops_unit']}/s", "prefix": "metric"}
        if lava:
            test["log_url"] = lava["url"]
            case = f"{lava['set']}.{safe(r['variant'])}.{safe(r['placement'])}.{r['repeat']}"
            test["misc"]["lava_case"] = case
            if case in lava["cases"]:
                test["misc"]["lava_result"] = lava["cases"][case]["result"]
        out.append(test)
    return out


# ---- LAVA's REST API -----------------------------------------------------------

class Lava:
    """GETs under URL/api/v0.2/; --record keeps each answer in a file, --replay reads them back."""

    def __init__(self, url, token, record=None, replay=None):
        self.url, self.token, self.record, self.replay = url.rstrip("/"), token, record, replay

    @staticmethod
    def key(url):
        u = urllib.parse.urlsplit(url)
        path = u.path.split(API, 1)[-1]
        return re.sub(r"[^A-Za-z0-9]+", "_", path + ("?" + u.query if u.query else "")).strip("_")

    def get(self, url):
        if not url.startswith(("http://", "https://")):
            url = self.url + API + url
        name = self.key(url)
        if self.replay:
            path = os.path.join(self.replay, name)
            try:
                if not os.path.exists(path) and os.path.exists(path + ".gz"):
                    with gzip.open(path + ".gz", "rb") as f:   # fixtures are kept compressed
                        return f.read()
                with open(path, "rb") as f:
                    return f.read()
            except OSError as e:
                raise R.ResultsError(f"--replay {self.replay}: no recorded answer for {url} ({name}: {e.strerror})")
        req = urllib.request.Request(url, headers={"Authorization": f"Token {self.token}"} if self.token else {})
        try:
            with urllib.request.urlopen(req, timeout=60) as resp:
                body = resp.read()
        except urllib.error.HTTPError as e:
            raise LavaError(f"{url}: HTTP {e.code} {e.reason}") from None
        except (urllib.error.URLError, OSError) as e:
            raise LavaError(f"{url}: {getattr(e, 'reason', e)} (is the server running? lava/local-lab status)") from None
        if self.record:
            os.makedirs(self.record, exist_ok=True)
            with open(os.path.join(self.record, name), "wb") as f:
                f.write(body)
        return body

    def json(self, url):
        body = self.get(url)
        try:
            return json.loads(body)
        except ValueError:
            raise LavaError(f"{url}: not JSON (a LAVA REST API at {self.url}?)") from None

    def job(self, job_id):
        return self.json(f"jobs/{job_id}/")

    def tests(self, job_id):
        out, url = [], f"jobs/{job_id}/tests/?limit=500"
        for _ in range(1000):   # pages: bounded however the server answers
            page = self.json(url)
            out.extend(page.get("results") or [])
            url = page.get("next")
            if not url:
                return out
        raise LavaError(f"jobs/{job_id}/tests/: more than 1000 pages")

    def log(self, job_id):
        return self.get(f"jobs/{job_id}/logs/").decode("utf-8", "replace")


def target_lines(log):
    """The guest's console lines from a LAVA job log (YAML, one flow mapping a line)."""
    for line in log.splitlines():
        if not line.startswith("- {"):
            continue
        try:
            entry = json.loads(line[2:])
        except ValueError:
            continue
        if entry.get("lvl") == "target" and isinstance(entry.get("msg"), str):
            yield entry["msg"].rstrip("\r")


def results_from_log(log):
    """name -> bytes of each results file lava/run-suite printed (base64 between markers)."""
    files, name, chunks = {}, None, []
    marker = re.compile(r"@@MMT-FILE ([A-Za-z0-9_.+-]+\.json)@@")
    for msg in target_lines(log):
        m = marker.search(msg)
        if m:
            name, chunks = m.group(1), []
        elif name and "@@MMT-END@@" in msg:
            try:
                files[name] = base64.b64decode("".join(chunks), validate=True)
            except ValueError:
                raise R.ResultsError(f"the job log's {name} is not valid base64 (a line lost?)") from None
            name = None
        elif name:
            chunks.append(msg.strip())
    return files


def lava_export(args, origin):
    lava = Lava(args.lava_url, args.lava_token or os.environ.get("LAVA_TOKEN"), args.record, args.replay)
    job = lava.job(args.lava_job)
    if job.get("state") != "Finished":
        raise R.ResultsError(f"LAVA job {args.lava_job} is {job.get('state')}, not Finished: nothing to export yet")
    device = job.get("actual_device") or "?"
    url = f"{args.lava_url.rstrip('/')}/scheduler/job/{job['id']}"
    cases = {}
    for t in lava.tests(args.lava_job):
        if t.get("name") and t.get("suite") is not None and not str(t["name"]).startswith(("lava.",)):
            cases.setdefault(t["name"], t)
    docs, tmp = [], tempfile.mkdtemp(prefix="mmt-kcidb.")
    try:
        for name, data in sorted(results_from_log(lava.log(args.lava_job)).items()):
            path = os.path.join(tmp, name)
            with open(path, "wb") as f:
                f.write(data)
            doc = R.load(path)
            doc["_name"], doc["_bytes"] = name, data
            docs.append(doc)
    finally:
        for f in os.listdir(tmp):
            os.unlink(os.path.join(tmp, f))
        os.rmdir(tmp)
    tests, by_set = [], {}
    for doc in docs:
        set_name = re.sub(r"^[0-9]+-", "", doc["_name"][:-len(".json")])
        by_set[set_name] = doc
        tests += run_tests(doc, origin, args.build_id,
                           {"job": str(job["id"]), "device": device, "url": url, "set": set_name, "cases": cases})
    for name, case in sorted(cases.items()):
        if not name.endswith(".exit-code"):
            continue
        set_name = name[:-len(".exit-code")]
        doc = by_set.get(set_name) or (docs[0] if docs else None)
        if doc:
            h, topo, build = host(doc, device), topology(doc), build_id(origin, doc, args.build_id)
        else:   # the line left no results at all (killed before writing): the device is all we know
            h = {"host_id": f"lava-device:{device}", "hostname": device, "kernel_release": "?", "lava_device": device}
            topo, build = {}, args.build_id or f"{origin}:lava-job-{job['id']}"
        res = case.get("result")
        tests.append({
            "id": f"{origin}:lava-{job['id']}.{name}", "origin": origin, "build_id": build,
            "path": f"mmtorture.{safe(set_name)}.exit-code",
            "status": {"pass": "PASS", "fail": "FAIL", "skip": "SKIP"}.get(res, "ERROR"),
            "start_time": (job.get("start_time") or job.get("submit_time")),
            "log_url": url,
            "environment": {"comment": f"mmtorture on LAVA device {device}",
                            "misc": {"host": h, "topology": topo,
                                     "lava": {"job": str(job["id"]), "device": device, "url": url}}},
            "misc": no_nulls({"scenario": set_name, "lava_case": name, "lava_result": res,
                              "exit_code": int(float(case["measurement"])) if case.get("measurement") else None}),
        })
    if args.save_results:
        save_results(args.save_results, job, device, docs)
    return tests


def save_results(dest, job, device, docs):
    os.makedirs(dest, exist_ok=True)
    for doc in docs:
        name = f"lava-{job['id']}-{safe(device)}-{doc['_name']}"
        fd, tmp = tempfile.mkstemp(dir=dest, prefix=".kcidb-export.")
        with os.fdopen(fd, "wb") as f:
            f.write(doc["_bytes"])
        os.chmod(tmp, 0o644)
        os.replace(tmp, os.path.join(dest, name))


_validator = None


def validate(out):
    global _validator
    if _validator is None:
        path = next((p for p in SCHEMA_PATHS if os.path.exists(p)), None)
        if not path:
            raise R.ResultsError(f"KCIDB schema not found (looked in {', '.join(map(os.path.normpath, SCHEMA_PATHS))})")
        with open(path, encoding="utf-8") as f:
            schema = json.load(f)
        _validator = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())
    errors = sorted(_validator.iter_errors(out), key=lambda e: list(e.absolute_path))
    return errors


def main(argv):
    ap = cli.Parser("kcidb-export", __doc__)
    ap.add_argument("results", nargs="*", help="results files or directories")
    ap.add_argument("--lava-url", help="a LAVA server, e.g. http://127.0.0.1:8000")
    ap.add_argument("--lava-job", help="the job id on it (with --lava-url)")
    ap.add_argument("--lava-token", help="an API token (default $LAVA_TOKEN; public jobs need none)")
    ap.add_argument("--record", metavar="DIR", help="keep LAVA's answers in DIR (for --replay)")
    ap.add_argument("--replay", metavar="DIR", help="read LAVA's answers from DIR instead of the server")
    ap.add_argument("--save-results", metavar="DIR", help="with --lava-job: keep the job's results files in DIR")
    ap.add_argument("--origin", default="mmtorture", help="KCIDB origin (default mmtorture)")
    ap.add_argument("--build-id", help="KCIDB build id of the kernel under test (default: from its release)")
    ap.add_argument("--output", "-o", default="-", help="output file (default stdout)")
    ap.add_argument("--check", metavar="FILE", help="only check FILE against the schema: exit 0 valid, 1 not")
    args = ap.parse_args(argv)
    if args.check:
        try:
            with open(args.check, encoding="utf-8") as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            raise R.ResultsError(f"{args.check}: {e}") from None
        errors = validate(doc)
        for e in errors[:5]:
            print(f"kcidb-export: {args.check}: {R.field_path(e.absolute_path) or '(top)'}: {e.message[:160]}",
                  file=sys.stderr)
        return 1 if errors else 0
    if not ORIGIN_RE.match(args.origin):
        ap.error(f"--origin '{args.origin}': lower-case letters, digits and _ only (KCIDB)")
    if args.build_id and not re.match(r"^[a-z0-9_]+:.", args.build_id):
        ap.error(f"--build-id '{args.build_id}': must be ORIGIN:ID (KCIDB)")
    if bool(args.lava_url) != bool(args.lava_job):
        ap.error("--lava-url and --lava-job go together")
    if args.lava_job and args.results:
        ap.error("results files and --lava-job are exclusive")
    if not args.lava_job and not args.results:
        ap.error("no results: give RESULTS or --lava-url URL --lava-job ID")
    if args.lava_job and not re.match(r"^[0-9]+(\.[0-9]+)?$", args.lava_job):
        ap.error(f"--lava-job '{args.lava_job}' is not a job id")
    if (args.record or args.replay or args.save_results) and not args.lava_job:
        ap.error("--record, --replay and --save-results need --lava-job")
    if args.output != "-":
        d = os.path.dirname(os.path.abspath(args.output))
        if not os.path.isdir(d) or not os.access(d, os.W_OK):
            ap.error(f"--output {args.output}: {d} is not a writable directory")
    if args.lava_job:
        try:
            tests = lava_export(args, args.origin)
        except LavaError as e:
            print(f"kcidb-export: LAVA: {e}", file=sys.stderr)
            return cli.EXIT_INTERNAL
    else:
        tests = []
        for doc in R.load_all(args.results):
            tests += run_tests(doc, args.origin, args.build_id)
    out = {"version": {"major": 5, "minor": 0}, "tests": tests}
    errors = validate(out)
    if errors:
        e = errors[0]
        print(f"kcidb-export: internal error (a bug, please report): the export breaks lava/kcidb-schema.json at "
              f"{R.field_path(e.absolute_path)}: {e.message[:160]}", file=sys.stderr)
        return cli.EXIT_INTERNAL
    text = json.dumps(out, indent=1, sort_keys=True) + "\n"
    if args.output == "-":
        sys.stdout.write(text)
    else:
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(args.output)), prefix=".kcidb-export.")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, args.output)
    return 0


if __name__ == "__main__":
    sys.exit(cli.run("kcidb-export", main, sys.argv[1:]))
