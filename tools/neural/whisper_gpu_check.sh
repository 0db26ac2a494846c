#!/usr/bin/env bash
# On the GPU machine (PyTorch, CUDA, transformers; none of lingcast's Debian
# packages): builds src/neural alone (LINGCAST_NEURAL_ONLY), runs the Whisper
# tests (CPU parity, committed fixtures) and times Whisper at whisper-small size
# against transformers (fp16 and fp32, SDPA) in the same call.
#
#   tools/neural/whisper_gpu_check.sh OUT_DIR
set -uo pipefail
out="${1:?usage: whisper_gpu_check.sh OUT_DIR}"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"
export PYTHONUNBUFFERED=1
build=/tmp/lingcast_neural_build
prefix="$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')"
if ! { cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DLINGCAST_NEURAL_ONLY=ON -DLINGCAST_WERROR=OFF \
         -DCMAKE_PREFIX_PATH="$prefix" && ninja -C "$build" neural_test neural_bench_whisper; } >"$out/build.log" 2>&1; then
  tail -40 "$out/build.log"; exit 1
fi
echo "build warnings: $(grep -c 'warning:' "$out/build.log")"
"$build/src/neural/neural_test" --gtest_filter='*Whisper*' >"$out/test.log" 2>&1
echo "whisper tests exit: $?"
grep -E "^\[  (FAILED|PASSED|SKIPPED) |Failure" "$out/test.log" | head -20
python3 tools/neural/make_whisper_fixtures.py --bench --out "$out" 2>&1 | grep -E "reference|versions|Error"
"$build/bench/neural_bench_whisper" 2>&1 | tee "$out/bench.log"
