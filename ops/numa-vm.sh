#!/bin/sh
# Runs mmtorture inside a real Linux kernel with a chosen NUMA topology,
# under qemu, and brings the results back.
#
#   scripts/numa-vm [--nodes N] [--cpus N] [--mem SIZE] [--kernel IMAGE]
#                   [--arch x86_64|aarch64] [--kvm] [--timeout SECONDS]
#                   [--append ARGS] [--log FILE] [--qemu-opts "QEMU ARGS"]
#                   -- ./run-scenario ARGS...
#   scripts/numa-vm [options] --script FILE
#   scripts/numa-vm [options] --prepare
#
#   --cpus N       vCPUs, split evenly over the nodes (default: 2 per node
#                  where this host has as many CPUs, so that same-node
#                  placements run; else as many as the host has, and at
#                  least one per node)
#   --append ARGS  added to the guest kernel's command line (e.g.
#                  mmt_mutant.tlb_flush_pending=1)
#   --log FILE     keep the guest's whole console there; on a failure it is
#                  always kept (its path is printed)
#   --identity     print the guest's machine-id and hostname for these
#                  options and exit, booting nothing (scripts/nightly
#                  --in-vm finds the guest's baseline by it)
#   --prepare      build or fetch what the guest needs (the static harness,
#                  busybox, the kernel) and stop before booting: warms the
#                  cache, so a timed run (a nightly --in-vm) boots at once
#   --script FILE  run a shell script in the guest instead of one command:
#                  mmtorture and run-scenario are on its PATH, results go to
#                  /results; its exit status is numa-vm's.  A file it prints
#                  base64 between '@@MMT-FILE NAME@@' and '@@MMT-END@@' lines
#                  comes back even if the guest hangs or panics later
#
# The guest is a small initramfs: busybox-static and a statically linked
# mmtorture (build-static/, or for aarch64 build-aarch64/ from
# scripts/build-aarch64).  The default kernel is Debian's newest
# linux-image-*-amd64 (or -arm64), fetched with apt-get download into the
# cache (build/vm-cache, or $MMT_VM_CACHE) and unpacked with dpkg-deb -x,
# never installed; for aarch64 busybox-static:arm64 comes the same way.
# Each stage (the static build, the kernel, the initramfs, the boot, the
# command) is announced on stderr.  The guest has a machine-id of its own
# (from this host's, the architecture and the topology), so results of
# guests on different machines never pool, and says in its results that it
# is emulated (metadata.host.vm); the command's output comes back through a
# pipe, so no terminal progress line garbles it.  Nodes get equal shares of memory and CPUs.  TCG is the
# default accelerator (--kvm is opt-in: KVM guests hang at boot on some
# hosts).  The guest's output is printed, its result files are copied into
# the host's results/ (or $MMT_RESULTS_DIR), and the exit status is the
# command's.  A guest that panics or hangs is killed and reported, exit 3.
#
# --qemu-opts "ARGS" appends ARGS (split at blanks) to qemu's command line,
# e.g. "-icount shift=6" so that an aarch64 guest's PMU counts instructions
# (QEMU's Arm PMU offers INST_RETIRED only with precise icount).  icount and
# multi-threaded TCG exclude each other, so with -icount the vCPUs run on
# one host thread (tcg,thread=single), in turn: a spinning vCPU hands over
# only at QEMU's next timer deadline, so a smaller shift (more instructions
# per virtual ns) makes every handoff slower, and shift=0 makes the
# harness's probe take minutes; shift=10 starves the guest kernel.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
nodes=2 cpus= mem=1024 kernel= arch=x86_64 kvm=0 timeout=600 append= keep_log= script= qemu_opts= identity=0 prepare=0

