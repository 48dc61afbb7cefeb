#!/bin/bash
# run-kunit.sh ARCH [boot.sh options...]   (ARCH: x86_64 | i386 | arm64 | arm | mips | powerpc)
#
# Build the kernel (scripts/build-kernel.sh; incremental, ccache), make the
# initramfs, boot it (scripts/boot.sh), then parse the console log with the
# tree's tools/testing/kunit/kunit.py parse and check the results.
# Fails unless: the guest booted to the end of /init without panicking or
# timing out, KTAP was found, no test case failed or crashed, the suite
# $KMAPSTACK_SUITE ran with at least one passing case, and every suite
# announced in the log has its result line.  Skipped cases are allowed
# (KUnit's example suite skips on purpose) and listed; set
# KMAPSTACK_FAIL_ON_SKIP=1 to fail on them.  On a HIGHMEM kernel the boot
# log must also show a non-empty HighMem zone and 'NNNK highmem' > 0 in the
# 'Memory:' line (real highmem pages for the suite's GFP_HIGHUSER pages).
# arm, mips, powerpc: the cross builds, booted with no initramfs (boot.sh).
# The kernel is build-kernel.sh's, whose config includes the series' KUnit
# config (mm/kmap_stack/.kunitconfig) when the tree has one.
# Ends with the suite totals as "N passed, N failed, N skipped" (all suites).
#
# Environment:
#   KMAPSTACK_SUITE      suite that must run (default kmap_stack).  'example'
#                        also builds CONFIG_KUNIT_EXAMPLE_TEST=y (harness self-test)
#   KMAPSTACK_NO_BUILD=1 boot the existing build/out-ARCH kernel as is
#   KMAPSTACK_KUNIT_FILTER  kunit.filter_glob= for the guest (e.g. 'kmap_stack.*')
#   KMAPSTACK_FAIL_ON_SKIP=1, KMAPSTACK_FAIL_ON_WARN=1 (any 'WARNING:' in the log)
#   KMAPSTACK_EXPECT_PASS=N  the suite must have exactly N passing cases
#   KMAPSTACK_EXPECT_HIGHMEM=0  skip the HighMem check (e.g. with -m 512M)
#   KMAPSTACK_OUT        boot this build directory's kernel instead
#   KMAPSTACK_KUNIT_LOGDIR  where the logs go (default build/, build/cross/)
#   plus everything build-kernel.sh and boot.sh read.
# Outputs: build/kunit-ARCH.log (console), build/kunit-ARCH.json (kunit.py --json);
#   build/cross/kunit-ARCH.* for the cross arches
set -euo pipefail
. "$(dirname "$0")/lib.sh"

