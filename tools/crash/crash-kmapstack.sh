#!/bin/bash
# crash-kmapstack.sh VMLINUX VMCORE [KMAPSTACK-ARGS]...
#
# Runs crash(8) non-interactively on a vmcore with the kmapstack extension
# (tools/crash/kmapstack.so, built by 'make -C tools/crash' if missing) and
# prints the output of 'kmapstack ARGS' for each argument (one crash command
# per argument; none: plain 'kmapstack').  E.g.
#   tools/crash/crash-kmapstack.sh vmlinux vmcore "" "-p 97" "-c 1"
#
# Two workarounds for crash 8.0.2 (Debian bookworm) on Linux 6.12:
#  - --no_modules: crash 8.0.2 cannot read the module tables of Linux >= 6.4
#    ("invalid structure member offset: module_core_size"); the extension
#    names module functions itself, from the modules' kallsyms;
#  - its embedded gdb 10 crashes at random in symbol lookups on this vmlinux
#    ("<segmentation violation in gdb>", one run in three or more, with or
#    without the extension): a race of gdb's worker threads, which it starts
#    one per CPU of /sys/devices/system/cpu/online.  As root, crash runs in a
#    private mount namespace (unshare -m) where that file says "0" (one
#    CPU).
#  - crash 8.0.2 itself corrupts its heap on some 6.12 dumps ("bt: invalid
#    size request: 0 ... stack contents" at start-up, then malloc() aborts),
#    with or without the extension, depending on its heap layout: a failed
#    session is retried with vmlinux behind a symlink of another name
#    length, up to 12 times.
# Exit status: crash's; 3 if every try hit the gdb crash.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 2 ] || { sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
vmlinux=$1 vmcore=$2; shift 2
[ $# -gt 0 ] || set -- ""
ext=$here/kmapstack.so
[ -f "$ext" ] || make -s -C "$here" >&2 || exit 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmds=$tmp/cmds out=$tmp/out
echo 0 > "$tmp/one-cpu"
vmlinux=$(readlink -f "$vmlinux") vmcore=$(readlink -f "$vmcore")
{ echo "extend $ext"; for a in "$@"; do echo "kmapstack $a"; done; echo quit; } > "$cmds"
run_crash() {	# run_crash NAMELIST
	if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null &&
	   unshare -m true 2>/dev/null; then
		# shellcheck disable=SC2016
		unshare -m sh -c 'mount --bind "$1" /sys/devices/system/cpu/online 2>/dev/null; shift; exec "$@"' \
			sh "$tmp/one-cpu" timeout 300 crash -s --no_modules "$1" "$vmcore"
	else
		timeout 300 crash -s --no_modules "$1" "$vmcore"
	fi
}
# Each try reaches vmlinux through a symlink of another name length: whether
# crash 8.0.2 corrupts its heap on this kernel depends on its heap layout,
# which the length of the file name changes (same name, same outcome).
names=(vmlinux vmlin vmlinu v vm vml vmli vmlinux1 vmlinux12 vmlinux123 vmlinux1234 vmlinux12345)
try=0
for n in "${names[@]}"; do
	try=$((try + 1))
	ln -sf "$vmlinux" "$tmp/$n"
	rc=0
	(cd "$tmp" && run_crash "$n") < "$cmds" > "$out" 2>&1 || rc=$?
	# a good session: crash exited 0, loaded the extension, no gdb crash
	if [ "$rc" = 0 ] && grep -q 'kmapstack.so: shared object loaded' "$out" &&
	   ! grep -qE 'segmentation violation|malloc\(\)|double free|corrupted' "$out"; then
		cat "$out"
		[ "$try" = 1 ] || echo "crash-kmapstack.sh: took $try tries (crash failures)" >&2
		exit 0
	fi
done
cat "$out"
echo "crash-kmapstack.sh: crash failed in all $try tries" >&2
exit 3
