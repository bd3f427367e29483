# Shared by scripts/numa-vm and scripts/lava-artefacts: the pieces of a
# guest image, a Debian kernel (with its modules) and an initramfs root
# with a static busybox and a static mmtorture.  POSIX sh, sourced; the
# caller defines die() and sets top, arch and cache.  Each step is
# announced on stderr, through the caller's stage() when it has one.
#
# vm_arch: sets qemu, debarch, console for $arch (x86_64, aarch64)
# vm_fetch PKG NAME: a Debian package unpacked into $cache/NAME
# vm_busybox: sets busybox (the host's static one, or arm64's, fetched)
# vm_harness: builds the static mmtorture; sets harness and result_tool
# vm_kernel [IMAGE]: sets kernel (IMAGE, or Debian's newest for $debarch,
#   fetched) and kernel_root (the unpacked package, with lib/modules; empty
#   for a given IMAGE)
# vm_root DIR: the initramfs skeleton in DIR: busybox, /mmtorture and
#   mmtorture-result with links in /bin, the mount points, the suites and
#   lava/run-suite under /usr/share/mmtorture (/bin/mmtorture-lava)

vm_say() {
	if command -v stage >/dev/null 2>&1; then stage "$*"; else echo "${0##*/}: $*" >&2; fi
}

vm_arch() {
	case $arch in
	x86_64) qemu=qemu-system-x86_64 debarch=amd64 console=ttyS0 ;;
	aarch64) qemu=qemu-system-aarch64 debarch=arm64 console=ttyAMA0 ;;
	*) die "--arch $arch: x86_64 or aarch64" ;;
	esac
}

vm_fetch() {
	dir="$cache/$2"
	[ -d "$dir" ] && return 0
	# Guests boot in parallel (make -j) and share the cache: one fetch at a
	# time, and the one that waited finds the package there.
	exec 8>"$cache/.fetch.lock"
	flock -w 600 8 || die "waited 600 s for another fetch into $cache"
	[ -d "$dir" ] && { exec 8>&-; return 0; }
	vm_say "fetching $1"
	(cd "$cache" && rm -f ./*.deb && apt-get download "$1" >/dev/null 2>&1) ||
		{ apt-get update -qq >/dev/null 2>&1 || true; (cd "$cache" && apt-get download "$1" >/dev/null 2>&1); } ||
		die "apt-get download $1 failed"
	dpkg-deb -x "$cache"/*.deb "$dir.tmp" && rm -f "$cache"/*.deb && mv "$dir.tmp" "$dir"
	exec 8>&-
}

vm_busybox() {
	if [ "$arch" = x86_64 ]; then
		busybox=$(command -v busybox || true)
		[ -n "$busybox" ] && file -L "$busybox" 2>/dev/null | grep -q 'statically linked' ||
			{ [ -x /bin/busybox ] && busybox=/bin/busybox; } ||
			die "a static busybox is needed (apt-get install busybox-static)"
	else
		dpkg --print-foreign-architectures 2>/dev/null | grep -qx arm64 ||
			die "aarch64 guests need Debian's arm64 packages (dpkg --add-architecture arm64; apt-get update)"
		vm_fetch busybox-static:arm64 busybox-arm64
		busybox="$cache/busybox-arm64/bin/busybox"
	fi
}

# The static build goes beside the source, or under $MMT_BUILDDIR where the
# source is read-only, and from a copy of the source where ./configure ran
# in place (scripts/lib/build-dirs.sh).
vm_harness() {
	[ -x "$top/configure" ] || "$top/scripts/setup" >&2 || exit 3
	if [ "$arch" = aarch64 ]; then
		vm_say "building the static aarch64 harness (scripts/build-aarch64)"
		harness=$("$top/scripts/build-aarch64") || exit 3
	else
		. "$top/scripts/lib/build-dirs.sh"
		builds=$(mmt_work_dir "$top") || exit 3
		static="$builds/build-static"
		vm_say "building the static harness ($static)"
		mkdir -p "$static"
		# Tests boot guests in parallel (make -j): one build of the tree at
		# a time, and the source copy (when there is one) kept until done.
		exec 9>"$builds/.build-src.lock"
		flock -w 600 9 || { echo "${0##*/}: waited 600 s for another build from $top" >&2; exit 3; }
		src=$(mmt_vpath_source "$top" "$builds") ||
			{ echo "${0##*/}: cannot copy the configured source $top for a build of its own" >&2; exit 3; }
		# Configured from another source directory (before or after an
		# in-place ./configure): started again.
		if [ -f "$static/Makefile" ] && ! grep -qx "srcdir = $src" "$static/Makefile"; then
			rm -rf "$static"
			mkdir -p "$static"
		fi
		if [ ! -f "$static/Makefile" ]; then
			(cd "$static" && "$src/configure" LDFLAGS=-static >config.out 2>&1) ||
				{ tail -n 1 "$static/config.out" >&2; exit 3; }
		fi
		make -C "$static" mmtorture mmtorture-result >"$static/make.out" 2>&1 ||
			{ cat "$static/make.out" >&2; exit 3; }
		exec 9>&-
		harness="$static/mmtorture"
	fi
	result_tool="${harness%/*}/mmtorture-result"
}

vm_kernel() {
	kernel=${1:-} kernel_root=
	if [ -z "$kernel" ]; then
		pkg=$(apt-cache search --names-only "^linux-image-[0-9.]+-[0-9]+-$debarch\$" 2>/dev/null |
			awk '{ print $1 }' | sort -V | tail -n 1)
		[ -n "$pkg" ] || { apt-get update -qq >/dev/null 2>&1 || true; pkg=$(apt-cache search --names-only \
			"^linux-image-[0-9.]+-[0-9]+-$debarch\$" | awk '{ print $1 }' | sort -V | tail -n 1); }
		[ -n "$pkg" ] || die "no Debian $debarch kernel package found (apt-cache search linux-image); give --kernel"
		vm_fetch "$pkg:$debarch" "$pkg"
		kernel_root="$cache/$pkg"
		kernel=$(ls "$kernel_root"/boot/vmlinuz-* | head -n 1)
	fi
	[ -r "$kernel" ] || die "--kernel $kernel: not readable"
}

vm_root() {
	mkdir -p "$1/bin" "$1/proc" "$1/sys" "$1/dev" "$1/tmp" "$1/results"
	cp "$busybox" "$1/bin/busybox"
	cp "$harness" "$1/mmtorture"
	cp "$result_tool" "$1/bin/mmtorture-result"
	ln -s ../mmtorture "$1/bin/mmtorture"
	ln -s ../mmtorture "$1/bin/run-scenario"
	# The suites and their LAVA runner: mmtorture-lava --suite smoke runs
	# the suite lines themselves, in LAVA's guests and in numa-vm's.
	mkdir -p "$1/usr/share/mmtorture/lava" "$1/usr/share/mmtorture/suites"
	cp "$top/lava/run-suite" "$1/usr/share/mmtorture/lava/run-suite"
	cp "$top/suites/"* "$1/usr/share/mmtorture/suites/"
	ln -s /usr/share/mmtorture/lava/run-suite "$1/bin/mmtorture-lava"
}
