#!/usr/bin/env python3
"""CPU comparison of our neural engines with CTranslate2 and transformers on the
SAME random-weight checkpoints at real size (driven by ct2_cpu_compare.sh).

  make DIR                       checkpoints (transformers), tokenizers, inputs
  transformers DIR --threads N   time transformers (the reference)
  ct2 DIR --threads N --compute-type float32|int8
                                 time CTranslate2 on the converted models
  ours DIR LOG --threads N       read bench/neural_cpu_compare's output
  report DIR                     the table: medians, ratio to transformers,
                                 agreement of the greedy tokens

Checkpoints, made as tools/neural/make_marian_fixtures.py and
make_whisper_fixtures.py make theirs (no hub access, so configs, vocabularies
and SentencePiece models are made here):
  marian   Helsinki-NLP/opus-mt-zh-en's shapes: d_model 512, 6+6 layers, 8 heads,
           FFN 2048, swish, scaled embeddings, vocabulary 65001 (pad 65000, eos 0);
           the tiny SentencePiece models of src/neural/testdata/marian_tiny with a
           vocab.json padded to 65001 entries
  whisper  whisper-small's shapes: d_model 768, 12+12 layers, 12 heads, FFN 3072,
           80 mel bins, vocabulary 51865 (the multilingual special tokens at their
           published ids); byte-level vocab.json + merges.txt
Weights are drawn as those scripts draw them (peaked outputs, far from argmax
ties). Every engine decodes greedily a forced length: Marian 64 new tokens
(eos and pad suppressed), Whisper 32 new tokens after the 4-token prompt (eos
suppressed). Each result file holds the medians and the token sequences.
"""
import argparse
import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
MARIAN_SEQ = 24
MARIAN_NEW = 64
WHISPER_NEW = 32
WHISPER_PROMPT = [50258, 50259, 50359, 50363]  # sot, <|en|>, transcribe, notimestamps
WHISPER_EOT = 50257
LANGUAGES = ["en", "zh", "de", "es", "ru", "ko", "fr", "ja", "pt", "tr", "pl", "ca", "nl", "ar", "sv", "it", "id",
             "hi", "fi", "vi", "he", "uk", "el", "ms", "cs", "ro", "da", "hu", "ta", "no", "th", "ur", "hr", "bg",
             "lt", "la", "mi", "ml", "cy", "sk", "te", "fa", "lv", "bn", "sr", "az", "sl", "kn", "et", "mk", "br",
             "eu", "is", "hy", "ne", "mn", "bs", "kk", "sq", "sw", "gl", "mr", "pa", "si", "km", "sn", "yo", "so",
             "af", "oc", "ka", "be", "tg", "sd", "gu", "am", "yi", "lo", "uz", "fo", "ht", "ps", "tk", "nn", "mt",
             "sa", "lb", "my", "bo", "tl", "mg", "as", "tt", "haw", "ln", "ha", "ba", "jw", "su"]  # 99, whisper's order


def log(*args):
    print(*args, flush=True)


def median_ms(f, runs):
    f()  # warm-up
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        f()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times), times


# --- make ---------------------------------------------------------------------

def make_marian(out):
    import shutil
    import torch
    from transformers import MarianConfig, MarianMTModel, MarianTokenizer
    sys.path.insert(0, HERE)
    from make_marian_fixtures import randomize

    tiny = os.path.join(REPO, "src/neural/testdata/marian_tiny")
    vocab = json.load(open(os.path.join(tiny, "vocab.json"), encoding="utf-8"))
    vocab.pop("<pad>")
    for i in range(len(vocab), 65000):
        vocab[f"▁filler{i}"] = i
    vocab["<pad>"] = 65000
    assert sorted(vocab.values()) == list(range(65001))
    config = MarianConfig(vocab_size=65001, decoder_vocab_size=65001, d_model=512, encoder_layers=6,
                          decoder_layers=6, encoder_attention_heads=8, decoder_attention_heads=8,
                          encoder_ffn_dim=2048, decoder_ffn_dim=2048, activation_function="swish",
                          scale_embedding=True, pad_token_id=65000, eos_token_id=0,
                          decoder_start_token_id=65000, forced_eos_token_id=0, max_position_embeddings=512,
                          dropout=0.0, attention_dropout=0.0, activation_dropout=0.0, bad_words_ids=[[65000]],
                          num_beams=1)
    torch.manual_seed(1)
    model = MarianMTModel(config).eval()
    randomize(model, 1, 0, embed_std=0.05, sublayer_gain=3.0, eos_bias=0.0)
    with torch.no_grad():
        # As in the published OPUS-MT checkpoints: <pad>, the decoder start token, has
        # a zero embedding (CTranslate2 drops <pad> and starts from a zero embedding).
        model.get_input_embeddings().weight[65000].zero_()
    d = os.path.join(out, "marian")
    os.makedirs(d, exist_ok=True)
    model.save_pretrained(d)
    with open(os.path.join(d, "vocab.json"), "w", encoding="utf-8") as f:
        json.dump(vocab, f, ensure_ascii=False)
    for name in ("source.spm", "target.spm"):
        shutil.copy(os.path.join(tiny, name), os.path.join(d, name))
    tok = MarianTokenizer(vocab=os.path.join(d, "vocab.json"), source_spm=os.path.join(d, "source.spm"),
                          target_spm=os.path.join(d, "target.spm"), source_lang="zh", target_lang="en")
    tok.save_pretrained(d)
    assert len(tok) == 65001, len(tok)
    return d


