# SPDX-License-Identifier: MIT
"""The Python the analysis scripts run with has what they import.

'#!/usr/bin/env python3' finds the first python3 on PATH (a pyenv or a
virtualenv, say), while scripts/setup installs Debian's python3-jsonschema
for /usr/bin/python3.  When this interpreter lacks a module another python3
has, the script runs again under that one (once: MMT_PYTHON_REEXEC guards
the loop); when none has it, one line says what to install, exit 2 -- never
a traceback.
"""
import os
import shutil
import subprocess
import sys

CANDIDATES = ("/usr/bin/python3", "/usr/local/bin/python3")


def require(module, package):
    try:
        __import__(module)
        return
    except ImportError:
        pass
    # Compared by path, not resolved: a virtualenv's python3 is a link to
    # the very interpreter it hides the system's packages from.
    here = os.path.abspath(sys.executable)
    # Read once and dropped: scripts this one starts may need their own.
    again = bool(os.environ.pop("MMT_PYTHON_REEXEC", None))
    if not again:
        for cand in (os.environ.get("MMT_PYTHON3"), shutil.which("python3"), *CANDIDATES):
            if not cand or not os.path.isfile(cand) or os.path.abspath(cand) == here:
                continue
            ok = subprocess.run([cand, "-c", f"import {module}"], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, check=False).returncode == 0
            if ok:
                os.environ["MMT_PYTHON_REEXEC"] = "1"
                os.execv(cand, [cand] + sys.argv)
    prog = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else "mmtorture"
    others = "" if again else ", nor any other python3 here"
    print(f"{prog}: needs the Python module {module}, which {sys.executable} does not have{others}: "
          f"install {package} (scripts/setup --install-deps does, for /usr/bin/python3) "
          f"or run '{sys.executable} -m pip install {module}'", file=sys.stderr)
    sys.exit(2)
