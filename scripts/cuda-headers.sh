#!/usr/bin/env bash
# cuda-headers.sh fetches the two files that the `cuda` build needs —
# cuda.h and the libcuda.so link stub — from Debian's CUDA 11.8 package
# (nvidia-cuda-dev, non-free) into third_party/cuda (git-ignored). Nothing
# is installed system-wide. gorgonia.org/cu v0.9.6 does not compile against
# CUDA 13 headers, so the 11.8 ones are used; the driver API they declare
# is forward compatible with the drivers on the GPU machines.
#
# Usage: scripts/cuda-headers.sh   then   source scripts/cuda-env.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dest=$root/third_party/cuda
if [[ -f $dest/usr/include/cuda.h && -f $dest/usr/lib/x86_64-linux-gnu/stubs/libcuda.so ]]; then
	exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$dest"
cat >"$work/sources" <<'SRC'
deb http://deb.debian.org/debian bookworm main contrib non-free
SRC
apt_opts=(-o "Dir::Etc::SourceList=$work/sources" -o Dir::Etc::SourceParts=/dev/null
	-o "Dir::State::Lists=$work/lists" -o Debug::NoLocking=1)
apt-get "${apt_opts[@]}" update -qq >/dev/null
(cd "$work" && apt-get "${apt_opts[@]}" download -qq nvidia-cuda-dev >/dev/null)
dpkg-deb --fsys-tarfile "$work"/nvidia-cuda-dev_*.deb |
	tar -x -C "$dest" ./usr/include/cuda.h ./usr/lib/x86_64-linux-gnu/stubs/libcuda.so
echo "cuda headers in $dest"
