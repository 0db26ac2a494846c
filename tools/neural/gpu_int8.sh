#!/usr/bin/env bash
# On the GPU machine, in one call: builds src/neural alone (LINGCAST_NEURAL_ONLY,
# as gpu_all.sh does) with the neural tests and neural_int8_bench only, runs the whole
# int8 suites of the neural tests, then INT8 weight-only against fp16 at OPUS-MT base and whisper-small sizes
# (bench/neural_int8_bench.cc), then every neural test (CPU and CUDA suites,
# WHOLE_SUITE_SECONDS, default 200). Logs land in OUT_DIR: build.log, test.log, bench.log.
#
#   tools/neural/gpu_int8.sh OUT_DIR
set -uo pipefail
out="${1:?usage: gpu_int8.sh OUT_DIR}"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"
build=/tmp/lingcast_neural_build
start=$(date +%s)
stamp() { echo "[$(( $(date +%s) - start )) s] $*"; }
prefix="$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')"
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)'
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
if ! { cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DLINGCAST_NEURAL_ONLY=ON -DLINGCAST_WERROR=OFF \
         -DCMAKE_PREFIX_PATH="$prefix" && ninja -C "$build" neural_tests neural_int8_bench; } >"$out/build.log" 2>&1; then
  grep -E "error|Error" "$out/build.log" | head -30; exit 1
fi
stamp "built; warnings: $(grep -c 'warning:' "$out/build.log")"
grep -B2 -A6 'warning:' "$out/build.log" | head -30

timeout 120 "$repo/tools/neural/run_neural_tests.sh" "$build" --gtest_filter='*Int8*' 2>&1 | tee "$out/test_int8.log" | grep -E "^\[  |int8|bytes|agreement|Failure|Expected|Which is|error" | head -60
stamp "int8 tests done"
timeout 300 "$build/bench/neural_int8_bench" 2>&1 | tee "$out/bench.log"
stamp "benchmark done"

# The whole suite last, with what time is left (a regression check of the CUDA paths).
timeout "${WHOLE_SUITE_SECONDS:-200}" "$repo/tools/neural/run_neural_tests.sh" "$build" --gtest_brief=1 >"$out/test.log" 2>&1
echo "every neural test: exit $?; $(grep -E '^\[  PASSED|^\[  FAILED|^\[  SKIPPED' "$out/test.log" | head -20)"
grep -E "Failure|Expected|Which is|^\[  FAILED  \]" "$out/test.log" | head -30
stamp "tests done"
