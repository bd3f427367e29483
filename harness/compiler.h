/* SPDX-License-Identifier: MIT */
/*
 * Compiler-level helpers shared by the harness and every scenario.
 *
 * READ_ONCE/WRITE_ONCE follow the kernel: a volatile access of a naturally
 * aligned machine word, so the compiler emits exactly one load or store and
 * never fuses, tears or hoists it.  They order nothing against other
 * accesses; that is what the barriers in arch/barrier.h are for.
 */
#ifndef MMT_COMPILER_H
#define MMT_COMPILER_H

#include <stddef.h>
#include <stdint.h>

#define MMT_CACHELINE 64
/* Two lines: adjacent-line prefetchers pull pairs, so padding to one line
 * still lets neighbouring hot data share traffic on x86. */
#define MMT_PAD_BYTES 128
#define __mmt_aligned __attribute__((aligned(MMT_PAD_BYTES)))

#define barrier() __asm__ __volatile__("" ::: "memory")

#define READ_ONCE(x) (*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define MMT_UNUSED __attribute__((unused))

#endif
