#!/usr/bin/env python3
"""Where whisper-small's encoder time goes on a 30 s window (fp16), on a GPU.

transformers' WhisperEncoder (SDPA) at whisper-small size with random weights, the
same layer structure lingcast's encoder computes (two convolutions + GELU, 12
pre-norm layers, fused attention): eager time, one CUDA graph replay of it, the
summed device time of its kernels and the heaviest kernels (torch.profiler), and
the arithmetic floor (FLOPs over the measured bf16/fp16 matrix rate). Tells
whether the encoder is launch-bound (graph << eager) or kernel-bound.

  python3 tools/neural/whisper_encoder_look.py
"""
import time

import torch
import transformers
from transformers import WhisperConfig
from transformers.models.whisper.modeling_whisper import WhisperEncoder


def cuda_ms(fn, repeats=50):
    times = []
    for _ in range(repeats):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    times.sort()
    return times[len(times) // 2]


def main():
    print(f"torch {torch.__version__} transformers {transformers.__version__} {torch.cuda.get_device_name()}",
          flush=True)
    torch.manual_seed(0)
    config = WhisperConfig(d_model=768, encoder_layers=12, encoder_attention_heads=12, encoder_ffn_dim=3072,
                           num_mel_bins=80, max_source_positions=1500)
    config._attn_implementation = "sdpa"
    encoder = WhisperEncoder(config).eval().to("cuda", torch.float16)
    features = torch.randn(1, 80, 3000, device="cuda", dtype=torch.float16)
    with torch.no_grad():
        for _ in range(5):
            encoder(features)
        eager = cuda_ms(lambda: encoder(features))
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            for _ in range(3):
                encoder(features)
        torch.cuda.current_stream().wait_stream(stream)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            encoder(features)
        replay = cuda_ms(graph.replay)
        from torch.profiler import ProfilerActivity, profile
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(5):
                graph.replay()
            torch.cuda.synchronize()
    kernels = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
    total = sum(e.time_range.elapsed_us() for e in kernels) / 5 / 1e3
    by_name = {}
    for e in kernels:
        entry = by_name.setdefault(e.name[:80], [0, 0.0])
        entry[0] += 1
        entry[1] += e.time_range.elapsed_us()
    # Matrix work: per layer q,k,v,o (4 d^2), FFN (2 d f), attention (2 T^2 d); the second conv (3 d^2 over T).
    t, d, f = 1500, 768, 3072
    flops = 12 * (2 * t * (4 * d * d + 2 * d * f) + 2 * 2 * t * t * d) + 2 * t * 3 * d * d + 2 * 3000 * 3 * 80 * d
    a = torch.randn(8192, 8192, device="cuda", dtype=torch.float16)
    matmul_ms = cuda_ms(lambda: a @ a, repeats=10)
    rate = 2 * 8192 ** 3 / (matmul_ms / 1e3)
    print(f"encoder fp16, 30 s window: eager {eager:.3f} ms, CUDA graph replay {replay:.3f} ms (median of 50)")
    print(f"  kernels per pass {len(kernels) / 5:.0f}, summed device time {total:.3f} ms")
    print(f"  {flops / 1e9:.0f} GFLOP; fp16 matrix rate here {rate / 1e12:.0f} TFLOP/s -> floor {flops / rate * 1e3:.3f} ms")
    for name, (calls, us) in sorted(by_name.items(), key=lambda kv: -kv[1][1])[:10]:
        print(f"    {us / 5 / 1e3:7.3f} ms {calls / 5:4.0f}x {name}")


if __name__ == "__main__":
    main()
