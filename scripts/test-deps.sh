#!/bin/bash
# test-deps.sh          ('make check-deps')
#
# The set-up of a new machine through apt must not stop on what apt itself
# only warns about.  A Debian mirror caught in the middle of a sync serves
# an index of the wrong size ("File has unexpected size ... Mirror sync in
# progress?"): 'apt-get update' then exits 100, keeping the lists it has,
# and the package wanted is usually there all the same.  Checked here with
# stand-ins for apt-get, dpkg and dpkg-deb first in PATH (nothing is
# installed, nothing is downloaded):
#   - fetch-busybox.sh, 'apt-get update' failing: a warning naming apt's
#     error, then the busybox is fetched and installed;
#   - the same when the first download fails and the retry succeeds;
#   - the package really missing: a clear error naming it;
#   - install-deps.sh, 'apt-get update' failing: the packages are
#     installed, the busybox of each foreign arch fetched.
# Ends with "N passed, N failed".
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$KMS_SCRIPTS/testlib.sh"
case "${1:-}" in -h|--help) kms_help; exit 0 ;; esac
[ "$(id -u)" = 0 ] || die "run as root (the scripts under test refuse otherwise)"

scratch=$(mktemp -d "${TMPDIR:-/tmp}/kmapstack-deps.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
stubs=$scratch/bin
mkdir -p "$stubs"

# apt-get: 'update' fails as a mirror mid-sync makes it fail; 'download'
# fails the first $DOWNLOAD_FAILS times, then writes a package;
# 'install' succeeds.  Every call is logged.
cat > "$stubs/apt-get" <<'EOF'
#!/bin/bash
echo "apt-get $*" >> "$STUB_LOG"
for a in "$@"; do
	case "$a" in
	update)
		echo "E: Failed to fetch http://deb.debian.org/debian-security/dists/bookworm-security/main/binary-i386/Packages.xz  File has unexpected size (371952 != 372316). Mirror sync in progress?" >&2
		echo "E: Some index files failed to download. They have been ignored, or old ones used instead." >&2
		exit 100 ;;
	download)
		n=$(cat "$STUB_STATE" 2>/dev/null || echo 0)
		echo $((n + 1)) > "$STUB_STATE"
		if [ "$n" -lt "${DOWNLOAD_FAILS:-0}" ]; then
			echo "E: Can't select candidate version from package ${!#} as it has no candidate" >&2
			exit 100
		fi
		pkg=${!#}
		echo stub > "${pkg%%:*}_1.0_${pkg##*:}.deb"
		exit 0 ;;
	install) exit 0 ;;
	esac
done
exit 0
EOF
# dpkg: no foreign architecture yet; adding one succeeds
cat > "$stubs/dpkg" <<'EOF'
#!/bin/bash
echo "dpkg $*" >> "$STUB_LOG"
exit 0
EOF
# dpkg-deb -x DEB DIR: a package holding bin/busybox
cat > "$stubs/dpkg-deb" <<'EOF'
#!/bin/bash
[ "$1" = -x ] || exit 2
mkdir -p "$3/bin" && printf '#!/bin/sh\necho busybox\n' > "$3/bin/busybox"
EOF
chmod +x "$stubs"/*
export STUB_LOG=$scratch/calls.log STUB_STATE=$scratch/downloads

# fetch NAME FAILS: fetch-busybox.sh i386 into the scratch directory, with
# the first FAILS downloads failing; its exit status in rc, output in out
fetch() {
	rm -f "$STUB_STATE" "$scratch/busybox"
	rc=0
	out=$(PATH=$stubs:$PATH DOWNLOAD_FAILS=$2 \
		"$KMS_SCRIPTS/fetch-busybox.sh" i386 "$scratch/busybox" 2>&1) || rc=$?
	printf '%s\n' "$out" | sed "s/^/  $1: /"
}

fetch update-fails 0
check "fetch-busybox.sh: a failed apt-get update is not fatal (exit $rc)" test "$rc" = 0
check "fetch-busybox.sh: the busybox is installed" test -x "$scratch/busybox"
check "fetch-busybox.sh: the warning names apt's error" \
	grep -q "warning: apt-get update.*Mirror sync in progress" <<<"$out"

fetch retry 1
check "fetch-busybox.sh: a failed download is retried after apt-get update (exit $rc)" test "$rc" = 0
check "fetch-busybox.sh: ... and the busybox installed" test -x "$scratch/busybox"

fetch missing 99
check "fetch-busybox.sh: a package that is not there fails (exit $rc)" test "$rc" != 0
check "fetch-busybox.sh: ... with an error naming it" \
	grep -q "error: apt-get download busybox-static:i386 failed" <<<"$out"

: > "$STUB_LOG"
rm -f "$STUB_STATE"
rc=0
out=$(PATH=$stubs:$PATH KMAPSTACK_BUILD=$scratch/build "$KMS_SCRIPTS/install-deps.sh" 2>&1) || rc=$?
printf '%s\n' "$out" | sed 's/^/  install-deps: /'
check "install-deps.sh: a failed apt-get update is not fatal (exit $rc)" test "$rc" = 0
check "install-deps.sh: the packages are installed" grep -q "^apt-get .*install" "$STUB_LOG"
check "install-deps.sh: the i386 and arm64 busyboxes are fetched" \
	test -x "$scratch/build/deps/busybox-i386" -a -x "$scratch/build/deps/busybox-arm64"
summary
