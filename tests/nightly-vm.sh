#!/bin/sh
# scripts/nightly --in-vm: the night's lines run in one guest boot, each
# line's log and results come back into the night's directory, and the
# baseline is the guest's (numa-vm --identity), never this host's.  A
# stand-in for numa-vm (MMT_NUMA_VM) runs the guest's script here, so no
# guest boots in make check (scripts/numa-vm itself is tests/numa-vm.sh's).
. "${MMT_SRCDIR:-.}/tests/lib.sh"

if ! python3 -c 'import jsonschema' 2>/dev/null; then
	skip "python3 and python3-jsonschema are needed for nightly"
	done_testing
	exit
fi
N="$MMT_SRCDIR/scripts/nightly"
vm="$scratch/numa-vm"
cat >"$vm" <<STUB
#!/bin/sh
# numa-vm's stand-in: --identity prints the guest's; --script runs it here
# with mmtorture on PATH and /results a directory of its own, as the guest
# does, and brings back the files it sends (numa-vm's protocol); with
# STUB_DIE_AFTER=N the guest dies during the line after line N.  What it was
# given goes to vm-args.
echo "\$*" >>"$scratch/vm-args"
for a; do [ "\$a" = --identity ] && { echo 0123456789abcdef0123456789abcdef mmt-vm-x86_64-2n4c; exit 0; }; done
while [ \$# -gt 0 ]; do case \$1 in --script) s=\$2; shift 2 ;; *) shift ;; esac; done
dest=\$MMT_RESULTS_DIR guest=\$(mktemp -d)
MMT_RESULTS_DIR=\$guest PATH="$MMT_BUILDDIR:\$PATH" sh "\$s" >"\$guest/console"
awk -v die="\${STUB_DIE_AFTER:-}" 'die != "" && \$0 ~ "^@@MMT-LINE " die + 1 " " { exit } { print }' "\$guest/console" >"\$guest/seen"
awk -v g="\$guest" '/^@@MMT-FILE / { n = \$2; sub(/@@\$/, "", n); out = g "/" n ".b64"; next }
	/^@@MMT-END@@\$/ { print n; out = ""; next } out != "" { print > out }' "\$guest/seen" |
	while read -r n; do base64 -d "\$guest/\$n.b64" >"\$dest/\$n"; done
cat "\$guest/seen"
rm -rf "\$guest"
[ -z "\${STUB_DIE_AFTER:-}" ] || exit 3
STUB
chmod +x "$vm"
printf '%s\n' "msgpass --variant mb --duration 50ms" "ring --variant cached --duration 50ms" >"$scratch/suite"
export MMT_NUMA_VM="$vm" MMT_RESULTS_DIR="$scratch/res"

"$N" "$scratch/suite" --in-vm "--nodes 2 --cpus 4" --repeats 1 --accept >"$scratch/out" 2>&1
rc=$?
night=$(ls -d "$scratch/res/nightly/suite-2"* 2>/dev/null | head -1)
[ "$rc" -eq 0 ] && [ -n "$night" ] && [ -f "$night/00-msgpass.json" ] && [ -f "$night/01-ring.json" ] &&
	grep -q "^msgpass  *mb " "$night/00.log" && grep -q "^ring  *cached " "$night/01.log" && ! grep -q "^ring " "$night/00.log"
ok $? "--in-vm: both lines ran in the one guest, each line's results and log in the night (exit $rc)"
[ "$(grep -c -- '--script' "$scratch/vm-args")" -eq 1 ] && grep -q -- "--nodes 2 --cpus 4 --timeout [0-9]* --log" "$scratch/vm-args"
ok $? "one boot, with the options given and a bound from the runs' own: $(grep -- --script "$scratch/vm-args")"
[ -L "$scratch/res/nightly/suite-accepted-mmt-vm-x86_64-2n4c-$(printf '0123456789abcdef0123456789abcdef' |
	sha1sum | cut -c1-8)" ]
ok $? "--accept: the baseline is the guest's, named by its hostname and machine-id"

"$N" "$scratch/suite" --in-vm "--nodes 2 --cpus 4" --repeats 1 >"$scratch/out2" 2>&1
rc=$?
grep -q "baseline: .*suite-2" "$(ls -d "$scratch/res/nightly/suite-latest")/compare.txt"
ok $? "the next night in the guest is compared with the guest's baseline (exit $rc)"

STUB_DIE_AFTER=0 "$N" "$scratch/suite" --in-vm "--nodes 2 --cpus 4 --timeout 900" --repeats 1 >"$scratch/out6" 2>&1
rc=$?
night=$(ls -d "$scratch/res/nightly/suite-latest/")
[ "$rc" -eq 1 ] && [ -f "$night/00-msgpass.json" ] && [ ! -f "$night/01-ring.json" ] &&
	grep -q "^\\[2/2\\] .*did not finish in the guest" "$scratch/out6" && grep -q "ERROR run-scenario ring" "$scratch/out6" &&
	! grep -q "MMT-FILE\\|^[A-Za-z0-9+/=]\\{60,\\}$" "$night/00.log" && tail -1 "$scratch/vm-args" | grep -q -- "--timeout 900 --log"
ok $? "a guest that dies after line 1 still returns line 1's results; line 2 is an error; --timeout is the user's (exit $rc)"

"$N" "$scratch/suite" --in-vm "--script x" >"$scratch/out4" 2>&1
rc=$?
[ "$rc" -eq 2 ] && grep -q -- "--in-vm: --script is nightly's to set" "$scratch/out4"
ok $? "--in-vm options nightly sets itself are refused, exit 2: $(tail -1 "$scratch/out4")"
MMT_NUMA_VM=/bin/false "$N" "$scratch/suite" --in-vm "" >"$scratch/out5" 2>&1
rc=$?
[ "$rc" -eq 2 ] && grep -q -- "--in-vm: exit 1" "$scratch/out5" && [ ! -d "$scratch/res/nightly/x" ]
ok $? "a numa-vm that cannot say the guest's identity: exit 2 before anything runs ($(tail -1 "$scratch/out5"))"
done_testing
