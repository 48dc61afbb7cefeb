#!/bin/bash
# test-postmortem-i386.sh: the crash extension on a real vmcore of an i386
# HIGHMEM guest ('make check-postmortem-i386'; not part of make check: it
# needs a second crash build and an i386 kernel with debug info).
#   - builds the i386 test kernel with DWARF into build/out-i386-dbg
#     (scripts/build-kernel.sh i386 with KMAPSTACK_FRAGMENTS=
#     scripts/configs/postmortem-i386.config) and kmapbug.ko against it;
#   - boots it under qemu-system-i386 -m 3G (about 2 GiB of ZONE_HIGHMEM)
#     with the busybox initramfs, a QMP socket, -device vmcoreinfo and a
#     second serial port (a socket: the host's go-ahead after the dump); the
#     guest (scripts/guest/postmortem-i386-guest.sh) loads kmapbug bug=hold:
#     kthread kmapbug_holder holds three nested kmap_local mappings of
#     GFP_HIGHUSER pages;
#   - dumps it with QMP dump-guest-memory -p (scripts/guest/qmp-dump.py);
#   - runs crash 8.0.6 built for target=X86 (scripts/install-crash.sh
#     --target X86, built first if missing) with tools/crash/kmapstack-i386.so
#     (tools/crash/crash-kmapstack.sh, KMAPSTACK_CRASH_TARGET=X86):
#     kmapstack, kmapstack -s, kmapstack -p PID, kmapstack -c 0;
# and checks that each exits 0 and names kmapbug_holder at depth 3 with
# kmapbug_map_first, _second, _third in that order, at addresses in the
# kmap fixmap slots (from __FIXADDR_TOP, FIX_KMAP_BEGIN, FIX_KMAP_END in
# the dump) of highmem pages (pfn >= max_low_pfn).
# drgn is not run: drgn 0.0.22 reads no i386 vmcore (docs/howto-postmortem.md).
# Ends with "N passed, N failed"; exit 1 on any failure.
# Environment: KMAPSTACK_OUT (default build/out-i386-dbg),
#   KMAPSTACK_CRASH_X86_PREFIX, KMAPSTACK_ACCEL (default tcg: boot.sh's KVM
#   probe would boot this initramfs), KMAPSTACK_KEEP_VMCORE=1 (keep the
#   3 GiB dump).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
. "$KMS_SCRIPTS/testlib.sh"
case "${1:-}" in -h|--help) kms_help; exit 0 ;; esac
check_arch i386
kout=${KMAPSTACK_OUT:-$KMS_BUILD/out-i386-dbg}
dir=$KMS_BUILD/test-postmortem-i386
rm -rf "$dir"; mkdir -p "$dir"
t0=$(now)

# --- the kernel, the module, the crash, the extension ---
build_kernel_variant "$kout" "$dir/kernel-build.log" "$KMS_SCRIPTS/configs/postmortem-i386.config"
kout=$(cd "$kout" && pwd)
vmlinux=$kout/vmlinux
build_kmapbug "$kout"
# the 32-bit libraries a crash for target=X86 builds against
lib32=()
for pkg in libc6-dev-i386 lib32stdc++-12-dev lib32gcc-12-dev lib32ncurses-dev lib32z1-dev; do
	dpkg -s "$pkg" > /dev/null 2>&1 || lib32+=("$pkg")
