#!/bin/bash
# world/mkconfig.sh FLAVOUR OUT     (FLAVOUR: amd64 | rt | 686-pae)
#
# Writes OUT/.config for 'make check-world', derived from Debian's own
# kernel config for the base (BASE: 7.3, or 6.12 with KMAPSTACK_BASE=6.12),
# reproducibly:
#   amd64    config.amd64_none_amd64 of the package linux-config-BASE
#   rt       the PREEMPT_RT amd64 config of linux-config-BASE
#            (config.amd64_none_rt-amd64; 6.12: config.amd64_rt_amd64)
#   686-pae  the .config of Debian 12's newest linux-headers-6.1.0-N-686-pae
#            (i386; Debian builds no 686-pae kernel of 6.12 or 7.3), brought
#            to BASE by olddefconfig
# (packages fetched with apt-get download into build/world/debian/).
# Derivation:
#   1. Debian's config, with every module turned off (each 'CONFIG_X=m'
#      line becomes '# CONFIG_X is not set': Debian builds its drivers as
#      modules, so this keeps its built-in choices and drops the drivers);
#   2. merge_config.sh of scripts/configs/world/common.config (what QEMU and
#      the workload need, built in; no debug info, no module signing;
#      DEBUG_KMAP_STACK and its stack traces), the base's crypto self-test
#      options (scripts/configs/suites-BASE.config) and world/FLAVOUR.config;
#   3. make olddefconfig;
#   4. verify: every fragment line is in .config, and Debian's core
#      choices (preemption model, HZ, INIT_ON_ALLOC_DEFAULT_ON,
#      INIT_ON_FREE_DEFAULT_ON, KFENCE, HIGHMEM, HIGHMEM64G, X86_PAE,
#      PREEMPT_RT, SLUB, hardening) are what Debian's config says, but for
#      what the base no longer offers on x86-32 (the table below); the
#      table of them is written to OUT/core-choices.txt.
# Environment: KMAPSTACK_TREE (kernel tree, default build/world/linux).
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
case "${1:-}" in -h|--help) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
[ $# = 2 ] || die "usage: $KMS_PROG amd64|rt|686-pae OUT"
flavour=$1 out=$2
tree=${KMAPSTACK_TREE:-$KMS_BUILD/world/linux}
deb=$KMS_BUILD/world/debian
mkdir -p "$deb" "$out"
out=$(cd "$out" && pwd)
[ -f "$tree/Makefile" ] || die "no kernel tree at $tree (scripts/kernel-tree.sh $tree)"

# fetch PKG[:ARCH] into $deb (once) and print the .deb's path
fetch_deb() {
	local pkg=$1 f
	f=$(ls "$deb"/"${pkg%%:*}"_*.deb 2>/dev/null | head -n 1 || true)
	if [ -z "$f" ]; then
		(cd "$deb" && apt-get download "$pkg" >&2) ||
			{ apt-get update -qq >&2 && (cd "$deb" && apt-get download "$pkg" >&2); } ||
			die "apt-get download $pkg failed"
		f=$(ls "$deb"/"${pkg%%:*}"_*.deb | head -n 1)
	fi
	echo "$f"
}

case "$flavour" in
amd64|rt)
	karch=x86_64
	cfg=linux-config-$KMS_BASE_SERIES
	case "$KMS_BASE_SERIES:$flavour" in
	*:amd64) name=config.amd64_none_amd64 ;;
	6.12:rt) name=config.amd64_rt_amd64 ;;
	*:rt) name=config.amd64_none_rt-amd64 ;;
	esac
	src=/usr/src/$cfg/$name.xz
	if [ ! -f "$src" ]; then
		d=$(fetch_deb "$cfg")
		rm -rf "$deb/linux-config" && dpkg-deb -x "$d" "$deb/linux-config"
		src=$deb/linux-config/usr/src/$cfg/$name.xz
		origin="$(basename "$d") $name"
	else
		origin="$cfg $(dpkg-query -W -f='${Version}' "$cfg" 2>/dev/null || true) $name"
	fi
	xz -dc "$src" > "$out/debian.config"
	;;
686-pae)
	karch=i386
	pkg=$(apt-cache search --names-only '^linux-headers-6\.1\.0-[0-9]+-686-pae$' | awk '{print $1}' | sort -V | tail -n 1)
	[ -n "$pkg" ] || { apt-get update -qq >&2; pkg=$(apt-cache search --names-only '^linux-headers-6\.1\.0-[0-9]+-686-pae$' | awk '{print $1}' | sort -V | tail -n 1); }
	[ -n "$pkg" ] || die "no linux-headers-6.1.0-*-686-pae package known to apt"
	d=$(fetch_deb "$pkg:i386")
	rm -rf "$deb/$pkg" && dpkg-deb -x "$d" "$deb/$pkg"
	cp "$deb/$pkg/usr/src/$pkg/.config" "$out/debian.config"
	origin="$(basename "$d") .config"
	;;
*) die "unknown flavour '$flavour' (amd64, rt, 686-pae)" ;;
esac
frags=("$KMS_SCRIPTS/configs/world/common.config" "$KMS_SCRIPTS/configs/suites-$KMS_BASE_SERIES.config"
	"$KMS_SCRIPTS/configs/world/$flavour.config")

