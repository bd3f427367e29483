# SPDX-License-Identifier: MIT
"""The kernel primitives a litmus thread may call: one row each.

args: one letter per argument: l an lvalue "*p" (the primitive gets p),
p a pointer, v a value, o a C11 memory order (memory_order_NAME, given as
LK_MO_NAME; orders[k] lists those the k-th order argument may be).  c: the C the generators emit, over the set P,
with {0}, {1}, ... the arguments rendered (pointers as uint64_t *).
The bindings themselves, per primitive set, are the LK_* macros in
scenarios/litmus-prims.h.  unsupported: set -> why that set cannot run it
(the variant is then not built, and --list / --test say why).
"""

SETS = ["kernel", "kernel-mfence", "urcu", "c11"]
SET_C = {"kernel": "LK_KERNEL", "kernel-mfence": "LK_KERNEL_MFENCE", "urcu": "LK_URCU", "c11": "LK_C11"}
# The sets' family in the ratio tables (struct mmt_variant's family), and
# the row each joins: TEST/kernel, TEST/urcu and TEST/c11 compare with each
# other; kernel-mfence, the same hand-rolled set with a fence instruction,
# in a row of its own.
SET_FAMILY = {"kernel": "MMT_FAMILY_HAND_ROLLED", "kernel-mfence": "MMT_FAMILY_HAND_ROLLED",
              "urcu": "MMT_FAMILY_LIBURCU", "c11": "MMT_FAMILY_C11"}
SET_COMPARES = {"kernel": "%s", "kernel-mfence": "%s (fence instruction)", "urcu": "%s", "c11": "%s"}
SET_DESC = {
    "kernel": "hand-rolled kernel-style",
    "kernel-mfence": "hand-rolled, smp_mb() as the fence instruction,",
    "urcu": "liburcu",
    "c11": "C11",
}


class Prim:
    def __init__(self, name, args, returns, c, needs=(), unsupported=None, orders=(), herd=()):
        self.name, self.args, self.returns, self.c = name, args, returns, c
        self.orders = list(orders)	# per "o" argument: the orders C11 allows there
        self.herd = list(herd) or [{} for _ in self.orders]	# per "o" argument: order C11 forbids -> what herd7 makes of it
        self.needs = set(needs)			# "rcu": threads register with RCU
        self.unsupported = unsupported or {}


