"""transformers' Whisper at a published size with random weights, for the GPU benches.

  whisper_size_reference.py make SIZE CKPT   writes a checkpoint of SIZE (small, medium)
      with random weights (seed 0; fp16 on disk for medium, to halve the write) and one
      30 s window of features (features.safetensors; for small also transformers' fp32
      encoder output of it, "encoder_fp32")
  whisper_size_reference.py time CKPT [fp16]  times transformers on it (SDPA; fp16, and
      fp32 unless "fp16"): the encoder eagerly and as one CUDA graph replay, and
      generate() of exactly 32 tokens after the 4-token prompt; median of 20, wall
      clock with a synchronize, as bench/neural_bench_whisper times ours.
"""
import sys
import time

import torch
import transformers
from safetensors.torch import load_file, save_file
from transformers import GenerationConfig, WhisperConfig, WhisperForConditionalGeneration

SIZES = {
    "small": dict(d_model=768, encoder_layers=12, decoder_layers=12, encoder_attention_heads=12,
                  decoder_attention_heads=12, encoder_ffn_dim=3072, decoder_ffn_dim=3072),
    "medium": dict(d_model=1024, encoder_layers=24, decoder_layers=24, encoder_attention_heads=16,
                   decoder_attention_heads=16, encoder_ffn_dim=4096, decoder_ffn_dim=4096),
}


def make(size, ckpt):
    torch.manual_seed(0)
    config = WhisperConfig(**SIZES[size], vocab_size=51865, num_mel_bins=80, decoder_start_token_id=50258,
                           eos_token_id=50257, pad_token_id=50257)
    model = WhisperForConditionalGeneration(config).eval()
    features = torch.rand(1, 80, 3000) * 2 - 1
    tensors = {"features": features.contiguous()}
    if size == "small":
        # transformers' fp32 encoder output: bench/neural_bench_whisper prints ours' difference from it
        with torch.no_grad():
            tensors["encoder_fp32"] = model.model.encoder(features).last_hidden_state.contiguous()
    else:
        model = model.half()
    model.save_pretrained(ckpt)
    save_file(tensors, ckpt + "/features.safetensors")
    print(f"checkpoint written: whisper-{size} size, {sum(p.numel() for p in model.parameters()) / 1e6:.0f} M parameters",
          flush=True)


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


def timing(ckpt, dtypes):
    print("versions: torch", torch.__version__, "cuda", torch.version.cuda, "transformers", transformers.__version__,
          torch.cuda.get_device_name(), flush=True)
    features = load_file(ckpt + "/features.safetensors")["features"]
    for dtype in dtypes:
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
        print(f"reference transformers, d_model {model.config.d_model}, {model.config.encoder_layers}+"
              f"{model.config.decoder_layers} layers, cuda {name}, sdpa: encoder eager {eager:.3f} ms, encoder as one "
              f"CUDA graph {replay:.3f} ms, generate 32 tokens {generate:.1f} ms", flush=True)
        del model, graph
        torch.cuda.empty_cache()


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2], sys.argv[3])
    else:
        timing(sys.argv[2], [torch.float16] if sys.argv[3:] == ["fp16"] else [torch.float16, torch.float32])
