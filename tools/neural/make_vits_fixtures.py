#!/usr/bin/env python3
"""Makes the VITS (MMS-TTS) parity fixtures of src/neural's tests with the reference
implementation (transformers' VitsModel and VitsTokenizer).

Two tiny random-weight checkpoints share one character vocabulary (id 0, the blank
that add_blank puts between characters, is "k" as in facebook/mms-tts-eng; "<unk>"
is not in the vocabulary, as there):
  vits_tiny                stochastic duration predictor, hidden 16, 2 layers, 2 heads,
                           window 4, relu FFN with kernel 3, two HiFi-GAN upsamplers;
                           weight norm saved as torch's parametrizations
                           (parametrizations.weight.original0/1), as transformers 5 saves
  vits_tiny_deterministic  deterministic duration predictor, hidden 24, 3 layers, 3 heads,
                           window 2, gelu FFN with kernel 1, three upsamplers; weight norm
                           renamed to the legacy weight_g / weight_v (as the published MMS
                           checkpoints store it)
Each directory gets what save_pretrained writes, plus:
  reference.json         tokenizer cases; per synthesis case its text, ids, settings,
                         durations (frames per token) and waveform lengths
  reference.safetensors  per case: text-encoder hidden states, prior means and
                         log-variances, the noise the reference drew (duration noise,
                         prior noise), the waveform; and one waveform made with
                         torch.manual_seed alone

Run it on this machine with the CPU venv (torch + transformers):
  /opt/fixtures-venv/bin/python tools/neural/make_vits_fixtures.py --out src/neural/testdata
or anywhere with `pip install torch transformers safetensors`.
With --bench (on a GPU), it instead times transformers on random weights at
facebook/mms-tts-eng's size (fp16 and fp32) for bench/neural_bench's comparison.
"""
import argparse
import json
import math
import os
import sys
import time

import torch

import transformers
from transformers import VitsConfig, VitsModel, VitsTokenizer

import safetensors
from safetensors.torch import load_file, save_file

# MMS-TTS English's characters, with "k" first (it is id 0 there too).
VOCAB_CHARS = ["k", " ", "'", "-", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "l", "m", "n", "o", "p", "q",
               "r", "s", "t", "u", "v", "w", "x", "y", "z", "0", "1", "2", "3"]
TOKENIZER_CASES = [
    "hello world",
    "Hello, World!",
    "  leading and trailing spaces  ",
    "two  spaces",
    "",
    "UPPER lower MiXeD",
    "digits 0123456789 and symbols #@$",
    "café naïve 中文 mixed",
    "don't stop - keep going",
    "...",
    "Kk",
    "a k b",
    "keep",
    " k ",
    "a<unk>b",
    "Ünïcode ÀÉ",
]
CASES = [
    {"name": "hello", "texts": ["hello world"]},
    {"name": "fast", "texts": ["The quick brown fox, jumps!"], "speaking_rate": 1.5, "noise_scale": 0.5,
     "noise_scale_duration": 0.3},
    {"name": "batch", "texts": ["a longer sentence to speak", "short one"]},
    {"name": "special", "texts": ["Keep talking, Kate"]},
]
SEED_FOR_SEEDED_CASE = 1234


def log(*args):
    print(*args, flush=True)


def write_tokenizer(out_dir):
    vocab = {c: i for i, c in enumerate(VOCAB_CHARS)}
    with open(os.path.join(out_dir, "vocab.json"), "w", encoding="utf-8") as f:
        json.dump(vocab, f, ensure_ascii=False, indent=2)
    config = {"tokenizer_class": "VitsTokenizer", "add_blank": True, "normalize": True, "phonemize": False,
              "is_uroman": False, "language": "eng", "pad_token": "k", "unk_token": "<unk>"}
    with open(os.path.join(out_dir, "tokenizer_config.json"), "w", encoding="utf-8") as f:
        json.dump(config, f, ensure_ascii=False, indent=2)
    return VitsTokenizer(vocab_file=os.path.join(out_dir, "vocab.json"), pad_token="k", unk_token="<unk>",
                         language="eng", add_blank=True, normalize=True, phonemize=False, is_uroman=False)