def make_whisper(out):
    import torch
    from transformers import WhisperConfig, WhisperForConditionalGeneration, WhisperTokenizer
    sys.path.insert(0, HERE)
    from make_whisper_fixtures import bytes_to_unicode, randomize

    d = os.path.join(out, "whisper")
    os.makedirs(d, exist_ok=True)
    b2u = bytes_to_unicode()
    vocab = {b2u[b]: i for i, b in enumerate(sorted(b2u))}
    for i in range(len(vocab), WHISPER_EOT):  # fillers up to the published id of <|endoftext|>
        vocab[f"tok{i}"] = i
    with open(os.path.join(d, "vocab.json"), "w", encoding="utf-8") as f:
        json.dump(vocab, f, ensure_ascii=False)
    with open(os.path.join(d, "merges.txt"), "w", encoding="utf-8") as f:
        f.write("#version: 0.2\n")
    specials = (["<|endoftext|>", "<|startoftranscript|>"] + [f"<|{c}|>" for c in LANGUAGES] +
                ["<|translate|>", "<|transcribe|>", "<|startoflm|>", "<|startofprev|>", "<|nocaptions|>",
                 "<|notimestamps|>"] + [f"<|{i * 0.02:.2f}|>" for i in range(1501)])
    tok = WhisperTokenizer(vocab_file=os.path.join(d, "vocab.json"), merges_file=os.path.join(d, "merges.txt"),
                           unk_token="<|endoftext|>", bos_token="<|endoftext|>", eos_token="<|endoftext|>",
                           pad_token="<|endoftext|>")
    tok.add_tokens(specials[1:], special_tokens=True)
    assert len(tok) == 51865, len(tok)
    assert tok.convert_tokens_to_ids("<|notimestamps|>") == 50363
    tok.save_pretrained(d)
    config = WhisperConfig(d_model=768, encoder_layers=12, decoder_layers=12, encoder_attention_heads=12,
                           decoder_attention_heads=12, encoder_ffn_dim=3072, decoder_ffn_dim=3072,
                           vocab_size=51865, num_mel_bins=80, decoder_start_token_id=50258, eos_token_id=WHISPER_EOT,
                           pad_token_id=WHISPER_EOT, bos_token_id=WHISPER_EOT, suppress_tokens=[],
                           begin_suppress_tokens=[], dropout=0.0)
    torch.manual_seed(2)
    model = WhisperForConditionalGeneration(config).eval()
    randomize(model, 2)
    model.generation_config.lang_to_id = {f"<|{c}|>": 50259 + i for i, c in enumerate(LANGUAGES)}
    model.generation_config.task_to_id = {"transcribe": 50359, "translate": 50358}
    model.generation_config.no_timestamps_token_id = 50363
    model.generation_config.is_multilingual = True
    model.generation_config.suppress_tokens = []
    model.generation_config.begin_suppress_tokens = []
    model.save_pretrained(d)
    return d


def make(args):
    import torch
    from safetensors.torch import save_file
    os.makedirs(args.dir, exist_ok=True)
    log("marian checkpoint:", make_marian(args.dir))
    log("whisper checkpoint:", make_whisper(args.dir))
    import transformers
    log("made with transformers", transformers.__version__, "torch", torch.__version__)
    gen = torch.Generator().manual_seed(3)
    ids = torch.randint(5, 60000, (16, MARIAN_SEQ), generator=gen)
    ids[:, -1] = 0  # </s>, as the tokenizer ends every source
    features = torch.rand((1, 80, 3000), generator=gen) * 2 - 1
    save_file({"marian_ids_b1": ids[:1].clone(), "marian_ids_b16": ids.contiguous(),
               "marian_new_tokens": torch.tensor([MARIAN_NEW]), "whisper_features": features.contiguous(),
               "whisper_prompt": torch.tensor(WHISPER_PROMPT), "whisper_new_tokens": torch.tensor([WHISPER_NEW])},
              os.path.join(args.dir, "inputs.safetensors"))
    log("inputs written")


