# SPDX-License-Identifier: MIT
"""Stage 2: tokens to the intermediate form (ir.Test), checked as it goes.

    test      := "C" NAME init {global | thread}+ ["locations" "[" key {";" key} "]"]
                 ["filter" cond] [("exists" | "~" "exists" | "forall") cond | "(" cond ")"]
                 (no final condition: herd7's "forall true")
    init      := "{" {item ";"} "}"    item := [type] [N ":"] NAME ["=" value]
                 (a register with no value: herd7's 0, NULL for a pointer)
                 | type NAME "[" N "]" ["=" "{" value {"," value} "}"]   (herd7's array:
                 N locations NAME[0]... (ir.py), N values exactly; value: a number, NAME, NAME[K])
    global    := "{" "}"    (litmus7's global C code: #include lines and comments only)
    thread    := ["void"] "P"N "(" [param {"," param}] ")" block
    stmt      := block | "if" "(" expr ")" stmt ["else" stmt] | "while" "(" expr ")" stmt
                 | decl | expr ";" | ";"
                 (while: herd7 unrolls it ir.UNROLL = 2 times, its -unroll default, and
                 drops an execution needing more; a run cuts it and discards its outcome)
    expr      := C's precedence over || && | ^ & == != < <= > >= + - and the
                 unary ! ~ - * (void) ; calls to the primitives in prims.py, whose
                 C11 order arguments are memory_order_NAME; herd7's __NAME{ANNOT}(...);
                 ADDRESS + i, ADDRESS - i and ADDRESS[i]: an array's element i (a constant
                 checked here, a register as the thread runs: out of bounds, the execution
                 is cut); past a scalar x, herd7's x+K is a location of its own, x+r needs r=0
    cond      := herd7's: => (or ->) /\ \/ ~ ( ) true false, atoms N:REG=VALUE, LOC=VALUE, [LOC]=VALUE,
                 ARRAY[K]=VALUE, ARRAY={V, ...} (each element; K out of bounds refused, as herd7 does)

Every error is one LitmusError at the offending token.
"""

import re

from . import ir
from .diag import LitmusError
from .lexer import Token
from .prims import PRIMS, KNOWN_UNSUPPORTED, ORDERS, C11_OVERLOADS, CAS_EXPECTED

# Types herd7 reads that this engine has no location for, and why.
UNSUPPORTED_TYPES = {
    "__int128_t": "128-bit locations: the engine's locations are 64-bit words",
    "__int128": "128-bit locations: the engine's locations are 64-bit words",
    "__uint128_t": "128-bit locations: the engine's locations are 64-bit words",
    "int128_t": "128-bit locations: the engine's locations are 64-bit words",
    "uint128_t": "128-bit locations: the engine's locations are 64-bit words",
}
# herd7's C11 dialect: _Atomic T and stdatomic.h's atomic_T names.  Every
# location is a 64-bit word here, whatever its type (values compare as
# int64_t), so the type only has to be read.
C11_TYPES = {"_Atomic"} | {"atomic_" + t for t in (
    "int", "uint", "long", "ulong", "llong", "ullong", "bool", "char", "schar", "uchar", "short", "ushort",
    "intptr_t", "uintptr_t", "size_t", "ptrdiff_t", "intmax_t", "uintmax_t")}
TYPE_WORDS = {"int", "intptr_t", "uintptr_t", "long", "unsigned", "signed", "char", "short", "bool",
              "_Bool", "u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "volatile", "const",
              "int8_t", "uint8_t", "int16_t", "uint16_t", "int32_t", "uint32_t", "int64_t", "uint64_t",
              "atomic_t", "atomic_long_t", "spinlock_t", "void"} | C11_TYPES
MEMORY_ORDERS = {"memory_order_" + o: o for o in ORDERS}
# What the corpus's Result: lines say besides Never/Sometimes/Always, and
# why a test saying it is not run.  Maybe (an open question of the model)
# runs with no expectation, as a test without a Result line.
REFUSED_RESULTS = {
    "Flag": "herd7 flags this test as erroneous (bad SRCU nesting, a data race ...); "
            "run as written it can wait forever",
    "DEADLOCK": "the test deadlocks by design; run, it would never end",
}

KEYWORDS = TYPE_WORDS | set(MEMORY_ORDERS) | {"if", "else", "exists", "forall", "filter", "locations", "true",
                                              "false", "return", "while", "for", "do", "goto", "switch"}
BINARY = [["||"], ["&&"], ["|"], ["^"], ["&"], ["==", "!="], ["<", "<=", ">", ">="], ["+", "-"]]


def parse(path, lexed):
    return Parser(path, lexed).test()


