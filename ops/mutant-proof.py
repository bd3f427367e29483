#!/usr/bin/env python3
"""Proves each hunter against the real bug it targets, one boot of a mutant kernel per guest profile.

The rows are kernel/mutants.tsv's (--mutant NAME picks a switch's,
--hunter VARIANT one row): a switch of the kernel of scripts/mutant-kernel
(Debian 6.1 with the fix it reverts revertible at run time), the scenario
variant that hunts it, its control and the outcome it must produce.  Rows
with the same guest (scripts/numa-vm with its nodes and memory, 4 vCPUs)
share one boot, one row after the other; each row runs, interleaved
(for the tlb_flush_pending row: hunter mmrace race, control
migrate-after-walk, finding lost_write):
  - the user's command, plain `run-scenario mmrace --variant race` with no
    options, the switch set through /sys beforehand (arms user-on and
    user-off, --user-runs each): lost writes and exit 1 in at least
    --user-need of the runs with it ON; with it OFF no finding, conclusive
    (a migration raced), in at least --user-need, and the kernel's own
    count saw the window during the migrator's calls in each of those;
  - mmrace race with --mutant tlb_flush_pending=on and the settings below:
    must report lost writes (exit 1) in at least --need of the runs;
  - the same with the switch OFF: no finding, and conclusive in at least
    --need of the runs;
  - the migrate-after-walk control with the switch ON: never a lost write,
    and no migration counted inside a walk (the evidence can be false);
  - each suite of --suites, its mmrace lines as they stand in suites/,
    through lava/run-suite (mmtorture-lava in the guest), switch ON and
    OFF (--suite-arms): ON, the line fails with lost writes in a race run;
    OFF, every case passes or is skipped, the race runs conclusive.
The arms' options and the evidence beside each run's finding are the
hunter's scenario's (SCENARIOS below: mmrace's migrations inside a walk,
softdirty's clears raced, madvise's and mremap's rounds raced, pmdshare's
rounds held); a row of
another scenario is refused.
Prints the per-run table (findings, kernel counter deltas, time to the first
finding) and exits 0 when every threshold holds, 1 when one does not,
2 on bad input and 77 when the mutant kernel is not cached (build it with
scripts/mutant-kernel, or pass --build).
"""
import argparse
import json
import math
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
sys.path.insert(0, os.path.join(TOP, "analysis", "lib"))
sys.path.insert(0, os.path.join(TOP, "ops", "lib"))
import mmt_results as R  # noqa: E402  (every results file read through the schema check)
import mutants as M  # noqa: E402
EXIT_FAIL, EXIT_USAGE, EXIT_SKIP = 1, 2, 77


def duration(text):
    """'10s', '500ms' or bare seconds, as mmtorture takes them."""
    for suffix, scale in (("ms", 1e-3), ("s", 1.0), ("m", 60.0)):
        if text.endswith(suffix) and text[: -len(suffix)].isdigit():
            return int(text[: -len(suffix)]) * scale
    if text.isdigit():
        return float(text)
    raise argparse.ArgumentTypeError(f"'{text}' is not a duration like 10s or 500ms")


def count(text):
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number")
    return int(text)


