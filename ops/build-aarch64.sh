#!/bin/sh
# Cross-builds a static aarch64 mmtorture into build-aarch64/ (for
# qemu-user runs in make check and for aarch64 guests of scripts/numa-vm).
# Needs gcc-aarch64-linux-gnu and Debian's arm64 -dev packages
# (libnuma-dev:arm64 liburcu-dev:arm64 libpfm4-dev:arm64 libjansson-dev:arm64),
# which scripts/setup --install-test-deps installs as root.  Prints the
# binary's path.
#
# Builds under the source directory, or under $MMT_BUILDDIR when that is
# read-only (make distcheck); from a copy of the source when ./configure
# ran in place (scripts/lib/build-dirs.sh).
#
#   scripts/build-aarch64 [--help]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
case ${1:-} in
'') ;;
-h|--help) sed -n '2,/^set -eu/{/^set -eu/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
*) echo "build-aarch64: unknown argument '$1' (it takes none; see --help)" >&2; exit 2 ;;
esac
. "$top/scripts/lib/build-dirs.sh"
work=$(mmt_work_dir "$top") || exit 1
out="$work/build-aarch64"
command -v aarch64-linux-gnu-gcc >/dev/null || { echo "build-aarch64: no aarch64-linux-gnu-gcc (apt-get install gcc-aarch64-linux-gnu)" >&2; exit 77; }
pc=/usr/lib/aarch64-linux-gnu/pkgconfig
[ -f "$pc/numa.pc" ] && [ -f "$pc/liburcu.pc" ] && [ -f "$pc/jansson.pc" ] ||
	{ echo "build-aarch64: arm64 libraries missing (dpkg --add-architecture arm64; apt-get install libnuma-dev:arm64 liburcu-dev:arm64 libpfm4-dev:arm64 libjansson-dev:arm64)" >&2; exit 77; }
[ -x "$top/configure" ] || "$top/scripts/setup" >&2
mkdir -p "$out"
# Tests run in parallel (make -j) and several boot guests: one build at a time,
# and the source copy (when there is one) stays as it is until it is done.
exec 9>"$work/.build-src.lock"
flock -w 600 9 || { echo "build-aarch64: waited 600 s for another build from $top" >&2; exit 1; }
src=$(mmt_vpath_source "$top" "$work") || { echo "build-aarch64: cannot copy the configured source $top for a build of its own" >&2; exit 1; }
# A build configured from another source directory (before or after an
# in-place ./configure) is started again.
if [ -f "$out/Makefile" ] && ! grep -qx "srcdir = $src" "$out/Makefile"; then
	rm -rf "$out"
	mkdir -p "$out"
fi
if [ ! -f "$out/Makefile" ]; then
	(cd "$out" && PKG_CONFIG_LIBDIR="$pc:/usr/share/pkgconfig" "$src/configure" \
		--host=aarch64-linux-gnu LDFLAGS=-static >config.out 2>&1) ||
		{ tail -n 1 "$out/config.out" >&2; exit 1; }
fi
make -C "$out" mmtorture mmtorture-result >"$out/make.out" 2>&1 || { tail -n 20 "$out/make.out" >&2; exit 1; }
exec 9>&-
echo "$out/mmtorture"
