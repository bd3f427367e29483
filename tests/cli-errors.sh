#!/bin/sh
# Bad input: exit 2, exactly one line on stderr naming the problem, nothing
# on stdout, no result file written.
. "${MMT_SRCDIR:-.}/tests/lib.sh"

mkdir -p "$scratch/adir"
bad() {  # bad NEEDLE ARGS...
	needle=$1
	shift
	run "$@"
	lines=$(printf '%s\n' "$err" | wc -l)
	files=$(ls -A "$MMT_RESULTS_DIR" 2>/dev/null | wc -l)
	[ "$rc" -eq 2 ] && [ "$lines" -eq 1 ] && [ -z "$out" ] && [ "$files" -eq 0 ] &&
		printf '%s' "$err" | grep -q -- "$needle"
	ok $? "exit 2, one line, nothing written: $* -> $err"
}

bad "unknown scenario 'nosuch'" nosuch
bad "unknown variant 'nope'" msgpass --variant nope
bad "unknown placement 'far'" msgpass --placement far
bad "CPU list" msgpass --placement cpus:0-
bad "--duration" msgpass --duration 10parsecs
bad "--duration" msgpass --duration -1s
bad "--iterations" msgpass --iterations 1.5
bad "--threads" msgpass --threads many
bad "at least 2 threads" msgpass --threads 1
bad "--repeat" msgpass --repeat 0
bad "--seed" msgpass --seed -3
bad "--mem-node" msgpass --mem-node x
bad "--format" msgpass --format yaml
bad "needs a value" msgpass --placement
bad "unknown option '--frobnicate'" msgpass --frobnicate
# getopt_long takes a unique prefix: a typo, or a later option's prefix,
# would silently mean another option.  Spelled out, with the near miss named.
bad "unknown option '--ass' (did you mean --assume-forbidden?)" msgpass --variant mb --ass
bad "unknown scenario 'msgpas' (did you mean msgpass?)" msgpas
bad "--output is given twice" msgpass --output "$scratch/a.json" --output "$scratch/b.json"
bad "--variant names mb of msgpass twice" msgpass --variant mb,plain,mb
bad "unexpected argument" msgpass extra
bad "--label '': 1 to 64 characters" msgpass --label ""
bad "--label: control characters" msgpass --label "$(printf 'a\tb')"
bad "1 to 64 characters, not 65" msgpass --label "$(printf '%065d' 0)"
bad "between 1 and 4096" msgpass --payload-words 5000
bad "does not exist" msgpass --output "$scratch/missing/r.json"
bad "is a directory" msgpass --output "$scratch/adir"
bad "not a power of two" ring --ring-size 1000
bad "not an option of the selected" msgpass --ring-size 1024
bad "unknown event 'bogus'" msgpass --events bogus
# Without tracefs (not mounted, and not root to mount a private one) a
# tracepoint cannot be looked up: the run counts it as unsupported instead.
if [ "$(id -u)" -eq 0 ] || [ -d /sys/kernel/tracing/events ] || [ -d /sys/kernel/debug/tracing/events ]; then
	bad "unknown tracepoint" msgpass --events tlb:no_such_event
else
	skip "an unknown tracepoint is refused only where tracefs can be read: not mounted here, and uid $(id -u) cannot mount it"
fi
bad "names 2 CPUs but --threads is 3" msgpass --placement cpus:0,1 --threads 3
# Strict: no hex, inf, nan or exponents; no empty list items; the real problem named.
bad "--duration: .*0x10s" msgpass --duration 0x10s
bad "--duration: 'inf'" msgpass --duration inf
bad "--duration: 'nan" msgpass --duration nan
bad "--duration: '1e3s'" msgpass --duration 1e3s
bad "not a whole number of nanoseconds" msgpass --duration 1.5ns
bad "--events: 'cycles,,instructions' has an empty item" msgpass --events cycles,,instructions
bad "--variant: 'mb,' has an empty item" msgpass --variant mb,
bad "scenario list: ',msgpass' has an empty item" ,msgpass
bad "--seed: '0x10' is not a decimal number" msgpass --seed 0x10
bad "--seed: '18446744073709551616' is larger" msgpass --seed 18446744073709551616
bad "--seed: '5k' is not a decimal number" msgpass --seed 5k
bad "--placement cpus:999: CPU 999 does not exist" msgpass --placement cpus:999
# Checked against the machine before anything runs (#31: they exited 77
# after writing a results file).
bad "--placement cpus:0,4095: CPU 4095 does not exist" msgpass --variant mb --placement cpus:0,4095
bad "--mem-node 63: no such node" msgpass --variant mb --mem-node 63
# --output is checked before anything runs, and only a regular file is replaced.
bad "/dev/null is a character device, not a regular file" msgpass --output /dev/null
# root may write the directory and is refused by the file system; anyone
# else is refused by its mode first.
bad "\(cannot create files in\|directory\) /proc" msgpass --output /proc/x.json
bad "\(cannot create files in\|directory\) /sys/kernel" msgpass --output /sys/kernel/x.json
bad "the name is 305 characters" msgpass --output "$scratch/$(printf '%0300d' 0).json"
ln -s /dev/null "$scratch/null-link.json"
bad "is a symlink, not a regular file" msgpass --output "$scratch/null-link.json"
[ -c /dev/null ]
ok $? "/dev/null is still a character device"
# The harness's own files are never a target: its state directory (the
# sysctl journal and the lock guarding it; MMT_SYSCTL_ROOT moves it here),
# however the path reaches it, and its temp-file names.
fake="$scratch/fake"
mkdir -p "$fake/run/mmtorture"
echo held >"$fake/run/mmtorture/lock"
ln -s "$fake/run/mmtorture" "$scratch/state-link"
export MMT_SYSCTL_ROOT="$fake"
bad "inside mmtorture's state directory" msgpass --output "$fake/run/mmtorture/lock"
[ "$(cat "$fake/run/mmtorture/lock")" = held ]
ok $? "the state directory's lock is untouched"
bad "inside mmtorture's state directory" msgpass --output "$fake/run/../run/mmtorture/r.json"
bad "inside mmtorture's state directory" msgpass --output "$scratch/state-link/r.json"
unset MMT_SYSCTL_ROOT
bad "a name of mmtorture's own temp files" msgpass --output "$scratch/.mmtorture-result.Ab12Cd"

