#!/usr/bin/env bash
# On the GPU machine (PyTorch, CUDA, transformers; none of lingcast's Debian
# packages), in one call: builds src/neural alone (LINGCAST_NEURAL_ONLY) once,
# runs every suite of the neural test binaries on its own (a crash names its suite; CPU and CUDA
# tests), then times Marian, Whisper and VITS against transformers on the same
# sizes in the same run. Logs land in OUT_DIR: build.log, test.log, bench.log.
#
#   tools/neural/gpu_all.sh OUT_DIR
set -uo pipefail
out="${1:?usage: gpu_all.sh OUT_DIR}"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"
export PYTHONUNBUFFERED=1
build=/tmp/lingcast_neural_build
ref=/tmp/lingcast_reference && mkdir -p "$ref"
start=$(date +%s)
stamp() { echo "[$(( $(date +%s) - start )) s] $*"; }
prefix="$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')"
python3 -c 'import torch, transformers; print("torch", torch.__version__, "cuda", torch.version.cuda, "transformers", transformers.__version__)'
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
if ! { cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DLINGCAST_NEURAL_ONLY=ON -DLINGCAST_WERROR=OFF \
         -DCMAKE_PREFIX_PATH="$prefix" && ninja -C "$build" neural_tests neural_bench neural_bench_whisper vits_bench; } \
       >"$out/build.log" 2>&1; then
  grep -E "error|Error" "$out/build.log" | head -30; exit 1
fi
stamp "built; warnings: $(grep -c 'warning:' "$out/build.log")"

for test in "$build"/src/neural/{core,marian,whisper,vits,fastspeech2}/neural_*_test; do
  for suite in $("$test" --gtest_list_tests | grep -E '^[A-Za-z0-9_/]+\.' | awk '{print $1}' | tr -d '.'); do
    timeout 120 "$test" --gtest_filter="$suite.*" >"$ref/suite.log" 2>&1
    rc=$?
    cat "$ref/suite.log" >>"$out/test.log"
    echo "${test##*/} $suite: exit $rc, $(grep -c '^\[       OK' "$ref/suite.log") ok, $(grep -c '^\[  FAILED  \].*\.' "$ref/suite.log") failed, $(grep -c '^\[  SKIPPED \].*\.' "$ref/suite.log") skipped"
    [[ $rc -ge 124 ]] && tail -5 "$ref/suite.log"
  done
done
grep -E "Failure|Expected|Which is|actual|^\[  FAILED  \]" "$out/test.log" | head -40
stamp "tests done"

{
  echo "== Marian: transformers (OPUS-MT base size, greedy 64 tokens)"
  timeout 150 python3 tools/neural/make_marian_fixtures.py --tokenizer src/neural/testdata/marian_tiny --out "$ref" \
    --timing-only cuda 2>&1 | grep -E "reference|Error"
  echo "== Marian: lingcast"
  timeout 150 "$build/bench/neural_bench" 2>&1
  echo "== Whisper: transformers (whisper-small size)"
  timeout 150 python3 tools/neural/make_whisper_fixtures.py --bench --out "$ref" 2>&1 | grep -E "reference|versions|Error"
  echo "== Whisper: lingcast"
  timeout 150 "$build/bench/neural_bench_whisper" 2>&1
  echo "== VITS: transformers (MMS-TTS size)"
  timeout 150 python3 tools/neural/make_vits_fixtures.py --bench "$ref/vits_reference.json" 2>&1 | grep -E "reference|Error" | cut -c1-300
  echo "== VITS: lingcast"
  timeout 150 "$build/bench/vits_bench" "$ref/vits_reference.json" 2>&1
} 2>&1 | tee "$out/bench.log"
stamp "benchmarks done"