die() { echo "numa-vm: $*" >&2; exit 2; }
usage() { sed -n '2,/^set -eu/{/^set -eu/d;s/^# \{0,1\}//;p}' "$0"; }
# The stages on stderr, with the seconds since start: a first run builds,
# fetches and boots for about a minute before the command's output.
started=$(date +%s)
stage() { echo "numa-vm: [$(( $(date +%s) - started ))s] $*" >&2; }
while [ $# -gt 0 ]; do
	case $1 in
	--nodes) nodes=${2:-}; shift 2 ;;
	--cpus) cpus=${2:-}; shift 2 ;;
	--mem) mem=${2:-}; shift 2 ;;
	--kernel) kernel=${2:-}; shift 2 ;;
	--arch) arch=${2:-}; shift 2 ;;
	--kvm) kvm=1; shift ;;
	--timeout) timeout=${2:-}; shift 2 ;;
	--append) append=${2:-}; shift 2 ;;
	--log) keep_log=${2:-}; [ -n "$keep_log" ] || die "--log needs a file name"; shift 2 ;;
	--script) script=${2:-}; shift 2 ;;
	--qemu-opts) [ $# -ge 2 ] || die "--qemu-opts needs its arguments in one word"; qemu_opts=$2; shift 2 ;;
	--identity) identity=1; shift ;;
	--prepare) prepare=1; shift ;;
	-h|--help) usage; exit 0 ;;
	--) shift; break ;;
	*) die "unknown argument '$1' (see scripts/numa-vm --help)" ;;
	esac
done
case $nodes in ''|*[!0-9]*) die "--nodes '$nodes' is not a number" ;; esac
[ "$nodes" -ge 1 ] && [ "$nodes" -le 8 ] || die "--nodes must be 1 to 8"
if [ -z "$cpus" ]; then
	# 2 a node where the host has the CPUs (TCG runs a vCPU on a host
	# thread: more vCPUs than host CPUs only time-slice), at least 1 a node
	host_cpus=$(getconf _NPROCESSORS_ONLN)
	cpus=$(( 2 * nodes < host_cpus ? 2 * nodes : host_cpus ))
	cpus=$(( cpus > nodes ? cpus : nodes ))
	cpus=$(( cpus > 2 ? cpus : 2 ))
	[ "$cpus" -ge $(( 2 * nodes )) ] ||
		echo "numa-vm: $cpus vCPUs for $nodes nodes (this host has $host_cpus CPUs): same-node placements need --cpus $(( 2 * nodes ))" >&2
fi
case $cpus in ''|*[!0-9]*) die "--cpus '$cpus' is not a number" ;; esac
# More vCPUs than host CPUs: every vCPU that spins (a litmus thread, the
# guest kernel waiting for an IPI) waits for host time, and under TCG each
# pause takes qemu's global lock.  4 vCPUs on this project's 2-CPU VM
# livelocked in 4 of 9 boots (qemu's threads 60,000-90,000 futex calls in
# 3 s, the guest's console silent, soft lockups in its kernel), with the
# harness's own pauses thinned out as well; a livelock caught with its
# stacks had two vCPUs at the int3 of a live kernel text patch (a static
# key the harness's perf counters flip) and a third waiting on their IPI.
host_cpus=$(getconf _NPROCESSORS_ONLN)
[ "$cpus" -le "$host_cpus" ] ||
	echo "numa-vm: $cpus vCPUs on $host_cpus host CPUs: an overcommitted TCG guest can livelock (soft lockups, a silent console); --timeout bounds it" >&2
case $timeout in ''|*[!0-9]*) die "--timeout '$timeout' is not a number of seconds" ;; esac
# SIZE: megabytes, or with M/G
case $mem in
*[Gg]) mem=$(( ${mem%[Gg]} * 1024 )) ;;
*[Mm]) mem=${mem%[Mm]} ;;
esac
case $mem in ''|*[!0-9]*) die "--mem must be like 1024, 512M or 2G" ;; esac
[ "$mem" -ge $(( nodes * 128 )) ] || die "--mem gives each node less than 128 MiB"
. "$top/ops/lib/vm-image.sh"
vm_arch
[ "$kvm" = 0 ] || [ "$arch" = "$(uname -m)" ] || die "--kvm needs a $arch host"
tcg_threads=multi
case " $qemu_opts " in
*" -icount "*)
	[ "$kvm" = 0 ] || die "--qemu-opts -icount needs TCG, not --kvm"
	tcg_threads=single ;;