def _table():
    t = {}

    def add(name, args, returns, c, **kw):
        t[name] = Prim(name, args, returns, c, **kw)

    add("READ_ONCE", "l", True, "LK_READ_ONCE(P, {0})")
    add("WRITE_ONCE", "lv", False, "LK_WRITE_ONCE(P, {0}, {1})")
    add("smp_load_acquire", "p", True, "LK_LOAD_ACQUIRE(P, {0})")
    add("smp_store_release", "pv", False, "LK_STORE_RELEASE(P, {0}, {1})")
    add("rcu_dereference", "l", True, "LK_RCU_DEREF(P, {0})")
    add("rcu_assign_pointer", "lv", False, "LK_RCU_ASSIGN(P, {0}, {1})")
    # Older kernels' names for the same orderings (aliases of bindings
    # proven above): lockless_dereference is rcu_dereference outside RCU;
    # smp_read_barrier_depends orders dependent loads, which smp_rmb does.
    add("lockless_dereference", "l", True, "LK_RCU_DEREF(P, {0})")
    add("smp_read_barrier_depends", "", False, "LK_RMB(P)")
    # linux-kernel.def: smp_store_mb(X,V) { __store{once}(X,V); __fence{mb}; }
    # (its first argument WRITE_ONCE's: smp_store_mb(*x, v))
    add("smp_store_mb", "lv", False, "LK_STORE_MB(P, {0}, {1})")
    for f in ("smp_mb", "smp_rmb", "smp_wmb"):
        add(f, "", False, "LK_%s(P)" % f[4:].upper())
    add("barrier", "", False, "barrier()")
    add("smp_mb__before_atomic", "", False, "LK_MB_BEFORE_ATOMIC(P)")
    add("smp_mb__after_atomic", "", False, "LK_MB_AFTER_ATOMIC(P)")
    add("smp_mb__after_spinlock", "", False, "LK_MB_AFTER_SPINLOCK(P)")
    add("smp_mb__after_unlock_lock", "", False, "LK_MB_AFTER_UNLOCK_LOCK(P)")
    add("smp_mb__after_srcu_read_unlock", "", False, "LK_MB_AFTER_SRCU_READ_UNLOCK(P)")
    add("spin_lock", "p", False, "LK_SPIN_LOCK(P, {0})")
    add("spin_unlock", "p", False, "LK_SPIN_UNLOCK(P, {0})")
    add("spin_trylock", "p", True, "LK_SPIN_TRYLOCK(P, {0})")
    add("spin_is_locked", "p", True, "LK_SPIN_IS_LOCKED(P, {0})")
    add("rcu_read_lock", "", False, "LK_RCU_READ_LOCK(P)", needs=["rcu"])
    add("rcu_read_unlock", "", False, "LK_RCU_READ_UNLOCK(P)", needs=["rcu"])
    add("synchronize_rcu", "", False, "LK_SYNCHRONIZE_RCU(P)", needs=["rcu"])
    # SRCU: the engine's own in every set (liburcu has none), counters in
    # the srcu_struct location's line (litmus-prims.h).  The index that
    # srcu_read_lock returns is 0: its readers are counted per thread.
    add("srcu_read_lock", "p", True, "LK_SRCU_READ_LOCK(P, {0})")
    add("srcu_read_unlock", "pv", False, "LK_SRCU_READ_UNLOCK(P, {0}, {1})")
    add("synchronize_srcu", "p", False, "LK_SYNCHRONIZE_SRCU(P, {0})")
    # a read section that may end on another thread: the index names the
    # thread whose count the section went into
    add("srcu_down_read", "p", True, "LK_SRCU_DOWN_READ(P, {0})")
    add("srcu_up_read", "pv", False, "LK_SRCU_UP_READ(P, {0}, {1})")
    add("atomic_read", "p", True, "LK_READ_ONCE(P, {0})")
    add("atomic_read_acquire", "p", True, "LK_LOAD_ACQUIRE(P, {0})")
    add("atomic_set", "pv", False, "LK_WRITE_ONCE(P, {0}, {1})")
    add("atomic_set_release", "pv", False, "LK_STORE_RELEASE(P, {0}, {1})")
    add("atomic_add_unless", "pvv", True, "LK_ADD_UNLESS(P, {0}, {1}, {2})")
    add("atomic_inc_not_zero", "p", True, "LK_ADD_UNLESS(P, {0}, 1, 0)")

    # Ordering suffixes: "" is fully ordered for value-returning RMWs; an
    # RMW that returns nothing (atomic_inc) is unordered in the LKMM.
    # The kernel's argument orders: atomic_add(i, v) but atomic_inc(v).
    orders = {"": "LK_O_FULL", "_relaxed": "LK_O_RELAXED", "_acquire": "LK_O_ACQUIRE", "_release": "LK_O_RELEASE"}
    ops = {"add": ("vp", "{1}", "{0}"), "sub": ("vp", "{1}", "-{0}"), "inc": ("p", "{0}", "1"), "dec": ("p", "{0}", "-1")}
    for op, (args, ptr, delta) in ops.items():
        add("atomic_%s" % op, args, False, "(void)LK_RMW_ADD(P, LK_O_NONE, %s, %s)" % (ptr, delta))
        for sfx, o in orders.items():
            add("atomic_%s_return%s" % (op, sfx), args, True,
                "(LK_RMW_ADD(P, %s, %s, %s) + (%s))" % (o, ptr, delta, delta))
            add("atomic_fetch_%s%s" % (op, sfx), args, True, "LK_RMW_ADD(P, %s, %s, %s)" % (o, ptr, delta))
    # the fully ordered decrement, then whether it reached 0
    add("atomic_dec_and_test", "p", True, "(LK_RMW_ADD(P, LK_O_FULL, {0}, -1) == 1)")
    add("atomic_inc_and_test", "p", True, "(LK_RMW_ADD(P, LK_O_FULL, {0}, 1) == (uint64_t)-1)")
    add("atomic_sub_and_test", "vp", True, "(LK_RMW_ADD(P, LK_O_FULL, {1}, -({0})) == (uint64_t)({0}))")
    for sfx, o in orders.items():
        for pre in ("", "atomic_"):
            add("%sxchg%s" % (pre, sfx), "pv", True, "LK_RMW_XCHG(P, %s, {0}, {1})" % o)
            add("%scmpxchg%s" % (pre, sfx), "pvv", True, "LK_RMW_CMPXCHG(P, %s, {0}, {1}, {2})" % o)
    c11(add, t)
    return t


