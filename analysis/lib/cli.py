# SPDX-License-Identifier: MIT
"""What every analysis script shares: argparse whose errors are one line and
exit 2, and a main() wrapper that turns bad input into exit 2 with one line
and our own bugs into exit 3 (never 1, which compare and nightly use for
"regressed"), never a bare traceback."""
import argparse
import os
import sys
import traceback

import mmt_results as R

EXIT_BAD_INPUT = 2
EXIT_INTERNAL = 3


class Parser(argparse.ArgumentParser):
    def __init__(self, prog, doc, **kw):
        lines = doc.strip().splitlines()
        super().__init__(prog=prog, description=lines[0],
                         epilog="\n".join(lines[1:]).strip() or None,
                         formatter_class=argparse.RawDescriptionHelpFormatter, **kw)

    def error(self, message):
        print(f"{self.prog}: {message} (see --help)", file=sys.stderr)
        sys.exit(EXIT_BAD_INPUT)


def run(prog, main, argv):
    try:
        return main(argv)
    except R.ResultsError as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # stdout closed early (| head): not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as e:  # noqa: BLE001 - the point is to catch our own bugs
        tb = traceback.extract_tb(e.__traceback__)[-1]
        print(f"{prog}: internal error (a bug, please report): {type(e).__name__}: {e} "
              f"at {os.path.basename(tb.filename)}:{tb.lineno}", file=sys.stderr)
        if os.environ.get("MMT_DEBUG"):
            traceback.print_exc()
        return EXIT_INTERNAL
