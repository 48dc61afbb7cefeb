#!/bin/bash
# crash-kmapstack.sh VMLINUX VMCORE [KMAPSTACK-ARGS]...
#
# Runs crash(8) non-interactively on a vmcore with the kmapstack extension
# and prints the output of 'kmapstack ARGS' for each argument (one crash
# command per argument; none: plain 'kmapstack').  E.g.
#   tools/crash/crash-kmapstack.sh vmlinux vmcore "" "-p 97" "-c 1"
#
# The crash is scripts/install-crash.sh's: crash 8.0.6 with the patches in
# tools/crash/patches/, built once per machine if missing (Debian bookworm's
# 8.0.2 overflows a heap buffer on Linux >= 6.2 x86_64 dumps and fails at
# random, an unpatched 8.0.6 fails on kernels without CONFIG_X86_MCE: see
# that script).  tools/crash/kmapstack.so is built against that crash's
# defs.h (make -C tools/crash CRASH_INC=PREFIX/include).
# crash runs with --no_kmem_cache and --no_modules: the extension needs
# neither the slab caches nor crash's module tables (it names module call
# sites from the dump's kallsyms), and crash 8.0.6 stops on Linux 7.x dumps
# in both (kmem_cache_s_num, module_num_gpl_syms: members 7.x no longer
# has).
# Exit status: crash's; 3 if crash reported an error of its own
# (its initialisation, a gdb fault, a heap corruption).
# Environment: KMAPSTACK_CRASH_PREFIX (see install-crash.sh),
# KMAPSTACK_CRASH_OPTS (more crash options, e.g. --no_modules),
# KMAPSTACK_CRASH_TARGET=X86 for an i386 vmcore: install-crash.sh --target
# X86's crash (KMAPSTACK_CRASH_X86_PREFIX) and kmapstack-i386.so
# (make ARCH=i386).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 2 ] || { sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
vmlinux=$1 vmcore=$2; shift 2
[ $# -gt 0 ] || set -- ""
target=${KMAPSTACK_CRASH_TARGET:-X86_64}
prefix=$("$here/../../scripts/install-crash.sh" --target "$target" --print) || exit 2
if [ "$target" = X86 ]; then
	make -s -C "$here" ARCH=i386 CRASH_INC="$prefix/include" >&2 || exit 2
	ext=$here/kmapstack-i386.so
else
	make -s -C "$here" CRASH_INC="$prefix/include" >&2 || exit 2
	ext=$here/kmapstack.so
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
{ echo "extend $ext"; for a in "$@"; do echo "kmapstack $a"; done; echo quit; } > "$tmp/cmds"
rc=0
read -r -a opts <<< "${KMAPSTACK_CRASH_OPTS:-}"
timeout 300 "$prefix/bin/crash" -s --no_kmem_cache --no_modules "${opts[@]}" \
	"$vmlinux" "$vmcore" < "$tmp/cmds" > "$tmp/out" 2>&1 || rc=$?
cat "$tmp/out"
[ "$rc" = 0 ] || exit "$rc"
# crash's own errors (crash 8.0.2's and unpatched 8.0.6's symptoms on 6.12)
if grep -qE 'segmentation violation|malloc\(\)|double free|corrupted|invalid size request|invalid structure member offset|cannot be determined' "$tmp/out"; then
	echo "crash-kmapstack.sh: crash reported errors of its own (above)" >&2
	exit 3
fi
exit 0
