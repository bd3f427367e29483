#!/bin/sh
# A source configured in place (./configure in the source directory, with
# arguments of the user's) works with every script: run-scenario runs the
# in-place binary, setup's reconfigure for --enable-werror (scripts/check's)
# keeps the user's arguments, build-aarch64 and numa-vm --prepare build from a copy
# (automake refuses a second build of a configured source).  The user's
# arguments include --without-ck: the build without concurrencykit, on a
# machine that may have it, lists the ck variants and skips them with the
# reason (exit 77 when they are all that is asked).  On a copy of
# this source (make distdir), so the tree under test is left alone.  Its
# builds run at the suite's own priority: at nice 19, with
# stress-ng --cpu 4 beside the suite, one compile took 5 minutes and the
# test held scripts/check for over 14.
. "${MMT_SRCDIR:-.}/tests/lib.sh"

: "${MMT_BUILDDIR:?run through make check}"
src="$scratch/src"
make -C "$MMT_BUILDDIR" distdir distdir="$src" >"$scratch/distdir.out" 2>&1 &&
	! grep -q 'scripts/bench-' "$scratch/distdir.out" && [ -f "$src/bench/efficiency.py" ]
ok $? "a copy of the source (make distdir: $(find "$src" -type f | wc -l) files, bench/ among them, no benchmark run)"
# The user's own arguments: options and a precious variable.
(cd "$src" && ./configure --disable-dependency-tracking --without-ck CFLAGS='-O1 -g' >"$scratch/configure.out" 2>&1 &&
	make mmtorture >"$scratch/make.out" 2>&1)
rc=$?
[ "$rc" -eq 0 ] && grep -q '^  concurrencykit   no (--without-ck' "$scratch/configure.out"
ok $? "./configure --without-ck and make in the source directory itself, the summary says so (exit $rc: $(grep concurrencykit "$scratch/configure.out"))"

MMT_RESULTS_DIR="$scratch/results" "$src/run-scenario" msgpass --variant mb,ck-fence --duration 50ms --events none \
	>"$scratch/out" 2>"$scratch/err"
rc=$?
[ "$rc" -eq 0 ] && grep -q 'msgpass *mb' "$scratch/out" && [ ! -e "$src/build/mmtorture" ] &&
	[ ! -e "$src/build/config.status" ] &&
	grep -q '^  msgpass ck-fence same-node: built without concurrencykit (libck-dev)$' "$scratch/out"
ok $? "run-scenario runs the in-place build, configures nothing else; ck-fence skipped with the reason (exit $rc: $(tail -n 1 "$scratch/err"))"
MMT_RESULTS_DIR="$scratch/results" "$src/run-scenario" seqcount --variant ck --events none >"$scratch/out" 2>&1
rc=$?
[ "$rc" -eq 77 ] && grep -q '^  seqcount ck same-node: built without concurrencykit (libck-dev)$' "$scratch/out"
ok $? "without concurrencykit, a ck variant alone: skipped with the reason, exit 77 (exit $rc: $(grep 'seqcount ck' "$scratch/out"))"

MMT_WERROR=1 "$src/scripts/setup" </dev/null >"$scratch/setup.out" 2>&1
rc=$?
cfg=$("$src/config.status" --config)
[ "$rc" -eq 0 ] && printf '%s' "$cfg" | grep -q -- "--disable-dependency-tracking" &&
	printf '%s' "$cfg" | grep -q -- "CFLAGS=-O1 -g" && printf '%s' "$cfg" | grep -q -- "--enable-werror" &&
	printf '%s' "$cfg" | grep -q -- "--without-ck" &&
	grep -q -- '-O1 -g' "$src/Makefile" && [ ! -e "$src/build/config.status" ]
ok $? "setup's --enable-werror reconfigure (as scripts/check does) keeps the user's arguments, in place (exit $rc: $cfg)"

if command -v aarch64-linux-gnu-gcc >/dev/null 2>&1 && [ -f /usr/lib/aarch64-linux-gnu/pkgconfig/jansson.pc ]; then
	bin=$("$src/scripts/build-aarch64" 2>"$scratch/a64.err")
	rc=$?
	[ "$rc" -eq 0 ] && file "$bin" | grep -q 'ARM aarch64' && [ -f "$src/build-src/configure" ] &&
		grep -qx "srcdir = $src/build-src" "$src/build-aarch64/Makefile"
	ok $? "build-aarch64 from the in-place source: built from the copy in build-src (exit $rc: $(tail -n 1 "$scratch/a64.err"))"
else
	skip "no aarch64 cross build here (aarch64-linux-gnu-gcc and the arm64 libraries)"
fi
if command -v qemu-system-x86_64 >/dev/null 2>&1 && [ "$(uname -m)" = x86_64 ] && [ -x /bin/busybox ]; then
	# --prepare: the static build from the copy is what the in-place
	# layout changes; booting that harness is tests/numa-vm.sh's (a boot
	# here cost 445 s of a loaded CI run).
	MMT_RESULTS_DIR="$scratch/vm-results" MMT_VM_CACHE="$MMT_BUILDDIR/vm-cache" timeout -k 10 500 \
		"$src/scripts/numa-vm" --nodes 2 --prepare >"$scratch/vm.out" 2>"$scratch/vm.err"
	rc=$?
	[ "$rc" -eq 0 ] && grep -q "prepared: $src/build-static/mmtorture" "$scratch/vm.err" &&
		file "$src/build-static/mmtorture" | grep -q 'statically linked' &&
		grep -qx "srcdir = $src/build-src" "$src/build-static/Makefile" &&
		[ -z "$(ls "$scratch/vm-results" 2>/dev/null)" ] && ! grep -q 'booting' "$scratch/vm.err"
	ok $? "numa-vm --prepare from the in-place source: the static harness built from build-src, nothing booted (exit $rc: $(tail -n 1 "$scratch/vm.err"))"
else
	skip "no x86_64 qemu-system and static busybox for numa-vm here"
fi

done_testing
