#!/bin/bash
# postmortem-guest.sh KMAPBUG.KO
#
# Runs inside the guest chroot for scripts/test-postmortem.sh: loads
# kmapbug bug=hold (a kthread kmapbug_holder holding three nested
# kmap_local mappings), writes its pid to $KMS_OUT/holder.pid, creates
# $KMS_OUT/ready, waits (at most 300 s) for the host to create
# $KMS_OUT/dumped after its QMP dump-guest-memory, then unloads the module.
set -euo pipefail
ko=$1
out=${KMS_OUT:?}
insmod "$ko" bug=hold
pid=$(pgrep -x kmapbug_holder)
echo "$pid" > "$out/holder.pid"
echo "postmortem-guest: kmapbug_holder is pid $pid; waiting for the dump"
sync
touch "$out/ready"
for i in $(seq 1 300); do
	[ -e "$out/dumped" ] && break
	sleep 1
done
[ -e "$out/dumped" ] || { echo "postmortem-guest: no dump after 300 s" >&2; exit 1; }
rmmod kmapbug
echo "postmortem-guest: dumped, module removed"
