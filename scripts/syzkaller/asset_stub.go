// A stub for scripts/syzkaller/build.sh: replaces storage.go/backend_*.go, which import
// cloud.google.com/go/storage (via pkg/gcs) and github.com/ulikunitz/xz.
// Only the names referenced by config.go/type.go remain; no upload is possible.
package asset

import "fmt"

type uploadRequest struct{}
type uploadResponse struct{}

type Compressor func(req *uploadRequest,
	next func(req *uploadRequest) (*uploadResponse, error)) (*uploadResponse, error)

func gzipCompressor(req *uploadRequest,
	next func(req *uploadRequest) (*uploadResponse, error)) (*uploadResponse, error) {
	return nil, fmt.Errorf("asset storage is stubbed out")
}
