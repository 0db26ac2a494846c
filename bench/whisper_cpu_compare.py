#!/usr/bin/env python3
"""lingcast's Whisper against faster-whisper (CTranslate2) on the CPU, same weights,
same files, same greedy settings, in one run: time per file, float32 and int8,
ours and theirs alternating, medians of several runs and the ratio; then
streaming as `lingcast live` uses it (real-time factor) and our peak RSS.
Time only; WER/CER is bench/asr_compare.sh's job. Prints figures; never fails on time.

  bench/whisper_cpu_compare.py [--runs N] [--precisions float32,int8] [--stream]
      [--ours BUILD/bench/whisper_cpu_bench] [--model DIR] [--ct2-model DIR] [--window] [--ours-args '--margin 1000']

  --model: the checkpoint ours loads (default models/whisper-base);
  --ct2-model: what faster-whisper loads (a directory with model.bin; default: a
    temporary directory joining models/whisper-base's model.bin.part1 + part2).
Run with the benchmark environment's Python (scripts/install-deps.sh with
LINGCAST_ASR_BENCH_VENV=1): .venv-asr-bench/bin/python bench/whisper_cpu_compare.py
Both engines get 2 threads (or --threads) and OMP_WAIT_POLICY=PASSIVE.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SPEECH = os.environ.get("LINGCAST_SPEECH_DIR", os.path.join(os.path.dirname(ROOT), "shared", "data", "speech"))
FILES = [
    ("en-jfk.wav", "en"),
    ("en-librispeech-6930-75918-0000.flac", "en"),
    ("zh-aishell-BAC009S0764W0121.wav", "zh"),
    ("zh-IT0011W0001.wav", "zh"),
]


def joined_ct2_model(model_dir):
    if os.path.exists(os.path.join(model_dir, "model.bin")):
        return model_dir
    out = os.path.join(tempfile.gettempdir(), "lingcast-whisper-ct2-" + os.path.basename(os.path.realpath(model_dir)))
    os.makedirs(out, exist_ok=True)
    target = os.path.join(out, "model.bin")
    parts = sorted(p for p in os.listdir(model_dir) if p.startswith("model.bin.part"))
    size = sum(os.path.getsize(os.path.join(model_dir, p)) for p in parts)
    if not os.path.exists(target) or os.path.getsize(target) != size:
        with open(target + ".tmp", "wb") as f:
            for p in parts:
                with open(os.path.join(model_dir, p), "rb") as src:
                    f.write(src.read())
        os.replace(target + ".tmp", target)
    for name in ("config.json", "tokenizer.json", "vocabulary.txt", "preprocessor_config.json"):
        src = os.path.join(model_dir, name)
        link = os.path.join(out, name)
        if os.path.exists(src) and not os.path.exists(link):
            os.symlink(os.path.realpath(src), link)
    return out


class Ours:
    def __init__(self, binary, model, precision, threads, window, extra):
        args = [binary, model, "--threads", str(threads)] + extra.split()
        if precision == "int8":
            args.append("--int8")
        if window:
            args.append("--window")
        self.proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def ask(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        answer = json.loads(self.proc.stdout.readline())
        if "error" in answer:
            raise RuntimeError(answer["error"])
        return answer

    def close(self):
        self.proc.stdin.write("quit\n")
        self.proc.stdin.flush()
        self.proc.wait()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--precisions", default="float32,int8")
    p.add_argument("--ours", default=os.path.join(ROOT, "build", "bench", "whisper_cpu_bench"))
    p.add_argument("--model", default=os.path.join(ROOT, "models", "whisper-base"))
    p.add_argument("--ct2-model", default=None)
    p.add_argument("--window", action="store_true", help="ours pads every decode to the 30 s window too")
    p.add_argument("--ours-args", default="", help="more flags for whisper_cpu_bench (e.g. '--margin 1000')")
    p.add_argument("--stream", action="store_true", help="also streaming RTF and RSS (ours)")
    p.add_argument("--files", default=",".join(f for f, _ in FILES))
    a = p.parse_args()
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    from faster_whisper import WhisperModel, decode_audio  # the benchmark environment only

    ct2_dir = joined_ct2_model(a.ct2_model or a.model)
    wanted = a.files.split(",")
    files = [(f, lang) for f, lang in FILES if f in wanted]
    audio = {f: decode_audio(os.path.join(SPEECH, f), sampling_rate=16000) for f, _ in files}
    print(f"whisper_cpu_compare: ours {a.model} ({a.ours}), faster-whisper {ct2_dir}; {a.threads} threads, "
          f"{a.runs} runs each after a warm-up, alternating; load {os.getloadavg()[0]:.1f}")
    rows = []
    for precision in a.precisions.split(","):
        theirs = WhisperModel(ct2_dir, device="cpu", compute_type=precision, cpu_threads=a.threads)
        ours = Ours(a.ours, a.model, precision, a.threads, a.window, a.ours_args)
        for f, lang in files:
            path = os.path.join(SPEECH, f)
            samples = audio[f]

            def run_theirs():
                start = time.perf_counter()
                segments, _ = theirs.transcribe(samples, language=lang, beam_size=1, temperature=0,
                                                condition_on_previous_text=False, vad_filter=False,
                                                without_timestamps=True)
                text = "".join(s.text for s in segments)
                return 1000 * (time.perf_counter() - start), text

            run_theirs()
            ours.ask(f"{path} {lang}")  # warm-up
            ours_ms, theirs_ms = [], []
            for _ in range(a.runs):
                answer = ours.ask(f"{path} {lang}")
                ours_ms.append(answer["ms"])
                ms, their_text = run_theirs()
                theirs_ms.append(ms)
            o, t = statistics.median(ours_ms), statistics.median(theirs_ms)
            rows.append((precision, f, o, t, answer["text"], their_text, answer["rss_mb"]))
            print(f"  {precision:7s} {f:40s} ours {o:7.0f} ms  faster-whisper {t:7.0f} ms  ours/theirs {o / t:4.2f}",
                  flush=True)
            print(f"          ours:  {answer['text'].strip()}\n          their: {their_text.strip()}", flush=True)
        if a.stream:
            for f, lang in files:
                path = os.path.join(SPEECH, f)
                answer = ours.ask(f"stream {path} {lang}")
                print(f"  {precision:7s} stream {f:33s} RTF {answer['rtf']:.2f} ({answer['ms']:.0f} ms for "
                      f"{answer['audio_ms']:.0f} ms: {answer['decodes']} partial decodes of {answer['partials']} asked, "
                      f"median {answer['partial_ms_median']:.0f} ms, final {answer['final_ms']:.0f} ms); "
                      f"peak RSS {answer['rss_mb']:.0f} MB\n          final: {answer['text'].strip()}", flush=True)
        ours.close()
        del theirs
    print("summary (median ms, ours / faster-whisper):")
    for precision, f, o, t, _, _, rss in rows:
        print(f"  {precision:7s} {f:40s} {o:7.0f} {t:7.0f} {o / t:5.2f}  (our peak RSS {rss:.0f} MB)")


if __name__ == "__main__":
    sys.exit(main())
