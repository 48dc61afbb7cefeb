#!/bin/bash
# test-tree.sh          ('make check-tree')
#
# Every kernel build first makes its tree the series of kernel-patch/ on the
# base tarball (lib.sh ensure_tree).  Checked here on a toy kernel in a
# scratch directory (a tarball of a Makefile and one source file, a series
# of two patches), through the same scripts and functions:
#   - no tree: made by kernel-tree.sh, the series applied;
#   - nothing changed: built as it is, with the developer's edit kept;
#   - a patch edited in the patch directory: the tree is re-made with it;
#   - the tree has a commit of its own and the patches changed: refused,
#     naming make export-patches and make kernel-tree;
#   - export-patches.sh, then a build: the tree is kept, with its commit;
#   - a new tarball (a Debian point release): the tree is re-made on it;
# and the base-version policy (docs/harness.md, 'The base kernel'):
#   - the base used is printed; a warning only when it is not the tested
#     version (lib.sh KMS_BASE_TESTED);
#   - a patch that stops applying half-way: the build fails, and once the
#     patch is fixed the tree is re-made (not built half-applied);
#   - context moved on another X.Y.z of the base (7.3, or 6.12 with BASE=6.12): applied with one line of context,
#     with a warning; a removed line that changed: refused;
#   - a tarball that is not the base's X.Y: refused;
#   - on the tested base, a patch that does not apply: refused at once.
# Ends with "N passed, N failed".
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$KMS_SCRIPTS/testlib.sh"
case "${1:-}" in -h|--help) kms_help; exit 0 ;; esac

