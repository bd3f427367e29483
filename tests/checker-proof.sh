#!/bin/sh
# The witness counter is only trusted because a broken variant trips it:
# the injected publish-before-payload fault must be caught on every run,
# its mismatches must decode to an older message, and a witness counted as
# forbidden must make the exit status 1.
. "${MMT_SRCDIR:-.}/tests/lib.sh"

if [ "$ncpus" -lt 2 ]; then
	skip "needs 2 CPUs, this machine has $ncpus"
	done_testing
	exit
fi

for i in 1 2 3; do
	run msgpass --variant broken-publish-first --iterations 20000 --output "$scratch/b$i.json"
	line=$(runs "$scratch/b$i.json")
	set -- $line
	[ "$rc" -eq 0 ] && [ "$4" = ok ] && [ "$5" -gt 0 ]
	ok $? "run $i: injected reordering caught ($line)"
done
grep -q '"verdict": "caught (injected fault)"' "$scratch/b1.json"
ok $? "verdict says caught"
grep -q '"found_message": [0-9]' "$scratch/b1.json" && grep -q '"stale": [1-9]' "$scratch/b1.json"
ok $? "mismatches decode to an older message and count as stale"

run msgpass --variant broken-publish-first --iterations 20000 --assume-forbidden --output "$scratch/f.json"
line=$(runs "$scratch/f.json")
set -- $line
[ "$rc" -eq 1 ] && [ "$4" = witnessed ] && printf '%s' "$out" | grep -q 'FORBIDDEN AND SEEN'
ok $? "a forbidden witness exits 1 with FORBIDDEN AND SEEN ($line, rc $rc)"
"$MMT_VALIDATE" "$scratch/f.json"
ok $? "results are still written and valid after a forbidden witness"

run msgpass --variant mb --iterations 20000 --assume-forbidden --output "$scratch/g.json"
[ "$rc" -eq 0 ]
ok $? "a correct variant under --assume-forbidden still exits 0"

done_testing
