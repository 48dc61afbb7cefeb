#!/bin/bash
# test-package.sh        ('make check-package', a step of 'make check')
#
# kmapstack installed the way a user or a distribution installs it:
#   - 'make install' with prefix= (or PREFIX=) and DESTDIR= puts in place
#     the analyzer, its man page, its bash completion, the JSON schema doc,
#     and under share/kmapstack/ the bpftrace scripts, the drgn script and
#     the crash extension's source; 'make uninstall' leaves nothing;
#   - WERROR=0 builds without -Werror; a missing build dependency is one
#     line naming the Debian packages to install; tools/crash without a
#     crash's defs.h says to run 'make crash';
#   - the bash completion (with and without the bash-completion package's
#     helpers) offers the commands, the options, files after -o, and a
#     command after 'record ... --';
#   - the Debian package: dpkg-buildpackage -b -us -uc in a copy of the
#     tree (build/package/), lintian with no error or warning, installed
#     with dpkg -i: /usr/bin/kmapstack --version gives the package's
#     version, the man page and the shared files are there, the drgn script
#     runs, the binary has Debian's hardening (PIE, RELRO, BIND_NOW, stack
#     protector, fortified calls: the flags reached the compiler and the
#     link); the package is removed at the end unless it was installed
#     before.
# Needs root (dpkg -i) and the packages of scripts/deps/tools.txt
# (dpkg-dev, debhelper, lintian, bash-completion). Ends with "N passed,
# N failed".
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$KMS_SCRIPTS/testlib.sh"
case "${1:-}" in -h|--help) kms_help; exit 0 ;; esac
[ "$(id -u)" = 0 ] || die "run as root (the package is installed with dpkg -i)"

work=$KMS_BUILD/package
rm -rf "$work"
mkdir -p "$work"
cd "$KMS_REPO"

# --- make install / uninstall ---------------------------------------------
installed=(bin/kmapstack share/man/man1/kmapstack.1
	share/bash-completion/completions/kmapstack
	share/doc/kmapstack/kmapstack-json.md
	share/kmapstack/drgn/kmapstack.py share/kmapstack/crash/kmapstack.c
	share/kmapstack/crash/Makefile)
for bt in scripts/bpftrace/*.bt; do
	installed+=("share/kmapstack/bpftrace/${bt##*/}")