def positive(text):
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"'{text}' is not a positive whole number")
    return int(text)


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                 epilog=__doc__.split("\n", 2)[2],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=count, default=10,
                    help="runs per --mutant arm (default 10; 0: none, the plain command, the suites' lines and the"
                         " control, which runs through --mutant, prove it)")
    ap.add_argument("--need", type=positive, help="runs per --mutant arm that must hold (default: 90%% of --runs, rounded up)")
    ap.add_argument("--user-runs", type=positive, default=10, help="runs of the user's plain command per arm (default 10)")
    ap.add_argument("--user-need", type=positive,
                    help="user-command runs per arm that must hold (default: 90%% of --user-runs, rounded up)")
    ap.add_argument("--suites", default="smoke,lab",
                    help="comma list of suites whose lines of a row's hunter run through lava/run-suite (see --suite-arms) "
                         "('none': no suite; nightly's line runs 2-minute runs; default smoke,lab)")
    ap.add_argument("--suite-arms", default="on,off",
                    help="the switch settings --suites' lines run under: on, off or on,off (default on,off; make"
                         " check's short proof runs them ON only, where its plain command's OFF run shows no false"
                         " finding)")
    ap.add_argument("--control-runs", type=positive, default=3, help="runs of the row's control, switch ON (default 3)")
    ap.add_argument("--duration", type=duration, default=duration("10s"), help="per run (default 10s)")
    ap.add_argument("--threads", type=positive, default=3, help="mmrace workers in the guest (default 3)")
    ap.add_argument("--walk-pages", type=positive, default=65536,
                    help="mmrace --walk-pages: under TCG a migration takes tens of ms, so the walk must be longer (default 65536)")
    ap.add_argument("--mutant", metavar="NAME", help="the row of kernel/mutants.tsv to prove (default: every row)")
    ap.add_argument("--hunter", metavar="VARIANT[,VARIANT...]",
                    help="only the rows whose hunters are these variants (a switch has a row per hunter)")
    ap.add_argument("--mem", type=positive, help="guest memory in MiB, split over its nodes (default: the row's guest)")
    ap.add_argument("--with-compaction", action="store_true",
                    help="also run the compactor and NUMA balancing (by default the migrator alone, so the kernel's "
                         "window count is the migrator's and can be set beside migrations_in_window)")
    ap.add_argument("--build", action="store_true", help="build the mutant kernel when it is not cached")
    ap.add_argument("--json", metavar="FILE", help="also write the per-run table as JSON")
    ap.add_argument("--log", metavar="FILE", help="keep the guest console")
    ap.add_argument("--keep-results", metavar="DIR",
                    help="copy every results file of the guest's runs into DIR (created; per boot, a folder by"
                         " the first row's switch and hunter, replaced), for the figures the table leaves out")
    a = ap.parse_args()
    try:
        a.rows = M.rows(M.table_path(TOP))
    except (OSError, M.MutantTableError) as e:
        ap.error(str(e))
    if a.mutant:
        a.rows = [r for r in a.rows if r["name"] == a.mutant]
        if not a.rows:
            ap.error(f"--mutant {a.mutant}: no such row in kernel/mutants.tsv")
    if a.hunter:
        want = a.hunter.split(",")
        for v in want:
            if not any(r["hunter"][1] == v for r in a.rows):
                ap.error(f"--hunter {v}: no row of kernel/mutants.tsv{' for ' + a.mutant if a.mutant else ''}"
                         " hunts with that variant")
        a.rows = [r for r in a.rows if r["hunter"][1] in want]
    for r in a.rows:
        # The arms drive the hunter's scenario's options: one without a
        # profile here needs its own first.
        if r["hunter"][0] not in SCENARIOS or r["control"][0] != r["hunter"][0]:
            ap.error(f"row {r['name']}: hunter {' '.join(r['hunter'])}, control {' '.join(r['control'])}:"
                     f" mutant-proof drives {', '.join(sorted(SCENARIOS))} hunters with a control of the same scenario")
    if a.need is None:
        a.need = math.ceil(0.9 * a.runs)
    if a.need > a.runs:
        ap.error(f"--need {a.need} is more than --runs {a.runs}")
    if a.user_need is None:
        a.user_need = math.ceil(0.9 * a.user_runs)
    if a.user_need > a.user_runs:
        ap.error(f"--user-need {a.user_need} is more than --user-runs {a.user_runs}")
    a.suites = [] if a.suites == "none" else [x for x in a.suites.split(",") if x]
    a.suite_arms = a.suite_arms.split(",")
    if not a.suite_arms or any(x not in ("on", "off") for x in a.suite_arms) or len(set(a.suite_arms)) < len(a.suite_arms):
        ap.error(f"--suite-arms: '{','.join(a.suite_arms)}' is not on, off or on,off")
    for name in a.suites:
        path = os.path.join(TOP, "suites", name)
        if not os.path.isfile(path):
            ap.error(f"--suites: no suite '{name}' in suites/")
        if not any(suite_lines(name, sc) for sc in SCENARIOS):
            ap.error(f"--suites: suite '{name}' runs no line of {', '.join(sorted(SCENARIOS))}")
    if a.json and not os.access(os.path.dirname(os.path.abspath(a.json)), os.W_OK):
        ap.error(f"--json {a.json}: its directory is not writable")
    return a


def kernel_image(build):
    cmd = [os.path.join(TOP, "scripts", "mutant-kernel")] + ([] if build else ["--cached"])
    r = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)
    if r.returncode == EXIT_SKIP:
        sys.exit(EXIT_SKIP)
    if r.returncode:
        print(f"mutant-proof: scripts/mutant-kernel failed ({r.returncode})", file=sys.stderr)
        sys.exit(3)
    return r.stdout.strip()


def variant_pattern(scenario, variant):
    """An extended regex for a suite line of scenario that runs variant
    (one item of its --variant list), for the guest's grep -E and for here."""
    return f"^{re.escape(scenario)} .*--variant ([^ ]*,)?{re.escape(variant)}(,| |$)"


def suite_lines(name, scenario, variant=None):
    """The suite's lines of scenario that run variant (any variant: None),
    as they stand in suites/NAME."""
    with open(os.path.join(TOP, "suites", name)) as f:
        lines = [ln.split("#")[0].strip() for ln in f if ln.startswith(scenario + " ")]
    return [ln for ln in lines if variant is None or re.search(variant_pattern(scenario, variant), ln)]


def row_suites(a, mut):
    """The suites with a line that runs the row's hunter: a row is proven
    by the lines that hunt with its variant, and a suite without one has
    nothing to say of it."""
    return [s for s in a.suites if suite_lines(s, *mut["hunter"])]


def switch_path(mut):
    return f"/sys/module/mmt_mutant/parameters/{mut['name']}"


LINE_BOUND_S = 600     # run-suite's bound on each suite line (its --timeout)
USER_RUN_BOUND_S = 130  # a plain run: a hunter's 2-minute bound, and its setup


def finding_of(doc_run, mut):
    return (doc_run.get("witnesses", {}).get("histogram", {}) or {}).get(mut["finding"]) or 0


def switch_of(m, mut):
    return ((m.get("mutant") or {}).get("switches") or {}).get(mut["name"], {})


