#!/bin/sh
# End to end on a real LAVA (optional): two jobs of suites/lab from
# lava/jobs/qemu-x86_64.yaml, one plain and one --assume-forbidden, on the
# qemu devices of a LAVA that runs on this machine (lava/local-lab), then
# scripts/kcidb-export over each through the REST API.  Both jobs are
# "Complete": the forbidden witness shows only in the test cases, which is
# why the verdicts are read from them.  Skipped, with the reason, when
# LAVA is not installed or not running; a few minutes of TCG otherwise.
#
#   MMT_LAVA_URL       the server (default http://127.0.0.1:8000)
#   MMT_LAVA_IDENTITY  the lavacli identity (default mmtorture, as
#                      lava/local-lab setup writes it)
. "${MMT_SRCDIR:-.}/tests/lib.sh"

url=${MMT_LAVA_URL:-http://127.0.0.1:8000}
id=${MMT_LAVA_IDENTITY:-mmtorture}
how="as root: apt-get install lava-server lava-dispatcher lavacli; lava/local-lab setup; lava/local-lab start (lava/local-lab stop afterwards)"
if ! command -v lava-server >/dev/null 2>&1 || ! command -v lavacli >/dev/null 2>&1; then
	skip "LAVA is not installed ($how)"
	done_testing
	exit
fi
if ! timeout 10 "${MMT_PYTHON3:-python3}" -c "import sys, urllib.request; urllib.request.urlopen(sys.argv[1] + '/api/v0.2/', timeout=5)" "$url" 2>/dev/null; then
	skip "LAVA is installed but no server answers at $url (start it: lava/local-lab start)"
	done_testing
	exit
fi
if ! timeout 30 lavacli -i "$id" devices list >"$scratch/devices" 2>&1 || ! grep -q 'qemu.*Idle\|qemu.*Good' "$scratch/devices"; then
	skip "no lavacli identity '$id' with an idle qemu device at $url: $(tail -n 1 "$scratch/devices") (lava/local-lab setup)"
	done_testing
	exit
fi
token=${MMT_LAVA_TOKEN:-$(awk -v id="$id:" '$1 == id { on = 1; next } /^[^ ]/ { on = 0 } on && $1 == "token:" { print $2 }' \
	"$HOME/.config/lavacli.yaml" 2>/dev/null)}

art="$scratch/art"
"$MMT_SRCDIR/scripts/lava-artefacts" --out "$art" >/dev/null 2>"$scratch/err"
ok $? "artefacts built ($(tail -n 1 "$scratch/err" | cut -c1-80))"
for kind in plain forbidden; do
	extra=
	[ $kind = forbidden ] && extra=--assume-forbidden
	"$MMT_SRCDIR/lava/make-job" "$MMT_SRCDIR/lava/jobs/qemu-x86_64.yaml" --kernel-url "file://$art/vmlinuz" \
		--ramdisk-url "file://$art/initramfs.cpio.gz" --suite lab --timeout 300 --minutes 15 --args "$extra" \
		>"$scratch/job-$kind.yaml" &&
		lavacli -i "$id" jobs submit "$scratch/job-$kind.yaml" >"$scratch/id-$kind" 2>&1
	echo $? >"$scratch/rc-$kind"
done
[ "$(cat "$scratch/rc-plain")" -eq 0 ] && [ "$(cat "$scratch/rc-forbidden")" -eq 0 ]
ok $? "both jobs submitted: $(cat "$scratch/id-plain") and $(cat "$scratch/id-forbidden")"
job_p=$(cat "$scratch/id-plain")
job_f=$(cat "$scratch/id-forbidden")

# Bounded: a job of this suite takes 1-3 minutes of TCG; 20 minutes is a stuck lab.
waited=0
for j in $job_p $job_f; do
	while :; do
		state=$(lavacli -i "$id" jobs show "$j" 2>/dev/null | awk -F': ' '/^state/ { print $2 }')
		[ "$state" = Finished ] && break
		if [ $waited -ge 1200 ]; then
			echo "# gave up after ${waited} s waiting for LAVA job $j to finish (state '$state')"
			break
		fi
		sleep 5
		waited=$((waited + 5))
	done
done
health() { lavacli -i "$id" jobs show "$1" 2>/dev/null | awk -F': ' '/^Health/ { print $2 }'; }
[ "$(health "$job_p")" = Complete ] && [ "$(health "$job_f")" = Complete ]
ok $? "both jobs Complete, the --assume-forbidden one too (health $(health "$job_p"), $(health "$job_f"); ${waited} s)"

for j in $job_p $job_f; do
	"$MMT_SRCDIR/scripts/kcidb-export" --lava-url "$url" --lava-job "$j" ${token:+--lava-token "$token"} \
		-o "$scratch/k-$j.json" 2>"$scratch/err-$j" && "$MMT_SRCDIR/scripts/kcidb-export" --check "$scratch/k-$j.json"
	echo $? >"$scratch/krc-$j"
	lavacli -i "$id" results "$j" 2>/dev/null | grep -v '\* lava\.' | sed 's/^/# job '"$j"': /'
done
[ "$(cat "$scratch/krc-$job_p")" -eq 0 ] && [ "$(cat "$scratch/krc-$job_f")" -eq 0 ]
ok $? "kcidb-export through the REST API: both valid ($(cat "$scratch/err-$job_p" "$scratch/err-$job_f" | head -n 1))"
q() { "${MMT_PYTHON3:-python3}" -c "import json,sys; t=json.load(open(sys.argv[1]))['tests']; print($2)" "$1"; }
[ "$(q "$scratch/k-$job_p.json" 'sorted(x["status"] for x in t if x["path"].endswith(".exit-code"))')" = "['PASS', 'PASS']" ] &&
	[ "$(q "$scratch/k-$job_p.json" 'all(x["misc"]["lava_result"]=={"PASS":"pass","FAIL":"fail","SKIP":"skip","DONE":"skip","ERROR":"fail"}[x["status"]] for x in t)')" = True ]
ok $? "plain job: exit-code cases pass, every run's KCIDB status matches its LAVA case"
[ "$(q "$scratch/k-$job_f.json" '[x["status"] for x in t if x["path"]=="mmtorture.msgpass.exit-code"]')" = "['FAIL']" ] &&
	[ "$(q "$scratch/k-$job_f.json" 'sorted({x["misc"]["lava_result"] for x in t if x["path"]=="mmtorture.msgpass.broken-publish-first.same-node"})')" = "['fail']" ]
ok $? "--assume-forbidden job: the witness fails its case and msgpass.exit-code, though the job is Complete"
[ "$(q "$scratch/k-$job_p.json" 'len({x["environment"]["misc"]["host"]["host_id"] for x in t})')" -eq 1 ] &&
	[ "$(q "$scratch/k-$job_p.json" 'all(x["environment"]["misc"]["host"].get("lava_device") for x in t)')" = True ]
ok $? "one host per job, its LAVA device named in every test"

done_testing
