#!/bin/bash
# test-suites.sh ARCH...     (ARCH: x86_64 | i386; several: run one after
#                             the other, counts added up)
#
# The kernel's own test suites that move data through kmap_local and
# kmap_atomic, in the test kernel of 'make check' built with
# scripts/configs/suites.config (all of it modules):
#   - KUnit: iov_iter (lib/kunit_iov_iter.c), memcpy, usercopy;
#   - the crypto self-tests (CRYPTO_MANAGER_EXTRA_TESTS: fuzzing included)
#     of generic skcipher, aead, hash and compression algorithms: each is
#     tested as its module registers it, and tcrypt.ko runs alg_test() on
#     the modes and instantiates the templates of scripts/world/tcrypt-specs.txt;
# booted with init_on_alloc=1 (with CONFIG_DEBUG_KMAP_STACK_TRACES, the
# stack depot's own page clearing is a kmap inside a kmap_stack push).
# Checks, from the console log: the boot and the guest script finished;
# every module loaded; each KUnit suite ran and no case failed; no crypto
# self-test failed ('alg: ... failed', tcrypt's 'one or more tests failed',
# and /proc/crypto says 'selftest : passed' for every algorithm); and no
# kmap_stack report while the suites ran (no report title, lib.sh's
# report_titles; debugfs 'reports:' unchanged).  Prints the debugfs map counts of each phase and
# ends with "N passed, N failed"; exit 1 on any failure.  A kernel without
# CONFIG_DEBUG_KMAP_STACK (the reference of 'make check-world') gets the
# suites' checks only, and a line saying so.
#
# Environment:
#   KMAPSTACK_OUT          kernel build dir (default build/out-ARCH)
#   KMAPSTACK_SUITES_DIR   work and log dir (default build/suites-ARCH)
#   KMAPSTACK_SUITES_CMDLINE  extra kernel command line (default
#                          "init_on_alloc=1")
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$KMS_SCRIPTS/testlib.sh"
case "${1:-}" in -h|--help) kms_help; exit 0 ;; esac
if [ $# -gt 1 ]; then	# several architectures: one after the other, counts added up
	tmp=${TMPDIR:-/tmp}/test-suites-$$.log
	for a in "$@"; do
		rc=0
		"$0" "$a" 2>&1 | tee "$tmp" || rc=$?
		# no closing line: it died before its summary, one failure
		read_counts "$tmp" || KMS_F=1
		# a non-zero exit counts as a failure
		[ "$rc" = 0 ] || [ "$KMS_F" -gt 0 ] || KMS_F=1
		KMS_PASS=$((KMS_PASS + KMS_P)) KMS_FAIL=$((KMS_FAIL + KMS_F))
	done
	rm -f "$tmp"
	echo "test-suites: $*"
	summary; exit
fi
check_arch "${1:-}"
arch=$KMS_ARCH
out=${KMAPSTACK_OUT:-$KMS_OUT}
dir=${KMAPSTACK_SUITES_DIR:-$KMS_BUILD/suites-$arch}
cmdline=${KMAPSTACK_SUITES_CMDLINE-init_on_alloc=1}
frags=("$KMS_SCRIPTS/configs/suites.config" "$KMS_SCRIPTS/configs/suites-$KMS_BASE_SERIES.config")
# KUnit test modules and their suites (scripts/world/kunit-suites.txt,
# which the world guest reads too); the optional ones only where built
kunit_mods= kunit_optional=
declare -A suite_of=()
while read -r m s; do
	case "$m" in *\?) kunit_optional="$kunit_optional ${m%\?}" ;; *) kunit_mods="$kunit_mods $m" ;; esac
	suite_of[${m%\?}]=$s
done < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$KMS_SCRIPTS/world/kunit-suites.txt")
# tcrypt.ko arguments, one run each (comments and blank lines dropped)
mapfile -t tcrypt_specs < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$KMS_SCRIPTS/world/tcrypt-specs.txt")