# What mutant-proof knows of a hunting scenario: the options of its
# --mutant arms (on: added to the ON arm), guest lines before them, the
# evidence of one run beside its finding (columns, with a legend), the
# checks of that evidence over a row's runs, and whether a suite line's
# control run is sound.  Every row's hunter and control are variants of
# one scenario here.
def mmrace_options(a):
    return (f"--threads {a.threads} --placement spread --duration {int(a.duration * 1000)}ms"
            f" --walk-pages {a.walk_pages} --events none"
            + ("" if a.with_compaction else " --compact 0 --numa-balancing 0"))


def mmrace_setup(a):
    # The kernel enables NUMA balancing by default: off, so that every
    # flush-pending PTE the kernel counts is the migrator's.
    return [] if a.with_compaction else ["echo 0 > /proc/sys/kernel/numa_balancing"]


def mmrace_evidence(m):
    return {"in_window": m.get("migrations_in_window"), "moved": m.get("pages_moved"),
            "raced": m.get("migrations_raced"), "kernel_in_window": m.get("kernel_window_during_migrations"),
            "raced_first": m.get("raced_to_first_lost"),
            "foreign": (m.get("_histogram") or {}).get("foreign_write"),
            # Its own clock for the first lost write: the figure earlier
            # proofs quoted.
            "first_ms": m.get("time_to_first_lost_ms"),
            "first_lost": next((x for x in m.get("first_mismatches", []) if x.get("kind") == "lost"), None)}


def mmrace_checks(rows, a, mut):
    off = [r for r in rows if r["arm"] in ("off", "user-off")]
    ctl = [r for r in rows if r["arm"] == "control"]
    return [
        ("switch OFF: no foreign write in any run", all(not r["foreign"] for r in rows if r["arm"] in ("off", "user-off"))),
        (f"control ({mut['control'][1]}, switch ON): nothing in the window, pages moved",
         all(r["in_window"] == 0 and (r["moved"] or 0) > 0 for r in ctl)),
        ("control: the kernel saw no PROT_NONE entry taken with a flush pending (migrator alone)",
         a.with_compaction or all(r["kernel_window"] == 0 for r in ctl)),
        ("switch OFF: the kernel saw the window during the migrator's calls in every conclusive run",
         all((r["kernel_in_window"] or 0) > 0 for r in off if r["status"] == "ok")),
        # The lost write is the finding; its premise is ours to show too:
        # by the time it was known (a walk late at most), a page had moved
        # inside a walk while a writer on another CPU stored to it (item
        # 2's evidence).  The plain command's and --mutant's arms; a suite
        # line's run can lose writes through NUMA balancing's path too.
        # Only where the timestamps placed some move inside a walk: a move's
        # end is the watcher's read, or the call's return where the watcher
        # got no CPU during the call (a loaded host: make check's stressed
        # run lost a write, the kernel's switch skipped 2 flushes, and its 7
        # moves all read as outside); there the check cannot say, and skips.
        ("9 in 10 of the runs that lost a write, where the timestamps placed a move inside a walk: a page raced"
         " by then (the premise seen from user space)",
         premise_at_finding([r for r in rows if r["arm"] != "control" and (r["lost"] or 0) > 0])),
    ]


def premise_at_finding(found):
    """True or False over the runs that found and placed a move inside a
    walk: a page raced by the first finding in 9 of 10 of them, rounded up
    (the bar of the arms' findings; race-thp's 2 MiB move outlasts half a
    walk under TCG, and a loss from a move that ran over the walk's end
    comes with none placed inside: 1 of 20 runs, twice); None (a skip)
    when none did."""
    judged = [r for r in found if (r["in_window"] or 0) > 0]
    if not judged:
        return None
    return sum(1 for r in judged if (r["raced_first"] or 0) > 0) >= math.ceil(0.9 * len(judged))


def mmrace_control_sound(x, arm):
    # The control's migrator moves pages only once mprotect returned.
    # A suite line also runs the compactor and NUMA balancing, whose
    # change_prot_numa() is the bug's other protector: with the switch
    # ON they lose writes in the control too (measured: 32 and 64 lost,
    # with 375 flushes skipped in the run and 2 of them during the
    # migrator's calls, the pending flush NUMA balancing's), and the
    # kernel says so.  A loss without a skipped flush is the harness's.
    return not x["lost"] or (arm == "on" and (x["kernel_skipped"] or 0) > 0)


def softdirty_evidence(m):
    return {"clears": m.get("clears"), "raced": m.get("clears_raced"),
            "stores_after_clear": m.get("stores_after_clear"), "raced_first": m.get("raced_to_first_untracked")}


def softdirty_checks(rows, a, mut):
    ctl = [r for r in rows if r["arm"] == "control"]
    return [
        (f"control ({mut['control'][1]}, switch ON): conclusive, a writer on another CPU stored while the clear ran",
         all(r["status"] == "ok" and (r["raced"] or 0) > 0 for r in ctl)),
        ("every conclusive run: clears raced (the premise held)",
         all((r["raced"] or 0) > 0 for r in rows if r["status"] == "ok")),
    ]


def madvise_evidence(m):
    return {"rounds": m.get("rounds"), "raced": m.get("rounds_raced"), "seen_late": m.get("rounds_seen_late"),
            "raced_first": m.get("raced_to_first_lost")}