def shape_durations(model, config, gen):
    """Random weights give durations anywhere from 0 to thousands of frames; these
    nudges keep them at a few frames a token, as a trained model's are."""
    with torch.no_grad():
        dp = model.duration_predictor
        if config.use_stochastic_duration_prediction:
            # In reverse the elementwise affine flow is the last step: it sets the
            # scale and centre of the log-durations.
            dp.flows[0].translate.copy_(torch.tensor([[-1.0], [-1.0]]))
            dp.flows[0].log_scale.copy_(torch.tensor([[1.2], [1.2]]))
        else:
            dp.proj.weight.mul_(0.3)
            dp.proj.bias.fill_(0.8)


def randomize(model, seed):
    """Varied weights: layer norms and the affine flow away from their identity
    initialization, so a port that skips them fails."""
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "norm" in name and name.endswith("weight"):
                p.copy_(1.0 + 0.2 * torch.randn(p.shape, generator=gen))
            elif "norm" in name and name.endswith("bias"):
                p.copy_(0.1 * torch.randn(p.shape, generator=gen))
            elif name.endswith("translate") or name.endswith("log_scale"):
                p.copy_(0.2 * torch.randn(p.shape, generator=gen))


class NoiseRecorder:
    """Records what torch.randn / torch.randn_like return while the model runs."""

    def __init__(self):
        self.drawn = []

    def __enter__(self):
        self.randn, self.randn_like = torch.randn, torch.randn_like

        def randn(*args, **kwargs):
            t = self.randn(*args, **kwargs)
            self.drawn.append(t.detach().clone())
            return t

        def randn_like(*args, **kwargs):
            t = self.randn_like(*args, **kwargs)
            self.drawn.append(t.detach().clone())
            return t

        torch.randn, torch.randn_like = randn, randn_like
        return self

    def __exit__(self, *exc):
        torch.randn, torch.randn_like = self.randn, self.randn_like


def run_case(model, tok, case, tensors, seed):
    texts = case["texts"]
    batch = tok(texts, return_tensors="pt", padding=True)
    ids, mask = batch["input_ids"], batch["attention_mask"]
    rate = case.get("speaking_rate", 1.0)
    model.noise_scale = case.get("noise_scale", model.config.noise_scale)
    model.noise_scale_duration = case.get("noise_scale_duration", model.config.noise_scale_duration)
    log_durations = []
    hook = model.duration_predictor.register_forward_hook(lambda m, i, o: log_durations.append(o.detach().clone()))
    torch.manual_seed(seed)
    with torch.no_grad(), NoiseRecorder() as noise:
        out = model(input_ids=ids, attention_mask=mask, speaking_rate=rate)
        enc = model.text_encoder(input_ids=ids, padding_mask=mask.unsqueeze(-1).float(), attention_mask=mask)
    hook.remove()
    # As VitsModel.forward computes them.
    duration = torch.ceil(torch.exp(log_durations[0]) * mask.unsqueeze(1).float() * (1.0 / rate))[:, 0, :]
    # Durations are compared exactly: make sure none sits on a rounding edge.
    scaled = (torch.exp(log_durations[0]) * (1.0 / rate))[:, 0, :][mask.bool()]
    margin = (scaled - torch.round(scaled)).abs().min().item()
    if margin < 1e-3:
        log(f"warning: case {case['name']}: a duration is within {margin} of an integer")
    name = case["name"]
    config = model.config
    if config.use_stochastic_duration_prediction:
        tensors[f"{name}.duration_noise"] = noise.drawn[0].contiguous()
        tensors[f"{name}.prior_noise"] = noise.drawn[1].contiguous()
    else:
        tensors[f"{name}.prior_noise"] = noise.drawn[0].contiguous()
    tensors[f"{name}.hidden"] = enc.last_hidden_state.contiguous()
    tensors[f"{name}.prior_means"] = enc.prior_means.contiguous()
    tensors[f"{name}.prior_log_variances"] = enc.prior_log_variances.contiguous()
    tensors[f"{name}.waveform"] = out.waveform.contiguous()
    return {"name": name, "texts": texts, "input_ids": ids.tolist(), "attention_mask": mask.tolist(),
            "speaking_rate": rate, "noise_scale": model.noise_scale,
            "noise_scale_duration": model.noise_scale_duration,
            "durations": duration.long().tolist(), "sequence_lengths": out.sequence_lengths.tolist(),
            "duration_margin": margin}


