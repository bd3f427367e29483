#!/bin/sh
# Installs what mmtorture needs to build, when allowed to, then configures
# and builds.  Idempotent: a second run only rebuilds what changed.
#
#   scripts/setup [--install-deps|--install-test-deps] [CONFIGURE-ARGS...]
#
#   --install-deps       as root: install the missing build packages
#                        (apt-get or dnf) without asking
#   --install-test-deps  as --install-deps, and the packages the tests use
#                        when present: the aarch64 cross compiler, qemu,
#                        busybox-static, kmod, and Debian's arm64 libraries, which
#                        adds the arm64 architecture to dpkg (scripts/check
#                        passes this: running the suite asks for them)
#   CONFIGURE-ARGS       passed to configure (e.g. --with-urcu=/opt/urcu) and
#                        kept: later runs, and scripts/check's reconfigure
#                        for --enable-werror, reuse what config.status was
#                        given unless new arguments are given ("--" alone:
#                        configure with none)
#
# Without a flag, missing build packages are named with the command that
# installs them; as root on a terminal it asks first (y/N), elsewhere it
# exits 1.  Nothing is installed without one or the other.
#
# Builds into build/, or in the source directory when ./configure ran there.
#
#   MMT_WERROR=1  configure with --enable-werror (scripts/check sets it)
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib/build-dirs.sh"
build=$(mmt_build_dir "$top")

say() { printf 'setup: %s\n' "$*" >&2; }

consent=none
configure_given=0
configure_args=
# quote WORD: WORD in single quotes, for eval (config.status --config's form).
quote() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }
for a in "$@"; do
	case $a in
	--install-deps) [ "$consent" = test-deps ] || consent=deps ;;
	--install-test-deps) consent=test-deps ;;
	--enable-werror) MMT_WERROR=1 ;; # kept as MMT_WERROR would keep it
	--) configure_given=1 ;; # "scripts/setup --": none, forget the kept ones
	-h|--help) sed -n '2,/^set -eu/{/^set -eu/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
	*)
		configure_given=1
		configure_args="$configure_args $(quote "$a")" ;;
	esac
done

# libck-dev (concurrencykit) beside liburcu-dev: configure builds without
# it, its variants then skipped with the reason (--without-ck to refuse it).
deb_pkgs="gcc make autoconf automake pkgconf libnuma-dev liburcu-dev libck-dev libpfm4-dev libjansson-dev python3 python3-jsonschema"
# Optional: used by tests when present (aarch64 cross-compile of the
# barriers; scripts/numa-vm's emulated NUMA machines; kmod's depmod for
# scripts/lava-artefacts' initramfs).
deb_optional="gcc-aarch64-linux-gnu binutils-aarch64-linux-gnu qemu-system-x86 qemu-system-arm busybox-static cpio file kmod valgrind"
rpm_pkgs="gcc make autoconf automake pkgconf-pkg-config numactl-devel userspace-rcu-devel ck-devel libpfm-devel jansson-devel python3 python3-jsonschema"
# Optional: the aarch64 cross build run under qemu-user (tests/aarch64.sh):
# Debian's arm64 -dev packages through multiarch.
# Not libck-dev:arm64: Debian marks it Multi-Arch: same, but its
# /usr/include/ck_md.h (CK_MD_RMO) differs from amd64's (CK_MD_TSO), so
# the two cannot be installed together; the aarch64 build goes without ck.
cross_pkgs="libc6-dev:arm64 libnuma-dev:arm64 liburcu-dev:arm64 libpfm4-dev:arm64 libjansson-dev:arm64 qemu-user-static"

deb_missing() {  # deb_missing PKG...: those not installed
	for p in "$@"; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			printf '%s ' "$p"
	done
}

missing_packages() {
	if command -v dpkg-query >/dev/null 2>&1; then
		# shellcheck disable=SC2086
		deb_missing $deb_pkgs
	elif command -v rpm >/dev/null 2>&1; then
		for p in $rpm_pkgs; do
			rpm -q --whatprovides "$p" >/dev/null 2>&1 || printf '%s ' "$p"
		done
	fi
}

# ask QUESTION: yes only from a person at a terminal (stdin and stderr).
ask() {
	[ -t 0 ] && [ -t 2 ] || return 1
	printf 'setup: %s [y/N] ' "$1" >&2
	read -r answer || return 1
	case $answer in [yY]|[yY][eE][sS]) return 0 ;; esac
	return 1
}

apt() { DEBIAN_FRONTEND=noninteractive apt-get "$@" >&2; }

