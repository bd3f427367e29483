#!/bin/sh
# softdirty: a kernel without soft-dirty skips every variant with the
# reason (its config says so: exit 77 before anything runs; its config
# cannot say: the probe in prepare, the same skip naming soft-dirty); bad
# input is exit 2 with nothing written.  Where soft-dirty works (a guest:
# this host's kernel has none), on this kernel clear-refs and its control
# find no untracked write, ok with raced clears or INCONCLUSIVE saying no
# clear raced, and broken-untracked reports exactly the stores it injected.
# The proof against the real bug is the mutant kernel's (clear_refs_flush).
. "${MMT_SRCDIR:-.}/tests/lib.sh"

need_cpus 2 "softdirty"

all_reasons() {  # all_reasons FILE PATTERN: every run's reason matches PATTERN
	k=0
	while [ "$k" -lt "$(runs "$1" | wc -l)" ]; do
		get "$1" "runs.$k.reason" | grep -q -- "$2" || return 1
		k=$((k + 1))
	done
}

# Bad input: one line on stderr, exit 2, nothing written.
for bad in "--pages 0" "--variant clear-ref" "--pages 65537"; do
	# shellcheck disable=SC2086
	run softdirty $bad --output "$scratch/bad.json"
	[ "$rc" -eq 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] && [ ! -e "$scratch/bad.json" ] &&
		[ -z "$(ls -A "$MMT_RESULTS_DIR" 2>/dev/null)" ]
	ok $? "softdirty $bad: exit 2, one line, nothing written ($err)"
done

# A config that says CONFIG_MEM_SOFT_DIRTY is not set: every variant
# skipped with the reason before anything runs.
printf '# CONFIG_MEM_SOFT_DIRTY is not set\nCONFIG_PROC_PAGE_MONITOR=y\n' >"$scratch/config-off"
MMT_KERNEL_CONFIG="$scratch/config-off"
export MMT_KERNEL_CONFIG
run softdirty --output "$scratch/off.json"
unset MMT_KERNEL_CONFIG
n=$(runs "$scratch/off.json" | wc -l)
[ "$rc" -eq 77 ] && "$MMT_VALIDATE" "$scratch/off.json" && [ "$n" -eq "$(variants_of softdirty all | wc -l)" ] &&
	[ "$(runs "$scratch/off.json" | awk '$4 != "skipped"' | wc -l)" -eq 0 ] &&
	all_reasons "$scratch/off.json" "needs CONFIG_MEM_SOFT_DIRTY"
ok $? "a config without CONFIG_MEM_SOFT_DIRTY: all $n variants skipped with the reason, exit 77, valid results ($(get "$scratch/off.json" runs.0.reason))"

# This kernel's own config, where it says the same (this host: 6.18,
# "# CONFIG_MEM_SOFT_DIRTY is not set").
run softdirty --variant clear-refs --output "$scratch/own.json"
if [ "$(get "$scratch/own.json" runs.0.status)" = skipped ]; then
	[ "$rc" -eq 77 ] && get "$scratch/own.json" runs.0.reason | grep -q "CONFIG_MEM_SOFT_DIRTY" &&
		printf '%s' "$out" | grep -q "softdirty clear-refs .*needs CONFIG_MEM_SOFT_DIRTY"
	ok $? "this kernel's config has no soft-dirty: skipped, exit 77, the reason in the table ($(get "$scratch/own.json" runs.0.reason))"
else
	skip "this kernel's config does not rule soft-dirty out ($(get "$scratch/own.json" runs.0.status))"
fi

# A config that claims it (or none that can be read): the run-time probe
# decides whether soft-dirty works, and what follows depends on it.
printf 'CONFIG_MEM_SOFT_DIRTY=y\n' >"$scratch/config-on"
MMT_KERNEL_CONFIG="$scratch/config-on"
export MMT_KERNEL_CONFIG
run softdirty --duration 100ms --output "$scratch/probe.json"
unset MMT_KERNEL_CONFIG
works=$(get "$scratch/probe.json" runs.0.metrics.soft_dirty)
if [ "$(get "$scratch/probe.json" runs.0.status)" = skipped ]; then
	[ "$rc" -eq 77 ] && "$MMT_VALIDATE" "$scratch/probe.json" &&
		[ "$(runs "$scratch/probe.json" | wc -l)" -eq "$n" ] &&
		[ "$(runs "$scratch/probe.json" | awk '$4 != "skipped"' | wc -l)" -eq 0 ] &&
		all_reasons "$scratch/probe.json" "soft-dirty does not work here: .*CONFIG_MEM_SOFT_DIRTY" &&
		printf '%s' "$out" | grep -q "softdirty clear-refs .*soft-dirty does not work here"
	ok $? "a config that claims soft-dirty on a kernel without it: the probe in prepare says so, every variant skipped with the reason (in the table too), exit 77 ($(get "$scratch/probe.json" runs.0.reason))"
	skip "soft-dirty does not work on this kernel: the race checks need one that has it (a guest of scripts/mutant-kernel's)"
	done_testing
	exit
fi
ok 0 "soft-dirty works on this kernel (the probe: a page read in, cleared, reads clean, then dirty once stored to)"
# The probe's word stands; a config that cannot be read (or one another
# kernel left in /boot) is no reason to skip from here on.
MMT_KERNEL_CONFIG="$scratch/config-on"
export MMT_KERNEL_CONFIG

# On a mutant kernel with clear_refs_flush on, clear-refs must find the
# bug: that is tests/mutant.sh's to prove, not this test's.
sw=/sys/module/mmt_mutant/parameters/clear_refs_flush
mutant_on=0
case $(cat "$sw" 2>/dev/null) in Y | 1) mutant_on=1 ;; esac

