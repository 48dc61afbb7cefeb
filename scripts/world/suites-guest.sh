#!/bin/sh
# suites-guest.sh: run in the busybox initramfs by scripts/test-suites.sh
# (x86_64 and i386 test kernels).  Loads the modules of
# scripts/configs/suites.config from /lib/kms (order: /lib/kms/order, made
# on the host from modules.dep), which runs the crypto self-tests of each
# algorithm as it registers, then tcrypt.ko for each mode and algorithm of
# /lib/kms/tcrypt, then the KUnit suites of /lib/kms/kunit (they run at
# insmod).  Prints, prefixed "suites| ", the kmap_stack statistics before
# and after, one line per tcrypt run and per /proc/crypto entry.  The host
# reads the console: every verdict is made there.
say() { echo "suites| $*"; }
stats() {
	if [ -r /sys/kernel/debug/kmap_stack/stats ]; then
		say "stats $1 $(grep -E '^(maps|unmaps|reports|violations\.[a-z_]+):' \
			/sys/kernel/debug/kmap_stack/stats | tr '\n' ' ')"
	else
		say "stats $1 missing"
	fi
}
say "cmdline $(cat /proc/cmdline)"
stats start

n=0
while read -r m; do
	[ -n "$m" ] || continue
	insmod "/lib/kms/$m" || say "insmod-failed $m"
	n=$((n + 1))
done < /lib/kms/order
say "loaded $n module(s)"
stats modules

# tcrypt: 'mode=N' runs alg_test() on the algorithms of mode N (tcrypt.c
# do_test); 'alg=NAME' instantiates NAME (its template instance is
# self-tested as it registers).  tcrypt's init always returns -EAGAIN.
while read -r spec; do
	[ -n "$spec" ] || continue
	f0=$(dmesg | grep -c 'tcrypt: one or more tests failed')
	insmod /lib/kms/tcrypt.ko $spec 2>/dev/null
	f1=$(dmesg | grep -c 'tcrypt: one or more tests failed')
	if [ "$f1" = "$f0" ]; then say "tcrypt $spec done ok"; else say "tcrypt $spec done FAILED"; fi
done < /lib/kms/tcrypt
stats crypto

while read -r m; do
	[ -n "$m" ] || continue
	say "kunit-module $m"
	insmod "/lib/kms/$m" || say "insmod-failed $m"
done < /lib/kms/kunit
stats kunit

awk -F' *: *' '
	/^name/ { name = $2 } /^driver/ { drv = $2 } /^module/ { mod = $2 }
	/^selftest/ { st = $2 }
	/^$/ { if (name != "") print "suites| crypto " name " " drv " " mod " " st; name = "" }
	END { if (name != "") print "suites| crypto " name " " drv " " mod " " st }
' /proc/crypto
say "end"
