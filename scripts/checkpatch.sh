#!/bin/bash
# checkpatch.sh [PATCH...]
#
# Run the kernel's scripts/checkpatch.pl --strict on every patch of
# kernel-patch/series (the cover letter is skipped), or on the given files.
# Prints one result line per patch (and checkpatch's report for the ones
# that are not clean); fails if any patch has an error, warning or check.
# Then runs scripts/kernel-doc -Wall on every C file the patches touch,
# as the pristine tree has it and as the patches leave it: fails if a file
# has a kernel-doc warning it did not have before.
# checkpatch.pl is taken from the pristine tree (build/pristine, created
# if missing), so the result does not depend on the state of build/linux.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
case "${1:-}" in -h|--help) kms_help; exit 0 ;; esac

command -v perl >/dev/null || die "perl not found"
# checkpatch runs scripts/spdxcheck.py with 'python3' from PATH: prefer the
# distribution's python3 (python3-ply, python3-git) over e.g. a pyenv shim.
export PATH=/usr/bin:$PATH
ensure_pristine
cp=$KMS_PRISTINE/scripts/checkpatch.pl
files=()
if [ $# -gt 0 ]; then
	for f in "$@"; do files+=("$(realpath -- "$f")"); done
else
	load_series
	for p in "${KMS_PATCHES[@]}"; do files+=("$KMS_PATCHDIR/$p"); done
fi
if [ ${#files[@]} = 0 ]; then
	info "kernel-patch/series has no patch: nothing to check"
	exit 0
fi
# One warning is not about the patch: DEPRECATED_API on the definition of
# kmap_atomic() itself (the series makes it __always_inline; checkpatch
# means its callers).  exempt drops exactly those blocks of the report.
exempt() {
	awk -v RS= -v ORS='\n\n' '
		/^WARNING:DEPRECATED_API: Deprecated use of .kmap_atomic./ &&
		/FILE: include\/linux\/highmem-internal\.h:/ &&
		/\n\+static __always_inline void \*kmap_atomic\((const )?struct page \*page\)$/ { dropped++; next }
		{ print }
		END { if (dropped) printf "(%d exempt DEPRECATED_API on the definition of kmap_atomic())\n", dropped }'
}

bad=0 i=0
for f in "${files[@]}"; do
	i=$((i + 1))
	[ -f "$f" ] || die "$f not found"
	rc=0
	out=$(cd "$KMS_PRISTINE" && perl "$cp" --strict --color=never --show-types "$f" 2>&1) || rc=$?
	sum=$(printf '%s\n' "$out" | grep -E '^total:' | tail -1 || true)
	out=$(printf '%s\n' "$out" | sed '/^total:/,$d' | exempt)
	# Only exempt warnings left (and checkpatch did check): clean
	if [ "$rc" != 0 ] && [ -n "$sum" ] && ! printf '%s\n' "$out" | grep -qE '^(ERROR|WARNING|CHECK):'; then
		rc=0
		sum="$sum; $(printf '%s\n' "$out" | grep -E '^\([0-9]+ exempt')"
	fi
	if printf '%s\n' "$out" | grep -q 'Traceback'; then
		warn "a python helper of checkpatch failed (python3-ply / python3-git missing?): see below"
		rc=${rc/#0/1}
	fi
	if [ "$rc" = 0 ]; then
		printf 'ok     %2d %s  %s\n' "$i" "$(basename "$f")" "${sum:-clean}"
	else
		bad=$((bad + 1))
		printf 'FAIL   %2d %s  %s\n' "$i" "$(basename "$f")" "${sum:-checkpatch status $rc}"
		printf '%s\n' "$out" | sed 's/^/       /'
	fi
done
[ "$bad" = 0 ] || die "$bad of $i patch(es) not checkpatch --strict clean"
info "all $i patch(es) checkpatch --strict clean"

# kernel-doc: the touched files, before (pristine) and after (the patches
# applied in order onto copies of them)
kd=$(mktemp -d)
trap 'rm -rf "$kd"' EXIT
mapfile -t touched < <(sed -n 's|^diff --git a/\([^ ]*\) b/.*|\1|p' "${files[@]}" | sort -u)
# the touched files as the base has them, from git (the pristine tree has
# only part of the base checked out)
for t in "${touched[@]}"; do
	git -C "$KMS_PRISTINE" cat-file -e "base:$t" 2>/dev/null || continue
	mkdir -p "$kd/before/$(dirname "$t")" "$kd/after/$(dirname "$t")"
	git -C "$KMS_PRISTINE" show "base:$t" > "$kd/before/$t"
	cp "$kd/before/$t" "$kd/after/$t"
done
for f in "${files[@]}"; do
	git -C "$kd/after" apply --unsafe-paths "$f" 2>"$kd/apply.err" ||
		die "$(basename "$f") does not apply onto the files before it: $(cat "$kd/apply.err")"
done
# kdoc_warnings FILE: kernel-doc -Wall's warnings on FILE, without its name
kdoc_warnings() {
	perl "$KMS_PRISTINE/scripts/kernel-doc" -none -Wall "$1" 2>&1 |
		grep -E 'warning:' | sed 's|^[^:]*:[0-9]*: ||' || true
}
kbad=0 kn=0
for t in "${touched[@]}"; do
	case "$t" in *.c | *.h) ;; *) continue ;; esac
	[ -f "$kd/after/$t" ] || continue
	kn=$((kn + 1))
	: > "$kd/before.txt"
	[ ! -f "$kd/before/$t" ] || kdoc_warnings "$kd/before/$t" | sort > "$kd/before.txt"
	kdoc_warnings "$kd/after/$t" | sort > "$kd/after.txt"
	new=$(comm -13 "$kd/before.txt" "$kd/after.txt")
	if [ -n "$new" ]; then
		kbad=$((kbad + 1))
		printf 'FAIL   kernel-doc %s\n' "$t"
		printf '%s\n' "$new" | sed 's/^/       /'
	fi
done
[ "$kbad" = 0 ] || die "kernel-doc: $kbad of $kn file(s) have new warnings"
info "kernel-doc: no new warning in the $kn C file(s) the patches touch"
