# Shared helpers for the shell tests: TAP output and a scratch directory.
# MMT_BIN and MMT_VALIDATE come from make check (tests/Makefile.inc).
set -u
: "${MMT_BIN:?run through make check}"
: "${MMT_VALIDATE:?run through make check}"

tap_n=0
tap_failed=0
ok() {  # ok CONDITION-STATUS DESCRIPTION
	tap_n=$((tap_n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $tap_n - $2"
	else
		echo "not ok $tap_n - $2"
		tap_failed=$((tap_failed + 1))
	fi
}
skip() {
	tap_n=$((tap_n + 1))
	echo "ok $tap_n - # SKIP $1"
}
done_testing() {
	echo "1..$tap_n"
	rm -rf "$scratch"
	[ "$tap_failed" -eq 0 ]
}

scratch=$(mktemp -d /tmp/mmt-test.XXXXXX)
export MMT_RESULTS_DIR="$scratch/results"
cd "$scratch" || exit 1

ncpus=$(getconf _NPROCESSORS_ONLN)
nnodes=$(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null | wc -l)
[ "$nnodes" -ge 1 ] || nnodes=1

# run ARGS...: runs mmtorture, leaves rc, out (stdout) and err (stderr).
run() {
	# A bound on every run: a hang fails its test instead of stalling CI.
	timeout -k 10 120 "$MMT_BIN" "$@" >"$scratch/out" 2>"$scratch/err"
	rc=$?
	out=$(cat "$scratch/out")
	err=$(cat "$scratch/err")
}

# sysctl_original PATH: PATH's value as this machine has it, for a check
# that a test's runs put it back: where another test's run holds it changed
# at the moment of reading (make check runs tests in parallel), the
# original that run journalled, not its value.  The journal is read before
# and after the file: a change in between reads again.
sysctl_original() {
	_so_j=${MMT_SYSCTL_ROOT:-}/run/mmtorture/journal
	_so_i=0
	while [ $_so_i -lt 20 ]; do
		_so_a=$(cat "$_so_j" 2>/dev/null)
		_so_v=$(cat "${MMT_SYSCTL_ROOT:-}$1" 2>/dev/null || echo none)
		[ "$_so_a" = "$(cat "$_so_j" 2>/dev/null)" ] && break
		_so_i=$((_so_i + 1))
	done
	_so_hex=$(printf '%s\n' "$_so_a" | awk -v p="${MMT_SYSCTL_ROOT:-}$1" '$1 == "set" && $2 == p { print $3; exit }')
	if [ -n "$_so_hex" ]; then
		"${MMT_PYTHON3:-python3}" -c 'import sys; sys.stdout.write(bytes.fromhex(sys.argv[1]).decode().strip())' "$_so_hex"
	else
		printf '%s' "$_so_v"
	fi
}

# run_sysctls FILE ARGS...: run ARGS --output FILE, again while its first
# run was skipped, or ran with an actor off (mmrace's NUMA balancing),
# because another mmtorture run held the sysctl lock, for at most 60 s.
# make check runs tests in parallel: a busy lock is another test's, and
# skipping on it dropped a whole test's checks at random.
run_sysctls() {
	_rs_f=$1
	shift
	_rs_t0=$(date +%s)
	while :; do
		run "$@" --output "$_rs_f"
		# any run's reason or actors (each run restores its own and lets
		# the lock go); not the metadata's journal, busy at the start
		"${MMT_PYTHON3:-python3}" -c 'import json, sys
print(json.dumps([[r.get("reason"), (r.get("metrics") or {}).get("actors")] for r in json.load(open(sys.argv[1]))["runs"]]))' \
			"$_rs_f" 2>/dev/null | grep -q 'another mmtorture run[^"]*is changing sysctls' &&
			[ $(($(date +%s) - _rs_t0)) -lt 60 ] || return 0
		printf '# the sysctl lock is held by another run: again in 2 s\n'
		sleep 2
	done
}

# runs FILE: one line per run: scenario variant placement status witnesses iterations
runs() {
	"$MMT_VALIDATE" "$1" --runs
}

# get FILE PATH: one value from a results file (runs.0.witnesses.count, ...)
get() {
	"$MMT_VALIDATE" "$1" --get "$2"
}

# Scenario names, and a scenario's variants by their expectation here
# (forbidden, allowed, unknown, injected, or all), from --list --format
# json: the scenarios as data, not the human listing.
scenarios() {
	"$MMT_BIN" --list --format json | "${MMT_PYTHON3:-python3}" -c 'import json, sys
for s in json.load(sys.stdin)["scenarios"]:
    print(s["name"])'
}
variants_of() {  # variants_of SCENARIO forbidden|allowed|unknown|injected|all
	"$MMT_BIN" --list "$1" --format json | "${MMT_PYTHON3:-python3}" -c 'import json, sys
for v in json.load(sys.stdin)["scenarios"][0]["variants"]:
    if sys.argv[1] in ("all", v["expectation"]):
        print(v["name"])' "$2"
}

# need_cpus N WHAT: end the test here, as one skip, when the machine has
# fewer than N CPUs.
need_cpus() {
	if [ "$ncpus" -lt "$1" ]; then
		skip "$2 needs $1 CPUs, this machine has $ncpus"
		done_testing
		exit
	fi
}

# need_x86_guest: what booting an x86_64 guest of ops/lib/vm-image.sh
# takes (qemu on an x86_64 host, a static busybox), else skip all.
need_x86_guest() {
	if ! command -v qemu-system-x86_64 >/dev/null 2>&1 || [ "$(uname -m)" != x86_64 ]; then
		skip "no qemu-system-x86_64 on an x86_64 host (apt-get install qemu-system-x86 busybox-static)"
		done_testing
		exit
	fi
	if ! [ -x /bin/busybox ] || ! file -L /bin/busybox 2>/dev/null | grep -q 'statically linked'; then
		skip "no static busybox (apt-get install busybox-static)"
		done_testing
		exit
	fi
}
