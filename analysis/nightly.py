#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Run a suite, keep its results, compare them with this host's accepted baseline.

A suite file lists run-scenario invocations, one per line ('#' comments);
each gets --repeat N (default 5: the fewest a side for which a two-sided
Mann-Whitney test can reach p < 0.05) unless the line sets its own.
Results go to results/nightly/<suite>-<time>-<pid>/ with junit.xml,
compare.txt and summary.txt; results/nightly/<suite>-latest points at the
newest.  The baseline is this host's accepted run
(results/nightly/<suite>-accepted-<host>) unless --baseline names a
directory; hosts never share one.  The baseline moves only with --accept,
so a slow drift is measured against a fixed point and shows once it
exceeds --min-delta.  JUnit: one test case per run (a forbidden witness,
lost write, error or hang fails it) and one per compared run group (a
regression fails it; too few repeats skips it as UNDERPOWERED); a failure
says how to reproduce it.

--in-vm "OPTIONS" runs the night in one boot of scripts/numa-vm OPTIONS
(e.g. --in-vm "--nodes 2"): every line inside the guest, results and
logs brought back into the night's directory; the baseline is the guest's
(its machine-id and hostname, from numa-vm --identity), never this host's.

Exit: 0 all good; 1 a failure or a performance regression; 2 bad input
(nothing is run); 3 internal error.
"""
import hashlib
import io
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.realpath(__file__))
TOP = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(HERE, "lib"))
import cli  # noqa: E402
import mmt_results as R  # noqa: E402
import verdicts as V  # noqa: E402
from importlib.machinery import SourceFileLoader  # noqa: E402

compare_mod = SourceFileLoader("mmt_compare", os.path.join(HERE, "compare.py")).load_module()



def failed_run(r):
    """A run the verdict table fails in JUnit (a failure or an error)."""
    return V.run_row(r)["junit"] in ("failure", "error")


def junit_result(tc, row, verdict, message, body=None):
    """The JUnit element the verdict table names; 'pass' adds none."""
    kind = row["junit"]
    if kind == "pass":
        return
    el = ET.SubElement(tc, kind, message=message)
    if kind != "skipped":
        el.set("type", verdict)
    if body is not None:
        el.text = body


def group_verdict(k, regressed, outcome):
    """One performance group's verdict: NOT COMPARABLE whatever its metrics
    (compare judges none of them), else the worst of its metrics'."""
    if k in outcome.not_comparable:
        return "NOT COMPARABLE"
    if k in regressed:
        return "REGRESSION"
    if k in {g for g, *_ in outcome.loaded}:
        return "LOADED"
    if k in {g for g, _ in outcome.underpowered}:
        return "UNDERPOWERED"
    if k in {g for g, *_ in outcome.improvements}:
        return "improvement"
    return "no change"


def performance_lines(outcome, alpha, min_delta):
    """The summary's lines on the comparison, counted as the JUnit cases
    are: a NOT COMPARABLE group's metrics are not UNDERPOWERED too."""
    lines = [f"performance regressions: {len(outcome.regressions)} in {outcome.compared} metrics "
             f"(p < {alpha}, |change| >= {min_delta}%)"]
    if outcome.not_comparable:
        lines.append(f"NOT COMPARABLE: {len(outcome.not_comparable)} of {len(outcome.groups)} groups "
                     "(CPUs sat differently from the baseline's): no verdict, skipped in JUnit")
    loaded = {k for k, *_ in outcome.loaded}
    if loaded:
        lines.append(f"LOADED: {len(loaded)} of {len(outcome.groups)} groups changed as the load around them "
                     "did (workers off their CPUs, other tasks runnable): no verdict, skipped in JUnit")
    if outcome.underpowered:
        groups = len({k for k, _ in outcome.underpowered})
        lines.append(f"UNDERPOWERED: {len(outcome.underpowered)} of {outcome.compared} metrics, in {groups} of "
                     f"{len(outcome.groups)} groups, had too few repeats for any verdict: skipped in JUnit")
    return lines


