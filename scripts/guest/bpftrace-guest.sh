#!/bin/bash
# bpftrace-guest.sh KMAPBUG.KO
#
# Runs inside the guest chroot for scripts/test-bpftrace.sh: runs every
# scripts/bpftrace/*.bt (output in $KMS_OUT/bt-NAME.txt) during a small
# workload (file I/O on tmpfs and pipes all along; kmapbug, loaded before
# any script starts, made to hold three mappings until kmap-leaks has shown
# them, then to unmap in the wrong order, then to run balanced), then stops
# them with SIGINT (kmap-depth.bt runs bounded and ends by itself).
set -uo pipefail
ko=$1
bt=$(cd "$(dirname "$0")/../bpftrace" && pwd)
out=${KMS_OUT:?}
t0=$EPOCHREALTIME
say() { awk -v n="$*" -v t="$EPOCHREALTIME" -v t0="$t0" 'BEGIN { printf "bpftrace-guest: %6.1fs %s\n", t - t0, n }'; }

# Background I/O all along, so that every window has kmap events.
mkdir -p /tmp/w
dd if=/dev/urandom of=/tmp/w/a bs=64k count=64 status=none
( while :; do cat /tmp/w/a > /dev/null; cat /tmp/w/a | cat > /dev/null; sleep 0.5; done ) &
bg=$!
trap 'kill $bg 2>/dev/null' EXIT

declare -A pids
start() {	# start NAME ARGS...
	local n=$1; shift
	bpftrace "$bt/$n.bt" "$@" > "$out/bt-$n.txt" 2>&1 &
	pids[$n]=$!
}
# wait_attached: every started script attached ("Attaching N probes..."), at most 240 s
wait_attached() {
local i n n_att
for i in $(seq 1 240); do
	n_att=0
	for n in "${!pids[@]}"; do
		if grep -q '^Attaching' "$out/bt-$n.txt" 2>/dev/null; then
			n_att=$((n_att + 1))
		elif ! kill -0 "${pids[$n]}" 2>/dev/null; then
			say "$n died before attaching:"; cat "$out/bt-$n.txt"; exit 1
		fi
	done
	[ "$n_att" = "${#pids[@]}" ] && break
	sleep 1
done
[ "$n_att" = "${#pids[@]}" ] || { say "not all attached after 240 s"; exit 1; }
say "attached: ${!pids[*]}"
}

# bpftrace names symbols from a kallsyms snapshot taken when it first prints
# one: kmapbug is loaded before every script and stays loaded to the end, and
# its bugs are run through its "run" parameter, so every snapshot has its
# functions whenever it is taken.
insmod "$ko" bug=balanced || exit 1
run=/sys/module/kmapbug/parameters/run
say "kmapbug loaded"
start kmap-depth 20		# bounded: exits by itself after 20 s
start kmap-callers
start kmap-hold
start kmap-violations
wait_attached
for i in 1 2 3; do cat /tmp/w/a | md5sum > /dev/null; cp /tmp/w/a /tmp/w/b; done
say "file I/O done"
start kmap-leaks 0 6		# table every 6 s
wait_attached

# --- workload ---
echo hold > "$run" || exit 1
pgrep -x kmapbug_holder > "$out/holder.pid"
say "run=hold (holder pid $(cat "$out/holder.pid"))"
# hold until a kmap-leaks table listed the holder's three mappings (a table
# every 6 s)
for i in $(seq 1 60); do
	[ "$(grep -c '^@held\[[0-9]*, kmapbug_holder, ' "$out/bt-kmap-leaks.txt")" -ge 3 ] && break
	sleep 1
done
say "kmap-leaks listed the holder after ${i}s"
echo release > "$run" || exit 1
say "run=release"
echo wrong_order > "$run" || exit 1
say "run=wrong_order"
echo balanced > "$run" || exit 1
say "run=balanced"
sleep 7		# another kmap-leaks table, without the holder

for n in "${!pids[@]}"; do
	[ "$n" = kmap-depth ] || kill -INT "${pids[$n]}" 2>/dev/null
done
rc=0
for n in "${!pids[@]}"; do
	if [ "$n" = kmap-depth ]; then
		# bounded: must end by itself within its 20 s
		for i in $(seq 1 90); do kill -0 "${pids[$n]}" 2>/dev/null || break; sleep 1; done
		kill -0 "${pids[$n]}" 2>/dev/null && { say "kmap-depth did not exit by itself"; kill -INT "${pids[$n]}"; }
	fi
	# bounded: a script that does not exit is a failure, with its state.
	# bpftrace 0.17 can miss a SIGINT on a loaded machine (seen: asleep in
	# epoll_wait() 150 s after it, no END run): send it again every 15 s.
	for i in $(seq 1 150); do
		kill -0 "${pids[$n]}" 2>/dev/null || break
		if [ $((i % 15)) = 0 ] && [ "$n" != kmap-depth ]; then
			say "$n still running ${i}s after SIGINT: SIGINT again"
			kill -INT "${pids[$n]}" 2>/dev/null
		fi
		sleep 1
	done
	if kill -0 "${pids[$n]}" 2>/dev/null; then
		say "$n did not exit 150 s after SIGINT; its state:"
		grep -E '^(State|Threads):' "/proc/${pids[$n]}/status"
		for t in /proc/"${pids[$n]}"/task/*; do
			echo "thread ${t##*/} $(cat "$t/comm") wchan $(cat "$t/wchan" 2>/dev/null)"
			cat "$t/stack" 2>/dev/null
		done
		kill -KILL "${pids[$n]}"
	fi
	wait "${pids[$n]}"; st=$?
	echo "$st" > "$out/bt-$n.status"
	say "$n exited $st"
	[ "$st" = 0 ] || rc=1
done
rmmod kmapbug || rc=1
exit $rc