def rename_to_legacy_weight_norm(out_dir):
    """parametrizations.weight.original0/1 -> weight_g/weight_v, as the published
    MMS checkpoints name them."""
    path = os.path.join(out_dir, "model.safetensors")
    state = load_file(path)
    renamed = {}
    for k, v in state.items():
        k = k.replace(".parametrizations.weight.original0", ".weight_g")
        k = k.replace(".parametrizations.weight.original1", ".weight_v")
        renamed[k] = v.contiguous()
    save_file(renamed, path, metadata={"format": "pt"})


def build_fixture(name, cfg_kwargs, seed, out_root, legacy_names):
    out_dir = os.path.join(out_root, name)
    os.makedirs(out_dir, exist_ok=True)
    tok = write_tokenizer(out_dir)
    config = VitsConfig(vocab_size=len(VOCAB_CHARS), pad_token_id=0, layerdrop=0.0, hidden_dropout=0.0,
                        attention_dropout=0.0, activation_dropout=0.0, duration_predictor_dropout=0.0,
                        wavenet_dropout=0.0, sampling_rate=16000, **cfg_kwargs)
    torch.manual_seed(seed)
    model = VitsModel(config).eval()
    randomize(model, seed)
    shape_durations(model, config, None)
    model.save_pretrained(out_dir)
    if legacy_names:
        rename_to_legacy_weight_norm(out_dir)
    # What we compare against is the model as loaded from the saved files.
    model = VitsModel.from_pretrained(out_dir).eval()
    tok = VitsTokenizer.from_pretrained(out_dir)

    ref = {"transformers": transformers.__version__, "torch": torch.__version__,
           "safetensors": safetensors.__version__, "hop_length": math.prod(config.upsample_rates),
           "sampling_rate": config.sampling_rate}
    ref["tokenizer_cases"] = [{"text": t, "ids": tok(t)["input_ids"]} for t in TOKENIZER_CASES]
    tensors = {}
    ref["cases"] = [run_case(model, tok, case, tensors, seed + 100 + i) for i, case in enumerate(CASES)]
    # One synthesis with the seed alone, for reference: lingcast's seeded draws are
    # not torch's (libtorch 1.13's CPU randn differs from torch 2's), so the tests
    # replay the recorded noise instead.
    ids = tok(CASES[0]["texts"], return_tensors="pt")["input_ids"]
    model.noise_scale, model.noise_scale_duration = config.noise_scale, config.noise_scale_duration
    torch.manual_seed(SEED_FOR_SEEDED_CASE)
    with torch.no_grad():
        tensors["seeded.waveform"] = model(input_ids=ids).waveform.contiguous()
    ref["seeded"] = {"seed": SEED_FOR_SEEDED_CASE, "input_ids": ids.tolist()}
    save_file(tensors, os.path.join(out_dir, "reference.safetensors"))
    with open(os.path.join(out_dir, "reference.json"), "w", encoding="utf-8") as f:
        json.dump(ref, f, ensure_ascii=False, indent=1)
    for case in ref["cases"]:
        log(f"{name} {case['name']}: durations {case['durations']} samples {case['sequence_lengths']} "
            f"margin {case['duration_margin']:.4f}")
    total = sum(os.path.getsize(os.path.join(out_dir, f)) for f in os.listdir(out_dir))
    log(f"{name}: {total} bytes")


TINY = dict(hidden_size=16, num_hidden_layers=2, num_attention_heads=2, window_size=4, ffn_dim=32,
            ffn_kernel_size=3, flow_size=8, spectrogram_bins=10, hidden_act="relu",
            use_stochastic_duration_prediction=True, upsample_initial_channel=16, upsample_rates=[4, 2],
            upsample_kernel_sizes=[8, 4], resblock_kernel_sizes=[3, 5], resblock_dilation_sizes=[[1, 3], [1, 2]],
            depth_separable_channels=2, depth_separable_num_layers=2, duration_predictor_flow_bins=4,
            duration_predictor_tail_bound=5.0, duration_predictor_kernel_size=3, duration_predictor_num_flows=3,
            duration_predictor_filter_channels=16, prior_encoder_num_flows=2, prior_encoder_num_wavenet_layers=2,
            posterior_encoder_num_wavenet_layers=1, wavenet_kernel_size=3, wavenet_dilation_rate=2,
            leaky_relu_slope=0.1, noise_scale=0.667, noise_scale_duration=0.8)
