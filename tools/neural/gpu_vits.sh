#!/usr/bin/env bash
# On the GPU machine (PyTorch, CUDA, transformers; none of lingcast's Debian
# packages), in one call: builds src/neural alone (LINGCAST_NEURAL_ONLY), runs the
# VITS test suites (CPU and CUDA), then transformers at mms-tts-eng size with its
# stage profile (tools/neural/vits_gpu_bench.py) and bench/vits_bench on the same
# weights and input: eager (the path before CUDA graphs) and with CUDA graphs, in
# the same run. Logs land in OUT_DIR: build.log, test.log, reference.log, bench.log,
# reference.json.
#
#   tools/neural/gpu_vits.sh OUT_DIR [--all-tests]
set -uo pipefail
out="${1:?usage: gpu_vits.sh OUT_DIR [--all-tests]}"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"
export PYTHONUNBUFFERED=1
build=/tmp/lingcast_neural_build
ref=/tmp/lingcast_vits_reference
start=$(date +%s)
stamp() { echo "[$(( $(date +%s) - start )) s] $*"; }
prefix="$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader
# The reference first, on an idle CPU (the build would slow a launch-bound model);
# the profile's timings are its own.
timeout 240 python3 tools/neural/vits_gpu_bench.py "$ref" >"$out/reference.log" 2>&1
cp "$ref/reference.json" "$out/" 2>/dev/null
grep -vE "Writing model shards" "$out/reference.log" | cut -c1-200
stamp "reference done"
if ! { cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DLINGCAST_NEURAL_ONLY=ON -DLINGCAST_WERROR=OFF \
         -DCMAKE_PREFIX_PATH="$prefix" && ninja -C "$build" neural_test vits_bench; } >"$out/build.log" 2>&1; then
  grep -E "error|Error" "$out/build.log" | head -30; exit 1
fi
stamp "built; warnings: $(grep -c 'warning:' "$out/build.log")"
timeout 240 "$build/bench/vits_bench" "$ref" 2>&1 | tee "$out/bench.log"
stamp "bench done"
filter='Vits*:*VitsParity*'
[[ "${2:-}" == "--all-tests" ]] && filter='*'
timeout 200 "$build/src/neural/neural_test" --gtest_filter="$filter" >"$out/test.log" 2>&1
echo "tests ($filter): exit $?"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |Failure|Expected|Which is|actual" "$out/test.log" | head -30
stamp "tests done"
