#!/bin/sh
# What only a terminal sees: the progress line on stderr (run i/N, elapsed,
# ETA, rewritten with \r, blanked before the table) and --list broken to
# the terminal's width.  Each case runs on a pseudo-terminal (tests/on-pty.py)
# and again on a pipe, where neither may show: stdout and logs stay clean.
. "${MMT_SRCDIR:-.}/tests/lib.sh"

py=${MMT_PYTHON3:-python3}
onpty() {  # onpty COLS TTY-FILE STDOUT-FILE|- ARGS...
	cols=$1 tty=$2 so=$3
	shift 3
	if [ "$so" = - ]; then
		env -u COLUMNS "$py" "$MMT_SRCDIR/tests/on-pty.py" --cols "$cols" --out "$tty" -- "$MMT_BIN" "$@"
	else
		env -u COLUMNS "$py" "$MMT_SRCDIR/tests/on-pty.py" --cols "$cols" --out "$tty" --stdout "$so" -- "$MMT_BIN" "$@"
	fi
}
if ! "$py" -c 'import pty, termios' 2>/dev/null; then
	skip "no python3 with pty and termios to make a terminal"
	done_testing
	exit
fi
need_cpus 2 "the progress runs"

# --- the progress line ------------------------------------------------------------
args="msgpass --variant mb,plain --repeat 2 --duration 100ms --events none"
# shellcheck disable=SC2086
onpty 100 "$scratch/tty" "$scratch/table" $args --output "$scratch/p.json"
rc=$?
# Segments between carriage returns: each is one state of the line.
tr '\r' '\n' <"$scratch/tty" >"$scratch/segs"
ok=0
for i in 1 2 3 4; do
	grep -q "^run $i/4, [0-9]*:[0-9][0-9] elapsed, ETA ~*[0-9]*:[0-9][0-9]: msgpass [a-z]* same-node rep [01]" "$scratch/segs" || ok=1
done
[ "$rc" -eq 0 ] && [ "$ok" -eq 0 ]
ok $? "a terminal on stderr: 'run i/4, elapsed, ETA' for each of the 4 runs (rc $rc: $(grep -m1 '^run 4/4' "$scratch/segs"))"
[ "$(tail -c 1 "$scratch/tty" | od -An -c | tr -d ' ')" = '\r' ] &&
	tr '\r' '\n' <"$scratch/tty" | tail -n 1 | grep -q '^  *$'
ok $? "the line is blanked at the end: spaces over it, then CR"
grep -q 'msgpass *mb' "$scratch/table" && ! grep -q 'run [0-9]/4' "$scratch/table" &&
	! od -An -c "$scratch/table" | grep -q '\\r'
ok $? "stdout (a file) has the table and no progress, no CR"
awk 'length > 99' "$scratch/segs" | grep -q . && ok 1 "a progress state is wider than the terminal" ||
	ok 0 "no state of the line is wider than the 100-column terminal (it could not be rewritten)"

# Narrow terminal: the line is cut, never wrapped.
onpty 30 "$scratch/tty30" "$scratch/table30" msgpass --variant mb --duration 50ms --events none --output "$scratch/n.json"
tr '\r' '\n' <"$scratch/tty30" | awk 'length > 29 { bad = 1 } /^run 1\/1/ { seen = 1 } END { exit !(seen && !bad) }'
ok $? "a 30-column terminal: the line cut to 29 columns"

# Not a terminal: nothing on stderr but what was there before.
# shellcheck disable=SC2086
run $args --output "$scratch/q.json"
[ "$rc" -eq 0 ] && ! printf '%s' "$err" | grep -q 'run [0-9]/4' && ! grep -q "$(printf '\r')" "$scratch/err"
ok $? "stderr a pipe: no progress line, no CR"
# shellcheck disable=SC2086
onpty 100 "$scratch/tty-off" "$scratch/table-off" $args --no-progress --output "$scratch/r.json"
[ $? -eq 0 ] && [ ! -s "$scratch/tty-off" ]
ok $? "--no-progress on a terminal: the terminal gets nothing"
run msgpass --variant mb --duration 50ms --events none --progress --output "$scratch/s.json"
[ "$rc" -eq 0 ] && grep -q "$(printf '\r')run 1/1, " "$scratch/err"
ok $? "--progress on a pipe: the line is written anyway"
onpty 100 "$scratch/tty-json" "$scratch/json" msgpass --variant mb --duration 50ms --events none --format json --output "$scratch/t.json"
[ $? -eq 0 ] && "$py" -c 'import json, sys; json.load(open(sys.argv[1]))' "$scratch/json" &&
	grep -q 'run 1/1' "$scratch/tty-json"
ok $? "--format json: stdout stays one JSON document while the terminal shows progress"

# --- --list -----------------------------------------------------------------------
"$MMT_BIN" --list >"$scratch/list-pipe"
words() { tr -s ' \r\n' '\n\n\n' <"$1" | grep -v '^$'; }
awk 'length > 120' "$scratch/list-pipe" | grep -q .
ok $? "--list on a pipe is not wrapped: one line per variant, as scripts read it ($(awk '{ if (length > m) m = length } END { print m }' "$scratch/list-pipe") columns at most)"
for cols in 80 50; do
	onpty "$cols" "$scratch/list-$cols" - --list
	tr -d '\r' <"$scratch/list-$cols" >"$scratch/list-$cols.txt"
	# A line may pass the width only when it is one word too long to break.
	over=$(awk -v w="$cols" 'length > w && NF > 1' "$scratch/list-$cols.txt" | wc -l)
	words "$scratch/list-pipe" >"$scratch/w-pipe"
	words "$scratch/list-$cols.txt" >"$scratch/w-$cols"
	[ "$over" -eq 0 ] && cmp -s "$scratch/w-pipe" "$scratch/w-$cols" &&
		[ "$(wc -l <"$scratch/list-$cols.txt")" -gt "$(wc -l <"$scratch/list-pipe")" ]
	ok $? "--list on a $cols-column terminal: wrapped to fit ($over lines over), the same words in the same order"
done
COLUMNS=100 "$py" "$MMT_SRCDIR/tests/on-pty.py" --cols 60 --out "$scratch/list-env" -- "$MMT_BIN" --list
tr -d '\r' <"$scratch/list-env" | awk 'length > 100 && NF > 1 { bad = 1 } length > 60 { wide = 1 } END { exit !(wide && !bad) }'
ok $? "--list: COLUMNS=100 wins over a 60-column window"

done_testing
