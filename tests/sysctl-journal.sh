#!/bin/sh
# Sysctls changed for a run come back whatever kills it: fatal signals
# restore at once; SIGKILL leaves a journal that `--restore` or the next
# run puts back, saying so in its output and metadata.  The lock and the
# journal are root's alone and refuse planted symlinks.
#
# MMT_SYSCTL_ROOT points the harness at a fake /proc/sys and state
# directory, so these kills never leave the machine changed and never
# contend with tests/mmrace.sh for the real lock.
. "${MMT_SRCDIR:-.}/tests/lib.sh"

need_cpus 2 "mmrace"
if [ "$(id -u)" -ne 0 ] || [ ! -w /proc/sys/kernel/numa_balancing ]; then
	skip "mmrace changes numa_balancing only as root on a kernel that has it"
	done_testing
	exit
fi

fake="$scratch/root"
mkdir -p "$fake/proc/sys/kernel" "$fake/run"
nb="$fake/proc/sys/kernel/numa_balancing"
echo 0 >"$nb"
state="$fake/run/mmtorture"
MMT_SYSCTL_ROOT=$fake
export MMT_SYSCTL_ROOT

# start_race: an mmrace run in the background, returns once it has
# switched NUMA balancing on (pid in $pid), or fails after 20 s.
start_race() {
	# A background job of a non-interactive shell ignores SIGINT and
	# SIGQUIT; give the run the default dispositions a terminal would.
	env --default-signal "$MMT_BIN" mmrace --variant race --duration 60s \
		--walk-pages 1024 --compact 0 --events none --output "$scratch/race.json" \
		>"$scratch/race.out" 2>&1 &
	pid=$!
	n=0
	while [ "$(cat "$nb")" != 1 ] && [ $n -lt 1000 ]; do
		sleep 0.02
		n=$((n + 1))
	done
	[ "$(cat "$nb")" = 1 ]
}

for sig in QUIT ABRT BUS USR1 ALRM PIPE SEGV; do
	if ! start_race; then
		ok 1 "SIG$sig: the run never switched NUMA balancing on: $(cat "$scratch/race.out")"
		kill -9 "$pid" 2>/dev/null
		wait "$pid"
		continue
	fi
	kill -s "$sig" "$pid"
	wait "$pid"
	rc=$?
	[ "$rc" -gt 128 ] && [ "$(kill -l "$rc")" = "$sig" ] && [ "$(cat "$nb")" = 0 ] && [ ! -e "$state/journal" ]
	ok $? "SIG$sig mid-race: died of it (rc $rc), numa_balancing back to 0 ($(cat "$nb")), journal gone"
done

start_race
kill -9 "$pid"
wait "$pid" 2>/dev/null
[ "$(cat "$nb")" = 1 ] && [ -f "$state/journal" ] &&
	[ "$(stat -c %a:%U "$state")" = 700:root ] && [ "$(stat -c %a:%U "$state/journal")" = 600:root ] &&
	[ "$(stat -c %a:%U "$state/lock")" = 600:root ]
ok $? "SIGKILL: value left changed, journal kept (dir 0700, journal and lock 0600, root's)"
if command -v setpriv >/dev/null 2>&1; then
	chmod 755 "$scratch" "$fake" "$fake/run"
	! setpriv --reuid=65534 --regid=65534 --clear-groups sh -c ": <'$state/lock'" 2>/dev/null &&
		! setpriv --reuid=65534 --regid=65534 --clear-groups sh -c ": <'$state/journal'" 2>/dev/null
	ok $? "another user can open neither the lock nor the journal"
else
	skip "no setpriv to try as another user"
fi
"$MMT_BIN" --restore >"$scratch/restore.out" 2>&1
rc=$?
[ "$rc" -eq 0 ] && [ "$(cat "$nb")" = 0 ] && [ ! -e "$state/journal" ] &&
	grep -q "restored $nb to 0 (left changed by run [0-9]*, which died)" "$scratch/restore.out"
ok $? "--restore puts it back and says so: $(cat "$scratch/restore.out")"
"$MMT_BIN" --restore >"$scratch/restore.out" 2>&1
[ $? -eq 0 ] && grep -q "nothing to restore" "$scratch/restore.out"
ok $? "--restore again: nothing to restore"

start_race
killed=$pid
kill -9 "$pid"
wait "$pid" 2>/dev/null
run msgpass --variant mb --duration 50ms --output "$scratch/next.json"
[ "$rc" -eq 0 ] && [ "$(cat "$nb")" = 0 ] && printf '%s' "$err" | grep -q "restored $nb to 0 (left changed by run"
ok $? "the next run repairs first and says so on stderr: $err"
[ "$(get "$scratch/next.json" metadata.sysctl_journal.status)" = repaired ] &&
	get "$scratch/next.json" metadata.sysctl_journal.repairs | grep -q '"path":"/proc/sys/kernel/numa_balancing","value":"0","restored":true'
ok $? "... and in its metadata: $(get "$scratch/next.json" metadata.sysctl_journal)"
run msgpass --variant mb --duration 50ms --output "$scratch/clean.json"
[ "$(get "$scratch/clean.json" metadata.sysctl_journal.status)" = clean ]
ok $? "a run after that finds nothing to repair"

# A second run while the first holds the lock does without, naming it.
start_race
first=$pid
"$MMT_BIN" mmrace --variant race --duration 300ms --walk-pages 1024 --compact 0 --events none \
	--output "$scratch/second.json" >/dev/null 2>&1
get "$scratch/second.json" runs.0.metrics.actors.numa_balancing | grep -q "another mmtorture run (pid $first) is changing sysctls"
ok $? "a concurrent run does without NUMA balancing: $(get "$scratch/second.json" runs.0.metrics.actors.numa_balancing)"
kill -INT "$first"
wait "$first"
[ "$(cat "$nb")" = 0 ]
ok $? "the first run still restores (SIGINT)"

# A planted symlink is never followed, and the run says why it did without.
rm -f "$state/lock"
ln -s "$scratch/planted" "$state/lock"
"$MMT_BIN" mmrace --variant race --duration 300ms --walk-pages 1024 --compact 0 --events none \
	--output "$scratch/planted.json" >/dev/null 2>&1
[ ! -e "$scratch/planted" ] && [ "$(cat "$nb")" = 0 ] &&
	get "$scratch/planted.json" runs.0.metrics.actors.numa_balancing | grep -q "symlink"
ok $? "a symlink planted as the lock is refused, nothing created: $(get "$scratch/planted.json" runs.0.metrics.actors.numa_balancing)"
rm -f "$state/lock"
chmod 755 "$state"
"$MMT_BIN" mmrace --variant race --duration 300ms --walk-pages 1024 --compact 0 --events none \
	--output "$scratch/mode.json" >/dev/null 2>&1
get "$scratch/mode.json" runs.0.metrics.actors.numa_balancing | grep -q "open to other users (mode 0755"
ok $? "a state directory others can enter is refused: $(get "$scratch/mode.json" runs.0.metrics.actors.numa_balancing)"

done_testing
