#!/bin/bash
# test-static-check.sh  ('make check-static')
#
# The tests of the static LIFO check (static-check/, docs/static-check.md):
#   - cases: static-check/kmap-static-check.py on the small C files of
#     static-check/tests/cases; in each, the lines marked
#     "/* EXPECT: order|loop|flavour|held */" must be found, of that kind,
#     and nothing else (the near misses: correct nesting, a mapping handed
#     to the caller, the same variable mapped again, a loop released in
#     reverse);
#   - mutants: each rule of static-check/kmap_lifo.cocci turned off in
#     turn, the cases must fail (each case is seen failing without the
#     rule that finds it); each filter of its python pass turned off, a
#     near miss of static-check/tests/cases/paths.c must be found;
#   - usage: exit status 2 without a tree, on a tree that is not one, on a
#     path not in it and without spatch; 0 with findings;
#   - slice: the check of fs/erofs and fs/ext2 of a real kernel tree finds
#     erofs_find_target_block()'s out-of-order unmap, and does not once
#     the fix of kernel-fixes/ for that tree's version is applied.
#     The tree: KMAPSTACK_STATIC_TREE if set, else the harness's pristine
#     tree (build/pristine, made from KMAPSTACK_TARBALL by ensure_pristine,
#     as every step makes it).
# Needs spatch (Debian's coccinelle).  Ends with "N passed, N failed".
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$KMS_SCRIPTS/testlib.sh"
case "${1:-}" in -h|--help) kms_help; exit 0 ;; esac

checker=$KMS_REPO/static-check/kmap-static-check.py
cases=$KMS_REPO/static-check/tests/cases
command -v spatch > /dev/null || die "spatch not found (apt-get install coccinelle)"
scratch=$(mktemp -d "${TMPDIR:-/tmp}/kmapstack-static.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

# kind MESSAGE: the kind of a finding, from its message
kind() {
	case "$1" in
	*"in the order the loop"*) echo loop ;;
	*"the other flavour"*) echo flavour ;;
	*"not the most recent mapping"*) echo order ;;
	*"still held and not handed"*) echo held ;;
	*) echo unknown ;;
	esac
}

# found OUTPUT: "file:line:kind" of each finding of the checker's OUTPUT
found() {
	local path line rest
	while IFS=: read -r path line rest; do
		[[ $line =~ ^[0-9]+$ ]] || continue
		printf '%s:%s:%s\n' "$path" "$line" "$(kind "$rest")"
	done < "$1" | sort
}

