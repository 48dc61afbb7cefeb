# shellcheck shell=bash
# Common helpers for the kmapstack build-and-boot harness.  Sourced by the
# scripts in this directory; not meant to be run directly.
#
# Environment (all optional):
#   KMAPSTACK_BASE     the base kernel: 7.3 (the mainline series,
#                      kernel-patch/) or 6.12 (the LTS backport,
#                      kernel-patch/6.12/); make's BASE=  (default: 7.3)
#   KMAPSTACK_BUILD    build/cache directory        (default: <repo>/build;
#                      BASE=6.12 works in its 6.12/ subdirectory)
#   KMAPSTACK_TARBALL  kernel source tarball        (default: /usr/src/linux-source-BASE.tar.xz)
#   KMAPSTACK_TREE     kernel tree to build/boot    (default: $KMAPSTACK_BUILD/linux)
#   KMAPSTACK_PATCHDIR the series                   (default: <repo>/kernel-patch, or its 6.12/)

KMS_PROG=$(basename "$0")
KMS_SCRIPTS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
KMS_REPO=$(cd "$KMS_SCRIPTS/.." && pwd)

die()  { printf '%s: error: %s\n' "$KMS_PROG" "$*" >&2; exit 1; }
warn() { printf '%s: warning: %s\n' "$KMS_PROG" "$*" >&2; }
info() { printf '%s: %s\n' "$KMS_PROG" "$*" >&2; }

# The base kernel: Debian's linux-source-7.3 package (trixie-backports) for
# the mainline series, linux-source-6.12 for the backport.  Policy
# (docs/harness.md): any X.Y.z of the base's X.Y Debian ships is accepted;
# the series was made and last tested on KMS_BASE_TESTED.  kernel-tree.sh
# prints the version it uses and warns when it differs; the KUnit and module
# results are the judge.  Each base has its own build directory, so the two
# are built and tested side by side.
KMS_BASE_SERIES=${KMAPSTACK_BASE:-7.3}
KMS_TOP_BUILD=${KMAPSTACK_BUILD:-$KMS_REPO/build}
case "$KMS_BASE_SERIES" in
7.3)	KMS_BASE_TESTED=7.3.4
	KMS_BUILD=$KMS_TOP_BUILD
	KMS_PATCHDIR=${KMAPSTACK_PATCHDIR:-$KMS_REPO/kernel-patch} ;;
6.12)	KMS_BASE_TESTED=6.12.118
	KMS_BUILD=$KMS_TOP_BUILD/6.12
	KMS_PATCHDIR=${KMAPSTACK_PATCHDIR:-$KMS_REPO/kernel-patch/6.12} ;;
*)	die "unknown base '$KMS_BASE_SERIES' (BASE=7.3, the mainline series, or BASE=6.12, the backport)" ;;
esac
KMS_TARBALL=${KMAPSTACK_TARBALL:-/usr/src/linux-source-$KMS_BASE_SERIES.tar.xz}
KMS_PRISTINE=$KMS_BUILD/pristine
KMS_SERIES=$KMS_PATCHDIR/series
KMS_COVER=0000-cover-letter.patch
KMS_TREE=${KMAPSTACK_TREE:-$KMS_BUILD/linux}
# Fixed identity and dates so the base commit id is the same on every machine.
KMS_GIT_ID=(-c user.name="kmapstack harness" -c user.email="kmapstack@invalid")

# The architectures of the test kernels (built and booted with the test
# initramfs, modules, tracing; 'make check'), and the 32-bit HIGHMEM
# architectures built with a Debian cross compiler (scripts/build-cross.sh;
# docs/architectures.md), of which KMS_BOOT_ARCHES boot under QEMU.
KMS_TEST_ARCHES="x86_64 i386 arm64"
KMS_CROSS_ARCHES="arm mips powerpc sparc arc"
KMS_BOOT_ARCHES="arm mips powerpc"

