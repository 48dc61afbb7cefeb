#!/bin/bash
# install-crash.sh [--target X86_64|X86] [--print]
#
# Makes sure there is a crash(8) that reads Linux 6.12 x86_64 dumps: crash
# 8.0.6 built from Debian trixie's source, with the patches in
# tools/crash/patches/ (crash-8.0.6-*: crash's tree, patch -p1; gdb-10.2-*:
# appended to crash's gdb-10.2.patch), in $KMAPSTACK_CRASH_PREFIX (default
# /opt/kmapstack/crash-8.0.6, build/crash-8.0.6/install if not root:
# PREFIX/bin/crash, and PREFIX/include/crash/defs.h for the extension
# build).  --print: print PREFIX on stdout (the build's messages go to
# stderr).
# --target X86: the crash for i386 dumps (crash's 'make target=X86': a
# 32-bit crash, as crash's ulong is the target's long) in
# $KMAPSTACK_CRASH_X86_PREFIX (default /opt/kmapstack/crash-8.0.6-x86,
# build/crash-8.0.6/x86/install if not root), for
# scripts/test-postmortem-i386.sh and tools/crash's kmapstack-i386.so.
# Same source and patches; it needs the 32-bit libraries: libc6-dev-i386,
# lib32stdc++-12-dev, lib32ncurses-dev, lib32z1-dev (not gcc-multilib, which
# Debian makes conflict with the cross compilers: the host's x86 asm/
# headers serve -m32, through C_INCLUDE_PATH).  Its gdb is configured by
# crash's own flags for that target (--target=i686-pc-linux-gnu
# CFLAGS=-m32: no -O2) plus the same --disable-* (GDBFLAGS.extra).  And
# tools/crash/patches/X86-crash-8.0.6-*.patch (crash 8.0.6 stops on
# i386 kernels with syscall wrappers: 'cannot resolve "sys_open"'; and it
# takes VMALLOC_START only from a vmcoreinfo, which a dump may lack).  Once per machine ('make crash'; make check starts it in the
# background): 11.5 CPU-minutes, 636-743 s on 2 cores shared with other
# builds.
#
# Why not Debian's crash:
#  - bookworm's 8.0.2 predates Linux 6.2's struct pcpu_hot: it finds
#    neither cpu_number nor hardirq_stack_ptr, so x86_64_per_cpu_init()
#    gives up with an IRQ stack size of 0; x86_64_init() then mallocs a
#    0-byte irqstack buffer and reads each CPU's NMI exception stack (4 KiB)
#    into it.  That heap overflow (valgrind: "0 bytes after a block of size
#    0 alloc'd ... x86_64_init") made the post-mortem test fail "at random":
#    depending on the heap layout the overwritten neighbour was harmless,
#    gdb's symbol tables ("<segmentation violation in gdb>") or malloc's
#    metadata ("malloc(): corrupted").  It also cannot read the 6.4+ module
#    layout (struct module::mem[]).  Later releases (8.0.3 on) know both.
#  - trixie's 8.0.6 fails every time on a kernel without CONFIG_X86_MCE (the
#    guest's lean config): the MCE IST stack has no IDT entry, so no name and
#    size 0, and crash's start-up stack search reads 0 bytes from it, fatally
#    ("read of stack at fffffe0000014000 failed").  Fixed by
#    tools/crash/patches/crash-8.0.6-x86_64-unknown-exception-stacks.patch.
#    And its gdb keeps using a FILE that crash has closed after a failed
#    gdb request at start-up (valgrind: invalid reads in fileno() from
#    stdio_file::set_stream()): gdb-10.2-restore-streams-on-error.patch.
#
# The source: crash_8.0.6.orig.tar.gz (it carries the gdb 10.2 crash embeds),
# fetched with apt-get source from a private apt configuration (trixie's
# Sources index only; the machine's apt sources stay as they are) and
# checked against its SHA-256.  Built with -O2 and no debug info, without
# gdbserver, libctf and NLS (only what crash needs), make -j$(nproc).
# Needs gcc, g++, make, bison, flex, makeinfo (texinfo), patch,
# libncurses-dev, zlib1g-dev: scripts/deps/guest.txt ('make deps').
# A stamp (PREFIX/kmapstack-build) records the tarball and patches: if they
# change, crash is rebuilt.  Concurrent runs wait for each other (flock).
# Environment: KMAPSTACK_CRASH_PREFIX, KMAPSTACK_JOBS (default nproc).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
case "${1:-}" in -h|--help) kms_help; exit 0 ;; esac
print=0 target=X86_64
while [ $# -gt 0 ]; do
	case "$1" in
	--print) print=1 ;;
	--target) target=${2:-}; shift ;;
	--target=*) target=${1#--target=} ;;
	*) die "unknown argument '$1' (--target X86_64|X86, --print)" ;;
	esac
	shift
