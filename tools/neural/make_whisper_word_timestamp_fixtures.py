#!/usr/bin/env python3
"""Makes the word-timestamp parity fixture of src/neural's Whisper tests with the
reference (transformers' WhisperForConditionalGeneration.generate with
return_token_timestamps=True, and the word grouping of its ASR pipeline).

Works on the committed tiny checkpoint src/neural/testdata/whisper_tiny (made by
make_whisper_fixtures.py, which also writes its alignment_heads): when that
checkpoint's generation_config.json has no alignment_heads yet, they are added
(the one field; nothing else in the file changes). Then, for the checkpoint's
two test recordings (reference.safetensors audio_0, audio_1), it writes
reference_word_timestamps.json: per run the generated sequence, transformers'
token_timestamps (one per sequence position: 0 for the prompt, then each token's
DTW time, the last one repeated), each text token's (start, end) as the ASR
pipeline forms them, and the words of tokenization_whisper's
_combine_tokens_into_words with their (start, end).

It also groups a few encoded texts into words (English and Chinese) for the
grouping rules alone.

Runs: plain greedy (the sequence our decoder also generates), text-only greedy
in English and Chinese (every special and timestamp token suppressed, so there
are words to group), with timestamps, and text-only 3-beam search. The audio's
length is passed as the attention mask, so the attention is cropped to the
heard frames as the reference does when given one.

  /opt/fixtures-venv/bin/python tools/neural/make_whisper_word_timestamp_fixtures.py --dir src/neural/testdata/whisper_tiny
"""
import argparse
import json
import os
import sys

import torch
import transformers
from safetensors.torch import load_file
from transformers import WhisperFeatureExtractor, WhisperForConditionalGeneration, WhisperTokenizer
from transformers.models.whisper.tokenization_whisper import _combine_tokens_into_words

# (decoder layer, head) pairs: what generation_config.alignment_heads holds in
# the published checkpoints. make_whisper_fixtures.py writes the same.
ALIGNMENT_HEADS = [[0, 2], [1, 0], [1, 3]]
MAX_NEW_TOKENS = 24
LANGUAGE_NAMES = {"en": "english", "zh": "chinese"}
# Word grouping alone, on encoded text (spaces, punctuation on both sides, CJK,
# characters of several tokens).
GROUPING_CASES = [
    ("en", " hello everyone, welcome to our live stream!"),
    ("en", " \"Quoted\" (words) - it's 3 o'clock... ok?"),
    ("en", " emoji 🎉 and ünïcödé"),
    ("zh", "大家好，欢迎来到我们的直播间！"),
    ("zh", "“今天”所有订单都包邮。"),
]


def ensure_alignment_heads(d):
    path = os.path.join(d, "generation_config.json")
    with open(path, encoding="utf-8") as f:
        config = json.load(f)
    if "alignment_heads" in config:
        return
    config["alignment_heads"] = ALIGNMENT_HEADS
    # transformers' own layout (GenerationConfig.to_json_string), so only the new field differs.
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps(config, indent=2, sort_keys=True) + "\n")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    args = parser.parse_args()
    d = args.dir
    ensure_alignment_heads(d)
    model = WhisperForConditionalGeneration.from_pretrained(d).eval()
    tok = WhisperTokenizer.from_pretrained(d)
    fe = WhisperFeatureExtractor.from_pretrained(d)
    eot = tok.convert_tokens_to_ids("<|endoftext|>")
    text_only = list(range(eot, len(tok)))  # every special and timestamp token, <|endoftext|> too
    runs = [
        {"language": "en"},
        {"language": "en", "text_only": True},
        {"language": "zh", "text_only": True},
        {"language": "en", "timestamps": True},
        {"language": "en", "text_only": True, "num_beams": 3},
    ]
    reference_grouping = []
    for language, text in GROUPING_CASES:
        ids = tok.encode(text, add_special_tokens=False)
        words, _, indices = _combine_tokens_into_words(tok, ids, LANGUAGE_NAMES[language])
        reference_grouping.append({"language": language, "text": text, "tokens": ids,
                                   "words": [{"text": w, "tokens": ix} for w, ix in zip(words, indices)]})
        print(language, text, words, flush=True)
    audio = load_file(os.path.join(d, "reference.safetensors"))
    reference = {"versions": {"torch": torch.__version__, "transformers": transformers.__version__},
                 "alignment_heads": model.generation_config.alignment_heads,
                 "median_filter_width": model.config.median_filter_width, "grouping": reference_grouping,
                 "inputs": []}
    for i in range(2):
        samples = audio[f"audio_{i}"].numpy()
        inputs = fe(samples, sampling_rate=16000, return_tensors="pt", return_attention_mask=True)
        entry = {"audio": f"audio_{i}", "samples": len(samples), "num_frames": int(inputs.attention_mask.sum()),
                 "runs": []}
        for run in runs:
            kwargs = dict(max_new_tokens=MAX_NEW_TOKENS, num_beams=run.get("num_beams", 1),
                          return_timestamps=run.get("timestamps", False), language=run["language"],
                          task="transcribe")
            if run.get("text_only"):
                kwargs["suppress_tokens"] = text_only
            with torch.no_grad():
                out = model.generate(inputs.input_features, attention_mask=inputs.attention_mask,
                                     return_token_timestamps=True, return_dict_in_generate=True,
                                     force_unique_generate_call=True, **kwargs)
            seq = out["sequences"][0].tolist()
            times = out["token_timestamps"][0].tolist()
            assert len(times) == len(seq), (len(times), len(seq))
            prompt = 4 if not run.get("timestamps") else 3
            # As the ASR pipeline pairs them: a text token runs from the time of
            # the token before it to its own (both rounded to 10 ms).
            text_positions = [p for p in range(prompt, len(seq)) if seq[p] < eot]
            text_tokens = [seq[p] for p in text_positions]
            spans = [(round(times[p - 1], 2), round(times[p], 2)) for p in text_positions]
            words, _, indices = _combine_tokens_into_words(tok, text_tokens, LANGUAGE_NAMES[run["language"]])
            entry["runs"].append({
                "params": run, "prompt_length": prompt, "sequence": seq, "token_timestamps": times,
                "text_positions": text_positions, "token_spans": spans,
                "words": [{"text": w, "start": spans[ix[0]][0], "end": spans[ix[-1]][1], "tokens": ix}
                          for w, ix in zip(words, indices)]})
            print(i, run, seq, [round(t, 2) for t in times], words, flush=True)
        reference["inputs"].append(entry)
    with open(os.path.join(d, "reference_word_timestamps.json"), "w", encoding="utf-8") as f:
        json.dump(reference, f, ensure_ascii=False, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
