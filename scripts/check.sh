#!/bin/sh
# Builds (warnings are errors here) and runs the whole test suite.
# Prints one closing line: "N passed, N failed, N skipped".
#
#   scripts/check [--mutants]
#
#   --mutants  also the slow proof against real bugs: build the mutant
#              kernel if it is not cached (scripts/mutant-kernel, about 7
#              minutes on 2 vCPUs) and run the full scripts/mutant-proof
#              (10 runs a side); counted as one more test
#
# As root it installs what the tests use (scripts/setup --install-test-deps:
# the build packages, qemu, the aarch64 cross compiler, and Debian's arm64
# libraries, which adds the arm64 architecture to dpkg): running the suite
# is asking for them.  The build keeps its configure arguments (setup reads
# them from config.status) and only gains --enable-werror.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib/build-dirs.sh"
build=$(mmt_build_dir "$top")
mutants=0
for a in "$@"; do
	case $a in
	--mutants) mutants=1 ;;
	-h|--help) sed -n '2,/^set -u/{/^set -u/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
	*) echo "check: unknown argument '$a' (see --help)" >&2; exit 2 ;;
	esac
done
MMT_WERROR=1 "$top/scripts/setup" --install-test-deps || exit 1

jobs=$(getconf _NPROCESSORS_ONLN)
# Stale logs from an earlier run must not be counted as this run's results.
rm -f "$build"/tests/*.log "$build"/tests/*.trs "$build/test-suite.log"
make -C "$build" -j"$jobs" check >"$top/build/check.out" 2>&1
rc=$?
log="$build/test-suite.log"
if [ "$rc" -ne 0 ]; then
	tail -n 40 "$top/build/check.out"
	[ -f "$log" ] && grep -E '^(FAIL|ERROR|not ok)' "$build"/tests/*.log
fi
count() { grep -h "^$1:" "$build"/tests/*.log 2>/dev/null | wc -l; }
pass=$(count PASS)
fail=$(( $(count FAIL) + $(count ERROR) + $(count XPASS) ))
# A build failure runs no test at all: still a failure.
[ "$rc" -ne 0 ] && [ "$fail" -eq 0 ] && fail=1
skip=$(count SKIP)
if [ "$mutants" = 1 ]; then
	if "$top/scripts/mutant-kernel" >/dev/null && "$top/scripts/mutant-proof" --json "$top/build/mutant-proof.json"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		rc=1
	fi
fi
# Skips name their reason; show them so a skipped check is never mistaken for a pass.
grep -h '^SKIP:' "$build"/tests/*.log 2>/dev/null | sed 's/^/  /'
echo "$pass passed, $fail failed, $skip skipped"
[ "$rc" -eq 0 ] && [ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
