# SPDX-License-Identifier: MIT
"""Stage 4: the intermediate form to C, one generator run per primitive set.

For test N, thread k and set S it emits a body macro LK_TN_Pk_S, with the
set a compile-time constant, and instantiates it in a batch loop with
LK_THREAD_FN() (scenarios/litmus.c).  A set that cannot run one of the
test's primitives gets no function and no variant; the reason is kept for
--list and --test.  Registers are locals (lkr_NAME, so no register can
collide with C or with the macros); only those an outcome names are
stored, per iteration, for counting after the batch.

An execution herd7 would not count (a loop that needs more than
ir.UNROLL iterations: herd7's TooFar; an array index out of bounds, known
only as the thread runs) is cut, not stopped: the thread sets its flag
lkx_cut and goes on (stopping could leave a lock held that another thread
of the iteration waits for).  The flag is stored as one more register of
the thread and read by the outcome as a key past the test's own (nkeys):
not shown, not compared, and the test's filter function drops an outcome
with any flag set, so the iteration is counted as filtered out, as
herd7's filter clause drops its executions.  The racing loop itself gains
one compare per loop iteration or run-time index.
"""

from . import ir
from .diag import LitmusError
from .prims import SETS, SET_C, SET_DESC, SET_FAMILY, SET_COMPARES

ADDR_TAG = -1000	# LK_ADDR_TAG: values at or below it stand for addresses


def c_string(s):
    out = []
    for ch in s:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "?":
            out.append("\\?")	# no trigraphs
        elif 32 <= ord(ch) < 127:
            out.append(ch)
        else:
            out.append("\\%03o" % ord(ch))
    return '"' + "".join(out) + '"'


def c_int(v):
    return "(-INT64_C(%d))" % -v if v < 0 else "INT64_C(%d)" % v