def read_suite(path):
    try:
        with open(path, encoding="utf-8") as f:
            lines = [ln.split("#", 1)[0].strip() for ln in f]
    except OSError as e:
        raise R.ResultsError(f"{path}: cannot read the suite: {e.strerror}") from None
    except UnicodeDecodeError:
        raise R.ResultsError(f"{path}: the suite is not UTF-8 text") from None
    out = []
    for n, ln in enumerate(lines, 1):
        if not ln:
            continue
        try:
            out.append(shlex.split(ln))
        except ValueError as e:
            raise R.ResultsError(f"{path}:{n}: {e}") from None
    if not out:
        raise R.ResultsError(f"{path}: no invocations")
    return out


def line_argv(args, repeats, out):
    """What a suite line runs: --repeat added unless the line has one."""
    args = list(args)
    if not any(a == "--repeat" or a.startswith("--repeat=") for a in args):
        args += ["--repeat", str(repeats)]
    return args, args + ["--output", out]


# Each run's cost beyond its time bound: the placement probe before and
# after, start-up, writing the record.  Measured on a 2-vCPU VM beside
# stress-ng --cpu 4: 0.12 s (msgpass) to 0.2 s (litmus) a run; the ETA
# corrects the estimate with the night's own pace as it goes.
RUN_OVERHEAD_S = 0.25
BOUND = re.compile(r" bound ([0-9.]+)s( \(ends once done\))?$")


class Plan:
    """What a line will run, from --dry-run: runs, runs skipped, the sum of
    the runs' time bounds, and how many of them end earlier by themselves."""

    def __init__(self, text):
        self.runs = self.skipped = self.open_ended = 0
        self.bound_s = self.open_bound_s = self.max_bound_s = 0.0
        for ln in text.splitlines():
            if " skipped: " in ln:
                self.skipped += 1
                continue
            m = BOUND.search(ln)
            self.runs += 1
            if m:
                self.max_bound_s = max(self.max_bound_s, float(m.group(1)))
            if m and m.group(2):
                self.open_ended += 1
                self.open_bound_s = max(self.open_bound_s, float(m.group(1)))
            elif m:
                self.bound_s += float(m.group(1))

    def seconds(self):
        """The expected time: fixed-length runs at their bound, runs that
        end once done at the overhead alone (the ETA's pace corrects it)."""
        return self.bound_s + self.runs * RUN_OVERHEAD_S


def check_lines(runner, invocations, path, repeats):
    """Every suite line is checked (--dry-run, with exactly what it will
    run) before the first runs: a malformed one is bad input, exit 2, not
    a failure found an hour in.  Returns each line's Plan."""
    plans = []
    for n, args in enumerate(invocations, 1):
        _, argv = line_argv(args, repeats, os.devnull)
        proc = subprocess.run([runner] + argv[:-2] + ["--dry-run"], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, errors="replace")
        if proc.returncode == 2:
            msg = proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "exit 2"
            raise R.ResultsError(f"{path}: invocation {n} ({' '.join(args)}): {msg}")
        plans.append(Plan(proc.stdout))
    return plans


def minutes(s):
    return f"{s / 60:.0f} min" if s >= 90 else f"{s:.0f} s"


def estimate_text(plans):
    runs = sum(p.runs for p in plans)
    skipped = sum(p.skipped for p in plans)
    open_ended = sum(p.open_ended for p in plans)
    text = (f"estimate: {runs} runs{f' ({skipped} skipped here)' if skipped else ''}, "
            f"about {minutes(sum(p.seconds() for p in plans))}")
    if open_ended:
        bound = max(p.open_bound_s for p in plans)
        text += (f", plus {open_ended} run{'s' * (open_ended != 1)} that end{'s' * (open_ended == 1)} once done (seconds each on hardware, longer under "
                 f"emulation; at most {minutes(bound)} each)")
    return text


def local_host_id():
    """This machine's identity, computed as R.host_id() computes it from results."""
    try:
        with open("/etc/machine-id", encoding="ascii") as f:
            mid = f.read().strip()
        if mid:
            return mid, socket.gethostname()
    except (OSError, UnicodeDecodeError):
        pass
    model = None
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith(("model name", "Model")) and ":" in line:
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{socket.gethostname()}|{model}", socket.gethostname()


def host_slug(hid, name):
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in name)[:40] or "host"
    return f"{safe}-{hashlib.sha1(hid.encode()).hexdigest()[:8]}"


