// Whisper token and word times from the decoder's cross-attention, as
// transformers computes them (WhisperForConditionalGeneration.generate with
// return_token_timestamps=True, then its ASR pipeline's word grouping).
//
// The cross-attention probabilities of the checkpoint's alignment heads
// (generation_config.json "alignment_heads": (decoder layer, head) pairs that
// follow the audio) over the heard encoder frames are normalized per frame
// across the generated tokens (minus the mean, over the standard deviation),
// smoothed along time by a median filter (config.json median_filter_width, 7),
// averaged over the heads, and aligned to the frames by dynamic time warping.
// A token's time is the first frame (20 ms each) its alignment path reaches
// through the row of the token after it, so it marks where the token ends; the
// prompt's tokens are at 0 and the last token repeats the time before it. A text
// token then spans from the time of the token before it to its own.
//
// Words: the text tokens are cut where their bytes complete UTF-8 characters,
// then (except for languages written without spaces: zh, ja, th, lo, my, yue,
// where each such piece is a word) joined up to the next piece that starts with
// a space or is punctuation; opening punctuation joins the word after it and
// closing punctuation the word before it. A word spans its first token's start
// to its last token's end.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <torch/types.h>
#include <torch/utils.h>

#include "neural/whisper/whisper_model.h"
#include "neural/whisper/whisper_tokenizer.h"

namespace lingcast::neural {

inline constexpr double kSecondsPerEncoderFrame = 0.02;

struct WhisperWordTiming {
  std::string text;                   // as decoded: English words keep their leading space
  double start = 0.0, end = 0.0;      // seconds from the window's start, rounded to 10 ms
  std::vector<std::size_t> token_indices;  // into the text tokens the words were made of
};

// x (..., frames) median-filtered along the last dimension with an odd `width`,
// the edges mirrored (not repeated); returned unchanged when frames <= width / 2.
// kInvalidArgument for an even or non-positive width.
torch::Tensor MedianFilterFrames(const torch::Tensor& x, std::int64_t width);

// The cheapest monotonic path through `cost` (tokens, frames) from its first to
// its last cell (steps: diagonal, down a token, right a frame; ties go right,
// then down), and for each token row the first frame the path reaches in it.
std::vector<std::int64_t> AlignTokenStarts(const torch::Tensor& cost);

// Times (seconds) for every position of a sequence of `sequence_length` tokens
// whose first `prompt_length` were given, from `attention` (heads, rows,
// frames): the alignment heads' cross-attention probabilities at positions
// prompt_length .. sequence_length - 2 (rows = sequence_length - 1 -
// prompt_length), cropped to the heard frames. Each value is rounded to float as
// the reference keeps them.
std::vector<double> TokenTimestamps(const torch::Tensor& attention, std::int64_t prompt_length,
                                    std::int64_t sequence_length, std::int64_t median_filter_width);

// Whether `language` ("zh") is written without spaces, so each character is a word.
bool WordsAreCharacters(const std::string& language);

// Words of `text_tokens` (ids below <|endoftext|>), each token spanning
// token_spans[i] (seconds); see the header comment for the rules.
std::vector<WhisperWordTiming> GroupWords(const WhisperTokenizer& tokenizer, const std::vector<std::int64_t>& text_tokens,
                                          const std::vector<std::pair<double, double>>& token_spans,
                                          const std::string& language);

// kInvalidArgument naming DIR/generation_config.json when `config` has no alignment heads.
void RequireAlignmentHeads(const WhisperConfig& config, const std::string& dir);

struct WhisperWordTimes {
  std::vector<double> token_timestamps;  // one per position of the sequence
  std::vector<WhisperWordTiming> words;  // of its text tokens after the prompt
};

// The whole computation for one decoded `sequence` (prompt, generated tokens,
// <|endoftext|> when reached) over `encoder_out` (1, S, D), the first
// `prompt_length` tokens given, `heard_frames` mel frames of audio (two per
// encoder frame), words in `language` (the written one). Text tokens are ids
// below `end_of_text`. kInvalidArgument naming generation_config.json when the
// checkpoint has no alignment_heads.
// `cross`: the cross keys and values the decode projected (WhisperModel::Generate), or null.
WhisperWordTimes AlignWords(const WhisperModel& model, const WhisperTokenizer& tokenizer, const torch::Tensor& encoder_out,
                            const std::vector<std::int64_t>& sequence, std::int64_t prompt_length,
                            std::int64_t heard_frames, const std::string& language, std::int64_t end_of_text,
                            const std::vector<CrossKv>* cross = nullptr);

}  // namespace lingcast::neural
