/* SPDX-License-Identifier: MIT */
/*
 * The hand-rolled primitives move values intact for every size and type
 * they accept.  tests/arch-cross.sh compiles this same file for aarch64 and
 * checks the instructions it became.
 */
#include "arch/barrier.h"
#include "tap.h"

struct sample {
	uint64_t u64;
	uint32_t u32;
	int32_t s32;
	void *ptr;
};

/* noinline: each primitive must stand as real instructions for the
 * cross-compiled disassembly check, not be folded into main. */
__attribute__((noinline)) void exercise(struct sample *s, struct sample *out)
{
	smp_store_release(&s->u64, 0x0123456789abcdefull);
	smp_store_release(&s->u32, 0xdeadbeefu);
	smp_store_release(&s->s32, -5);
	smp_store_release(&s->ptr, (void *)s);
	smp_mb();
	smp_rmb();
	smp_wmb();
	smp_mb_fence();
	cpu_relax();
	out->u64 = smp_load_acquire(&s->u64);
	out->u32 = smp_load_acquire(&s->u32);
	out->s32 = smp_load_acquire(&s->s32);
	out->ptr = smp_load_acquire(&s->ptr);
}

#ifndef MMT_CROSS_ONLY
int main(void)
{
	struct sample s = { 0 }, out = { 0 };
	uint64_t c0, c1;

	exercise(&s, &out);
	tap_ok(out.u64 == 0x0123456789abcdefull, "64-bit release/acquire round trip");
	tap_ok(out.u32 == 0xdeadbeefu, "32-bit release/acquire round trip");
	tap_ok(out.s32 == -5, "signed 32-bit keeps its sign");
	tap_ok(out.ptr == &s, "pointer release/acquire round trip");
	c0 = mmt_cycles();
	for (volatile int i = 0; i < 100000; i++)
		;
	c1 = mmt_cycles();
	tap_ok(c1 > c0, "cycle counter advances");
	tap_ok(strcmp(MMT_ARCH_NAME, "") != 0, "architecture named: %s", MMT_ARCH_NAME);
	return tap_done();
}
#endif
