#!/usr/bin/env python3
"""Makes the Whisper parity fixtures of src/neural's tests with the reference
implementation (transformers' WhisperForConditionalGeneration, WhisperTokenizer
and WhisperFeatureExtractor).

Two tiny random-weight checkpoints, each with a tiny byte-level BPE tokenizer of
its own (the 256 byte symbols, merges learned here from a few sentences, and all
of Whisper's special tokens in Whisper's order: <|endoftext|>,
<|startoftranscript|>, the language tokens, <|translate|>, <|transcribe|>,
<|startoflm|>, <|startofprev|>, <|nospeech|>, <|notimestamps|>, <|0.00|> ..
<|30.00|>):
  whisper_tiny      80 mel bins, 99 languages (as v1/v2), d_model 32, 2+2 layers,
                    4 heads; tokenizer as vocab.json + merges.txt + added_tokens.json
  whisper_tiny_v3   128 mel bins, 100 languages (as large-v3), d_model 32, 2+2
                    layers; tokenizer as tokenizer.json only
Each directory gets config.json, generation_config.json, preprocessor_config.json,
model.safetensors, the tokenizer files, and the reference outputs:
  reference.json         tokenizer cases, generate() runs (greedy, beams, timestamps,
                         translate, detected language), language probabilities,
                         no-speech probabilities
  reference.safetensors  the input audio, mel features (first frames + the padding
                         value), encoder output, teacher-forced logits (F32)

Runs on any machine with torch and transformers (CPU is enough):
  python3 tools/neural/make_whisper_fixtures.py --out src/neural/testdata
whisper_tiny's generation_config.json has alignment_heads; its word-timestamp
reference comes from make_whisper_word_timestamp_fixtures.py (run it after this).
With --bench it only times transformers at whisper-small size (GPU when present;
tools/neural/gpu_all.sh runs it beside bench/neural_bench_whisper.cc).
"""
import argparse
import collections
import json
import os
import shutil
import sys

import numpy as np
import regex
import torch
import transformers
from safetensors.torch import save_file
from transformers import (GenerationConfig, WhisperConfig, WhisperFeatureExtractor, WhisperForConditionalGeneration,
                          WhisperTokenizer)
from transformers.models.whisper.tokenization_whisper import LANGUAGES

