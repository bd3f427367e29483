#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Runs a command with its stderr (and stdin, and stdout unless --stdout)
on a pseudo-terminal of a given width; what the terminal received goes to
--out, byte for byte.  For tests of what mmtorture shows only on a terminal.

    on-pty.py --cols 80 --out TTY [--stdout FILE] [--answer TEXT] [--timeout S] -- CMD [ARG...]

--answer types TEXT and Enter once the terminal shows a "[y/N]" question.

Exits with the command's status (124 when it ran past --timeout).
"""
import argparse
import fcntl
import os
import select
import struct
import subprocess
import sys
import termios
import time


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cols", type=int, default=80, help="terminal width (default 80)")
    ap.add_argument("--out", required=True, help="file for what the terminal received")
    ap.add_argument("--stdout", help="the command's stdout to this file, not the terminal")
    ap.add_argument("--answer", help="typed (with Enter) when a [y/N] question appears")
    ap.add_argument("--timeout", type=float, default=120, help="seconds before it is killed (default 120)")
    ap.add_argument("cmd", nargs=argparse.REMAINDER, help="-- the command and its arguments")
    a = ap.parse_args()
    cmd = a.cmd[1:] if a.cmd[:1] == ["--"] else a.cmd
    if not cmd:
        ap.error("no command given")
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, a.cols, 0, 0))
    out = open(a.stdout, "wb") if a.stdout else slave
    # A session of its own with the pty as its controlling terminal, as a
    # login shell would have it.
    proc = subprocess.Popen(cmd, stdin=slave, stdout=out, stderr=slave, start_new_session=True)
    os.close(slave)
    got = bytearray()
    deadline = time.monotonic() + a.timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            proc.kill()
            proc.wait()
            open(a.out, "wb").write(got)
            print("on-pty: %s ran past %gs" % (cmd[0], a.timeout), file=sys.stderr)
            return 124
        ready, _, _ = select.select([master], [], [], min(left, 1.0))
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: every writer closed the terminal
                chunk = b""
            if not chunk:
                break
            got += chunk
            if a.answer is not None and b"[y/N]" in got:
                os.write(master, a.answer.encode() + b"\n")
                a.answer = None
    rc = proc.wait()
    open(a.out, "wb").write(got)
    return rc if rc >= 0 else 128 - rc


if __name__ == "__main__":
    sys.exit(main())