[ -f "$out/.config" ] || die "$out has no built kernel (make kernel ARCH=$arch)"
missing=
while IFS= read -r line; do
	case "$line" in
	# built in instead of a module is as good (the check-world kernels)
	CONFIG_*=m) grep -qxE -- "${line%=m}=[ym]" "$out/.config" || missing="$missing ${line%%=*}" ;;
	CONFIG_*=*) grep -qxF -- "$line" "$out/.config" || missing="$missing ${line%%=*}" ;;
	esac
done < <(cat "${frags[@]}")
kunit_in_log=0	# the built-in kmap_stack suite warns on purpose at boot
grep -qx 'CONFIG_KMAP_STACK_KUNIT_TEST=y' "$out/.config" && kunit_in_log=1
# a kernel without the option (check-world's reference): the suites only
kms=1
grep -qx 'CONFIG_DEBUG_KMAP_STACK=y' "$out/.config" || kms=0
[ -z "$missing" ] || die "$out/.config lacks$missing: not built with scripts/configs/suites.config and suites-$KMS_BASE_SERIES.config (make kernel ARCH=$arch)"
kver=$(cat "$out/include/config/kernel.release")

t0=$(now)
rm -rf "$dir" && mkdir -p "$dir"
stage=$dir/stage
stage_modules "$out" "$KMS_KARCH" "$dir"
moddir=$stage/lib/modules/$kver
[ -f "$moddir/modules.dep" ] || die "no modules.dep in $moddir (depmod missing?)"