def load_inputs(d):
    from safetensors.torch import load_file
    return load_file(os.path.join(d, "inputs.safetensors"))


def save_result(d, engine, threads, runs, results):
    path = os.path.join(d, f"result_{engine}_t{threads}.json")
    with open(path, "w") as f:
        json.dump({"engine": engine, "threads": threads, "runs": runs, "results": results}, f)
    for name, r in results.items():
        log(f"{engine} t{threads} {name}: median {r['ms']:.1f} ms")


# --- transformers ---------------------------------------------------------------

def time_transformers(args):
    import torch
    import transformers
    from transformers import GenerationConfig, MarianMTModel, WhisperForConditionalGeneration
    from transformers.generation.utils import GenerationMixin
    from transformers.modeling_outputs import BaseModelOutput
    torch.set_num_threads(args.threads)
    log("transformers", transformers.__version__, "torch", torch.__version__, "threads", torch.get_num_threads(),
        "| parallel:", torch.__config__.parallel_info().splitlines()[2:6])
    inputs = load_inputs(args.dir)
    results = {}
    with torch.inference_mode():
        model = MarianMTModel.from_pretrained(os.path.join(args.dir, "marian"), attn_implementation="sdpa").eval()
        for name in ("marian_b1", "marian_b16"):
            ids = inputs["marian_ids_" + name.split("_")[1]]
            kw = dict(max_new_tokens=MARIAN_NEW, min_new_tokens=MARIAN_NEW, num_beams=1, do_sample=False,
                      bad_words_ids=[[65000]], forced_eos_token_id=None)
            out = None

            def run():
                nonlocal out
                out = model.generate(input_ids=ids, attention_mask=torch.ones_like(ids), **kw)
            ms, all_ms = median_ms(run, args.runs)
            results[name] = {"ms": ms, "all_ms": all_ms, "new_tokens": ids.shape[0] * MARIAN_NEW,
                             "tokens": [row[1:] for row in out.tolist()]}
            log(f"transformers {name}: {ms:.1f} ms")
        del model
        model = WhisperForConditionalGeneration.from_pretrained(os.path.join(args.dir, "whisper"),
                                                                attn_implementation="sdpa").eval()
        features = inputs["whisper_features"]
        ms, all_ms = median_ms(lambda: model.model.encoder(features), args.runs)
        results["whisper_encoder"] = {"ms": ms, "all_ms": all_ms}
        encoded = model.model.encoder(features)
        prompt = torch.tensor([WHISPER_PROMPT])
        # Decode 32 tokens on the encoder output (encoder excluded, as ours is timed):
        # generate() with encoder_outputs given, eos suppressed so the length is fixed.
        model.generation_config = GenerationConfig(decoder_start_token_id=50258, eos_token_id=WHISPER_EOT,
                                                   pad_token_id=WHISPER_EOT, suppress_tokens=[WHISPER_EOT])
        out = None

        def decode():
            nonlocal out
            # GenerationMixin's generate, not Whisper's (which wants features and
            # would run the encoder again).
            out = GenerationMixin.generate(
                model, encoder_outputs=BaseModelOutput(last_hidden_state=encoded), decoder_input_ids=prompt, max_new_tokens=WHISPER_NEW,
                min_new_tokens=WHISPER_NEW, num_beams=1, do_sample=False, suppress_tokens=[WHISPER_EOT])
        ms, all_ms = median_ms(decode, args.runs)
        results["whisper_decode"] = {"ms": ms, "all_ms": all_ms, "new_tokens": WHISPER_NEW,
                                     "tokens": [row[len(WHISPER_PROMPT):] for row in out.tolist()]}
    save_result(args.dir, "transformers", args.threads, args.runs, results)


# --- CTranslate2 -----------------------------------------------------------------

