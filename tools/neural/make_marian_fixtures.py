#!/usr/bin/env python3
"""Makes the Marian parity fixtures of src/neural's tests with the reference
implementation (transformers' MarianMTModel and MarianTokenizer).

Two tiny random-weight checkpoints share the tokenizer of make_tiny_spm.sh:
  marian_tiny          d_model 32, 2+2 layers, 4 heads, swish, scaled embeddings,
                       one model.safetensors
  marian_tiny_sharded  d_model 16, 1+1 layers, 2 heads, gelu, unscaled embeddings,
                       an output projection of its own (lm_head.weight, not tied),
                       saved in shards (model.safetensors.index.json)
Each directory gets what save_pretrained writes, plus the reference outputs:
  reference.json         tokenizer cases, inputs, greedy and beam sequences, decoded text
  reference.safetensors  encoder output, first-step logits, teacher-forced logits (F32),
                         and small F16/BF16/I64 probes of known values

It also times transformers on random weights at OPUS-MT base size (fp16, SDPA) when a
GPU is present, as the reference figure for bench/neural_bench.cc.

  python3 tools/neural/make_marian_fixtures.py --tokenizer src/neural/testdata/marian_tiny --out DIR
"""
import argparse
import json
import os
import shutil
import sys
import time
import traceback

import torch

import transformers
from transformers import MarianConfig, MarianMTModel

import safetensors
from safetensors.torch import save_file

SENTENCES = [
    "大家好，欢迎来到我们的直播间！",
    "今天所有订单都包邮。",
    "你好，世界。",
    "这是一个没见过的句子：手机壳。",
]
TOKENIZER_CASES = [
    "大家好，欢迎来到我们的直播间！",
    "今天天气很好",
    "  两个空格  ",
    "",
    "English words 和中文",
    "完全陌生的字：龘靐",
]
TARGET_CASES = ["Hello everyone, welcome to our live stream!", "See you tomorrow."]
MAX_NEW_TOKENS = 16


def log(*args):
    print(*args, flush=True)


def randomize(model, seed, eos_id, embed_std, sublayer_gain, eos_bias):
    """Weights that make varied, peaked outputs: argmax and beam choices far from
    ties (so a correct port reproduces the sequences exactly), sublayer outputs
    that outweigh the token embedding in the residual stream (else the tied output
    projection just repeats the input token), and an eos bias so that some
    sentences end before the length limit."""
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "embed_positions" in name:
                continue
            if p.dim() == 2:
                if "shared" in name or "embed_tokens" in name or "lm_head" in name:
                    std = embed_std
                elif "fc2" in name or "out_proj" in name:
                    std = sublayer_gain * p.shape[1] ** -0.5
                else:
                    std = p.shape[1] ** -0.5
                p.copy_(torch.randn(p.shape, generator=gen) * std)
            elif name.endswith("layer_norm.weight"):
                p.copy_(1.0 + 0.1 * torch.randn(p.shape, generator=gen))
            else:
                p.copy_(0.1 * torch.randn(p.shape, generator=gen))
        bias = 0.5 * torch.randn(model.final_logits_bias.shape, generator=gen)
        bias[0, eos_id] += eos_bias
        model.final_logits_bias.copy_(bias)


def make_tokenizer(tok_dir):
    from transformers import MarianTokenizer
    return MarianTokenizer(
        vocab=os.path.join(tok_dir, "vocab.json"),
        source_spm=os.path.join(tok_dir, "source.spm"),
        target_spm=os.path.join(tok_dir, "target.spm"),
        source_lang="zh", target_lang="en")


def strip_pad(seq, pad_id):
    seq = list(seq)
    while len(seq) > 1 and seq[-1] == pad_id:
        seq.pop()
    return seq


def generate(model, input_ids, attention_mask, **kw):
    out = model.generate(input_ids=input_ids, attention_mask=attention_mask, do_sample=False,
                         max_new_tokens=MAX_NEW_TOKENS, **kw)
    return out.tolist()


