# SPDX-License-Identifier: MIT
# Where the shell scripts build, sourced by run-scenario, setup, check,
# numa-vm and build-aarch64 (POSIX sh).  TOP is the source directory.
#
# Three layouts are supported: the default (configured into TOP/build),
# configured in place (a user ran ./configure in TOP), and a read-only TOP
# (make distcheck: the build and MMT_BUILDDIR are elsewhere).

# mmt_build_dir TOP: the native build: TOP itself when ./configure ran
# there, TOP/build otherwise.
mmt_build_dir() {
	if [ -f "$1/config.status" ]; then echo "$1"; else echo "$1/build"; fi
}

# mmt_work_dir TOP: the parent of the extra builds (build-static,
# build-aarch64, build-src): TOP when it is writable, else $MMT_BUILDDIR
# (make check sets it to its build directory).
mmt_work_dir() {
	if [ -w "$1" ]; then
		echo "$1"
	elif [ -n "${MMT_BUILDDIR:-}" ]; then
		echo "$MMT_BUILDDIR"
	else
		echo "$1 is not writable: set MMT_BUILDDIR to a directory for the builds" >&2
		return 1
	fi
}

# mmt_vpath_source TOP WORK: a source directory that a build of its own
# (another --host, LDFLAGS=-static) can configure from.  TOP, unless
# ./configure ran in TOP: automake then refuses every other build of it
# ("source directory already configured"), so the distributed files are
# copied to WORK/build-src (make distdir; times kept, so builds from it
# stay current).  The caller holds WORK/.build-src.lock from here until
# its build is done: the copy is replaced on every call.
mmt_vpath_source() {
	if [ ! -f "$1/config.status" ]; then
		echo "$1"
		return 0
	fi
	make -C "$1" distdir distdir="$2/build-src" >"$2/build-src.out" 2>&1 ||
		{ tail -n 5 "$2/build-src.out" >&2; return 1; }
	echo "$2/build-src"
}

# mmt_cache_dir TOP: the parent of caches and artefacts (vm-cache,
# lava-artefacts): TOP/build, or $MMT_BUILDDIR where TOP is read-only.
mmt_cache_dir() {
	if [ -w "$1" ] || [ -z "${MMT_BUILDDIR:-}" ]; then echo "$1/build"; else echo "$MMT_BUILDDIR"; fi
}
