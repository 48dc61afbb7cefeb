// A stub for scripts/syzkaller/build.sh: the real pkg/vminfo imports pkg/flatrpc
// (github.com/google/flatbuffers/go, golang.org/x/sync) and pkg/fuzzer/queue
// (pkg/stat -> prometheus). pkg/report, pkg/mgrconfig and pkg/cover/backend only
// use the KernelModule type, copied verbatim from pkg/vminfo/vminfo.go.
package vminfo

type KernelModule struct {
	Name string
	Addr uint64
	Size uint64
	Path string
}