# Debian's 686-pae config is of 6.1. What later kernels no longer offer on
# x86-32, and what takes its place (each checked in step 4):
#   HIGHMEM64G          gone (6.15): a PAE kernel's highmem is HIGHMEM4G,
#                       set here (else olddefconfig leaves HIGHMEM off)
#   HIGHPTE             gone with it
#   NR_CPUS             at most NR_CPUS_RANGE_END, 8 on x86-32
#   PREEMPT_VOLUNTARY   not offered with ARCH_HAS_PREEMPT_LAZY: olddefconfig
#                       takes PREEMPT_LAZY, as Debian's own 7.3 amd64 config
gone=
if [ "$flavour" = 686-pae ]; then
	grep -q '^config HIGHMEM64G$' "$tree/arch/x86/Kconfig" || gone="$gone HIGHMEM64G"
	grep -q '^config HIGHPTE$' "$tree/arch/x86/Kconfig" || gone="$gone HIGHPTE"
	grep -q '^	depends on !ARCH_HAS_PREEMPT_LAZY$' "$tree/kernel/Kconfig.preempt" && gone="$gone PREEMPT_VOLUNTARY"
	if [[ " $gone " == *" HIGHMEM64G "* ]] && grep -qx 'CONFIG_HIGHMEM64G=y' "$out/debian.config"; then
		echo 'CONFIG_HIGHMEM4G=y' > "$out/upstream.config"
		frags+=("$out/upstream.config")
	fi
fi

# 1. modules off
sed -E 's/^(CONFIG_[A-Za-z0-9_]+)=m$/# \1 is not set/' "$out/debian.config" > "$out/.config"
# 2. fragments, 3. olddefconfig
(cd "$out" && "$tree/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "${frags[@]}") \
	> "$out/merge_config.log" 2>&1 || { cat "$out/merge_config.log" >&2; die "merge_config.sh failed"; }
make -s -C "$tree" O="$out" ARCH="$karch" olddefconfig > "$out/olddefconfig.log" 2>&1 ||
	{ cat "$out/olddefconfig.log" >&2; die "olddefconfig failed"; }

# 4. verify
bad=0
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=*)
		grep -qxF -- "$line" "$out/.config" && continue
		printf '%s: wanted %s, got %s\n' "$KMS_PROG" "$line" \
			"$(grep -E "^(# )?${line%%=*}[= ]" "$out/.config" || echo absent)" >&2
		bad=$((bad + 1)) ;;
	"# CONFIG_"*" is not set")
		s=${line#\# }; s=${s%% *}
		grep -qE "^$s=" "$out/.config" || continue
		printf '%s: wanted %s, got %s\n' "$KMS_PROG" "$line" "$(grep -E "^$s=" "$out/.config")" >&2
		bad=$((bad + 1)) ;;
	esac
done < <(cat "${frags[@]}")
core='PREEMPT_NONE PREEMPT_VOLUNTARY PREEMPT PREEMPT_RT PREEMPT_DYNAMIC HZ INIT_ON_ALLOC_DEFAULT_ON
INIT_ON_FREE_DEFAULT_ON KFENCE KFENCE_SAMPLE_INTERVAL HIGHMEM HIGHMEM4G HIGHMEM64G X86_PAE HIGHPTE SLUB
SLAB_FREELIST_HARDENED HARDENED_USERCOPY VMAP_STACK RANDOMIZE_BASE STACKPROTECTOR_STRONG
TRANSPARENT_HUGEPAGE ZSWAP NR_CPUS'
val() { local v; v=$(grep -E "^CONFIG_$1=" "$2" | cut -d= -f2-); echo "${v:-n}"; }
{
	printf '# %s: Debian core choices (%s), Debian -> check-world\n' "$flavour" "$origin"
	for s in $core; do printf '%-26s %-8s %s\n' "$s" "$(val "$s" "$out/debian.config")" "$(val "$s" "$out/.config")"; done
} > "$out/core-choices.txt"
for s in $core; do
	a=$(val "$s" "$out/debian.config") b=$(val "$s" "$out/.config")
	# rt: Debian builds it with the RT patch set, whose PREEMPT_LAZY the
	# source package lacks; there PREEMPT_DYNAMIC depends on !PREEMPT_RT
	[ "$flavour:$s" = rt:PREEMPT_DYNAMIC ] && continue
	# 686-pae: gone from the tree (above), or replaced by what is checked
	if [ "$a" != "$b" ] && [ "$flavour" = 686-pae ]; then
		why=
		case "$s" in
		HIGHMEM64G) [[ " $gone " == *" HIGHMEM64G "* ]] && [ "$(val HIGHMEM4G "$out/.config")" = y ] &&
			why="gone from this kernel: HIGHMEM4G=y with X86_PAE instead" ;;
		HIGHMEM4G) [[ " $gone " == *" HIGHMEM64G "* ]] && [ "$(val HIGHMEM64G "$out/debian.config")" = y ] &&
			why="set for Debian's HIGHMEM64G, gone from this kernel" ;;
		HIGHPTE|PREEMPT_VOLUNTARY) [[ " $gone " == *" $s "* ]] && why="not offered by this kernel" ;;
		NR_CPUS) [ "$b" -lt "$a" ] && [ "$b" = 8 ] && why="at most 8 on x86-32 in this kernel" ;;
		esac
		if [ -n "$why" ]; then
			info "Debian core choice $s: $a -> $b ($why)"
			continue
		fi
	fi
	if [ "$a" != "$b" ]; then
		printf '%s: Debian core choice %s changed: %s -> %s\n' "$KMS_PROG" "$s" "$a" "$b" >&2
		bad=$((bad + 1))
	fi
done
[ "$bad" = 0 ] || die "$bad config check(s) failed in $out/.config"
echo "$origin" > "$out/debian-origin.txt"
info "$flavour: $out/.config from $origin: $(grep -c '=y$' "$out/.config") =y, $(grep -c '=m$' "$out/.config") =m (Debian: $(grep -c '=y$' "$out/debian.config") =y, $(grep -c '=m$' "$out/debian.config") =m)"
