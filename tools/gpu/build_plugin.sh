#!/usr/bin/env bash
# Builds the neural plug-in (liblingcast_neural_plugin.so) here, against the
# PyTorch that the GPU machine has (docs/gpu.md): the torch wheel of that version
# from PyPI gives the headers and libraries to link with; the machine's own
# PyTorch provides them at run time. The plug-in meets the `lingcast` binary
# through the C ABI of src/neural/plugin/lingcast_plugin_abi.h, so only that
# header's major version must match: the binary loads either plug-in, Debian's
# CPU libtorch one or this one.
#
#   tools/gpu/build_plugin.sh [--torch 2.11.0] [--cuda-arch 9.0] BUILD_DIR
#
# Leaves BUILD_DIR/src/neural/plugin/liblingcast_neural_plugin.so and
# BUILD_DIR/src/neural/marian/liblingcast_spm_shim.so (for make_bundle.sh --plugin).
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
torch_version=2.11.0
cuda_arch=9.0
while [[ $# -gt 1 ]]; do
  case "$1" in
    --torch) torch_version="$2"; shift 2 ;;
    --cuda-arch) cuda_arch="$2"; shift 2 ;;
    *) echo "build_plugin.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
build="${1:?usage: build_plugin.sh [--torch VERSION] [--cuda-arch X.Y] BUILD_DIR}"
command -v nvcc >/dev/null || [[ -x /usr/local/cuda/bin/nvcc ]] || { echo "build_plugin.sh: needs CUDA's nvcc (the CUDA toolkit)" >&2; exit 2; }
cache="${LINGCAST_TORCH_CACHE:-$HOME/.cache/lingcast/torch-$torch_version}"
if [[ ! -f "$cache/torch/share/cmake/Torch/TorchConfig.cmake" ]]; then
  mkdir -p "$cache/wheel"
  echo "build_plugin.sh: fetching torch $torch_version (PyPI, manylinux x86-64, CPython 3.12)" >&2
  python3 -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
    --platform manylinux_2_28_x86_64 -d "$cache/wheel" "torch==$torch_version"
  # The headers, libraries and CMake config; not the Python extension.
  unzip -q -o "$cache"/wheel/torch-"$torch_version"-*.whl 'torch/include/*' 'torch/lib/*' 'torch/share/*' \
    -x 'torch/lib/libtorch_python.so' -d "$cache"
  rm -rf "$cache/wheel"
fi
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
# TORCH_CUDA_ARCH_LIST: no GPU here for PyTorch's CMake to detect the architecture on.
# The renderer is not built here: this build is for the plug-in alone, and
# the CUDA language enabled for the renderer trips PyTorch's own CUDA checks.
TORCH_CUDA_ARCH_LIST="$cuda_arch" cmake -S "$repo" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DLINGCAST_NEURAL=ON -DLINGCAST_WERROR=OFF -DLINGCAST_CUDA_RENDERER=OFF "${launcher[@]}" \
  -DTorch_DIR="$cache/torch/share/cmake/Torch" -DCaffe2_DIR="$cache/torch/share/cmake/Caffe2" >"$build.configure.log" \
  || { tail -20 "$build.configure.log" >&2; exit 1; }
ninja -C "$build" lingcast_neural_plugin lingcast_spm_shim
ls -l "$build/src/neural/plugin/liblingcast_neural_plugin.so" >&2
