# SPDX-License-Identifier: MIT
"""Stage 1: bytes of a C-litmus file to tokens, each with its line and column.

The language has two comment syntaxes: OCaml's (* ... *) outside thread
bodies (herd7's sections) and C's // and /* */ inside them.  "(*" is also
C ("r0 = (*x)"), so it opens a comment only at brace depth 0 and in the
initial state's block, where no C expression can start.  Everything but
comments must be ASCII: names end up in C strings and in JSON, and a stray
Latin-1 byte there is a confusing failure much later.  CR is white space, so CRLF files read as LF ones.
"""

import re

from .diag import LitmusError

# herd7's and litmus7's assembly dialects: a first line "ARCH NAME".
ASM_ARCHES = {"X86", "X86_64", "PPC", "ARM", "AARCH64", "MIPS", "RISCV", "LISA", "BELL", "GPU_PTX", "CPP11"}
# diy7 writes KEY=VALUE lines between the name and the initial state
# (Cycle=, Generator=, Prefetch=, Com=, Orig=, ...): herd7 reads them as
# the test's information, mmtorture as comments.
INFO_LINE = re.compile(r"[ \t]*[A-Za-z][A-Za-z0-9_.-]*[ \t]*=[^\n]*")

PUNCT = ["/\\", "\\/", "=>", "->", "==", "!=", "&&", "||", "<=", ">=", "{", "}", "(", ")", ";", ",", "*",
         "&", "=", "^", "+", "-", "!", "~", "|", ":", "<", ">", "[", "]", "."]


class Token:
    __slots__ = ("kind", "text", "line", "col")

    def __init__(self, kind, text, line, col):
        self.kind, self.text, self.line, self.col = kind, text, line, col

    def __repr__(self):
        return "%s(%r)@%d:%d" % (self.kind, self.text, self.line, self.col)


class Lexed:
    """The tokens, the name line, and the comment text (where Result: lives)."""

    def __init__(self, name, name_pos, tokens, comments):
        self.name, self.name_pos, self.tokens, self.comments = name, name_pos, tokens, comments


