#!/bin/sh
# Bad input: exit 2, exactly one line on stderr naming the problem, nothing
# on stdout, no result file written.
. "${MMT_SRCDIR:-.}/tests/lib.sh"

mkdir -p "$scratch/adir"
bad() {  # bad NEEDLE ARGS...
	needle=$1
	shift
	run "$@"
	lines=$(printf '%s\n' "$err" | wc -l)
	files=$(ls -A "$MMT_RESULTS_DIR" 2>/dev/null | wc -l)
	[ "$rc" -eq 2 ] && [ "$lines" -eq 1 ] && [ -z "$out" ] && [ "$files" -eq 0 ] &&
		printf '%s' "$err" | grep -q -- "$needle"
	ok $? "exit 2, one line, nothing written: $* -> $err"
}

bad "unknown scenario 'nosuch'" nosuch
bad "unknown variant 'nope'" msgpass --variant nope
bad "unknown placement 'far'" msgpass --placement far
bad "CPU list" msgpass --placement cpus:0-
bad "--duration" msgpass --duration 10parsecs
bad "--duration" msgpass --duration -1s
bad "--iterations" msgpass --iterations 1.5
bad "--threads" msgpass --threads many
bad "at least 2 threads" msgpass --threads 1
bad "--repeat" msgpass --repeat 0
bad "--seed" msgpass --seed -3
bad "--mem-node" msgpass --mem-node x
bad "--format" msgpass --format yaml
bad "needs a value" msgpass --placement
bad "unknown option '--frobnicate'" msgpass --frobnicate
bad "unexpected argument" msgpass extra
bad "between 1 and 4096" msgpass --payload-words 5000
bad "does not exist" msgpass --output "$scratch/missing/r.json"
bad "is a directory" msgpass --output "$scratch/adir"
bad "not a power of two" ring --ring-size 1000
bad "not an option of the selected" msgpass --ring-size 1024
bad "unknown event 'bogus'" msgpass --events bogus
bad "unknown tracepoint" msgpass --events tlb:no_such_event
bad "names 2 CPUs but --threads is 3" msgpass --placement cpus:0,1 --threads 3

run --help
[ "$rc" -eq 0 ] && printf '%s' "$out" | grep -q -- '--placement'
ok $? "--help: usage on stdout, exit 0"
run --version
[ "$rc" -eq 0 ] && printf '%s' "$out" | grep -q '^mmtorture [0-9]'
ok $? "--version: version line, exit 0"
run --list
[ "$rc" -eq 0 ] && printf '%s' "$out" | grep -q 'broken-publish-first' &&
	printf '%s' "$out" | grep -q 'payload-words'
ok $? "--list: variants and options"
[ ! -e "$MMT_RESULTS_DIR" ] || [ -z "$(ls -A "$MMT_RESULTS_DIR")" ]
ok $? "no results directory content after help, version, list"

done_testing
