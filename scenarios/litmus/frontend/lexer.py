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


def lex(path, data):
    if not data.strip():
        raise LitmusError(path, 1, 1, "empty file (expected 'C NAME' on the first line)")
    text = data.decode("latin-1")  # one char per byte: columns stay byte columns
    pos, line, col = 0, 1, 1
    n = len(text)

    def adv(k):
        nonlocal pos, line, col
        for ch in text[pos:pos + k]:
            if ch == "\n":
                line, col = line + 1, 1
            else:
                col += 1
        pos += k

    # The name line: "C NAME", NAME running to the end of the line.
    while pos < n and text[pos] in " \t\r\n":
        adv(1)
    eol = text.find("\n", pos)
    eol = n if eol < 0 else eol
    first = text[pos:eol].rstrip("\r \t")
    if not (first.startswith("C ") or first.startswith("C\t")):
        arch = first.split()[0] if first.split() else ""
        if arch.upper() in ASM_ARCHES:
            raise LitmusError(path, line, col, "%s assembly test: only C-litmus is supported (its first line "
                              "names the architecture, not C)" % arch)
        raise LitmusError(path, line, col, "first line must be 'C NAME' (herd7's C-litmus header)")
    name = first[2:].strip()
    name_pos = (line, col)
    for i, ch in enumerate(name):
        if ord(ch) > 126 or ord(ch) < 32:
            raise LitmusError(path, line, col + 2 + i, "test name: byte 0x%02x is not printable ASCII" % ord(ch))
    if not name:
        raise LitmusError(path, line, col, "first line must be 'C NAME': the name is missing")
    adv(eol - pos)

    # blocks: "{" opened at depth 0 so far; the first is the initial
    # state, where herd7 reads "(* ... *)" too (no C expression there).
    # in_global: inside litmus7's "{ ... }" of global C code, a block
    # opened at depth 0 right after another one closed (a thread's body
    # follows its ')').
    tokens, comments, depth, blocks, in_global = [], [], 0, 0, False
    while pos < n:
        ch = text[pos]
        if ch in " \t\r\n\f\v":
            adv(1)
            continue
        if not tokens and (pos == 0 or text[pos - 1] in " \t\n"):
            m = INFO_LINE.match(text, text.rfind("\n", 0, pos) + 1)
            if m and m.end() > pos:
                comments.append(m.group(0).strip())  # before the initial state: an info line
                adv(m.end() - pos)
                continue
        two = text[pos:pos + 2]
        if two == "(*" and (depth == 0 or (depth == 1 and blocks == 1)):
            end = text.find("*)", pos + 2)
            if end < 0:
                raise LitmusError(path, line, col, "comment '(*' is never closed with '*)'")
            comments.append(text[pos + 2:end])
            adv(end + 2 - pos)
            continue
        if two == "/*":
            end = text.find("*/", pos + 2)
            if end < 0:
                raise LitmusError(path, line, col, "comment '/*' is never closed with '*/'")
            comments.append(text[pos + 2:end])
            adv(end + 2 - pos)
            continue
        if two == "//":
            end = text.find("\n", pos)
            end = n if end < 0 else end
            comments.append(text[pos + 2:end])
            adv(end - pos)
            continue
        if ch == "#":
            end = text.find("\n", pos)
            end = n if end < 0 else end
            directive = text[pos:end].split("//")[0].strip()
            word = re.match(r"#\s*(\w*)", directive).group(1)
            if not in_global:
                raise LitmusError(path, line, col, "'%s': a preprocessor line is read only in litmus7's global block "
                                  "'{ ... }' before the threads (herd7's C has no '#')" % directive)
            if word != "include":
                raise LitmusError(path, line, col, "'%s' in the global block: only #include is read (the front end "
                                  "binds the primitives itself; a '#%s' could change what the test means)"
                                  % (directive, word))
            comments.append(text[pos:end])	# the test's primitives' header: prims.py binds them
            adv(end - pos)
            continue
        if ch == "?":
            raise LitmusError(path, line, col, "'?' (C's conditional operator a ? b : c) is not in herd7's C dialect, "
                              "nor read here: write it with 'if'")
        if ord(ch) > 126 or (ord(ch) < 32):
            raise LitmusError(path, line, col, "byte 0x%02x outside a comment (only ASCII is accepted)" % ord(ch))
        if ch == '"':
            end = text.find('"', pos + 1)
            if end < 0 or "\n" in text[pos:end]:
                raise LitmusError(path, line, col, "string is never closed on its line")
            comments.append(text[pos + 1:end])  # herd7 doc strings
            adv(end + 1 - pos)
            continue
        start_line, start_col = line, col
        if ch.isalpha() or ch == "_":
            k = pos
            while k < n and (text[k].isalnum() or text[k] == "_") and ord(text[k]) < 127:
                k += 1
            tokens.append(Token("ident", text[pos:k], start_line, start_col))
            adv(k - pos)
            continue
        if ch.isdigit():
            k = pos
            if text[pos:pos + 2] in ("0x", "0X"):
                k += 2
                while k < n and text[k] in "0123456789abcdefABCDEF":
                    k += 1
            while k < n and text[k].isdigit():
                k += 1
            if k < n and (text[k].isalpha() or text[k] == "_"):
                raise LitmusError(path, line, col, "malformed number '%s'" % text[pos:k + 1])
            tokens.append(Token("num", text[pos:k], start_line, start_col))
            adv(k - pos)
            continue
        for p in PUNCT:
            if text.startswith(p, pos):
                if p == "{":
                    if depth == 0:
                        blocks += 1
                        in_global = bool(tokens) and tokens[-1].text == "}" and tokens[-1].kind == "punct"
                    depth += 1
                elif p == "}":
                    depth -= 1
                    if depth < 0:
                        raise LitmusError(path, line, col, "'}' without a matching '{'")
                    if depth == 0:
                        in_global = False
                tokens.append(Token("punct", p, start_line, start_col))
                adv(len(p))
                break
        else:
            raise LitmusError(path, line, col, "unexpected character '%s'" % ch)
    if depth > 0:
        raise LitmusError(path, line, col, "end of file inside a '{' block (unbalanced braces)")
    tokens.append(Token("eof", "", line, col))
    return Lexed(name, name_pos, tokens, comments)
