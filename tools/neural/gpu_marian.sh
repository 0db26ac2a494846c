#!/usr/bin/env bash
# On the GPU machine (PyTorch, CUDA, transformers; none of lingcast's Debian
# packages), in one call: transformers' Marian timing at OPUS-MT base size (on an
# idle machine), then src/neural built alone (LINGCAST_NEURAL_ONLY), then
# bench/neural_bench (tokens/s at batch 1 and 16: buckets + kept graphs, eager,
# and the static path capturing per call) and bench/marian_batch_bench (lines of
# varying lengths before/after kept graphs; the batcher at 1/4/16/32 streams,
# before/after), then every neural test suite. "Before" is the per-call-capture
# path, which the same binaries keep (DecodePath::kStatic), so one build serves
# both. Logs land in OUT_DIR: reference.log, build.log, bench.log, test.log.
# --tests-only skips the timings, --no-tests the test run.
#
#   tools/neural/gpu_marian.sh OUT_DIR [--tests-only|--no-tests]
set -uo pipefail
out="${1:?usage: gpu_marian.sh OUT_DIR [--tests-only|--no-tests]}"
mode="${2:-all}"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"
export PYTHONUNBUFFERED=1
build=/tmp/lingcast_neural_build
ref=/tmp/lingcast_marian_reference && mkdir -p "$ref"
start=$(date +%s)
stamp() { echo "[$(( $(date +%s) - start )) s] $*"; }
prefix="$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')"
python3 -c 'import torch, transformers; print("torch", torch.__version__, "cuda", torch.version.cuda, "transformers", transformers.__version__)'
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
if [[ $mode != --tests-only ]]; then
  echo "== Marian: transformers (OPUS-MT base size, greedy 64 tokens)"
  timeout 100 python3 tools/neural/make_marian_fixtures.py --tokenizer src/neural/testdata/marian_tiny --out "$ref" \
    --timing-only cuda >"$out/reference.log" 2>&1
  grep -E "reference|Error" "$out/reference.log"
  stamp "reference done"
fi
# -k 0: a target that fails to build leaves the others to run.
if ! { cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DLINGCAST_NEURAL_ONLY=ON -DLINGCAST_WERROR=OFF \
         -DCMAKE_PREFIX_PATH="$prefix" && ninja -k 0 -C "$build" neural_tests neural_bench marian_batch_bench; } \
       >"$out/build.log" 2>&1; then
  grep -E "error|Error" "$out/build.log" | head -30
fi
stamp "built; warnings: $(grep -c 'warning:' "$out/build.log")"
if [[ $mode != --tests-only ]]; then
  {
    echo "== Marian: lingcast neural_bench"
    timeout 120 "$build/bench/neural_bench" 2>&1
    echo "== Marian: lingcast marian_batch_bench"
    timeout 200 "$build/bench/marian_batch_bench" 2>&1
  } | tee "$out/bench.log"
  stamp "benchmarks done"
fi
if [[ $mode != --no-tests ]]; then
  # The whole binary at once (one CUDA start-up, not one per suite).
  timeout 200 "$repo/tools/neural/run_neural_tests.sh" "$build" >"$out/test.log" 2>&1
  echo "neural tests: exit $?"
  grep -E "^\[  (PASSED|FAILED|SKIPPED) |Failure|Expected|Which is|actual|tests ran" "$out/test.log" | head -40
  stamp "tests done"
fi