class Parser:
    def __init__(self, path, lexed):
        self.path, self.toks, self.i = path, lexed.tokens, 0
        self.t = ir.Test(path, lexed.name)
        self.name_pos = lexed.name_pos
        self.c11_types = False	# an atomic_int or _Atomic seen so far
        self._doc(lexed.comments)

    # ---- tokens ---------------------------------------------------------------------------
    def peek(self, k=0):
        return self.toks[min(self.i + k, len(self.toks) - 1)]

    def next(self):
        tok = self.peek()
        self.i += 1
        return tok

    def err(self, tok, msg):
        raise LitmusError(self.path, tok.line, tok.col, msg)

    def at(self, text, k=0):
        tok = self.peek(k)
        return tok.kind in ("punct", "ident") and tok.text == text

    def expect(self, text, what=None):
        tok = self.peek()
        if not self.at(text):
            self.err(tok, "expected '%s'%s, found %s" % (text, " " + what if what else "", describe(tok)))
        return self.next()

    def ident(self, what):
        tok = self.peek()
        if tok.kind != "ident":
            self.err(tok, "expected %s, found %s" % (what, describe(tok)))
        return self.next()

    def number(self):
        neg = False
        if self.at("-"):
            self.next()
            neg = True
        tok = self.peek()
        if tok.kind != "num":
            self.err(tok, "expected a number, found %s" % describe(tok))
        self.next()
        v = int(tok.text, 0)
        return -v if neg else v

    # ---- the comment lines mmtorture reads ------------------------------------------------
    def _doc(self, comments):
        text = "\n".join(comments)
        m = re.search(r"Result:\s*(\w+)", text)
        if m:
            self.t.result = m.group(1)
            if self.t.result in REFUSED_RESULTS:
                raise LitmusError(self.path, self.name_pos[0], 1,
                                  "Result: %s: %s" % (self.t.result, REFUSED_RESULTS[self.t.result]))
            if self.t.result not in ("Never", "Sometimes", "Always", "Maybe"):
                raise LitmusError(self.path, self.name_pos[0], 1,
                                  "Result: '%s' is not Never, Sometimes, Always or Maybe" % self.t.result)
        m = re.search(r"Expect:([^\n]*)", text)
        if m:
            for word in m.group(1).split():
                arch, _, verdict = word.partition("=")
                if verdict not in ("forbidden", "allowed"):
                    raise LitmusError(self.path, self.name_pos[0], 1,
                                      "Expect: '%s' is not ARCH=forbidden or ARCH=allowed" % word)
                self.t.expect[arch] = verdict

    # ---- the whole test -------------------------------------------------------------------
    def test(self):
        t = self.t
        if self.at("{"):
            self.init_block()
        else:
            self.err(self.peek(), "expected the initial state '{ ... }', found %s" % describe(self.peek()))
        while True:
            if self.at("{"):
                self.global_block()	# litmus7's global C code, between the initial state and the threads
            elif self.at("void") and self.is_proc(1):
                self.next()	# herd7's "void P0(...)": a thread's return type, void or none
            elif self.is_proc(0):
                self.thread()
            else:
                break
        if not t.threads:
            self.err(self.peek(), "expected a thread '[void] P0(...)', found %s" % describe(self.peek()))
        self.number_threads()
        self.check_register_inits()
        if self.at("locations"):
            self.next()
            self.expect("[")
            while not self.at("]"):
                if self.unknown_register_shown():
                    # only shown, never judged: a register its thread does
                    # not have (herd7 prints it) has nothing to show here
                    for _ in range(3):
                        self.next()
                else:
                    key, _ = self.key()
                    t.key_index(key)
                    t.shown.append(key)
                if not self.at("]"):
                    self.expect(";", "between locations")
            self.next()
        if self.at("regions") and self.at(":", 1):
            self.err(self.peek(), "'regions:' (herd7's memory regions of a location) is not supported: this "
                                  "engine's locations are plain memory, with no region attributes")
        if self.at("filter"):
            self.next()
            t.filter = self.cond()
        tok = self.peek()
        if tok.kind == "eof":
            # herd7 takes a test without a final condition as "forall true"
            t.quant = "forall"
            t.cond = ir.CConst((tok.line, tok.col), value=True)
            self.limits()
            return t
        if self.at("("):
            t.quant = "exists"	# herd7's "(prop)": exists
            t.cond = self.cond()
        elif self.at("exists"):
            self.next()
            t.quant = "exists"
        elif self.at("~") and self.at("exists", 1):
            self.next()
            self.next()
            t.quant = "~exists"
        elif self.at("forall"):
            self.next()
            t.quant = "forall"
        else:
            self.err(tok, "expected the final condition 'exists (...)', '~exists' or 'forall', found %s"
                     % describe(tok))
        if t.cond is None:
            t.cond = self.cond()
        if self.at(";") and self.peek(1).kind == "eof":
            self.next()	# herd7 takes a final condition ended with ';'
        if self.peek().kind != "eof":
            self.err(self.peek(), "unexpected %s after the final condition" % describe(self.peek()))
        self.limits()
        return t

    def is_proc(self, k):
        tok = self.peek(k)
        return tok.kind == "ident" and re.fullmatch(r"P\d+", tok.text) is not None

    def global_block(self):
        """litmus7's "{ ... }" of global C code beside the threads (herd7's
        shallow parse keeps it as text, litmus7 pastes it into the C it
        compiles).  The lexer keeps its #include lines as comments: an
        include of the test's primitives (perfbook's "api.h") means what
        prims.py binds.  Anything else there would be C this front end
        does not translate."""
        self.next()
        if not self.at("}"):
            self.err(self.peek(), "global C code in a '{ ... }' block beside the threads (litmus7's) is not "
                                  "supported, found %s: only #include lines and comments are read there"
                     % describe(self.peek()))
        self.next()

    def limits(self):
        t, lim = self.t, ir.LIMITS
        tok = self.peek()
        if len(t.threads) > lim["threads"]:
            self.err(t.threads[lim["threads"]].pos_tok, "%d threads: the engine runs at most %d"
                     % (len(t.threads), lim["threads"]))
        if len(t.locs) > lim["locations"]:
            name = list(t.locs)[lim["locations"]]
            line, col = t.loc_pos[name]
            raise LitmusError(self.path, line, col, "%d memory locations (%s): a test of the engine holds at most %d "
                              "(LK_MAXV in scenarios/litmus.c; '%s' is the first beyond)"
                              % (len(t.locs), ", ".join(t.locs), lim["locations"], name))
        srcu = {"srcu_read_lock", "srcu_read_unlock", "synchronize_srcu", "srcu_down_read", "srcu_up_read"}
        if t.prims & srcu and len(t.threads) > 7:
            self.err(tok, "%d threads: SRCU's counters have room for 7 (litmus-prims.h)" % len(t.threads))
        if t.prims & {"srcu_read_lock", "srcu_read_unlock"} and t.prims & {"srcu_down_read", "srcu_up_read"}:
            self.err(tok, "srcu_read_lock() and srcu_down_read() in one test: their counts share words, "
                          "plain for one, atomic for the other (litmus-prims.h)")
        # a thread that may cut an execution (a loop, a run-time index)
        # keeps a flag beside its registers, and the outcome a key of it
        cuts = sum(1 for th in t.threads if th.cut)
        also = " (and %d for the flags of threads that may cut an execution)" % cuts if cuts else ""
        if len(t.keys) + cuts > lim["keys"]:
            self.err(tok, "the final condition names %d registers and locations%s: at most %d"
                     % (len(t.keys), also, lim["keys"]))
        for th in t.threads:
            n = sum(1 for k in t.keys if k[0] == "reg" and k[1] == th.pid)
            if n + th.cut > lim["stored_registers"]:
                self.err(tok, "the final condition names %d registers of P%d%s: at most %d"
                         % (n, th.pid, " (and one for its flag of a cut execution)" if th.cut else "",
                            lim["stored_registers"]))

    # ---- initial state --------------------------------------------------------------------
    def add_loc(self, tok, name):
        if name in self.t.arrays:
            return	# its elements are its locations (a thread's parameter: the address of its element 0)
        if name not in self.t.locs:
            if name in KEYWORDS or name in PRIMS:
                self.err(tok, "'%s' cannot name a location" % name)
            self.t.locs[name] = 0
            self.t.loc_pos[name] = (tok.line, tok.col)

    def init_block(self):
        self.expect("{")
        self.reg_inits = []
        while not self.at("}"):
            if self.at(";"):
                self.next()
                continue
            typed = self.skip_type()
            self.init_item(typed)
            while self.at(","):	# int x = 1, *p = &x;
                self.next()
                self.init_item(typed)
            if not self.at("}"):
                self.expect(";", "after an initial value")
        self.next()

    def init_item(self, typed):
        while self.at("*"):
            self.next()
        if self.peek().kind == "num" and self.at(":", 1):
            tid = int(self.next().text)
            self.next()
            tok = self.ident("a register name")
            if self.at("="):
                self.next()
                v = self.init_value()
            else:
                v = 0	# herd7: a register declared without a value ("int *0:r1;") starts at 0 (NULL)
            self.reg_inits.append((tid, tok, v))
            return
        bracket = self.at("[")	# herd7's "[x] = 0": the location x
        if bracket:
            self.next()
        tok = self.ident("a location name")
        if bracket:
            self.expect("]", "after the location name in '[x]'")
        if self.at("[") and not bracket:
            self.array_decl(tok, typed)
            return
        if tok.text in self.t.arrays:
            self.err(tok, "'%s' is already an array of the initial state" % tok.text)
        self.add_loc(tok, tok.text)
        if self.at("="):
            self.next()
            self.t.locs[tok.text] = self.init_value()

    def array_decl(self, tok, typed):
        """herd7's array in the initial state: TYPE NAME[N], its N elements 0,
        or TYPE NAME[N] = {V, ...} with exactly N values (herd7's stateParser
        refuses another count, and a declaration without its type).  Each
        element is one location of its own, "NAME[i]", in order."""
        name = tok.text
        if not typed:
            self.err(tok, "array '%s[...]' without an element type: herd7 reads an array of the initial state "
                          "only as TYPE NAME[N] ('int %s[N] = {...};')" % (name, name))
        self.next()
        size_tok = self.peek()
        if size_tok.kind != "num":
            self.err(size_tok, "expected the size of array '%s', found %s" % (name, describe(size_tok)))
        n = int(self.next().text, 0)
        self.expect("]", "after the size of array '%s'" % name)
        if n < 1:
            self.err(size_tok, "array '%s[%d]': an array needs at least one element" % (name, n))
        if name in self.t.arrays:
            self.err(tok, "array '%s' is declared twice in the initial state" % name)
        if name in self.t.locs:
            self.err(tok, "'%s' is already a location of the initial state (an array is declared before its "
                          "name is used)" % name)
        values = [0] * n
        if self.at("="):
            self.next()
            brace = self.expect("{", "opening the initial values of array '%s'" % name)
            values = []
            while not self.at("}"):
                values.append(self.init_value())
                if not self.at("}"):
                    self.expect(",", "between the initial values of array '%s'" % name)
            self.next()
            if len(values) != n:
                self.err(brace, "array '%s[%d]' is given %d initial value%s: herd7 takes exactly as many as its size"
                         % (name, n, len(values), "" if len(values) == 1 else "s"))
        self.t.arrays[name] = n
        for i, v in enumerate(values):
            self.t.locs["%s[%d]" % (name, i)] = v
            self.t.loc_pos["%s[%d]" % (name, i)] = (tok.line, tok.col)

    def init_value(self):
        if self.at("&"):
            self.next()
        if self.at("ATOMIC_INIT"):
            self.next()
            self.expect("(")
            v = self.number()
            self.expect(")")
            return v
        tok = self.peek()
        if tok.kind == "ident":
            self.next()
            return ("addr", self.named_location(tok))
        return self.number()

    def named_location(self, tok):
        """The location a name stands for as a value or a key (its token
        read): herd7's NAME, an array's NAME (its element 0) or NAME[K]; a
        name seen nowhere else is a location of its own, initially 0."""
        name = tok.text
        if self.at("["):
            if name not in self.t.arrays:
                self.err(tok, "'%s[...]': '%s' is not an array of the initial state" % (name, name))
            self.next()
            k_tok = self.peek()
            k = self.number()
            self.expect("]", "after the index into '%s'" % name)
            self.check_index(k_tok, name, k)
            return "%s[%d]" % (name, k)
        if name in self.t.arrays:
            return name + "[0]"
        self.add_loc(tok, name)
        return name

    def check_index(self, tok, name, k):
        n = self.t.arrays[name]
        if not 0 <= k < n:
            self.err(tok, "index %d is out of bounds of array '%s[%d]' (herd7: 'Out of bounds access on array %s')"
                     % (k, name, n, name))

    def skip_type(self):
        seen = False
        while True:
            tok = self.peek()
            if tok.kind == "ident" and tok.text in UNSUPPORTED_TYPES:
                self.err(tok, "type '%s' is not supported: %s" % (tok.text, UNSUPPORTED_TYPES[tok.text]))
            if not (tok.kind == "ident" and tok.text in TYPE_WORDS | {"struct"}):
                return seen
            self.next()
            seen = True
            if tok.text in C11_TYPES:
                self.c11_types = True
            if tok.text == "struct":
                self.ident("a struct name")
            elif tok.text == "_Atomic" and self.at("("):	# _Atomic(int)
                self.next()
                if not self.skip_type():
                    self.err(self.peek(), "expected a type in '_Atomic(...)', found %s" % describe(self.peek()))
                while self.at("*"):
                    self.next()
                self.expect(")", "closing '_Atomic('")

    # ---- threads --------------------------------------------------------------------------
    def thread(self):
        tok = self.next()
        th = ir.Thread(int(tok.text[1:]), (tok.line, tok.col))
        th.pos_tok = tok
        for tid, rtok, v in self.reg_inits:
            if tid == th.pid:
                th.regs[rtok.text] = v
        if any(o.pid == th.pid for o in self.t.threads):
            self.err(tok, "thread %s is defined twice" % tok.text)
        self.expect("(", "after the thread name")
        while not self.at(")"):
            if not self.skip_type():
                self.err(self.peek(), "parameter: expected a type such as 'int *', found %s" % describe(self.peek()))
            stars = 0
            while self.at("*"):
                self.next()
                stars += 1
            name = self.ident("a parameter name")
            if stars == 0:
                self.err(name, "parameter '%s' must be a pointer to a shared location ('int *%s')"
                         % (name.text, name.text))
            if name.text in th.params:
                self.err(name, "parameter '%s' is given twice" % name.text)
            self.add_loc(name, name.text)
            th.params.append(name.text)
            if not self.at(")"):
                self.expect(",", "between parameters")
        self.next()
        self.th = th
        self.locks = {}
        self.rcu_depth = 0
        th.body = self.block()
        for lock, (n, tok) in self.locks.items():
            if n:
                self.err(tok, "P%d ends holding spinlock '%s': every spin_lock needs its spin_unlock "
                         "(the body runs once per iteration and a waiter would spin forever)" % (th.pid, lock))
        self.t.threads.append(th)

    def number_threads(self):
        self.t.threads.sort(key=lambda th: th.pid)
        for k, th in enumerate(self.t.threads):
            if th.pid != k:
                self.err(th.pos_tok, "threads must be P0, P1, ... without gaps: P%d is missing" % k)

    def check_register_inits(self):
        for tid, tok, v in self.reg_inits:
            if tid >= len(self.t.threads):
                self.err(tok, "register initial value %d:%s: there is no thread P%d" % (tid, tok.text, tid))

    def block(self):
        self.expect("{")
        out = []
        while not self.at("}"):
            if self.peek().kind == "eof":
                self.err(self.peek(), "end of file inside a thread body")
            out.extend(self.stmt())
        self.next()
        return out

    def stmt(self):
        tok = self.peek()
        if self.at("{"):
            return self.block()
        if self.at(";"):
            self.next()
            return []
        if self.at("if"):
            self.next()
            self.expect("(", "after 'if'")
            c = self.expr()
            self.expect(")", "closing the 'if' condition")
            then = self.stmt()
            orelse = []
            if self.at("else"):
                self.next()
                orelse = self.stmt()
            return [ir.If((tok.line, tok.col), cond=c, then=then, orelse=orelse)]
        if self.at("while"):
            return [self.while_loop()]
        if tok.kind == "ident" and tok.text in ("for", "do", "goto", "switch", "return"):
            self.err(tok, "'%s' is not in herd7's C: a litmus thread has 'if' and 'while' only" % tok.text)
        if tok.kind == "ident" and tok.text in TYPE_WORDS and not self.at("(", 1):
            return self.decl()
        if tok.kind == "ident" and self.at(":", 1):
            self.err(tok, "label '%s:' is not supported in a litmus thread (straight-line code and 'if' only)" % tok.text)
        if (tok.kind == "ident" and self.at("=", 1) and tok.text not in self.th.regs
                and tok.text not in self.th.params and tok.text not in KEYWORDS and tok.text not in PRIMS):
            # herd7 takes a register assigned without a declaration, as an int
            self.th.regs[tok.text] = None
        e = self.expr()
        if self.at("="):
            eq = self.next()
            v = self.expr()
            self.expect(";", "after the assignment")
            if isinstance(e, ir.Reg):
                return [ir.Assign((tok.line, tok.col), reg=e.name, value=v)]
            if isinstance(e, ir.Deref):
                return [ir.Store((tok.line, tok.col), ptr=e.ptr, value=v)]
            self.err(eq, "the left side of '=' must be a register or '*LOCATION'")
        self.expect(";", "after the statement")
        if not isinstance(e, ir.Call):
            self.err(tok, "this statement has no effect (expected a call, an assignment or a declaration)")
        return [ir.Do((tok.line, tok.col), expr=e)]

    def while_loop(self):
        """herd7's while: unrolled ir.UNROLL times, an execution that would
        need more cut.  Its body runs 0 to UNROLL times, so a lock it takes
        (or an RCU section it opens) must end in the same iteration: the
        counts below are checked once through the body."""
        tok = self.next()
        self.expect("(", "after 'while'")
        c = self.expr()
        self.expect(")", "closing the 'while' condition")
        locks, depth = {k: n for k, (n, _) in self.locks.items()}, self.rcu_depth
        body = self.stmt()
        if {k: n for k, (n, _) in self.locks.items() if n or k in locks} != locks:
            self.err(tok, "a spinlock taken or released in a loop body must be released or taken again in the "
                          "same iteration (the body runs 0 to %d times)" % ir.UNROLL)
        if self.rcu_depth != depth:
            self.err(tok, "an RCU read-side section opened or closed in a loop body must end in the same "
                          "iteration (the body runs 0 to %d times)" % ir.UNROLL)
        self.th.cut = True
        return ir.While((tok.line, tok.col), cond=c, body=body)

    def decl(self):
        self.skip_type()
        out = []
        while True:
            while self.at("*"):
                self.next()
            name = self.ident("a register name")
            if name.text in KEYWORDS or name.text in PRIMS:
                self.err(name, "'%s' cannot name a register" % name.text)
            if name.text in self.th.params:
                self.err(name, "register '%s' has the name of a parameter of P%d" % (name.text, self.th.pid))
            if name.text not in self.th.regs:
                self.th.regs[name.text] = None
            if self.at("="):
                self.next()
                v = self.expr()
                out.append(ir.Assign((name.line, name.col), reg=name.text, value=v))
            if self.at(","):
                self.next()
                continue
            self.expect(";", "after the declaration")
            return out

    # ---- expressions ----------------------------------------------------------------------
    def expr(self, level=0):
        if level == len(BINARY):
            return self.unary()
        a = self.expr(level + 1)
        while self.peek().kind == "punct" and self.peek().text in BINARY[level]:
            op = self.next()
            b = self.expr(level + 1)
            if op.text in "+-" and (self.is_address(a) or self.is_address(b)):
                a = self.address_arith(op, a, b)
            else:
                a = ir.Bin((op.line, op.col), op=op.text, a=a, b=b)
        return a

    def is_address(self, e):
        """Whether e is a location's address known here: pointer arithmetic
        on it is element arithmetic, as herd7's symbolic addresses do."""
        return isinstance(e, ir.Elem) or isinstance(e, ir.Loc)

    def address_arith(self, op, a, b):
        """ADDRESS + i, i + ADDRESS, ADDRESS - i: herd7 adds i to a symbolic
        address's offset (element i of an array; see element())."""
        if self.is_address(a) and self.is_address(b):
            self.err(op, "'%s' between two addresses is not supported" % op.text)
        if op.text == "-" and self.is_address(b):
            self.err(op, "a number minus an address is not an address")
        base, idx = (a, b) if self.is_address(a) else (b, a)
        if op.text == "-":
            idx = ir.Un((op.line, op.col), op="-", a=idx)
        return self.element(op, base, idx)

    def element(self, tok, base, idx):
        """The address idx elements past base (a parameter, or an address
        already offset).  In an array, element idx: a constant index is
        checked here, any other as the thread runs (cgen.py: out of bounds,
        the execution is cut), so it must not read memory (it is evaluated
        twice).  Past a scalar location x, herd7's x+k is a location of its
        own (initially 0): a constant k gets one here; an index known only
        as the thread runs must be 0 (the address dependency x + (r ^ r)),
        x being an array of one, as the engine has no location for any
        other."""
        pos = (tok.line, tok.col)
        if isinstance(base, ir.Loc):
            name = base.name
            first, size = (name + "[0]", self.t.arrays[name]) if name in self.t.arrays else (name, 1)
        else:
            name, first, size = base.array, base.first, base.size
            idx = ir.Bin(pos, op="+", a=base.index, b=idx)
        k = constant(idx)
        if k is not None and name not in self.t.arrays:
            if k == 0:
                return ir.Loc(pos, name=name)
            loc = "%s%+d" % (name, k)
            self.add_loc(tok, loc)
            return ir.Loc(pos, name=loc)
        if k is not None:
            self.check_index(tok, name, k)
            return ir.Elem(pos, array=name, first=first, size=size, index=ir.Num(pos, value=k), const=k)
        if not pure(idx):
            self.err(tok, "an index into '%s' that reads memory or calls: load it into a register first" % name)
        self.th.cut = True
        self.t.run_time_index = True
        return ir.Elem(pos, array=name, first=first, size=size, index=idx, const=None)

    def subscript(self, tok, base):
        """ADDRESS[i], C's *(ADDRESS + i): reads and writes of an element."""
        lb = self.next()
        if not isinstance(base, ir.Loc):
            self.err(tok, "'%s[...]': only a parameter is indexed (a register's address is not known "
                          "here)" % tok.text)
        idx = self.expr()
        self.expect("]", "closing the index into '%s'" % tok.text)
        return ir.Deref((tok.line, tok.col), ptr=self.element(lb, base, idx))

    def unary(self):
        tok = self.peek()
        pos = (tok.line, tok.col)
        if self.at("*"):
            self.next()
            return ir.Deref(pos, ptr=self.unary())
        if tok.kind == "punct" and tok.text in ("!", "~", "-"):
            self.next()
            return ir.Un(pos, op=tok.text, a=self.unary())
        if self.at("&"):
            self.err(tok, "'&' (address of) is not supported in a thread body; a parameter is already an address "
                          "(the c4 herdtools7 fork reads '&REGISTER' as compare_exchange's expected value; nothing else takes '&')")
        if self.at("(") and self.peek(1).kind == "ident" and self.peek(1).text in TYPE_WORDS:
            self.next()
            self.skip_type()
            while self.at("*"):
                self.next()
            self.expect(")", "closing the cast")
            return self.unary()
        return self.primary()

    def primary(self):
        tok = self.peek()
        pos = (tok.line, tok.col)
        if tok.kind == "num":
            self.next()
            return ir.Num(pos, value=int(tok.text, 0))
        if self.at("("):
            self.next()
            e = self.expr()
            self.expect(")", "closing '('")
            return e
        if tok.kind != "ident":
            self.err(tok, "expected an expression, found %s" % describe(tok))
        self.next()
        if tok.text.startswith("__") and self.at("{"):
            return self.internal_call(tok)
        if self.at("("):
            return self.call(tok)
        if tok.text in self.th.regs or tok.text in self.th.params:
            e = ir.Reg(pos, name=tok.text) if tok.text in self.th.regs else ir.Loc(pos, name=tok.text)
            if self.at("["):
                return self.subscript(tok, e)
            return e
        if tok.text in MEMORY_ORDERS:
            self.err(tok, "'%s' is a memory order: only the order argument of an atomic_*_explicit() call or of "
                          "atomic_thread_fence() takes one" % tok.text)
        if tok.text in ("true", "false"):
            # herd7's CLexer has no such token: the name is a register no one set
            self.err(tok, "'%s': herd7's C has no true/false (it reads the name as a register); write %d"
                     % (tok.text, tok.text == "true"))
        if tok.text in self.t.locs or tok.text in self.t.arrays:
            self.err(tok, "'%s' is a location of the test but not a parameter of P%d: a thread reaches a location "
                          "only through its parameters, as in herd7 ('int *%s')" % (tok.text, self.th.pid, tok.text))
        self.err(tok, "'%s' is neither a register of P%d nor one of its parameters" % (tok.text, self.th.pid))

    def call(self, tok):
        name = tok.text
        pos = (tok.line, tok.col)
        if name not in PRIMS:
            why = KNOWN_UNSUPPORTED.get(name)
            self.err(tok, "%s() is not supported%s" % (name, ": " + why if why else
                                                       " (see scenarios/litmus/frontend/prims.py for the list)"))
        prim = PRIMS[name]
        self.expect("(")
        args = []
        while not self.at(")"):
            k = len(args)
            if k < len(prim.args) and prim.args[k] == "o":
                args.append(self.order(prim, prim.args[:k].count("o")))
            elif k == 1 and name in CAS_EXPECTED and self.at("&"):
                args.append(self.expected_register())
            else:
                args.append(self.expr())
            if not self.at(")"):
                self.expect(",", "between arguments")
        self.next()
        if name in C11_OVERLOADS and len(args) == 2 and self.c11_reading(args):
            prim = C11_OVERLOADS[name]
        elif name in KERNEL_FORM_UNBOUND and len(args) == 2 and not self.c11_reading(args):
            self.err(tok, "%s(i, v), the kernel's form, is not bound: only C11's %s(object, value) is" % (name, name))
        if len(args) != len(prim.args):
            norders = prim.args.count("o")
            missing = ""
            if norders and len(args) == len(prim.args) - norders:
                missing = ": its memory order%s (memory_order_...) %s missing" % (
                    "s" if norders > 1 else "", "are" if norders > 1 else "is")
            self.err(tok, "%s() takes %d argument%s, given %d%s" % (name, len(prim.args),
                                                                    "" if len(prim.args) == 1 else "s", len(args),
                                                                    missing))
        for kind, a in zip(prim.args, args):
            if kind == "l" and not isinstance(a, ir.Deref):
                line, col = a.pos
                raise LitmusError(self.path, line, col, "%s(): expected '*LOCATION' as its first argument (herd7's "
                                  "linux-kernel.def gives it to __load{...}(X) or __store{...}(X,V), which refuse "
                                  "any X but '*P': 'Bad __load argument', 'Bad __store argument')" % name)
        self.t.prims.add(name)
        if name in ("spin_lock", "spin_trylock", "spin_unlock"):
            key = render_key(args[0])
            n, _ = self.locks.get(key, (0, tok))
            if name == "spin_lock" and n > 0:
                # herd7 drops the executions that deadlock; a run takes
                # them, and the thread spins on itself forever
                self.err(tok, "spin_lock(%s) where P%d may already hold it: the thread would deadlock on "
                         "itself (herd7 drops such executions; a run would hang in them)" % (key, self.th.pid))
            self.locks[key] = (n + (-1 if name == "spin_unlock" else 1), tok)
        if name == "rcu_read_lock":
            self.rcu_depth += 1
        elif name == "rcu_read_unlock":
            self.rcu_depth -= 1
        elif name == "synchronize_rcu" and self.rcu_depth > 0:
            self.err(tok, "synchronize_rcu() inside an RCU read-side critical section would wait for itself")
        return ir.Call(pos, prim=prim, args=args)

    def expected_register(self):
        """compare_exchange's expected value in a register of the thread,
        '&REG' (ExpctReg of the c4 project's herdtools7 fork, whose tools write it; mainline herd7 has no unary '&'): read as
        *expected is, and written with the value seen when it fails."""
        amp = self.next()
        tok = self.peek()
        if tok.kind != "ident" or tok.text not in self.th.regs:
            if tok.kind == "ident" and tok.text in self.th.params:
                self.err(amp, "'&%s': '%s' is already a location's address; pass it without '&'"
                         % (tok.text, tok.text))
            self.err(tok, "expected a register of P%d after '&' (compare_exchange's expected value '&REG'), "
                          "found %s" % (self.th.pid, describe(tok)))
        self.next()
        return ir.RegAddr((amp.line, amp.col), name=tok.text)

    def c11_reading(self, args):
        """Whether atomic_fetch_add(a, b) is C11's (object, value) rather than
        the kernel's (value, object): the argument that is a location says,
        else the test's types (an atomic_int or _Atomic anywhere: C11)."""
        loc0, loc1 = (self.is_address(a) for a in args)
        if loc0 != loc1:
            return loc0
        return self.c11_types

    def internal_call(self, tok):
        """herd7's own spelling of a kernel primitive, as its linux.def
        expands it: __NAME{ANNOTATION}(...)."""
        self.expect("{")
        annot = self.ident("an annotation such as 'mb'")
        self.expect("}", "closing the annotation")
        name = HERD_INTERNAL.get((tok.text, annot.text))
        if name is None:
            self.err(tok, "%s{%s}: herd7's internal form is not supported here; write the kernel primitive it "
                          "stands for (%s)" % (tok.text, annot.text,
                                               ", ".join("%s{%s} = %s()" % (k + (v,)) for k, v in HERD_INTERNAL.items())))
        if not self.at("("):
            self.err(self.peek(), "expected '(' after %s{%s}, found %s" % (tok.text, annot.text, describe(self.peek())))
        return self.call(Token(tok.kind, name, tok.line, tok.col))

    def order(self, prim, k):
        """A C11 memory order argument: one of memory_order_NAME, valid there."""
        tok = self.peek()
        pos = (tok.line, tok.col)
        if tok.kind == "ident" and tok.text in MEMORY_ORDERS:
            self.next()
            o = MEMORY_ORDERS[tok.text]
            allowed = prim.orders[k]
            if o not in allowed and o in prim.herd[k]:
                # C11 forbids it here, herd7 reads it: as its models do (prims.py LOAD_HERD ...)
                return ir.Order(pos, name=prim.herd[k][o], written=o)
            if o not in allowed:
                what = ("the failure order of %s()" % prim.name if k == 1 else "an order of %s()" % prim.name)
                self.err(tok, "%s is not %s: C11 allows %s there" % (
                    tok.text, what, ", ".join("memory_order_" + a for a in allowed)))
            return ir.Order(pos, name=o)
        if tok.kind == "ident" and tok.text.startswith("memory_order"):
            self.err(tok, "'%s' is not a memory order: C11 has %s" % (
                tok.text, ", ".join(sorted(MEMORY_ORDERS, key=lambda m: ORDERS.index(MEMORY_ORDERS[m])))))
        self.err(tok, "%s(): expected a memory order (memory_order_relaxed, ...) as argument %d, found %s"
                 % (prim.name, [i for i, a in enumerate(prim.args) if a == "o"][k] + 1, describe(tok)))

    # ---- final conditions -----------------------------------------------------------------
    def cond(self, level=-1):
        if level == -1:
            # herd7's implication, weakest and right-associative: a => b is ~a \/ b
            a = self.cond(0)
            if self.at("=>") or self.at("->"):
                op = self.next()
                pos = (op.line, op.col)
                return ir.COr(pos, a=ir.CNot(pos, a=a), b=self.cond(-1))
            return a
        if level == 0:
            a = self.cond(1)
            while self.at("\\/") or self.at("||"):
                op = self.next()
                a = ir.COr((op.line, op.col), a=a, b=self.cond(1))
            return a
        if level == 1:
            a = self.cond(2)
            while self.at("/\\") or self.at("&&"):
                op = self.next()
                a = ir.CAnd((op.line, op.col), a=a, b=self.cond(2))
            return a
        tok = self.peek()
        pos = (tok.line, tok.col)
        if self.at("~") or self.at("not") or self.at("!"):
            self.next()
            return ir.CNot(pos, a=self.cond(2))
        if self.at("("):
            self.next()
            c = self.cond()
            self.expect(")", "closing '(' in the condition")
            return c
        if self.at("true") or self.at("false"):
            self.next()
            return ir.CConst(pos, value=tok.text == "true")
        key, ktok = self.key()
        if self.at("=") or self.at("=="):
            negate = False
        elif self.at("!="):
            negate = True
        else:
            self.err(self.peek(), "expected '=' after '%s' in the condition, found %s" % (ktok, describe(self.peek())))
        self.next()
        vtok = self.peek()
        if vtok.kind == "num" and self.at(":", 1):
            # another register's final value (herd7's 0:r1=1:r2)
            other, _ = self.key()
            self.t.key_index(key)
            self.t.key_index(other)
            return ir.CEq(pos, key=key, value=("key", other), negate=negate)
        if vtok.kind == "ident":
            self.next()
            # herd7 takes a name no thread uses as a location of its own
            # (initially 0): a register can never hold its address
            value = ("addr", self.named_location(vtok))
        elif self.at("{"):
            return self.array_equal(pos, key, ktok, negate)
        else:
            value = self.number()
        self.t.key_index(key)
        return ir.CEq(pos, key=key, value=value, negate=negate)

    def unknown_register_shown(self):
        """Whether the next key in 'locations [...]' is N:REG with REG not
        a register of an existing PN."""
        tok, reg = self.peek(), self.peek(2)
        if not (tok.kind == "num" and self.at(":", 1) and reg.kind == "ident"):
            return False
        tid = int(tok.text)
        return tid < len(self.t.threads) and reg.text not in self.t.threads[tid].regs

    def key(self):
        tok = self.peek()
        if tok.kind == "num" and self.at(":", 1):
            tid = int(self.next().text)
            self.next()
            reg = self.ident("a register name after '%d:'" % tid)
            if tid >= len(self.t.threads):
                self.err(tok, "condition: there is no thread P%d" % tid)
            if reg.text not in self.t.threads[tid].regs:
                self.err(reg, "condition: '%s' is not a register of P%d" % (reg.text, tid))
            return ("reg", tid, reg.text), "%d:%s" % (tid, reg.text)
        if self.at("[") and self.peek(1).kind == "ident" and self.at("]", 2):
            self.next()	# herd7's [x]: the location x
            tok = self.peek()
            self.next()
            self.next()
            self.add_loc(tok, tok.text)
            return ("loc", tok.text), tok.text
        if tok.kind == "ident":
            self.next()
            whole = tok.text in self.t.arrays and not self.at("[")	# "a": a[0], or all of a before '{'
            # as herd7: a location only the condition names stays 0
            loc = self.named_location(tok)
            return ("loc", loc), tok.text if whole else loc
        self.err(tok, "expected 'N:REGISTER' or a location in the condition, found %s" % describe(tok))

    def array_equal(self, pos, key, ktok, negate):
        """herd7's ARRAY = {V, ...}: every element equal to its value (its
        vector comparison), one atom per element."""
        brace = self.next()
        if ktok not in self.t.arrays:
            self.err(brace, "'{...}' compares a whole array: '%s' is not an array of the initial state" % ktok)
        n, values = self.t.arrays[ktok], []
        while not self.at("}"):
            vtok = self.peek()
            if vtok.kind == "ident":
                self.next()
                values.append(("addr", self.named_location(vtok)))
            else:
                values.append(self.number())
            if not self.at("}"):
                self.expect(",", "between the values of array '%s'" % ktok)
        self.next()
        if len(values) != n:
            self.err(brace, "array '%s[%d]' compared with %d value%s" % (ktok, n, len(values),
                                                                     "" if len(values) == 1 else "s"))
        c = None
        for i, v in enumerate(values):
            k = ("loc", "%s[%d]" % (ktok, i))
            self.t.key_index(k)
            atom = ir.CEq(pos, key=k, value=v, negate=False)
            c = atom if c is None else ir.CAnd(pos, a=c, b=atom)
        return ir.CNot(pos, a=c) if negate else c


