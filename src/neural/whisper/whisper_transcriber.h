// WhisperTranscriber: a Whisper checkpoint that turns up to 30 s of 16 kHz audio
// into text, as transformers' WhisperForConditionalGeneration.generate does for
// one window: log-mel features, the encoder, language detection (the language
// token most likely after <|startoftranscript|>) unless a language is given, the
// prompt (<|startoftranscript|>, language, <|transcribe|> or <|translate|>,
// <|notimestamps|> unless timestamps are asked for), then greedy or beam search
// with the checkpoint's suppressed tokens, the tokens suppressed at the first
// step, and Whisper's timestamp rules. The no-speech probability is that of
// <|nospeech|> right after <|startoftranscript|>, as the reference computes it.
//
// Immutable after loading: Transcribe may be called from several threads.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <utility>
#include <vector>

#include <torch/types.h>
#include <torch/utils.h>

#include "neural/whisper/whisper_features.h"
#include "neural/whisper/whisper_model.h"
#include "neural/whisper/whisper_tokenizer.h"
#include "neural/whisper/whisper_word_timestamps.h"

namespace lingcast::neural {

enum class WhisperTask { kTranscribe, kTranslate };

struct WhisperOptions {
  std::string language;  // a code of the checkpoint's language tokens ("en", "zh"); empty: detect
  WhisperTask task = WhisperTask::kTranscribe;
  bool timestamps = false;
  std::int64_t num_beams = 1;
  double length_penalty = 1.0;
  std::int64_t max_new_tokens = 0;  // 0: the checkpoint's max_length, within max_target_positions
  std::stop_token stop;
  // Streaming (whisper_streaming.h). Text heard before this window: fed after
  // <|startofprev|>, before <|startoftranscript|>, as the reference's prompt_ids
  // (the last max_target_positions / 2 - 1 tokens are kept).
  std::vector<std::int64_t> previous_tokens;
  // Tokens this window's transcript is forced to start with (what an earlier
  // decode generated and the caller committed, timestamps included): fed after
  // the task prompt and not generated again. Whisper's rules see them as generated.
  std::vector<std::int64_t> prefix_tokens;
  // Token and word times from the cross-attention of the checkpoint's alignment
  // heads (whisper_word_timestamps.h): WhisperResult::token_timestamps and
  // ::words. kInvalidArgument naming generation_config.json when the checkpoint
  // has no alignment_heads (has_word_timestamps() says so beforehand).
  bool word_timestamps = false;
  // Encode only the audio given (rounded up to whole encoder positions, plus
  // `heard_margin_frames` mel frames of the padding after it) instead of the
  // 30 s window the model was trained on (and transformers and faster-whisper
  // always encode): the encoder's cost is then the utterance's length (a 4 s
  // utterance ~ a seventh of a window's), its attention the square of it. Off by
  // default (the reference's computation); src/neural/README.md has what it
  // costs in accuracy on real speech.
  bool encode_heard_only = false;
  std::int64_t heard_margin_frames = 100;  // 1 s
  // The encoder's output for these same samples and encoding options, from an
  // earlier decode (WhisperResult::encoder_output): used instead of encoding
  // again (a second task on one utterance: its transcript, then its English).
  torch::Tensor encoder_output;
  bool keep_encoder_output = false;  // return it in WhisperResult::encoder_output
  // End a decode caught in a loop and keep its phrase once (LoopedTokens). Off
  // by default, as the reference decodes; the session's translate task turns it
  // on (whisper_asr.cc). Decodes through the eager path (scores on the host).
  bool end_loops = false;
};

struct WhisperSegment {
  double start = 0.0;  // seconds from the window's start
  double end = 0.0;
  std::string text;
};

struct WhisperResult {
  std::vector<std::int64_t> sequence;  // the prompt, the generated tokens, <|endoftext|> when reached
  std::vector<std::int64_t> tokens;    // prefix_tokens then the generated ones, without <|endoftext|>
  std::size_t tokens_begin = 0;        // where `tokens` start in `sequence`
  std::string text;                    // `tokens` decoded, special and timestamp tokens left out
  std::string language;                // the code used ("en")
  double language_probability = 1.0;   // when detected: its probability among the language tokens
  double no_speech_probability = 0.0;
  std::vector<WhisperSegment> segments;  // with timestamps: one per timestamp pair; else one
  // With word_timestamps: one time (seconds) per position of `sequence`, as
  // transformers' token_timestamps (0 for the prompt; a token's time marks its
  // end), and the words of the text tokens (prefix_tokens' too) with their spans.
  std::vector<double> token_timestamps;
  std::vector<WhisperWordTiming> words;
  torch::Tensor encoder_output;  // with keep_encoder_output: (1, positions, d_model)
};

// The ids of Whisper's special tokens in one checkpoint.
struct WhisperSpecialTokens {
  std::int64_t start_of_transcript = 0, end_of_text = 0, transcribe = -1, translate = -1, no_timestamps = -1,
               no_speech = -1, timestamp_begin = -1, start_of_prev = -1;
  std::map<std::string, std::int64_t> languages;  // "en" -> id of <|en|>; empty for English-only models
};

// Whisper's decoder can fall into a loop, saying one phrase again and again to
// the token limit (Whisper base translating AISHELL's 甚至出现交易几乎停滞的情况:
// "of the current generation" twenty times, 6.5 s of decoding on the H200 that
// held up the live show). A phrase of 4 tokens or more said three times in a
// row, or one token twelve times, is taken for such a loop: the decode ends
// there and keeps the phrase once. Returns how many of `text_tokens`' last
// tokens are repeats to drop; 0 when they end in no loop. WhisperOptions::end_loops
// applies it.
std::size_t LoopedTokens(const std::vector<std::int64_t>& text_tokens);

class WhisperTranscriber {
 public:
  // Loads config, weights, tokenizer and front-end settings from `dir`; throws
  // NeuralError naming the file, tensor or token that is missing or wrong.
  static std::shared_ptr<const WhisperTranscriber> Load(const std::string& dir, const ModelOptions& options = {});