class Gen:
    """C for one test; raises LitmusError for what no set can compile."""

    def __init__(self, test, tid):
        self.t, self.id = test, tid
        self.loc_ix = {name: i for i, name in enumerate(test.locs)}
        self.slots = {}	# (thread, reg) -> stored slot
        for key in test.keys:
            if key[0] == "reg":
                n = sum(1 for (th, _r) in self.slots if th == key[1])
                self.slots[(key[1], key[2])] = n
        # a thread's flag of a cut execution: the slot after its registers'
        self.cut_slot = {th.pid: sum(1 for (tid, _r) in self.slots if tid == th.pid)
                         for th in test.threads if th.cut}
        self.loops = 0	# loop counters of the thread being generated

    def base(self, name):
        """A location's index; an array's name is its element 0's."""
        return self.loc_ix[name + "[0]" if name in self.t.arrays else name]

    def fail(self, node, msg):
        line, col = node.pos
        raise LitmusError(self.t.path, line, col, msg)

    def check_value(self, node, v):
        if isinstance(v, int) and v <= ADDR_TAG:
            self.fail(node, "value %d: values at or below %d stand for addresses in this engine" % (v, ADDR_TAG))

    # ---- expressions ----------------------------------------------------------------------
    def val(self, e):
        if isinstance(e, ir.Num):
            self.check_value(e, e.value)
            return c_int(e.value)
        if isinstance(e, ir.Reg):
            return "lkr_" + e.name
        if isinstance(e, ir.Loc):
            return "((int64_t)(uintptr_t)LKV(%d))" % self.base(e.name)
        if isinstance(e, ir.Elem):
            return "((int64_t)(uintptr_t)%s)" % self.ptr(e)
        if isinstance(e, ir.Deref):
            return "((int64_t)LK_PLAIN_LOAD(P, %s))" % self.ptr(e.ptr)
        if isinstance(e, ir.Bin):
            return "((int64_t)(%s %s %s))" % (self.val(e.a), e.op, self.val(e.b))
        if isinstance(e, ir.Un):
            return "((int64_t)(%s%s))" % (e.op, self.val(e.a))
        if isinstance(e, ir.Call):
            if not e.prim.returns:
                self.fail(e, "%s() returns no value" % e.prim.name)
            return "((int64_t)(%s))" % self.call(e)
        raise AssertionError(e)

    def ptr(self, e):
        if isinstance(e, ir.Loc):
            return "LKV(%d)" % self.base(e.name)
        if isinstance(e, ir.Elem):
            if e.const is not None:
                return "LKV(%d)" % (self.loc_ix[e.first] + e.const)
            return "LK_ELEM(%d, %d, %s)" % (self.loc_ix[e.first], e.size, self.val(e.index))
        if isinstance(e, ir.RegAddr):
            return "((uint64_t *)&lkr_%s)" % e.name	# the register itself: int64_t, read and written as uint64_t
        return "LK_ADDR(%s)" % self.val(e)

    def call(self, e):
        args = []
        for kind, a in zip(e.prim.args, e.args):
            if kind == "l":
                args.append(self.ptr(a.ptr))
            elif kind == "p":
                args.append(self.ptr(a))
            elif kind == "o":
                args.append("LK_MO_" + a.name.upper())
            else:
                args.append("(uint64_t)%s" % self.val(a))
        return e.prim.c.format(*args)

    # ---- statements -----------------------------------------------------------------------
    def checks(self, e):
        """The bounds checks of e's run-time indexes, as C expressions that
        set the thread's flag: herd7 has no such element, so the execution
        is cut.  Branch-free, and kept out of the access itself (LK_ELEM),
        so that two indexes in one statement never set the flag unsequenced."""
        if isinstance(e, ir.Elem):
            own = [] if e.const is not None else \
                ["lkx_cut |= (uint64_t)%s >= %d" % (self.val(e.index), e.size)]
            return own + self.checks(e.index)
        if isinstance(e, ir.Deref):
            return self.checks(e.ptr)
        if isinstance(e, ir.Bin):
            return self.checks(e.a) + self.checks(e.b)
        if isinstance(e, ir.Un):
            return self.checks(e.a)
        if isinstance(e, ir.Call):
            return [c for a in e.args for c in self.checks(a)]
        return []

    def stmt_checks(self, s):
        if isinstance(s, ir.Assign):
            return self.checks(s.value)
        if isinstance(s, ir.Store):
            return self.checks(s.ptr) + self.checks(s.value)
        if isinstance(s, ir.Do):
            return self.checks(s.expr)
        if isinstance(s, ir.If):
            return self.checks(s.cond)
        return []	# a loop checks its condition's indexes before each test of it

    def stmts(self, body, ind):
        out = []
        for s in body:
            out.extend(ind + c + ";" for c in dict.fromkeys(self.stmt_checks(s)))
            if isinstance(s, ir.Assign):
                out.append(ind + "lkr_%s = %s;" % (s.reg, self.val(s.value)))
            elif isinstance(s, ir.Store):
                out.append(ind + "LK_PLAIN_STORE(P, %s, (uint64_t)%s);" % (self.ptr(s.ptr), self.val(s.value)))
            elif isinstance(s, ir.Do):
                c = self.call(s.expr)
                out.append(ind + ("(void)(%s);" % c if s.expr.prim.returns else c + ";"))
            elif isinstance(s, ir.While):
                out.extend(self.loop(s, ind))
            elif isinstance(s, ir.If):
                out.append(ind + "if (%s) {" % self.val(s.cond))
                out.extend(self.stmts(s.then, ind + "\t"))
                if s.orelse:
                    out.append(ind + "} else {")
                    out.extend(self.stmts(s.orelse, ind + "\t"))
                out.append(ind + "}")
            else:
                raise AssertionError(s)
        return out

    def loop(self, s, ind):
        """herd7's unrolled while: the condition tested before each
        iteration; holding once more after LK_UNROLL iterations, the
        execution is cut (herd7's TooFar) and the loop left."""
        k = self.loops
        self.loops += 1
        cond = self.val(s.cond)
        checks = list(dict.fromkeys(self.checks(s.cond)))
        if checks:
            cond = "(%s, %s)" % (", ".join(checks), cond)
        out = [ind + "for (unsigned lku%d = 0; %s; lku%d++) {" % (k, cond, k),
               ind + "\tif (lku%d == LK_UNROLL) {" % k,
               ind + "\t\tlkx_cut = 1;",
               ind + "\t\tbreak;",
               ind + "\t}"]
        out.extend(self.stmts(s.body, ind + "\t"))
        out.append(ind + "}")
        return out

    def init_c(self, v):
        if isinstance(v, tuple):
            return "((int64_t)(uintptr_t)LKV(%d))" % self.loc_ix[v[1]]
        return c_int(v)

    def thread_body(self, th, set_name):
        lines = []
        for r, v in th.regs.items():
            lines.append("\tint64_t lkr_%s = %s; (void)lkr_%s;" % (r, "0" if v is None else self.init_c(v), r))
        if th.cut:
            lines.append("\tint64_t lkx_cut = 0;")
        self.loops = 0
        lines.extend(self.stmts(th.body, "\t"))
        for (tid, r), slot in self.slots.items():
            if tid == th.pid:
                lines.append("\tLKO(%d) = lkr_%s;" % (slot, r))
        if th.cut:
            lines.append("\tLKO(%d) = lkx_cut;" % self.cut_slot[th.pid])
        name = "LK_T%d_P%d_%s" % (self.id, th.pid, SET_C[set_name])
        text = "\n".join(lines).replace("(P,", "(%s," % SET_C[set_name]).replace("(P)", "(%s)" % SET_C[set_name])
        return name, "#define %s do { \\\n%s \\\n} while (0)\n" % (name, " \\\n".join(text.split("\n")))

    # ---- conditions -----------------------------------------------------------------------
    def cond(self, c):
        if isinstance(c, ir.CAnd):
            return "(%s && %s)" % (self.cond(c.a), self.cond(c.b))
        if isinstance(c, ir.COr):
            return "(%s || %s)" % (self.cond(c.a), self.cond(c.b))
        if isinstance(c, ir.CNot):
            return "(!%s)" % self.cond(c.a)
        if isinstance(c, ir.CConst):
            return "true" if c.value else "false"
        if isinstance(c, ir.CEq):
            v = c.value
            if isinstance(v, tuple) and v[0] == "key":
                rhs = "k[%d]" % self.t.keys.index(v[1])
            elif isinstance(v, tuple):
                rhs = "LK_ADDR_OF(%d)" % self.loc_ix[v[1]]
            else:
                self.check_value(c, v)
                rhs = c_int(v)
            return "(k[%d] %s %s)" % (self.t.keys.index(c.key), "!=" if c.negate else "==", rhs)
        raise AssertionError(c)

    # ---- the whole test -------------------------------------------------------------------
    def emit(self):
        t, n = self.t, self.id
        why = {s: None for s in SETS}
        for name in sorted(t.prims):
            from .prims import PRIMS
            for s, reason in PRIMS[name].unsupported.items():
                why[s] = why[s] or "%s() on %s: %s" % (name, s, reason)
        for v in t.locs.values():
            if isinstance(v, int):
                self.check_value(t.threads[0], v)
        out = ["/* ---- test %d ---- */\n" % n]
        out.extend(self.cut_macros())
        fns = {}
        for th in t.threads:
            for s in SETS:
                if why[s]:
                    continue
                mac, text = self.thread_body(th, s)
                out.append(text)
                fn = "lk_t%d_p%d_%s" % (n, th.pid, SET_C[s].lower())
                out.append("LK_THREAD_FN(%s, %s)\n" % (fn, mac))
                fns[th.pid, s] = fn
        out.extend(self.outcome_fns())
        out.extend(self.descriptor(fns, why))
        self.why = why
        return "".join(out)

    def cut_macros(self):
        """What a test that may cut an execution needs (defined once, by
        the first such test of the header; other tests' text unchanged)."""
        t, out = self.t, []
        if any(has_loop(th.body) for th in t.threads):
            out.append("#ifndef LK_UNROLL\n/* herd7's default -unroll: a loop needing more iterations is cut */\n"
                       "#define LK_UNROLL %d\n#endif\n" % ir.UNROLL)
        if t.run_time_index:
            out.append("#ifndef LK_ELEM\n/* Element IDX of the array whose element 0 is location BASE, N elements (1: a scalar), "
                       "IDX known only as\n * the thread runs: out of bounds (the statement's check has cut the "
                       "execution), the\n * access goes to the thread's own line (LK_ADDR of an address no location "
                       "has), never to\n * another location. */\n#define LK_ELEM(BASE, N, IDX) ((uint64_t)(IDX) < (N) ? "
                       "LKV((BASE) + (size_t)(IDX)) : LK_ADDR(0))\n#endif\n")
        return out

    def outcome_fns(self):
        """exists, filter and observe: the keys of the condition, then the
        threads' flags of a cut execution, past nkeys; and the test's
        counting loop over them."""
        t, n = self.t, self.id
        out = []
        witness = self.cond(t.cond)
        if t.quant == "forall":
            witness = "(!%s)" % witness
        out.append("static bool lk_t%d_exists(const int64_t *k) { (void)k; return %s; }\n" % (n, witness))
        cuts = ["k[%d] == 0" % (len(t.keys) + j) for j in range(len(self.cut_slot))]
        if t.filter is not None:
            cuts.append(self.cond(t.filter))
        if cuts:
            out.append("static bool lk_t%d_filter(const int64_t *k) { (void)k; return %s; }\n" % (n, " && ".join(cuts)))
        # always_inline: identical observes of several tests would otherwise be
        # folded into one (-fipa-icf) and called, not inlined, per outcome.
        out.append("static inline __attribute__((always_inline)) void lk_t%d_observe(const struct lk_ctx *c, uint64_t i,"
                   " int64_t *k)\n{\n" % n)
        out.append("\t(void)c; (void)i; (void)k;\n")
        for ki, key in enumerate(t.keys):
            if key[0] == "reg":
                out.append("\tk[%d] = lk_norm(c, i, LK_REG(c, %d, i, %d));\n" % (ki, key[1], self.slots[(key[1], key[2])]))
            else:
                out.append("\tk[%d] = lk_norm(c, i, LK_FINAL(c, i, %d));\n" % (ki, self.loc_ix[key[1]]))
        for j, (tid, slot) in enumerate(sorted(self.cut_slot.items())):
            out.append("\tk[%d] = LK_REG(c, %d, i, %d);\t/* P%d cut the execution */\n" % (len(t.keys) + j, tid, slot, tid))
        out.append("}\n")
        # The counting loop with these three called directly (litmus.c's
        # LK_COUNT_FN): inlined, no indirect call per outcome.
        has_filter = t.filter is not None or self.cut_slot
        out.append("LK_COUNT_FN(lk_t%d_count, lk_t%d_observe, %s, lk_t%d_exists, %d)\n" % (
            n, n, "lk_t%d_filter" % n if has_filter else "NULL", n, len(t.keys)))
        return out

    def descriptor(self, fns, why):
        t, n = self.t, self.id
        out = []
        nregs = [sum(1 for (tid, _r) in self.slots if tid == th.pid) + th.cut for th in t.threads]
        thread_fns = ", ".join("{ %s }" % ", ".join(fns.get((th.pid, s), "NULL") for s in SETS) for th in t.threads)
        inits = ", ".join("0" if isinstance(v, tuple) else c_int(v) for v in t.locs.values())
        init_addr = ", ".join(str(self.loc_ix[v[1]]) if isinstance(v, tuple) else "-1" for v in t.locs.values())
        out.append("#define LK_T%d_DESC { .name = %s, .file = %s, .result = %s, \\\n" % (
            n, c_string(t.name), c_string(t.path_shown), c_string(t.result) if t.result else "NULL"))
        out.append("\t.nthreads = %d, .nvars = %d, .nkeys = %d, .uses_rcu = %s, \\\n" % (
            len(t.threads), len(t.locs), len(t.keys), "true" if "rcu_read_lock" in t.prims or "synchronize_rcu" in t.prims else "false"))
        out.append("\t.vars = { %s }, .init = { %s }, .init_addr = { %s }, \\\n" % (
            ", ".join(c_string(v) for v in t.locs), inits, init_addr))
        out.append("\t.keys = { %s }, .nregs = { %s }, \\\n" % (
            ", ".join(c_string(key_text(k)) for k in t.keys), ", ".join(str(x) for x in nregs)))
        out.append("\t.set_why = { %s }, \\\n" % ", ".join(c_string(why[s]) if why[s] else "NULL" for s in SETS))
        out.append("\t.thread = { %s }, \\\n" % thread_fns)
        out.append("\t.count = lk_t%d_count }\n\n" % n)
        return out