done
case "$target" in X86_64|X86) ;; *) die "unsupported --target '$target' (X86_64, X86)" ;; esac

ver=8.0.6
sha256=097c6c94ded7e24db4af58de24744bd28276d6f5bae0828bc6b6a02664c4282a
jobs=${KMAPSTACK_JOBS:-$(nproc)}
patches=("$KMS_REPO/tools/crash/patches/crash-$ver-"*.patch)
[ -e "${patches[0]}" ] || patches=()
gdb_patches=("$KMS_REPO/tools/crash/patches/gdb-10.2-"*.patch)
[ -e "${gdb_patches[0]}" ] || gdb_patches=()
# X86-crash-*: for target X86 only (the X86_64 crash and its stamp stay as they are)
if [ "$target" = X86 ]; then
	x86_patches=("$KMS_REPO/tools/crash/patches/X86-crash-$ver-"*.patch)
	if [ -e "${x86_patches[0]}" ]; then patches+=("${x86_patches[@]}"); fi
fi
gdb_conf="CFLAGS=-O2 CXXFLAGS=-O2 --disable-gdbserver --disable-libctf --disable-nls"
# X86: crash's configure picks gdb's --target and -m32; ours are appended
[ "$target" = X86_64 ] || gdb_conf="--disable-gdbserver --disable-libctf --disable-nls"
stamp_want=$( { echo "crash $ver $sha256 $gdb_conf"; [ "$target" = X86_64 ] || echo "target $target"; cat "${patches[@]}" "${gdb_patches[@]}" /dev/null; } |
	sha256sum | cut -d' ' -f1)

installed() {	# crash is in $prefix, built from these sources
	[ -x "$prefix/bin/crash" ] && [ -f "$prefix/include/crash/defs.h" ] &&
		[ "$(cat "$prefix/kmapstack-build" 2>/dev/null)" = "$stamp_want" ]
}
work=$KMS_TOP_BUILD/crash-$ver
if [ "$target" = X86_64 ]; then
	prefix_env=${KMAPSTACK_CRASH_PREFIX:-} sub=$work
	prefix=${prefix_env:-/opt/kmapstack/crash-$ver}
else
	prefix_env=${KMAPSTACK_CRASH_X86_PREFIX:-} sub=$work/x86
	prefix=${prefix_env:-/opt/kmapstack/crash-$ver-x86}
fi
# not root (and no crash in /opt yet): a prefix in the build directory
if [ -z "$prefix_env" ] && [ "$(id -u)" != 0 ] && ! installed; then
	prefix=$sub/install
fi
done_() { [ "$print" = 0 ] || echo "$prefix"; exit 0; }

installed && done_

mkdir -p "$sub"
exec 9> "$sub/.lock"
if ! flock -n 9; then
	info "another install-crash.sh is building crash $ver ($target): waiting for it"
	flock 9
fi
installed && done_	# built meanwhile

for t in gcc g++ make bison flex makeinfo patch tar sha256sum; do
	command -v "$t" >/dev/null || die "$t not found (make deps: scripts/deps/guest.txt)"
done
[ -f /usr/include/ncurses.h ] || die "libncurses-dev not installed (make deps)"
[ -f /usr/include/zlib.h ] || die "zlib1g-dev not installed (make deps)"
if [ "$target" = X86 ]; then
	asminc=$sub/inc32
	mkdir -p "$asminc"
	ln -sfn "/usr/include/$(gcc -print-multiarch)/asm" "$asminc/asm"
	export C_INCLUDE_PATH=$asminc CPLUS_INCLUDE_PATH=$asminc
	if ! printf '#include <zlib.h>\n#include <curses.h>\n#include <asm/types.h>\nint main(void) { return 0; }\n' |
		gcc -m32 -x c - -o /dev/null -lz -lncurses 2>/dev/null ||
	   ! printf '#include <string>\nint main() { return std::string().size(); }\n' |
		g++ -m32 -x c++ - -o /dev/null 2>/dev/null; then
		die "no 32-bit build environment for target=X86 (apt-get install libc6-dev-i386 lib32stdc++-12-dev lib32ncurses-dev lib32z1-dev)"
	fi
