#!/bin/sh
# A witness counter is trusted only once a broken variant has tripped it.
# Every injected fault of every scenario must be caught on each of three
# runs; the ring's lost items must be counted exactly; the reports must say
# what was found; and a witness counted as forbidden must exit 1.
. "${MMT_SRCDIR:-.}/tests/lib.sh"

need_cpus 2 "the checker proof"

for sc in $(scenarios); do
	# How long: where the two sides go in lockstep (msgpass waits for each
	# acknowledgement, the ring for room or items) a count of operations,
	# every one of which both sides take part in: beside stress-ng --cpu 4
	# a 100 ms msgpass run once saw no message race.  The seqcount reader
	# runs free of its writer: a time.  mmrace's faults need the writers
	# running while the protector is in its window: beside stress-ng
	# --cpu 4 a 300 ms run of broken-early-epoch once caught nothing (1 of
	# 15 seen); 1 s caught 6 of 6.  softdirty's clears go in lockstep with
	# its writers: a count of clears (skipped where soft-dirty is not).
	case $sc in
	msgpass) how="--iterations 20000" ;;
	ring) how="--iterations 1M" ;;
	mmrace) how="--duration 1s --walk-pages 4096" ;;
	softdirty) how="--iterations 50" ;;
	madvise | mremap | pmdshare | numascan) how="--iterations 20" ;;
	*) how="--duration 300ms" ;;
	esac
	for v in $(variants_of "$sc" injected); do
		for i in 1 2 3; do
			f="$scratch/$sc-$v-$i.json"
			# shellcheck disable=SC2086
			run "$sc" --variant "$v" $how --output "$f"
			line=$(runs "$f")
			set -- $line
			if [ "$4" = skipped ]; then
				skip "$sc $v run $i: skipped here ($(get "$f" runs.0.reason))"
				continue
			fi
			[ "$rc" -eq 0 ] && [ "$4" = ok ] && [ "$5" -gt 0 ] &&
				[ "$(get "$f" runs.0.verdict)" = "caught (injected fault)" ]
			ok $? "$sc $v run $i: caught ($line)"
		done
	done
done

f="$scratch/msgpass-broken-publish-first-1.json"
[ "$(get "$f" runs.0.witnesses.histogram.stale)" -gt 0 ] &&
	get "$f" runs.0.metrics.first_mismatches.0.found_message | grep -q '^[0-9]'
ok $? "msgpass: mismatches decode to the older message they came from"

run ring --variant broken-drop --iterations 100000 --output "$scratch/drop.json"
dropped=$(get "$scratch/drop.json" runs.0.metrics.dropped)
gaps=$(get "$scratch/drop.json" runs.0.witnesses.histogram.gap)
[ "$dropped" -eq 97 ] && [ "$gaps" -eq "$dropped" ] &&
	[ "$(get "$scratch/drop.json" runs.0.witnesses.count)" -eq "$dropped" ]
ok $? "ring: each of the $dropped lost items is exactly one gap ($gaps), nothing else"

f="$scratch/seqcount-broken-early-recheck-1.json"
get "$f" runs.0.metrics.first_torn.word0 | grep -q '^0x'
ok $? "seqcount: the first torn snapshot is reported"

run msgpass --variant broken-publish-first --iterations 20000 --assume-forbidden --output "$scratch/f.json"
line=$(runs "$scratch/f.json")
set -- $line
[ "$rc" -eq 1 ] && [ "$4" = witnessed ] && printf '%s' "$out" | grep -q 'FORBIDDEN AND SEEN'
ok $? "a forbidden witness exits 1 with FORBIDDEN AND SEEN ($line, rc $rc)"
"$MMT_VALIDATE" "$scratch/f.json" && [ "$(get "$scratch/f.json" summary.exit_code)" -eq 1 ]
ok $? "results are still written, valid, and record exit code 1"

run msgpass --variant mb --iterations 20000 --assume-forbidden --output "$scratch/g.json"
[ "$rc" -eq 0 ]
ok $? "a correct variant under --assume-forbidden still exits 0"

done_testing
