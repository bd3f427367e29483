#!/bin/sh
# The initramfs of scripts/lava-artefacts booted under qemu as LAVA's qemu
# device boots it: to the shell prompt, the test overlay on an ext2
# virtio-blk disk mounted by /dev/disk/by-uuid exactly as LAVA's test shell
# does it, lava/run-suite run from there with stand-in lava-test-case,
# two NUMA nodes seen, the machine id taken from the NIC's MAC.  About
# 20-40 s of TCG.  Skipped without qemu, a static busybox, mke2fs or depmod.
. "${MMT_SRCDIR:-.}/tests/lib.sh"

need_x86_guest
if ! command -v mke2fs >/dev/null 2>&1; then
	skip "no mke2fs to build the overlay disk (apt-get install e2fsprogs)"
	done_testing
	exit
fi
if ! command -v depmod >/dev/null 2>&1; then
	skip "no depmod to index the initramfs modules (apt-get install kmod)"
	done_testing
	exit
fi

"$MMT_SRCDIR/scripts/lava-artefacts" --out "$scratch/art" >"$scratch/art.out" 2>"$scratch/art.err"
rc=$?
if [ "$rc" -ne 0 ] && grep -q 'apt-get download .* failed\|no Debian .* kernel package' "$scratch/art.err"; then
	skip "no Debian kernel to build the artefacts from: $(tail -n 1 "$scratch/art.err")"
	done_testing
	exit
fi
[ "$rc" -eq 0 ] && [ -s "$scratch/art/vmlinuz" ] && [ -s "$scratch/art/initramfs.cpio.gz" ] &&
	(cd "$scratch/art" && sha256sum -c --quiet SHA256SUMS) &&
	zcat "$scratch/art/initramfs.cpio.gz" | cpio -t 2>/dev/null | grep -qx 'lib/modules/virtio_blk.ko'
ok $? "scripts/lava-artefacts: kernel, initramfs with virtio_blk among its modules, checksums (rc $rc: $(tail -n 1 "$scratch/art.err"))"

# The overlay as LAVA's apply-overlay-guest makes it: ext2, a UUID, the
# lava helpers in bin/ (here stand-ins), the test run from bin/lava-test-runner.
ov="$scratch/overlay"
mkdir -p "$ov/bin"
printf '#!/bin/sh\necho "<CASE $*>"\n' >"$ov/bin/lava-test-case"
printf '#!/bin/sh\necho "<SET $*>"\n' >"$ov/bin/lava-test-set"
printf 'msgpass --variant mb --placement cross-node --duration 100ms --events none\n' >"$ov/suite"
cat >"$ov/bin/lava-test-runner" <<'EOF'
#!/bin/sh
echo "@@RUNNER@@"
PATH=/lava-1/bin:$PATH mmtorture-lava --suite /lava-1/suite --results /tmp/r --timeout 120 >/tmp/out 2>&1
echo "@@SUITE-RC $?@@"
grep -v '^[A-Za-z0-9+/=]*$' /tmp/out
EOF
chmod +x "$ov/bin/"*
uuid=$(cat /proc/sys/kernel/random/uuid)
mke2fs -q -t ext2 -U "$uuid" -d "$ov" "$scratch/overlay.ext2" 16M >/dev/null 2>&1
ok $? "an ext2 overlay disk with UUID $uuid"

# qemu reads the console from a FIFO held open read-write here, so nothing
# blocks, and the commands go in only once the prompt is seen.
mkfifo "$scratch/console"
exec 3<>"$scratch/console"
# One guest at a time in make check (MMT_VM_LOCK, as numa-vm takes it):
# guests booted side by side on a 2-CPU host livelock TCG.
if [ -n "${MMT_VM_LOCK:-}" ]; then
	exec 7>>"$MMT_VM_LOCK"
	flock -w 1200 7 || echo "# waited 1200 s for another test's guest (MMT_VM_LOCK); booting anyway"
fi
timeout -k 5 240 qemu-system-x86_64 -m 1024 -smp 2 -accel tcg,thread=multi -cpu max \
	-object memory-backend-ram,id=m0,size=512M -numa node,nodeid=0,cpus=0,memdev=m0 \
	-object memory-backend-ram,id=m1,size=512M -numa node,nodeid=1,cpus=1,memdev=m1 \
	-kernel "$scratch/art/vmlinuz" -initrd "$scratch/art/initramfs.cpio.gz" \
	-append "console=ttyS0 rdinit=/init panic=-1" -nographic -no-reboot -monitor none \
	-net nic,model=virtio,macaddr=52:54:00:12:34:77 -net user \
	-drive "format=raw,file=$scratch/overlay.ext2,media=disk,if=virtio,id=lavatest" \
	<"$scratch/console" >"$scratch/log" 2>&1 &
qemu=$!
n=0
while ! grep -q '/ # ' "$scratch/log" && kill -0 $qemu 2>/dev/null && [ $n -lt 180 ]; do
	sleep 1
	n=$((n + 1))
done
grep -q '/ # ' "$scratch/log"
ok $? "booted to the shell prompt ($n s; $(grep -a 'mmtorture LAVA guest' "$scratch/log" | tr -d '\r' | head -n 1))"
# What LAVA's boot action pushes to the test shell, then our checks.
printf 'mkdir /lava-1; mount /dev/disk/by-uuid/%s -t ext2 /lava-1; ls -la /lava-1/bin/lava-test-runner && sh /lava-1/bin/lava-test-runner; echo "@@ID $(cat /etc/machine-id) $(hostname)@@"; poweroff -f\n' \
	"$uuid" >&3
wait $qemu
qrc=$?
exec 3>&- 7>&-
tr -d '\r' <"$scratch/log" >"$scratch/log.txt"
grep -q '^@@RUNNER@@$' "$scratch/log.txt"
ok $? "the overlay mounted by UUID and its lava-test-runner ran (qemu rc $qrc: $(grep -a -m1 'mount:' "$scratch/log.txt"))"
grep -a -q 'mmtorture LAVA guest: .*, 2 NUMA nodes, 2 CPUs' "$scratch/log.txt"
ok $? "the guest sees 2 NUMA nodes and 2 CPUs"
grep -q '^@@SUITE-RC 0@@$' "$scratch/log.txt" &&
	grep -q '^<CASE msgpass\.mb\.cross-node\.0 --result pass --measurement [0-9.e+]* --units messages/s>$' "$scratch/log.txt" &&
	grep -q '^<CASE msgpass\.exit-code --result pass --measurement 0 --units exit>$' "$scratch/log.txt"
ok $? "run-suite in the guest: msgpass across its two nodes passes, with its exit-code case"
want=$(echo "mmtorture-lava x86_64 52:54:00:12:34:77" | md5sum | cut -c1-32)
grep -q "^@@ID $want mmt-lava-x86_64-123477@@$" "$scratch/log.txt"
ok $? "machine id and hostname from the NIC's MAC ($(grep -a '^@@ID' "$scratch/log.txt"))"
[ "$tap_failed" -eq 0 ] || tail -n 40 "$scratch/log.txt" | sed 's/^/# /'

done_testing