def build_fixture(name, cfg_kwargs, seed, tok_dir, out_root, shard, init):
    vocab = json.load(open(os.path.join(tok_dir, "vocab.json"), encoding="utf-8"))
    pad_id, eos_id = vocab["<pad>"], vocab["</s>"]
    config = MarianConfig(vocab_size=len(vocab), pad_token_id=pad_id, eos_token_id=eos_id,
                          decoder_start_token_id=pad_id, forced_eos_token_id=eos_id,
                          max_position_embeddings=64, dropout=0.0, attention_dropout=0.0,
                          activation_dropout=0.0, bad_words_ids=[[pad_id]], num_beams=1, **cfg_kwargs)
    torch.manual_seed(seed)
    model = MarianMTModel(config).eval()
    randomize(model, seed, eos_id, **init)
    out_dir = os.path.join(out_root, name)
    os.makedirs(out_dir, exist_ok=True)
    if shard:
        model.save_pretrained(out_dir, max_shard_size="40KB")
    else:
        model.save_pretrained(out_dir)
    for f in ("source.spm", "target.spm", "vocab.json"):
        shutil.copy(os.path.join(tok_dir, f), os.path.join(out_dir, f))

    ref = {"transformers": transformers.__version__, "torch": torch.__version__,
           "safetensors": safetensors.__version__, "max_new_tokens": MAX_NEW_TOKENS,
           "pad_token_id": pad_id, "eos_token_id": eos_id, "sentences": SENTENCES}
    tensors = {}
    try:
        tok = make_tokenizer(tok_dir)
        tok.save_pretrained(out_dir)
        for f in ("source.spm", "target.spm", "vocab.json"):  # keep ours byte for byte
            shutil.copy(os.path.join(tok_dir, f), os.path.join(out_dir, f))
        ref["tokenizer_cases"] = [{"text": t, "ids": tok(t)["input_ids"]} for t in TOKENIZER_CASES]
        ref["target_cases"] = [{"text": t, "ids": tok(text_target=t)["input_ids"]} for t in TARGET_CASES]
        batch = tok(SENTENCES, return_tensors="pt", padding=True)
        ids, mask = batch["input_ids"], batch["attention_mask"]
        ref["tokenizer"] = "MarianTokenizer"
    except Exception:
        traceback.print_exc()
        tok = None
        ref["tokenizer"] = "unavailable"
        import sentencepiece as spm
        sp = spm.SentencePieceProcessor(model_file=os.path.join(tok_dir, "source.spm"))
        rows = [[vocab.get(p, 1) for p in sp.encode(s, out_type=str)] + [eos_id] for s in SENTENCES]
        width = max(len(r) for r in rows)
        ids = torch.tensor([r + [pad_id] * (width - len(r)) for r in rows])
        mask = torch.tensor([[1] * len(r) + [0] * (width - len(r)) for r in rows])
    ref["input_ids"] = ids.tolist()
    ref["attention_mask"] = mask.tolist()

    with torch.no_grad():
        enc = model.get_encoder()(input_ids=ids, attention_mask=mask).last_hidden_state
        tensors["encoder_hidden"] = enc.contiguous()
        start = torch.full((ids.shape[0], 1), pad_id, dtype=torch.long)
        first = model(input_ids=ids, attention_mask=mask, decoder_input_ids=start).logits
        tensors["first_step_logits"] = first[:, 0, :].contiguous()

    runs = {
        "greedy": dict(num_beams=1),
        "beam4": dict(num_beams=4, length_penalty=1.0, early_stopping=False),
        "beam3_lp2_early": dict(num_beams=3, length_penalty=2.0, early_stopping=True),
        "beam4_lp0.6": dict(num_beams=4, length_penalty=0.6, early_stopping=False),
    }
    common = dict(bad_words_ids=[[pad_id]], forced_eos_token_id=eos_id, eos_token_id=eos_id,
                  pad_token_id=pad_id, decoder_start_token_id=pad_id)
    ref["generate"] = {}
    for run_name, kw in runs.items():
        seqs = generate(model, ids, mask, **kw, **common)
        single = [generate(model, ids[i:i + 1, :int(mask[i].sum())], mask[i:i + 1, :int(mask[i].sum())],
                           **kw, **common)[0] for i in range(ids.shape[0])]
        entry = {"params": kw, "batch": [strip_pad(s, pad_id) for s in seqs],
                 "single": [strip_pad(s, pad_id) for s in single]}
        if tok is not None:
            entry["text"] = tok.batch_decode(seqs, skip_special_tokens=True)
        ref["generate"][run_name] = entry
        log(name, run_name, entry["batch"])

    # Teacher-forced logits over the greedy output: every decoder position at once,
    # which a KV-cached step-by-step decoder must reproduce.
    greedy = ref["generate"]["greedy"]["batch"]
    width = max(len(s) for s in greedy)
    dec = torch.tensor([s + [pad_id] * (width - len(s)) for s in greedy])
    with torch.no_grad():
        tensors["teacher_forced_logits"] = model(input_ids=ids, attention_mask=mask,
                                                 decoder_input_ids=dec).logits.contiguous()
    ref["teacher_forced_decoder_input_ids"] = dec.tolist()

    probe = torch.tensor([[0.0, 1.0, -2.5, 65504.0], [0.1, 1e-3, 3.140625, -0.0]])
    tensors["probe_f32"] = probe
    tensors["probe_f16"] = probe.to(torch.float16)
    tensors["probe_bf16"] = probe.to(torch.bfloat16)
    tensors["probe_i64"] = torch.tensor([1, -2, 1 << 40], dtype=torch.int64)
    save_file({k: v.contiguous() for k, v in tensors.items()}, os.path.join(out_dir, "reference.safetensors"))
    with open(os.path.join(out_dir, "reference.json"), "w", encoding="utf-8") as f:
        json.dump(ref, f, ensure_ascii=False, indent=1)
    log(name, "written:", sorted(os.listdir(out_dir)))