# C11's atomic_fetch_OP(object, value) whose kernel namesake takes
# (value, object) and is not bound: refused, never read the C11 way.
KERNEL_FORM_UNBOUND = {"atomic_fetch_or", "atomic_fetch_and", "atomic_fetch_xor"}

# herd7's internal forms (its libdir/linux.def expansions) that name a
# primitive of prims.py, by (name, annotation).
HERD_INTERNAL = {("__atomic_add_unless", "mb"): "atomic_add_unless"}


def constant(e):
    """The value of an expression of numbers only, else None."""
    if isinstance(e, ir.Num):
        return e.value
    if isinstance(e, ir.Un) and e.op == "-":
        a = constant(e.a)
        return None if a is None else -a
    if isinstance(e, ir.Bin) and e.op in "+-":
        a, b = constant(e.a), constant(e.b)
        if a is None or b is None:
            return None
        return a + b if e.op == "+" else a - b
    return None


def pure(e):
    """Whether evaluating e reads no memory and calls nothing."""
    if isinstance(e, (ir.Num, ir.Reg)):
        return True
    if isinstance(e, ir.Un):
        return pure(e.a)
    if isinstance(e, ir.Bin):
        return pure(e.a) and pure(e.b)
    return False


def render_key(e):
    if isinstance(e, ir.Loc):
        return e.name
    if isinstance(e, ir.Elem):
        return "%s[%s]" % (e.array, e.const if e.const is not None else "...")
    if isinstance(e, ir.Reg):
        return e.name
    return repr(e)


def describe(tok):
    if tok.kind == "eof":
        return "the end of the file"
    return "'%s'" % tok.text
