/* SPDX-License-Identifier: MIT */
/*
 * Whether this machine keeps a CPU's TLB entry for one user address while
 * the kernel flushes another: the premise of every stale-TLB hunter whose
 * reader holds an entry across someone else's flush (mremap, pmdshare).
 * x86 with page-table isolation (PTI) and no INVPCID turns a flush of one
 * user address into a flush of the whole user address space
 * (invalidate_user_asid(): the next return to user space reloads CR3), and
 * without PCID every return to user space flushes: there the entry a
 * missing flush leaves is gone at the next interrupt, and such a hunter
 * cannot see the bug it hunts, whatever the kernel.
 */
#ifndef MMT_USER_TLB_H
#define MMT_USER_TLB_H

/* NULL when user TLB entries survive a flush of other addresses (no PTI,
 * PTI with INVPCID, not x86); else why not, in words (Xen PV: not known,
 * so not kept). */
const char *mmt_user_tlb_blind(void);

/* "kept", or the reason of mmt_user_tlb_blind(): the record's words. */
const char *mmt_user_tlb_words(void);

#endif
