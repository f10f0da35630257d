#!/usr/bin/env bash
# cuda-toolkit.sh fetches CUDA 11.8's nvcc, cicc, ptxas and headers from
# Debian (nvidia-cuda-toolkit, nvidia-cuda-dev, libnvvm4; non-free) into
# third_party/cuda-toolkit (git-ignored), for compiling kernels/*.cu to PTX
# on a machine without a GPU. nvcc 11.8 knows sm_90. Nothing is installed
# system-wide; ~870 MB download.
#
# Usage: scripts/cuda-toolkit.sh; then scripts/nvcc.sh <nvcc args>
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dest=$root/third_party/cuda-toolkit
if [[ -x $dest/usr/lib/nvidia-cuda-toolkit/bin/nvcc ]]; then
	exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$dest"
echo 'deb http://deb.debian.org/debian bookworm main contrib non-free' >"$work/sources"
apt_opts=(-o "Dir::Etc::SourceList=$work/sources" -o Dir::Etc::SourceParts=/dev/null
	-o "Dir::State::Lists=$work/lists" -o Debug::NoLocking=1)
apt-get "${apt_opts[@]}" update -qq >/dev/null
(cd "$work" && apt-get "${apt_opts[@]}" download -qq nvidia-cuda-toolkit nvidia-cuda-dev libnvvm4 >/dev/null 2>&1)
for f in "$work"/*.deb; do dpkg -x "$f" "$dest"; done
# Point nvcc at this tree instead of /usr.
cat >"$dest/usr/lib/nvidia-cuda-toolkit/bin/nvcc.profile.local" <<PROFILE
NVVMIR_LIBRARY_DIR = $dest/usr/lib/nvidia-cuda-toolkit/libdevice
LD_LIBRARY_PATH += $dest/usr/lib/x86_64-linux-gnu
PATH += $dest/usr/lib/nvidia-cuda-toolkit/bin:
INCLUDES += -I$dest/usr/include
PROFILE
rm -f "$dest/usr/lib/nvidia-cuda-toolkit/bin/nvcc.profile"
cp "$dest/usr/lib/nvidia-cuda-toolkit/bin/nvcc.profile.local" "$dest/usr/lib/nvidia-cuda-toolkit/bin/nvcc.profile"
echo "nvcc in $dest/usr/lib/nvidia-cuda-toolkit/bin"
