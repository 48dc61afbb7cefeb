#!/bin/bash
# syzkaller/build.sh DIR: build kmapparse (scripts/syzkaller/kmapparse.go),
# which runs syzkaller's own Linux console parser, pkg/report, over console
# logs, into DIR/kmapparse. Offline: syzkaller's source comes from the
# mirror KMAPSTACK_SYZKALLER_GIT (a git repository of
# github.com/google/syzkaller; default /work/.mirror/google+syzkaller/repo,
# its HEAD), Go 1.26 and the few modules pkg/report needs from Debian
# (golang-1.26-go and golang-*-dev, installed here; the Go module proxy is
# not used). Two syzkaller packages that pull modules Debian lacks are
# replaced by stubs (asset_stub.go: pkg/asset's storage backends, cloud
# storage and xz; vminfo_stub.go: pkg/vminfo, flatbuffers, reduced to the
# KernelModule type pkg/report uses); pkg/report, its title tables and
# everything else it imports are syzkaller's own.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
case "${1:-}" in -h|--help|'') kms_help; exit 0 ;; esac
dir=$(realpath -m "$1") here=$KMS_SCRIPTS/syzkaller
git=${KMAPSTACK_SYZKALLER_GIT:-/work/.mirror/google+syzkaller/repo}
export PATH=/usr/lib/go-1.26/bin:$PATH GOTOOLCHAIN=local GOPROXY=off GOTELEMETRY=off GOFLAGS=-mod=vendor
[ -d "$git" ] || die "no syzkaller repository at $git (set KMAPSTACK_SYZKALLER_GIT to a clone of github.com/google/syzkaller)"
[ -x /usr/lib/go-1.26/bin/go ] || apt_install golang-1.26-go
apt_install golang-golang-x-sys-dev golang-github-ianlancetaylor-demangle-dev \
	golang-github-prometheus-client-golang-dev golang-github-vividcortex-gohistogram-dev
mkdir -p "$dir"
rm -rf "$dir/src" && git clone -q --no-checkout "$git" "$dir/src"
# (the mirror lacks the blobs of two packages' test data, unused here)
git -C "$dir/src" checkout -q HEAD -- pkg sys dashboard prog LICENSE \
	':!pkg/aflow/testdata' ':!pkg/cover/backend/test_data'
mini=$dir/mini
rm -rf "$mini" && mkdir -p "$mini/cmd/kmapparse"
(cd "$dir/src" && cp -a pkg sys dashboard prog LICENSE "$mini/")
rm -f "$mini"/pkg/asset/{backend_dummy.go,backend_gcs.go,backend_gcs_test.go,storage.go,storage_test.go}
cp "$here/asset_stub.go" "$mini/pkg/asset/stub_storage.go"
rm -rf "$mini/pkg/vminfo" && mkdir "$mini/pkg/vminfo" && cp "$here/vminfo_stub.go" "$mini/pkg/vminfo/stub.go"
cp "$here/kmapparse.go" "$mini/cmd/kmapparse/main.go"

# vendor/: module path | directory under /usr/share/gocode/src | version
# (the Debian package's) | go directive
src=/usr/share/gocode/src
mods="github.com/VividCortex/gohistogram|github.com/VividCortex/gohistogram|v1.0.0|
github.com/beorn7/perks|github.com/beorn7/perks|v1.0.1|1.11
github.com/cespare/xxhash/v2|github.com/cespare/xxhash|v2.1.1|1.11
github.com/golang/protobuf|github.com/golang/protobuf|v1.3.5|1.9
github.com/ianlancetaylor/demangle|github.com/ianlancetaylor/demangle|v0.0.0-20200824232613-28f6c0f3b639|
github.com/matttproud/golang_protobuf_extensions|github.com/matttproud/golang_protobuf_extensions|v1.0.1|
github.com/prometheus/client_golang|github.com/prometheus/client_golang|v1.14.0|1.17
github.com/prometheus/client_model|github.com/prometheus/client_model|v0.3.0|1.9
github.com/prometheus/common|github.com/prometheus/common|v0.39.0|1.17
github.com/prometheus/procfs|github.com/prometheus/procfs|v0.8.0|1.17
golang.org/x/sys|golang.org/x/sys|v0.3.0|1.17
google.golang.org/protobuf|google.golang.org/protobuf|v1.28.1|1.11"
roots="github.com/prometheus/client_golang/prometheus github.com/VividCortex/gohistogram golang.org/x/sys/unix github.com/ianlancetaylor/demangle"
pkgs=$(GO111MODULE=off GOPATH=$src/.. GOFLAGS= go list -deps -f '{{if not .Standard}}{{.ImportPath}}{{end}}' $roots | sort -u)
{
	printf 'module github.com/google/syzkaller\n\ngo 1.26.0\n\nrequire (\n'
	while IFS='|' read -r mod _ ver _; do printf '\t%s %s\n' "$mod" "$ver"; done <<<"$mods"
	printf ')\n'
} > "$mini/go.mod"
mkdir -p "$mini/vendor"
while IFS='|' read -r mod d ver gov; do
	printf '# %s %s\n## explicit%s\n' "$mod" "$ver" "${gov:+; go $gov}"
	for p in $pkgs; do
		case "$p/" in "$d"/*) ;; *) continue ;; esac
		vp=$mod${p#"$d"}
		echo "$vp"
		mkdir -p "$mini/vendor/$vp"
		find "$src/$p" -maxdepth 1 -type f \( -name '*.go' -o -name '*.s' -o -name '*.h' -o -name '*.c' \) \
			! -name '*_test.go' -exec cp {} "$mini/vendor/$vp/" \;
	done
done <<<"$mods" > "$mini/vendor/modules.txt"
(cd "$mini" && nice -n 19 go build -o "$dir/kmapparse" ./cmd/kmapparse)
git -C "$dir/src" rev-parse HEAD > "$dir/syzkaller.commit"
info "built $dir/kmapparse (syzkaller $(cut -c1-12 "$dir/syzkaller.commit"), $(go version | cut -d' ' -f3))"