def madvise_checks(rows, a, mut):
    ctl = [r for r in rows if r["arm"] == "control"]
    return [
        (f"control ({mut['control'][1]}, switch ON): conclusive, a round raced (the second zap and the store came"
         " while the first zap's walk ran)",
         all(r["status"] == "ok" and (r["raced"] or 0) > 0 for r in ctl)),
        ("every conclusive run: rounds raced (the premise held)",
         all((r["raced"] or 0) > 0 for r in rows if r["status"] == "ok")),
    ]


def mremap_evidence(m):
    return {"rounds": m.get("rounds"), "raced": m.get("rounds_raced"), "punched_late": m.get("rounds_punched_late"),
            "raced_first": m.get("raced_to_first_stale")}


def mremap_checks(rows, a, mut):
    ctl = [r for r in rows if r["arm"] == "control"]
    return [
        (f"control ({mut['control'][1]}, switch ON): conclusive, rounds made, none raced (every punch after the call)",
         all(r["status"] == "ok" and (r["rounds"] or 0) > 0 and r["raced"] == 0 for r in ctl)),
        ("every conclusive run of the hunter: rounds raced (the premise held)",
         all((r["raced"] or 0) > 0 for r in rows if r["status"] == "ok" and r["arm"] != "control")),
    ]


def pmdshare_evidence(m):
    return {"rounds": m.get("rounds"), "shared": m.get("rounds_shared"), "moved": m.get("rounds_moved"),
            "held": m.get("rounds_held"), "raced_first": m.get("held_to_first_stale")}


def pmdshare_checks(rows, a, mut):
    ctl = [r for r in rows if r["arm"] == "control"]
    return [
        (f"control ({mut['control'][1]}, switch ON): conclusive, rounds made, none shared (the mapping off the"
         " 1 GiB boundary), and for a migrate control pages moved",
         all(r["status"] == "ok" and (r["rounds"] or 0) > 0 and r["shared"] == 0 and r["moved"] != 0 for r in ctl)),
        ("every conclusive run of the hunter: rounds held (the premise held)",
         all((r["held"] or 0) > 0 for r in rows if r["status"] == "ok" and r["arm"] != "control")),
    ]


def numascan_evidence(m):
    return {"rounds": m.get("rounds"), "raced": m.get("rounds_raced"), "faults": m.get("toucher_faults"),
            "migrated": m.get("migrations_to_toucher"), "raced_first": m.get("raced_to_first_lost")}


def numascan_checks(rows, a, mut):
    ctl = [r for r in rows if r["arm"] == "control"]
    return [
        (f"control ({mut['control'][1]}, switch ON): conclusive, rounds made, none raced, nothing migrated"
         " (NUMA balancing off) and the kernel never reached the window",
         all(r["status"] == "ok" and (r["rounds"] or 0) > 0 and r["raced"] == 0 and r["migrated"] == 0
             and not r["kernel_window"] for r in ctl)),
        ("every conclusive run of the hunter: rounds raced (the premise held)",
         all((r["raced"] or 0) > 0 for r in rows if r["status"] == "ok" and r["arm"] != "control")),
    ]


def hunter_profile(evidence, checks, columns, legend):
    """A stale-access hunter's profile (softdirty, madvise, mremap,
    pmdshare, numascan): plain runs of --duration, no setup, any control finding
    unsound (every clear, nested zap or revocation reaches the switch: a
    control that finds anything is wrong, whatever the kernel counted)."""
    return {
        "options": lambda a: f"--duration {int(a.duration * 1000)}ms --events none", "on": "",
        "setup": lambda a: [],
        "invocation": lambda a: "--duration 1s --events none",
        "evidence": evidence, "checks": checks,
        "control_sound": lambda x, arm: not x["lost"],
        "columns": columns + ("raced_first",),
        "legend": legend + "; raced_first = those (raced, held) up to the first finding, from the run's record",
    }


