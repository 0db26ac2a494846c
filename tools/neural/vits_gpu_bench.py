#!/usr/bin/env python3
"""The reference side of bench/vits_bench on a GPU, and where VITS's time goes.

Writes into OUT_DIR:
  model/                  random weights at facebook/mms-tts-eng's size (transformers'
                          VitsModel, torch.manual_seed(0), durations nudged to a few frames
                          a token as make_vits_fixtures.py does), saved with save_pretrained:
                          bench/vits_bench loads these same weights
  reference.json          the input ids (121 tokens, seed 0), transformers' timings per dtype,
                          and the profile below
  reference.safetensors   one fp32 synthesis with its recorded noise (duration_noise,
                          prior_noise) and its waveform: vits_bench replays the noise and
                          compares waveforms

Profile (fp32 and fp16 where the reference runs): per stage (text encoder, duration
predictor, flow, decoder) the wall time between device synchronizations, the number of
kernels and their summed device time (torch.profiler), and the heaviest kernels; then the
HiFi-GAN decoder alone on the synthesis's spectrogram, eager against one CUDA graph
replay, with and without cudnn.benchmark, fp32 / fp16 / bf16: the decoder's device-time
floor and what the convolution algorithms are worth.

  python3 tools/neural/vits_gpu_bench.py OUT_DIR [--tokens 121] [--repeats 10]
"""
import argparse
import copy
import json
import os
import sys
import time

import torch
import transformers
from safetensors.torch import save_file
from transformers import VitsConfig, VitsModel

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_vits_fixtures import MMS_TTS_ENG, NoiseRecorder, shape_durations  # noqa: E402

STAGES = ("text_encoder", "duration_predictor", "flow", "decoder")


def log(*args):
    print(*args, flush=True)


def sync():
    if torch.cuda.is_available():
        torch.cuda.synchronize()


def synthesize_seconds(model, ids, repeats, seed0=0):
    """Milliseconds per synthesis and audio seconds, noise from torch's RNG seeded per run."""
    seconds, samples = 0.0, 0
    for i in range(repeats):
        torch.manual_seed(seed0 + i)
        sync()
        start = time.perf_counter()
        out = model(input_ids=ids)
        sync()
        seconds += time.perf_counter() - start
        samples += out.waveform.shape[1]
    audio = samples / model.config.sampling_rate
    return {"seconds": seconds / repeats, "audio_seconds": audio / repeats, "rtf": seconds / audio}


class StageTimer:
    """Synchronizes around each stage and records its wall time (and a profiler range)."""

    def __init__(self, model):
        self.times = {s: [] for s in STAGES}
        self.handles = []
        self.ranges = {}
        for name in STAGES:
            module = getattr(model, name)
            self.handles.append(module.register_forward_pre_hook(self._pre(name)))
            self.handles.append(module.register_forward_hook(self._post(name)))

    def _pre(self, name):
        def hook(module, args):
            torch.cuda.synchronize()
            r = torch.profiler.record_function("stage:" + name)
            r.__enter__()
            self.ranges[name] = (r, time.perf_counter())
        return hook

    def _post(self, name):
        def hook(module, args, output):
            torch.cuda.synchronize()
            r, start = self.ranges.pop(name)
            self.times[name].append(time.perf_counter() - start)
            r.__exit__(None, None, None)
        return hook

    def remove(self):
        for h in self.handles:
            h.remove()


def profile_stages(model, ids, runs=3):
    """Per stage: wall ms (synchronized), kernels launched, summed kernel ms; top kernels."""
    timer = StageTimer(model)
    with torch.no_grad():
        for i in range(runs):
            torch.manual_seed(i)
            model(input_ids=ids)
    for name in STAGES:
        timer.times[name].clear()
    from torch.profiler import ProfilerActivity, profile
    with torch.no_grad(), profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        for i in range(runs):
            torch.manual_seed(i)
            model(input_ids=ids)
        torch.cuda.synchronize()
    timer.remove()
    events = prof.events()
    windows = {s: [] for s in STAGES}
    for e in events:
        if e.name.startswith("stage:"):
            windows[e.name[6:]].append((e.time_range.start, e.time_range.end))
    kernels = [e for e in events if e.device_type == torch.autograd.DeviceType.CUDA]
    result = {}
    for name in STAGES:
        count, device_us = 0, 0.0
        for k in kernels:
            if any(a <= k.time_range.start <= b for a, b in windows[name]):
                count += 1
                device_us += k.time_range.elapsed_us()
        result[name] = {"wall_ms": 1e3 * sum(timer.times[name]) / runs, "kernels": count / runs,
                        "kernel_ms": device_us / 1e3 / runs}
    by_name = {}
    for k in kernels:
        entry = by_name.setdefault(k.name[:90], [0, 0.0])
        entry[0] += 1
        entry[1] += k.time_range.elapsed_us()
    top = sorted(by_name.items(), key=lambda kv: -kv[1][1])[:12]
    result["top_kernels"] = [{"name": n, "calls": c / runs, "ms": us / 1e3 / runs} for n, (c, us) in top]
    return result


