#!/bin/sh
# ./run-scenario: a signal during its build step stops the build and is
# reported; someone who cannot write the build runs a current binary as it
# is, and is told when it is not current.  On a copy of the front door
# with the real binary, so the tree under test is never rebuilt.
. "${MMT_SRCDIR:-.}/tests/lib.sh"

tree="$scratch/tree"
mkdir -p "$tree/build" "$tree/harness" "$tree/scenarios" "$tree/scripts/lib" "$scratch/fakebin"
cp "$MMT_SRCDIR/run-scenario" "$tree/"
cp "$MMT_SRCDIR/scripts/lib/build-dirs.sh" "$tree/scripts/lib/"
cp "$MMT_BIN" "$tree/build/mmtorture"
for f in harness/main.c scenarios/msgpass.c configure.ac Makefile.am scripts/litmus2c.awk; do
	echo "/* $f */" >"$tree/$f"
	touch -d '2020-01-01' "$tree/$f"
done
# A make that takes its time, to be interrupted, and says whether the
# front door's SIGTERM reached it.
cat >"$scratch/fakebin/make" <<EOT
#!/bin/sh
echo \$\$ >"$scratch/make.pid"
trap 'kill \$s; echo TERM >"$scratch/make.got"; exit 143' TERM
sleep 60 &
s=\$!
wait \$s
echo "ran to its end" >"$scratch/make.got"
EOT
chmod +x "$scratch/fakebin/make"

# Under sh as the user's shell runs it (dash on Debian, whose kill took
# '-TERM -- -PGID' for an illegal number and signalled nothing), and bash.
for shell in sh bash; do
rm -f "$scratch/make.pid" "$scratch/make.got"
PATH="$scratch/fakebin:$PATH" $shell "$tree/run-scenario" --version >"$scratch/rs.out" 2>"$scratch/rs.err" &
pid=$!
n=0
while [ ! -s "$scratch/make.pid" ] && [ $n -lt 1500 ]; do
	sleep 0.02
	n=$((n + 1))
done
kill -TERM "$pid"
wait "$pid"
rc=$?
mk=$(cat "$scratch/make.pid" 2>/dev/null)
# The premise: the build had started when the signal came.  On a loaded
# host the last iteration's build lock can outlive it a moment, and a
# signal that comes while this run waits for the lock is not this test's.
if [ -z "$mk" ]; then
	skip "$shell: no build had started 30 s in, so the signal met none ($(tr '\n' ' ' <"$scratch/rs.err"))"
	continue
fi
# The stopped make may take a moment to be gone (reaped by init after
# run-scenario exits): up to 5 s, not a fixed nap that a loaded host outlasts.
n=0
while [ -n "$mk" ] && kill -0 "$mk" 2>/dev/null && [ $n -lt 250 ]; do
	sleep 0.02
	n=$((n + 1))
done
[ "$rc" -eq 143 ] && grep -q "interrupted by SIGTERM during the build: nothing was run" "$scratch/rs.err" &&
	[ -n "$mk" ] && ! kill -0 "$mk" 2>/dev/null && [ ! -s "$scratch/rs.out" ] &&
	[ "$(cat "$scratch/make.got" 2>/dev/null)" = TERM ]
ok $? "$shell: SIGTERM during the build: exit 143 (got $rc), passed on to the build ($(cat "$scratch/make.got" 2>/dev/null)), nothing run: $(cat "$scratch/rs.err")"
[ -n "$mk" ] && kill -9 "$mk" 2>/dev/null
done

# Two ./run-scenario started together on a changed tree: one build at a
# time (a make that notes whether another is running beside it).
if command -v flock >/dev/null 2>&1; then
	cat >"$scratch/fakebin/make" <<EOT
#!/bin/sh
mkdir "$scratch/in-make" 2>/dev/null || echo overlap >>"$scratch/overlaps"
sleep 1
rmdir "$scratch/in-make" 2>/dev/null
EOT
	rm -rf "$scratch/overlaps" "$scratch/in-make"
	touch "$tree/harness/main.c"
	PATH="$scratch/fakebin:$PATH" "$tree/run-scenario" --version >"$scratch/a.out" 2>"$scratch/a.err" &
	a=$!
	PATH="$scratch/fakebin:$PATH" "$tree/run-scenario" --version >"$scratch/b.out" 2>"$scratch/b.err" &
	b=$!
	wait "$a"
	ra=$?
	wait "$b"
	rb=$?
	[ "$ra" -eq 0 ] && [ "$rb" -eq 0 ] && [ ! -e "$scratch/overlaps" ] &&
		grep -q '^mmtorture ' "$scratch/a.out" && grep -q '^mmtorture ' "$scratch/b.out"
	ok $? "two at once: one build at a time (exits $ra, $rb; $(cat "$scratch/a.err" "$scratch/b.err" | grep -c waiting) waited)"
	touch -d '2020-01-01' "$tree/harness/main.c"	# current again, for what follows
else
	skip "flock(1) not installed: builds are not serialized"
fi

if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1; then
	chmod -R go-w "$tree"
	chmod 755 "$scratch" "$tree" "$tree/build" "$tree/harness" "$tree/scenarios" "$tree/scripts" "$tree/scripts/lib"
	rm -f "$tree/build/make.out"
	nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
	nobody "$tree/run-scenario" --version >"$scratch/rs.out" 2>"$scratch/rs.err"
	rc=$?
	[ "$rc" -eq 0 ] && grep -q '^mmtorture [0-9]' "$scratch/rs.out" && [ ! -e "$tree/build/make.out" ]
	ok $? "another user, current binary: runs it (exit $rc), writes nothing to the tree: $(cat "$scratch/rs.out" "$scratch/rs.err")"
	touch "$tree/harness/main.c"
	nobody "$tree/run-scenario" --version >"$scratch/rs.out" 2>"$scratch/rs.err"
	rc=$?
	[ "$rc" -eq 3 ] && grep -q "older than $tree/harness/main.c, and $tree/build is not writable by you" "$scratch/rs.err" &&
		[ ! -s "$scratch/rs.out" ]
	ok $? "another user, stale binary: exit 3 naming the newer source: $(cat "$scratch/rs.err")"
else
	skip "needs root and setpriv to run as another user"
	skip "needs root and setpriv to run as another user"
fi

# --help before the first build answers at once, from the README's option
# table, and builds nothing.
mkdir -p "$scratch/fresh/scripts/lib"
cp "$MMT_SRCDIR/run-scenario" "$MMT_SRCDIR/README.md" "$scratch/fresh/"
cp "$MMT_SRCDIR/scripts/lib/build-dirs.sh" "$scratch/fresh/scripts/lib/"
timeout 20 sh "$scratch/fresh/run-scenario" --help >"$scratch/help.out" 2>&1
rc=$?
[ "$rc" -eq 0 ] && grep -q '^| `--variant' "$scratch/help.out" && grep -q 'not built yet' "$scratch/help.out" &&
	[ ! -e "$scratch/fresh/build/mmtorture" ]
ok $? "run-scenario --help on a fresh tree: the options at once, nothing built (rc $rc)"

done_testing