# check_arch ARCH: validate a test-kernel ARCH ($KMS_TEST_ARCHES) and set
#   KMS_ARCH, KMS_KARCH (kernel ARCH=), KMS_CROSS (CROSS_COMPILE prefix, empty
#   for x86) and KMS_CROSS_PKG, KMS_OUT (build dir), KMS_IMAGE (boot image,
#   relative to KMS_OUT), KMS_TARGET (make target), KMS_FRAGS (the config:
#   every fragment, in merge order; the one config source of the arch, see
#   arch_fragments), KMS_QEMU/KMS_QEMU_PKG, and for the boot:
#   KMS_QEMU_MACHINE (array), KMS_CONSOLE, KMS_MEM, KMS_SMP.
#   KMS_CROSS_ARCH=0: booted with the test initramfs.
check_arch() {
	KMS_CROSS= KMS_CROSS_PKG= KMS_CROSS_ARCH=0 KMS_SMP=2 KMS_CONSOLE=ttyS0
	KMS_IMAGE=arch/x86/boot/bzImage KMS_TARGET=all
	KMS_QEMU=qemu-system-x86_64 KMS_QEMU_PKG=qemu-system-x86
	KMS_QEMU_MACHINE=(-machine pc)
	case "${1:-}" in
	x86_64) KMS_ARCH=x86_64; KMS_KARCH=x86_64 KMS_MEM=1G ;;
	# 3 GiB: ~2 GiB of it in ZONE_HIGHMEM
	i386)   KMS_ARCH=i386;   KMS_KARCH=i386 KMS_MEM=3G ;;
	# 64-bit, no HIGHMEM; Debian's cross compiler, QEMU's virt board (TCG)
	arm64)  KMS_ARCH=arm64;  KMS_KARCH=arm64 KMS_MEM=1G KMS_CONSOLE=ttyAMA0
		KMS_CROSS=aarch64-linux-gnu- KMS_CROSS_PKG=gcc-aarch64-linux-gnu
		KMS_IMAGE=arch/arm64/boot/Image KMS_TARGET=all
		KMS_QEMU=qemu-system-aarch64 KMS_QEMU_PKG=qemu-system-arm
		KMS_QEMU_MACHINE=(-machine virt -cpu cortex-a57) ;;
	"")     die "missing ARCH (${KMS_TEST_ARCHES// /, })" ;;
	*)      die "unsupported ARCH '$1' (${KMS_TEST_ARCHES// /, })" ;;
	esac
	KMS_OUT=$KMS_BUILD/out-$KMS_ARCH
	arch_fragments
}

# arch_fragments: KMS_FRAGS for $KMS_ARCH, the one list of config fragments
# that make, the scripts and CI all build with.  common.config and
# ARCH.config (the lean kernel: KUnit, tracing, the feature), then what the
# tests need: smp.config (x86: ACPI for 2 CPUs), modules.config (the test
# module), traces.config (stack traces in reports), guest.config (x86_64:
# the guest-tools kernel: 9p root, bpftrace, debug info for crash/drgn),
# suites.config and suites-BASE.config (x86 kernels: the kernel's own
# suites, all modules, for scripts/test-suites.sh).
# KMAPSTACK_LEAN=1 (scripts/bisect-build.sh): common + ARCH only.  The
# 6.12 backport's kernels (BASE=6.12) are the KUnit and module-test ones:
# smp, modules and traces.
# build-kernel.sh adds the tree's KUnit config (mm/kmap_stack/.kunitconfig)
# after common.config when the series has one.
arch_fragments() {
	local c=$KMS_SCRIPTS/configs
	if [ "$KMS_CROSS_ARCH" = 1 ]; then
		KMS_FRAGS=("$c/cross/common.config" "$c/cross/$KMS_ARCH.config")
		return
	fi
	KMS_FRAGS=("$c/common.config" "$c/$KMS_ARCH.config")
	# what ARCH.config has only on one base (i386-6.12.config: HIGHPTE)
	[ ! -f "$c/$KMS_ARCH-$KMS_BASE_SERIES.config" ] ||
		KMS_FRAGS+=("$c/$KMS_ARCH-$KMS_BASE_SERIES.config")
	[ "${KMAPSTACK_LEAN:-0}" = 0 ] || return 0
	# The backport's test kernels: the KUnit suite and the test module
	if [ "$KMS_BASE_SERIES" != 7.3 ]; then
		case "$KMS_ARCH" in
		x86_64|i386) KMS_FRAGS+=("$c/smp.config" "$c/modules.config" "$c/traces.config") ;;
		arm64) KMS_FRAGS+=("$c/modules.config" "$c/traces.config") ;;
		esac
		return 0
	fi
	case "$KMS_ARCH" in
	x86_64) KMS_FRAGS+=("$c/smp.config" "$c/modules.config" "$c/traces.config" "$c/guest.config" "$c/suites.config" "$c/suites-$KMS_BASE_SERIES.config") ;;
	i386)   KMS_FRAGS+=("$c/smp.config" "$c/modules.config" "$c/traces.config" "$c/suites.config" "$c/suites-$KMS_BASE_SERIES.config") ;;
	arm64)  KMS_FRAGS+=("$c/modules.config" "$c/traces.config") ;;
	esac
}

