#!/bin/bash
# test-syzkaller.sh        ('make check-syzkaller'; after make check, whose
#                          console logs it reads; not in make check)
#
# Fuzzing fleets title a kernel report with syzkaller's console parser
# (pkg/report). Run that parser, at the head of syzkaller's repository
# (scripts/syzkaller/build.sh builds it offline into build/syzkaller),
# over the real console logs of the booted kernels: the KUnit suites of
# both bases (timestamps only, panic_on_warn=1), the module tests (real
# WARN-tainting reports, their "step-NAME| " prefix removed), the erofs
# and romfs bugs, and a boot of the module test's initramfs with
# panic_on_warn=1, which panics at its first real report. For every
# "WARNING: kmap_stack:" line of a log: syzkaller starts a report there,
# its title is the line's "WARNING: kmap_stack: <kind> in <culprit>", it
# is not corrupted, and every line of the report's description is in its
# body. Ends with "N passed, N failed".
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$KMS_SCRIPTS/testlib.sh"
case "${1:-}" in -h|--help) kms_help; exit 0 ;; esac

dir=$KMS_BUILD/syzkaller
[ -x "$dir/kmapparse" ] && [ -z "$(find "$KMS_SCRIPTS/syzkaller" -newer "$dir/kmapparse")" ] ||
	"$KMS_SCRIPTS/syzkaller/build.sh" "$dir"
info "syzkaller $(cut -c1-12 "$dir/syzkaller.commit")"

# parse LOG ARCH [-strip-step]: the checks above on one log
parse() {
	local log=$KMS_BUILD/$1 name=$1 out n bad
	[ -f "$log" ] || { nok "$name" "not there: run make check first"; return 0; }
	out=$dir/$(tr / _ <<<"$name").parse
	"$dir/kmapparse" -arch "$2" ${3:-} "$log" > "$out"
	n=$(grep -c '^  kmap_stack @line' "$out" || true)
	check "$name: kmap_stack reports found ($n)" test "$n" -gt 0
	bad=$(grep -A1 '^  kmap_stack @line' "$out" | grep -c -e 'NOT inside' -e 'starts here=false' || true)
	check "$name: each is a syzkaller report of its own ($bad not)" test "$bad" = 0
	bad=$(awk '/^  kmap_stack @line/ { match($0, /kind="[^"]*"/); k = substr($0, RSTART + 6, RLENGTH - 7) }
		/^    -> rep/ { match($0, /title="[^"]*"/); t = substr($0, RSTART + 7, RLENGTH - 8)
			if (index(t, "WARNING: kmap_stack: " k " in ") != 1) print t }' "$out" | wc -l)
	check "$name: titled 'WARNING: kmap_stack: <kind> in <culprit>' ($bad not)" test "$bad" = 0
	bad=$(grep -c '^    -> rep.* corrupted=true' "$out" || true)
	check "$name: none corrupted ($bad)" test "$bad" = 0
	bad=$(grep -c '^    missing ' "$out" || true)
	check "$name: the description is whole in each body ($bad line(s) missing, see $out)" test "$bad" = 0
}

for a in x86_64 i386 arm64; do
	case $a in x86_64) s=amd64 ;; i386) s=386 ;; *) s=$a ;; esac
	parse "kunit-$a.log" "$s"
	parse "module-$a.log" "$s" -strip-step
	[ "$a" = arm64 ] || parse "6.12/kunit-$a.log" "$s"
done
parse test-erofs/console.log amd64
parse test-romfs/console.log amd64
parse test-romfs-highmem/console.log 386
# A real report under panic_on_warn=1: printed whole, then the panic
initrd=$KMS_BUILD/initramfs-module-x86_64.cpio log=$dir/panic-on-warn-x86_64.log
if [ -f "$initrd" ]; then
	"$KMS_SCRIPTS/boot.sh" x86_64 -i "$initrd" -l "$log" -t 300 -a "kunit.enable=0 panic_on_warn=1" \
		>/dev/null 2>&1 || true	# (it ends in the panic, as it should)
	check "panic_on_warn=1: the first report panics" grep -q "Kernel panic - not syncing: kmap_stack" "$log"
	parse "${log#"$KMS_BUILD"/}" amd64 -strip-step
else
	nok "panic_on_warn=1" "$initrd not there: run make check first"
fi
summary