CORPUS = [
    "hello everyone, welcome to our live stream!",
    "today every order ships for free.",
    "the quick brown fox jumps over the lazy dog",
    "大家好，欢迎来到我们的直播间！",
    "今天所有订单都包邮。",
    "it's 3 o'clock and we're live",
]
TOKENIZER_CASES = [
    "hello everyone",
    " welcome to the stream!",
    "大家好，欢迎",
    "It's 10:30   and we'll   see\n\nyou",
    "emoji 🎉 and ünïcödé",
    "<|startoftranscript|><|en|> hello",
    "",
]
NUM_MERGES = 120
MAX_NEW_TOKENS = 24
PATTERN = regex.compile(r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""")


def bytes_to_unicode():
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, [chr(c) for c in cs]))


def train_bpe():
    """A few byte-level BPE merges from CORPUS (most frequent pair first)."""
    b2u = bytes_to_unicode()
    words = collections.Counter()
    for line in CORPUS:
        for piece in PATTERN.findall(line):
            words[tuple(b2u[b] for b in piece.encode("utf-8"))] += 1
    vocab = {b2u[b]: i for i, b in enumerate(sorted(b2u))}
    merges = []
    while len(merges) < NUM_MERGES:
        pairs = collections.Counter()
        for word, count in words.items():
            for a, b in zip(word, word[1:]):
                pairs[(a, b)] += count
        if not pairs:
            break
        (a, b), _ = max(pairs.items(), key=lambda kv: (kv[1], kv[0]))
        merges.append((a, b))
        vocab[a + b] = len(vocab)
        merged = collections.Counter()
        for word, count in words.items():
            out, i = [], 0
            while i < len(word):
                if i + 1 < len(word) and word[i] == a and word[i + 1] == b:
                    out.append(a + b)
                    i += 2
                else:
                    out.append(word[i])
                    i += 1
            merged[tuple(out)] += count
        words = merged
    return vocab, merges


def special_tokens(num_languages):
    languages = list(LANGUAGES.keys())[:num_languages]
    specials = ["<|endoftext|>", "<|startoftranscript|>"] + [f"<|{code}|>" for code in languages]
    specials += ["<|translate|>", "<|transcribe|>", "<|startoflm|>", "<|startofprev|>", "<|nospeech|>", "<|notimestamps|>"]
    timestamps = [f"<|{i * 0.02:.2f}|>" for i in range(1501)]
    return specials, timestamps, languages


def write_tokenizer(out, num_languages, files):
    vocab, merges = train_bpe()
    specials, timestamps, languages = special_tokens(num_languages)
    added = {}
    for content in specials + timestamps:
        added[content] = len(vocab) + len(added)
    os.makedirs(out, exist_ok=True)
    if files == "vocab":
        with open(os.path.join(out, "vocab.json"), "w", encoding="utf-8") as f:
            json.dump(vocab, f, ensure_ascii=False)
        with open(os.path.join(out, "merges.txt"), "w", encoding="utf-8") as f:
            f.write("#version: 0.2\n" + "".join(f"{a} {b}\n" for a, b in merges))
        with open(os.path.join(out, "added_tokens.json"), "w", encoding="utf-8") as f:
            json.dump(added, f, ensure_ascii=False)
    # The reference tokenizer, built from the same vocabulary and merges.
    tok = WhisperTokenizer(vocab=dict(vocab), merges=list(merges))
    tok.add_special_tokens({"additional_special_tokens": specials[1:]})
    tok.add_tokens(timestamps)
    for content, id_ in added.items():
        assert tok.convert_tokens_to_ids(content) == id_, (content, id_, tok.convert_tokens_to_ids(content))
    if files == "tokenizer.json":
        tok.save_pretrained(out)
        for name in ("vocab.json", "merges.txt", "added_tokens.json", "special_tokens_map.json"):
            if os.path.exists(os.path.join(out, name)):
                os.remove(os.path.join(out, name))
        tok = WhisperTokenizer.from_pretrained(out)
    return tok, added, languages


def randomize(model, seed):
    """Peaked outputs: argmax and beam choices far from ties, so that a correct port
    reproduces the sequences exactly."""
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "embed_positions" in name and "encoder" in name:
                continue  # the sinusoids, as published
            if p.dim() >= 2:
                fan_in = p[0].numel()
                std = fan_in ** -0.5
                if "embed_tokens" in name:
                    std = 0.5
                elif "embed_positions" in name:
                    std = 1.0
                elif "fc2" in name or "out_proj" in name:
                    std = 2.0 * fan_in ** -0.5
                p.copy_(torch.randn(p.shape, generator=gen) * std)
            elif name.endswith("layer_norm.weight"):
                p.copy_(1.0 + 0.1 * torch.randn(p.shape, generator=gen))
            else:
                p.copy_(0.05 * torch.randn(p.shape, generator=gen))


def test_audio(seed, seconds):
    rng = np.random.default_rng(seed)
    t = np.arange(int(16000 * seconds)) / 16000.0
    chirp = 0.3 * np.sin(2 * np.pi * (200 + 900 * t) * t)
    bursts = (np.sin(2 * np.pi * 3 * t) > 0.2) * 0.2 * np.sin(2 * np.pi * 1500 * t)
    return (chirp + bursts + 0.02 * rng.standard_normal(t.shape)).astype(np.float32)


MEL_HEAD_FRAMES = 240


def make_checkpoint(out, name, mel_bins, num_languages, tokenizer_files, seed, audios, runs, alignment_heads=None):
    d = os.path.join(out, name)
    shutil.rmtree(d, ignore_errors=True)
    tok, added, languages = write_tokenizer(d, num_languages, tokenizer_files)
    vocab_size = len(tok)
    eot = added["<|endoftext|>"]
    sot = added["<|startoftranscript|>"]
    no_ts = added["<|notimestamps|>"]
    space = tok.convert_tokens_to_ids("Ġ")
    config = WhisperConfig(vocab_size=vocab_size, num_mel_bins=mel_bins, encoder_layers=2, encoder_attention_heads=4,
                           decoder_layers=2, decoder_attention_heads=4, encoder_ffn_dim=64, decoder_ffn_dim=64,
                           d_model=32, max_source_positions=1500, max_target_positions=448, pad_token_id=eot,
                           bos_token_id=eot, eos_token_id=eot, decoder_start_token_id=sot,
                           suppress_tokens=None, begin_suppress_tokens=None)
    torch.manual_seed(seed)
    model = WhisperForConditionalGeneration(config).eval()
    randomize(model, seed)
    suppress = sorted({tok.convert_tokens_to_ids(t) for t in ["!", "\"", "#", "(", ")", "Ġ(", "["]} |
                      {added[t] for t in ["<|translate|>", "<|transcribe|>", "<|startoflm|>", "<|startofprev|>",
                                          "<|startoftranscript|>", "<|nospeech|>"]})
    gc = GenerationConfig(decoder_start_token_id=sot, eos_token_id=eot, pad_token_id=eot, bos_token_id=eot,
                          max_length=448, suppress_tokens=suppress, begin_suppress_tokens=[space, eot],
                          lang_to_id={f"<|{c}|>": added[f"<|{c}|>"] for c in languages},
                          task_to_id={"transcribe": added["<|transcribe|>"], "translate": added["<|translate|>"]},
                          no_timestamps_token_id=no_ts, is_multilingual=True, max_initial_timestamp_index=50,
                          return_timestamps=False)
    if alignment_heads:
        gc.alignment_heads = alignment_heads  # word timestamps (make_whisper_word_timestamp_fixtures.py)
    model.generation_config = gc
    model.save_pretrained(d)
    fe = WhisperFeatureExtractor(feature_size=mel_bins)
    fe.save_pretrained(d)

    reference = {"versions": {"torch": torch.__version__, "transformers": transformers.__version__},
                 "max_new_tokens": MAX_NEW_TOKENS, "mel_head_frames": MEL_HEAD_FRAMES, "inputs": [], "tokenizer": []}
    tensors = {}
    for text in TOKENIZER_CASES:
        ids = tok.encode(text, add_special_tokens=False)
        reference["tokenizer"].append({"text": text, "ids": ids, "decoded": tok.decode(ids, skip_special_tokens=True),
                                       "decoded_special": tok.decode(ids, skip_special_tokens=False)})
    for i, audio in enumerate(audios):
        feats = fe(audio, sampling_rate=16000, return_tensors="pt").input_features
        tail = feats[0, :, MEL_HEAD_FRAMES + len(audio) // 160 + 2:]
        assert torch.all(tail == tail.flatten()[0]), "the padding frames are not constant"
        tensors[f"audio_{i}"] = torch.from_numpy(audio)
        tensors[f"mel_head_{i}"] = feats[0, :, :MEL_HEAD_FRAMES].contiguous()
        entry = {"samples": len(audio), "mel_padding_value": float(tail.flatten()[0]), "generate": []}
        with torch.no_grad():
            enc = model.model.encoder(feats).last_hidden_state
            if i == 0:
                tensors["encoder_hidden_0"] = enc[0].contiguous()
            logits = model(encoder_outputs=(enc,), decoder_input_ids=torch.tensor([[sot]])).logits[0, -1]
            lang_ids = [added[f"<|{c}|>"] for c in languages]
            probs = torch.softmax(logits[lang_ids].double(), -1)
            entry["language_probs"] = {c: float(p) for c, p in zip(languages, probs)}
            entry["detected_language_id"] = int(model.detect_language(feats)[0])
            entry["no_speech_prob"] = float(torch.softmax(logits.float(), -1)[no_ts - 1])
        for run in runs:
            kwargs = dict(max_new_tokens=MAX_NEW_TOKENS, num_beams=run.get("num_beams", 1),
                          return_timestamps=run.get("timestamps", False), task=run.get("task", "transcribe"))
            if run.get("language"):
                kwargs["language"] = run["language"]
            with torch.no_grad():
                out = model.generate(feats, return_dict_in_generate=True, force_unique_generate_call=True, **kwargs)
            seq = out.sequences[0].tolist()
            entry["generate"].append({"params": run, "sequence": seq,
                                      "text": tok.decode(seq, skip_special_tokens=True),
                                      "text_with_timestamps": tok.decode(seq, skip_special_tokens=False)})
            print(name, i, run, seq, flush=True)
        # Teacher-forced logits over the first greedy run's sequence.
        seq = torch.tensor([entry["generate"][0]["sequence"]])
        with torch.no_grad():
            tensors[f"teacher_forced_logits_{i}"] = model(input_features=feats, decoder_input_ids=seq).logits[0].contiguous()
        entry["teacher_forced_ids"] = seq[0].tolist()
        reference["inputs"].append(entry)
    save_file(tensors, os.path.join(d, "reference.safetensors"))
    with open(os.path.join(d, "reference.json"), "w", encoding="utf-8") as f:
        json.dump(reference, f, ensure_ascii=False, indent=1)
    size = sum(os.path.getsize(os.path.join(d, f)) for f in os.listdir(d))
    print(f"{name}: {size / 1e6:.2f} MB", flush=True)


def bench_reference():
    """transformers at whisper-small size (random weights), fp16 and fp32, SDPA, on
    the GPU when there is one: the encoder on a 30 s window, and generate() of
    exactly 32 tokens after the 4-token prompt (<|endoftext|> suppressed), median
    of 20 runs. The figures bench/neural_bench_whisper.cc is compared with."""
    import time
    device = "cuda" if torch.cuda.is_available() else "cpu"
    config = WhisperConfig(d_model=768, encoder_layers=12, decoder_layers=12, encoder_attention_heads=12,
                           decoder_attention_heads=12, encoder_ffn_dim=3072, decoder_ffn_dim=3072, vocab_size=51865,
                           num_mel_bins=80, decoder_start_token_id=50258, eos_token_id=50257, pad_token_id=50257)
    features = torch.rand(1, 80, 3000) * 2 - 1
    results = {}
    for dtype in ([torch.float16, torch.float32] if device == "cuda" else [torch.float32]):
        model = WhisperForConditionalGeneration(config).to(device, dtype).eval()
        model.config._attn_implementation = "sdpa"
        model.generation_config = GenerationConfig(
            decoder_start_token_id=50258, eos_token_id=50257, pad_token_id=50257, suppress_tokens=[50257],
            lang_to_id={"<|en|>": 50259}, task_to_id={"transcribe": 50359, "translate": 50358},
            no_timestamps_token_id=50363, is_multilingual=True, max_length=448)
        x = features.to(device, dtype)

        def median_ms(f, runs=20 if device == "cuda" else 2):
            f()
            times = []
            for _ in range(runs):
                if device == "cuda":
                    torch.cuda.synchronize()
                t0 = time.perf_counter()
                f()
                if device == "cuda":
                    torch.cuda.synchronize()
                times.append((time.perf_counter() - t0) * 1e3)
            return sorted(times)[len(times) // 2]

        with torch.no_grad():
            encoder = median_ms(lambda: model.model.encoder(x))
            out = model.generate(x, language="en", task="transcribe", max_new_tokens=32)
            assert out.shape[-1] >= 32, out.shape
            generate = median_ms(lambda: model.generate(x, language="en", task="transcribe", max_new_tokens=32))
        name = str(dtype).replace("torch.", "")
        results[name] = {"encoder_ms": encoder, "generate_ms": generate, "decode_ms": generate - encoder}
        print(f"reference transformers whisper-small size (random), {device} {name}, sdpa: encoder {encoder:.2f} ms, "
              f"generate 32 tokens {generate:.1f} ms (decode ~{generate - encoder:.1f} ms)", flush=True)
    return results


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--bench", action="store_true", help="only time transformers at whisper-small size")
    args = parser.parse_args()
    print("versions: torch", torch.__version__, "transformers", transformers.__version__)
    if args.bench:
        with open(os.path.join(args.out, "reference_speed_whisper.json"), "w") as f:
            json.dump(bench_reference(), f, indent=1)
        return 0
    runs = [
        {"language": "en"},
        {"language": "zh"},
        {},  # the language detected
        {"language": "zh", "task": "translate"},
        {"language": "en", "num_beams": 3},
        {"language": "en", "timestamps": True},
        {"language": "zh", "timestamps": True, "num_beams": 2},
    ]
    make_checkpoint(args.out, "whisper_tiny", 80, 99, "vocab", 1, [test_audio(1, 2.0), test_audio(2, 1.5)], runs,
                    alignment_heads=[[0, 2], [1, 0], [1, 3]])
    make_checkpoint(args.out, "whisper_tiny_v3", 128, 100, "tokenizer.json", 2, [test_audio(3, 2.0)], runs[:3] + runs[5:6])


if __name__ == "__main__":
    sys.exit(main())
