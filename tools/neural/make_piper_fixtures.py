#!/usr/bin/env python3
"""Reference outputs of a Piper voice, for neural_vits_test's parity check of our VITS
engine on the converted checkpoint (tools/neural/piper_to_checkpoint.py).

Runs in the fixture environment only (onnxruntime and piper-phonemize, the
reference runtime and phonemizer; never lingcast's runtime):

    make_piper_fixtures.py VOICE.onnx OUT_DIR

Writes OUT_DIR/joe_reference.json (per sentence: the text, piper-phonemize's
phonemes and ids, the waveform's length) and OUT_DIR/joe_reference.safetensors
(two stretches of the waveform onnxruntime gives for those ids with no noise,
scales [0, 1, 0], so it is deterministic: the first SLICE samples and SLICE from
the middle; the whole waveforms would be ~250 KB a sentence).
"""
import json
import os
import sys

import numpy as np

from checkpoint_files import write_safetensors
import onnxruntime
from piper_phonemize import phoneme_ids_espeak, phonemize_espeak

SLICE = 6000
SENTENCES = [
    "Today I want to show you our new cast iron pan.",
    "It is only eighty nine dollars, down from one hundred and twenty.",
    "Hello everybody, thanks for joining!",
]


def main():
    onnx_path, out_dir = sys.argv[1], sys.argv[2]
    with open(onnx_path + ".json", encoding="utf-8") as f:
        voice = json.load(f)
    session = onnxruntime.InferenceSession(onnx_path, providers=["CPUExecutionProvider"])
    entries, waves = [], {}
    for i, text in enumerate(SENTENCES):
        sentences = phonemize_espeak(text, voice["espeak"]["voice"])
        assert len(sentences) == 1, "each fixture sentence must be one sentence"
        ids = phoneme_ids_espeak(sentences[0])
        wave = session.run(None, {
            "input": np.array([ids], dtype=np.int64),
            "input_lengths": np.array([len(ids)], dtype=np.int64),
            "scales": np.array([0.0, 1.0, 0.0], dtype=np.float32),
        })[0].reshape(-1)
        entries.append({"text": text, "phonemes": "".join(sentences[0]), "ids": ids, "samples": int(wave.size)})
        middle = wave.size // 2
        entries[-1]["middle"] = int(middle)
        waves[f"start.{i}"] = wave[:SLICE].astype(np.float32)
        waves[f"middle.{i}"] = wave[middle:middle + SLICE].astype(np.float32)
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "joe_reference.json"), "w", encoding="utf-8") as f:
        json.dump({"voice": os.path.basename(onnx_path), "onnxruntime": onnxruntime.__version__,
                   "scales": [0.0, 1.0, 0.0], "sentences": entries}, f, ensure_ascii=False, indent=1)
    write_safetensors(os.path.join(out_dir, "joe_reference.safetensors"), waves, sort=False)
    print(f"make_piper_fixtures: {len(entries)} sentences -> {out_dir}")


if __name__ == "__main__":
    main()
