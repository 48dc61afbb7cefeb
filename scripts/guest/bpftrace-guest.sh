#!/bin/bash
# bpftrace-guest.sh KMAPBUG.KO
#
# Runs inside the guest chroot for scripts/test-bpftrace.sh: starts every
# scripts/bpftrace/*.bt at once (output in $KMS_OUT/bt-NAME.txt), waits until
# all have attached, runs a small workload (file I/O on tmpfs, pipes,
# kmapbug bug=hold for a few seconds, kmapbug bug=wrong_order), then stops
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
for f in "$bt"/*.bt; do
	n=$(basename "$f" .bt)
	case "$n" in
	kmap-depth) args=(20) ;;	# bounded: exits by itself
	kmap-leaks) args=(0 2) ;;	# table every 2 s
	*) args=() ;;
	esac
	bpftrace "$f" "${args[@]}" > "$out/bt-$n.txt" 2>&1 &
	pids[$n]=$!
done
say "started ${!pids[*]}"

# Wait for every one to attach ("Attaching N probes..."), at most 240 s.
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
say "all attached"

# --- workload ---
for i in 1 2 3; do cat /tmp/w/a | md5sum > /dev/null; cp /tmp/w/a /tmp/w/b; done
say "file I/O done"
insmod "$ko" bug=hold || exit 1
pgrep -x kmapbug_holder > "$out/holder.pid"
sleep 5
rmmod kmapbug || exit 1
say "bug=hold done (holder pid $(cat "$out/holder.pid"))"
insmod "$ko" bug=wrong_order || exit 1
rmmod kmapbug || exit 1
say "bug=wrong_order done"
sleep 3

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
	wait "${pids[$n]}"; st=$?
	echo "$st" > "$out/bt-$n.status"
	say "$n exited $st"
	[ "$st" = 0 ] || rc=1
done
exit $rc