scratch=$(mktemp -d "${TMPDIR:-/tmp}/kmapstack-tree.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
# The toy kernel has the version of the base in use (BASE=7.3 or 6.12)
maj=${KMS_BASE_SERIES%%.*} min=${KMS_BASE_SERIES#*.}
toy=$scratch/src/linux-source-$KMS_BASE_SERIES
patches=$scratch/patches
export KMAPSTACK_BUILD=$scratch/build KMAPSTACK_PATCHDIR=$patches
export KMAPSTACK_TARBALL=$scratch/linux-source-$KMS_BASE_SERIES.tar.xz
unset KMAPSTACK_TREE
tree=$(KMAPSTACK_BUILD=$scratch/build bash -c '. "$1/lib.sh"; echo "$KMS_TREE"' _ "$KMS_SCRIPTS")
gitid=(-c user.name=toy -c user.email=toy@invalid)

# tarball SUBLEVEL [FIRST-LINE [RETURN [PATCHLEVEL]]]: the toy kernel
# MAJOR.PATCHLEVEL.SUBLEVEL (default: the base's) as the base tarball; mm/toy.c is
# 'int toy(void)' returning 0 unless FIRST-LINE or RETURN say otherwise
tarball() {
	rm -rf "$scratch/src" && mkdir -p "$toy/mm"
	printf 'VERSION = %s\nPATCHLEVEL = %s\nSUBLEVEL = %s\n' "$maj" "${4:-$min}" "$1" > "$toy/Makefile"
	printf '%s\n{\n\treturn %s;\n}\n' "${2:-int toy(void)}" "${3:-0}" > "$toy/mm/toy.c"
	tar -cJf "$KMAPSTACK_TARBALL" -C "$scratch/src" "linux-source-$KMS_BASE_SERIES"
	# its own time: the tree stamp knows a tarball by name, size and time
	touch -d "@$((1700000000 + $1 + 1000 * ${4:-$min}))" "$KMAPSTACK_TARBALL"
}

# The series: two patches of mm/toy.c, made in a scratch repository, on
# the tested base version
sub=${KMS_BASE_TESTED##*.}
tarball "$sub"
git -C "$toy" init -q
git -C "$toy" add -A && git -C "$toy" "${gitid[@]}" commit -q -m base
sed -i 's/return 0;/return 1;/' "$toy/mm/toy.c"
git -C "$toy" "${gitid[@]}" commit -q -am "toy: return 1"
printf '\nint toy2(void)\n{\n\treturn 2;\n}\n' >> "$toy/mm/toy.c"
git -C "$toy" "${gitid[@]}" commit -q -am "toy: add toy2"
mkdir -p "$patches"
git -C "$toy" format-patch -q -N --zero-commit -o "$patches" HEAD~2..HEAD
(cd "$patches" && ls 0*.patch > series)

# ensure: what every kernel build runs first; its messages in $scratch/out
ensure() {
	bash -c '. "$1/lib.sh"; ensure_tree' _ "$KMS_SCRIPTS" > "$scratch/out" 2>&1
}
said() { grep -q -- "$1" "$scratch/out"; }
# refused NAME: ensure_tree fails; not_said NAME TEXT: its last output
# lacks TEXT
refused() {
	if ensure; then nok "$1" "ensure_tree succeeded: $(tail -n 1 "$scratch/out")"; else ok "$1"; fi
}
not_said() {
	if said "$2"; then nok "$1" "$(grep -m 1 -- "$2" "$scratch/out")"; else ok "$1"; fi
}

check "no tree: ensure_tree makes it" ensure
check "no tree: made by kernel-tree.sh" said "creating it with kernel-tree.sh"
check "no tree: both patches applied" grep -q 'return 2;' "$tree/mm/toy.c"
check "no tree: the base used is printed" said "base: Linux $KMS_BASE_TESTED"
not_said "the tested base: no version warning" "the series is tested on"

printf '/* the developer was here */\n' >> "$tree/mm/toy.c"
check "unchanged series: ensure_tree succeeds" ensure
check "unchanged series: the tree is built as it is (edit kept)" grep -q 'the developer was here' "$tree/mm/toy.c"
git -C "$tree" checkout -q -- mm/toy.c

sed -i 's/return 2;/return 22;/' "$patches/0002-toy-add-toy2.patch"
check "patch edited: ensure_tree succeeds" ensure
check "patch edited: the tree is re-made" said "re-applying the series"
check "patch edited: the tree has the edit" grep -q 'return 22;' "$tree/mm/toy.c"

sed -i 's/return 1;/return 11;/' "$tree/mm/toy.c"
git -C "$tree" "${gitid[@]}" commit -q -am "toy: the developer's commit"
sed -i 's/return 22;/return 23;/' "$patches/0002-toy-add-toy2.patch"
refused "own commit and patch edited: refused"
check "own commit and patch edited: names make export-patches" said "make export-patches"
check "own commit and patch edited: names make kernel-tree" said "make kernel-tree"
check "own commit and patch edited: the tree is left as it was" grep -q 'return 11;' "$tree/mm/toy.c"

check "export-patches.sh writes the tree's commits" \
	bash "$KMS_SCRIPTS/export-patches.sh" "$tree"
check "export-patches.sh: the patches have the developer's commit" \
	grep -q 'return 11;' "$patches"/0003-*.patch
check "after export: ensure_tree succeeds" ensure
check "after export: the tree keeps its commit" grep -q 'return 11;' "$tree/mm/toy.c"

new=$KMS_BASE_SERIES.$((sub + 1))
tarball $((sub + 1))
check "new tarball: ensure_tree succeeds" ensure
check "new tarball: the tree is re-made" said "re-applying the series"
check "new tarball: the tree is on $new" grep -qx "SUBLEVEL = $((sub + 1))" "$tree/Makefile"
check "new tarball: the series is applied" grep -q 'return 11;' "$tree/mm/toy.c"
check "new tarball: the base used is printed" said "base: Linux $new"
check "new tarball: a warning names the tested version" said "the series is tested on Linux $KMS_BASE_TESTED"

# A patch that no longer applies: kernel-tree.sh stops half-way; once the
# patch is as before, the tree is re-made, not taken for the series
p3=$(echo "$patches"/0003-*.patch)
cp "$p3" "$scratch/p3"
sed -i 's/^-\treturn 1;/-\treturn 9;/' "$p3"
refused "a patch that does not apply: the build is refused"
check "a patch that does not apply: named" said "patch #3 kernel-patch/${p3##*/} does not apply"
check "a patch that does not apply: the tree is stamped incomplete" \
	grep -qx 'series=incomplete' "$tree/.git/kmapstack-series"
cp "$scratch/p3" "$p3"
check "the patch as before: ensure_tree succeeds" ensure
check "the patch as before: the half-applied tree is re-made" said "re-applying the series"
check "the patch as before: the whole series is applied" grep -q 'return 11;' "$tree/mm/toy.c"

# Another X.Y.z of the base whose context moved: one line of context, a warning
tarball $((sub + 2)) 'int toy(void) /* moved */'
check "context moved: ensure_tree succeeds" ensure
check "context moved: applied with one line of context, with a warning" \
	said "applies to Linux $KMS_BASE_SERIES.$((sub + 2)) only with one line of context"
check "context moved: the series is applied" \
	bash -c 'grep -q "return 11;" "$1" && grep -q "return 22;" "$1" && grep -q moved "$1"' _ "$tree/mm/toy.c"

# A line the series removes is not there: refused, naming the ways on
tarball $((sub + 3)) 'int toy(void)' 5
refused "a removed line changed: refused"
check "a removed line changed: says so" said "not even with one line of context"
check "a removed line changed: names rebasing the series" said "rebase it on $KMS_BASE_SERIES.$((sub + 3))"

# Not the base's X.Y: refused
other=$maj.$((min + 1))
tarball "$sub" 'int toy(void)' 0 $((min + 1))
refused "Linux $other: refused"
check "Linux $other: says the series is for $KMS_BASE_SERIES" said "not $KMS_BASE_SERIES.y"

# On the tested base a patch that does not apply is refused at once (no
# retry with less context: the series is made on it)
tarball "$sub"
sed -i 's/^-\treturn 1;/-\treturn 9;/' "$p3"
refused "the tested base, a patch that does not apply: refused"
check "the tested base, a patch that does not apply: named" \
	said "patch #3 kernel-patch/${p3##*/} does not apply (git am --no-3way)"
not_said "the tested base: no retry with one line of context" "one line of context"
cp "$scratch/p3" "$p3"
summary