fi
if ! mkdir -p "$prefix" 2>/dev/null || [ ! -w "$prefix" ]; then
	die "cannot write $prefix (run as root, or set KMAPSTACK_CRASH_PREFIX)"
fi

t0=$(now)
tarball=$work/crash_$ver.orig.tar.gz
exec 8> "$work/.fetch-lock"	# the two targets share the tarball
flock 8
if ! echo "$sha256  $tarball" | sha256sum -c --status 2>/dev/null; then
	rm -f "$tarball"
	apt=$work/apt
	mkdir -p "$apt/lists/partial" "$apt/cache"
	echo "deb-src http://deb.debian.org/debian trixie main" > "$apt/sources.list"
	aptopts=(-o Dir::Etc::SourceList="$apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
		-o Dir::State::Lists="$apt/lists" -o Dir::Cache="$apt/cache")
	# root: no _apt sandbox user for downloads into $work (it cannot write there)
	[ "$(id -u)" != 0 ] || aptopts+=(-o APT::Sandbox::User=root)
	info "fetching Debian trixie's crash $ver source (apt-get source)"
	apt_update "${aptopts[@]}"
	# Only the upstream tarball is needed (the .dsc and the Debian diff
	# may fail to download: the checksum below decides).
	(cd "$work" && apt-get "${aptopts[@]}" -qq source --download-only "crash=$ver-1") > "$work/apt-source.log" 2>&1 || true
	[ -s "$tarball" ] || { cat "$work/apt-source.log" >&2; die "apt-get source crash=$ver-1 did not fetch $(basename "$tarball")"; }
	echo "$sha256  $tarball" | sha256sum -c --status ||
		die "$tarball: SHA-256 mismatch (want $sha256)"
fi
exec 8>&-

src=$sub/crash-$ver
log=$sub/build.log
info "building crash $ver target=$target (with its gdb 10.2) in $src, make -j$jobs; log $log"
rm -rf "$src"
tar -C "$sub" --no-same-owner -xzf "$tarball"
for p in "${patches[@]}"; do
	patch -d "$src" -p1 --quiet < "$p" || die "patch $p failed"
done
# gdb-10.2-*.patch: after crash's own gdb patch, which its build applies
# (patch -p0) to the gdb sources it unpacks
for p in "${gdb_patches[@]}"; do
	cat "$p" >> "$src/gdb-10.2.patch"
done
# crash's Makefile configures and builds the embedded gdb itself;
# GDB_CONF_FLAGS reaches gdb's configure (VAR=VALUE arguments included).
# X86: configure's own GDB_CONF_FLAGS (the target, -m32) and ours from
# GDBFLAGS.extra (GDB_CONF_FLAGS on the command line would replace them).
mk=(target="$target")
if [ "$target" = X86_64 ]; then
	mk+=(GDB_CONF_FLAGS="$gdb_conf")
else
	echo "$gdb_conf" > "$src/GDBFLAGS.extra"
fi
if ! make -C "$src" -j"$jobs" "${mk[@]}" > "$log" 2>&1; then
	tail -n 40 "$log" >&2
	die "building crash $ver failed (see $log)"
fi
[ -x "$src/crash" ] || die "$src/crash missing after the build"
mkdir -p "$prefix/bin" "$prefix/include/crash"
install -m 0755 "$src/crash" "$prefix/bin/crash"
install -m 0644 "$src/defs.h" "$prefix/include/crash/defs.h"
"$prefix/bin/crash" --version | grep -q "^crash $ver\$" || die "$prefix/bin/crash is not crash $ver"
echo "$stamp_want" > "$prefix/kmapstack-build"
info "crash $ver installed in $prefix in $(( $(now) - t0 ))s"
rm -rf "$src"
done_
