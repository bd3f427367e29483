#!/bin/sh
# The verdict comes before storage: when the results or the table cannot be
# written, the run says so in a line that names what failed (never an
# empty message), never exits 0, and a forbidden witness is still printed
# on stderr and still exits 1.
. "${MMT_SRCDIR:-.}/tests/lib.sh"

need_cpus 2 "a scenario run"

"$MMT_BIN" msgpass --variant mb --duration 50ms --events none --output - >/dev/full 2>"$scratch/err"
rc=$?
[ "$rc" -eq 3 ] && grep -q "^mmtorture: cannot write the results to stdout: No space left on device$" "$scratch/err" &&
	[ "$(grep -c '^mmtorture: ' "$scratch/err")" -eq 1 ]
ok $? "--output - onto a full device: exit $rc, one line naming stdout: $(grep '^mmtorture: ' "$scratch/err")"
"$MMT_BIN" msgpass --variant mb --duration 50ms --events none --format json --output "$scratch/r.json" \
	>/dev/full 2>"$scratch/err"
rc=$?
[ "$rc" -eq 3 ] && grep -q "^mmtorture: cannot write to stdout: No space left on device$" "$scratch/err" &&
	"$MMT_VALIDATE" "$scratch/r.json"
ok $? "--format json onto a full device: exit $rc (was 0), the file still written: $(cat "$scratch/err")"

# A results directory on a full filesystem, a forbidden witness: both said,
# exit 1.  A 64 KiB tmpfs, filled: root only.
if [ "$(id -u)" -ne 0 ] || ! mkdir -p "$scratch/full" || ! mount -t tmpfs -o size=64k tmpfs "$scratch/full" 2>/dev/null; then
	skip "a full filesystem needs root to mount a tmpfs"
else
	dd if=/dev/zero of="$scratch/full/fill" bs=4k count=64 2>/dev/null
	run msgpass --variant broken-publish-first --iterations 20000 --assume-forbidden --events none \
		--output "$scratch/full/r.json"
	[ "$rc" -eq 1 ] && printf '%s\n' "$err" | grep -q "cannot write .*r.json: No space left on device" &&
		printf '%s\n' "$err" | grep -q "FORBIDDEN AND SEEN, not in any file: msgpass broken-publish-first same-node rep 0"
	ok $? "results on a full filesystem, a forbidden witness: exit $rc, the write error and the witness on stderr"
	# --format json keeps no table rows: the witness is said all the same.
	run msgpass --variant broken-publish-first --iterations 20000 --assume-forbidden --events none \
		--format json --output "$scratch/full/r.json"
	umount "$scratch/full"
	[ "$rc" -eq 1 ] && [ -z "$out" ] &&
		printf '%s\n' "$err" | grep -q "FORBIDDEN AND SEEN, not in any file: msgpass broken-publish-first same-node rep 0"
	ok $? "the same with --format json: exit $rc, the witness on stderr"
fi

done_testing
