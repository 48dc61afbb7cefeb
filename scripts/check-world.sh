#!/bin/bash
# check-world.sh [FLAVOUR...]     ('make check-world'; FLAVOURS: amd64 686-pae rt)
#
# kmapstack on the kernels people run: configs derived from Debian's own
# (scripts/world/mkconfig.sh: amd64, the PREEMPT_RT amd64 config, Debian
# 12's 686-pae brought to the base), DEBUG_KMAP_STACK with stack traces, built
# by scripts/world/build.sh into build/world/out-FLAVOUR.  Per flavour:
#   suites    scripts/test-suites.sh on it (busybox guest; i386 with 3 GiB,
#             real highmem): KUnit iov_iter, memcpy, usercopy, ext4, fat;
#             the crypto self-tests in full (CRYPTO_SELFTESTS_FULL; 6.12:
#             CRYPTO_MANAGER_EXTRA_TESTS)
#             (Debian's INIT_ON_ALLOC_DEFAULT_ON is on in every flavour)
#   workload  the same suites, then filesystems (ext4, ext2, btrfs
#             zstd/lzo, vfat, nilfs2, ntfs3, f2fs, minix, gfs2; squashfs,
#             erofs, iso9660, romfs, cramfs images), md raid1/5/6,
#             dm-crypt, dm-integrity, dm-verity, zram with each compressor,
#             swap on zram and zswap under memory pressure, loopback TCP
#             sendfile/splice, IPsec ESP and kTLS
#             (scripts/world/workload-guest.sh), all under
#             'trace-cmd record -e kmap_stack' in a guest booted with a
#             root over 9p (scripts/guest-run.sh): the host's root on the
#             x86_64 flavours (2 GiB), on 686-pae an i386 Debian root made
#             once by scripts/world/mkroot-i386.sh (build/world/root-i386;
#             3 GiB, 2.1 GiB of it highmem); then 'kmapstack check' of the
#             trace on the host
#   nokms     the same config without DEBUG_KMAP_STACK, suites only:
#             the KUnit and crypto totals to compare with (a second full
#             build; KMAPSTACK_WORLD_NOKMS=0 leaves it out)
# Checks: every step passes, no kmap_stack report (kernel log, debugfs
# 'reports:', kmap_violation events, 'kmapstack check') but those of the
# base kernel's known bugs (scripts/world/known-bugs.txt), no lost
# events.  Writes the figures to docs/real-world.md (the part between the
# generated markers) and ends with "N passed, N failed".
#
# Environment: KMAPSTACK_WORLD_SECONDS (each stress-ng phase, default 20),
#   KMAPSTACK_WORLD_MAPS=N: after the traced run, untraced rounds of the
#   stress phases until the kernel has made N mappings since boot (debugfs
#   'maps'), for KMAPSTACK_WORLD_UNTRACED_SECONDS at most (default 7200);
#   their reports and failed phases count as the traced run's,
#   KMAPSTACK_WORLD_PHASES=REGEX (only the workload phases it names,
#   scripts/world/workload-guest.sh), KMAPSTACK_WORLD_SKIP=REGEX (the
#   phases left out; default on 686-pae: gfs2, whose mount oopses there on
#   the base kernel's BUG-3, see kernel-fixes/; '' runs it), KMAPSTACK_WORLD_NOKMS=0 (no nokms part; =only: the nokms part alone,
#   the flavour's other figures kept), KMAPSTACK_WORLD_NO_BUILD=1 (use the built
#   kernels), KMAPSTACK_WORLD_DOC (default docs/real-world.md; '' for none),
#   KMAPSTACK_TREE (default build/world/linux).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
. "$KMS_SCRIPTS/testlib.sh"
case "${1:-}" in -h|--help) kms_help; exit 0 ;; esac
flavours=("$@"); [ ${#flavours[@]} -gt 0 ] || flavours=(amd64 686-pae rt)
secs=${KMAPSTACK_WORLD_SECONDS:-20}
maps_goal=${KMAPSTACK_WORLD_MAPS:-0}
usecs=${KMAPSTACK_WORLD_UNTRACED_SECONDS:-7200}
[[ "$maps_goal" =~ ^[0-9]+$ && "$usecs" =~ ^[0-9]+$ ]] ||
	die "KMAPSTACK_WORLD_MAPS and KMAPSTACK_WORLD_UNTRACED_SECONDS take a number"
[ "$maps_goal" = 0 ] && usecs=0
nokms_mode=${KMAPSTACK_WORLD_NOKMS:-1}
case "$nokms_mode" in 0|1|only) ;; *) die "KMAPSTACK_WORLD_NOKMS takes 0, 1 or only" ;; esac
export KMAPSTACK_TREE=${KMAPSTACK_TREE:-$KMS_BUILD/world/linux}
res=$KMS_BUILD/world/results
doc=${KMAPSTACK_WORLD_DOC-$KMS_REPO/docs/real-world.md}
mkdir -p "$res"
start=$(now)
# rec FLAVOUR KEY VALUE: one figure for the doc
rec() { echo "$2=$3" >> "$res/$1.txt"; }

