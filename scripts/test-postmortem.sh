#!/bin/bash
# test-postmortem.sh: crash and drgn on a real vmcore of the x86_64 guest.
# Boots the guest with a QMP socket, loads kmapbug bug=hold (kthread
# kmapbug_holder holds 3 nested kmap_local mappings), dumps the guest with
# QMP dump-guest-memory -p (scripts/guest/qmp-dump.py), then runs
#   tools/crash/crash-kmapstack.sh (crash 8.0.6 -s + 'extend
#                                   tools/crash/kmapstack.so; kmapstack ...')
#   drgn -q -c vmcore -s vmlinux tools/drgn/kmapstack.py ...
# and checks that both list kmapbug_holder at depth 3 with the call sites
# kmapbug_map_first, _second, _third in that order (named with [kmapbug]),
# every CPU's interrupt stacks, that -p PID / -p TASK-ADDRESS / -c CPU /
# -c CPU-LIST select (a task chosen by address is listed even when it
# holds nothing, as crash's own commands list it), that the two
# print the same block (and the same stack traces with -s). crash runs
# with --no_modules (tools/crash/crash-kmapstack.sh): the module names are
# the extension's own, from the dump's kallsyms.
# crash 8.0.6 is scripts/install-crash.sh's (built first if missing).
# Ends with "N passed, N failed"; exit 1 on any failure.
# Environment: KMAPSTACK_OUT (guest kernel build), KMAPSTACK_CRASH_PREFIX.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
. "$KMS_SCRIPTS/guest/lib-guest.sh"

out=$KMS_BUILD/test-postmortem
rm -rf "$out"; mkdir -p "$out"
t0=$(now)
guest_kernel_check
ensure_kmapbug
[ -x /usr/bin/drgn ] || die "drgn not found (apt-get install python3-drgn; scripts/deps/guest.txt)"
crash_prefix=$("$KMS_SCRIPTS/install-crash.sh" --print) || die "no crash >= 8.0.6 (scripts/install-crash.sh failed)"
"$crash_prefix/bin/crash" --version | grep -m 1 "^crash "
make -s -C "$KMS_REPO/tools/crash" CRASH_INC="$crash_prefix/include" > "$out/crash-ext-build.log" 2>&1 ||
	{ cat "$out/crash-ext-build.log"; die "make -C tools/crash failed"; }
vmlinux=$KMS_GUEST_OUT/vmlinux
vmcore=$out/vmcore
smp=2

# --- boot, hold, dump ---
"$KMS_SCRIPTS/guest-run.sh" -o "$out" -t 420 -m 1G --smp "$smp" --qmp "$out/qmp.sock" \
	"$KMS_GUEST_DIR/postmortem-guest.sh" "$KMS_KMAPBUG" > "$out/guest-run.out" 2>&1 &
gpid=$!
for _ in $(seq 1 300); do
	[ -e "$out/ready" ] && break
	kill -0 "$gpid" 2>/dev/null || break
	sleep 1
done
if [ -e "$out/ready" ]; then
	dumprc=0
	/usr/bin/python3 "$KMS_GUEST_DIR/qmp-dump.py" "$out/qmp.sock" "$vmcore" || dumprc=$?
	touch "$out/dumped"
fi
grc=0; wait "$gpid" || grc=$?
cat "$out/guest-run.out"
check "guest: kmapbug bug=hold loaded, dumped, unloaded" [ "$grc" = 0 ]
check "QMP dump-guest-memory: exit 0 (exit ${dumprc:-none: the guest never got ready})" [ "${dumprc:-1}" = 0 ]
check "vmcore written ($(du -m "$vmcore" 2>/dev/null | cut -f1) MiB)" [ -s "$vmcore" ]
pid=$(cat "$out/holder.pid" 2>/dev/null || echo none)
[ -s "$vmcore" ] || { summary; exit 1; }