  const WhisperModel& model() const { return *model_; }
  const WhisperTokenizer& tokenizer() const { return tokenizer_; }
  const WhisperFeatures& features() const { return features_; }
  const WhisperSpecialTokens& special() const { return special_; }
  bool multilingual() const { return !special_.languages.empty(); }

  // Language code -> probability over the language tokens after
  // <|startoftranscript|>, given the encoder output of one window (1, S, D).
  std::vector<std::pair<std::string, double>> DetectLanguage(const torch::Tensor& encoder_out) const;

  // `count` samples at 16 kHz (at most one window; more is kInvalidArgument).
  WhisperResult Transcribe(const float* samples, std::int64_t count, const WhisperOptions& options) const;
  // From mel features (1, num_mel_bins, frames). Word timestamps look at the
  // first `heard_frames` mel frames (those of the audio; 0: all), as the
  // reference does when given the features' attention mask.
  WhisperResult TranscribeFeatures(const torch::Tensor& features, const WhisperOptions& options,
                                   std::int64_t heard_frames = 0) const;
  // Whether the checkpoint can give word timestamps (it has alignment_heads).
  bool has_word_timestamps() const { return !model_->config().alignment_heads.empty(); }

  // The decoder prompt for `language` ("" on an English-only model) and the
  // options: previous tokens, <|startoftranscript|>, language, task,
  // <|notimestamps|>; prefix_tokens are not part of it.
  std::vector<std::int64_t> Prompt(const std::string& language, const WhisperOptions& options) const;

  // How likely the decoder finds each of `openings` (text tokens) right after
  // `prompt`, given the encoder output of one window (1, S, D): the mean
  // log-probability per token of each opening's first `max_tokens` tokens, all
  // openings in one teacher-forced pass (nothing is generated, so unlike a
  // prompt the text cannot be copied into a transcript). An empty opening
  // scores -infinity. What the script follower asks to commit the line expected
  // next before the greedy text spells it (WhisperAsrSession::ScoreOpenings).
  std::vector<double> ScoreOpenings(const torch::Tensor& encoder_out, const std::vector<std::int64_t>& prompt,
                                    const std::vector<std::vector<std::int64_t>>& openings,
                                    std::size_t max_tokens) const;

 private:
  WhisperTranscriber(std::shared_ptr<const WhisperModel> model, WhisperTokenizer tokenizer, WhisperFeatures features,
                     WhisperSpecialTokens special)
      : model_(std::move(model)), tokenizer_(std::move(tokenizer)), features_(std::move(features)), special_(std::move(special)) {}

  std::vector<WhisperSegment> Segments(const std::vector<std::int64_t>& tokens, double window_seconds) const;
  // Fills result.token_timestamps and result.words (whisper_word_timestamps.h).
  void AddWordTimes(const torch::Tensor& encoded, const std::vector<CrossKv>& cross, std::int64_t rules_begin,
                    std::int64_t heard_frames, const std::string& written_language, WhisperResult& result) const;

  std::shared_ptr<const WhisperModel> model_;
  WhisperTokenizer tokenizer_;
  WhisperFeatures features_;
  WhisperSpecialTokens special_;
};

}  // namespace lingcast::neural