# the x86_64 guests run the host's tools (686-pae: those of the i386 root)
need=()
if [[ " ${flavours[*]} " =~ " amd64 "|" rt " ]]; then
	for t in trace-cmd:trace-cmd stress-ng:stress-ng mkfs.btrfs:btrfs-progs mksquashfs:squashfs-tools \
		mkfs.erofs:erofs-utils mkfs.vfat:dosfstools mkfs.ext4:e2fsprogs mkfs.nilfs2:nilfs-tools \
		mkfs.ntfs:ntfs-3g mkfs.f2fs:f2fs-tools mkfs.gfs2:gfs2-utils genromfs:genromfs xorriso:xorriso \
		mdadm:mdadm cryptsetup:cryptsetup-bin; do
		command -v "${t%%:*}" > /dev/null || need+=("${t#*:}")
	done
fi
[ ${#need[@]} = 0 ] || apt_install "${need[@]}"
make -s -C "$KMS_REPO/tools/kmapstack" > /dev/null || die "building tools/kmapstack failed"
kmapstack=$KMS_REPO/tools/kmapstack/kmapstack
KMS_TREE=$KMAPSTACK_TREE
ensure_tree
rev=$(git -C "$KMAPSTACK_TREE" log --oneline base..HEAD 2>/dev/null | wc -l)
# which series: this repository's last commit of kernel-patch/ (and whether
# the tree has changed it since)
series_at=$(git -C "$KMS_REPO" log -1 --format=%h -- kernel-patch/ 2>/dev/null || true)
[ -z "$(git -C "$KMS_REPO" status --porcelain -- kernel-patch/ 2>/dev/null)" ] || series_at="$series_at + changes"

# suites FLAVOUR OUT TAG: test-suites.sh, figures under TAG
suites() {
	local f=$1 out=$2 tag=$3 arch=x86_64 log t0 rc=0 line closing
	[ "$f" = 686-pae ] && arch=i386
	log=$res/$f-$tag.log
	t0=$(now)
	KMAPSTACK_OUT=$out KMAPSTACK_SUITES_DIR=$KMS_BUILD/world/suites-$f-$tag KMAPSTACK_SUITES_CMDLINE= \
		"$KMS_SCRIPTS/test-suites.sh" "$arch" > "$log" 2>&1 || rc=$?
	rec "$f" "$tag.seconds" $(( $(now) - t0 ))
	grep -E '^(PASS|FAIL) ' "$log" | sed "s/^/  /"
	line=$(grep -E '^suites .*: KUnit ' "$log" | tail -n 1)
	rec "$f" "$tag.kunit" "$(sed -E 's/.*KUnit ([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped.*/\1 passed, \2 failed, \3 skipped/' <<<"$line")"
	rec "$f" "$tag.crypto" "$(sed -E 's/.*crypto: ([0-9]+\/[0-9]+) algorithms.*/\1 self-tests passed/' <<<"$line")"
	rec "$f" "$tag.maps" "$(grep -oE 'total [0-9]+' "$log" | awk '{print $2}' | tail -n 1)"
	rec "$f" "$tag.reports" "$(grep -cE '^FAIL .*kmap_stack report|^FAIL .*debugfs reports' "$log" || true)"
	# its closing line; none: it died before its summary (its last line says why)
	if read_counts "$log"; then closing="$KMS_P passed, $KMS_F failed"
	else closing="no closing line: $(tail -n 1 "$log")"
	fi
	rec "$f" "$tag.checks" "$closing"
	if [ "$rc" = 0 ]; then ok "$f $tag: test-suites.sh ($closing)"
	else nok "$f $tag: test-suites.sh ($closing, see $log)"
		grep -A80 -- '---- kmap_stack reports' "$log" | head -n 80 > "$res/$f-$tag-reports.txt" || true
	fi
}

# workload FLAVOUR OUT: the traced workload in the guest (x86_64: the
# host's root; 686-pae: the i386 root)
workload() {
	local f=$1 out=$2 run t0 rc=0 kver mods crc=0 nrep groot=() mem=2G bufkb=65536
	local skip=${KMAPSTACK_WORLD_SKIP:-} why="KMAPSTACK_WORLD_SKIP"
	run=$KMS_BUILD/world/run-$f
	if [ "$f" = 686-pae ]; then
		local root=$KMS_BUILD/world/root-i386
		if ! "$KMS_SCRIPTS/world/mkroot-i386.sh" "$root" > "$res/$f-root.log" 2>&1; then
			nok "$f workload: the i386 root (scripts/world/mkroot-i386.sh: $(tail -n 1 "$res/$f-root.log"))"
			return
		fi
		rec "$f" workload.root "Debian bookworm i386 (debootstrap), $(wc -l < "$root.packages") packages, $(du -smx "$root" | cut -f1) MiB"
		# (the ring buffer is lowmem on i386: 896 MiB of the 3 GiB)
		groot=(--arch i386 --root "$root") mem=3G bufkb=49152
		skip=${KMAPSTACK_WORLD_SKIP-gfs2}
		why="the base kernel's BUG-3 (gfs2 metadata in highmem) oopses at its mount; fix in kernel-fixes/, test: make check-gfs2-highmem"
	else
		rec "$f" workload.root "the host's"
	fi
	kver=$(cat "$out/include/config/kernel.release")
	rm -rf "$run" && mkdir -p "$run/mods"
	mods=$KMS_BUILD/world/suites-$f-kms/stage/lib/modules/$kver
	find "$mods" -name '*.ko' -exec cp {} "$run/mods/" \;
	cp "$KMS_SCRIPTS/world/tcrypt-specs.txt" "$KMS_SCRIPTS/world/kunit-suites.txt" "$run/mods/"
	# (in the run directory: the i386 root has no copy of the scripts)
	cp "$KMS_SCRIPTS/world/workload-guest.sh" "$KMS_SCRIPTS/world/ktls.py" "$run/"
	# The recorder at nice -10 and spared by the OOM killer (-1000), the
	# workload it starts back at nice 0 and oom_score_adj 0: the readers
	# must keep up (a 16 MiB buffer at one priority lost 0.9 M of 13 M
	# events on amd64; the guest's /tmp is too small for the trace).
	# the workload's environment, the same in the traced run and in the
	# untraced rounds
	local genv="WORLD_PHASES='${KMAPSTACK_WORLD_PHASES:-}' WORLD_SKIP='$skip' WORLD_SKIP_WHY=\"$why\""
	cat > "$run/guest.sh" <<EOF
cd $run
echo -1000 > /proc/self/oom_score_adj
nice -n -10 trace-cmd record -q -e kmap_stack -b $bufkb -o $run/trace.dat \\
	nice -n 10 /bin/bash -c 'echo 0 > /proc/self/oom_score_adj; "\$@"; echo \$? > $run/workload.status' workload \\
	/usr/bin/env $genv /bin/bash $run/workload-guest.sh $run/mods $secs
[ -f $run/trace.dat ] || { echo "no trace.dat" >&2; exit 1; }
# untraced rounds: up to $maps_goal mappings since boot, $usecs s at most
n=0 end=\$((SECONDS + $usecs))
while m=\$(awk '\$1 == "maps:" {print \$2}' /sys/kernel/debug/kmap_stack/stats) &&
	[ "\${m:-0}" -lt $maps_goal ] && [ \$SECONDS -lt \$end ]; do
	n=\$((n + 1))
	WORLD_UNTRACED=\$n $genv /bin/bash $run/workload-guest.sh $run/mods $secs
done
exit \$(cat $run/workload.status 2>/dev/null || echo 99)
EOF
	t0=$(now)
	# (kunit.enable=1 after guest-run.sh's kunit.enable=0: the KUnit
	# modules of the first phase run their suites as they load; the
	# timeout leaves trace-cmd time to merge its per-CPU files over 9p,
	# 2 x 1 GB on i386 for 25 M maps: 2400 s was not enough)
	KMAPSTACK_OUT=$out "$KMS_SCRIPTS/guest-run.sh" "${groot[@]}" -o "$run" -t $((secs * 30 + 4200 + usecs)) -m "$mem" \
		-a kunit.enable=1 "$run/guest.sh" > "$res/$f-workload.log" 2>&1 || rc=$?
	rec "$f" workload.seconds $(( $(now) - t0 ))
	grep -E '^world\| ' "$res/$f-workload.log" | sed 's/^/  /'
	[ "$rc" = 0 ] && ok "$f workload: every phase passed" ||
		nok "$f workload: status $rc ($(grep -ao 'failed phases: [0-9]*' "$res/$f-workload.log" | tail -n 1); see $run/console.log)"
	rec "$f" workload.phases "$(grep -aoE 'world\| phase [a-z0-9-]+ (status=[0-9]+ seconds=[0-9]+|skipped)' "$res/$f-workload.log" |
		awk '!seen[$3]++ {if ($4 == "skipped") {printf "%s%s skipped", sep, $3; sep=", "; next}
			split($4,s,"="); split($5,t,"="); printf "%s%s %ss%s", sep, $3, t[2], (s[2]=="0"?"":" FAILED"); sep=", "}')"
	# last_count REGEX: the number ending the last line of the guest's
	# output that matches REGEX (the counts only grow)
	last_count() { grep -aoE "$1 [0-9]+" "$res/$f-workload.log" | awk '{print $NF}' | tail -n 1; }
	local m0 m1
	m0=$(last_count 'world\| stats start maps:')
	m1=$(last_count 'world\| stats end maps:')
	rec "$f" workload.maps "$(( ${m1:-0} - ${m0:-0} ))"
	rec "$f" workload.maps_total "${m1:-0}"
	if [ "$maps_goal" != 0 ]; then
		# (sort -u: a failed guest's log repeats the console's last lines)
		local rounds m2 ufail
		rounds=$(grep -aoE '^world\| untraced [0-9]+ stats end ' "$res/$f-workload.log" | sort -u | wc -l)
		m2=$(last_count '^world\| untraced [0-9]+ stats end maps:')
		m2=${m2:-${m1:-0}}
		ufail=$(grep -aoE '^world\| untraced [0-9]+ failed phases: [0-9]+' "$res/$f-workload.log" | sort -u |
			awk '{s += $NF} END {print s + 0}')
		rec "$f" untraced.rounds "$rounds"
		rec "$f" untraced.maps "$(( m2 - ${m1:-0} ))"
		rec "$f" untraced.maps_total "$m2"
		[ "$ufail" = 0 ] && ok "$f untraced: $rounds round(s), every phase passed" ||
			nok "$f untraced: $ufail failed phase(s) in $rounds round(s) (see $res/$f-workload.log)"
		[ "$m2" -ge "$maps_goal" ] && ok "$f untraced: $m2 mappings since boot (goal $maps_goal)" ||
			nok "$f untraced: $m2 mappings since boot, short of $maps_goal in ${usecs}s"
	fi
	# the kernel log without timestamps; the reports' titles "kmap_stack:
	# WHAT in SITE": a SITE of a bug of the base kernel
	# (scripts/world/known-bugs.txt) is that bug's
	console_text "$run/console.log" 'world| ' | sed -E 's/^\[ *[0-9.]+\] //' > "$run/kernel-log.txt"
	report_titles "$run/kernel-log.txt" > "$run/report-titles.txt"
	nrep=$(wc -l < "$run/report-titles.txt")
	read -r nknown known < <(report_sites "$run/kernel-log.txt" | known_bugs)
	rec "$f" workload.reports "$nrep"
	rec "$f" workload.reports_known "$nknown${known:+ ($known)}"
	if [ "$nrep" -gt 0 ]; then
		grep -A60 '^WARNING: kmap_stack: ' "$run/kernel-log.txt" | head -n 120 > "$res/$f-workload-reports.txt"
	fi
	if [ "$nrep" = "$nknown" ]; then
		ok "$f workload: no kmap_stack report other than of the base kernel's known bugs ($nrep report(s)${known:+: $known})"
	else
		nok "$f workload: $((nrep - nknown)) kmap_stack report(s) not of a known bug ($res/$f-workload-reports.txt)"
	fi
	if [ -s "$run/trace.dat" ]; then
		rec "$f" workload.trace_mb $(( $(stat -c %s "$run/trace.dat") / 1048576 ))
		t0=$(now)
		"$kmapstack" check --no-progress "$run/trace.dat" > "$run/check.txt" 2>&1 || crc=$?
		"$kmapstack" report --json --no-progress --max-violations 100000 -o "$run/summary.json" "$run/trace.dat" > /dev/null 2>&1 || true
		rec "$f" check.seconds $(( $(now) - t0 ))
		read -r maps unmaps kviol lost viol < <(/usr/bin/python3 "$KMS_SCRIPTS/world/violation-sites.py" \
			"$run/summary.json" "$run/violation-sites.txt" "$run/violation-sites-kernel.txt")
		read -r vknown vnames < <(known_bugs < "$run/violation-sites.txt" 2>/dev/null || echo "0")
		read -r kknown _ < <(known_bugs < "$run/violation-sites-kernel.txt" 2>/dev/null || echo "0")
		rec "$f" traced.maps "$maps"; rec "$f" traced.unmaps "$unmaps"
		rec "$f" traced.violation_events "$kviol"; rec "$f" traced.lost "$lost"
		rec "$f" check.violations "$viol"; rec "$f" check.violations_known "$vknown${vnames:+ ($vnames)}"
		rec "$f" check.exit "$crc"
		if [ "$crc" = 0 ]; then ok "$f workload: kmapstack check clean ($maps traced maps, $unmaps unmaps)"
		elif [ "$viol" = "$vknown" ]; then
			ok "$f workload: kmapstack check: $maps traced maps, $unmaps unmaps, $viol violation(s), all of the base kernel's known bugs ($vnames)"
		else
			nok "$f workload: kmapstack check exit $crc, $viol violation(s), $vknown of known bugs ($run/check.txt)"
		fi
		[ "$lost" = 0 ] && ok "$f workload: no lost events" || nok "$f workload: $lost lost event(s)"
		[ "$kviol" = "$kknown" ] && ok "$f workload: no kmap_violation event other than of known bugs ($kviol in all)" ||
			nok "$f workload: $kviol kmap_violation event(s), $kknown of known bugs"
	else
		nok "$f workload: no trace.dat"
	fi
}

# build FLAVOUR OUT [nokms]: world/build.sh into OUT (nokms: without
# DEBUG_KMAP_STACK), unless KMAPSTACK_WORLD_NO_BUILD=1 and OUT has a kernel;
# records its build time and Debian origin (under nokms.* for nokms);
# status 1 if the build failed
build() {
	local f=$1 out=$2 tag=${3:-} key= log=$res/$1-build.log what=build noopt=0
	if [ -n "$tag" ]; then
		key=$tag. log=$res/$f-$tag-build.log what="build without DEBUG_KMAP_STACK" noopt=1
	fi
	if [ "${KMAPSTACK_WORLD_NO_BUILD:-0}" != 1 ] || [ ! -f "$out/arch/x86/boot/bzImage" ]; then
		if KMAPSTACK_WORLD_NO_OPTION=$noopt "$KMS_SCRIPTS/world/build.sh" "$f" "$out" > "$log" 2>&1; then
			ok "$f: $what ($(cat "$out/build-time.txt")s)"
		else
			nok "$f: $what (see $log)"; return 1
		fi
	fi
	rec "$f" "${key}build.seconds" "$(cat "$out/build-time.txt" 2>/dev/null || echo ?)"
	rec "$f" "${key}origin" "$(cat "$out/debian-origin.txt")"
}

# nokms FLAVOUR: the same config without DEBUG_KMAP_STACK, its suites
# (figures under nokms.*, beside those of the kernel with the option)
nokms() {
	local f=$1 nout=$KMS_BUILD/world/out-$1-nokms
	[ ! -f "$res/$f.txt" ] || sed -i '/^nokms\./d' "$res/$f.txt"
	rec "$f" nokms.run "$(date -u '+%Y-%m-%d %H:%M') UTC, series of $rev patch(es) as of ${series_at:-?}"
	build "$f" "$nout" nokms || return
	suites "$f" "$nout" nokms
}

# figures FLAVOUR: its figures, as the doc has them, for the terminal
figures() {
	awk -F= -v f="$1" '
		{ v[$1] = substr($0, length($1) + 2) }
		function g(k) { return (k in v && v[k] != "") ? v[k] : "-" }
		END {
			printf "%s: kmap maps since boot %s (traced %s maps, %s unmaps, %s lost events)\n", f,
				g("untraced.maps_total") != "-" ? g("untraced.maps_total") : g("workload.maps_total"),
				g("traced.maps"), g("traced.unmaps"), g("traced.lost")
			printf "%s: kmap_stack reports %s (of known bugs of the base kernel: %s), kmapstack check violations %s (known: %s)\n", f,
				g("workload.reports"), g("workload.reports_known"), g("check.violations"), g("check.violations_known")
			printf "%s: KUnit with the option %s, without %s\n", f, g("kms.kunit"), g("nokms.kunit")
			printf "%s: crypto with the option %s, without %s\n", f, g("kms.crypto"), g("nokms.crypto")
		}' "$res/$1.txt"
}
for f in "${flavours[@]}"; do
	echo "=== $f"
	if [ "$nokms_mode" = only ]; then
		nokms "$f"
		continue
	fi
	rm -f "$res/$f.txt"
	untraced=; [ "$maps_goal" = 0 ] || untraced=", untraced rounds to $maps_goal maps"
	rec "$f" run "$(date -u '+%Y-%m-%d %H:%M') UTC, series of $rev patch(es) as of ${series_at:-?}, stress phases of ${secs}s$untraced"
	p0=$KMS_PASS f0=$KMS_FAIL
	out=$KMS_BUILD/world/out-$f
	build "$f" "$out" || continue
	rec "$f" config "$(grep -c '=y$' "$out/.config") =y, $(grep -c '=m$' "$out/.config") =m"
	cp "$out/core-choices.txt" "$res/$f-core-choices.txt"
	suites "$f" "$out" kms
	workload "$f" "$out"
	[ "$nokms_mode" = 1 ] && nokms "$f"
	rec "$f" checks "$((KMS_PASS - p0)) passed, $((KMS_FAIL - f0)) failed"
done
total=$(( $(now) - start ))
for f in "${flavours[@]}"; do
	[ ! -f "$res/$f.txt" ] || figures "$f"
done
echo "check-world: ${total}s"
if [ -n "$doc" ]; then
	/usr/bin/python3 "$KMS_SCRIPTS/world/doc.py" "$doc" "$res" "$total" "$KMS_PASS" "$KMS_FAIL" "$rev" \
		"$(kernel_version "$KMAPSTACK_TREE")" "${flavours[@]}" ||
		nok "writing $doc"
fi
summary