# holder_block FILE: the kmapbug_holder's header line (its task address
# dropped, as the two tools may print it differently) and the indented lines
# under it (the entries and, with -s, their stack traces).
holder_block() {
	awk -v pid="$pid" '$1 == "PID" && $2 == pid && $3 == "kmapbug_holder" { on = 1; sub(/task [0-9a-f]*/, ""); print "HDR " $0; next }
		on && /^ / { print; next } { on = 0 }' "$1"
}

# check_holder NAME FILE: the kmapbug_holder block lists depth 3 and the three
# call sites, outermost first.
check_holder() {
	local name=$1 file=$2 got
	got=$(holder_block "$file")
	check "$name: kmapbug_holder (pid $pid) at depth 3" \
		grep -q "^HDR PID $pid .*kmapbug_holder .*depth 3\$" <<< "$got"
	check "$name: call sites kmapbug_map_first, _second, _third, outermost first" \
		bash -c "grep '^ *#' <<< \"\$1\" | grep -o 'kmapbug_map_[a-z]*' | tr '\n' ' ' | grep -qx 'kmapbug_map_first kmapbug_map_second kmapbug_map_third '" _ "$got"
	check "$name: the entries are task-context kmap_local mappings" \
		bash -c "[ \"\$(grep -c '^ *#[0-2] .* task  *local ' <<< \"\$1\")\" = 3 ]" _ "$got"
	# ages from the entries' jiffies and the dump's: the holder mapped
	# before it signalled the host, at most the guest's life ago
	check "$name: every entry's age is between 1 ms and 10 min" \
		bash -c "[ \"\$(grep -E '^ *#[0-2] ' <<< \"\$1\" | grep -oE ' [0-9]+ ms ago ' |
			awk '\$1 >= 1 && \$1 <= 600000' | wc -l)\" = 3 ]" _ "$got"
}
# check_cpus NAME FILE N: N CPUs x {softirq, hardirq, nmi} lines
check_cpus() {
	local n
	n=$(grep -cE '^CPU [0-9]+ (softirq|hardirq|nmi) ' "$2")
	check "$1: interrupt stacks of every CPU ($n lines, want $(( $3 * 3 )))" [ "$n" = $(( $3 * 3 )) ]
}

# crash_run NAME ARGS: the crash extension's 'kmapstack ARGS' on the dump
# into $out/crash-NAME.txt; drgn_run NAME ARGS...: the drgn script's into
# $out/drgn-NAME.txt; the exit status in rc
crash_run() {
	rc=0; "$KMS_REPO/tools/crash/crash-kmapstack.sh" "$vmlinux" "$vmcore" "$2" > "$out/crash-$1.txt" 2>&1 || rc=$?
}
drgn_run() {
	local name=$1; shift
	rc=0; timeout 300 /usr/bin/drgn -q -c "$vmcore" -s "$vmlinux" "$KMS_REPO/tools/drgn/kmapstack.py" "$@" > "$out/drgn-$name.txt" 2>&1 || rc=$?
}
# task_of FILE PID: the task address a listing gives for PID
task_of() {
	awk -v pid="$2" '$1 == "PID" && $2 == pid { for (i = 3; i < NF; i++) if ($i == "task") print $(i + 1) }' "$1"
}

# --- crash (tools/crash/crash-kmapstack.sh) ---
t1=$(now)
crc=0
"$KMS_REPO/tools/crash/crash-kmapstack.sh" "$vmlinux" "$vmcore" "" > "$out/crash.txt" 2>&1 || crc=$?
check "crash: exit 0 with the extension loaded" bash -c "[ $crc = 0 ] && grep -q 'kmapstack.so: shared object loaded' '$out/crash.txt'"
check_cpus crash "$out/crash.txt" "$smp"
check_holder crash "$out/crash.txt"
check "crash: the summary line counts the holder" grep -qE '^[0-9]+ tasks, [1-9][0-9]* holding [3-9][0-9]* mappings' "$out/crash.txt"
# crash runs with --no_modules and --no_kmem_cache (crash-kmapstack.sh):
# their two warnings and no other; module names from the dump's kallsyms
check "crash: no warning but those of --no_modules and --no_kmem_cache" \
	bash -c "! grep 'WARNING' '$out/crash.txt' | grep -v -e 'no kernel module access' -e 'SLAB: cannot determine'"
