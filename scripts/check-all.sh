#!/bin/bash
# check-all.sh [--all]: what 'make check' (and CI) runs; --all ('make
# check-all') adds make check-cross.
# Installs the dependencies, starts building crash 8.0.6 for the post-mortem
# step in the background (scripts/install-crash.sh, at nice 19),
# then runs every test suite in turn, each logged to build/check/STEP.log,
# and ends with a summary: every step's verdict and test counts, KUnit's
# totals per architecture, and the closing line "N passed, N failed" (the
# sum of the suites' test counts; a step that failed without counting
# counts as one failure). Exit status 1 if anything failed.
set -uo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
logs=$repo/build/check
mkdir -p "$logs"
start=$(date +%s)

steps=()
declare -A verdict passed failed took
total_pass=0 total_fail=0

# run STEP COMMAND...: run, log, and count the step's last "N passed, N failed"
run() {
	local step=$1; shift
	local log=$logs/$step.log t0 rc p f line
	t0=$(date +%s)
	echo "=== $step: $*"
	"$@" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	line=$(grep -aE '^([A-Za-z0-9_-]+: )?[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1 || true)
	if [ -n "$line" ]; then
		p=$(sed -E 's/^([A-Za-z0-9_-]+: )?([0-9]+) passed, ([0-9]+) failed.*/\2/' <<<"$line")
		f=$(sed -E 's/^([A-Za-z0-9_-]+: )?([0-9]+) passed, ([0-9]+) failed.*/\3/' <<<"$line")
	else
		p=0 f=0
	fi
	# a step without a count of its own is one test
	if [ -z "$line" ]; then
		if [ "$rc" = 0 ]; then p=1; else f=1; fi
	fi
	if [ "$rc" != 0 ] && [ "$f" = 0 ]; then f=1; fi
	steps+=("$step"); passed[$step]=$p; failed[$step]=$f
	took[$step]=$(( $(date +%s) - t0 ))
	if [ "$rc" = 0 ]; then verdict[$step]=ok; else verdict[$step]=FAILED; fi
	total_pass=$((total_pass + p)); total_fail=$((total_fail + f))
	echo "=== $step: ${verdict[$step]} ($p passed, $f failed, ${took[$step]}s)"
}

# KUnit: kunit.py's totals become the step's count line
kunit() {
	local arch=$1
	make -s kunit-"$arch" || return 1
}
kunit_counts() {
	local arch=$1 json=$repo/build/kunit-$arch.json
	[ -f "$json" ] || return 0
	/usr/bin/python3 - "$json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
def walk(t, acc):
    for c in t.get("test_cases", []):
        st = c.get("status", "")
        if st == "PASS": acc[0] += 1
        elif st == "SKIP": acc[2] += 1
        else: acc[1] += 1
    for s in t.get("sub_groups", []):
        walk(s, acc)
acc = [0, 0, 0]
walk(d, acc)
print(f"kunit: {acc[0]} passed, {acc[1]} failed, {acc[2]} skipped")
PY
}
kunit_step() {
	local arch=$1
	kunit "$arch"; local rc=$?
	kunit_counts "$arch"
	return $rc
}

make -s deps || echo "check-all: installing the dependencies failed; going on"
# crash 8.0.6 (built from source, ~12 CPU-minutes cold) is only needed by the
# postmortem step near the end: build it meanwhile at the lowest priority, on
# the CPU time the other steps leave idle (a single-threaded QEMU TCG guest,
# checkpatch, the fuzzers); step "crash" waits for it and shows its log.
crash_rc=$logs/crash-build.rc crash_log=$logs/crash-build.log
rm -f "$crash_rc"
(nice -n 19 bash scripts/install-crash.sh; echo $? > "$crash_rc") > "$crash_log" 2>&1 &
crash_bg=$!
crash_wait() {
	local t0
	t0=$(date +%s)
	while [ ! -s "$crash_rc" ] && kill -0 "$crash_bg" 2>/dev/null; do sleep 5; done
	cat "$crash_log"
	echo "check-all: waited $(( $(date +%s) - t0 ))s for the background crash build"
	[ "$(cat "$crash_rc" 2>/dev/null)" = 0 ]
}
run checkpatch make -s checkpatch
run tools make -s check-tools
run kunit-x86_64 kunit_step x86_64
run kunit-i386 kunit_step i386
run formats-x86_64 make -s check-formats-x86_64
run formats-i386 make -s check-formats-i386
run module-x86_64 make -s check-module-x86_64
run module-i386 make -s check-module-i386
run analyzer-x86_64 make -s check-analyzer-x86_64
run analyzer-i386 make -s check-analyzer-i386
run guest make -s check-guest GUEST_TESTS="--only stress --only bpftrace"
run live bash scripts/test-live.sh
# The post-mortem test (crash + drgn on a vmcore of the guest): crash is
# scripts/install-crash.sh's 8.0.6 with tools/crash/patches/ (Debian's 8.0.2
# overflows a heap buffer on 6.12 dumps and failed at random, see
# docs/howto-postmortem.md); if its background build failed, the postmortem
# step tries the build once more itself.
run crash crash_wait
run postmortem make -s check-postmortem
# make check-all: also the other architectures
if [ "${1:-}" = --all ]; then
	run cross make -s check-cross
fi

echo
echo "================ make check summary ================"
for s in "${steps[@]}"; do
	printf '%-16s %-7s %4s passed %4s failed %5ss\n' "$s" "${verdict[$s]}" \
		"${passed[$s]}" "${failed[$s]}" "${took[$s]}"
done
kunit_logs=(x86_64:build/kunit-x86_64.log i386:build/kunit-i386.log)
[ "${1:-}" != --all ] || kunit_logs+=(arm:build/cross/kunit-arm.log mips:build/cross/kunit-mips.log
	powerpc:build/cross/kunit-powerpc.log)
for al in "${kunit_logs[@]}"; do
	a=${al%%:*}
	grep -ahE '^\[[ 0-9.]+\] # Totals: ' "${al#*:}" 2>/dev/null | tail -n 1 |
		sed -E "s/^\[[ 0-9.]+\] # /KUnit $a TAP /" || true
done
echo "total time: $(( $(date +%s) - start ))s"
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" = 0 ]
