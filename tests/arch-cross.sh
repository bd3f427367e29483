#!/bin/sh
# The aarch64 barriers compile with a cross compiler and become the
# instructions the kernel uses (dmb ish/ishld/ishst, stlr, ldar).  Skipped
# where no aarch64 cross compiler is installed (gcc-aarch64-linux-gnu).
. "${MMT_SRCDIR:-.}/tests/lib.sh"

cc=aarch64-linux-gnu-gcc
if ! command -v $cc >/dev/null 2>&1 || ! command -v aarch64-linux-gnu-objdump >/dev/null 2>&1; then
	skip "no $cc (install gcc-aarch64-linux-gnu)"
	done_testing
	exit
fi
$cc -O2 -Wall -Wextra -Werror -DMMT_CROSS_ONLY -I"$MMT_SRCDIR/harness" -I"$MMT_SRCDIR/tests" \
	-c "$MMT_SRCDIR/tests/unit-barriers.c" -o "$scratch/b.o" 2>"$scratch/cc.err"
ok $? "aarch64 barriers compile without warnings ($(head -c 300 "$scratch/cc.err"))"
aarch64-linux-gnu-objdump -d "$scratch/b.o" >"$scratch/dis"
for insn in 'dmb[[:space:]]+ish$' 'dmb[[:space:]]+ishld' 'dmb[[:space:]]+ishst' 'dsb[[:space:]]+ish' \
	'stlr[[:space:]]+x' 'stlr[[:space:]]+w' 'ldar[[:space:]]+x' 'ldar[[:space:]]+w' 'yield'; do
	grep -Eq "$insn" "$scratch/dis"
	ok $? "aarch64 code has $insn"
done
done_testing
