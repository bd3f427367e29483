# SPDX-License-Identifier: MIT
"""Stage 3: the one intermediate form every code generator reads.

A Test holds its locations (with initial values), its threads (numbered by
their Pn name, with their registers and a statement tree), and its final
condition over "keys": a thread's register or a location's final value.
Values are integers or ("addr", LOCATION), the address of a location.
Every node that can be rejected later carries its (line, col).

An array "int a[N]" of the initial state is N consecutive locations named
"a[0]" ... "a[N-1]" (each one of the engine's 64-bit words, each counted
against LK_MAXV); the name "a" alone, as herd7 reads it, is the address of
a[0].  A while loop runs its body at most UNROLL times: an execution that
would need one more iteration is cut, and its outcome discarded (herd7's
-unroll and its TooFar event; see cgen.py for how a run discards it).
"""

# The engine's limits (scenarios/litmus.c checks the generated header
# against them at compile time, so the two cannot drift).
LIMITS = {
    "threads": 8,		# LK_MAXT
    "locations": 16,		# LK_MAXV: the descriptor's vars/init/init_addr
    "keys": 16,			# LK_MAXK: registers and locations an outcome names
    "stored_registers": 8,	# LK_MAXR: per thread, the registers an outcome names
    "tests": 256,		# per build: 4 primitive sets each, MMT_MAX_VARIANTS (1024) in all
}

# Iterations of a while loop before an execution is cut: herd7's default
# -unroll (herd/opts.ml, "unroll = ref 2"; CSem.ml cuts While(c, body, n)
# when c still holds at n >= unroll), so that a test's outcome set is the
# one herd7 lists when run as the corpus runs it, without options.
UNROLL = 2


class Node:
    def __init__(self, pos, **kw):
        self.pos = pos
        self.__dict__.update(kw)

    def __repr__(self):
        return "%s(%s)" % (type(self).__name__,
                           ", ".join("%s=%r" % kv for kv in self.__dict__.items() if kv[0] != "pos"))


# expressions
class Num(Node): pass		# value
class Reg(Node): pass		# name
class Loc(Node): pass		# name: the location's address
class RegAddr(Node): pass	# name: "&REG", only as compare_exchange's expected pointer
class Deref(Node): pass		# ptr: a plain load (or, as a store's target, a plain store)
class Bin(Node): pass		# op, a, b
class Un(Node): pass		# op, a
class Call(Node): pass		# prim (prims.Prim), args
class Order(Node): pass		# name: a C11 memory order ("relaxed", ..., "seq_cst"), only as an argument
class Elem(Node): pass		# array, first (element 0's location), size, index, const (its value or None): &array[index]


# statements
class Assign(Node): pass	# reg, value
class Store(Node): pass		# ptr, value (plain "*p = v")
class Do(Node): pass		# expr (a call for its effect)
class If(Node): pass		# cond, then, orelse (lists)
class While(Node): pass		# cond, body (list): at most UNROLL iterations, else the execution is cut


# final conditions
class CAnd(Node): pass		# a, b
class COr(Node): pass		# a, b
class CNot(Node): pass		# a
class CConst(Node): pass	# value (bool)
class CEq(Node): pass		# key, value, negate


class Thread:
    def __init__(self, pid, pos):
        self.pid, self.pos = pid, pos
        self.params = []	# location names
        self.regs = {}		# name -> initial value (int, ("addr", loc)) or None
        self.body = []
        self.cut = False	# a loop or a run-time array index: the thread may cut an execution


class Test:
    def __init__(self, path, name):
        self.path, self.name = path, name
        self.result = None	# "Never" / "Sometimes" / "Always" / None (unknown)
        self.expect = {}	# arch -> "forbidden" / "allowed" (mmtorture's own comment line)
        self.locs = {}		# name -> initial value, in order of first mention ("a[1]" for an array's)
        self.arrays = {}	# array name -> number of elements (its locations "a[0]" ... in locs)
        self.run_time_index = False	# an element indexed by a value known only as a thread runs
        self.loc_pos = {}
        self.threads = []	# index = Pn
        self.quant = None	# "exists", "~exists", "forall"
        self.cond = None
        self.filter = None
        self.shown = []		# keys of a locations [...] clause
        self.keys = []		# ("reg", tid, name) or ("loc", name), in order of first mention
        self.prims = set()	# primitive names used

    def key_index(self, key):
        if key not in self.keys:
            self.keys.append(key)
        return self.keys.index(key)
