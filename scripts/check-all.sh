#!/bin/bash
# check-all.sh [--all]: what 'make check' (and CI) runs; --all ('make
# check-all') adds make check-cross.
# Installs the dependencies, starts building crash 8.0.6 for the post-mortem
# step in the background (scripts/install-crash.sh, at nice 19),
# then runs every test suite in turn, each logged to build/check/STEP.log,
# and ends with a summary: every step's verdict and test counts, KUnit's
# TAP totals per architecture, and the closing line "N passed, N failed"
# (the sum of the steps' closing lines, read by scripts/testlib.sh's
# read_counts; a step without one counts as one test, and a step that
# failed without counting a failure counts one). Exit status 1 if anything
# failed.
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
. scripts/testlib.sh
logs=$KMS_TOP_BUILD/check
mkdir -p "$logs"
start=$(date +%s)

steps=()
declare -A verdict passed failed took
total_pass=0 total_fail=0

# run STEP COMMAND...: run, log to build/check/STEP.log, count
run() {
	local step=$1; shift
	local log=$logs/$step.log t0 rc p f
	t0=$(date +%s)
	echo "=== $step: $*"
	"$@" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	if read_counts "$log"; then
		p=$KMS_P f=$KMS_F
	elif [ "$rc" = 0 ]; then
		p=1 f=0
	else
		p=0 f=1
	fi
	[ "$rc" = 0 ] || [ "$f" -gt 0 ] || f=1
	steps+=("$step"); passed[$step]=$p; failed[$step]=$f
	took[$step]=$(( $(date +%s) - t0 ))
	if [ "$rc" = 0 ]; then verdict[$step]=ok; else verdict[$step]=FAILED; fi
	total_pass=$((total_pass + p)); total_fail=$((total_fail + f))
	echo "=== $step: ${verdict[$step]} ($p passed, $f failed, ${took[$step]}s)"
}

make -s deps || echo "check-all: installing the dependencies failed; going on"
# Disk: a check from nothing leaves about 7 GiB under build/ (two kernel
# trees, their pristine repos, five kernel builds); at the first step that
# finds the disk full, git or the linker fails with a message about one file.
# Say it once, at the start, in the terms of what is short.
need_gib=10
[ ! -e "$KMS_BUILD/linux" ] || [ ! -e "$KMS_TOP_BUILD/6.12/linux" ] || need_gib=2
mkdir -p "$KMS_TOP_BUILD"
free_gib=$(( $(df -Pk "$KMS_TOP_BUILD" | awk 'NR == 2 { print $4 }') / 1048576 ))
if [ "$free_gib" -lt "$need_gib" ]; then
	echo "check-all: $free_gib GiB free on the disk of $KMS_TOP_BUILD; make check needs about $need_gib GiB (kernel trees and builds): free some, or set KMAPSTACK_BUILD to a larger disk"
	echo "0 passed, 1 failed"
	exit 1