check "crash: call sites name the module ([kmapbug])" grep -q 'kmapbug_map_first+0x[0-9a-f]* \[kmapbug\]' "$out/crash.txt"
crash_run p "-p $pid"
check "crash -p $pid: exit 0 (exit $rc)" [ "$rc" = 0 ]
check "crash: -p $pid lists only that task" \
	bash -c "[ \"\$(grep -c '^PID ' '$out/crash-p.txt')\" = 1 ] && grep -q '^PID $pid .*kmapbug_holder' '$out/crash-p.txt' && ! grep -q '^CPU ' '$out/crash-p.txt'"
crash_run c "-c 1"
check "crash -c 1: exit 0 (exit $rc)" [ "$rc" = 0 ]
check "crash: -c 1 lists only CPU 1" \
	bash -c "[ \"\$(grep -cE '^CPU 1 ' '$out/crash-c.txt')\" = 3 ] && ! grep -qE '^(CPU [02-9]|PID )' '$out/crash-c.txt'"
# -p by task address and -c with a CPU list, as crash's own commands take them
task=$(task_of "$out/crash.txt" "$pid")
crash_run pt "-p ${task:-none}"
check "crash -p ${task:-(no task address in the listing)}: exit 0 (exit $rc)" [ -n "$task" -a "$rc" = 0 ]
check "crash: -p TASK-ADDRESS lists the holder alone, as -p $pid does" \
	bash -c "[ \"\$(grep -c '^PID ' '$out/crash-pt.txt')\" = 1 ] && ! grep -q '^CPU ' '$out/crash-pt.txt' &&
		grep -q '^1 tasks, 1 holding 3 mappings' '$out/crash-pt.txt' &&
		[ -n \"\$1\" ] && [ \"\$1\" = \"\$(grep -A3 '^PID ' '$out/crash-p.txt')\" ]" _ "$(grep -A3 '^PID ' "$out/crash-pt.txt")"
# a CPU list that leaves CPU 0 out
cl=1-$((smp - 1))
crash_run cl "-c $cl"
check "crash -c $cl: exit 0 (exit $rc)" [ "$rc" = 0 ]
check "crash: -c $cl lists those CPUs and no other, no task" \
	bash -c "[ \"\$(grep -cE '^CPU [1-9][0-9]* ' '$out/crash-cl.txt')\" = $(((smp - 1) * 3)) ] && ! grep -qE '^(CPU 0 |PID )' '$out/crash-cl.txt'"
# a task that holds nothing, chosen by address: listed at depth 0 (init)
crash_run a "-a"
rca=$rc task1=$(task_of "$out/crash-a.txt" 1)
crash_run p1 "-p ${task1:-none}"
check "crash -a, then -p ${task1:-(no PID 1 in -a)}: exit 0 (exit $rca, $rc)" [ -n "$task1" -a "$rca" = 0 -a "$rc" = 0 ]
check "crash: -p TASK-ADDRESS of a task holding nothing lists it at depth 0" \
	bash -c "[ \"\$(grep -c '^PID ' '$out/crash-p1.txt')\" = 1 ] && grep -qE '^PID 1 .* depth 0\$' '$out/crash-p1.txt'"
tc=$(( $(now) - t1 ))

# --- drgn ---
t1=$(now)
drc=0
timeout 300 /usr/bin/drgn -q -c "$vmcore" -s "$vmlinux" "$KMS_REPO/tools/drgn/kmapstack.py" > "$out/drgn.txt" 2> "$out/drgn.err" || drc=$?
check "drgn: exit 0 (exit $drc)" [ "$drc" = 0 ]
check_cpus drgn "$out/drgn.txt" "$smp"
check_holder drgn "$out/drgn.txt"
check "drgn: call sites name the module ([kmapbug])" grep -q 'kmapbug_map_first+0x[0-9a-f]* \[kmapbug\]' "$out/drgn.txt"
drgn_run p -p "$pid"
check "drgn -p $pid: exit 0 (exit $rc)" [ "$rc" = 0 ]
check "drgn: -p $pid lists only that task" \
	bash -c "[ \"\$(grep -c '^PID ' '$out/drgn-p.txt')\" = 1 ] && ! grep -q '^CPU ' '$out/drgn-p.txt'"
drgn_run c -c 1
check "drgn -c 1: exit 0 (exit $rc)" [ "$rc" = 0 ]
check "drgn: -c 1 lists only CPU 1" \
	bash -c "[ \"\$(grep -cE '^CPU 1 ' '$out/drgn-c.txt')\" = 3 ] && ! grep -qE '^(CPU [02-9]|PID )' '$out/drgn-c.txt'"
drgn_run pt -p "0x${task:-0}"
check "drgn -p 0x${task:-?}: exit 0 (exit $rc)" [ -n "$task" -a "$rc" = 0 ]
check "drgn: -p TASK-ADDRESS lists the holder alone, as crash does" \
	bash -c "[ \"\$(grep -c '^PID ' '$out/drgn-pt.txt')\" = 1 ] && ! grep -q '^CPU ' '$out/drgn-pt.txt' &&
		grep -q '^1 tasks, 1 holding 3 mappings' '$out/drgn-pt.txt' &&
		[ \"\$(grep -A3 '^PID ' '$out/drgn-pt.txt')\" = \"\$(grep -A3 '^PID ' '$out/crash-pt.txt')\" ]"
drgn_run cl -c "$cl"
check "drgn -c $cl: exit 0 (exit $rc)" [ "$rc" = 0 ]
check "drgn: -c $cl lists what crash lists" \
	bash -c "[ \"\$(grep -cE '^CPU [1-9][0-9]* ' '$out/drgn-cl.txt')\" = $(((smp - 1) * 3)) ] && ! grep -qE '^(CPU 0 |PID )' '$out/drgn-cl.txt' &&
		[ \"\$(grep -E '^CPU ' '$out/drgn-cl.txt')\" = \"\$(grep -E '^CPU ' '$out/crash-cl.txt')\" ]"
drgn_run p1 -p "0x${task1:-0}"
check "drgn -p 0x${task1:-?} (holding nothing): exit 0 (exit $rc)" [ -n "$task1" -a "$rc" = 0 ]
check "drgn: -p TASK-ADDRESS of a task holding nothing lists it, as crash does" \
	bash -c "grep -qE '^PID 1 .* depth 0\$' '$out/drgn-p1.txt' && [ \"\$(grep '^PID ' '$out/drgn-p1.txt')\" = \"\$(grep '^PID ' '$out/crash-p1.txt')\" ]"
td=$(( $(now) - t1 ))

# same listing from both tools (the holder's block)
a=$(holder_block "$out/crash.txt")
b=$(holder_block "$out/drgn.txt")
check "crash and drgn print the same kmapbug_holder block" [ -n "$a" -a "$a" = "$b" ]
# -s: each entry's stack trace from the stack depot, the same from both
crash_run s "-s -p $pid"
crc=$rc
drgn_run s -s -p "$pid"
check "crash -s and drgn -s: exit 0 (exit $crc, $rc)" [ "$crc" = 0 -a "$rc" = 0 ]
a=$(holder_block "$out/crash-s.txt")
b=$(holder_block "$out/drgn-s.txt")
check "crash -s: the traces lead from kmapbug_holder to each call site" \
	bash -c "[ \"\$(grep -c '^ *kmapbug_holder+0x[0-9a-f]* \[kmapbug\]' <<< \"\$1\")\" = 3 ]" _ "$a"
check "crash -s and drgn -s print the same kmapbug_holder block" [ -n "$a" -a "$a" = "$b" ]

# 1 GiB: removed unless KMAPSTACK_KEEP_VMCORE=1
[ "${KMAPSTACK_KEEP_VMCORE:-0}" = 1 ] || rm -f "$vmcore"
echo "test-postmortem: $(( $(now) - t0 ))s under TCG (crash ${tc}s, drgn ${td}s)"
summary
