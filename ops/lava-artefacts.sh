#!/bin/sh
# Builds what the LAVA job templates (lava/jobs/) deploy: a Debian kernel
# and an initramfs holding a static busybox, a static mmtorture and
# mmtorture-result, lava/run-suite with the suites, and the kernel's modules
# that LAVA's test overlay needs.
#
#   scripts/lava-artefacts [--arch x86_64|aarch64] [--out DIR]
#
# DIR (default build/lava-artefacts/ARCH) gets vmlinuz, initramfs.cpio.gz and
# SHA256SUMS; the last line printed is DIR.  The kernel, busybox and the
# static harness come the way scripts/numa-vm gets them (ops/lib/vm-image.sh).
#
# The guest's identity (results' metadata.host) comes from its NIC's MAC,
# which the lab's device dictionary sets per device (see /init below).
#
# Why the modules: LAVA hands the test scripts to a ramdisk guest on a
# small ext2 disk (libguestfs builds it; the qemu device puts it on
# virtio-blk) and the test shell mounts it as /dev/disk/by-uuid/UUID.
# Debian's kernel has virtio-pci, virtio-blk and ext4 as modules, and
# busybox has no blkid, so /init loads them (in modules.dep order) and
# makes the by-uuid links itself from each disk's ext2 superblock.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
arch=x86_64 out=
die() { echo "lava-artefacts: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
	case $1 in
	--arch) arch=${2:-}; shift 2 ;;
	--out) out=${2:-}; [ -n "$out" ] || die "--out needs a directory"; shift 2 ;;
	--help) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
done
. "$top/ops/lib/vm-image.sh"
vm_arch
# Not build/lava: a VPATH make dist would take that for lava/ and ship it.
# under build/, or make check's build where the source is read-only
. "$top/scripts/lib/build-dirs.sh"
out=${out:-$(mmt_cache_dir "$top")/lava-artefacts/$arch}
cache=${MMT_VM_CACHE:-$(mmt_cache_dir "$top")/vm-cache}
mkdir -p "$cache" "$out"

vm_busybox
vm_harness
vm_kernel
release=$(ls "$kernel_root/lib/modules" | head -n 1)
moddir="$kernel_root/lib/modules/$release"
# The package ships no modules.dep (the install runs depmod): made once in the cache.
[ -f "$moddir/modules.dep" ] || depmod -b "$kernel_root" "$release" ||
	die "depmod -b $kernel_root $release failed (apt-get install kmod)"

work=$(mktemp -d /tmp/mmt-lava-artefacts.XXXXXX)
trap 'rm -rf "$work"' EXIT INT TERM
root="$work/root"
vm_root "$root"
mkdir -p "$root/lib/modules"

# The modules and everything they need, in load order (dependencies
# first); those built into this kernel are left out.
# ext4 asks the crypto API for crc32c at mount time (a softdep, not in modules.dep).
# virtio_net: only for the MAC address that names the device (below).
wanted="virtio_pci virtio_mmio virtio_blk crc32c_generic ext4 virtio_net"
awk -v want="$wanted" -v builtin="$moddir/modules.builtin" '
	function base(p, n) { n = p; sub(/.*\//, "", n); sub(/\.ko(\.xz|\.zst)?$/, "", n); gsub(/-/, "_", n); return n }
	function visit(m, d, n, i) {
		if (m in seen) return
		seen[m] = 1
		if (!(m in file)) { if (!(m in inkernel)) missing = missing " " m; return }
		n = split(deps[m], d, " ")
		for (i = 1; i <= n; i++) visit(d[i])
		print file[m]
	}
	BEGIN { while ((getline line < builtin) > 0) inkernel[base(line)] = 1 }
	{ p = $1; sub(/:$/, "", p); b = base(p); file[b] = p; deps[b] = ""
	  for (i = NF; i >= 2; i--) deps[b] = deps[b] " " base($i) }
	END {
		n = split(want, w, " ")
		for (i = 1; i <= n; i++) visit(w[i])
		if (missing != "") { print "lava-artefacts: modules not in this kernel:" missing > "/dev/stderr"; exit 1 }
	}' "$moddir/modules.dep" >"$work/order" || exit 3
: >"$root/lib/modules/load-order"
while read -r path; do
	name=${path##*/}
	case $name in
	*.ko.xz) xz -dc "$moddir/$path" >"$root/lib/modules/${name%.xz}"; name=${name%.xz} ;;
	*.ko.zst) zstd -qdc "$moddir/$path" >"$root/lib/modules/${name%.zst}"; name=${name%.zst} ;;
	*) cp "$moddir/$path" "$root/lib/modules/$name" ;;
	esac
	echo "$name" >>"$root/lib/modules/load-order"
