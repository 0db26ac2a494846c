#!/usr/bin/env bash
# On the GPU machine (PyTorch, CUDA, transformers; none of lingcast's Debian
# packages), in one call: Whisper's encoder, ours (eager and as a CUDA graph)
# beside transformers', on the SAME weights and input.
#
#  1. transformers makes a whisper-small-size model with random weights (seed 0)
#     and saves it as a checkpoint (config.json, model.safetensors) with one 30 s
#     window of features and its fp32 encoder output (features.safetensors),
#     while src/neural, its tests and bench/neural_bench_whisper are built
#     (LINGCAST_NEURAL_ONLY).
#  2. transformers is timed on that checkpoint, fp16 and fp32, SDPA: the encoder
#     eagerly and as one CUDA graph replay, and generate() of exactly 32 tokens
#     after the 4-token prompt (median of 20, wall clock with a synchronize, as
#     the bench times ours).
#  3. bench/neural_bench_whisper on the same checkpoint: encoder default path (a
#     CUDA graph) and eager, decode and generate.
#  4. The Whisper test suites (CPU and CUDA).
# Logs land in OUT_DIR: build.log, reference.log, bench.log, test.log.
#
#   tools/neural/gpu_encoder.sh OUT_DIR
set -uo pipefail
out="${1:?usage: gpu_encoder.sh OUT_DIR}"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"
export PYTHONUNBUFFERED=1
build=/tmp/lingcast_neural_build
ckpt=/tmp/lingcast_whisper_small_random && mkdir -p "$ckpt"
start=$(date +%s)
stamp() { echo "[$(( $(date +%s) - start )) s] $*"; }
prefix="$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader

reference="$repo/tools/neural/whisper_size_reference.py"

timeout 200 python3 "$reference" make small "$ckpt" >"$out/reference.log" 2>&1 &
maker=$!
if ! { cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DLINGCAST_NEURAL_ONLY=ON -DLINGCAST_WERROR=OFF \
         -DCMAKE_PREFIX_PATH="$prefix" && ninja -C "$build" neural_tests neural_bench_whisper; } \
       >"$out/build.log" 2>&1; then
  grep -E "error|Error" "$out/build.log" | head -30; exit 1
fi
stamp "built; warnings: $(grep -c 'warning:' "$out/build.log")"
wait "$maker"
stamp "checkpoint: exit $?, $(du -sh "$ckpt" | cut -f1)"
timeout 150 python3 "$reference" time "$ckpt" 2>&1 | grep -vE "^\[transformers\]|Warning|warn|Loading weights" | tee -a "$out/reference.log"
stamp "reference done"
timeout 150 "$build/bench/neural_bench_whisper" "$ckpt" 2>&1 | tee "$out/bench.log"
stamp "bench done"
timeout 150 "$repo/tools/neural/run_neural_tests.sh" "$build" --gtest_filter='Whisper*:*Whisper*' >"$out/test.log" 2>&1
echo "tests (Whisper*): exit $?"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |Failure|Expected|Which is|actual|capture" "$out/test.log" | head -30
stamp "tests done"
