#!/usr/bin/env bash
# On the GPU machine (PyTorch, CUDA and transformers; none of lingcast's Debian
# packages): builds src/neural alone (LINGCAST_NEURAL_ONLY), runs the VITS tests
# (CPU parity and the CUDA test), times transformers' VitsModel on random weights
# at facebook/mms-tts-eng's size (fp16 and fp32), then bench/vits_bench beside it
# in the same call. Logs land in OUT_DIR.
#
#   tools/neural/vits_gpu_check.sh OUT_DIR
set -uo pipefail
out="${1:?usage: vits_gpu_check.sh OUT_DIR}"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"
export PYTHONUNBUFFERED=1
build=/tmp/lingcast_neural_build
prefix="$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')"
if ! { cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DLINGCAST_NEURAL_ONLY=ON -DLINGCAST_WERROR=OFF \
         -DCMAKE_PREFIX_PATH="$prefix" && ninja -C "$build" vits_bench neural_test; } >"$out/build.log" 2>&1; then
  grep -E "error" "$out/build.log" | head -20
  [[ -x "$build/bench/vits_bench" ]] || exit 1
fi
echo "build warnings: $(grep -c 'warning:' "$out/build.log")"
if [[ -x "$build/src/neural/neural_test" ]]; then
  # One suite at a time: a crash names its suite and the others still run.
  for suite in VitsCuda 'Fixtures/VitsParity' VitsModel VitsTokenizer VitsTokenizerFiles VitsBadCheckpoint; do
    "$build/src/neural/neural_test" --gtest_filter="$suite.*" >>"$out/test.log" 2>&1
    echo "$suite: exit $?"
  done
  grep -E "^\[  (FAILED|SKIPPED) |Failure|Expected|actual" "$out/test.log" | head -30
fi
nvidia-smi --query-gpu=name,memory.used --format=csv,noheader
python3 tools/neural/make_vits_fixtures.py --bench "$out/vits_reference.json" >"$out/reference.log" 2>&1
tail -12 "$out/reference.log"
"$build/bench/vits_bench" "$out/vits_reference.json" 2>&1 | tee "$out/bench.log"
