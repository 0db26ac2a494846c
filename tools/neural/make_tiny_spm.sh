#!/usr/bin/env bash
# Makes the tiny Marian tokenizer used by src/neural's tests: two SentencePiece
# unigram models (source.spm from the Chinese side, target.spm from the English
# side of tiny_corpus.*.txt) and the shared vocab.json, laid out as OPUS-MT's are:
# "</s>" = 0, "<unk>" = 1, the pieces of both models, "<pad>" last.
# Needs spm_train (Debian package `sentencepiece`) and python3. Deterministic for
# a given spm_train version; the output is committed, so this runs only when the
# corpus changes. No normalization rules (identity): they would add 240 KB of
# tables to each fixture; the tokenizer applies whatever rules a model carries.
#
#   tools/neural/make_tiny_spm.sh [OUT_DIR]   (default: src/neural/testdata/marian_tiny)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="${1:-$here/../../src/neural/testdata/marian_tiny}"
mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

train() {  # corpus vocab_size prefix
  spm_train --input="$1" --model_prefix="$work/$3" --vocab_size="$2" \
    --model_type=unigram --character_coverage=1.0 --normalization_rule_name=identity --hard_vocab_limit=false \
    --num_threads=1 --seed_sentencepiece_size=10000 --minloglevel=2 >/dev/null 2>&1
}
train "$here/tiny_corpus.zh.txt" 200 source
train "$here/tiny_corpus.en.txt" 160 target
cp "$work/source.model" "$out/source.spm"
cp "$work/target.model" "$out/target.spm"

python3 - "$work/source.vocab" "$work/target.vocab" "$out/vocab.json" <<'PY'
import json, sys
vocab = {"</s>": 0, "<unk>": 1}
for path in sys.argv[1:3]:
    with open(path, encoding="utf-8") as f:
        for line in f:
            piece = line.rstrip("\n").split("\t")[0]
            if piece in ("<unk>", "<s>", "</s>") or piece in vocab:
                continue
            vocab[piece] = len(vocab)
vocab["<pad>"] = len(vocab)
with open(sys.argv[3], "w", encoding="utf-8") as f:
    json.dump(vocab, f, ensure_ascii=False, indent=1)
    f.write("\n")
print(f"make_tiny_spm: {len(vocab)} tokens in {sys.argv[3]}")
PY