def time_reference(out_root, device="cuda"):
    """transformers on random weights at OPUS-MT base size: tokens per second."""
    if device == "cuda" and not torch.cuda.is_available():
        return
    results = {}
    config = MarianConfig(vocab_size=65001, d_model=512, encoder_layers=6, decoder_layers=6,
                          encoder_attention_heads=8, decoder_attention_heads=8, encoder_ffn_dim=2048,
                          decoder_ffn_dim=2048, activation_function="swish", scale_embedding=True,
                          pad_token_id=65000, eos_token_id=0, decoder_start_token_id=65000,
                          max_position_embeddings=512,
                          **({"attn_implementation": "sdpa"} if int(torch.__version__.split(".")[0]) >= 2 else {}))
    for dtype in ((torch.float16, torch.float32) if device == "cuda" else (torch.float32,)):
        model = MarianMTModel(config).to(device, dtype).eval()
        for batch in (1, 16):
            ids = torch.randint(5, 60000, (batch, 24), device=device)
            n = 64
            kw = dict(max_new_tokens=n, min_new_tokens=n, num_beams=1, do_sample=False)
            with torch.no_grad():
                model.generate(input_ids=ids, **kw)
                if device == "cuda":
                    torch.cuda.synchronize()
                t0 = time.perf_counter()
                reps = 3 if device == "cuda" else 2
                for _ in range(reps):
                    model.generate(input_ids=ids, **kw)
                if device == "cuda":
                    torch.cuda.synchronize()
                dt = (time.perf_counter() - t0) / reps
            key = f"{str(dtype).split('.')[-1]}_batch{batch}"
            results[key] = {"seconds_per_generate": dt, "tokens_per_second": batch * n / dt}
            log("reference", key, results[key])
        del model
    results["device"] = torch.cuda.get_device_name(0) if device == "cuda" else f"cpu, {torch.get_num_threads()} threads"
    with open(os.path.join(out_root, f"reference_speed_{device}.json"), "w") as f:
        json.dump(results, f, indent=1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tokenizer", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--no-timing", action="store_true")
    ap.add_argument("--timing-only", choices=["cuda", "cpu"],
                    help="only time transformers at OPUS-MT base size on this device")
    args = ap.parse_args()
    if args.timing_only:
        time_reference(args.out, args.timing_only)
        return
    log("versions: transformers", transformers.__version__, "torch", torch.__version__,
        "safetensors", safetensors.__version__)
    build_fixture("marian_tiny", dict(d_model=32, encoder_layers=2, decoder_layers=2,
                                      encoder_attention_heads=4, decoder_attention_heads=4,
                                      encoder_ffn_dim=64, decoder_ffn_dim=64,
                                      activation_function="swish", scale_embedding=True),
                  seed=1, tok_dir=args.tokenizer, out_root=args.out, shard=False,
                  init=dict(embed_std=0.5, sublayer_gain=3.0, eos_bias=2.0))
    build_fixture("marian_tiny_sharded", dict(d_model=16, encoder_layers=1, decoder_layers=1,
                                              encoder_attention_heads=2, decoder_attention_heads=2,
                                              encoder_ffn_dim=48, decoder_ffn_dim=40,
                                              activation_function="gelu", scale_embedding=False,
                                              tie_word_embeddings=False),
                  seed=2, tok_dir=args.tokenizer, out_root=args.out, shard=True,
                  init=dict(embed_std=1.0, sublayer_gain=12.0, eos_bias=2.0))
    if not args.no_timing:
        try:
            time_reference(args.out)
        except Exception:
            traceback.print_exc()


if __name__ == "__main__":
    sys.exit(main())