SCENARIOS = {
    "mmrace": {
        "options": mmrace_options, "on": " --stop-on-lost 1", "setup": mmrace_setup,
        "invocation": lambda a: f"--threads {a.threads} --placement spread --duration 1s --compact 0 --events none",
        "evidence": mmrace_evidence, "checks": mmrace_checks, "control_sound": mmrace_control_sound,
        "columns": ("moved", "in_window", "raced", "raced_first", "kernel_in_window"),
        "legend": "in_window = pages whose move the timestamps put inside a walk (the migrate call's, or"
                  " race-compaction's watcher's reads of the page's frame); raced = those a writer on another CPU"
                  " stored to while they moved; raced_first = raced when the first lost write was known;"
                  " kernel_in_window = the kernel's PROT_NONE entries (PTEs cleared, PMDs invalidated) taken with a flush pending during those calls",
    },
    "softdirty": hunter_profile(softdirty_evidence, softdirty_checks, ("clears", "raced", "stores_after_clear"),
        "clears = soft-dirty clears (clear_refs 4); raced = those while a writer on another CPU stored"),
    "madvise": hunter_profile(madvise_evidence, madvise_checks, ("rounds", "raced", "seen_late"),
        "rounds = a zap of the region, a second of its first page, the writer's store after it; raced ="
        " those whose second zap saw the page cleared mid-walk and returned, and whose store was visible,"
        " before the first zap's walk ended; seen_late = those whose second zapper saw the page out only"
        " after the first returned"),
    "mremap": hunter_profile(mremap_evidence, mremap_checks, ("rounds", "raced", "punched_late"),
        "rounds = a mremap() of the memfd mapping, a punch of its first page, the reader's reads after it;"
        " raced = those whose punch returned inside the mremap() call; punched_late = those whose punch"
        " returned after it"),
    "numascan": hunter_profile(numascan_evidence, numascan_checks, ("rounds", "raced", "faults", "migrated"),
        "rounds = the cold PTEs present again and the next NUMA scan's end; raced = those in which the toucher"
        " read the hot page cleanly, then took the fault that migrated it to its node before the scan ended, a"
        " writer on another CPU storing; faults = the toucher's reads that faulted; migrated = those after which"
        " the page was on its node"),
    "pmdshare": hunter_profile(pmdshare_evidence, pmdshare_checks, ("rounds", "shared", "moved", "held"),
        "rounds = two hugetlb mappings of a new memfd, the revocation (a zap of one, the unshare, and a"
        " punch of the target; or the target's move to another node and a new value stored in it), the"
        " reader's reads after it; shared = those whose PMD table was shared; moved = those whose page"
        " moved (migrate; - for punch); held = shared ones (that moved) whose reader ran unpreempted from"
        " before the revocation to its last read"),
}

# The guest's helpers: keep moves the newest result of a plain run to its
# arm's name; the LAVA helpers print what LAVA's would, so run-suite runs
# as it does in a lab.
GUEST_HELPERS = r"""keep() { f=$(ls -t /results/$2-*.json 2>/dev/null | head -n 1); [ -n "$f" ] && mv "$f" "/results/$1.json"; }
mkdir -p /tmp/lava-bin
printf '#!/bin/sh\necho "<LAVA_SIGNAL_TESTCASE $*>"\n' >/tmp/lava-bin/lava-test-case
printf '#!/bin/sh\necho "<LAVA_SIGNAL_TESTSET $*>"\n' >/tmp/lava-bin/lava-test-set
chmod +x /tmp/lava-bin/lava-test-case /tmp/lava-bin/lava-test-set"""


def user_lines(k, arm, i, mut):
    switch = 1 if arm == "user-on" else 0
    return [f"echo {switch} > {switch_path(mut)}; run-scenario {' --variant '.join(mut['hunter'])} >/dev/null 2>&1;"
            f" echo \"@@RUN {k} {arm} {i} $?@@\"; keep {k}-{arm}-{i} {mut['hunter'][0]}"]


def suite_script_lines(k, name, arm, mut):
    """Runs suite NAME's lines of the row's hunter through run-suite; its
    result files come back as K-suite-NAME-ARM-NN-SET.json."""
    switch = 1 if arm == "on" else 0
    pattern = variant_pattern(*mut["hunter"]).replace("'", "")
    lines = [f"grep -E '{pattern}' /usr/share/mmtorture/suites/{name} >/tmp/{name}-hunter",
             f"rm -rf /tmp/rs; echo {switch} > {switch_path(mut)}",
             f"PATH=/tmp/lava-bin:$PATH mmtorture-lava --suite /tmp/{name}-hunter --timeout {LINE_BOUND_S}"
             f" --results /tmp/rs >/dev/null 2>&1;"
             f" echo \"@@SUITE {k} {name} {arm} $?@@\"",
             f"for f in /tmp/rs/*.json; do [ -f \"$f\" ] && mv \"$f\" \"/results/{k}-suite-{name}-{arm}-${{f##*/}}\"; done"]
    return lines


def row_script(a, k, mut):
    """Row k's arms, interleaved, so host noise spreads over all of them."""
    sc = SCENARIOS[mut["hunter"][0]]
    base = f"mmtorture {mut['hunter'][0]} {sc['options'](a)}"
    lines = []
    # The user's command first, on the kernel as it boots (NUMA balancing
    # as Debian sets it), and the suites' lines as they stand.
    for i in range(a.user_runs):
        lines += user_lines(k, "user-on", i, mut) + user_lines(k, "user-off", i, mut)
    for name in row_suites(a, mut):
        for arm in a.suite_arms:
            lines += suite_script_lines(k, name, arm, mut)
    lines += sc["setup"](a)
    for i in range(max(a.runs, a.control_runs)):
        arms = []
        if i < a.runs:
            arms += [("on", mut["hunter"][1], "on"), ("off", mut["hunter"][1], "off")]
        if i < a.control_runs:
            arms.append(("control", mut["control"][1], "on"))
        for arm, variant, switch in arms:
            out = f"/results/{k}-{arm}-{i}.json"
            lines.append(f"{base} --variant {variant} --mutant {mut['name']}={switch}"
                         f"{sc['on'] if arm == 'on' else ''} --output {out} >/dev/null 2>&1;"
                         f" echo \"@@RUN {k} {arm} {i} $?@@\"")
    # --mutant holds for the whole invocation, not its first run only, and
    # is put back after it: two repeats, then the switch as left.
    lines.append(f"echo 0 > {switch_path(mut)}; mmtorture {mut['hunter'][0]} --variant {mut['hunter'][1]} --repeat 2"
                 f" {sc['invocation'](a)} --mutant {mut['name']}=on"
                 f" --output /results/{k}-invocation.json >/dev/null 2>&1;"
                 f" echo \"@@INVOCATION {k} $(cat {switch_path(mut)})@@\"")
    # The next row boots on the kernel as Debian sets it.
    lines.append("echo 1 > /proc/sys/kernel/numa_balancing 2>/dev/null")
    return lines