def reproduce(run, args):
    """The command that repeats one run: same scenario, variant, CPUs, seed, options."""
    cmd = ["./run-scenario", run["scenario"], "--variant", run["variant"]]
    if run.get("cpus"):
        cmd += ["--placement", "cpus:" + ",".join(str(c) for c in run["cpus"])]
    else:
        cmd += ["--placement", run["placement"]]
    cmd += ["--threads", str(run["threads"]), "--seed", str(R.u64(run["seed"]))]
    # Every flag of the line that shaped the run or its verdict.
    for opt in ("--duration", "--iterations", "--events", "--mem-node", "--mutant"):
        if opt in args and args.index(opt) + 1 < len(args):
            cmd += [opt, args[args.index(opt) + 1]]
    if "--assume-forbidden" in args:
        cmd.append("--assume-forbidden")
    for name, value in sorted((run.get("options") or {}).items()):
        cmd += [f"--{name}", str(value)]
    return " ".join(shlex.quote(c) for c in cmd)


def reproduce_regression(new_runs, args, base_dir):
    """A regression is a claim about many runs: its reproduce line repeats
    them as often and compares the result with the same baseline."""
    one = reproduce(new_runs[0], args).split(" --seed ")[0]
    rest = reproduce(new_runs[0], args).split(" --seed ", 1)[1].split(" ", 1)
    tail = f" {rest[1]}" if len(rest) > 1 else ""
    out = "/tmp/mmt-reproduce.json"
    return (f"{one}{tail} --repeat {len(new_runs)} --output {out} && "
            f"scripts/compare {shlex.quote(os.path.realpath(base_dir)) if base_dir else 'BASELINE'} -- {out}")


def run_body(run, args):
    w = run.get("witnesses") or {}
    lines = [f"status: {run['status']}", f"verdict: {run.get('verdict')}", f"reason: {run.get('reason')}",
             f"cpus: {run.get('cpus')}  mem node: {run.get('mem_node')}  seed: {R.u64(run['seed'])}",
             f"histogram: {w.get('histogram')}", f"reproduce: {reproduce(run, args)}"]
    return "\n".join(lines)


def junit(suite, docs, broken, outcome, started, elapsed, labels):
    ts = ET.Element("testsuite", name=suite, timestamp=time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(started)),
                    hostname=socket.gethostname(), time=f"{elapsed:.3f}")
    props = ET.SubElement(ts, "properties")
    if docs:
        m = docs[0]["metadata"]
        for name, value in (("kernel", (m.get("kernel") or {}).get("release")), ("cpu", (m.get("cpu") or {}).get("model")),
                            ("git_revision", m["harness"]["git_revision"]), ("compiler", m["harness"]["compiler"]),
                            ("liburcu_version", m.get("liburcu_version")), ("host", R.host_label(docs[0])),
                            ("seed", R.u64(m["seed"])), ("settings", m.get("settings"))):
            ET.SubElement(props, "property", name=name, value=str(value))
    tests = 0
    counts = {"pass": 0, "failure": 0, "error": 0, "skipped": 0}
    for d, args in docs_with_args(docs):
        for r in d["runs"]:
            tests += 1
            tc = ET.SubElement(ts, "testcase", classname=f"{suite}.{r['scenario']}",
                               name=f"{r['variant']} {r['placement']} #{r['repeat']}",
                               time=f"{(R.u64(r.get('elapsed_ns')) or 0) / 1e9:.3f}")
            verdict, row = V.of_run(r), V.run_row(r)
            counts[row["junit"]] += 1
            junit_result(tc, row, verdict, f"{verdict}: {r.get('verdict') or r.get('reason')}",
                         None if row["junit"] == "skipped" else run_body(r, args))
    for args, rc, log in broken:
        tests += 1
        counts["error"] += 1
        tc = ET.SubElement(ts, "testcase", classname=f"{suite}.invocation", name=" ".join(args), time="0")
        ET.SubElement(tc, "error", message=f"run-scenario exited {rc} without results").text = log[-4000:]
    if outcome:
        regressed = {}
        for k, name, delta, p, b, n in outcome.regressions:
            regressed.setdefault(k, []).append((name, delta, p, n))
        for k in sorted(outcome.groups):
            tests += 1
            tc = ET.SubElement(ts, "testcase", classname=f"{suite}.performance", name=R.key_text(k, labels), time="0")
            verdict = group_verdict(k, regressed, outcome)
            row = V.comparison_row(verdict)
            counts[row["junit"]] += 1
            if verdict == "REGRESSION":
                items = regressed[k]
                first_new = items[0][3][0]
                body = [f"{name}: {delta:+.1f}% (p = {p:.4f})" for name, delta, p, _ in items]
                body.append(f"reproduce the regression: {reproduce_regression(items[0][3], first_new.get('_args', []), getattr(outcome, 'base_dir', None))}")
                body.append(f"one of the new runs: {run_body(first_new, first_new.get('_args', []))}")
                junit_result(tc, row, "regression", "; ".join(f"{name} {delta:+.1f}%" for name, delta, _, _ in items),
                             "\n".join(body))
            else:
                junit_result(tc, row, verdict, f"{verdict}: {row['meaning']}")
    ts.set("tests", str(tests))
    ts.set("failures", str(counts["failure"]))
    ts.set("errors", str(counts["error"]))
    ts.set("skipped", str(counts["skipped"]))
    return ET.ElementTree(ts)


