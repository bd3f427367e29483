#!/bin/sh
# Results are streamed run by run: the harness's peak memory does not grow
# with the number of runs (it grew by about 30 KB a run when the whole
# document was kept to the end).  Peak RSS of a short invocation against
# one with many more runs, measured by the kernel (ru_maxrss).
. "${MMT_SRCDIR:-.}/tests/lib.sh"

need_cpus 2 "msgpass"
few=20
many=${MMT_MEMORY_RUNS:-500}

# peak_kb N: peak RSS in KiB of a run of N tiny msgpass runs.
peak_kb() {
	python3 - "$MMT_BIN" "$1" "$scratch/r$1.json" <<'PY'
import resource, subprocess, sys
b, n, out = sys.argv[1:4]
r = subprocess.run(["timeout", "-k", "10", "600", b, "msgpass", "--variant", "mb", "--iterations", "1",
                    "--repeat", n, "--format", "json", "--output", out],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss if r.returncode == 0 else -r.returncode)
PY
}
a=$(peak_kb $few)
b=$(peak_kb $many)
[ "$a" -gt 0 ] && [ "$b" -gt 0 ] && [ "$(get "$scratch/r$many.json" summary.runs)" -eq "$many" ]
ok $? "both invocations complete ($few and $many runs; peak $a KiB and $b KiB)"
[ "$a" -gt 0 ] && [ "$b" -gt 0 ] && [ $((b - a)) -lt 4096 ]
ok $? "$many runs peak within 4 MiB of $few runs' (+$((b - a)) KiB; the whole document in memory was ~30 KiB a run)"

done_testing