# check_any_arch ARCH: check_arch, or one of $KMS_CROSS_ARCHES (32-bit
# HIGHMEM, build/cross/out-ARCH, booted without initramfs); sets the same
# variables (KMS_QEMU empty: build only).
check_any_arch() {
	case " $KMS_TEST_ARCHES " in
	*" ${1:-} "*) check_arch "${1:-}"; return ;;
	esac
	[ -n "${1:-}" ] || check_arch ""
	KMS_ARCH=$1 KMS_KARCH=$1 KMS_CROSS_ARCH=1 KMS_TARGET=vmlinux KMS_IMAGE=vmlinux
	KMS_QEMU= KMS_QEMU_PKG= KMS_CONSOLE= KMS_MEM= KMS_SMP=1 KMS_QEMU_MACHINE=()
	case "$1" in
	arm)	KMS_CROSS=arm-linux-gnueabihf- KMS_CROSS_PKG=gcc-arm-linux-gnueabihf
		KMS_TARGET=zImage KMS_IMAGE=arch/arm/boot/zImage
		KMS_QEMU=qemu-system-arm KMS_QEMU_PKG=qemu-system-arm
		# highmem=off: RAM below 4 GiB only (no LPAE); 2G > 760M lowmem
		KMS_QEMU_MACHINE=(-machine virt,highmem=off -cpu cortex-a15)
		KMS_CONSOLE=ttyAMA0 KMS_MEM=2G KMS_SMP=2 ;;
	mips)	KMS_CROSS=mips-linux-gnu- KMS_CROSS_PKG=gcc-mips-linux-gnu
		KMS_QEMU=qemu-system-mips KMS_QEMU_PKG=qemu-system-mips
		# Malta: lowmem is the first 256M, the rest is HighMem
		KMS_QEMU_MACHINE=(-machine malta -cpu 24Kf)
		KMS_CONSOLE=ttyS0 KMS_MEM=1G ;;
	powerpc) KMS_CROSS=powerpc-linux-gnu- KMS_CROSS_PKG=gcc-powerpc-linux-gnu
		KMS_QEMU=qemu-system-ppc KMS_QEMU_PKG=qemu-system-ppc
		# lowmem is 768M (CONFIG_LOWMEM_SIZE), the rest is HighMem
		KMS_QEMU_MACHINE=(-machine mac99 -cpu g4)
		KMS_CONSOLE=ttyPZ0 KMS_MEM=1536M ;;
	sparc)	KMS_CROSS=sparc64-linux-gnu- KMS_CROSS_PKG=gcc-sparc64-linux-gnu ;;
	arc)	KMS_CROSS=arc-linux-gnu- KMS_CROSS_PKG=gcc-arc-linux-gnu ;;
	*)	die "unsupported ARCH '$1' ($KMS_TEST_ARCHES $KMS_CROSS_ARCHES)" ;;
	esac
	KMS_OUT=$KMS_BUILD/cross/out-$KMS_ARCH
	arch_fragments
}

