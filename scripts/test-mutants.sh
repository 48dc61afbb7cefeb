#!/bin/bash
# test-mutants.sh          ('make check-mutants'; x86_64, ~3 min a mutant warm)
#
# The KUnit cases written for the earlier series' bugs must fail on
# those bugs.  For each mutant of scripts/mutants/earlier-bugs.py (nested, oops,
# cross, nmi: an earlier series' code shape put back into the current one),
# build a copy of the tree with it (build/mutants/linux, build/mutants/
# out-x86_64; the compiler cache makes that one file and a link), boot
# the KUnit suite (run-kunit.sh x86_64, panic_on_warn=1, init_on_alloc=1),
# and check that the run fails where it should:
#   nested  a false "unmap of an address that is not mapped" report (at
#           boot: the stack depot clears a page while a trace is saved),
#           or kmst_nested_in_trace failing
#   oops    kmst_oops_exit failing
#   cross   kmst_cross_context failing
#   nmi     kmst_leak_nmi failing
# then the same tree without a mutant: the suite passes.  Ends with
# "N passed, N failed".
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$KMS_SCRIPTS/testlib.sh"
case "${1:-}" in -h|--help) kms_help; exit 0 ;; esac

dir=$KMS_BUILD/mutants
tree=$dir/linux
out=$dir/out-x86_64
mkdir -p "$dir"
KMS_TREE=$tree ensure_tree
[ -z "$(git -C "$tree" status --porcelain --untracked-files=no)" ] ||
	die "$tree has changes of its own (a mutant left by an interrupted run?): make it again with
  scripts/kernel-tree.sh --fresh $tree"
trap 'git -C "$tree" checkout -q -- mm' EXIT

# suite NAME: run-kunit.sh on the tree as it is; status in rc, log in $dir/NAME.log
suite() {
	rc=0
	mkdir -p "$dir/$1"
	KMAPSTACK_TREE=$tree KMAPSTACK_OUT=$out KMAPSTACK_KUNIT_LOGDIR=$dir/$1 \
		"$KMS_SCRIPTS/run-kunit.sh" x86_64 > "$dir/$1.log" 2>&1 || rc=$?
	info "$1: run-kunit.sh status $rc ($(tail -n 1 "$dir/$1.log"))"
}

# mutant NAME ERE: the suite with mutant NAME fails, and its output or the
# console log matches ERE
mutant() {
	local m=$1 want=$2
	git -C "$tree" checkout -q -- mm
	"$KMS_SCRIPTS/mutants/earlier-bugs.py" "$tree" "$m" || { nok "mutant $m: applied"; return; }
	suite "$m"
	check "mutant $m: the KUnit run fails (status $rc)" test "$rc" != 0
	check "mutant $m: where it should ($want)" \
		grep -qaE "$want" "$dir/$m.log" "$dir/$m/kunit-x86_64.log"
}

mutant nested 'kmap_stack: unmap of an address that is not mapped|FAILED: kmap_stack[a-z_/]*/kmst_nested_in_trace'
mutant oops 'FAILED: kmap_stack[a-z_/]*/kmst_oops_exit'
mutant cross 'FAILED: kmap_stack[a-z_/]*/kmst_cross_context'
mutant nmi 'FAILED: kmap_stack[a-z_/]*/kmst_leak_nmi'
git -C "$tree" checkout -q -- mm
suite none
check "no mutant: the KUnit run passes" test "$rc" = 0
summary
