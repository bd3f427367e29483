# Shared by scripts/numa-vm and scripts/lava-artefacts: the pieces of a
# guest image, a Debian kernel (with its modules) and an initramfs root
# with a static busybox and a static mmtorture.  POSIX sh, sourced; the
# caller defines die() and sets top, arch and cache.
#
# vm_arch: sets qemu, debarch, console for $arch (x86_64, aarch64)
# vm_fetch PKG NAME: a Debian package unpacked into $cache/NAME
# vm_busybox: sets busybox (the host's static one, or arm64's, fetched)
# vm_harness: builds the static mmtorture; sets harness and result_tool
# vm_kernel [IMAGE]: sets kernel (IMAGE, or Debian's newest for $debarch,
#   fetched) and kernel_root (the unpacked package, with lib/modules; empty
#   for a given IMAGE)
# vm_root DIR: the initramfs skeleton in DIR: busybox, /mmtorture and
#   mmtorture-result with links in /bin, the mount points

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
	echo "${0##*/}: fetching $1" >&2
	(cd "$cache" && rm -f ./*.deb && apt-get download "$1" >/dev/null 2>&1) ||
		{ apt-get update -qq >/dev/null 2>&1 || true; (cd "$cache" && apt-get download "$1" >/dev/null 2>&1); } ||
		die "apt-get download $1 failed"
	dpkg-deb -x "$cache"/*.deb "$dir.tmp" && rm -f "$cache"/*.deb && mv "$dir.tmp" "$dir"
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

vm_harness() {
	[ -x "$top/configure" ] || "$top/scripts/setup" >&2 || exit 3
	if [ "$arch" = aarch64 ]; then
		harness=$("$top/scripts/build-aarch64") || exit 3
	else
		static="$top/build-static"
		mkdir -p "$static"
		# Tests boot guests in parallel (make -j): one build of the tree at a time.
		exec 9>"$static/.build.lock"
		flock -w 600 9 || { echo "${0##*/}: waited 600 s for another build of $static" >&2; exit 3; }
		if [ ! -f "$static/Makefile" ]; then
			(cd "$static" && "$top/configure" LDFLAGS=-static >config.out 2>&1) ||
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
}