# need_cross_tools [qemu]: install the cross compiler (and with 'qemu' the
# emulator) of $KMS_ARCH with apt-get if missing.  The 32-bit cross arches'
# are not in scripts/deps/ (only make check-cross needs them); arm64's are
# (scripts/deps/harness.txt), this is the fallback for a machine where
# make deps has not run since.
need_cross_tools() {
	[ -n "$KMS_CROSS" ] || return 0
	local pkgs=()
	command -v "${KMS_CROSS}gcc" >/dev/null || pkgs+=("$KMS_CROSS_PKG")
	if [ -n "$KMS_QEMU" ] && [ "${1:-}" = qemu ]; then
		command -v "$KMS_QEMU" >/dev/null || pkgs+=("$KMS_QEMU_PKG")
	fi
	[ ${#pkgs[@]} = 0 ] && return 0
	[ "$(id -u)" = 0 ] || die "${pkgs[*]} missing (scripts/install-deps.sh as root)"
	apt_install "${pkgs[@]}"
}

# apt_install PKG...: install the Debian packages PKG (apt-get, no
# recommends); if that fails, refresh the lists and try once more; dies
# naming them if they still cannot be installed.
apt_install() {
	info "installing $* (apt-get)"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" > /dev/null ||
		{ apt_update &&
		  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" > /dev/null; } ||
		die "apt-get install $* failed"
}

# apt_update [APT-GET OPTION...]: refresh apt's package lists (with
# $KMS_SUDO in front, if set).  An index that fails (a mirror caught in the
# middle of a sync serves one of the wrong size) makes 'apt-get update'
# exit non-zero although apt keeps every list it has: that is a warning
# naming apt's first error, not the end of the set-up; the install or
# download that follows says clearly if what it needs is not there.
apt_update() {
	local err rc=0
	err=$(${KMS_SUDO:-} apt-get "$@" -qq update 2>&1 >/dev/null) || rc=$?
	[ "$rc" = 0 ] && return 0
	warn "apt-get update failed (exit $rc: $(grep -m 1 '^E:' <<<"$err" || tail -n 1 <<<"$err")); going on with the package lists there are"
}

# console_text LOG [PREFIX]: a QEMU serial console log as lines: the CRs
# dropped, and a kernel line ("[   18.258050] ok 1 fat_test") or a line of
# the guest's own starting with PREFIX ("suites| ") that begins in the
# middle of another line put on a line of its own: the kernel's console
# output and the guest's writes interleave (on PREEMPT_RT a thread prints
# the console, after the code that logged has returned). PREFIX is taken
# as an extended regular expression with '|' made literal: letters,
# digits, spaces and '|' only.
console_text() {
	local split='s/(.)(\[ *[0-9]+\.[0-9]{6}\] )/\1\n\2/g'
	[ -z "${2:-}" ] || split="$split; s/(.)(${2//|/\\|})/\1\n\2/g"
	tr -d '\r' < "$1" | sed -E "$split"
}

# report_titles [LOG...]: the title of each kmap_stack report in a kernel
# log, one a line: "kmap_stack: KIND in SITE", the report's first line
# without its "WARNING: " (console timestamps and CRs dropped)
report_titles() {
	tr -d '\r' < "${1:-/dev/stdin}" | sed -nE 's/^(\[ *[0-9.]+\] )?WARNING: (kmap_stack: .* in .*)$/\2/p'
}

# kernel_fix NAME: the path of the patch of kernel-fixes/ for this base
# whose file name has NAME (kernel-fixes/BASE/, then kernel-fixes/ itself,
# which holds 6.12's first); dies if there is none.
kernel_fix() {
	local f
	for f in "$KMS_REPO/kernel-fixes/$KMS_BASE_SERIES"/*"$1"*.patch "$KMS_REPO/kernel-fixes"/*"$1"*.patch; do
		[ -f "$f" ] && { echo "$f"; return 0; }
	done
	die "no patch named *$1* in kernel-fixes/$KMS_BASE_SERIES/ or kernel-fixes/"
}

# fix_expect FIX KOUT [EXPECT]: prints what a test of a kernel bug expects
# of the kernel built in KOUT: "clean" when its source tree has FIX applied
# (git apply -R --check), else "report"; EXPECT (report or clean), when
# given, instead.
fix_expect() {
	local fix=$1 kout=$2 expect=${3:-} src
	src=$(readlink -f "$kout/source" 2>/dev/null || true)
	if [ -z "$expect" ]; then
		expect=report
		if [ -n "$src" ] && (cd "$src" && git apply -R --check "$fix") 2>/dev/null; then
			expect=clean
		fi
	fi
	case "$expect" in report|clean) ;; *) die "the expectation must be report or clean, not '$expect'" ;; esac
	info "kernel tree ${src:-?}: expecting $expect"
	echo "$expect"
}

# build_kernel_variant OUT LOG FRAGMENT...: the test kernel of $KMS_ARCH
# with the config fragments FRAGMENT... (and $KMAPSTACK_FRAGMENTS after
# them) built into OUT by scripts/build-kernel.sh, its output in LOG.
build_kernel_variant() {
	local out=$1 log=$2
	shift 2
	info "building the $KMS_ARCH kernel with $(basename -a "$@" | tr '\n' ' ')in $out (log $log)"
	KMAPSTACK_OUT=$out KMAPSTACK_FRAGMENTS="$* ${KMAPSTACK_FRAGMENTS:-}" \
		"$KMS_SCRIPTS/build-kernel.sh" "$KMS_ARCH" > "$log" 2>&1 ||
		{ tail -n 30 "$log" >&2; die "build-kernel.sh $KMS_ARCH failed (log $log)"; }
}

# oops_in FILE: FILE (a console log) shows an oops, a BUG or a panic
oops_in() {
	grep -aqE 'BUG:|Oops|general protection|Kernel panic' "$1" 2>/dev/null
}

# boot_i386_image DIR KOUT TIMEOUT SCRIPT SRC:DST...: the i386 kernel built
# in KOUT booted (3 GiB, real highmem; a panic allowed) with the busybox
# initramfs DIR/initramfs.cpio, SCRIPT its /etc/kmapstack/run and each SRC
# baked in at DST; the console in DIR/console.log, as text in
# DIR/console.txt, boot.sh's own output in DIR/boot.log. Returns boot.sh's
# status (124: the guest hung until TIMEOUT seconds).
boot_i386_image() {
	local dir=$1 kout=$2 timeout=$3 script=$4 rc=0
	shift 4
	KMAPSTACK_RUN=$script "$KMS_SCRIPTS/mkinitramfs.sh" "$dir/initramfs.cpio" i386 "$@" >/dev/null ||
		die "mkinitramfs.sh failed"
	"$KMS_SCRIPTS/boot.sh" i386 -k "$kout/$KMS_IMAGE" -i "$dir/initramfs.cpio" \
		-l "$dir/console.log" -t "$timeout" -a "kunit.enable=0" --allow-panic > "$dir/boot.log" 2>&1 || rc=$?
	console_text "$dir/console.log" > "$dir/console.txt"
	return "$rc"
}

# report_sites [LOG]: for each kmap_stack report of a kernel log (its
# timestamps and CRs dropped), one line: the site its title names, a tab,
# its kind (the title's words before " in "), a tab, the sites of the
# entries its stack listing shows (space separated, innermost first)
report_sites() {
	tr -d '\r' < "${1:-/dev/stdin}" | sed -E 's/^\[ *[0-9.]+\] //' | awk '
		function flush() { if (kind != "") print site "\t" kind "\t" entries; kind = "" }
		/^WARNING: kmap_stack: .* in / {
			flush(); t = $0; sub(/^WARNING: kmap_stack: /, "", t); sub(/ \[[^]]+\]$/, "", t)
			site = t; sub(/.* in /, "", site); kind = t; sub(/ in [^ ]+$/, "", kind)
			entries = ""; next
		}
		kind != "" && /^ #[0-9]+: .* at: / {
			e = $0; sub(/.* at: /, "", e); sub(/ .*/, "", e)
			entries = entries (entries == "" ? "" : " ") e; next
		}
		kind != "" && /^(CPU: |=+$)/ { flush() }
		END { flush() }'
}

# known_bugs [FILE] < SITES: of the lines read (a call site, or
# report_sites' lines), prints how many are of a bug of the base kernel
# (FILE, default scripts/world/known-bugs.txt) and the names of those bugs
# ("3 BUG-1,BUG-2"). A line is a bug's when its site matches the bug's
# regex, or when it is a depth report whose stack listing has
# more than half of its entries at the bug's site: the entries the bug left
# behind filled the stack.
known_bugs() {
	awk -F'\t' 'NR == FNR { if ($0 !~ /^#/ && NF == 2) { name[++n] = $1; re[n] = $2 } next }
		{
			b = ""
			for (i = 1; i <= n && b == ""; i++) if ($1 ~ re[i]) b = name[i]
			if (b == "" && $2 == "more mappings than the real stack holds") {
				m = split($3, e, " ")
				for (i = 1; i <= n && b == ""; i++) {
					c = 0
					for (j = 1; j <= m; j++) if (e[j] ~ re[i]) c++
					if (2 * c > m) b = name[i]
				}
			}
			if (b != "") { k++; seen[b] = 1 }
		}
		END { s = ""; for (b in seen) s = s (s == "" ? "" : ",") b; print k + 0, s }' \
		"${1:-$KMS_SCRIPTS/world/known-bugs.txt}" -
}

# tap_totals LOG: KUnit's "# Totals:" lines of LOG (one per suite) added
# up, printed as "pass:P fail:F skip:S total:T (N suites)"; returns 1 if
# LOG has none.
tap_totals() {
	tr -d '\r' < "$1" 2>/dev/null | grep -aE '^(\[[ 0-9.]+\] )?# Totals: ' |
		sed -E 's/.*# Totals: //' | awk '
		{ for (i = 1; i <= NF; i++) { split($i, kv, ":"); n[kv[1]] += kv[2] } s++ }
		END {
			if (!s) exit 1
			printf "pass:%d fail:%d skip:%d total:%d (%d suite%s)\n",
				n["pass"], n["fail"], n["skip"], n["total"], s, s == 1 ? "" : "s"
		}'
}

# load_series: set the array KMS_PATCHES to the patch file names of
# kernel-patch/series in order (comments and blank lines dropped, cover
# letter skipped); dies if a listed file is missing.  (Runs in the calling
# shell, not in a pipe/process substitution, so that 'die' really exits.)
load_series() {
	KMS_PATCHES=()
	[ -f "$KMS_SERIES" ] || return 0
	local line
	while IFS= read -r line || [ -n "$line" ]; do
		line=${line%%#*}
		line=${line//[[:space:]]/}
		[ -n "$line" ] || continue
		[ "$line" = "$KMS_COVER" ] && continue
		[ -f "$KMS_PATCHDIR/$line" ] ||
			die "kernel-patch/series lists '$line' but kernel-patch/$line does not exist"
		KMS_PATCHES+=("$line")
	done < "$KMS_SERIES"
}

# tarball_stamp: identifies the tarball the pristine repo was made from.
tarball_stamp() {
	[ -f "$KMS_TARBALL" ] || die "kernel tarball $KMS_TARBALL not found (make deps installs linux-source-$KMS_BASE_SERIES; or set KMAPSTACK_TARBALL)"
	stat -L -c '%n %s %Y' "$KMS_TARBALL"
}

# The part of the pristine tree left checked out: what checkpatch.pl,
# kernel-doc (and spdxcheck.py: LICENSES), kunit.py, gen_init_cpio and the
# static check's slice read,
# the directories of the files the series touches (cone mode adds the
# top-level files),
# and a small directory of arch/ and drivers/ (checkpatch.pl wants them to
# exist). The rest (~1.2 GiB) stays in git only: kernel-tree.sh clones the
# whole commit.
KMS_PRISTINE_CONE=(Documentation/dev-tools LICENSES arch/x86/include drivers/dca
	fs/erofs fs/ext2 include init ipc kernel lib mm scripts
	tools/testing/kunit usr)

# pristine_sparse: check out only KMS_PRISTINE_CONE of build/pristine
pristine_sparse() {
	local want=$KMS_PRISTINE/.git/kmapstack-cone
	[ "$(cat "$want" 2>/dev/null)" = "${KMS_PRISTINE_CONE[*]}" ] && return 0
	git -C "$KMS_PRISTINE" sparse-checkout set --cone "${KMS_PRISTINE_CONE[@]}" ||
		die "git sparse-checkout in $KMS_PRISTINE failed"
	printf '%s\n' "${KMS_PRISTINE_CONE[*]}" > "$want"
}

# ensure_pristine: build/pristine = git repo of the unmodified tarball, tag
# 'base', with only KMS_PRISTINE_CONE checked out.
ensure_pristine() {
	local stamp want
	want=$(tarball_stamp)
	stamp=$(cat "$KMS_PRISTINE/.git/kmapstack-tarball" 2>/dev/null || true)
	if [ "$stamp" = "$want" ] && git -C "$KMS_PRISTINE" rev-parse -q --verify 'base^{commit}' >/dev/null; then
		pristine_sparse
		return 0
	fi
	info "creating pristine repo $KMS_PRISTINE from $KMS_TARBALL (once; ~1 min)"
	mkdir -p "$KMS_BUILD"
	local tmp
	tmp=$(mktemp -d "$KMS_BUILD/pristine.tmp.XXXXXX")
	tar -xf "$KMS_TARBALL" -C "$tmp" || die "extracting $KMS_TARBALL failed"
	local top
	top=$(find "$tmp" -mindepth 1 -maxdepth 1 -type d)
	[ "$(printf '%s\n' "$top" | wc -l)" = 1 ] && [ -f "$top/Makefile" ] ||
		die "unexpected tarball layout in $KMS_TARBALL"
	(
		cd "$top"
		git init -q
		git config core.autocrlf false
		# No gc, set before the first commit: that commit's 'git gc
		# --auto' would repack in the background (the ~80k loose objects
		# are over its limit) while kernel-tree.sh clones, and the clone
		# fails on objects that vanish under it ("failed to copy file").
		git config gc.auto 0
		git config maintenance.auto false
		# -f: Debian's top-level .gitignore ignores everything ('/*').
		git add -f -A
		GIT_AUTHOR_DATE="2000-01-01T00:00:00Z" GIT_COMMITTER_DATE="2000-01-01T00:00:00Z" \
			git "${KMS_GIT_ID[@]}" commit -q --no-verify -m "base: $(basename "$KMS_TARBALL")"
		git tag base
	) || die "creating the pristine git repo failed"
	printf '%s\n' "$want" > "$top/.git/kmapstack-tarball"
	kernel_version "$top" > "$top/.git/kmapstack-version"
	rm -rf "$KMS_PRISTINE"
	mv "$top" "$KMS_PRISTINE"
	rm -rf "$tmp"
	pristine_sparse
}

# is_kms_tree DIR: DIR was made by kernel-tree.sh.
is_kms_tree() {
	[ -f "$1/.git/kmapstack-tree" ]
}

# git_in_tree DIR ARGS...: git with a committer identity (needed by git am).
git_in_tree() {
	local dir=$1; shift
	if git -C "$dir" config user.email >/dev/null 2>&1; then
		git -C "$dir" "$@"
	else
		git -C "$dir" "${KMS_GIT_ID[@]}" "$@"
	fi
}

# kernel_version DIR: the kernel version of the source tree DIR (7.3.4)
kernel_version() {
	awk -F' *= *' '$1 == "VERSION" { v = $2 } $1 == "PATCHLEVEL" { p = $2 }
		$1 == "SUBLEVEL" { s = $2 } END { if (v != "") print v "." p "." s }' "$1/Makefile"
}

# base_version: the version of build/pristine (made by ensure_pristine), and
# its Debian package version when the tarball is the installed package's;
# dies if it is not a $KMS_BASE_SERIES.y.  Sets KMS_BASE_VERSION, KMS_BASE_DEB.
base_version() {
	KMS_BASE_VERSION=$(cat "$KMS_PRISTINE/.git/kmapstack-version" 2>/dev/null || true)
	[ -n "$KMS_BASE_VERSION" ] || KMS_BASE_VERSION=$(kernel_version "$KMS_PRISTINE")
	KMS_BASE_DEB=
	if [ "$KMS_TARBALL" = /usr/src/linux-source-$KMS_BASE_SERIES.tar.xz ]; then
		KMS_BASE_DEB=$(dpkg-query -W -f='${Version}' "linux-source-$KMS_BASE_SERIES" 2>/dev/null || true)
	fi
	case "$KMS_BASE_VERSION" in
	"$KMS_BASE_SERIES".*) ;;
	*) die "$KMS_TARBALL is Linux ${KMS_BASE_VERSION:-?}, not $KMS_BASE_SERIES.y: the series is for $KMS_BASE_SERIES" ;;
	esac
}

# apply_patch DIR PATCHFILE INDEX: git am one patch, loudly.  On a base other
# than $KMS_BASE_TESTED, a patch whose context moved is retried with one line
# of context (git am -C1; a 3-way merge cannot help: the patches' preimage
# blobs are the tested base's and are not in another version's repo); that
# is reported, and the KUnit and module tests judge the result.
apply_patch() {
	local dir=$1 name=$2 idx=$3 out ver
	if out=$(git_in_tree "$dir" am --no-3way --quiet "$KMS_PATCHDIR/$name" 2>&1); then
		[ -z "$out" ] || printf '%s\n' "$out" >&2
		info "applied #$idx $name"
		return 0
	fi
	printf '%s\n' "$out" >&2
	git -C "$dir" am --abort >/dev/null 2>&1 || true
	ver=$(kernel_version "$dir")
	[ "$ver" != "$KMS_BASE_TESTED" ] ||
		die "patch #$idx kernel-patch/$name does not apply (git am --no-3way)"
	if out=$(git_in_tree "$dir" am --no-3way -C1 --quiet "$KMS_PATCHDIR/$name" 2>&1); then
		warn "patch #$idx $name applies to Linux $ver only with one line of context (git am -C1): the series is tested on $KMS_BASE_TESTED; review the result, the tests decide"
		info "applied #$idx $name (-C1)"
		return 0
	fi
	printf '%s\n' "$out" >&2
	git -C "$dir" am --abort >/dev/null 2>&1 || true
	die "patch #$idx kernel-patch/$name does not apply to Linux $ver, not even with one line of context; the series is tested on $KMS_BASE_TESTED: rebase it on $ver, or build on $KMS_BASE_TESTED (docs/harness.md, 'The base kernel')"
}

# series_hash: identifies kernel-patch/ as kernel-tree.sh applies it: the
# series file and every patch it lists, in order, and the base tarball (a
# new Debian point release re-makes the tree).  Call load_series first (in
# the calling shell).
series_hash() {
	{ printf '== base %s\n' "$(tarball_stamp 2>/dev/null || echo missing)"
	  cat "$KMS_SERIES" 2>/dev/null
	  local p
	  for p in "${KMS_PATCHES[@]}"; do printf '\n== %s\n' "$p"; cat "$KMS_PATCHDIR/$p"; done
	} | sha256sum | cut -c1-16
}

# tree_stamp DIR [SERIES]: record in DIR/.git/kmapstack-series which
# kernel-patch/ DIR was made from (default: the current one; 'partial' for
# kernel-tree.sh --base-only trees, which build-kernel.sh never resets;
# 'incomplete' while or after kernel-tree.sh failed to apply it) and DIR's
# HEAD at that moment.
tree_stamp() {
	local dir=$1 series=${2:-}
	if [ -z "$series" ]; then load_series; series=$(series_hash); fi
	printf 'series=%s\nhead=%s\n' "$series" "$(git -C "$dir" rev-parse HEAD)" > "$dir/.git/kmapstack-series"
}

# tree_matches_series DIR: base..HEAD of DIR has the diffs of the series'
# patches, in order (git patch-id).
tree_matches_series() {
	local dir=$1 a b p
	a=$(git -C "$dir" log --reverse -p --format='commit %H' base..HEAD | git patch-id --stable | cut -d' ' -f1)
	b=$(for p in "${KMS_PATCHES[@]}"; do git patch-id --stable < "$KMS_PATCHDIR/$p" | cut -d' ' -f1; done)
	[ "$a" = "$b" ]
}

# ensure_tree: before a build, make $KMS_TREE the series of kernel-patch/
# on the base tarball.
#   - missing: made by kernel-tree.sh;
#   - kernel-patch/ unchanged since the tree was made: built as it is (with
#     whatever was committed or edited in it: the kernel developer's loop);
#   - kernel-patch/ or the tarball changed (a pull, an edit, another branch,
#     a Debian point release) and the tree is as kernel-tree.sh left it:
#     re-made (kernel-tree.sh, ~2 s + build);
#   - kernel-patch/ changed and the tree has its own commits or changes:
#     fine if they are the same diffs (exported), else refused, naming the
#     two ways out.
# A tree not made by kernel-tree.sh, or a --base-only one, is left alone.
ensure_tree() {
	local tree=$KMS_TREE stamp want have_series have_head
	if [ ! -e "$tree" ]; then
		info "$tree does not exist: creating it with kernel-tree.sh"
		"$KMS_SCRIPTS/kernel-tree.sh" "$tree"
		return
	fi
	is_kms_tree "$tree" || return 0
	load_series
	want=$(series_hash)
	stamp=$tree/.git/kmapstack-series
	have_series=$(sed -n 's/^series=//p' "$stamp" 2>/dev/null || true)
	have_head=$(sed -n 's/^head=//p' "$stamp" 2>/dev/null || true)
	[ "$have_series" != partial ] || return 0
	[ "$have_series" != "$want" ] || return 0
	local clean=0
	[ -z "$(git -C "$tree" status --porcelain --untracked-files=no)" ] && clean=1
	if [ -n "$have_series" ] && [ "$clean" = 1 ] && [ "$(git -C "$tree" rev-parse HEAD)" = "$have_head" ]; then
		info "kernel-patch/ changed since $tree was made: re-applying the series (kernel-tree.sh)"
		"$KMS_SCRIPTS/kernel-tree.sh" "$tree"
		return
	fi
	if [ "$clean" = 1 ] && tree_matches_series "$tree"; then
		info "$tree has the series of kernel-patch/ (same diffs): stamped"
		tree_stamp "$tree"
		return
	fi
	die "kernel-patch/ changed since $tree was made, and $tree has commits or changes of its own.
  Keep the tree's:        make export-patches   (scripts/export-patches.sh: writes them to kernel-patch/)
  Take kernel-patch/'s:   make kernel-tree      (scripts/kernel-tree.sh: discards the tree's)"
}