def has_loop(body):
    for s in body:
        if isinstance(s, ir.While):
            return True
        if isinstance(s, ir.If) and (has_loop(s.then) or has_loop(s.orelse)):
            return True
    return False


def key_text(k):
    return "%d:%s" % (k[1], k[2]) if k[0] == "reg" else k[1]


def forbidden_flags(t):
    arches = {"x86_64": "MMT_ARCH_X86_64", "aarch64": "MMT_ARCH_AARCH64", "generic": "MMT_ARCH_GENERIC"}
    on = set(arches) if t.result == "Never" else set()
    for arch, verdict in t.expect.items():
        if arch in arches:
            (on.add if verdict == "forbidden" else on.discard)(arch)
    return " | ".join(arches[a] for a in sorted(on)) or "0"


def header(tests, rejected, limits):
    """tests: [(Test, emitted C, why per set)], rejected: [(name, path, message)]."""
    out = ["/* Generated by scenarios/litmus/litmus2c from C-litmus tests; do not edit. */\n"]
    for key, macro in (("threads", "LK_MAXT"), ("locations", "LK_MAXV"), ("keys", "LK_MAXK"),
                       ("stored_registers", "LK_MAXR")):
        out.append('_Static_assert(%s == %d, "litmus2c and litmus.c disagree on %s");\n' % (macro, limits[key], key))
    for _t, text, _w in tests:
        out.append(text)
    out.append("static const struct lk_test lk_tests[] = {\n")
    for i in range(len(tests)):
        out.append("\tLK_T%d_DESC,\n" % i)
    for name, path, msg in rejected:
        out.append("\t{ .name = %s, .file = %s, .unsupported = %s },\n" % (c_string(name), c_string(path), c_string(msg)))
    if not tests and not rejected:
        out.append("\t{ .name = NULL },\n")
    out.append("};\n#define LK_NR_TESTS %d\n" % (len(tests) + len(rejected)))
    out.append("static const struct mmt_variant lk_variants[] = {\n")
    vt, vp = [], []
    for i, (t, _text, why) in enumerate(tests):
        for p, s in enumerate(SETS):
            if why[s]:
                continue
            verdict = ("Maybe: an open question of the model, expected unknown" if t.result == "Maybe"
                       else t.result or "no Result line: expected unknown")
            out.append("\t{ .name = %s, .help = %s, .forbidden_on = %s, .threads = %d, .no_expectation = %s,\n"
                       "\t  .family = %s, .compares = %s },\n" % (
                c_string("%s/%s" % (t.name, s)), c_string("%s with %s primitives (LKMM: %s)" % (t.name, SET_DESC[s], verdict)),
                forbidden_flags(t), len(t.threads), "true" if t.result in (None, "Maybe") and not t.expect else "false",
                SET_FAMILY[s], c_string(SET_COMPARES[s].replace("%s", t.name))))
            vt.append(i)
            vp.append(p)
    if not vt:
        out.append("\t{ .name = NULL },\n")
    out.append("};\n")
    out.append("static const unsigned short lk_variant_test[] = { %s };\n" % (", ".join(map(str, vt)) or "0"))
    out.append("static const unsigned char lk_variant_prim[] = { %s };\n" % (", ".join(map(str, vp)) or "0"))
    out.append("#define LK_NR_VARIANTS %d\n" % len(vt))
    return "".join(out)