def time_ct2(args):
    import ctranslate2
    import numpy as np
    inputs = load_inputs(args.dir)
    engine = f"ct2_{args.compute_type}"
    log("ctranslate2", ctranslate2.__version__, "compute type", args.compute_type, "intra threads", args.threads,
        "supported on cpu:", sorted(ctranslate2.get_supported_compute_types("cpu")))
    vocab = json.load(open(os.path.join(args.dir, "marian", "vocab.json"), encoding="utf-8"))
    id_to_token = {i: t for t, i in vocab.items()}
    results = {}
    translator = ctranslate2.Translator(os.path.join(args.dir, "ct2_marian"), device="cpu",
                                        compute_type=args.compute_type, inter_threads=1, intra_threads=args.threads)
    for name in ("marian_b1", "marian_b16"):
        ids = inputs["marian_ids_" + name.split("_")[1]].tolist()
        source = [[id_to_token[i] for i in row] for row in ids]
        out = None

        def run():
            nonlocal out
            out = translator.translate_batch(source, beam_size=1, max_batch_size=0, max_decoding_length=MARIAN_NEW,
                                             min_decoding_length=MARIAN_NEW, return_end_token=True)
        ms, all_ms = median_ms(run, args.runs)
        tokens = [[vocab[t] for t in r.hypotheses[0]] for r in out]
        results[name] = {"ms": ms, "all_ms": all_ms, "new_tokens": sum(len(t) for t in tokens), "tokens": tokens}
        log(f"{engine} {name}: {ms:.1f} ms, lengths {sorted(set(len(t) for t in tokens))}")
    del translator
    whisper = ctranslate2.models.Whisper(os.path.join(args.dir, "ct2_whisper"), device="cpu",
                                         compute_type=args.compute_type, inter_threads=1, intra_threads=args.threads)
    features = ctranslate2.StorageView.from_array(np.ascontiguousarray(inputs["whisper_features"].numpy()))
    ms, all_ms = median_ms(lambda: whisper.encode(features, to_cpu=True), args.runs)
    results["whisper_encoder"] = {"ms": ms, "all_ms": all_ms}
    encoded = whisper.encode(features, to_cpu=True)
    out = None

    def decode():
        nonlocal out
        # CTranslate2 4.8 decodes max_length // 2 new tokens here (measured: 36 -> 18,
        # 60 -> 30; openai-whisper's sample_len is n_text_ctx // 2 too); the lengths are
        # checked in the report. The prompt ends with <|notimestamps|>, so no
        # timestamp rules apply. eos suppressed (suppress_tokens) for a fixed length.
        out = whisper.generate(encoded, [WHISPER_PROMPT], beam_size=1, max_length=2 * WHISPER_NEW,
                               suppress_blank=False, suppress_tokens=[WHISPER_EOT], return_scores=False)
    ms, all_ms = median_ms(decode, args.runs)
    tokens = [list(r.sequences_ids[0]) for r in out]
    results["whisper_decode"] = {"ms": ms, "all_ms": all_ms, "new_tokens": sum(len(t) for t in tokens),
                                 "tokens": tokens}
    log(f"{engine} whisper_decode: {ms:.1f} ms, {len(tokens[0])} tokens")
    save_result(args.dir, engine, args.threads, args.runs, results)


# --- ours --------------------------------------------------------------------------

def parse_ours(args):
    results = {}
    header = ""
    for line in open(args.log, encoding="utf-8"):
        parts = line.split()
        if line.startswith("neural_cpu_compare:"):
            header = line.strip()
        if parts[:1] == ["RESULT"]:
            results[parts[1]] = {"ms": float(parts[2]), "new_tokens": int(parts[3]), "tokens": []}
        elif parts[:1] == ["TOKENS"]:
            results[parts[1]]["tokens"].append([int(t) for t in parts[3:]])
    log(header)
    save_result(args.dir, args.engine, args.threads, None, results)


# --- profile -----------------------------------------------------------------------

def profile(args):
    """Self time by op of libtorch's chrome trace (RecordProfile), largest first."""
    trace = json.load(open(args.trace))
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    by_thread = {}
    for e in events:
        if e.get("ph") == "X" and "dur" in e:
            by_thread.setdefault(e.get("tid"), []).append(e)
    self_us, calls = {}, {}
    for evs in by_thread.values():
        evs.sort(key=lambda e: (float(e["ts"]), -float(e["dur"])))
        stack = []  # [end, name, child time]
        def close(item):
            end, name, child, dur = item
            self_us[name] = self_us.get(name, 0.0) + dur - child
            if stack:
                stack[-1][2] += dur
        for e in evs:
            ts, dur = float(e["ts"]), float(e["dur"])
            while stack and stack[-1][0] <= ts:
                close(stack.pop())
            stack.append([ts + dur, e["name"], 0.0, dur])
            calls[e["name"]] = calls.get(e["name"], 0) + 1
        while stack:
            close(stack.pop())
    total = sum(self_us.values())
    print(f"self time by op, {total / 1e3:.1f} ms in all (one batch-1 Marian decode of 64 tokens + one Whisper decode of 32)")
    for name, us in sorted(self_us.items(), key=lambda kv: -kv[1])[:25]:
        print(f"{us / 1e3:10.1f} ms {100 * us / total:5.1f}% {calls[name]:7d} calls  {name}")


