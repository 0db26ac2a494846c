#!/usr/bin/env python3
"""asr_compare: lingcast's Whisper beside faster-whisper (CTranslate2) on the same
weights and the same real recordings (../shared/data/speech), in one run.

Per file and precision (float32, int8): the transcript of each, WER (English,
after normalization) or CER (Mandarin, Traditional folded to Simplified for
both), and wall time. Both sides are timed the same way: a fresh process per
file that loads the model and transcribes it (lingcast asr FILE --json;
faster-whisper in a subprocess of this script), so model loading counts for
both; the median over --runs. Ours runs twice: as `lingcast asr` streams
(a partial every 500 ms of speech, then the final: "ours") and as an offline
transcript (--no-partials: each utterance decoded once: "ours_offline", the
like-for-like row against faster-whisper's one pass). Greedy, no temperature fallback, language given.
Prints figures; never fails on them.

usage (from the repo root, after scripts/install-deps.sh with
LINGCAST_ASR_BENCH_VENV=1):
  .venv-asr-bench/bin/python bench/asr_compare.py [--lingcast build/lingcast]
      [--model models/whisper-base] [--runs 3] [--precisions float32,int8] [--json OUT]
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import unicodedata

REFERENCES = {
    "en-jfk.wav": ("en", "And so my fellow Americans, ask not what your country can do for you, "
                         "ask what you can do for your country."),
    "en-librispeech-6930-75918-0000.flac": ("en", "CONCORD RETURNED TO ITS PLACE AMIDST THE TENTS"),
    "zh-aishell-BAC009S0764W0121.wav": ("zh", "甚至出现交易几乎停滞的情况"),
    "zh-IT0011W0001.wav": ("zh", "换一首歌"),
}

FASTER_WHISPER = r"""
import json, sys, time
from faster_whisper import WhisperModel
model_dir, compute_type, path, lang = sys.argv[1:5]
start = time.perf_counter()
model = WhisperModel(model_dir, device="cpu", compute_type=compute_type, cpu_threads=int(sys.argv[5]))
loaded = time.perf_counter()
segments, _ = model.transcribe(path, language=lang, beam_size=1, temperature=0,
                               condition_on_previous_text=False, vad_filter=False)
