#!/bin/sh
# The analysis scripts run with a Python that has what they import: a
# python3 first on PATH without jsonschema (a fresh virtualenv here, as a
# pyenv or a venv is on a user's machine) runs the script again under one
# that has it (scripts/setup installs Debian's python3-jsonschema); with
# none, one line says what to install, exit 2, never a traceback.
. "${MMT_SRCDIR:-.}/tests/lib.sh"

py=${MMT_PYTHON3:-python3}
S="$MMT_SRCDIR/scripts"
if ! "$py" -m venv --without-pip "$scratch/venv" 2>/dev/null || "$scratch/venv/bin/python3" -c 'import jsonschema' 2>/dev/null; then
	skip "no virtualenv without jsonschema can be made here"
	done_testing
	exit
fi
bare="$scratch/venv/bin/python3"
has=
for p in "$py" /usr/bin/python3; do "$p" -c 'import jsonschema' 2>/dev/null && has=$p && break; done

run msgpass --variant mb --iterations 2000 --events none --output "$scratch/r.json"
if [ -n "$has" ]; then
	"$bare" "$S/compare" --variants "$scratch/r.json" >"$scratch/out" 2>&1
	rc=$?
	[ "$rc" -eq 0 ] && grep -q "msgpass" "$scratch/out"
	ok $? "compare under a python3 without jsonschema runs again under one with it (exit $rc)"
else
	skip "no python3 here has jsonschema to run again under"
fi
MMT_PYTHON_REEXEC=1 "$bare" "$S/compare" --variants "$scratch/r.json" >"$scratch/out" 2>"$scratch/err"
rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <"$scratch/err")" -eq 1 ] && grep -q "needs the Python module jsonschema.*python3-jsonschema" "$scratch/err" &&
	! grep -q Traceback "$scratch/err"
ok $? "with no python3 to run again under: one line, exit $rc: $(cat "$scratch/err")"

# What setup installs for the scripts, on Debian and on Fedora.
grep -q '^deb_pkgs=.*python3-jsonschema' "$S/setup" && grep -q '^rpm_pkgs=.*python3-jsonschema' "$S/setup"
ok $? "scripts/setup installs python3-jsonschema with the build packages"

done_testing