fi
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
# The architectures whose KUnit suite runs in make check (and so whose TAP
# totals the summary shows), in step order
kunit_arches=(x86_64 i386 arm64 x86_64@6.12 i386@6.12)
# kunit_log ARCH: where run-kunit.sh writes ARCH's console log (its
# KMAPSTACK_KUNIT_LOGDIR default); the JSON and counts go beside it
# (ARCH@6.12: the 6.12 backport's, under build/6.12)
kunit_log() {
	case "$1" in
	*@6.12) echo "$KMS_TOP_BUILD/6.12/kunit-${1%@6.12}.log" ;;
	x86_64|i386|arm64) echo "$KMS_BUILD/kunit-$1.log" ;;
	*) echo "$KMS_BUILD/cross/kunit-$1.log" ;;
	esac
}
# kunit_clean ARCH...: remove the files an earlier run-kunit.sh left for
# ARCH.  run-kunit.sh removes them itself, but only once it runs: 'make
# kunit-ARCH' does not run it when the kernel build fails, and the summary
# would then show the previous run's TAP totals.
kunit_clean() {
	local a klog
	for a in "$@"; do
		klog=$(kunit_log "$a")
		rm -f "$klog" "$klog.stdout" "$klog.parse" "${klog%.log}.json" "${klog%.log}.json.counts"
	done
}
# run_kunit ARCH [MAKE ARGS]: the step kunit-ARCH, on no file of an
# earlier run; ARCH@6.12: on the 6.12 backport (make BASE=6.12)
run_kunit() {
	local a=$1
	shift
	kunit_clean "$a"
	case "$a" in
	*@6.12) run "kunit-${a%@6.12}-6.12" make -s "kunit-${a%@6.12}" BASE=6.12 "$@" ;;
	*) run "kunit-$a" make -s "kunit-$a" "$@" ;;
	esac
}
run checkpatch make -s checkpatch
# the kernel tree follows kernel-patch/ and the tarball (a toy kernel)
run tree make -s check-tree
# the set-up goes on past a failed apt-get update (stand-ins for apt)
run deps make -s check-deps
# the log readers every verdict comes from
run lib make -s check-lib
# the static LIFO check: its cases, and a slice of the pristine tree
run static make -s check-static
# the analyzer's tests: unit + end-to-end, the same under ASan+UBSan,
# clang-format, the fuzzers (tools/kmapstack 'make check', a step each)
run tools-test make -s -C tools/kmapstack test
run tools-asan make -s -C tools/kmapstack test-asan
run tools-clang-format make -s -C tools/kmapstack format-check
run tools-fuzz make -s -C tools/kmapstack fuzz
# the drgn script's -p/-c arguments and errors (the listing: postmortem)
run drgn make -s check-drgn
# the tools installed as a user or Debian installs them: make install and
# uninstall, the Debian package built, lintian-clean, installed and run
run package make -s check-package
run_kunit x86_64
run_kunit i386
run event-formats-x86_64 make -s check-event-formats-x86_64
run event-formats-i386 make -s check-event-formats-i386
run module-x86_64 make -s check-module-x86_64
run module-i386 make -s check-module-i386
# the romfs bug on real highmem (an i386 kernel of its own: romfs, loop)
run romfs-highmem make -s check-romfs-highmem
run suites make -s check-suites
run analyzer-x86_64 make -s check-analyzer-x86_64
run analyzer-i386 make -s check-analyzer-i386
run guest make -s check-guest GUEST_TESTS="--only stress --only bpftrace --only erofs --only romfs"
run live make -s check-live
# arm64 (cross-built, TCG): the KUnit suite, booted without stack traces
# (the fast paths), and the test module
run_kunit arm64 KUNIT_TRACES=0
run module-arm64 make -s check-module-arm64
# The 6.12 LTS backport (kernel-patch/6.12/, built under build/6.12): its
# checkpatch, the KUnit suite and the test module on x86_64 and i386
run checkpatch-6.12 make -s checkpatch BASE=6.12
run_kunit x86_64@6.12
run module-x86_64-6.12 make -s check-module-x86_64 BASE=6.12
run_kunit i386@6.12 KUNIT_TRACES=0
run module-i386-6.12 make -s check-module-i386 BASE=6.12
# The post-mortem test (crash + drgn on a vmcore of the guest): crash is
# scripts/install-crash.sh's 8.0.6 with tools/crash/patches/ (Debian's 8.0.2
# overflows a heap buffer on 6.12 dumps and failed at random, see
# docs/howto-postmortem.md); if its background build failed, the postmortem
# step tries the build once more itself.
run crash crash_wait
run postmortem make -s check-postmortem
# make check-all: also the other architectures
if [ "${1:-}" = --all ]; then
	kunit_clean arm mips powerpc
	run cross make -s check-cross
	kunit_arches+=(arm mips powerpc)
fi

echo
echo "================ make check summary ================"
for s in "${steps[@]}"; do
	printf '%-24s %-7s %4s passed %4s failed %5ss\n' "$s" "${verdict[$s]}" \
		"${passed[$s]}" "${failed[$s]}" "${took[$s]}"
done
# KUnit's own TAP totals, from this run's logs (kunit_clean removed the
# earlier run's before each KUnit step: a step that failed before KUnit
# ran, e.g. in the kernel build, leaves none)
for a in "${kunit_arches[@]}"; do
	klog=$(kunit_log "$a")
	if tap=$(tap_totals "$klog"); then echo "KUnit ${a/@/ Linux } TAP Totals: $tap"
	else echo "KUnit $a TAP: no totals (the step failed before KUnit ran; see $logs)"
	fi
done
echo "logs: $logs/STEP.log"
echo "total time: $(( $(date +%s) - start ))s"
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" = 0 ]