f="$scratch/race.json"
run softdirty --variant clear-refs,clear-refs-reprotect --duration 2s --output "$f"
printf '%s\n' "$out" | sed 's/^/# /'
for i in 0 1; do
	v=$(get "$f" runs.$i.variant)
	status=$(get "$f" runs.$i.status)
	raced=$(get "$f" runs.$i.metrics.clears_raced)
	if [ "$mutant_on" -eq 1 ] && [ "$v" = clear-refs ]; then
		skip "clear-refs on a mutant kernel with clear_refs_flush on: tests/mutant.sh's"
		continue
	fi
	if [ "$status" = invalid ]; then
		skip "$v was stalled past its bound ($(get "$f" runs.$i.reason)): nothing to judge"
		continue
	fi
	[ "$(get "$f" runs.$i.metrics.untracked_writes)" -eq 0 ] && [ "$(get "$f" runs.$i.witnesses.count)" -eq 0 ] &&
		[ "$(get "$f" runs.$i.metrics.pages_checked)" -gt 0 ] &&
		{ { [ "$status" = ok ] && [ "$raced" -gt 0 ]; } ||
			{ [ "$status" = inconclusive ] && [ "$raced" -eq 0 ] &&
				get "$f" runs.$i.reason | grep -q "no writer on another CPU"; } ||
			{ [ "$status" = inconclusive ] &&
				get "$f" runs.$i.reason | grep -q "gave up waiting\|waited more than"; }; }
	ok $? "$v: no untracked write on this kernel, status $status agreeing with $raced raced clears of $(get "$f" runs.$i.metrics.clears) ($(get "$f" runs.$i.reason))"
	row=$(printf '%s\n' "$out" | grep "^softdirty  *$v ")
	case $status in ok) words="raced: tracked;" ;; *) words="no clear raced;" ;; esac
	printf '%s' "$row" | grep -q "$words"
	ok $? "$v: the table's row says '$words' for a $status run"
done
[ "$(get "$f" runs.1.metrics.reprotects)" -eq "$(get "$f" runs.1.metrics.clears)" ] &&
	[ "$(get "$f" runs.1.metrics.error)" = null ]
ok $? "clear-refs-reprotect: one mprotect pair per clear ($(get "$f" runs.1.metrics.reprotects)), none failed"
# A bounded wait that gave up (a loaded guest) is no failure, but the run
# must then be INCONCLUSIVE saying what it waited for.
if [ "$(get "$f" runs.0.metrics.wait_timeouts)" -eq 0 ] && [ "$(get "$f" runs.0.metrics.writers_stuck)" -eq 0 ]; then
	[ "$(get "$f" runs.0.status)" != inconclusive ] || ! get "$f" runs.0.reason | grep -q "gave up waiting\|waited more than"
	ok $? "clear-refs: no wait gave up, and the verdict names none"
else
	[ "$(get "$f" runs.0.status)" = inconclusive ] && get "$f" runs.0.reason | grep -q "gave up waiting\|waited more than"
	ok $? "clear-refs: a wait gave up on this machine, and the run is INCONCLUSIVE naming it ($(get "$f" runs.0.reason))"
fi

# The injected fault, exactly: every store after a clear made through the
# second mapping is one untracked_write, nothing else.
for i in 1 2 3; do
	f="$scratch/inject-$i.json"
	run softdirty --variant broken-untracked --iterations 50 --output "$f"
	injected=$(get "$f" runs.0.metrics.injected_untracked_stores)
	untracked=$(get "$f" runs.0.witnesses.histogram.untracked_write)
	[ "$rc" -eq 0 ] && [ "$(get "$f" runs.0.verdict)" = "caught (injected fault)" ] && [ "$injected" -gt 0 ] &&
		[ "$untracked" -eq "$injected" ] && [ "$(get "$f" runs.0.witnesses.count)" -eq "$untracked" ] &&
		[ "$injected" -eq $((50 * $(get "$f" runs.0.metrics.pages) * $(get "$f" runs.0.metrics.writers))) ]
	ok $? "broken-untracked run $i: each of the $injected stores through the second mapping reported untracked ($untracked), nothing else"
done
get "$scratch/inject-1.json" runs.0.metrics.first_untracked |
	grep -q '"kind":"untracked","page":0,"writer":0,"iteration":1,"stored":"0x01'
ok $? "an untracked write names page, writer, clear and the value stored"

# Without --duration: until the first untracked write or 64 clears raced
# (injection: 50 clears), the hunters' rule (harness/hunt.c).
f="$scratch/default.json"
run softdirty --variant clear-refs-reprotect,broken-untracked --output "$f"
raced=$(get "$f" runs.0.metrics.clears_raced)
if [ "$(get "$f" runs.0.metrics.ended_by)" = duration ] && [ "${raced:-0}" -lt 64 ]; then
	skip "clear-refs-reprotect without --duration: only $raced clears raced in the 2-minute bound here"
else
	[ "$(get "$f" runs.0.metrics.ended_by)" = "clears raced" ] && [ "$raced" -ge 64 ] &&
		[ "$(get "$f" runs.0.status)" = ok ]
	ok $? "clear-refs-reprotect without --duration: ends at 64 clears raced, conclusive ($raced raced in $(get "$f" runs.0.elapsed_ns) ns)"
fi
[ "$(get "$f" runs.1.metrics.ended_by)" = clears ] && [ "$(get "$f" runs.1.metrics.clears)" -eq 50 ]
ok $? "broken-untracked without --duration: ends after 50 clears ($(get "$f" runs.1.metrics.clears))"

done_testing