# kms_make DIR OUT ARCH ARGS...: make for an out-of-tree build with ccache.
# CCACHE_BASEDIR makes paths relative, so trees in different directories
# (build/linux, build/bisect/linux, another clone) share cache entries;
# CCACHE_NOHASHDIR too, for the kernels with debug info (ccache otherwise
# hashes the build directory into every -g compile).  With KMS_CROSS set
# (check_any_arch), cross-compiles with CROSS_COMPILE.
kms_make() {
	local dir=$1 out=$2 karch=$3; shift 3
	local cross=()
	[ -z "${KMS_CROSS:-}" ] || cross=(CROSS_COMPILE="$KMS_CROSS")
	CCACHE_BASEDIR=${CCACHE_BASEDIR:-$KMS_BUILD} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1} \
	make -C "$dir" O="$out" ARCH="$karch" "${cross[@]}" CC="ccache ${KMS_CROSS:-}gcc" HOSTCC="ccache gcc" "$@"
}

# time helpers
now() { date +%s; }

# kms_help: print the calling script's header comment (its --help).
kms_help() {
	sed -n '2,/^[^#]/p' "$0" | sed '/^[^#]/d; s/^# \{0,1\}//'
}

# stage_modules OUT KARCH DIR: 'make modules_install' of the kernel build
# OUT (kernel ARCH KARCH), stripped, into DIR/stage (log
# DIR/modules_install.log); dies with the log if it fails.
stage_modules() {
	make -s -C "$1" ARCH="$2" INSTALL_MOD_PATH="$3/stage" INSTALL_MOD_STRIP=1 \
		modules_install > "$3/modules_install.log" 2>&1 ||
		{ cat "$3/modules_install.log" >&2; die "make modules_install of $1 failed"; }
}