run msgpass --variant mb --duration 50ms --seed 18446744073709551615 --output "$scratch/seed.json"
[ "$rc" -eq 0 ] && [ "$(get "$scratch/seed.json" metadata.seed)" = 18446744073709551615 ] &&
	grep -q '"seed": "18446744073709551615"' "$scratch/seed.json" &&
	get "$scratch/seed.json" runs.0.seed | grep -qx '[0-9]*'
ok $? "a 64-bit seed is recorded exactly, as a decimal string: $(get "$scratch/seed.json" runs.0.seed)"
rm -f "$scratch/seed.json"

# --dry-run: checked as a real run is, planned as it would be, nothing run
# or written (scripts/nightly checks every suite line with it first).
run msgpass --variant mb,plain --placement same-node --placement cross-node --repeat 2 --dry-run
lines=$(printf '%s\n' "$out" | grep -c '^msgpass ')
[ "$rc" -eq 0 ] && [ "$lines" -eq 8 ] && printf '%s\n' "$out" | grep -q '^msgpass mb same-node 1 cpus [0-9]' &&
	[ "$(ls -A "$MMT_RESULTS_DIR" 2>/dev/null | wc -l)" -eq 0 ]
ok $? "--dry-run: 8 planned runs (2 variants, 2 placements, 2 repeats), nothing written"
if [ "$nnodes" -lt 2 ]; then
	printf '%s\n' "$out" | grep -q '^msgpass plain cross-node 0 skipped: cross-node needs 2 NUMA nodes'
	ok $? "--dry-run names a skip and its reason"
fi
bad "unknown option '--varient'" msgpass --varient mb --dry-run

run --help
[ "$rc" -eq 0 ] && printf '%s' "$out" | grep -q -- '--placement'
ok $? "--help: usage on stdout, exit 0"
run --version
[ "$rc" -eq 0 ] && printf '%s' "$out" | grep -q '^mmtorture [0-9]'
ok $? "--version: version line, exit 0"
run --list
[ "$rc" -eq 0 ] && printf '%s' "$out" | grep -q 'broken-publish-first' &&
	printf '%s' "$out" | grep -q 'payload-words'
ok $? "--list: variants and options"
human=$(printf '%s\n' "$out" | grep -c '\[')
# The same catalogue as data: every variant the human listing has, with
# its expectation; option ranges past 2^63 as decimal strings.
"$MMT_BIN" --list --format json >"$scratch/cat.json"
"${MMT_PYTHON3:-python3}" - "$scratch/cat.json" "$human" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
vs = {(s["name"], v["name"]): v for s in d["scenarios"] for v in s["variants"]}
assert len(vs) == int(sys.argv[2]), (len(vs), sys.argv[2])
assert vs[("msgpass", "broken-publish-first")]["expectation"] == "injected"
assert vs[("msgpass", "mb")]["expectation"] == ("forbidden" if d["arch"] in ("x86_64", "aarch64") else "allowed")
opts = {(s["name"], o["name"]): o for s in d["scenarios"] for o in s["options"]}
assert opts[("litmus", "sync")]["value_names"] == ["none", "userfence", "tsc", "all"]
assert opts[("mmrace", "target-window")]["max"] == "18446744073709551615"
PY
ok $? "--list --format json: the $human variants of the listing, as data"
[ ! -e "$MMT_RESULTS_DIR" ] || [ -z "$(ls -A "$MMT_RESULTS_DIR")" ]
ok $? "no results directory content after help, version, list"

done_testing