# expected: "file:line:kind" of each EXPECT mark of the cases
expected() {
	local f
	for f in "$cases"/*.c; do
		# a file of near misses only has no mark
		grep -q 'EXPECT: [a-z]*' "$f" || continue
		grep -n 'EXPECT: [a-z]*' "$f" |
			sed -E "s|^([0-9]+):.*EXPECT: ([a-z]+).*|$(basename "$f"):\1:\2|"
	done | sort
}

# run_cases OUT [OPTION...]: the checker on the cases, output in OUT
run_cases() {
	local out=$1; shift
	python3 "$checker" "$@" "$cases" . > "$out" 2> "$out.err"
}

# compare FOUND WANT PREFIX: ok/nok per case file; returns 1 on a difference
compare() {
	local f base got want bad=0
	for f in "$cases"/*.c; do
		base=$(basename "$f")
		# no line of this file: an empty list, not an error
		got=$(grep "^$base:" "$1" || true)
		want=$(grep "^$base:" "$2" || true)
		if [ "$got" = "$want" ]; then
			[ -z "$3" ] || continue
			ok "case $base ($(printf '%s\n' "$want" | awk 'NF { n++ } END { print n + 0 }') expected)"
		else
			bad=1
			[ -z "$3" ] || continue
			nok "case $base" "found [${got//$'\n'/ }], expected [${want//$'\n'/ }]"
		fi
	done
	return $bad
}

expected > "$scratch/want"
[ -s "$scratch/want" ] || die "no EXPECT mark in $cases"

# --- cases ----------------------------------------------------------
if run_cases "$scratch/out"; then ok "cases: the checker exits 0 with findings"
else nok "cases: the checker exits 0 with findings" "$(cat "$scratch/out.err")"
fi
found "$scratch/out" > "$scratch/got"
# each case file is counted by compare itself; its status only says
# whether any differed
compare "$scratch/got" "$scratch/want" "" || :
last=$(tail -n 1 "$scratch/out")
check "cases: the closing count ($last)" \
	test "$last" = "$(wc -l < "$scratch/want") findings"

# --- mutants: each rule off, some case must fail ----------------------
# rule_off RULE...: kmap_lifo.cocci with the rules RULE... never applying
rule_off() {
	local sp=$scratch/mutant.cocci r
	cp "$KMS_REPO/static-check/kmap_lifo.cocci" "$sp"
	for r in "$@"; do
		grep -q "^@$r depends on report || org exists@" "$sp" ||
			die "no rule $r in kmap_lifo.cocci"
		sed -i "s/^@$r depends on report || org exists@/@$r depends on report \&\& org exists@/" "$sp"
	done
	echo "$sp"
}
for mut in "lifo_e lifo_e_err" loop flavour_e "held_e held_r_err held_h_err"; do
	# shellcheck disable=SC2086
	sp=$(rule_off $mut)
	run_cases "$scratch/mut" --cocci "$sp" ||
		{ nok "mutant without $mut" "the checker failed: $(cat "$scratch/mut.err")"; continue; }
	found "$scratch/mut" > "$scratch/mut.got"
	if compare "$scratch/mut.got" "$scratch/want" quiet; then
		nok "mutant without $mut" "the cases still pass: no case needs the rule"
	else
		ok "mutant without $mut: cases fail ($(comm -13 "$scratch/mut.got" "$scratch/want" | wc -l) expected findings lost)"
	fi
done

# --- mutants of the python pass: each filter off, a near miss is found --
# pass_off FUNCTION RESULT: kmap_lifo.cocci whose FUNCTION returns RESULT
pass_off() {
	local sp=$scratch/pass.cocci
	python3 - "$KMS_REPO/static-check/kmap_lifo.cocci" "$sp" "$1" "$2" <<'PY'
import sys
src, dst, fn, res = sys.argv[1:]
s = open(src).read()
if "\ndef %s(" % fn not in s:
    sys.exit("no function %s in %s" % (fn, src))
s = s.replace("\ndef %s(" % fn,
              "\ndef %s(*args):\n    return %s\n\ndef unused_%s(" % (fn, res, fn), 1)
open(dst, "w").write(s)
PY
	echo "$sp"
}
for mut in "released_under_condition False" \
	"after_success_block False" "failure_tested False" \
	"in_failure_branch False" "returned_alias False" \
	"uncast args[0].replace(' ','')" "same_mapping False" "same_array False" \
	"is_parameter True"; do
	sp=$(pass_off "${mut%% *}" "${mut#* }")
	run_cases "$scratch/mut" --cocci "$sp" ||
		{ nok "pass without ${mut%% *}" "the checker failed: $(cat "$scratch/mut.err")"; continue; }
	found "$scratch/mut" > "$scratch/mut.got"
	extra=$(comm -23 "$scratch/mut.got" "$scratch/want" | tr '\n' ' ')
	if [ -n "$extra" ]; then ok "pass without ${mut%% *}: a near miss is found ($extra)"
	else nok "pass without ${mut%% *}" "no near miss needs it"
	fi
done

# --- usage ----------------------------------------------------------
# status WANT NAME CMD...: CMD exits WANT
status() {
	local want=$1 name=$2 rc=0; shift 2
	"$@" > "$scratch/st.out" 2>&1 || rc=$?
	if [ "$rc" = "$want" ]; then ok "$name (exit $rc)"
	else nok "$name" "exit $rc, want $want: $(head -c 300 "$scratch/st.out")"
	fi
}
status 2 "usage: no KERNEL_TREE" make -s -C "$KMS_REPO" static-check KERNEL_TREE=
status 2 "usage: KERNEL_TREE not a directory" \
	make -s -C "$KMS_REPO" static-check KERNEL_TREE="$scratch/none"
status 2 "usage: KERNEL_TREE not a kernel tree" \
	make -s -C "$KMS_REPO" static-check KERNEL_TREE="$scratch"
status 2 "usage: PATHS not in the tree" \
	make -s -C "$KMS_REPO" static-check KERNEL_TREE="$cases" PATHS=fs/none
mkdir -p "$scratch/bin"
py=$(python3 -c 'import sys; print(sys.executable)')
status 2 "usage: no spatch" env PATH="$scratch/bin" "$py" "$checker" "$cases" .
status 0 "findings are not a failure: make static-check exits 0" \
	make -s -C "$KMS_REPO" static-check KERNEL_TREE="$cases" PATHS=.

# --- slice of a real tree ---------------------------------------------
tree=${KMAPSTACK_STATIC_TREE:-}
if [ -z "$tree" ]; then
	ensure_pristine
	tree=$KMS_PRISTINE
fi
[ -f "$tree/fs/erofs/namei.c" ] || die "$tree has no fs/erofs/namei.c"
ver=$(kernel_version "$tree")
info "slice of $tree (Linux $ver)"
slice=(fs/erofs fs/ext2)
t0=$(date +%s)
if python3 "$checker" "$tree" "${slice[@]}" > "$scratch/slice" 2> "$scratch/slice.err"; then
	ok "slice (${slice[*]} of $ver) in $(( $(date +%s) - t0 ))s: $(tail -n 1 "$scratch/slice")"
else
	nok "slice (${slice[*]} of $ver)" "$(cat "$scratch/slice.err")"
fi
erofs_re='^fs/erofs/namei\.c:[0-9]+: erofs_find_target_block: releases target while &buf, mapped later'
check "slice: erofs_find_target_block()'s out-of-order erofs_put_metabuf() found" \
	grep -qE "$erofs_re" "$scratch/slice"
# the fix of this version, applied to a copy of fs/erofs
case "$ver" in
6.12.*) fix=$KMS_REPO/kernel-fixes/0001-erofs-release-kmap_local-mappings-in-order-in-erofs_.patch ;;
*) fixes=("$KMS_REPO"/kernel-fixes/7.3/*erofs*.patch); fix=${fixes[0]} ;;
esac
if [ -n "$fix" ] && [ -f "$fix" ]; then
	mkdir -p "$scratch/fixed/fs" "$scratch/fixed/include/linux"
	cp -a "$tree/fs/erofs" "$scratch/fixed/fs/"
	if patch -s -d "$scratch/fixed" -p1 < "$fix" > "$scratch/patch.log" 2>&1; then
		python3 "$checker" "$scratch/fixed" fs/erofs > "$scratch/fixed.out" 2> "$scratch/fixed.err"
		if grep -qE "$erofs_re" "$scratch/fixed.out"; then
			nok "slice: no out-of-order finding once $(basename "$fix") is applied" \
				"$(grep -E "$erofs_re" "$scratch/fixed.out")"
		else
			ok "slice: no out-of-order finding once $(basename "$fix") is applied"
		fi
	else
		nok "slice: $(basename "$fix") applies to $ver" "$(cat "$scratch/patch.log")"
	fi
else
	nok "slice: a fix of erofs_find_target_block() for $ver in kernel-fixes/"
fi
summary