# build_kmapbug OUT: tests/modules/kmapbug built against the kernel build
# OUT (of $KMS_ARCH: call check_arch first), in OUT/kmapbug: a copy, so the
# source directory stays clean; a file is copied only when it differs, so
# make's own dependencies (the sources, the kernel's headers and config)
# decide what is rebuilt.  Sets KMS_KMAPBUG to the .ko.  The one way the
# harness builds the module.
build_kmapbug() {
	local out=$1 src=$KMS_REPO/tests/modules/kmapbug dst f
	dst=$out/kmapbug
	[ -f "$out/Module.symvers" ] || die "$out has no built kernel with modules (make kernel-$KMS_ARCH first)"
	grep -q '^CONFIG_MODULES=y' "$out/.config" || die "$out/.config lacks CONFIG_MODULES=y"
	[ -f "$src/kmapbug.c" ] || die "$src/kmapbug.c not found"
	mkdir -p "$dst"
	for f in "$src"/*; do
		[ -f "$f" ] || continue
		cmp -s "$f" "$dst/${f##*/}" || cp "$f" "$dst/"
	done
	local cross=()
	[ -z "$KMS_CROSS" ] || cross=(CROSS_COMPILE="$KMS_CROSS")
	make -s -C "$out" ARCH="$KMS_KARCH" "${cross[@]}" M="$dst" modules > "$dst/build.log" 2>&1 ||
		{ cat "$dst/build.log" >&2; die "building kmapbug.ko against $out failed (log $dst/build.log)"; }
	KMS_KMAPBUG=$dst/kmapbug.ko
	[ -f "$KMS_KMAPBUG" ] || die "$KMS_KMAPBUG missing after the build"
}
