#!/usr/bin/env bash
# On the GPU machine (PyTorch, CUDA, transformers; none of lingcast's Debian
# packages), in one call:
#  1. a probe: Python's version, whether libcublas.so.12 (what CTranslate2 4.x's
#     wheel dlopens) is anywhere, and, given WHEEL_DIR holding a ctranslate2
#     wheel, whether it imports and translates on the GPU (the tiny Marian fixture
#     converted with ct2-transformers-converter);
#  2. src/neural built alone (LINGCAST_NEURAL_ONLY), while transformers writes a
#     whisper-medium-size checkpoint with random weights;
#  3. bench/neural_memory_bench without and with --warm (the three engines' GPU
#     memory after their CUDA-graph paths; first-call latency, load and warm-up);
#  4. whisper-medium: transformers (fp16, SDPA) then bench/neural_bench_whisper
#     on the same checkpoint and window;
#  5. every neural test suite (each binary once).
# Logs land in OUT_DIR: probe.log, build.log, memory.log, memory_warm.log,
# medium.log, test.log.
#
#   tools/neural/gpu_warm_memory.sh OUT_DIR [WHEEL_DIR]
set -uo pipefail
out="${1:?usage: gpu_warm_memory.sh OUT_DIR [WHEEL_DIR]}"
wheels="${2:-}"
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"
export PYTHONUNBUFFERED=1
build=/tmp/lingcast_neural_build
ckpt=/tmp/lingcast_whisper_medium_random && mkdir -p "$ckpt"
start=$(date +%s)
stamp() { echo "[$(( $(date +%s) - start )) s] $*"; }
prefix="$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')"
python3 -c 'import torch, transformers; print("torch", torch.__version__, "cuda", torch.version.cuda, "transformers", transformers.__version__)'
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader

timeout 300 python3 tools/neural/whisper_size_reference.py make medium "$ckpt" >"$out/medium.log" 2>&1 &
maker=$!
{
  echo "== probe"
  python3 --version
  timeout 90 find / -name 'libcublas.so.12*' 2>/dev/null | head
  echo "(libcublas found elsewhere:)"; timeout 60 find / -name 'libcublas.so*' -not -path '/proc/*' 2>/dev/null | head -5
  if [[ -n "$wheels" ]]; then
    python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/ct2site "$wheels"/*.whl && export PYTHONPATH=/tmp/ct2site
    timeout 120 python3 - <<'PY' 2>&1 | tail -6
import ctranslate2, subprocess, sys
print("ctranslate2", ctranslate2.__version__, "cuda devices", ctranslate2.get_cuda_device_count())
r = subprocess.run([sys.executable, "-m", "ctranslate2.converters.transformers", "--model", "src/neural/testdata/marian_tiny",
                    "--output_dir", "/tmp/ct2_marian_tiny", "--force"], capture_output=True, text=True)
print("convert tiny marian: exit", r.returncode, (r.stderr or r.stdout).strip().splitlines()[-1:] )
t = ctranslate2.Translator("/tmp/ct2_marian_tiny", device="cuda", compute_type="float16")
print("translate on cuda fp16:", t.translate_batch([["▁a", "</s>"]], max_decoding_length=8)[0].hypotheses[0])
PY
  fi
} >"$out/probe.log" 2>&1 &
prober=$!

if ! { cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DLINGCAST_NEURAL_ONLY=ON -DLINGCAST_WERROR=OFF \
         -DCMAKE_PREFIX_PATH="$prefix" && ninja -k 0 -C "$build" neural_tests neural_memory_bench neural_bench_whisper; } \
       >"$out/build.log" 2>&1; then
  grep -E "error|Error" "$out/build.log" | head -30
fi
stamp "built; warnings: $(grep -c 'warning:' "$out/build.log")"
wait "$prober"; cat "$out/probe.log"
timeout 150 "$build/bench/neural_memory_bench" >"$out/memory.log" 2>&1; echo "exit $?" >>"$out/memory.log"
cat "$out/memory.log"
timeout 150 "$build/bench/neural_memory_bench" --warm >"$out/memory_warm.log" 2>&1; echo "exit $?" >>"$out/memory_warm.log"
cat "$out/memory_warm.log"
stamp "memory benches done"
wait "$maker"
stamp "medium checkpoint: $(du -sh "$ckpt" | cut -f1)"
{
  timeout 150 python3 tools/neural/whisper_size_reference.py time "$ckpt" fp16 2>&1 | grep -E "^reference|^versions|Error"
  timeout 100 "$build/bench/neural_bench_whisper" "$ckpt" fp16 2>&1
} | tee -a "$out/medium.log"
stamp "whisper-medium done"
timeout 200 "$repo/tools/neural/run_neural_tests.sh" "$build" >"$out/test.log" 2>&1
echo "neural tests: exit $?"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |Failure|Expected|Which is|actual|tests ran" "$out/test.log" | head -40
stamp "tests done"