class Scanner:
    """The text and where the scan stands in it.  Each read_* method takes
    one kind of thing at the current position (a comment, a directive, a
    word, ...) and says whether it did.

    blocks: "{" opened at depth 0 so far; the first is the initial state,
    where herd7 reads "(* ... *)" too (no C expression there).  in_global:
    inside litmus7's "{ ... }" of global C code, a block opened at depth 0
    right after another one closed (a thread's body follows its ')')."""

    def __init__(self, path, text):
        self.path, self.text, self.n = path, text, len(text)
        self.pos, self.line, self.col = 0, 1, 1
        self.tokens, self.comments = [], []
        self.depth, self.blocks, self.in_global = 0, 0, False

    def error(self, msg):
        return LitmusError(self.path, self.line, self.col, msg)

    def adv(self, k):
        for ch in self.text[self.pos:self.pos + k]:
            if ch == "\n":
                self.line, self.col = self.line + 1, 1
            else:
                self.col += 1
        self.pos += k

    def end_of_line(self):
        end = self.text.find("\n", self.pos)
        return self.n if end < 0 else end

    def name_line(self):
        """The name line: "C NAME", NAME running to the end of the line."""
        text = self.text
        while self.pos < self.n and text[self.pos] in " \t\r\n":
            self.adv(1)
        eol = self.end_of_line()
        first = text[self.pos:eol].rstrip("\r \t")
        if not (first.startswith("C ") or first.startswith("C\t")):
            arch = first.split()[0] if first.split() else ""
            if arch.upper() in ASM_ARCHES:
                raise self.error("%s assembly test: only C-litmus is supported (its first line "
                                 "names the architecture, not C)" % arch)
            raise self.error("first line must be 'C NAME' (herd7's C-litmus header)")
        name = first[2:].strip()
        name_pos = (self.line, self.col)
        for i, ch in enumerate(name):
            if ord(ch) > 126 or ord(ch) < 32:
                raise LitmusError(self.path, self.line, self.col + 2 + i,
                                  "test name: byte 0x%02x is not printable ASCII" % ord(ch))
        if not name:
            raise self.error("first line must be 'C NAME': the name is missing")
        self.adv(eol - self.pos)
        return name, name_pos

    def read_info_line(self):
        """diy7's KEY=VALUE lines, before the first token."""
        text, pos = self.text, self.pos
        if self.tokens or not (pos == 0 or text[pos - 1] in " \t\n"):
            return False
        m = INFO_LINE.match(text, text.rfind("\n", 0, pos) + 1)
        if not (m and m.end() > pos):
            return False
        self.comments.append(m.group(0).strip())  # before the initial state: an info line
        self.adv(m.end() - pos)
        return True

    def read_comment(self):
        text, pos = self.text, self.pos
        two = text[pos:pos + 2]
        if two == "(*" and (self.depth == 0 or (self.depth == 1 and self.blocks == 1)):
            close = "*)"
        elif two == "/*":
            close = "*/"
        elif two == "//":
            end = self.end_of_line()
            self.comments.append(text[pos + 2:end])
            self.adv(end - pos)
            return True
        else:
            return False
        end = text.find(close, pos + 2)
        if end < 0:
            raise self.error("comment '%s' is never closed with '%s'" % (two, close))
        self.comments.append(text[pos + 2:end])
        self.adv(end + 2 - pos)
        return True

    def read_directive(self):
        """A '#' line: only #include, only in litmus7's global block."""
        if self.text[self.pos] != "#":
            return False
        end = self.end_of_line()
        directive = self.text[self.pos:end].split("//")[0].strip()
        word = re.match(r"#\s*(\w*)", directive).group(1)
        if not self.in_global:
            raise self.error("'%s': a preprocessor line is read only in litmus7's global block "
                             "'{ ... }' before the threads (herd7's C has no '#')" % directive)
        if word != "include":
            raise self.error("'%s' in the global block: only #include is read (the front end "
                             "binds the primitives itself; a '#%s' could change what the test means)"
                             % (directive, word))
        self.comments.append(self.text[self.pos:end])	# the test's primitives' header: prims.py binds them
        self.adv(end - self.pos)
        return True

    def refuse_foreign(self, ch):
        if ch == "?":
            raise self.error("'?' (C's conditional operator a ? b : c) is not in herd7's C dialect, "
                             "nor read here: write it with 'if'")
        if ord(ch) > 126 or (ord(ch) < 32):
            raise self.error("byte 0x%02x outside a comment (only ASCII is accepted)" % ord(ch))

    def read_string(self):
        """herd7's doc strings, kept as comments."""
        if self.text[self.pos] != '"':
            return False
        end = self.text.find('"', self.pos + 1)
        if end < 0 or "\n" in self.text[self.pos:end]:
            raise self.error("string is never closed on its line")
        self.comments.append(self.text[self.pos + 1:end])
        self.adv(end + 1 - self.pos)
        return True

    def take(self, kind, k):
        self.tokens.append(Token(kind, self.text[self.pos:k], self.line, self.col))
        self.adv(k - self.pos)
        return True

    def read_word(self):
        text, k, ch = self.text, self.pos, self.text[self.pos]
        if ch.isalpha() or ch == "_":
            while k < self.n and (text[k].isalnum() or text[k] == "_") and ord(text[k]) < 127:
                k += 1
            return self.take("ident", k)
        if not ch.isdigit():
            return False
        if text[k:k + 2] in ("0x", "0X"):
            k += 2
            while k < self.n and text[k] in "0123456789abcdefABCDEF":
                k += 1
        while k < self.n and text[k].isdigit():
            k += 1
        if k < self.n and (text[k].isalpha() or text[k] == "_"):
            raise self.error("malformed number '%s'" % text[self.pos:k + 1])
        return self.take("num", k)

    def read_punct(self):
        for p in PUNCT:
            if self.text.startswith(p, self.pos):
                self.nest(p)
                return self.take("punct", self.pos + len(p))
        raise self.error("unexpected character '%s'" % self.text[self.pos])

    def nest(self, p):
        """Brace depth, blocks and the global block, as p opens or closes one."""
        if p == "{":
            if self.depth == 0:
                self.blocks += 1
                last = self.tokens[-1] if self.tokens else None
                self.in_global = bool(last) and last.text == "}" and last.kind == "punct"
            self.depth += 1
        elif p == "}":
            self.depth -= 1
            if self.depth < 0:
                raise self.error("'}' without a matching '{'")
            if self.depth == 0:
                self.in_global = False


def lex(path, data):
    if not data.strip():
        raise LitmusError(path, 1, 1, "empty file (expected 'C NAME' on the first line)")
    s = Scanner(path, data.decode("latin-1"))  # one char per byte: columns stay byte columns
    name, name_pos = s.name_line()
    while s.pos < s.n:
        ch = s.text[s.pos]
        if ch in " \t\r\n\f\v":
            s.adv(1)
            continue
        if s.read_info_line() or s.read_comment() or s.read_directive():
            continue
        s.refuse_foreign(ch)
        if not (s.read_string() or s.read_word()):
            s.read_punct()
    if s.depth > 0:
        raise s.error("end of file inside a '{' block (unbalanced braces)")
    s.tokens.append(Token("eof", "", s.line, s.col))
    return Lexed(name, name_pos, s.tokens, s.comments)