def guest_script(a, muts):
    lines = ["#!/bin/sh", GUEST_HELPERS]
    for k, mut in enumerate(muts):
        lines += row_script(a, k, mut)
    lines.append("exit 0")
    return "\n".join(lines) + "\n"


def row(arm, i, rc, doc, mut):
    r = doc["runs"][0] if doc and doc.get("runs") else {}
    m = dict(r.get("metrics", {}), _histogram=r.get("witnesses", {}).get("histogram", {}))
    sw = switch_of(m, mut)
    first_ns = (r.get("detection") or {}).get("first_witness_ns")
    out = {
        "arm": arm, "run": i, "exit": rc, "status": r.get("status", "missing"),
        "lost": finding_of(r, mut),
        "kernel_window": sw.get("window"), "kernel_skipped": sw.get("hits"), "switch_on": sw.get("on"),
        "first_ms": first_ns / 1e6 if isinstance(first_ns, (int, float)) else None,
        "elapsed_s": r["elapsed_ns"] / 1e9 if isinstance(r.get("elapsed_ns"), int) else None,
        "reason": r.get("inconclusive_reason") or r.get("reason"),
    }
    out.update(SCENARIOS[mut["hunter"][0]]["evidence"](m))
    return out


def suite_row(name, arm, rc, docs, mut):
    """One suite run: its exit and each of the hunter's scenario's runs'
    variant, status and findings."""
    sc = SCENARIOS[mut["hunter"][0]]
    runs = []
    for doc in docs:
        for r in doc.get("runs", []):
            m = r.get("metrics") or {}
            runs.append({"variant": r.get("variant"), "injected": bool(r.get("injected")),
                         "status": r.get("status"), "lost": finding_of(r, mut),
                         "kernel_skipped": switch_of(m, mut).get("hits"),
                         "reason": r.get("inconclusive_reason") or r.get("reason"), **sc["evidence"](m)})
    race = [x for x in runs if x["variant"] == mut["hunter"][1]]
    control = [x for x in runs if x["variant"] == mut["control"][1]]
    injected = [x for x in runs if x["injected"]]
    # Either way every injected fault is caught (status ok) and the control
    # finds nothing the kernel's switch did not: the exit alone would hide either.
    sound = all(sc["control_sound"](x, arm) for x in control) and all(x["status"] == "ok" for x in injected)
    if arm == "on":
        held = rc == 1 and any(x["lost"] > 0 for x in race) and sound
    else:
        # The injected faults find by design: they are the line's own
        # check of its checker, not findings.
        held = (rc == 0 and race and all(x["status"] == "ok" for x in race)
                and not any(x["lost"] for x in runs if not x["injected"]) and sound)
    return {"suite": name, "arm": arm, "exit": rc, "runs": runs, "held": bool(held)}


def read_results(path):
    """A guest's results file, through the schema check: a damaged one is
    no evidence, and says why."""
    try:
        return R.load(path)
    except R.ResultsError as e:
        sys.exit(f"mutant-proof: {e}")


def invocation_row(after, path, mut):
    """The switch in each run of the --repeat 2 invocation, and after it."""
    on = []
    if os.path.exists(path):
        for r in read_results(path).get("runs", []):
            on.append(switch_of(r.get("metrics") or {}, mut).get("on"))
    return {"runs_on": on, "after": after, "held": on == [True, True] and after == "N"}