done
# has_all ROOT: every file of the list under ROOT (the missing ones said;
# a Debian package has the man page and the long docs gzipped)
has_all() {
	local f missing=()
	for f in "${installed[@]}"; do
		[ -f "$1/$f" ] || [ -f "$1/$f.gz" ] || missing+=("$f")
	done
	[ ${#missing[@]} = 0 ] || { echo "missing under $1: ${missing[*]}"; return 1; }
}

stage=$work/stage
if make -s install DESTDIR="$stage" prefix=/usr > "$work/install.log" 2>&1; then
	check "make install DESTDIR= prefix=/usr: every file under usr/" has_all "$stage/usr"
	check "the staged kmapstack runs (--version)" "$stage/usr/bin/kmapstack" --version
	check "the bpftrace scripts are executable" \
		test -x "$stage/usr/share/kmapstack/bpftrace/kmap-depth.bt"
	if make -s uninstall DESTDIR="$stage" prefix=/usr > "$work/uninstall.log" 2>&1 &&
		left=$(find "$stage" ! -type d) && [ -z "$left" ] &&
		[ ! -e "$stage/usr/share/kmapstack" ]; then
		ok "make uninstall: no file left, share/kmapstack/ gone"
	else
		nok "make uninstall" "left: $(find "$stage" ! -type d | head -n 5 | tr '\n' ' ') $(tail -n 2 "$work/uninstall.log")"
	fi
else
	nok "make install DESTDIR= prefix=/usr" "$(tail -n 3 "$work/install.log")"
fi
if make -s install DESTDIR="$stage-PREFIX" PREFIX=/opt/kms > "$work/install-PREFIX.log" 2>&1; then
	check "make install PREFIX=/opt/kms: every file under opt/kms/" has_all "$stage-PREFIX/opt/kms"
else
	nok "make install PREFIX=/opt/kms" "$(tail -n 3 "$work/install-PREFIX.log")"
fi

# --- build options and dependencies ---------------------------------------
# werror_words ARGS...: how many compiler lines of a dry-run rebuild carry -Werror
werror_words() {
	make --no-print-directory -s -n -B -C tools/kmapstack kmapstack "$@" | grep -c -- -Werror || true
}
n=$(werror_words)
[ "$n" -gt 0 ] && ok "the project's own build has -Werror ($n commands)" ||
	nok "the project's own build has -Werror" "none in make -n"
n=$(werror_words WERROR=0)
[ "$n" = 0 ] && ok "WERROR=0: no -Werror in the build" ||
	nok "WERROR=0: no -Werror in the build" "$n commands with it"

# one_line NAME REGEX CMD...: CMD fails with one line of output matching REGEX
one_line() {
	local name=$1 rx=$2 out rc=0
	shift 2
	out=$("$@" 2>&1) || rc=$?
	if [ "$rc" != 0 ] && [ "$(printf '%s\n' "$out" | grep -c .)" = 1 ] &&
		[[ $out =~ $rx ]]; then
		ok "$name"
	else
		nok "$name" "exit $rc: $(printf '%s' "$out" | head -n 4 | tr '\n' '|')"
	fi
}
one_line "no libtracecmd/libtraceevent/libtracefs: one line naming their -dev packages" \
	"missing build dependencies: apt-get install libtracecmd-dev libtraceevent-dev libtracefs-dev" \
	env PKG_CONFIG_LIBDIR="$work/no-pc" PKG_CONFIG_PATH= \
	make --no-print-directory -B -C tools/kmapstack kmapstack
one_line "no pkg-config: one line naming it too" \
	"missing build dependencies: apt-get install pkg-config libtracecmd-dev" \
	make --no-print-directory -B -C tools/kmapstack kmapstack PKG_CONFIG="$work/no-pkg-config"
mkdir -p "$work/crash-without-defs/include"
one_line "tools/crash without a crash's defs.h: one line, run 'make crash'" \
	"no $work/crash-without-defs/include/crash/defs.h: run 'make crash'" \
	make --no-print-directory -C tools/crash CRASH_INC="$work/crash-without-defs/include"

# --- bash completion ------------------------------------------------------
# complete_words FRAMEWORK WORD...: the completions of the last WORD, the
# installed kmapstack first in PATH; FRAMEWORK 1 loads bash-completion's
# helpers (as an interactive shell has them), 0 does not
complete_words() {
	local fw=$1
	shift
	PATH=$work/stage-PREFIX/opt/kms/bin:$PATH bash -c '
		fw=$1 comp=$2; shift 2
		if [ "$fw" = 1 ]; then . /usr/share/bash-completion/bash_completion; fi
		. "$comp"
		COMP_WORDS=("$@") COMP_CWORD=$(($# - 1))
		COMP_LINE="$*" COMP_POINT=${#COMP_LINE}
		_kmapstack kmapstack "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
		printf "%s\n" "${COMPREPLY[@]}"' _ "$fw" \
		"$work/stage-PREFIX/opt/kms/share/bash-completion/completions/kmapstack" "$@"
}
# completes FRAMEWORK NAME WANTED... -- WORD...: the completions hold every WANTED
completes() {
	local fw=$1 name=$2 want=() got w missing=() label=completion
	shift 2
	[ "$fw" = 0 ] || label="completion (bash-completion)"
	while [ "$1" != -- ]; do want+=("$1"); shift; done
	shift
	got=$(complete_words "$fw" "$@" 2>&1) || true
	for w in "${want[@]}"; do
		grep -qxF -- "$w" <<<"$got" || missing+=("$w")
	done
	[ ${#missing[@]} = 0 ] && ok "$label: $name" ||
		nok "$label: $name" "no ${missing[*]} in: $(tr '\n' ' ' <<<"$got")"
}
if [ -f "$work/stage-PREFIX/opt/kms/share/bash-completion/completions/kmapstack" ]; then
	mkdir -p "$work/files" && : > "$work/files/trace.dat"
	for fw in 0 1; do
		if [ "$fw" = 1 ] && [ ! -f /usr/share/bash-completion/bash_completion ]; then
			nok "completion (bash-completion)" "not installed (apt-get install bash-completion)"
			continue
		fi
		completes $fw "the commands" check live record report stats -- kmapstack ''
		completes $fw "the options" --kallsyms -- kmapstack check --kal
		completes $fw "a file after -o" "$work/files/trace.dat" -- kmapstack report -o "$work/files/tr"
		completes $fw "a command after record ... --" printf -- kmapstack record -e sched_switch -- prin
	done
else
	nok "completion" "not installed by make install"
fi

# --- the Debian package ---------------------------------------------------
missing=()
for t in dpkg-buildpackage:dpkg-dev dh:debhelper lintian:lintian; do
	command -v "${t%%:*}" > /dev/null || missing+=("${t#*:}")
done
if [ ${#missing[@]} != 0 ]; then
	nok "the Debian package" "missing tools: apt-get install ${missing[*]}"
	summary
	exit
fi
if [ ! -f debian/control ] || [ ! -f debian/changelog ]; then
	nok "the Debian package" "no debian/control or debian/changelog"
	summary
	exit
fi
# the tree as git has it (tracked and new files, not what .gitignore
# excludes), where dpkg-buildpackage may write its ../ files
src=$work/src/kmapstack
mkdir -p "$src"
git ls-files -z -c -o --exclude-standard | tar --null -T - -cf - | tar -xf - -C "$src"
if deps=$(cd "$src" && dpkg-checkbuilddeps 2>&1); then
	ok "the build dependencies of debian/control are installed"
else
	nok "the build dependencies of debian/control" "$deps"
fi
arch=$(dpkg --print-architecture)
version=$(dpkg-parsechangelog -l debian/changelog -S Version)
deb=$work/src/kmapstack_${version}_$arch.deb
if (cd "$src" && DEB_BUILD_OPTIONS="nocheck parallel=$(nproc)" nice -n 10 \
	dpkg-buildpackage -b -us -uc) > "$work/dpkg-buildpackage.log" 2>&1 && [ -f "$deb" ]; then
	ok "dpkg-buildpackage -b -us -uc: ${deb##*/}"
else
	nok "dpkg-buildpackage -b -us -uc" "$(tail -n 5 "$work/dpkg-buildpackage.log" | tr '\n' '|')"
	summary
	exit
fi
if lintian --fail-on error,warning --display-info --tag-display-limit 0 "$work/src/kmapstack_${version}_$arch.changes" \
	> "$work/lintian.log" 2>&1; then
	ok "lintian: no error, no warning ($(grep -c '^[IP]:' "$work/lintian.log" || true) info tags)"
else
	nok "lintian" "$(grep -E '^[EW]:' "$work/lintian.log" | head -n 10 | tr '\n' '|')"
fi
was_installed=0
status=$(dpkg-query -W -f='${Status}' kmapstack 2>/dev/null) || status="not installed"
[ "$status" != "install ok installed" ] || was_installed=1
if dpkg -i "$deb" > "$work/dpkg-i.log" 2>&1; then
	ok "dpkg -i ${deb##*/}"
	v=$(/usr/bin/kmapstack --version 2>&1) || true
	[ "$v" = "kmapstack $version" ] && ok "/usr/bin/kmapstack --version: $v" ||
		nok "/usr/bin/kmapstack --version" "'$v', not 'kmapstack $version'"
	m=$(man -w kmapstack 2>&1) || true
	[ "$m" = /usr/share/man/man1/kmapstack.1.gz ] && ok "man kmapstack: $m" ||
		nok "man kmapstack" "$m"
	check "the package's files: the analyzer, man page, completion, JSON doc, share/kmapstack/" \
		has_all /usr
	if out=$(/usr/bin/python3 /usr/share/kmapstack/drgn/kmapstack.py --help 2>&1) &&
		[[ $out == "usage: kmapstack.py "* ]]; then
		ok "the installed drgn script: --help"
	else
		nok "the installed drgn script: --help" "$(head -n 3 <<<"$out" | tr '\n' '|')"
	fi
	# Debian's hardening flags reached the compiler and the link
	elf=/usr/bin/kmapstack
	hard=()
	# (the output read whole: grep -q ending a pipe early fails it under pipefail)
	head=$(readelf -h "$elf") progh=$(readelf -lW "$elf") dyn=$(readelf -dW "$elf")
	syms=$(readelf --dyn-syms -W "$elf")
	grep -q 'Type: *DYN' <<<"$head" || hard+=("not PIE")
	grep -q GNU_RELRO <<<"$progh" || hard+=("no RELRO")
	grep -qE 'BIND_NOW|FLAGS_1.* NOW' <<<"$dyn" || hard+=("no BIND_NOW")
	grep -q __stack_chk_fail <<<"$syms" || hard+=("no stack protector")
	grep -qE '__[a-z]+_chk@' <<<"$syms" || hard+=("no fortified call")
	[ ${#hard[@]} = 0 ] && ok "the binary is hardened: PIE, RELRO, BIND_NOW, stack protector, fortified calls" ||
		nok "the binary is hardened" "${hard[*]}"
	if [ "$was_installed" = 0 ]; then
		if dpkg -P kmapstack > "$work/dpkg-P.log" 2>&1 && [ ! -e /usr/bin/kmapstack ] &&
			[ ! -e /usr/share/kmapstack ]; then
			ok "dpkg -P kmapstack: nothing left"
		else
			nok "dpkg -P kmapstack" "$(tail -n 2 "$work/dpkg-P.log" | tr '\n' '|')"
		fi
	fi
else
	nok "dpkg -i ${deb##*/}" "$(tail -n 3 "$work/dpkg-i.log" | tr '\n' '|')"
fi
summary