def docs_with_args(docs):
    return [(d, d.get("_args", [])) for d in docs]


def write(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def point(link, target):
    tmp = link + ".new"
    if os.path.lexists(tmp):
        os.remove(tmp)
    os.symlink(target, tmp)
    os.replace(tmp, link)


def prune(root, suite, keep, protect):
    runs = sorted(e for e in os.listdir(root) if e.startswith(f"{suite}-2") and os.path.isdir(os.path.join(root, e))
                  and not os.path.islink(os.path.join(root, e)))
    removed = []
    for e in runs[:max(len(runs) - keep, 0)]:
        if os.path.realpath(os.path.join(root, e)) in protect:
            continue
        shutil.rmtree(os.path.join(root, e))
        removed.append(e)
    return removed


def _stop_night(signo, frame):
    """SIGTERM ends the night as SIGINT does: marked, never -latest."""
    raise KeyboardInterrupt


def eta(plans, done, started):
    """The time left: the remaining lines' plans, at the pace so far."""
    spent = time.time() - started
    planned_done = sum(p.seconds() for p in plans[:done])
    pace = spent / planned_done if planned_done > 0 else 1.0
    left = sum(p.seconds() for p in plans[done:]) * pace
    return f"about {minutes(left)} left, done near {time.strftime('%H:%M', time.localtime(time.time() + left))}"


def line_doc(path, args):
    """A line's results, each run tagged with the line's arguments (what
    its reproduce command repeats)."""
    d = R.load(path)
    d["_args"] = args
    for r in d["runs"]:
        r["_args"] = args
    return d


def run_lines(runner, invocations, repeats, run_dir, plans):
    """Each suite line once, its results file and log in run_dir: the
    documents read, and the lines that left none."""
    docs, broken = [], []
    started = time.time()
    for i, line in enumerate(invocations):
        out = os.path.join(run_dir, f"{i:02d}-{line[0] if line else 'smoke'}.json")
        args, argv = line_argv(line, repeats, out)
        t0 = time.time()
        proc = subprocess.Popen([runner] + argv,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
        try:
            log, _ = proc.communicate()
        except KeyboardInterrupt:
            # The line's run writes what it has and restores what it
            # changed on SIGTERM; SIGKILL only if it will not (30 s).  A
            # second signal meanwhile does not orphan it.
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            proc.terminate()
            try:
                log, _ = proc.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                log, _ = proc.communicate()
            write(os.path.join(run_dir, f"{i:02d}.log"), log)
            raise
        write(os.path.join(run_dir, f"{i:02d}.log"), log)
        print(f"[{i + 1}/{len(invocations)}] run-scenario {' '.join(args)}: exit {proc.returncode} "
              f"({time.time() - t0:.0f} s){'; ' + eta(plans, i + 1, started) if i + 1 < len(invocations) else ''}",
              flush=True)
        if os.path.exists(out):
            docs.append(line_doc(out, args))
        else:
            broken.append((args, proc.returncode, log))
    return docs, broken


LINE_END = re.compile(r"^@@MMT-LINE (\d+) exit (\d+)@@$")


def numa_vm():
    """scripts/numa-vm of this tree (not installed: operations run from a checkout)."""
    path = os.path.join(TOP, "ops", "numa-vm.sh")
    if not os.path.isfile(path):
        raise R.ResultsError("--in-vm needs scripts/numa-vm: run nightly from a source checkout")
    return os.environ.get("MMT_NUMA_VM", path)


def vm_identity(vm_opts):
    """The guest's machine-id and hostname for these numa-vm options."""
    proc = subprocess.run([numa_vm()] + vm_opts + ["--identity"], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, errors="replace")
    words = proc.stdout.split()
    if proc.returncode != 0 or len(words) != 2:
        msg = proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else f"exit {proc.returncode}"
        raise R.ResultsError(f"--in-vm: {msg}")
    return words[0], words[1]


# A run's cost in the guest beyond its time bound (boot, probe, records):
# measured in a 2-node, 4-vCPU TCG guest on this project's 2-vCPU VM, about
# 1.5 s a run when the host was quiet and over 15 s (a 20-run night did not
# finish in 334 s) while it built and tested beside it.
VM_RUN_OVERHEAD_S = 15


def vm_timeout(plans):
    """The guest's bound: every run's own (the harness calls a run past half
    its duration and a second more INVALID, and stops open-ended ones at
    their bound) and the loaded guest's overhead per run, plus five minutes
    to boot.  Runs this host skips (cross-node on one node) may run in the
    guest: each counts at its line's longest bound."""
    return int(300 + sum(1.5 * (p.bound_s + p.skipped * p.max_bound_s) + (p.runs + p.skipped) * VM_RUN_OVERHEAD_S +
                         p.open_ended * p.open_bound_s for p in plans))


def vm_script(invocations, repeats):
    """One shell script for the guest: each line, its end marked with its
    exit, its results file sent back at once (a guest killed later still
    returns the lines it finished)."""
    out = ["#!/bin/sh", "# scripts/nightly --in-vm: the suite's lines, one after the other"]
    names = []
    for i, line in enumerate(invocations):
        name = f"{i:02d}-{line[0] if line else 'smoke'}.json"
        args, _ = line_argv(line, repeats, name)
        names.append((name, args))
        out.append(f'mmtorture {" ".join(shlex.quote(a) for a in args)} --output "$MMT_RESULTS_DIR/{name}"')
        out.append(f'echo "@@MMT-LINE {i} exit $?@@"')
        out.append(f'f="$MMT_RESULTS_DIR/{name}"; if [ -f "$f" ]; then echo "@@MMT-FILE {name}@@"; base64 "$f"; '
                   f'echo "@@MMT-END@@"; rm -f "$f"; fi')
    return "\n".join(out) + "\n", names


def run_lines_in_vm(vm_opts, invocations, repeats, run_dir, plans):
    """All lines in one guest boot; as run_lines, with the guest's output
    split into each line's log."""
    text, names = vm_script(invocations, repeats)
    path = os.path.join(run_dir, "in-vm.sh")
    write(path, text)
    bound = [] if "--timeout" in vm_opts else ["--timeout", str(vm_timeout(plans))]
    cmd = [numa_vm()] + vm_opts + bound + ["--log", os.path.join(run_dir, "console.log"), "--script", path]
    print(f"in a guest: {' '.join(shlex.quote(c) for c in cmd)}", flush=True)
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace",
                          env=dict(os.environ, MMT_RESULTS_DIR=run_dir))
    write(os.path.join(run_dir, "numa-vm.log"), proc.stdout)
    logs, ends, cur, in_file = [[] for _ in names], {}, 0, False
    for ln in proc.stdout.splitlines():
        m = LINE_END.match(ln)
        if ln.startswith("@@MMT-FILE ") or in_file:	# a results file on its way back
            in_file = ln != "@@MMT-END@@"
        elif m:
            ends[int(m.group(1))] = int(m.group(2))
            cur = int(m.group(1)) + 1
        elif cur < len(names):
            logs[cur].append(ln)
    docs, broken = [], []
    for i, (name, args) in enumerate(names):
        write(os.path.join(run_dir, f"{i:02d}.log"), "\n".join(logs[i]) + "\n")
        out = os.path.join(run_dir, name)
        rc = ends.get(i, proc.returncode)
        print(f"[{i + 1}/{len(names)}] run-scenario {' '.join(args)}: "
              f"{'exit ' + str(rc) if i in ends else 'did not finish in the guest'}", flush=True)
        if i in ends and os.path.exists(out):
            docs.append(line_doc(out, args))
        else:
            broken.append((args, rc, "\n".join(logs[i]) or proc.stdout[-4000:]))
    return docs, broken


def main(argv):
    ap = cli.Parser("nightly", __doc__)
    ap.add_argument("suite", help="suite file (e.g. suites/nightly)")
    ap.add_argument("--baseline", metavar="DIR", help="compare with DIR instead of this host's accepted run")
    ap.add_argument("--accept", action="store_true",
                    help="make this run the host's accepted baseline (unless a run failed)")
    ap.add_argument("--repeats", type=int, default=5, metavar="N",
                    help="--repeat added to lines without one (default 5)")
    ap.add_argument("--junit", metavar="PATH", help="also write the JUnit XML to PATH")
    ap.add_argument("--keep", type=int, default=30, metavar="N",
                    help="keep the newest N runs of this suite, never the accepted ones (default 30)")
    ap.add_argument("--runner", metavar="PROGRAM",
                    help="what runs each line (default: run-scenario of this tree, or mmtorture on PATH "
                         "when installed); e.g. build/mmtorture")
    ap.add_argument("--estimate", action="store_true",
                    help="check the suite and print how many runs it makes and about how long they take; run nothing")
    ap.add_argument("--in-vm", metavar="OPTIONS",
                    help="run the night in one scripts/numa-vm boot with these options (e.g. \"--nodes 2\"; "
                         "\"\" for its defaults; --timeout S replaces the bound nightly works out), against the "
                         "guest's own baseline")
    ap.add_argument("--alpha", type=float, default=0.05)
    ap.add_argument("--min-delta", type=float, default=3.0, metavar="PCT")
    a = ap.parse_args(argv)
    vm_opts = None
    if a.in_vm is not None:
        vm_opts = shlex.split(a.in_vm)
        bad = [o for o in vm_opts if o in ("--script", "--", "--log", "--identity")]
        if bad:
            ap.error(f"--in-vm: {bad[0]} is nightly's to set")
    if a.repeats < 1 or a.keep < 1:
        ap.error("--repeats and --keep must be at least 1")
    invocations = read_suite(a.suite)
    suite = os.path.basename(a.suite)
    root = os.path.join(os.environ.get("MMT_RESULTS_DIR", os.path.join(TOP, "results")), "nightly")
    hid, hname = vm_identity(vm_opts) if vm_opts is not None else local_host_id()
    accepted = os.path.join(root, f"{suite}-accepted-{host_slug(hid, hname)}")
    base_dir = a.baseline or (accepted if os.path.isdir(accepted) else None)
    if a.baseline is not None and not os.path.isdir(a.baseline):
        raise R.ResultsError(f"--baseline {a.baseline}: not a directory")
    # The baseline is read, and refused if damaged, before anything runs.
    base_docs = R.load_all([base_dir]) if base_dir else []
    if a.junit and not os.path.isdir(os.path.dirname(os.path.abspath(a.junit))):
        raise R.ResultsError(f"--junit {a.junit}: directory does not exist")

    # In the source tree run-scenario (which builds first); installed, the
    # mmtorture beside this script's link on PATH.
    runner = a.runner or os.path.join(TOP, "run-scenario")
    if a.runner and not (os.path.isfile(runner) and os.access(runner, os.X_OK)):
        raise R.ResultsError(f"--runner {runner}: not an executable file")
    if not os.path.exists(runner):
        runner = shutil.which("mmtorture")
        if not runner:
            raise R.ResultsError("neither run-scenario nor mmtorture found to run the suite")
    plans = check_lines(runner, invocations, a.suite, a.repeats)
    print(f"{suite}: {len(invocations)} lines; {estimate_text(plans)}", flush=True)
    if a.estimate:
        return 0
    started = time.time()
    run_dir = os.path.join(root, f"{suite}-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}")
    os.makedirs(run_dir)
    signal.signal(signal.SIGTERM, _stop_night)
    try:
        if vm_opts is not None:
            docs, broken = run_lines_in_vm(vm_opts, invocations, a.repeats, run_dir, plans)
        else:
            docs, broken = run_lines(runner, invocations, a.repeats, run_dir, plans)
    except KeyboardInterrupt:
        # A night cut short is marked, and never becomes -latest.
        write(os.path.join(run_dir, "INTERRUPTED"), "this night was interrupted: not compared, not latest\n")
        raise
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    point(os.path.join(root, f"{suite}-latest"), os.path.basename(run_dir))

    text = io.StringIO()
    outcome = None
    labels = R.host_labels(docs + base_docs)
    if base_dir:
        print(f"baseline: {os.path.realpath(base_dir)}", file=text)
        outcome = compare_mod.compare(base_docs, docs, a.alpha, a.min_delta, out=text)
        outcome.groups = set(compare_mod.group(base_docs)) & set(compare_mod.group(docs))
        outcome.base_dir = base_dir
    else:
        print(f"no accepted baseline for this host ({os.path.basename(accepted)}): nothing compared; "
              "run with --accept to make one", file=text)
    write(os.path.join(run_dir, "compare.txt"), text.getvalue())

    tree = junit(suite, docs, broken, outcome, started, time.time() - started, labels)
    ET.indent(tree)
    tree.write(os.path.join(run_dir, "junit.xml"), encoding="utf-8", xml_declaration=True)
    if a.junit:
        tree.write(a.junit, encoding="utf-8", xml_declaration=True)

    runs = [r for d in docs for r in d["runs"]]
    status = {}
    for r in runs:
        status[r["status"]] = status.get(r["status"], 0) + 1
    failed = sum(map(failed_run, runs)) + len(broken)
    regressions = len(outcome.regressions) if outcome else 0
    lines = [f"suite {suite} on {hname}: {len(runs)} runs ({', '.join(f'{n} {s}' for s, n in sorted(status.items()))})",
             f"failures (forbidden witness, lost write, missed injected fault, error, hang): {failed}"]
    if not outcome:
        lines.append("performance: not compared: no accepted baseline for this host yet; run with --accept to make one")
    else:
        lines += performance_lines(outcome, a.alpha, a.min_delta)
    lines.append(f"results: {run_dir}")
    for r in runs:
        if failed_run(r):
            lines.append(f"  FAIL {r['scenario']} {r['variant']} {r['placement']} #{r['repeat']}: "
                         f"{r.get('verdict') or r.get('reason')}\n    reproduce: {reproduce(r, r['_args'])}")
    for args, rc, _ in broken:
        lines.append(f"  ERROR run-scenario {' '.join(args)}: exit {rc}, no results")
    if outcome:
        for k, name, delta, p, _, n in outcome.regressions:
            lines.append(f"  REGRESSION {R.key_text(k, labels)} {name} {delta:+.1f}% (p = {p:.4f})\n"
                         f"    reproduce: {reproduce_regression(n, n[0]['_args'], base_dir)}")
    if a.accept:
        if failed:
            lines.append("not accepted: runs failed")
        else:
            point(accepted, os.path.relpath(run_dir, root))
            lines.append(f"accepted as this host's baseline ({accepted})")
    protect = {os.path.realpath(os.path.join(root, e)) for e in os.listdir(root) if os.path.islink(os.path.join(root, e))}
    protect.add(os.path.realpath(run_dir))
    removed = prune(root, suite, a.keep, protect)
    if removed:
        lines.append(f"pruned {len(removed)} old runs (keeping {a.keep})")
    write(os.path.join(run_dir, "summary.txt"), "\n".join(lines) + "\n")
    print("\n".join(lines))
    if regressions:
        print("\n" + text.getvalue())
    return 1 if failed or regressions else 0


if __name__ == "__main__":
    sys.exit(cli.run("nightly", main, sys.argv[1:]))