install_packages() {
	missing=$(missing_packages)
	[ -n "$missing" ] || return 0
	missing=${missing% }
	if command -v apt-get >/dev/null 2>&1; then
		cmd="apt-get update && apt-get install -y --no-install-recommends $missing"
	elif command -v dnf >/dev/null 2>&1; then
		cmd="dnf install -y $missing"
	else
		say "unknown package manager: install the equivalents of: $deb_pkgs"
		exit 1
	fi
	if [ "$(id -u)" -ne 0 ]; then
		say "missing packages; run: sudo sh -c '$cmd'"
		exit 1
	fi
	if [ "$consent" = none ]; then
		say "missing build packages: $missing"
		say "to install them: $cmd"
		if ! ask "run that now?"; then
			say "nothing installed: run the command above, or again with --install-deps (./run-scenario --install-deps)"
			exit 1
		fi
	fi
	say "installing: $missing"
	if command -v apt-get >/dev/null 2>&1; then
		apt update -qq
		# shellcheck disable=SC2086
		apt install -y -qq --no-install-recommends $missing
	else
		# shellcheck disable=SC2086
		dnf install -y -q $missing >&2
	fi
}

# The test packages: only with --install-test-deps; otherwise named once.
install_test_packages() {
	command -v apt-get >/dev/null 2>&1 && [ "$(uname -m)" = x86_64 ] || return 0
	# shellcheck disable=SC2086
	want=$(deb_missing $deb_optional)
	# shellcheck disable=SC2086
	cross=$(deb_missing $cross_pkgs)
	[ -n "$want$cross" ] || return 0
	add_arch=
	dpkg --print-foreign-architectures | grep -qx arm64 || add_arch="dpkg --add-architecture arm64 && "
	[ -n "$cross" ] || add_arch=
	cmd="${add_arch}apt-get update && apt-get install -y --no-install-recommends $want$cross"
	if [ "$consent" != test-deps ] || [ "$(id -u)" -ne 0 ]; then
		say "the tests that need $want$cross will skip; to install them: ${cmd% } (or scripts/setup --install-test-deps as root)"
		return 0
	fi
	if [ -n "$want" ]; then
		say "installing optional: $want"
		# shellcheck disable=SC2086
		{ apt install -y -qq --no-install-recommends $want ||
			{ apt update -qq && apt install -y -qq --no-install-recommends $want; }; } ||
			say "optional packages not installed; the tests that need them will skip"
	fi
	if [ -n "$cross" ]; then
		say "installing the aarch64 cross libraries: $cross${add_arch:+ (adding the arm64 architecture to dpkg)}"
		# shellcheck disable=SC2086
		{ [ -z "$add_arch" ] || dpkg --add-architecture arm64; } && apt update -qq &&
			apt install -y -qq --no-install-recommends $cross ||
			say "aarch64 cross libraries not installed; tests/aarch64.sh will skip"
	fi
}

install_packages
install_test_packages

cd "$top"
if [ ! -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt Makefile.in ] ||
	[ scenarios/Makefile.inc -nt Makefile.in ] || [ tests/Makefile.inc -nt Makefile.in ]; then
	say "autoreconf"
	autoreconf -fi >&2
fi

# The configure arguments: those given now, else those the build was
# configured with (config.status --config), so a --with-urcu=PREFIX or a
# CFLAGS=... survives every later setup and check.  --enable-werror alone
# follows MMT_WERROR.
requote() {  # requote QUOTED-WORDS: the same words, quoted one way, werror dropped
	eval "set -- $1"
	for w in "$@"; do
		case $w in --enable-werror|--enable-werror=*|--disable-werror) ;; *) printf ' %s' "$(quote "$w")" ;; esac
	done
}
had=
[ -f "$build/config.status" ] && had=$("$build/config.status" --config)
[ "$configure_given" = 1 ] || configure_args=$had
args=$(requote "$configure_args")
[ "${MMT_WERROR:-0}" = 1 ] && args="$args '--enable-werror'"
had_args=
if [ -f "$build/config.status" ]; then
	had_args=$(requote "$had")
	eval "set -- $had"
	for w in "$@"; do [ "$w" != --enable-werror ] || had_args="$had_args '--enable-werror'"; done
fi
logs="$top/build"
mkdir -p "$build" "$logs"
if [ ! -f "$build/config.status" ] || [ "$args" != "$had_args" ] || [ "$build/config.status" -ot configure ]; then
	say "configure$args"
	(cd "$build" && eval "\"\$top/configure\" $args" >"$logs/config.out" 2>&1) || {
		# configure's own last line names the missing package
		tail -n 1 "$logs/config.out" >&2
		exit 1
	}
fi
say "make"
make -C "$build" -j"$(getconf _NPROCESSORS_ONLN)" >"$logs/make.out" 2>&1 || {
	cat "$logs/make.out" >&2
	exit 1
}
# A run killed where nothing can run (SIGKILL, the OOM killer) may have left
# a sysctl changed: put it back now, before anything is measured.
if [ "$(id -u)" -eq 0 ]; then
	"$build/mmtorture" --restore 2>&1 | grep -v 'nothing to restore' | sed 's/^mmtorture: /setup: /' >&2 || true
fi
