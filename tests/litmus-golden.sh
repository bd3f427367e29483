#!/bin/sh
# The front end's translations held to what they were: for a sample of the
# shipped tests (one per primitive family and the grammar's), the C that
# scenarios/litmus/litmus2c writes is compared with the saved copy in
# tests/fixtures/litmus-golden/ (as herdtools7 keeps .expected files; a
# NAME.litmus there is an input of the suite's own, for forms no shipped
# test has), so
# a parser or generator change that alters a translation shows as a diff
# the day it is made.  A deliberate change regenerates them:
#   MMT_GOLDEN_UPDATE=1 make check TESTS=tests/litmus-golden.sh
. "${MMT_SRCDIR:-.}/tests/lib.sh"
py=${MMT_PYTHON3:-python3}
gen="$MMT_SRCDIR/scenarios/litmus/litmus2c"
golden="$MMT_SRCDIR/tests/fixtures/litmus-golden"

for f in "$golden"/*.h; do
	name=$(basename "$f" .h)
	src="$MMT_SRCDIR/scenarios/litmus/$name.litmus"
	[ -e "$golden/$name.litmus" ] && src="$golden/$name.litmus"
	"$py" "$gen" --strict -o "$scratch/$name.h" "$src" 2>"$scratch/err"
	if [ "${MMT_GOLDEN_UPDATE:-}" = 1 ]; then
		cp "$scratch/$name.h" "$f"
	fi
	diff -u "$f" "$scratch/$name.h" >"$scratch/diff" 2>&1
	rc=$?
	sed 's/^/# /' "$scratch/diff" | head -n 20
	ok $rc "$name: the translation is the saved one ($(wc -l <"$scratch/diff") lines of diff)"
done

# ... and the comparison can fail: SB with its first store's value changed.
sed 's/WRITE_ONCE(\*x, 1)/WRITE_ONCE(*x, 2)/' "$MMT_SRCDIR/scenarios/litmus/SB.litmus" >"$scratch/SB.litmus"
"$py" "$gen" --strict -o "$scratch/changed.h" "$scratch/SB.litmus" 2>/dev/null
! diff -q "$golden/SB.h" "$scratch/changed.h" >/dev/null &&
	diff "$golden/SB.h" "$scratch/changed.h" | grep -q 'INT64_C(2)'
ok $? "a changed translation is seen (SB with x=2: $(diff "$golden/SB.h" "$scratch/changed.h" | grep -c '^>') lines differ)"

done_testing
