#!/bin/sh
# Nothing is installed without a yes.  ./run-scenario and scripts/setup as
# root (a fake uid 0) with build packages missing: a pipe gets the command
# and exit 1, a terminal is asked (y/N), --install-deps installs the build
# packages only, and only --install-test-deps adds the arm64 architecture.
# apt-get, dpkg, dpkg-query, id and autoreconf are fakes that record what
# they were asked; nothing on this machine changes.
. "${MMT_SRCDIR:-.}/tests/lib.sh"

py=${MMT_PYTHON3:-python3}
if [ "$(uname -m)" != x86_64 ]; then
	skip "the test packages are x86_64-host only (the cross build targets aarch64)"
	done_testing
	exit
fi
tree="$scratch/tree"
fake="$scratch/fakebin"
log="$scratch/calls"
mkdir -p "$tree/scripts/lib" "$fake"
cp "$MMT_SRCDIR/run-scenario" "$tree/"
cp "$MMT_SRCDIR/scripts/setup" "$tree/scripts/"
cp "$MMT_SRCDIR/scripts/lib/build-dirs.sh" "$tree/scripts/lib/"
for tool in apt-get dpkg autoreconf; do
	printf '#!/bin/sh\necho "%s $*" >>"%s"\n' "$tool" "$log" >"$fake/$tool"
done
# Every package missing; no foreign architecture yet; uid 0; the build
# itself stops at autoreconf (it is not what is tested).
cat >>"$fake/dpkg" <<'EOT'
exit 0
EOT
printf '#!/bin/sh\nexit 1\n' >"$fake/dpkg-query"
printf '#!/bin/sh\n[ "$1" = -u ] && { echo 0; exit 0; }\nexec /usr/bin/id "$@"\n' >"$fake/id"
printf 'echo "autoreconf: the fake stops the build here" >&2\nexit 1\n' >>"$fake/autoreconf"
chmod +x "$fake"/*
P="$fake:$PATH"

fresh() { : >"$log"; }
installs() { grep -q '^apt-get install .*libnuma-dev' "$log"; }
adds_arch() { grep -q '^dpkg --add-architecture arm64' "$log"; }
cross() { grep -q '^apt-get install .*libnuma-dev:arm64' "$log"; }

fresh
PATH="$P" "$tree/run-scenario" --version </dev/null >"$scratch/out" 2>"$scratch/err"
rc=$?
[ "$rc" -eq 3 ] && ! installs && ! adds_arch && [ ! -s "$scratch/out" ] &&
	grep -q '^setup: to install them: apt-get update && apt-get install -y --no-install-recommends gcc make' "$scratch/err" &&
	grep -q 'nothing installed: run the command above, or again with --install-deps' "$scratch/err"
ok $? "./run-scenario as root on a pipe: prints the command, installs nothing, runs nothing (exit $rc: $(grep -m1 'nothing installed' "$scratch/err"))"

fresh
PATH="$P" "$py" "$MMT_SRCDIR/tests/on-pty.py" --answer n --out "$scratch/tty" -- "$tree/run-scenario" --version
rc=$?
[ "$rc" -eq 3 ] && ! installs && grep -q 'run that now? \[y/N\]' "$scratch/tty" && grep -q 'nothing installed' "$scratch/tty"
ok $? "./run-scenario as root on a terminal, answered n: asked, nothing installed (exit $rc)"

fresh
PATH="$P" "$py" "$MMT_SRCDIR/tests/on-pty.py" --answer y --out "$scratch/tty" -- "$tree/run-scenario" --version
installs && ! adds_arch && ! cross && grep -q 'run that now? \[y/N\]' "$scratch/tty"
ok $? "... answered y: the build packages installed, not the arm64 architecture ($(grep '^apt-get install' "$log" | cut -c1-60))"

fresh
PATH="$P" "$tree/run-scenario" --install-deps --version </dev/null >"$scratch/out" 2>"$scratch/err"
installs && ! adds_arch && ! cross && ! grep -q 'y/N' "$scratch/err" &&
	grep -q 'scripts/setup --install-test-deps' "$scratch/err"
ok $? "./run-scenario --install-deps: installs the build packages without asking, names the test packages, adds no architecture"

fresh
PATH="$P" "$tree/scripts/setup" --install-test-deps </dev/null >"$scratch/out" 2>"$scratch/err"
installs && adds_arch && cross && grep -q 'adding the arm64 architecture to dpkg' "$scratch/err"
ok $? "scripts/setup --install-test-deps (what scripts/check passes): the cross libraries, the arm64 architecture added"

grep -q -- '--install-test-deps' "$MMT_SRCDIR/scripts/check"
ok $? "scripts/check gives setup that consent (running the suite asks for the test packages)"

done_testing
