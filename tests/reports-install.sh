#!/bin/sh
# make install puts the binaries, the analysis scripts (working through
# their links), the schema, the suites and mmtorture(1) in place, and the
# manual lists every option --help does; configure --with-urcu=PREFIX
# builds against PREFIX's liburcu, loads it at run time through the rpath,
# and the results say which object was loaded.
. "${MMT_SRCDIR:-.}/tests/lib.sh"

build=$(dirname "$MMT_BIN")
pfx="$scratch/pfx"
make -C "$build" install prefix="$pfx" >"$scratch/install.out" 2>&1
ok $? "make install into a scratch prefix ($(tail -n 1 "$scratch/install.out"))"
for f in bin/mmtorture bin/mmtorture-result bin/mmtorture-compare bin/mmtorture-report bin/mmtorture-nightly \
	share/mmtorture/results/schema.json share/mmtorture/suites/nightly share/man/man1/mmtorture.1 \
	share/doc/mmtorture/LICENSE bin/mmtorture-kcidb-export share/mmtorture/lava/run-suite \
	share/mmtorture/lava/mmtorture.yaml share/mmtorture/lava/kcidb-schema.json share/mmtorture/suites/smoke; do
	[ -e "$pfx/$f" ]
	ok $? "installed: $f"
done
"$MMT_BIN" --help | sed -n 's/^  \(--[a-z-]*\).*/\1/p' | sort -u >"$scratch/opts"
missing=0
while read -r o; do
	grep -q -- "^\.B $(printf '%s' "$o" | sed 's/-/\\\\-/g')" "$pfx/share/man/man1/mmtorture.1" ||
		{ echo "# not in the manual: $o"; missing=$((missing + 1)); }
done <"$scratch/opts"
[ "$missing" -eq 0 ] && [ "$(wc -l <"$scratch/opts")" -ge 10 ]
ok $? "mmtorture(1) has every option --help lists ($(wc -l <"$scratch/opts") options, $missing missing)"
"$MMT_BIN" -h >/dev/null
ok $? "mmtorture -h is --help"

if python3 -c 'import jsonschema' 2>/dev/null; then
	run msgpass --variant mb --iterations 1000 --output "$scratch/r.json"
	"$pfx/bin/mmtorture-compare" --variants "$scratch/r.json" >"$scratch/out" 2>&1 &&
		grep -q 'msgpass same-node' "$scratch/out"
	ok $? "installed mmtorture-compare runs through its link, with the installed schema"
	head -c 200 "$scratch/r.json" >"$scratch/bad.json"
	"$pfx/bin/mmtorture-report" -o "$scratch/x.html" "$scratch/bad.json" 2>"$scratch/err"
	[ $? -eq 2 ] && grep -q 'bad.json: not valid JSON' "$scratch/err"
	ok $? "installed mmtorture-report refuses a damaged file, exit 2"
	"$pfx/bin/mmtorture-kcidb-export" "$scratch/r.json" -o "$scratch/k.json" && "$pfx/bin/mmtorture-kcidb-export" --check "$scratch/k.json"
	ok $? "installed mmtorture-kcidb-export exports and checks with the installed KCIDB schema"
else
	skip "python3-jsonschema not installed: the installed scripts cannot run"
fi

# A liburcu of our own in a prefix: copies of the system's, under another
# version string, so the build and the loaded object can be told apart.
inc=$(pkg-config --variable=includedir liburcu 2>/dev/null)
lib=$(pkg-config --variable=libdir liburcu 2>/dev/null)
if [ -z "$inc" ] || [ ! -d "$inc/urcu" ] || ! command -v readelf >/dev/null; then
	skip "--with-urcu: needs the system liburcu headers (liburcu-dev) and readelf to build a test prefix"
else
	u="$scratch/urcu"
	mkdir -p "$u/include" "$u/lib/pkgconfig"
	cp -R "$inc/urcu" "$inc"/urcu*.h "$u/include/" 2>/dev/null
	cp -P "$lib"/liburcu*.so* "$u/lib/"
	for m in liburcu:urcu liburcu-cds:urcu-cds; do
		printf 'prefix=%s\nlibdir=${prefix}/lib\nincludedir=${prefix}/include\nName: %s\nDescription: test copy\nVersion: 0.0.0-mmt-test\nLibs: -L${libdir} -lurcu-common -l%s\nCflags: -I${includedir}\n' \
			"$u" "${m%%:*}" "${m#*:}" >"$u/lib/pkgconfig/${m%%:*}.pc"
	done
	mkdir -p "$scratch/b"
	(cd "$scratch/b" && "$MMT_SRCDIR/configure" --with-urcu="$u" >config.out 2>&1 && make mmtorture >make.out 2>&1)
	ok $? "configure --with-urcu=PREFIX and build ($(tail -n 1 "$scratch/b/config.out"))"
	readelf -d "$scratch/b/mmtorture" | grep -E 'RPATH|RUNPATH' | grep -q "$u/lib"
	ok $? "the binary's run-time path is PREFIX's libdir"
	(cd "$scratch" && timeout 60 "$scratch/b/mmtorture" msgpass --variant urcu-mb --iterations 1000 \
		--output "$scratch/u.json" >/dev/null 2>&1)
	python3 - "$scratch/u.json" "$u/lib" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))["metadata"]
assert m["liburcu_version"] == "0.0.0-mmt-test", m["liburcu_version"]
paths = [x["path"] for x in m["liburcu"]]
assert paths and all(p.startswith(sys.argv[2] + "/") for p in paths), paths
assert all(len(x["build_id"] or "") >= 16 for x in m["liburcu"]), m["liburcu"]
PY
	ok $? "results name PREFIX's liburcu: its version, and the loaded objects with their build-ids"
	(cd "$scratch/b" && "$MMT_SRCDIR/configure" --with-urcu="$scratch/nowhere" >config2.out 2>&1)
	[ $? -ne 0 ] && grep -q 'no liburcu.pc under' "$scratch/b/config2.out"
	ok $? "configure --with-urcu with a wrong prefix stops with the reason"
fi

done_testing