text = "".join(s.text for s in segments)
done = time.perf_counter()
print(json.dumps({"text": text, "load_s": loaded - start, "decode_s": done - loaded}))
"""


def simplified(text):
    try:
        import opencc  # in .venv-asr-bench
        return opencc.OpenCC("t2s").convert(text)
    except ImportError:
        return text


def normalize_en(text):
    text = unicodedata.normalize("NFKC", text).lower()
    text = re.sub(r"[^a-z0-9' ]+", " ", text)
    return text.split()


def normalize_zh(text):
    text = simplified(unicodedata.normalize("NFKC", text))
    return [c for c in text if unicodedata.category(c)[0] in "LN" and not c.isspace()]


def edit_distance(a, b):
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (x != y))
    return row[len(b)]


def error_rate(lang, reference, hypothesis):
    norm = normalize_en if lang == "en" else normalize_zh
    ref, hyp = norm(reference), norm(hypothesis)
    return edit_distance(ref, hyp), len(ref)


def run_ours(args, path, lang, precision, partials=True):
    command = [args.lingcast, "asr", path, "--json", "--lang", lang, "--asr", "whisper", "--asr-model", args.model]
    if not partials:
        command.append("--no-partials")
    if precision == "int8":
        command += ["--quantize", "int8"]
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads), OMP_WAIT_POLICY="PASSIVE")
    start = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - start
    if result.returncode != 0:
        return {"error": result.stderr.strip().splitlines()[-1:] or ["exit %d" % result.returncode], "wall_s": wall}
    finals = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    text = (" " if lang == "en" else "").join(f["text"] for f in finals if f.get("type") == "final")
    return {"text": text, "wall_s": wall}


def run_reference(args, model_dir, path, lang, precision):
    env = dict(os.environ, OMP_WAIT_POLICY="PASSIVE")
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-c", FASTER_WHISPER, model_dir, precision, path, lang, str(args.threads)],
                            capture_output=True, text=True, env=env)
    wall = time.perf_counter() - start
    if result.returncode != 0:
        return {"error": result.stderr.strip().splitlines()[-1:], "wall_s": wall}
    out = json.loads(result.stdout.strip().splitlines()[-1])
    return {"text": out["text"].strip(), "wall_s": wall, "decode_s": out["decode_s"], "load_s": out["load_s"]}


def joined_model(model, scratch):
    """faster-whisper reads only one model.bin: join model.bin.part1.. into a scratch copy."""
    if os.path.exists(os.path.join(model, "model.bin")):
        return model
    parts = sorted((f for f in os.listdir(model) if re.fullmatch(r"model\.bin\.part\d+", f)),
                   key=lambda f: int(f.rsplit("part", 1)[1]))
    if not parts:
        sys.exit(f"asr_compare: {model} has no model.bin or model.bin.partN")
    with open(os.path.join(scratch, "model.bin"), "wb") as out:
        for part in parts:
            with open(os.path.join(model, part), "rb") as src:
                shutil.copyfileobj(src, out, 1 << 20)
    for name in ("config.json", "tokenizer.json", "vocabulary.txt", "vocabulary.json"):
        if os.path.exists(os.path.join(model, name)):
            shutil.copy(os.path.join(model, name), scratch)
    return scratch


def main():
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lingcast", default=os.path.join(repo, "build", "lingcast"))
    parser.add_argument("--model", default=os.path.join(repo, "models", "whisper-base"))
    parser.add_argument("--data", default=os.path.join(repo, "..", "shared", "data", "speech"))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--precisions", default="float32,int8")
    parser.add_argument("--json", help="also write the figures as JSON here")
    args = parser.parse_args()
    if not os.path.isdir(args.data):
        sys.exit(f"asr_compare: {args.data} is missing (the recordings live in ../shared/data)")
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        reference_model = joined_model(args.model, scratch)
        for precision in args.precisions.split(","):
            for name, (lang, reference) in REFERENCES.items():
                path = os.path.join(args.data, name)
                if not os.path.exists(path):
                    continue
                ours, offline, theirs = [], [], []
                for _ in range(args.runs):  # alternate: the machine's load hits all alike
                    ours.append(run_ours(args, path, lang, precision))
                    offline.append(run_ours(args, path, lang, precision, partials=False))
                    theirs.append(run_reference(args, reference_model, path, lang, precision))
                row = {"file": name, "lang": lang, "precision": precision}
                for side, runs in (("ours", ours), ("ours_offline", offline), ("faster_whisper", theirs)):
                    good = [r for r in runs if "error" not in r]
                    if not good:
                        row[side] = {"error": runs[0]["error"]}
                        continue
                    errors, length = error_rate(lang, reference, good[0]["text"])
                    row[side] = {"text": good[0]["text"], "errors": errors, "length": length,
                                 "rate": errors / max(1, length),
                                 "wall_s": statistics.median(r["wall_s"] for r in good)}
                    if side == "faster_whisper":
                        row[side]["decode_s"] = statistics.median(r["decode_s"] for r in good)
                rows.append(row)
                print_row(row)
    print_summary(rows)
    if args.json:
        with open(args.json, "w") as out:
            json.dump(rows, out, ensure_ascii=False, indent=2)


def print_row(row):
    metric = "WER" if row["lang"] == "en" else "CER"
    print(f"{row['file']} [{row['precision']}]")
    for side in ("ours", "ours_offline", "faster_whisper"):
        r = row[side]
        if "error" in r:
            print(f"  {side:15s} ERROR {r['error']}")
            continue
        extra = f", decode {r['decode_s']:.2f} s" if "decode_s" in r else ""
        print(f"  {side:15s} {metric} {r['rate']:.3f} ({r['errors']}/{r['length']})  wall {r['wall_s']:.2f} s{extra}  {r['text']}")
    for side in ("ours", "ours_offline"):
        if "error" not in row[side] and "error" not in row["faster_whisper"]:
            print(f"  ratio {side}/faster-whisper wall: {row[side]['wall_s'] / row['faster_whisper']['wall_s']:.2f}x")
    sys.stdout.flush()


def print_summary(rows):
    print("\nsummary (errors over all files of a language; wall: sum of medians)")
    for precision in sorted({r["precision"] for r in rows}):
        for lang in ("en", "zh"):
            picked = [r for r in rows if r["precision"] == precision and r["lang"] == lang
                      and all("error" not in r[side] for side in ("ours", "ours_offline", "faster_whisper"))]
            if not picked:
                continue
            line = f"  {precision} {lang} ({'WER' if lang == 'en' else 'CER'}):"
            for side in ("ours", "ours_offline", "faster_whisper"):
                errors = sum(r[side]["errors"] for r in picked)
                length = sum(r[side]["length"] for r in picked)
                wall = sum(r[side]["wall_s"] for r in picked)
                line += f"  {side} {errors / max(1, length):.3f} in {wall:.2f} s"
            theirs = sum(r["faster_whisper"]["wall_s"] for r in picked)
            ratios = ", ".join(f"{side} {sum(r[side]['wall_s'] for r in picked) / theirs:.2f}x"
                               for side in ("ours", "ours_offline"))
            print(line + f"  (wall ratio {ratios})")


if __name__ == "__main__":
    main()
