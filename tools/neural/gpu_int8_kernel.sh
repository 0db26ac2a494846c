#!/usr/bin/env bash
# On the GPU machine, in one call: builds src/neural alone (LINGCAST_NEURAL_ONLY)
# with nvcc for the fused int8 GEMV (int8_gemv.cu, sm_90), runs the int8 suites of
# the neural test binaries (the fused kernel against dequantize-then-matmul, greedy tokens of
# the tiny checkpoints on both paths), then bench/neural_int8_bench.cc (per-linear
# decode products fp16 / int8 dequantize / int8 fused, then whole decodes).
# Logs land in OUT_DIR: build.log, test_int8.log, bench.log.
#
#   tools/neural/gpu_int8_kernel.sh OUT_DIR
set -uo pipefail
out="${1:?usage: gpu_int8_kernel.sh OUT_DIR}"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"
build=/tmp/lingcast_neural_build
start=$(date +%s)
stamp() { echo "[$(( $(date +%s) - start )) s] $*"; }
prefix="$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')"
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)'
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
nvcc=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc); "$nvcc" --version | tail -2
if ! { cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DLINGCAST_NEURAL_ONLY=ON -DLINGCAST_WERROR=OFF \
         -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_CUDA_COMPILER="$nvcc" -DCMAKE_CUDA_ARCHITECTURES=90 &&
       ninja -C "$build" neural_tests neural_int8_bench; } >"$out/build.log" 2>&1; then
  grep -E "error|Error" "$out/build.log" | head -30; exit 1
fi
stamp "built; warnings: $(grep -c 'warning:' "$out/build.log"); $(grep -c int8_gemv.cu "$out/build.log") nvcc line(s)"
grep -B2 -A6 'warning:' "$out/build.log" | head -30

timeout "${INT8_TEST_SECONDS:-90}" "$repo/tools/neural/run_neural_tests.sh" "$build" --gtest_filter='*Int8*' 2>&1 | tee "$out/test_int8.log" |
  grep -E "^\[  |Failure|Expected|Which is|error|Int8Gemv|took" | head -60
stamp "int8 tests done"
timeout "${INT8_BENCH_SECONDS:-150}" "$build/bench/neural_int8_bench" 2>&1 | tee "$out/bench.log"
stamp "benchmark done"
