# shellcheck shell=bash
# The pass/fail bookkeeping of every test script of the harness (sourced
# after scripts/lib.sh), and the one reader of its closing line.
#
#   ok NAME             one passing check:  "PASS NAME"
#   nok NAME [DETAIL]   one failing check:  "FAIL NAME: DETAIL"
#   check NAME CMD...   ok NAME if CMD succeeds, else nok NAME
#   check_no_oops NAME FILE
#                       ok NAME unless the console log FILE shows an oops
#                       (lib.sh oops_in), else nok NAME naming FILE
#   summary             print the closing line "N passed, N failed";
#                       returns 1 if anything failed (end a script with it)
#   read_counts FILE    the last closing line of FILE (a test script's log)
#                       into KMS_P and KMS_F; returns 1 if FILE has none
#
# A script that dies before its summary has no closing line: its callers
# (scripts/check-all.sh, test-guest.sh) count that as a failure.
KMS_PASS=0 KMS_FAIL=0
ok()  { KMS_PASS=$((KMS_PASS + 1)); printf 'PASS %s\n' "$1"; }
nok() { KMS_FAIL=$((KMS_FAIL + 1)); printf 'FAIL %s%s\n' "$1" "${2:+: $2}"; }
check() {
	local name=$1; shift
	if "$@"; then ok "$name"; else nok "$name"; fi
}
check_no_oops() {
	if oops_in "$2"; then nok "$1" "see $2"; else ok "$1"; fi
}
summary() {
	echo "$KMS_PASS passed, $KMS_FAIL failed"
	[ "$KMS_FAIL" = 0 ]
}
KMS_COUNT_RE='^([0-9]+) passed, ([0-9]+) failed'
read_counts() {
	local line
	line=$(tr -d '\r' < "$1" 2>/dev/null | grep -aE "$KMS_COUNT_RE" | tail -n 1) || true
	KMS_P=0 KMS_F=0
	[[ $line =~ $KMS_COUNT_RE ]] || return 1
	KMS_P=${BASH_REMATCH[1]} KMS_F=${BASH_REMATCH[2]}
}