esac
# The guest's identity: a machine-id of its own, from this host's, the
# architecture and the topology (results of guests on different machines
# never pool), and a hostname that says what it is.
guest_machine_id() {
	host_id=$(cat /etc/machine-id 2>/dev/null || hostname)
	printf '%s numa-vm %s %s %s\n' "$host_id" "$arch" "$nodes" "$cpus" | sha256sum | cut -c1-32
}
guest_hostname="mmt-vm-${arch}-${nodes}n${cpus}c"
if [ "$identity" = 1 ]; then
	echo "$(guest_machine_id) $guest_hostname"
	exit 0
fi
case $append in *[\'\"\`\$\\]*) die "--append: quotes, backslashes and \$ are not passed to the kernel command line" ;; esac
if [ "$prepare" = 1 ]; then
	[ -z "$script" ] && [ $# -eq 0 ] || die "--prepare boots nothing: no --script or command with it"
elif [ -n "$script" ]; then
	[ -r "$script" ] && [ -f "$script" ] || die "--script $script: not a readable file"
	[ $# -eq 0 ] || die "--script and a command are exclusive"
else
	[ $# -gt 0 ] || die "no command: scripts/numa-vm [options] -- ./run-scenario ARGS..."
	case $1 in ./run-scenario|run-scenario|*/run-scenario|mmtorture|*/mmtorture) shift ;; esac
fi
if [ -n "$keep_log" ]; then
	log_dir=$(dirname -- "$keep_log")
	[ -d "$log_dir" ] && [ -w "$log_dir" ] || die "--log $keep_log: $log_dir is not a writable directory"
fi

case $arch in
x86_64) command -v "$qemu" >/dev/null || die "$qemu not found (apt-get install qemu-system-x86)" ;;
*) command -v "$qemu" >/dev/null || die "$qemu not found (apt-get install qemu-system-arm)" ;;
esac
# build/vm-cache of the source, or of make check's build when the source
# is read-only (make distcheck)
. "$top/scripts/lib/build-dirs.sh"
cache=${MMT_VM_CACHE:-$(mmt_cache_dir "$top")/vm-cache}
results=${MMT_RESULTS_DIR:-$top/results}
mkdir -p "$cache" "$results"

vm_busybox
vm_harness
vm_kernel "$kernel"
if [ "$prepare" = 1 ]; then
	stage "prepared: $harness, $kernel"
	exit 0
fi

# --- the initramfs ----------------------------------------------------------------
stage "building the initramfs (busybox, $harness)"
work=$(mktemp -d /tmp/mmt-numa-vm.XXXXXX)
qpid=
# A signal to this script alone (timeout(1) sends one) must stop the
# guest too: qemu runs in the background and the shell waits in "wait",
# which a trapped signal interrupts; the guest goes with the script.
trap 'rm -rf "$work"' EXIT
watcher=
# The console watcher (below) goes too: left alone it polled for the rest
# of --timeout after an interrupt.
trap '[ -z "$qpid" ] || kill "$qpid" 2>/dev/null; [ -z "$watcher" ] || kill "$watcher" 2>/dev/null
	echo "numa-vm: interrupted (SIGINT)" >&2; exit 130' INT
trap '[ -z "$qpid" ] || kill "$qpid" 2>/dev/null; [ -z "$watcher" ] || kill "$watcher" 2>/dev/null
	echo "numa-vm: interrupted (SIGTERM)" >&2; exit 143' TERM
root="$work/root"
vm_root "$root"
[ -z "$script" ] || cp "$script" "$root/script.sh"
accel=TCG
[ "$kvm" = 0 ] || accel=KVM
mkdir -p "$root/etc"
guest_machine_id >"$root/etc/machine-id"
echo "numa-vm $accel $arch, $nodes node(s), $cpus CPUs, on $(hostname)" >"$root/etc/mmtorture-vm"
{
	echo '#!/bin/busybox sh'
	echo '/bin/busybox --install -s /bin'
	echo 'mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev'
	echo 'mount -t tmpfs tmp /tmp; mount -t tmpfs res /results'
	echo 'mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null'
	# as systemd does: NUMA balancing's scan knobs live there (numascan)
	echo 'mount -t debugfs nodev /sys/kernel/debug 2>/dev/null'
	echo "hostname $guest_hostname"
	echo 'echo "@@MMT-CMDLINE $(cat /proc/cmdline)@@"'
	echo "echo \"@@MMT-NODES \$(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null | wc -l)@@\""
	echo 'echo "@@MMT-BEGIN@@"'
	# Through a pipe: the console is a terminal, and a progress line
	# rewritten with \r would come back as garbage.
	if [ -n "$script" ]; then
		echo '{ cd / && MMT_RESULTS_DIR=/results PATH=/bin sh /script.sh </dev/null; echo $? >/tmp/rc; } 2>&1 | cat'
	else
		printf '{ cd / && MMT_RESULTS_DIR=/results /mmtorture'
		for a in "$@"; do printf " '%s'" "$(printf '%s' "$a" | sed "s/'/'\\\\''/g")"; done
		echo ' </dev/null; echo $? >/tmp/rc; } 2>&1 | cat'
	fi
	echo 'rc=$(cat /tmp/rc)'
	echo 'echo "@@MMT-RC $rc@@"'
	echo 'for f in /results/*.json; do [ -f "$f" ] || continue; echo "@@MMT-FILE ${f##*/}@@"; base64 "$f"; echo "@@MMT-END@@"; done'
	echo 'echo "@@MMT-DONE@@"'
	echo 'poweroff -f'
} >"$root/init"
chmod +x "$root/init"
(cd "$root" && find . | cpio -o -H newc 2>/dev/null | gzip -1) >"$work/initrd.gz"

# --- boot -------------------------------------------------------------------------
set -- -m "$mem" -smp "$cpus" -kernel "$kernel" -initrd "$work/initrd.gz" \
	-append "console=$console rdinit=/init panic=-1 quiet loglevel=3${append:+ $append}" \
	-nographic -no-reboot -monitor none
[ "$arch" = aarch64 ] && set -- "$@" -M virt
if [ "$kvm" = 1 ]; then
	set -- "$@" -accel kvm -cpu host
else
	# -cpu max: rdtscp and the other features the harness uses
	set -- "$@" -accel "tcg,thread=$tcg_threads" -cpu max
fi
# shellcheck disable=SC2086 # split at blanks, as documented
[ -z "$qemu_opts" ] || set -- "$@" $qemu_opts
per_node=$(( mem / nodes ))
i=0
while [ $i -lt "$nodes" ]; do
	first=$(( i * cpus / nodes ))
	last=$(( (i + 1) * cpus / nodes - 1 ))
	size=$per_node
	[ $i -eq $(( nodes - 1 )) ] && size=$(( mem - per_node * (nodes - 1) ))
	set -- "$@" -object "memory-backend-ram,id=m$i,size=${size}M"
	if [ "$last" -ge "$first" ]; then
		set -- "$@" -numa "node,nodeid=$i,cpus=$first-$last,memdev=m$i"
	else
		set -- "$@" -numa "node,nodeid=$i,memdev=m$i"
	fi
	i=$((i + 1))
done
# MMT_VM_LOCK=FILE: one guest at a time among the numa-vms that name the
# same file (make check's tests boot in parallel: a 4-vCPU guest and a
# 2-vCPU one on a 2-CPU host livelocked TCG, a guest silent for 400 s).
if [ -n "${MMT_VM_LOCK:-}" ]; then
	exec 8>>"$MMT_VM_LOCK"
	if ! flock -n 8; then
		stage "waiting for another guest to stop (MMT_VM_LOCK $MMT_VM_LOCK)"
		flock -w 1200 8 || { echo "numa-vm: waited 1200 s for another guest (MMT_VM_LOCK $MMT_VM_LOCK)" >&2; exit 3; }
	fi
fi
log="$work/console.log"
: >"$log"
stage "booting $(basename "$kernel") under $qemu ($nodes node(s), $cpus CPUs, $accel; at most ${timeout}s)"
# Says when the guest starts the command: the console is read from outside
# while qemu runs.
(
	exec 8>&-	# not the guest lock: this is no guest
	waited=0
	while [ "$waited" -lt "$timeout" ]; do
		if grep -q '@@MMT-BEGIN@@' "$log" 2>/dev/null; then
			stage "the guest is up; running ${script:-the command}"
			exit 0
		fi
		sleep 1
		waited=$((waited + 1))
	done
) &
watcher=$!
set +e
timeout -k 5 "$timeout" "$qemu" "$@" </dev/null >"$log" 2>&1 &
qpid=$!
wait "$qpid"
qrc=$?
qpid=
kill "$watcher" 2>/dev/null
wait "$watcher" 2>/dev/null
set -e
stage "the guest stopped (qemu exit $qrc)"
tr -d '\r' <"$log" >"$log.clean"
[ -z "$keep_log" ] || cp "$log.clean" "$keep_log"
# On a failure the console is kept whatever was asked: the evidence.
keep_failure_log() {
	[ -n "$keep_log" ] && return 0
	keep_log="$results/numa-vm-console-$(date +%Y%m%d-%H%M%S)-$$.log"
	cp "$log.clean" "$keep_log" && echo "numa-vm: the guest's console: $keep_log" >&2
}

# Every complete file block in the console, wherever it stands: the
# command's own (a script may send a file as soon as it has it) and the
# results at the end.  A file sent twice comes back once, as its last
# complete copy.
bring_back_files() {
	awk -v work="$work" '
		# a plain file name only: the console is the guest'"'"'s to write
		/^@@MMT-FILE .*@@$/ { name = $2; sub(/@@$/, "", name)
			out = name ~ /^[A-Za-z0-9_][A-Za-z0-9._-]*$/ ? work "/" (++blocks) ".b64" : ""; next }
		/^@@MMT-END@@$/ { if (out != "") { close(out); if (!(name in last)) order[n++] = name; last[name] = out }
			out = ""; next }
		out != "" { print > out }
		END { for (i = 0; i < n; i++) print order[i], last[order[i]] }' "$log.clean" | while read -r name b64; do
		base64 -d "$b64" >"$results/.$name.tmp" && mv "$results/.$name.tmp" "$results/$name" &&
			echo "numa-vm: results: $results/$name" >&2
	done
}

if ! grep -q '@@MMT-DONE@@' "$log.clean"; then
	if grep -q 'Kernel panic' "$log.clean"; then
		echo "numa-vm: the guest kernel panicked; its console:" >&2
	elif [ "$qrc" -eq 124 ] || [ "$qrc" -eq 137 ]; then
		echo "numa-vm: the guest hung and was killed after ${timeout}s; its console:" >&2
	else
		echo "numa-vm: qemu exited ($qrc) before the command finished; its console:" >&2
	fi
	# What the command printed before it stopped, as a finished one's
	# output comes (a script's progress markers included), then the end
	# of the console, where the kernel said why.
	awk '/@@MMT-BEGIN@@/ { on = 1; next } on' "$log.clean" | grep -v '^\[ *[0-9.]*\] ' || true
	tail -n 30 "$log.clean" >&2
	keep_failure_log
	bring_back_files	# what the command sent before it stopped
	exit 3
fi
seen=$(sed -n 's/.*@@MMT-NODES \([0-9]*\)@@.*/\1/p' "$log.clean" | head -n 1)
if [ "${seen:-0}" -lt "$nodes" ] && [ "$nodes" -gt 1 ]; then
	echo "numa-vm: the guest kernel sees ${seen:-0} NUMA node(s), $nodes were asked for: is CONFIG_NUMA set in $kernel's config?" >&2
	keep_failure_log
	exit 3
fi
# The command's own output, then its result files.
awk '/@@MMT-BEGIN@@/ { on = 1; next } /@@MMT-RC / { exit } on' "$log.clean"
bring_back_files
rc=$(sed -n 's/.*@@MMT-RC \([0-9]*\)@@.*/\1/p' "$log.clean" | head -n 1)
# Exit codes other than ok, found and skipped are failures: keep the console.
case ${rc:-3} in
0|1|77) ;;
*)	echo "numa-vm: the command in the guest exited ${rc:-(no status)}" >&2
	keep_failure_log ;;
esac
exit "${rc:-3}"
