#!/bin/sh
# Builds (or finds in the cache) a guest kernel with mmtorture's mutant
# switches: runtime re-creations of fixed mm TLB-flush bugs, each a kernel
# parameter under /sys/module/mmt_mutant/parameters/ with a counter of the
# times its buggy path ran (kernel/mutants.tsv lists them).  The kernel is
# Debian's linux-source-6.1 with kernel/patches/*.patch and the small
# config of kernel/config.fragment.  It is never installed: the image is
# cached by source version + patch/config hash and printed on stdout, for
# scripts/numa-vm --kernel.
#
#   scripts/mutant-kernel [--jobs N] [--cached] [--list] [--help]
#
#   --cached   print the cached image if there is one, else say why and
#              exit 77 (builds nothing; what tests use)
#   --list     print the mutant table
#   --jobs N   make -jN (default: the online CPUs); the build runs at
#              nice 19 and takes about 17 minutes on 2 vCPUs
#
# Environment: MMT_KERNEL_CACHE (default /var/cache/mmtorture/kernels).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
jobs=$(getconf _NPROCESSORS_ONLN) cached_only=0

die() { echo "mutant-kernel: $*" >&2; exit 2; }
usage() { sed -n '2,/^set -eu/{/^set -eu/d;s/^# \{0,1\}//;p}' "$0"; }
while [ $# -gt 0 ]; do
	case $1 in
	--jobs) jobs=${2:-}; shift 2 ;;
	--cached) cached_only=1; shift ;;
	--list) column -t -s '	' "$top/kernel/mutants.tsv" 2>/dev/null || cat "$top/kernel/mutants.tsv"; exit 0 ;;
	-h|--help) usage; exit 0 ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
done
case $jobs in ''|*[!0-9]*|0) die "--jobs '$jobs' is not a positive number" ;; esac
[ "$(uname -m)" = x86_64 ] || die "builds x86_64 guest kernels only (this host is $(uname -m))"

tarball=/usr/src/linux-source-6.1.tar.xz
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || true)
if [ ! -r "$tarball" ] || [ -z "$srcver" ]; then
	[ "$cached_only" = 1 ] && { echo "mutant-kernel: no linux-source-6.1 (apt-get install linux-source-6.1)" >&2; exit 77; }
	[ "$(id -u)" -eq 0 ] || die "needs Debian's linux-source-6.1: sudo apt-get install linux-source-6.1"
	echo "mutant-kernel: installing linux-source-6.1 and the kernel build tools" >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		linux-source-6.1 bc bison flex libelf-dev libssl-dev xz-utils >&2 ||
		{ apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			--no-install-recommends linux-source-6.1 bc bison flex libelf-dev libssl-dev xz-utils >&2; } ||
		die "apt-get install linux-source-6.1 failed"
	srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1)
fi

# The cache key: everything that changes the image.
key=$( { echo "$srcver"; cat "$top/kernel/config.fragment" "$top"/kernel/patches/*.patch; } |
	sha256sum | cut -c1-12)
cache=${MMT_KERNEL_CACHE:-/var/cache/mmtorture/kernels}
dest="$cache/linux-$srcver-mmt-$key"
if [ -f "$dest/bzImage" ]; then
	echo "$dest/bzImage"
	exit 0
fi
if [ "$cached_only" = 1 ]; then
	echo "mutant-kernel: no cached mutant kernel for this patch set ($dest); build it with scripts/mutant-kernel (about 17 minutes)" >&2
	exit 77
fi
for tool in make gcc bc bison flex; do
	command -v "$tool" >/dev/null || die "$tool not found (apt-get install bc bison flex libelf-dev libssl-dev)"
done

mkdir -p "$cache"
work=$(mktemp -d "$cache/.build.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
echo "mutant-kernel: unpacking linux-source-6.1 $srcver" >&2
tar -C "$work" -xf "$tarball"
src="$work/linux-source-6.1"
for p in "$top"/kernel/patches/*.patch; do
	echo "mutant-kernel: applying ${p##*/}" >&2
	patch -s -d "$src" -p1 <"$p" || die "${p##*/} does not apply to linux-source-6.1 $srcver"
done
log="$work/build.log"
{
	make -C "$src" tinyconfig
	"$src/scripts/kconfig/merge_config.sh" -m -O "$src" "$src/.config" "$top/kernel/config.fragment"
	make -C "$src" olddefconfig
} >"$log" 2>&1 || { tail -n 20 "$log" >&2; die "configuring the kernel failed"; }
# Every option the fragment asks for must have survived olddefconfig:
# a silently dropped CONFIG_NUMA would boot a kernel that cannot test anything.
missing=$(grep -E '^CONFIG_[A-Z0-9_]+=y$' "$top/kernel/config.fragment" | while read -r opt; do
	grep -qx "$opt" "$src/.config" || printf '%s ' "$opt"
done)
[ -z "$missing" ] || die "the kernel config dropped: $missing(kernel/config.fragment)"
echo "mutant-kernel: building (make -j$jobs bzImage at nice 19; about 17 minutes on 2 vCPUs)" >&2
start=$(date +%s)
nice -n 19 make -C "$src" -j"$jobs" bzImage >>"$log" 2>&1 || { tail -n 30 "$log" >&2; echo "mutant-kernel: build failed" >&2; exit 3; }
mkdir -p "$dest.tmp"
cp "$src/arch/x86/boot/bzImage" "$dest.tmp/bzImage"
cp "$src/.config" "$dest.tmp/config"
cp "$log" "$dest.tmp/build.log"
cp "$top/kernel/mutants.tsv" "$dest.tmp/mutants.tsv"
rm -rf "$dest" && mv "$dest.tmp" "$dest"
echo "mutant-kernel: built in $(( $(date +%s) - start )) s: $dest" >&2
echo "$dest/bzImage"
