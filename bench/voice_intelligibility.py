#!/usr/bin/env python3
"""voice_intelligibility: how well a real recognizer understands lingcast's voices.

Each voice speaks the held-out-style live-commerce sentences of
bench/data/voice_sentences.{en,zh}.txt (prices, numbers, units, product words;
32 a language) through `lingcast tts`, one process a sentence, at each --rates;
faster-whisper with Whisper base (the real weights scripts/install-deps.sh
installs; the reference recognizer, in .venv-asr-bench only) transcribes every
WAV with the language given; the figure is WER (English) or CER (Mandarin) over
all sentences, after normalization (case and punctuation; Traditional folded to
Simplified; numbers written either way -- "eighty nine", "89", 八十九 -- read as
the same digits). Also the real-time factor lingcast reported. Prints figures;
never fails on them.

usage (from the repo root, after scripts/install-deps.sh with LINGCAST_ASR_BENCH_VENV=1):
  .venv-asr-bench/bin/python bench/voice_intelligibility.py [--lingcast build/lingcast]
      [--voices en:espeak,en:auto,zh:espeak,zh:auto] [--rates 1.0,1.2] [--json OUT]
A voice is LANG:ENGINE, ENGINE as `lingcast tts --engine` takes it (espeak, auto,
vits=DIR for a checkpoint directory).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from asr_compare import edit_distance, joined_model, simplified  # noqa: E402

EN_UNITS = {w: i for i, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve thirteen "
                                       "fourteen fifteen sixteen seventeen eighteen nineteen".split())}
EN_TENS = {w: 10 * i for i, w in enumerate("_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()) if w != "_"}
EN_SCALES = {"hundred": 100, "thousand": 1000, "million": 1000000}


def en_numbers(words):
    """Runs of number words -> digits ("one hundred and twenty" -> 120, "six point five" -> 6.5)."""
    out, i = [], 0
    while i < len(words):
        w = words[i]
        if w not in EN_UNITS and w not in EN_TENS:
            out.append(w)
            i += 1
            continue
        total, current = 0, 0
        while i < len(words):
            w = words[i]
            if w in EN_UNITS:
                current += EN_UNITS[w]
            elif w in EN_TENS:
                current += EN_TENS[w]
            elif w in EN_SCALES and (current or total):
                if EN_SCALES[w] == 100:
                    current *= 100
                else:
                    total += current * EN_SCALES[w]
                    current = 0
            elif w == "and" and i + 1 < len(words) and (words[i + 1] in EN_UNITS or words[i + 1] in EN_TENS) and current >= 100:
                pass
            else:
                break
            i += 1
        number = str(total + current)
        if i + 1 < len(words) and words[i] == "point" and words[i + 1] in EN_UNITS:
            i += 1
            decimals = ""
            while i < len(words) and words[i] in EN_UNITS:
                decimals += str(EN_UNITS[words[i]])
                i += 1
            number += "." + decimals
        out.append(number)
    return out


def normalize_en(text):
    text = text.lower().replace(",", "")
    text = re.sub(r"\$(\d+(?:\.\d+)?)", r"\1 dollars", text)
    text = re.sub(r"(\d)%", r"\1 percent", text)
    text = re.sub(r"(\d)-(\d)", r"\1 to \2", text)
    text = re.sub(r"[^a-z0-9.' ]+", " ", text)
    words = [w.strip(".'") for w in text.split()]
    return en_numbers([w for w in words if w])


ZH_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
ZH_SCALES = {"十": 10, "百": 100, "千": 1000, "万": 10000}


def zh_number(run):
    total, section, current = 0, 0, 0
    for c in run:
        if c in ZH_DIGITS:
            current = ZH_DIGITS[c]
        elif c == "万":
            total += (section + current) * 10000
            section, current = 0, 0
        else:
            section += (current or 1) * ZH_SCALES[c]
            current = 0
    return str(total + section + current)


def normalize_zh(text):
    text = simplified(text)
    # "百分之十五" and "15%" both become "%15" (百 is not a number there).
    text = re.sub(r"(\d+(?:\.\d+)?)[%％]", r"%\1", text.replace("百分之", "%"))
    numeral = "零〇一二两三四五六七八九十百千万"

    def convert(m):
        whole = zh_number(m.group(1))
        return whole + ("." + "".join(str(ZH_DIGITS[c]) for c in m.group(3)) if m.group(3) else "")

    text = re.sub(f"([{numeral}]+)(点([{''.join(ZH_DIGITS)}]+))?", convert, text)
    return [c for c in text if c.isalnum() or c in ".%"]


def synthesize(args, lang, engine, text, rate, path):
    command = [args.lingcast, "tts", text, "--lang", lang, "--rate", str(rate), "-o", path, "--json"]
    if engine.startswith("vits="):
        command += ["--engine", "vits", "--model", engine.split("=", 1)[1]]
    else:
        command += ["--engine", engine]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError((result.stderr.strip().splitlines() or ["exit %d" % result.returncode])[-1])
    return json.loads(result.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--lingcast", default="build/lingcast")
    parser.add_argument("--model", default="models/whisper-base")
    parser.add_argument("--voices", default="en:espeak,en:auto,zh:espeak,zh:auto")
    parser.add_argument("--rates", default="1.0,1.2")
    parser.add_argument("--limit", type=int, default=0, help="first N sentences only (0: all)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", default="")
    args = parser.parse_args()
    from faster_whisper import WhisperModel

    here = os.path.dirname(os.path.abspath(__file__))
    sentences = {}
    for lang in ("en", "zh"):
        with open(os.path.join(here, "data", f"voice_sentences.{lang}.txt"), encoding="utf-8") as f:
            sentences[lang] = [line.strip() for line in f if line.strip()]
            if args.limit:
                sentences[lang] = sentences[lang][:args.limit]
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        model = WhisperModel(joined_model(args.model, scratch), device="cpu", compute_type="float32",
                             cpu_threads=args.threads)
        for voice in args.voices.split(","):
            lang, engine = voice.split(":", 1)
            for rate in [float(r) for r in args.rates.split(",")]:
                errors = length = 0
                audio_s = synth_s = 0.0
                first_audio = []
                name, examples = engine, []
                try:
                    for i, text in enumerate(sentences[lang]):
                        path = os.path.join(scratch, f"{lang}-{i}.wav")
                        summary = synthesize(args, lang, engine, text, rate, path)
                        audio_s += summary["duration_s"]
                        synth_s += summary["rtf"] * summary["duration_s"]
                        first_audio.append(summary["time_to_first_audio_ms"])
                        name = summary.get("engine", engine)
                        segments, _ = model.transcribe(path, language=lang, vad_filter=False,
                                                       condition_on_previous_text=False)
                        heard = "".join(s.text for s in segments).strip()
                        norm = normalize_en if lang == "en" else normalize_zh
                        ref, hyp = norm(text), norm(heard)
                        e = edit_distance(ref, hyp)
                        errors += e
                        length += len(ref)
                        if e and len(examples) < 3:
                            examples.append(f"{text} -> {heard}")
                except RuntimeError as e:
                    print(f"{voice} rate {rate}: {e}")
                    continue
                first_audio.sort()
                row = {"lang": lang, "voice": engine, "engine": name, "rate": rate,
                       "error_rate": errors / max(length, 1), "sentences": len(sentences[lang]),
                       "audio_s": audio_s, "rtf": synth_s / max(audio_s, 1e-9),
                       "first_audio_ms_p50": first_audio[len(first_audio) // 2],
                       "first_audio_ms_max": first_audio[-1], "examples": examples}
                rows.append(row)
                print(f"{lang} {engine:<8} rate {rate:.2f}: {'WER' if lang == 'en' else 'CER'} {row['error_rate']:.3f} "
                      f"over {row['sentences']} sentences ({audio_s:.0f} s of speech), RTF {row['rtf']:.3f}, "
                      f"first audio p50 {row['first_audio_ms_p50']:.0f} ms (max {row['first_audio_ms_max']:.0f})",
                      flush=True)
                for example in examples:
                    print(f"    {example}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(rows, f, ensure_ascii=False, indent=1)


if __name__ == "__main__":
    main()