# Load order: modprobe's own dependency resolution on the staged tree.
declare -A seen=() path=()
order=()
add_with_deps() {
	local ko b
	while read -r _ ko _; do
		b=$(basename "$ko")
		[ -n "${seen[$b]:-}" ] && continue
		seen[$b]=1 path[$b]=$ko
		order+=("$b")
	done < <(modprobe -d "$stage" -S "$kver" --show-depends "$1" | grep '^insmod ')
}
# the crypto and library modules (not the drivers an x86 config makes
# modules of by default, such as x86_pkg_temp_thermal, which QEMU lacks)
mapfile -t all < <(cd "$moddir/kernel" && find crypto lib arch/*/crypto fs -name '*.ko' 2>/dev/null |
	xargs -r -n1 basename | sed 's/\.ko$//' | sort)
have() { grep -qx "$1" <<<"$(printf '%s\n' "${all[@]}")"; }
for m in $kunit_mods tcrypt; do
	have "$m" || die "module $m.ko was not built"
done
for m in $kunit_optional; do
	if have "$m"; then kunit_mods="$kunit_mods $m"; fi
done
kunit_suites=
for m in $kunit_mods; do kunit_suites="$kunit_suites ${suite_of[$m]}"; done
# built-in suites of the check-world kernels: ext4's mballoc test is
# compiled into ext4 under #ifdef CONFIG_EXT4_KUNIT_TESTS, so only with
# EXT4_KUNIT_TESTS=y (=m builds ext4-inode-test.ko alone); checked too,
# from the boot log
grep -qx 'CONFIG_EXT4_KUNIT_TESTS=y' "$out/.config" && grep -qx 'CONFIG_EXT4_FS=y' "$out/.config" &&
	kunit_suites="$kunit_suites ext4_mballoc_test"
for m in "${all[@]}"; do
	case " $kunit_mods tcrypt " in *" $m "*) continue ;; esac
	add_with_deps "$m"
done
base_order=("${order[@]}")
for m in $kunit_mods tcrypt; do add_with_deps "$m"; done
# dependencies of the KUnit modules and tcrypt (if any) go to the base order
files=()
: > "$dir/order"
for b in "${order[@]}"; do
	case " $kunit_mods tcrypt " in *" ${b%.ko} "*) ;; *) echo "$b" >> "$dir/order" ;; esac
	files+=("${path[$b]}:/lib/kms/$b")
done
for m in $kunit_mods; do echo "$m.ko"; done > "$dir/kunit"
printf '%s\n' "${tcrypt_specs[@]}" > "$dir/tcrypt"
files+=("$dir/order:/lib/kms/order" "$dir/kunit:/lib/kms/kunit" "$dir/tcrypt:/lib/kms/tcrypt")
info "$arch: $(wc -l < "$dir/order") module(s) to load, then ${#tcrypt_specs[@]} tcrypt run(s), then KUnit: $kunit_mods"

initrd=$dir/initramfs.cpio
KMAPSTACK_RUN=$KMS_SCRIPTS/world/suites-guest.sh \
	"$KMS_SCRIPTS/mkinitramfs.sh" "$initrd" "$arch" "${files[@]}" 2> "$dir/mkinitramfs.log" ||
	{ cat "$dir/mkinitramfs.log" >&2; die "mkinitramfs.sh failed"; }
log=$dir/console.log
t1=$(now)
brc=0
"$KMS_SCRIPTS/boot.sh" "$arch" -k "$out/$KMS_IMAGE" -i "$initrd" -l "$log" -t 1500 \
	-a "$cmdline" > /dev/null 2> "$dir/boot.err" || brc=$?
t2=$(now)
console_text "$log" 'suites| ' > "$dir/console.txt"
con=$dir/console.txt

check "$arch: boot finished (boot.sh status $brc)" test "$brc" = 0
check "$arch: guest script ran to its end" grep -q 'suites| end' "$con"
# init_on_alloc: on the command line, or the config's default (Debian's)
if grep -q 'suites| cmdline .*init_on_alloc=1' "$con"; then
	ok "$arch: init_on_alloc=1 (command line)"
elif grep -qx 'CONFIG_INIT_ON_ALLOC_DEFAULT_ON=y' "$out/.config" && ! grep -q 'suites| cmdline .*init_on_alloc=0' "$con"; then
	ok "$arch: init_on_alloc on (CONFIG_INIT_ON_ALLOC_DEFAULT_ON)"
else
	nok "$arch: init_on_alloc is off"
fi
n=$(grep -c 'suites| insmod-failed' "$con" || true)
check "$arch: every module loaded ($(wc -l < "$dir/order") + KUnit; $n insmod failure(s))" test "$n" = 0
grep 'suites| insmod-failed' "$con" || true

# The part of the log from the start marker on (the built-in kmap_stack
# KUnit suite warns on purpose at boot, before it); without that suite,
# the whole log
if [ "$kunit_in_log" = 1 ]; then
	sed -n '/suites| stats start/,$p' "$con" > "$dir/run.txt"
else
	cp "$con" "$dir/run.txt"
fi
run=$dir/run.txt

# KUnit: each suite's KTAP (module suites print 'ok 1 SUITE' at the top level)
kpass=0 kfail=0 kskip=0
for s in $kunit_suites; do
	block=$(awk -v s="$s" '
		{ sub(/^\[ *[0-9.]+\] /, "") }
		$0 ~ "^ +# Subtest: " s "$" { on = 1 }
		on { print }
		on && $0 ~ "^(not )?ok [0-9]+ " s "( |$)" { exit }' "$run")
	sk=$(grep -E '^    ok [0-9]+ ' <<<"$block" | grep -c '# SKIP' || true)
	p=$(( $(grep -cE '^    ok [0-9]+ ' <<<"$block" || true) - sk ))
	f=$(grep -cE '^ *not ok [0-9]+ ' <<<"$block" || true)
	kpass=$((kpass + p)) kfail=$((kfail + f)) kskip=$((kskip + sk))
	check "$arch: KUnit suite $s ran and passed ($p passed, $f failed, $sk skipped)" \
		grep -qE "^ok [0-9]+ $s( |$)" <<<"$block"
	[ "$f" = 0 ] || grep -E '^ *not ok ' <<<"$block" | sed 's/^/    /'
done

# crypto
nt=$(grep -c 'suites| tcrypt .* done' "$run" || true)
check "$arch: tcrypt ran ${#tcrypt_specs[@]} time(s) ($nt)" test "$nt" = "${#tcrypt_specs[@]}"
grep 'suites| tcrypt .* done FAILED' "$run" || true
nf=$(grep -cE 'tcrypt: one or more tests failed|alg: .*(fail|FAIL|error)' "$run" || true)
check "$arch: no crypto self-test failure in the log ($nf line(s))" test "$nf" = 0
grep -E 'tcrypt: one or more tests failed|alg: .*(fail|FAIL|error)' "$run" | head -20 || true
ncr=$(grep -c '^suites| crypto ' "$run" || true)
npassed=$(grep '^suites| crypto ' "$run" | grep -c ' passed$' || true)
check "$arch: /proc/crypto: selftest passed for every algorithm ($npassed of $ncr)" \
	test "$ncr" -ge 30 -a "$npassed" = "$ncr"
grep '^suites| crypto ' "$run" | grep -v ' passed$' | head -20 || true
# The generic drivers' names: since 6.15-6.17 the library-backed ones are
# NAME-lib, lzo is an scomp
case "$kver" in
6.*) generics="sha3-256-generic lzo-generic aes-generic" ;;
*)   generics="sha3-256-lib lzo-scomp aes-lib" ;;
esac
for drv in gcm_base ccm_base rfc7539 zstd-generic xts $generics; do
	check "$arch: /proc/crypto lists $drv" grep -qE "^suites\| crypto .*$drv" "$run"
done

if [ "$kms" = 1 ]; then
	# kmap_stack reports: none in the log from the start marker on, debugfs
	# 'reports:' unchanged between the first and last statistics
	nrep=$(grep -v '^suites|' "$run" | report_titles | wc -l)
	stat() { grep "suites| stats $1 " "$run" | grep -oE "(^| )$2: [0-9]+" | awk '{print $2}' || true; }
	r0=$(stat start reports) r1=$(stat kunit reports)
	[ "$kunit_in_log" = 1 ] || r0=0	# none at boot either
	check "$arch: no kmap_stack report in the log while the suites ran ($nrep)" test "$nrep" = 0
	check "$arch: debugfs reports unchanged (${r0:-?} -> ${r1:-?})" test -n "$r0" -a "$r0" = "${r1:-x}"
	if [ "$nrep" != 0 ]; then
		echo "---- kmap_stack reports ($dir/console.txt) ----"
		grep -v '^suites|' "$run" | sed -E 's/^\[ *[0-9.]+\] //' | grep -A40 '^WARNING: kmap_stack: ' | head -80
	fi
	m0=$(stat start maps) m1=$(stat modules maps) m2=$(stat crypto maps) m3=$(stat kunit maps)
	if [ -n "$m0" ] && [ -n "$m3" ]; then
		echo "suites $arch: kmap maps (debugfs): boot ${m0}, module loading $((m1 - m0)), crypto (tcrypt) $((m2 - m1)), KUnit $((m3 - m2)), total $m3"
		check "$arch: the suites made kmap mappings ($((m3 - m0)))" test "$((m3 - m0))" -gt 0
	else
		nok "$arch: debugfs kmap_stack/stats not read in the guest"
	fi
else
	echo "suites $arch: $out has no CONFIG_DEBUG_KMAP_STACK: the suites' results only, no kmap_stack checks"
fi
echo "suites $arch: KUnit $kpass passed, $kfail failed, $kskip skipped; crypto: $npassed/$ncr algorithms selftest passed, ${#tcrypt_specs[@]} tcrypt runs"
echo "suites $arch: times: prepare $((t1 - t0))s, boot+suites $((t2 - t1))s; log $con"
summary