def judge(rows, suites, a, mut):
    uon = [r for r in rows if r["arm"] == "user-on"]
    uoff = [r for r in rows if r["arm"] == "user-off"]
    on = [r for r in rows if r["arm"] == "on"]
    off = [r for r in rows if r["arm"] == "off"]
    ctl = [r for r in rows if r["arm"] == "control"]
    f = mut["finding"]
    checks = [
        (f"plain run-scenario {' --variant '.join(mut['hunter'])}, switch {mut['name']} ON: {f} and "
         f"exit 1 in >= {a.user_need} of {a.user_runs}",
         sum(1 for r in uon if r["exit"] == 1 and r["lost"] > 0) >= a.user_need),
        ("plain command, switch ON: the kernel's switch skipped its fix in every run that found",
         all((r["kernel_skipped"] or 0) > 0 for r in uon if r["lost"] > 0)),
        (f"plain command, switch OFF: no finding and conclusive in >= {a.user_need} of {a.user_runs}",
         sum(1 for r in uoff if r["exit"] == 0 and r["status"] == "ok" and not r["lost"]) >= a.user_need),
        (f"plain command, switch OFF: no run found {f}", all(not r["lost"] for r in uoff)),
    ]
    # A suite arm the guest never reported (it stopped part-way) is a
    # failed check, not a missing one.
    for name in row_suites(a, mut):
        for arm in a.suite_arms:
            if not any(srow["suite"] == name and srow["arm"] == arm for srow in suites):
                checks.append((f"suites/{name}'s {mut['hunter'][0]} lines through run-suite, switch {arm.upper()}:"
                               " the guest reported no run", False))
    for srow in suites:
        what = ("its hunter's run found, the line failed (exit 1)" if srow["arm"] == "on"
                else "every hunter run conclusive, no finding but the injected ones, the line passed (exit 0)")
        what += ("; its control found nothing but what the switch's other paths found,"
                 " its injected faults were caught" if srow["arm"] == "on"
                 else "; its control found nothing, its injected faults were caught")
        checks.append((f"suites/{srow['suite']}'s {mut['hunter'][0]} lines through run-suite, switch"
                       f" {srow['arm'].upper()}: {what}", srow["held"]))
    checks += [] if not a.runs else [
        (f"switch ON: {f} and exit 1 in >= {a.need} of {a.runs}",
         sum(1 for r in on if r["exit"] == 1 and r["lost"] > 0) >= a.need),
        ("switch ON: the kernel's switch skipped its fix in every run that found",
         all((r["kernel_skipped"] or 0) > 0 for r in on if r["lost"] > 0)),
        (f"switch OFF: no finding and conclusive in >= {a.need} of {a.runs}",
         sum(1 for r in off if r["exit"] == 0 and r["status"] == "ok" and not r["lost"]) >= a.need),
        (f"switch OFF: no run found {f}", all(not r["lost"] for r in off)),
    ]
    checks += [
        (f"control ({mut['control'][1]}, switch ON): no {f}, exit 0, {a.control_runs} runs",
         len(ctl) == a.control_runs and all(r["exit"] == 0 and not r["lost"] for r in ctl)),
    ]
    return checks + SCENARIOS[mut["hunter"][0]]["checks"](rows, a, mut)


def print_table(rows, suites, mut):
    sc = SCENARIOS[mut["hunter"][0]]
    cols = ("arm", "run", "exit", "status", "lost") + sc["columns"] + (
        "kernel_window", "kernel_skipped", "first_ms", "elapsed_s")
    print(f"columns: lost = {mut['finding']} witnessed; {sc['legend']}; kernel_window and kernel_skipped ="
          " the run's totals of the switch's window count and of the times it skipped the fix;"
          " first_ms = time to the first finding")
    print("  ".join(f"{c:>14}" if i > 3 else f"{c:<12}" for i, c in enumerate(cols)))
    for r in rows:
        vals = []
        for i, c in enumerate(cols):
            v = r[c]
            v = "-" if v is None else (f"{v:.1f}" if isinstance(v, float) else str(v))
            vals.append(f"{v:>14}" if i > 3 else f"{v:<12}")
        print("  ".join(vals))
    for r in rows:
        if r.get("first_lost"):
            x = r["first_lost"]
            print(f"first lost write ({r['arm']} run {r['run']}): page {x['page']} word {x['word']} writer {x['writer']}"
                  f" iteration {x['iteration']} expected {x['expected']} found {x['found']}"
                  f" PFN {x['pfn_before']} -> {x['pfn_after']}")
            break
    for r in rows:
        if r["reason"]:
            print(f"{r['arm']} run {r['run']}: {r['status']}: {r['reason']}")
    # Whether the premise, as the hunter judges it from user space, had
    # held by the first finding: said, not checked (mmrace's check is its
    # own; a hunter's judged premise may be narrower than the bug's window).
    found = [r for r in rows if r["arm"] != "control" and (r["lost"] or 0) > 0 and "raced_first" in r]
    if found:
        held = sum(1 for r in found if (r["raced_first"] or 0) > 0)
        print(f"premise by the first finding (raced_first > 0): {held} of {len(found)} runs that found")
    for arm in ("user-on", "on"):
        speed = detection_speed(rows, arm)
        if speed:
            print(f"time to the first finding, arm {arm}, {speed['runs']} runs that found: median"
                  f" {speed['median_ms']:.1f} ms (min {speed['min_ms']:.1f}, max {speed['max_ms']:.1f})")
    for srow in suites:
        runs = ", ".join(f"{x['variant']} {x['status']} found {x['lost']}"
                         + (f" (kernel: the fix skipped {x['kernel_skipped']} times in the run)"
                            if x["lost"] and not x["injected"] else "")
                         for x in srow["runs"]) or "no results"
        print(f"suite {srow['suite']} switch {srow['arm']}: exit {srow['exit']}: {runs}")


def detection_speed(rows, arm):
    """The detector's speed on the real bug: time from the run's start to its
    first finding, over the arm's runs that found."""
    t = sorted(r["first_ms"] for r in rows if r["arm"] == arm and r["first_ms"] is not None and r["lost"])
    if not t:
        return None
    mid = len(t) // 2
    median = t[mid] if len(t) % 2 else (t[mid - 1] + t[mid]) / 2
    return {"runs": len(t), "median_ms": median, "min_ms": t[0], "max_ms": t[-1]}


def guest_profile(mut):
    g = mut["guest"]
    return (g.get("nodes", 2), g.get("mem", 2048))