# herd7's C11 dialect (its CLexer/CParser and libdir/c11.def): the
# operation without _explicit is the one with memory_order_seq_cst.
ORDERS = ["relaxed", "consume", "acquire", "release", "acq_rel", "seq_cst"]
LOAD_ORDERS = ["relaxed", "consume", "acquire", "seq_cst"]	# C11 7.17.7.2
STORE_ORDERS = ["relaxed", "release", "seq_cst"]		# C11 7.17.7.1
FAIL_ORDERS = LOAD_ORDERS					# C11 7.17.7.4: no release, no acq_rel
# The orders C11 forbids there that herd7 reads all the same (its CParser
# takes any memory_order_* for any operation; the event only carries the
# annotation), each as the order its C11 models make of it: in c11_base.cat
# and rc11.cat a synchronizes-with edge begins at a release *write* (or a
# fence before one) and ends at an acquire *read* (or a fence after one),
# so a release or consume mark on a load, or an acquire or consume mark on
# a store, orders nothing: the access is relaxed.  acq_rel is in both
# REL and ACQ: on a load it is acquire, on a store release.
LOAD_HERD = {"release": "relaxed", "acq_rel": "acquire"}
STORE_HERD = {"consume": "relaxed", "acquire": "relaxed", "acq_rel": "release"}
FAIL_HERD = LOAD_HERD						# a failed compare_exchange is a load


# Names both dialects have with other arguments: the kernel's
# atomic_fetch_add(i, v) and C11's atomic_fetch_add(obj, v).  The parser
# picks by the arguments (parser.py, Parser.call).
C11_OVERLOADS = {}
# compare_exchange's: its expected pointer may also be '&REG', a register
# of the thread (ExpctReg of the c4 project's herdtools7 fork)
CAS_EXPECTED = set()


def c11(add_kernel, kernel):
    def add(name, *a, **kw):
        if name in kernel:
            C11_OVERLOADS[name] = Prim(name, *a, **kw)
        else:
            add_kernel(name, *a, **kw)
    sc = "LK_MO_SEQ_CST"
    add("atomic_load_explicit", "po", True, "LK_C11_LOAD(P, {1}, {0})", orders=[LOAD_ORDERS], herd=[LOAD_HERD])
    add("atomic_load", "p", True, "LK_C11_LOAD(P, %s, {0})" % sc)
    add("atomic_store_explicit", "pvo", False, "LK_C11_STORE(P, {2}, {0}, {1})", orders=[STORE_ORDERS], herd=[STORE_HERD])
    add("atomic_store", "pv", False, "LK_C11_STORE(P, %s, {0}, {1})" % sc)
    add("atomic_exchange_explicit", "pvo", True, "LK_C11_XCHG(P, {2}, {0}, {1})", orders=[ORDERS])
    add("atomic_exchange", "pv", True, "LK_C11_XCHG(P, %s, {0}, {1})" % sc)
    for op in ("add", "sub", "or", "and", "xor"):
        add("atomic_fetch_%s_explicit" % op, "pvo", True, "LK_C11_FETCH(P, {2}, %s, {0}, {1})" % op,
            orders=[ORDERS])
        add("atomic_fetch_%s" % op, "pv", True, "LK_C11_FETCH(P, %s, %s, {0}, {1})" % (sc, op))
    # (object, expected, desired): 1 and the store if *object == *expected,
    # else 0 and *expected = *object.  weak is bound as strong: a spurious
    # failure is a permission C11 gives, never an obligation.
    for kind in ("strong", "weak"):
        add("atomic_compare_exchange_%s_explicit" % kind, "ppvoo", True, "LK_C11_CAS(P, {3}, {4}, {0}, {1}, {2})",
            orders=[ORDERS, FAIL_ORDERS], herd=[{}, FAIL_HERD])
        add("atomic_compare_exchange_%s" % kind, "ppv", True, "LK_C11_CAS(P, %s, %s, {0}, {1}, {2})" % (sc, sc))
    CAS_EXPECTED.update(n for n in kernel if n.startswith("atomic_compare_exchange_"))
    add("atomic_thread_fence", "o", False, "LK_C11_FENCE(P, {0})", orders=[ORDERS])


PRIMS = _table()

# Named so that a test using them is rejected with a reason, not "unknown".
KNOWN_UNSUPPORTED = {
    "call_rcu": "call_rcu needs a callback, which a litmus thread cannot express here",
    "spin_lock_irqsave": "interrupt-disabling locks have no user-space meaning",
}