case "${1:-}" in -h|--help) kms_help; exit 0 ;; esac
[ $# -ge 1 ] || die "usage: $KMS_PROG ARCH [boot.sh options]"
check_any_arch "$1"; shift
suite=${KMAPSTACK_SUITE:-kmap_stack}
logdir=$KMS_BUILD
[ "$KMS_CROSS_ARCH" = 0 ] || logdir=$KMS_BUILD/cross
logdir=${KMAPSTACK_KUNIT_LOGDIR:-$logdir}
mkdir -p "$logdir"
log=$logdir/kunit-$KMS_ARCH.log
json=$logdir/kunit-$KMS_ARCH.json
blog=$logdir/build-$KMS_ARCH.log
# nothing of an earlier run may be read as this one's
rm -f "$log" "$json" "$json.counts"
initrd=$KMS_BUILD/initramfs-$KMS_ARCH.cpio
[ "$KMS_CROSS_ARCH" = 0 ] || initrd=none
out=${KMAPSTACK_OUT:-$KMS_OUT}
command -v python3 >/dev/null || die "python3 not found (scripts/install-deps.sh)"

if [ "$suite" = example ]; then
	export KMAPSTACK_FRAGMENTS="${KMAPSTACK_FRAGMENTS:-} $KMS_SCRIPTS/configs/kunit-example.config"
fi
t0=$(now)
if [ "${KMAPSTACK_NO_BUILD:-0}" = 0 ]; then
	"$KMS_SCRIPTS/build-kernel.sh" "$KMS_ARCH" > "$blog" 2>&1 || {
		tail -n 40 "$blog" >&2
		die "kernel build failed (full log: $blog)"
	}
	grep '^build-kernel.sh:' "$blog" >&2 || true
fi
t1=$(now)
[ "$initrd" = none ] || "$KMS_SCRIPTS/mkinitramfs.sh" "$initrd" "$KMS_ARCH"

boot_args=(-i "$initrd" -l "$log")
[ -z "${KMAPSTACK_OUT:-}" ] || boot_args+=(-k "$out/$KMS_IMAGE")
[ -z "${KMAPSTACK_KUNIT_FILTER:-}" ] || boot_args+=(-a "kunit.filter_glob=$KMAPSTACK_KUNIT_FILTER")
brc=0
"$KMS_SCRIPTS/boot.sh" "$KMS_ARCH" "${boot_args[@]}" "$@" > "$log.stdout" 2>&1 || brc=$?
if [ "$brc" = 0 ]; then
	grep -a '^boot.sh:' "$log.stdout" >&2 || true
else
	grep -a -m2 '^boot.sh:' "$log.stdout" >&2 || true
	sed -n '/^---- last lines/,$p' "$log.stdout" >&2
fi
t2=$(now)

# Parse even if the boot failed: the KTAP up to the failure is informative.
tree=$KMS_TREE
[ -f "$tree/tools/testing/kunit/kunit.py" ] || tree=$KMS_PRISTINE
[ -f "$tree/tools/testing/kunit/kunit.py" ] || die "kunit.py not found in $KMS_TREE"
prc=0
tr -d '\r' < "$log" | python3 "$tree/tools/testing/kunit/kunit.py" parse --json="$json" > "$log.parse" 2>&1 || prc=$?
sed -n '/Testing complete\|=====\|FAILED\|CRASHED\|SKIPPED/p' "$log.parse" | sed 's/\x1b\[[0-9;]*m//g' | tail -n 60

fail=0
if [ "$brc" != 0 ]; then
	printf '%s: error: boot failed (boot.sh status %s; console log %s)\n' "$KMS_PROG" "$brc" "$log" >&2
	fail=1
fi
[ "$prc" = 0 ] || { printf '%s: error: kunit.py parse reported failures (status %s)\n' "$KMS_PROG" "$prc" >&2; fail=1; }

# Independent check of the JSON: the target suite ran and passed, nothing failed.
if [ -f "$json" ]; then
	python3 - "$json" "$suite" "$log" "${KMAPSTACK_FAIL_ON_SKIP:-0}" "${KMAPSTACK_EXPECT_PASS:-}" <<'PY' || fail=1
import json, re, sys
path, want, logf, fail_on_skip = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "1"
countf = path + ".counts"
expect_pass = int(sys.argv[5]) if sys.argv[5] else None
root = json.load(open(path))
counts = {"PASS": 0, "FAIL": 0, "SKIP": 0, "ERROR": 0}
bad, skipped, suites = [], [], {}
def walk(group, path):
    for case in group.get("test_cases", []):
        name = "/".join(path + [case["name"]])
        st = case["status"]
        counts[st] = counts.get(st, 0) + 1
        if path:
            suites.setdefault(path[0], {"PASS": 0, "FAIL": 0, "SKIP": 0, "ERROR": 0})
            suites[path[0]][st] = suites[path[0]].get(st, 0) + 1
        else:
            suites.setdefault(case["name"], {"PASS": 0, "FAIL": 0, "SKIP": 0, "ERROR": 0})[st] += 1
        if st in ("FAIL", "ERROR"):
            bad.append(f"{name}: {st}")
        elif st == "SKIP":
            skipped.append(name)
    for sub in group.get("sub_groups", []):
        walk(sub, path + [sub["name"]])
walk(root, [])
ok = True
total = sum(counts.values())
print("kunit totals: %d passed, %d failed, %d skipped, %d crashed (%d cases, %d suites)" % (
    counts["PASS"], counts["FAIL"], counts["SKIP"], counts["ERROR"], total, len(suites)))
with open(countf, "w") as f:
    f.write("%d %d %d\n" % (counts["PASS"], counts["FAIL"] + counts["ERROR"], counts["SKIP"]))
for s, c in sorted(suites.items()):
    print(f"  suite {s}: pass {c['PASS']} fail {c['FAIL']} skip {c['SKIP']} crash {c['ERROR']}")
for b in bad:
    print("  FAILED:", b)
for s in skipped:
    print("  skipped:", s)
if bad:
    ok = False
if total == 0:
    print("run-kunit: error: no KUnit test case found in the log"); ok = False
if want not in suites:
    print(f"run-kunit: error: suite '{want}' did not run (suites: {', '.join(sorted(suites)) or 'none'})"); ok = False
elif suites[want]["PASS"] == 0:
    print(f"run-kunit: error: suite '{want}' has no passing case"); ok = False
elif expect_pass is not None and suites[want]["PASS"] != expect_pass:
    print(f"run-kunit: error: suite '{want}' has {suites[want]['PASS']} passing cases, {expect_pass} expected"); ok = False
if skipped and fail_on_skip:
    print("run-kunit: error: skipped cases and KMAPSTACK_FAIL_ON_SKIP=1"); ok = False
# Every suite KUnit announced ("# Subtest: X" at top level) must have its result.
log = open(logf, errors="replace").read().replace("\r", "")
announced = set(re.findall(r"^\[[ 0-9.]+\] *# Subtest: (\S+)$", log, re.M))
ended = set(re.findall(r"^\[[ 0-9.]+\] *(?:not )?ok \d+ (\S+)", log, re.M))
missing = sorted(announced - ended)
if missing:
    print("run-kunit: error: suite(s) without a result line (crashed/hung?):", ", ".join(missing)); ok = False
sys.exit(0 if ok else 1)
PY
else
	printf '%s: error: kunit.py produced no JSON (no KTAP in %s?)\n' "$KMS_PROG" "$log" >&2
	fail=1
fi

# KUnit's own TAP totals, every suite's added up
if tap=$(tap_totals "$log"); then
	info "KUnit TAP $KMS_ARCH: Totals: $tap"
	[[ $tap == *" fail:0 "* ]] || { printf '%s: error: TAP totals show failures\n' "$KMS_PROG" >&2; fail=1; }
fi

# Real highmem: the zone is not empty and the page allocator counted it
if grep -q '^CONFIG_HIGHMEM=y' "$out/.config" 2>/dev/null && [ "${KMAPSTACK_EXPECT_HIGHMEM:-1}" = 1 ]; then
	zone=$(tr -d '\r' < "$log" | grep -aE '^\[[ 0-9.]+\] +HighMem +\[mem ' | head -n 1 || true)
	meml=$(tr -d '\r' < "$log" | grep -aE '\] Memory: .*K highmem\)' | head -n 1 || true)
	hk=$(sed -nE 's/.* ([0-9]+)K highmem\).*/\1/p' <<<"$meml")
	if [ -n "$zone" ] && [ -n "$hk" ] && [ "$hk" -gt 0 ]; then
		info "highmem on $KMS_ARCH: $((hk / 1024)) MiB; boot log:"
		printf '  %s\n' "$zone" "$meml" >&2
	else
		printf '%s: error: HIGHMEM kernel but no highmem in the boot log (zone: %s; Memory: %s)\n' \
			"$KMS_PROG" "${zone:-none}" "${meml:-none}" >&2
		fail=1
	fi
fi

warns=$(grep -ac 'WARNING: CPU' "$log" || true)
bugs=$(grep -acE 'BUG: |Oops|general protection fault' "$log" || true)
[ "$warns" = 0 ] && [ "$bugs" = 0 ] || info "console has $warns WARNING(s), $bugs BUG/Oops line(s) (tests may trigger them on purpose; see $log)"
if [ "${KMAPSTACK_FAIL_ON_WARN:-0}" = 1 ] && [ "$warns" != 0 ]; then
	printf '%s: error: WARNINGs in the log and KMAPSTACK_FAIL_ON_WARN=1\n' "$KMS_PROG" >&2; fail=1
fi
info "times: build $((t1 - t0))s, boot+tests $((t2 - t1))s; log $log"
# the closing line: every case of every suite; a failure without a failing
# case (boot, missing suite, TAP, highmem) counts as one more
read -r np nf ns < "$json.counts" 2>/dev/null || { np=0 nf=0 ns=0; }
[ "$fail" = 0 ] || [ "$nf" -gt 0 ] || nf=1
if [ "$fail" != 0 ]; then
	printf '%s: error: KUnit run on %s FAILED\n' "$KMS_PROG" "$KMS_ARCH" >&2
	echo "$np passed, $nf failed, $ns skipped"
	exit 1
fi
info "KUnit run on $KMS_ARCH passed (suite $suite)"
echo "$np passed, $nf failed, $ns skipped"