def boot(a, muts, image):
    """One boot of a guest profile's rows: each row's checks and per-run table."""
    with tempfile.TemporaryDirectory(prefix="mmt-mutant-proof.") as tmp:
        script = os.path.join(tmp, "guest.sh")
        with open(script, "w") as f:
            f.write(guest_script(a, muts))
        # Every run at its bound: the plain command's 2 minutes, each suite
        # line run-suite's; they end in seconds when all is well.
        timeout = 120
        for mut in muts:
            lines = sum(len(suite_lines(s, *mut["hunter"])) for s in row_suites(a, mut))
            timeout += int((2 * a.runs + a.control_runs) * (a.duration + 20) + 2 * a.user_runs * USER_RUN_BOUND_S
                           + len(a.suite_arms) * lines * (LINE_BOUND_S + 10))
        env = dict(os.environ, MMT_RESULTS_DIR=os.path.join(tmp, "results"))
        nodes, mem = guest_profile(muts[0])
        cmd = [os.path.join(TOP, "scripts", "numa-vm"), "--nodes", str(nodes), "--cpus", "4",
               "--mem", str(a.mem or mem), "--kernel", image,
               "--timeout", str(timeout), "--script", script] + (["--log", a.log] if a.log else [])
        print("mutant-proof: " + " ".join(shlex.quote(c) for c in cmd), file=sys.stderr)
        r = subprocess.run(cmd, stdout=subprocess.PIPE, text=True, env=env)
        keep_results(a, muts, os.path.join(tmp, "results"))
        if r.returncode:
            print(r.stdout[-3000:], file=sys.stderr)
            print(f"mutant-proof: the guest did not finish (numa-vm exit {r.returncode})", file=sys.stderr)
            return None
        res = os.path.join(tmp, "results")
        per = [{"rows": [], "suites": [], "invocation": None} for _ in muts]
        for line in r.stdout.splitlines():
            if not line.endswith("@@"):
                continue
            if line.startswith("@@INVOCATION "):
                k, after = line[13:-2].split()
                k = int(k)
                per[k]["invocation"] = invocation_row(after, os.path.join(res, f"{k}-invocation.json"), muts[k])
            elif line.startswith("@@SUITE "):
                k, name, arm, rc = line[8:-2].split()
                k = int(k)
                prefix = f"{k}-suite-{name}-{arm}-"
                docs = [read_results(os.path.join(res, fn)) for fn in sorted(os.listdir(res))
                        if fn.startswith(prefix) and fn.endswith(".json")]
                per[k]["suites"].append(suite_row(name, arm, int(rc), docs, muts[k]))
            elif line.startswith("@@RUN "):
                k, arm, i, rc = line[6:-2].split()
                k = int(k)
                path = os.path.join(res, f"{k}-{arm}-{i}.json")
                doc = read_results(path) if os.path.exists(path) else None
                per[k]["rows"].append(row(arm, int(i), int(rc), doc, muts[k]))
    return [report(a, mut, **p) for mut, p in zip(muts, per)]


def keep_results(a, muts, res):
    """--keep-results: the guest's results files, before anything reads
    them (a damaged one ends the proof) and whether the guest finished."""
    if not a.keep_results or not os.path.isdir(res):
        return
    dest = os.path.join(a.keep_results, f"{muts[0]['name']}-{muts[0]['hunter'][1]}")
    if os.path.exists(dest):
        shutil.rmtree(dest)     # not mixed with an earlier proof's
    shutil.copytree(res, dest)
    print(f"mutant-proof: results kept in {dest}", file=sys.stderr)


def report(a, mut, rows, suites, invocation):
    print(f"mutant {mut['name']}: reverts {mut['reverts']} (\"{mut['title']}\"); hunter {' '.join(mut['hunter'])},"
          f" control {' '.join(mut['control'])}, finding {mut['finding']}")
    print_table(rows, suites, mut)
    checks = judge(rows, suites, a, mut)
    checks.append((f"--mutant {mut['name']}=on: on for both runs of a --repeat 2 invocation, off after it"
                   f" ({invocation})", bool(invocation and invocation["held"])))
    for what, held in checks:
        # None: the check's own premise did not hold in these runs
        print(f"{'SKIP' if held is None else 'PASS' if held else 'FAIL'}: {what}")
    return {"mutant": mut["name"], "hunter": list(mut["hunter"]), "reverts": mut["reverts"], "runs": rows,
            "suites": suites, "first_finding": {arm: detection_speed(rows, arm) for arm in ("user-on", "on")},
            "checks": [{"check": w, "held": h} for w, h in checks]}


def main():
    a = parse_args()
    image = kernel_image(a.build)
    proofs = []
    profiles = {}
    for mut in a.rows:
        profiles.setdefault(guest_profile(mut), []).append(mut)
    for muts in profiles.values():
        got = boot(a, muts, image)
        if got is None:
            return 3
        proofs += got
    if a.json:
        tmp_json = a.json + ".tmp"
        with open(tmp_json, "w") as f:
            json.dump({"kernel": image, "mutants": proofs}, f, indent=1)
        os.replace(tmp_json, a.json)
    return 0 if all(c["held"] is not False for p in proofs for c in p["checks"]) else EXIT_FAIL


if __name__ == "__main__":
    sys.exit(main())