done
[ ${#lib32[@]} = 0 ] || apt_install "${lib32[@]}"
crash_prefix=$("$KMS_SCRIPTS/install-crash.sh" --target X86 --print) ||
	die "no crash 8.0.6 for target=X86 (scripts/install-crash.sh --target X86 failed)"
"$crash_prefix/bin/crash" --version | grep -m 1 "^crash "
make -s -C "$KMS_REPO/tools/crash" ARCH=i386 CRASH_INC="$crash_prefix/include" > "$dir/crash-ext-build.log" 2>&1 ||
	{ cat "$dir/crash-ext-build.log"; die "make -C tools/crash ARCH=i386 failed"; }
tb=$(now)

# --- boot, hold, dump ---
initrd=$dir/initramfs.cpio
KMAPSTACK_RUN="$KMS_SCRIPTS/guest/postmortem-i386-guest.sh" \
	"$KMS_SCRIPTS/mkinitramfs.sh" "$initrd" i386 "$KMS_KMAPBUG:/lib/kmapbug.ko" > /dev/null
log=$dir/console.log
sock=$dir/qmp.sock
vmcore=$dir/vmcore
KMAPSTACK_QEMU=qemu-system-i386 "$KMS_SCRIPTS/boot.sh" i386 -k "$kout/$KMS_IMAGE" -i "$initrd" \
	-l "$log" -t 600 -m 3G --smp 2 --accel "${KMAPSTACK_ACCEL:-tcg}" -a "kunit.enable=0" \
	-- -qmp "unix:$sock,server=on,wait=off" -device vmcoreinfo \
	-chardev "socket,id=kmsgo,path=$dir/go.sock,server=on,wait=off" -serial chardev:kmsgo \
	> "$dir/boot.out" 2>&1 &
bpid=$!
for _ in $(seq 1 500); do
	grep -q 'kmapstack-postmortem: ready' "$log" 2>/dev/null && break
	kill -0 "$bpid" 2>/dev/null || break
	sleep 0.5
done
dumprc=none
if grep -q 'kmapstack-postmortem: ready' "$log" 2>/dev/null; then
	dumprc=0
	/usr/bin/python3 "$KMS_SCRIPTS/guest/qmp-dump.py" "$sock" "$vmcore" || dumprc=$?
	# the guest's ttyS1: it unloads the module and ends
	/usr/bin/python3 -c 'import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(b"dumped\n")
s.close()' "$dir/go.sock" || warn "could not write to the guest's ttyS1 ($dir/go.sock)"
fi
brc=0; wait "$bpid" || brc=$?
cat "$dir/boot.out"
tr -d '\r' < "$log" > "$log.txt"
grep 'kmapstack-postmortem: ' "$log.txt"
check "guest: kmapbug bug=hold loaded, held, unloaded (boot.sh exit $brc)" \
	bash -c "[ $brc = 0 ] && grep -q 'kmapstack-postmortem: unloaded' '$log.txt'"
check "guest: ZONE_HIGHMEM ($(grep -o 'HighTotal: *[0-9]* kB' "$log.txt"))" \
	bash -c "[ \"\$(grep -o 'HighTotal: *[0-9]*' '$log.txt' | grep -o '[0-9]*$')\" -gt 1000000 ]"
check "QMP dump-guest-memory: exit 0 (exit $dumprc)" [ "$dumprc" = 0 ]
check "vmcore written ($(du -m "$vmcore" 2>/dev/null | cut -f1) MiB, $(file -b "$vmcore" 2>/dev/null | cut -d, -f1-2))" [ -s "$vmcore" ]
pid=$(sed -n 's/^kmapstack-postmortem: holder pid \([0-9]*\)$/\1/p' "$log.txt" | head -n 1)
[ -n "$pid" ] || pid=none
td=$(now)
[ -s "$vmcore" ] || { summary; exit 1; }

# --- crash ---
export KMAPSTACK_CRASH_TARGET=X86
# the kmap fixmap slots and the end of lowmem, from the dump
printf '%s\n' 'p/x __FIXADDR_TOP' 'p/d FIX_KMAP_BEGIN' 'p/d FIX_KMAP_END' 'p/x max_low_pfn' quit |
	timeout 300 "$crash_prefix/bin/crash" -s "$vmlinux" "$vmcore" > "$dir/crash-vars.txt" 2>&1
rc=$?
cat "$dir/crash-vars.txt"
mapfile -t v < <(grep '^\$[0-9]* = ' "$dir/crash-vars.txt" | sed 's/^\$[0-9]* = //')
fixtop=${v[0]:-0} kbegin=${v[1]:-0} kend=${v[2]:-0} maxlow=${v[3]:-0}
lo=$(( fixtop - (kend << 12) )) hi=$(( fixtop - (kbegin << 12) ))
check "crash (target=X86) reads the dump: exit $rc, __FIXADDR_TOP $fixtop, FIX_KMAP_BEGIN..END $kbegin..$kend, max_low_pfn $maxlow" \
	bash -c "[ $rc = 0 ] && [ ${#v[@]} = 4 ] && [ $(( kend > kbegin && maxlow > 0 )) = 1 ]"
info "kmap fixmap slots: $(printf '%x-%x' "$lo" $(( hi + 4095 ))), highmem: pfn >= $(printf '%x' "$maxlow")"

# run NAME ARGS: crash-kmapstack.sh with 'kmapstack ARGS' into $dir/NAME.txt
run() {
	local name=$1 rc=0; shift
	"$KMS_REPO/tools/crash/crash-kmapstack.sh" "$vmlinux" "$vmcore" "$*" > "$dir/$name.txt" 2>&1 || rc=$?
	cat "$dir/$name.txt"
	check "crash: kmapstack $*: exit 0 (exit $rc), no error" \
		bash -c "[ $rc = 0 ] && ! grep -qE '^(kmapstack: |crash: )|invalid|failed' '$dir/$name.txt'"
}
# holder NAME: the kmapbug_holder's header and entries in $dir/NAME.txt
holder() {
	awk -v pid="$pid" '$1 == "PID" && $2 == pid { on = 1; print; next }
		on && /^    #/ { print; next } on && /^      / { next } { on = 0 }' "$dir/$1.txt"
}
# check_holder NAME: depth 3, first/second/third in order, task-context
# kmap_local, fixmap addresses, highmem pfns
check_holder() {
	local name=$1 b hdr calls bad=
	b=$(holder "$name")
	hdr=$(head -n 1 <<< "$b")
	check "$name: PID $pid kmapbug_holder at depth 3" \
		bash -c "[[ \"\$1\" =~ ^PID\ +$pid\ +kmapbug_holder\ +task\ [0-9a-f]+\ +depth\ 3\$ ]]" _ "$hdr"
	calls=$(sed -n '2,$p' <<< "$b" | grep -o 'kmapbug_map_[a-z]*+0x[0-9a-f]* \[kmapbug\]' | sed 's/+.*//' | tr '\n' ' ')
	check "$name: kmapbug_map_first, _second, _third in order ($calls)" \
		[ "$calls" = "kmapbug_map_first kmapbug_map_second kmapbug_map_third " ]
	check "$name: three task-context kmap_local entries" \
		[ "$(sed -n '2,$p' <<< "$b" | grep -cE '^    #[0-2] +[0-9a-f]{8} pfn [0-9a-f]+ +task +local ')" = 3 ]
	while read -r _ a _ p _; do
		[ $(( 0x$a >= lo && 0x$a <= hi )) = 1 ] || bad+=" addr $a"
		[ $(( 0x$p >= maxlow )) = 1 ] || bad+=" pfn $p"
	done < <(sed -n '2,$p' <<< "$b")
	check "$name: addresses in the kmap fixmap slots, pfns in highmem${bad:+ (not:$bad)}" \
		bash -c "[ -z '$bad' ] && [ $(sed -n '2,$p' <<< "$b" | wc -l) = 3 ]"
}

run all ""
check_holder all
check "all: 2 CPUs x 3 interrupt stacks, depth 0" \
	[ "$(grep -cE '^CPU [01] (softirq|hardirq|nmi) +[0-9a-f]{8}  depth 0$' "$dir/all.txt")" = 6 ]
check "all: the summary names one holder of 3 mappings" \
	grep -qE '^[0-9]+ tasks, 1 holding 3 mappings' "$dir/all.txt"

run stacks -s
check_holder stacks
check "stacks: each entry's trace leads from kmapbug_holder" \
	[ "$(grep -c '^ *kmapbug_holder+0x[0-9a-f]* \[kmapbug\]$' "$dir/stacks.txt")" = 3 ]

run pid -p "$pid"
check_holder pid
check "pid: -p $pid lists that task only" \
	bash -c "grep -q '^1 tasks, 1 holding 3 mappings' '$dir/pid.txt' && [ \"\$(grep -c '^\(PID\|CPU\) ' '$dir/pid.txt')\" = 1 ]"

run cpu -c 0
check "cpu: -c 0 lists CPU 0's three interrupt stacks only" \
	bash -c "[ \"\$(grep -cE '^CPU 0 ' '$dir/cpu.txt')\" = 3 ] && ! grep -qE '^(CPU [1-9]|PID )' '$dir/cpu.txt'"
tc=$(now)

# 3 GiB: removed unless KMAPSTACK_KEEP_VMCORE=1
[ "${KMAPSTACK_KEEP_VMCORE:-0}" = 1 ] || rm -f "$vmcore"
echo "test-postmortem-i386: $(( tc - t0 ))s (builds $(( tb - t0 ))s, guest and dump $(( td - tb ))s, crash $(( tc - td ))s)"
summary
