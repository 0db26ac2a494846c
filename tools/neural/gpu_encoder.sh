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

cat >/tmp/whisper_encoder_reference.py <<'EOF'
import sys
import time

import torch
import transformers
from safetensors.torch import load_file, save_file
from transformers import GenerationConfig, WhisperConfig, WhisperForConditionalGeneration

mode, ckpt = sys.argv[1], sys.argv[2]
if mode == "make":
    torch.manual_seed(0)
    config = WhisperConfig(d_model=768, encoder_layers=12, decoder_layers=12, encoder_attention_heads=12,
                           decoder_attention_heads=12, encoder_ffn_dim=3072, decoder_ffn_dim=3072, vocab_size=51865,
                           num_mel_bins=80, decoder_start_token_id=50258, eos_token_id=50257, pad_token_id=50257)
    model = WhisperForConditionalGeneration(config).eval()
    model.save_pretrained(ckpt)
    features = torch.rand(1, 80, 3000) * 2 - 1
    with torch.no_grad():
        encoded = model.model.encoder(features).last_hidden_state
    save_file({"features": features.contiguous(), "encoder_fp32": encoded.contiguous()}, ckpt + "/features.safetensors")
    print("checkpoint written", flush=True)
    sys.exit(0)

print("versions: torch", torch.__version__, "cuda", torch.version.cuda, "transformers", transformers.__version__,
      torch.cuda.get_device_name())
features = load_file(ckpt + "/features.safetensors")["features"]


def median_ms(f, runs=20):
    f()
    times = []
    for _ in range(runs):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        f()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - t0) * 1e3)
    return sorted(times)[len(times) // 2]


for dtype in [torch.float16, torch.float32]:
    model = WhisperForConditionalGeneration.from_pretrained(ckpt, attn_implementation="sdpa").to("cuda", dtype).eval()
    model.generation_config = GenerationConfig(
        decoder_start_token_id=50258, eos_token_id=50257, pad_token_id=50257, suppress_tokens=[50257],
        lang_to_id={"<|en|>": 50259}, task_to_id={"transcribe": 50359, "translate": 50358},
        no_timestamps_token_id=50363, is_multilingual=True, max_length=448)
    x = features.to("cuda", dtype)
    encoder = model.model.encoder
    with torch.no_grad():
        eager = median_ms(lambda: encoder(x))
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            for _ in range(3):
                encoder(x)
        torch.cuda.current_stream().wait_stream(stream)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            encoder(x)
        replay = median_ms(graph.replay)
        out = model.generate(x, language="en", task="transcribe", max_new_tokens=32)
        assert out.shape[-1] >= 32, out.shape
        generate = median_ms(lambda: model.generate(x, language="en", task="transcribe", max_new_tokens=32))
    name = str(dtype).replace("torch.", "")
    print(f"reference transformers, cuda {name}, sdpa: encoder eager {eager:.3f} ms, encoder as one CUDA graph "
          f"{replay:.3f} ms, generate 32 tokens {generate:.1f} ms", flush=True)
    del model, graph
    torch.cuda.empty_cache()
EOF

timeout 200 python3 /tmp/whisper_encoder_reference.py make "$ckpt" >"$out/reference.log" 2>&1 &
maker=$!
if ! { cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DLINGCAST_NEURAL_ONLY=ON -DLINGCAST_WERROR=OFF \
         -DCMAKE_PREFIX_PATH="$prefix" && ninja -C "$build" neural_test neural_bench_whisper; } \
       >"$out/build.log" 2>&1; then
  grep -E "error|Error" "$out/build.log" | head -30; exit 1
fi
stamp "built; warnings: $(grep -c 'warning:' "$out/build.log")"
wait "$maker"
stamp "checkpoint: exit $?, $(du -sh "$ckpt" | cut -f1)"
timeout 150 python3 /tmp/whisper_encoder_reference.py time "$ckpt" 2>&1 | grep -vE "^\[transformers\]|Warning|warn|Loading weights" | tee -a "$out/reference.log"
stamp "reference done"
timeout 150 "$build/bench/neural_bench_whisper" "$ckpt" 2>&1 | tee "$out/bench.log"
stamp "bench done"
timeout 150 "$build/src/neural/neural_test" --gtest_filter='Whisper*:*Whisper*' >"$out/test.log" 2>&1
echo "tests (Whisper*): exit $?"
grep -E "^\[  (PASSED|FAILED|SKIPPED) |Failure|Expected|Which is|actual|capture" "$out/test.log" | head -30
stamp "tests done"