# --- report ------------------------------------------------------------------------

def agreement(tokens, reference):
    """Rows equal, and the mean length of the common prefix, as a fraction."""
    if not tokens or not reference:
        return "n/a"
    equal = sum(a == b for a, b in zip(tokens, reference))
    prefix = []
    for a, b in zip(tokens, reference):
        n = 0
        while n < min(len(a), len(b)) and a[n] == b[n]:
            n += 1
        prefix.append(n / max(len(b), 1))
    return f"{equal}/{len(reference)} rows equal, common prefix {100 * statistics.mean(prefix):.0f}%"


def report(args):
    files = sorted(f for f in os.listdir(args.dir) if f.startswith("result_") and f.endswith(".json"))
    by = {}
    for f in files:
        r = json.load(open(os.path.join(args.dir, f)))
        by[(r["engine"], r["threads"])] = r["results"]
    order = ["transformers", "ours", "ours_openblas", "ct2_float32", "ct2_int8"]
    names = [("marian_b1", "Marian greedy 64 tok, batch 1"), ("marian_b16", "Marian greedy 64 tok, batch 16"),
             ("whisper_encoder", "whisper-small encoder, 30 s"), ("whisper_decode", "whisper-small decode 32 tok")]
    threads = sorted({t for _, t in by})
    print("| threads | measurement | engine | median ms | tokens/s | vs transformers | greedy tokens vs transformers |")
    print("|---|---|---|---|---|---|---|")
    for t in threads:
        for name, label in names:
            ref = by.get(("transformers", t), {}).get(name)
            for engine in order:
                r = by.get((engine, t), {}).get(name)
                if r is None:
                    continue
                tps = f"{r['new_tokens'] / r['ms'] * 1e3:.0f}" if r.get("new_tokens") else "-"
                # ratio as speed: > 1 means faster than transformers
                ratio = f"{ref['ms'] / r['ms']:.2f}x" if ref else "-"
                agree = agreement(r.get("tokens"), ref.get("tokens")) if ref and engine != "transformers" \
                    and r.get("tokens") else "-"
                print(f"| {t} | {label} | {engine} | {r['ms']:.1f} | {tps} | {ratio} | {agree} |")
    # Agreement of ours against CTranslate2 float32 too (same weights, same forced length).
    for t in threads:
        for mine in ("ours", "ours_openblas"):
            ours, ct2 = by.get((mine, t), {}), by.get(("ct2_float32", t), {})
            for name, label in names:
                if ours.get(name, {}).get("tokens") and ct2.get(name, {}).get("tokens"):
                    print(f"{mine} vs ct2_float32, {t} threads, {label}: "
                          f"{agreement(ours[name]['tokens'], ct2[name]['tokens'])}")
    lengths = {(e, t, n): sorted({len(x) for x in r[n]["tokens"]}) for (e, t), r in by.items() for n in r
               if r[n].get("tokens")}
    print("new tokens per row:", "; ".join(f"{e} t{t} {n} {v}" for (e, t, n), v in sorted(lengths.items())))
    distinct = {}
    for (e, t), r in by.items():
        for n in r:
            if r[n].get("tokens"):
                flat = [tok for row in r[n]["tokens"] for tok in row]
                distinct[(e, t, n)] = len(set(flat))
    print("distinct token ids in the output:", "; ".join(f"{e} t{t} {n} {v}" for (e, t, n), v in sorted(distinct.items())))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("make")
    p.add_argument("dir")
    p.set_defaults(func=make)
    p = sub.add_parser("transformers")
    p.add_argument("dir")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--runs", type=int, default=5)
    p.set_defaults(func=time_transformers)
    p = sub.add_parser("ct2")
    p.add_argument("dir")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--compute-type", choices=["float32", "int8"], default="float32")
    p.set_defaults(func=time_ct2)
    p = sub.add_parser("ours")
    p.add_argument("dir")
    p.add_argument("log")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--engine", default="ours", help="name in the table (ours, ours_openblas)")
    p.set_defaults(func=parse_ours)
    p = sub.add_parser("profile")
    p.add_argument("trace")
    p.set_defaults(func=profile)
    p = sub.add_parser("report")
    p.add_argument("dir")
    p.set_defaults(func=report)
    args = ap.parse_args()
    args.func(args)


if __name__ == "__main__":
    main()
