#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write the README's generated tables in, or check that they are current.

  scripts/readme-tables README.md CLI_DOC [--check]

Each table sits between a marker line '<!-- generated: NAME -->' and
'<!-- end generated -->'; its text is what 'CLI_DOC NAME' prints (the
option and exit-code rows the binary parses with, harness/cli-options.c and
harness/exit-codes.c).  make readme writes them in; tests/cli-doc.sh runs
this with --check.

Exit: 0 current (or written), 1 --check found a table that drifted,
2 bad input (no such file, a marker without its end, an unknown table).
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

BEGIN = re.compile(r"^<!-- generated: ([a-z-]+) -->\n$")
END = "<!-- end generated -->\n"


def fail(msg):
    print(f"readme-tables: {msg}", file=sys.stderr)
    sys.exit(2)


def generated(cli_doc, name):
    try:
        out = subprocess.run([cli_doc, name], capture_output=True, text=True, check=False)
    except OSError as e:
        fail(f"{cli_doc}: {e.strerror}")
    if out.returncode:
        fail(f"{cli_doc} {name}: {out.stderr.strip() or 'exit %d' % out.returncode}")
    return out.stdout


def rewrite(lines, cli_doc, path):
    """The README with every generated table replaced; the names found."""
    out, names, i = [], [], 0
    while i < len(lines):
        out.append(lines[i])
        m = BEGIN.match(lines[i])
        i += 1
        if not m:
            continue
        try:
            end = lines.index(END, i)
        except ValueError:
            fail(f"{path}: '<!-- generated: {m.group(1)} -->' has no '{END.strip()}'")
        out.extend(generated(cli_doc, m.group(1)).splitlines(keepends=True))
        out.append(END)
        names.append(m.group(1))
        i = end + 1
    return out, names


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 2)[2])
    ap.add_argument("readme", help="the README to write or check")
    ap.add_argument("cli_doc", help="the built cli-doc program")
    ap.add_argument("--check", action="store_true",
                    help="change nothing; exit 1 naming each table that drifted")
    args = ap.parse_args()
    try:
        with open(args.readme, encoding="utf-8") as f:
            lines = f.readlines()
    except OSError as e:
        fail(f"{args.readme}: {e.strerror}")
    new, names = rewrite(lines, args.cli_doc, args.readme)
    if not names:
        fail(f"{args.readme}: no '<!-- generated: NAME -->' marker")
    if args.check:
        if new != lines:
            print(f"readme-tables: {args.readme}: the generated tables ({', '.join(names)}) "
                  f"differ from the binary's rows: run 'make readme'", file=sys.stderr)
            return 1
        return 0
    if new != lines:
        d = os.path.dirname(os.path.abspath(args.readme))
        with tempfile.NamedTemporaryFile("w", dir=d, delete=False, encoding="utf-8") as t:
            t.writelines(new)
        os.chmod(t.name, os.stat(args.readme).st_mode & 0o777)
        os.replace(t.name, args.readme)
    return 0


if __name__ == "__main__":
    sys.exit(main())
