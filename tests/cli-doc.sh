#!/bin/sh
# One table per list: --help, the manual and the README's option and
# exit-code tables are printed from the rows the binary parses with
# (harness/cli-options.c, harness/exit-codes.c), and none has drifted.
. "${MMT_SRCDIR:-.}/tests/lib.sh"

doc="$MMT_BUILDDIR/cli-doc"
readme="$MMT_SRCDIR/README.md"
tables="$MMT_SRCDIR/scripts/readme-tables"

"$MMT_PYTHON3" "$tables" --check "$readme" "$doc"
ok $? "README's generated tables are the binary's rows (else: make readme)"

# The check can fail: a README with a row changed is caught, and make
# readme's rewrite puts it back.
cp "$readme" "$scratch/README.md"
sed -i 's/^| `--repeat N` | runs per variant/| `--repeat N` | runs for each variant/' "$scratch/README.md"
! cmp -s "$readme" "$scratch/README.md" &&
	! "$MMT_PYTHON3" "$tables" --check "$scratch/README.md" "$doc" 2>"$scratch/err" &&
	grep -q "make readme" "$scratch/err"
ok $? "a drifted row is caught: $(cat "$scratch/err")"
"$MMT_PYTHON3" "$tables" "$scratch/README.md" "$doc" && cmp -s "$readme" "$scratch/README.md"
ok $? "readme-tables writes the rows back in"

# Every option --help shows is one the parser takes, and every option the
# README's table names is in --help.
run --help
printf '%s\n' "$out" | sed -n 's/^  \(--[a-z-]*\).*/\1/p' | sort -u >"$scratch/help-opts"
sed -n '/generated: options/,/end generated/s/^| `\(--[A-Za-z-]*\).*/\1/p' "$readme" |
	grep -v -- '--NAME' | sort -u >"$scratch/readme-opts"
cmp -s "$scratch/help-opts" "$scratch/readme-opts"
ok $? "--help and README list the same $(wc -l <"$scratch/help-opts") options"
for code in 0 1 2 3 77 128+N; do
	printf '%s\n' "$out" | grep -q "^  $code  "
	ok $? "--help names exit code $code"
done

done_testing