def decoder_floor(model, ids, dtype):
    """The decoder alone on one synthesis's spectrogram: eager vs one CUDA graph replay."""
    captured = {}
    hook = model.decoder.register_forward_pre_hook(lambda m, a: captured.setdefault("spec", a[0].detach().clone()))
    with torch.no_grad():
        torch.manual_seed(0)
        model(input_ids=ids)
    hook.remove()
    out = {}
    for cast in (torch.float32, torch.float16, torch.bfloat16):
        if dtype == torch.float16 and cast != torch.float16:
            continue
        decoder = copy.deepcopy(model.decoder).to(cast)
        spec = captured["spec"].to(cast)
        for bench in (False, True):
            torch.backends.cudnn.benchmark = bench
            with torch.no_grad():
                for _ in range(3):
                    decoder(spec)
                torch.cuda.synchronize()
                start = time.perf_counter()
                for _ in range(10):
                    decoder(spec)
                torch.cuda.synchronize()
                eager_ms = (time.perf_counter() - start) * 100
                stream = torch.cuda.Stream()
                stream.wait_stream(torch.cuda.current_stream())
                with torch.cuda.stream(stream):
                    for _ in range(2):
                        decoder(spec)
                torch.cuda.current_stream().wait_stream(stream)
                graph = torch.cuda.CUDAGraph()
                with torch.cuda.graph(graph):
                    decoder(spec)
                graph.replay()
                torch.cuda.synchronize()
                start = time.perf_counter()
                for _ in range(10):
                    graph.replay()
                torch.cuda.synchronize()
                graph_ms = (time.perf_counter() - start) * 100
                del graph
            key = f"{str(cast).replace('torch.', '')}{' cudnn.benchmark' if bench else ''}"
            out[key] = {"eager_ms": eager_ms, "graph_ms": graph_ms}
            log(f"  decoder alone {key}: eager {eager_ms:.2f} ms, CUDA graph {graph_ms:.2f} ms "
                f"(spectrogram {tuple(spec.shape)})")
    torch.backends.cudnn.benchmark = False
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", help="folder for model/, reference.json, reference.safetensors")
    parser.add_argument("--tokens", type=int, default=121, help="input tokens (60 characters with blanks)")
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--no-profile", action="store_true")
    args = parser.parse_args()
    device = "cuda" if torch.cuda.is_available() else "cpu"
    log(f"versions: torch {torch.__version__} cuda {torch.version.cuda} transformers {transformers.__version__} "
        f"cudnn {torch.backends.cudnn.version()} device "
        f"{torch.cuda.get_device_name() if device == 'cuda' else 'cpu (no profile)'}")
    os.makedirs(args.out, exist_ok=True)
    torch.manual_seed(0)
    model = VitsModel(VitsConfig(**MMS_TTS_ENG)).eval()
    shape_durations(model, model.config, None)
    model.save_pretrained(os.path.join(args.out, "model"))
    ids = torch.randint(1, 38, (1, args.tokens), generator=torch.Generator().manual_seed(0))
    ref = {"torch": torch.__version__, "transformers": transformers.__version__, "input_ids": ids.tolist(),
           "timings": {}, "profile": {}}

    for dtype in (torch.float32, torch.float16) if device == "cuda" else (torch.float32,):
        label = str(dtype).replace("torch.", "")
        m = model.to(device=device, dtype=dtype)
        dev_ids = ids.to(device)
        try:
            with torch.no_grad():
                for i in range(3):
                    torch.manual_seed(100 + i)
                    m(input_ids=dev_ids)
                t = synthesize_seconds(m, dev_ids, args.repeats)
        except Exception as e:  # fp16 fails in the reference's duration spline
            log(f"reference transformers cuda {label}: fails: {str(e).splitlines()[0][:200]}")
            ref["timings"][label] = {"error": str(e).splitlines()[0][:200]}
            continue
        ref["timings"][label] = t
        log(f"reference transformers {device} {label}: {t['seconds'] * 1e3:.1f} ms for {t['audio_seconds']:.2f} s "
            f"of audio, rtf {t['rtf']:.4f}")
        if dtype == torch.float32:
            torch.manual_seed(1234)
            with torch.no_grad(), NoiseRecorder() as noise:
                out = m(input_ids=dev_ids)
            save_file({"duration_noise": noise.drawn[0].float().cpu().contiguous(),
                       "prior_noise": noise.drawn[1].float().cpu().contiguous(),
                       "waveform": out.waveform.float().cpu().contiguous()},
                      os.path.join(args.out, "reference.safetensors"))
        if not args.no_profile and device == "cuda":
            p = profile_stages(m, dev_ids)
            for name in STAGES:
                log(f"  {label} {name:18s}: {p[name]['wall_ms']:7.2f} ms wall, {p[name]['kernels']:5.0f} kernels, "
                    f"{p[name]['kernel_ms']:7.2f} ms of kernels")
            for k in p["top_kernels"]:
                log(f"    {k['ms']:7.2f} ms {k['calls']:5.0f}x {k['name']}")
            p["decoder_alone"] = decoder_floor(m, dev_ids, dtype)
            ref["profile"][label] = p
    with open(os.path.join(args.out, "reference.json"), "w") as f:
        json.dump(ref, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