done <"$work/order"

cat >"$root/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp; mount -t tmpfs res /results
mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
while read -r m; do insmod "/lib/modules/$m" 2>/dev/null; done </lib/modules/load-order
# /dev/disk/by-uuid/UUID for every ext2/3/4 disk: the superblock sits at
# byte 1024, its magic 0xEF53 at +56 (little-endian), the UUID at +104.
mkdir -p /dev/disk/by-uuid
n=0
while [ $n -lt 50 ] && ! ls /sys/block/vd* /sys/block/sd* >/dev/null 2>&1; do sleep 0.1; n=$((n + 1)); done
for b in /sys/block/vd* /sys/block/sd*; do
	[ -e "$b" ] || continue
	dev=/dev/${b##*/}
	magic=$(dd if="$dev" bs=1 skip=1080 count=2 2>/dev/null | od -An -tx1 | tr -d ' \n')
	[ "$magic" = 53ef ] || continue
	u=$(dd if="$dev" bs=1 skip=1128 count=16 2>/dev/null | od -An -tx1 | tr -d ' \n')
	u=$(echo "$u" | sed 's/^\(.\{8\}\)\(.\{4\}\)\(.\{4\}\)\(.\{4\}\)/\1-\2-\3-\4-/')
	ln -sf "$dev" "/dev/disk/by-uuid/$u"
done
# Who ran it: a ramdisk has no /etc/machine-id, and every guest would be
# one host to scripts/report.  The NIC's MAC comes from the device
# dictionary (mac_addr), which a lab sets per device: it names the device,
# the same in all its jobs and different from the next device's.
# With the architecture: an x86_64 and an aarch64 guest of one device are
# different machines.
# A bare-metal box's NIC may need a driver this initramfs lacks: then the
# lava_mac= that LAVA's ipxe commands put on the command line, else the
# board's DMI UUID.
mac=$(cat /sys/class/net/eth0/address 2>/dev/null)
[ -n "$mac" ] || mac=$(tr ' ' '\n' </proc/cmdline | sed -n 's/^lava_mac=//p' | head -n 1)
[ -n "$mac" ] || mac=$(cat /sys/class/dmi/id/product_uuid 2>/dev/null)
if [ -n "$mac" ]; then
	mkdir -p /etc
	echo "mmtorture-lava $(uname -m) $mac" | md5sum | cut -c1-32 >/etc/machine-id
	hostname "mmt-lava-$(uname -m)-$(echo "$mac" | tr -d : | cut -c7-12)"
else
	hostname "mmt-lava-$(uname -m)"
fi
echo "mmtorture LAVA guest: $(uname -r), $(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null | wc -l) NUMA nodes, $(grep -c ^processor /proc/cpuinfo) CPUs"
# A shell on the console for LAVA, again whenever one exits.
while :; do setsid cttyhack sh -l; done
EOF
chmod +x "$root/init"
(cd "$root" && find . | cpio -o -H newc 2>/dev/null | gzip -9) >"$out/.initramfs.tmp"
mv "$out/.initramfs.tmp" "$out/initramfs.cpio.gz"
cp "$kernel" "$out/.vmlinuz.tmp" && mv "$out/.vmlinuz.tmp" "$out/vmlinuz"
(cd "$out" && sha256sum vmlinuz initramfs.cpio.gz >.SHA256SUMS.tmp && mv .SHA256SUMS.tmp SHA256SUMS)
echo "lava-artefacts: $arch kernel $release, modules: $(tr '\n' ' ' <"$root/lib/modules/load-order")" >&2
echo "$out"
