/* SPDX-License-Identifier: MIT */
/*
 * Hand-rolled, kernel-style barriers: one header per architecture, chosen
 * at compile time, in the manner of the kernel's asm/barrier.h and
 * liburcu's urcu/arch/ headers.  Every header defines:
 *
 *   smp_mb()                 full barrier (store->load ordering included)
 *   smp_rmb() / smp_wmb()    load->load / store->store ordering
 *   smp_store_release(p, v)  store with release semantics
 *   smp_load_acquire(p)      load with acquire semantics
 *   cpu_relax()              spin-wait hint (also a compiler barrier)
 *   mmt_cycles()             cheap per-CPU cycle/timer counter
 *   mmt_cycles_unordered()   the same, free to be read while earlier loads
 *                            are still in flight (a start-time wait)
 *   MMT_ARCH_NAME            "x86_64", "aarch64", ...
 *
 * A second full barrier, smp_mb_fence(), is the architecture's dedicated
 * fence instruction where it differs from smp_mb() (mfence on x86), so the
 * two can be measured against each other.
 */
#ifndef MMT_ARCH_BARRIER_H
#define MMT_ARCH_BARRIER_H

#include "compiler.h"

#if defined(__x86_64__)
#include "arch/barrier-x86_64.h"
#elif defined(__aarch64__)
#include "arch/barrier-aarch64.h"
#else
#include "arch/barrier-generic.h"
#endif

#endif