TINY_DETERMINISTIC = dict(hidden_size=24, num_hidden_layers=3, num_attention_heads=3, window_size=2, ffn_dim=20,
                          ffn_kernel_size=1, flow_size=6, spectrogram_bins=10, hidden_act="gelu",
                          use_stochastic_duration_prediction=False, upsample_initial_channel=12,
                          upsample_rates=[2, 2, 2], upsample_kernel_sizes=[4, 4, 4], resblock_kernel_sizes=[3],
                          resblock_dilation_sizes=[[1, 2, 3]], duration_predictor_kernel_size=5,
                          duration_predictor_filter_channels=20, prior_encoder_num_flows=3,
                          prior_encoder_num_wavenet_layers=3, posterior_encoder_num_wavenet_layers=1,
                          wavenet_kernel_size=5, wavenet_dilation_rate=1, leaky_relu_slope=0.2, layer_norm_eps=1e-4,
                          noise_scale=0.5, noise_scale_duration=0.8)

# facebook/mms-tts-eng's config.json sizes (VitsConfig's defaults, 38 characters).
MMS_TTS_ENG = dict(vocab_size=38, hidden_size=192, num_hidden_layers=6, num_attention_heads=2, window_size=4,
                   ffn_dim=768, ffn_kernel_size=3, flow_size=192, use_stochastic_duration_prediction=True,
                   upsample_initial_channel=512, upsample_rates=[8, 8, 2, 2], upsample_kernel_sizes=[16, 16, 4, 4],
                   resblock_kernel_sizes=[3, 7, 11], resblock_dilation_sizes=[[1, 3, 5]] * 3)


def bench(text_tokens, repeats):
    """Real-time factor of transformers on random weights at MMS-TTS size."""
    results = {}
    device = "cuda" if torch.cuda.is_available() else "cpu"
    for dtype in (torch.float16, torch.float32):
        if device == "cpu" and dtype == torch.float16:
            continue
        try:
            results[str(dtype).replace("torch.", "")] = bench_one(device, dtype, text_tokens, repeats)
        except Exception:  # one dtype failing must not hide the other's figure
            import traceback
            traceback.print_exc()
    return results


def bench_one(device, dtype, text_tokens, repeats):
    """One dtype: milliseconds per synthesis, audio seconds, real-time factor."""
    torch.manual_seed(0)
    model = VitsModel(VitsConfig(**MMS_TTS_ENG)).eval()
    shape_durations(model, model.config, None)  # a few frames a token, as lingcast's Random weights
    model = model.to(device=device, dtype=dtype)
    ids = torch.randint(1, 38, (1, text_tokens), device=device)
    with torch.no_grad():
        for _ in range(3):
            model(input_ids=ids)
        if device == "cuda":
            torch.cuda.synchronize()
        seconds, samples = 0.0, 0
        for _ in range(repeats):
            start = time.perf_counter()
            out = model(input_ids=ids)
            if device == "cuda":
                torch.cuda.synchronize()
            seconds += time.perf_counter() - start
            samples += out.waveform.shape[1]
    audio = samples / 16000
    log(f"reference transformers {device} {dtype}: {seconds / repeats * 1000:.1f} ms for "
        f"{audio / repeats:.2f} s of audio, rtf {seconds / audio:.4f}")
    return {"seconds": seconds / repeats, "audio_seconds": audio / repeats, "rtf": seconds / audio}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", help="folder to write vits_tiny* into (src/neural/testdata)")
    parser.add_argument("--bench", metavar="JSON", help="time transformers at MMS-TTS size and write figures here")
    parser.add_argument("--tokens", type=int, default=121, help="--bench: input tokens (60 characters with blanks)")
    args = parser.parse_args()
    log(f"versions: torch {torch.__version__} transformers {transformers.__version__}")
    if args.bench:
        with open(args.bench, "w") as f:
            json.dump(bench(args.tokens, repeats=10), f, indent=1)
        return
    if not args.out:
        parser.error("--out or --bench is required")
    torch.set_num_threads(1)
    build_fixture("vits_tiny", TINY, 11, args.out, legacy_names=False)
    build_fixture("vits_tiny_deterministic", TINY_DETERMINISTIC, 23, args.out, legacy_names=True)


if __name__ == "__main__":
    sys.exit(main())
