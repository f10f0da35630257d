# Source this after scripts/cuda-headers.sh: cgo flags for `go build -tags cuda`.
_mw_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export CGO_CFLAGS="-I$_mw_root/third_party/cuda/usr/include"
export CGO_LDFLAGS="-L$_mw_root/third_party/cuda/usr/lib/x86_64-linux-gnu/stubs"
unset _mw_root
