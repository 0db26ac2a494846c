// Whisper behind lingcast's AsrModel / AsrSession interface (src/asr).
//
// Whisper hears whole windows, not a stream: a session buffers the open
// utterance's audio and streams it with LocalAgreement-n (whisper_streaming.h).
// Partial() decodes the window again (with timestamps) once at least
// `streaming.min_partial_interval` of new audio has arrived, and at least the
// last partial decode's wall time / `streaming.max_compute_share` (else it
// returns the last partial unchanged), commits the words the last n hypotheses agree on and
// returns committed + the newest unconfirmed tail (`stable_prefix_chars` says
// where the committed text ends). Committed words are the forced start of every
// later decode, so they never change, and once the window passes
// `streaming.trim_after` the audio of committed segments is dropped and their
// text becomes the previous-text prompt. Finish() decodes the rest once (window
// after window when no partial ever trimmed a window longer than 30 s) and
// returns the whole utterance. Intervals are counted in audio; only the
// compute-share rule looks at wall time (a fast machine never meets it).
//
// Word times of a final: when the checkpoint has alignment heads (generation_
// config.json "alignment_heads", as the published checkpoints do), from the
// cross-attention of the final decode (whisper_word_timestamps.h: what
// transformers' word timestamps compute); words whose audio a partial already
// trimmed from the window keep the times of the partial decode that spelled
// them (partial decodes then align their words too). Every word of a checkpoint
// without alignment heads (or with WhisperWordTimeSource::kProportional) shares
// the utterance's span in proportion to its length in bytes. Chinese words are characters (or
// multi-character tokens) there, English words keep their punctuation. Their
// confidence is 1 - the no-speech probability (uncalibrated).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "asr/asr_engine.h"
#include "core/logger.h"
#include "neural/whisper/whisper_streaming.h"
#include "neural/whisper/whisper_transcriber.h"

namespace lingcast::neural {

enum class WhisperWordTimeSource {
  kAuto,          // from the alignment heads when the checkpoint has them, else proportional
  kRequired,      // from the alignment heads; Load fails naming generation_config.json without them
  kProportional,  // the words share the utterance's span by length (no extra decoder pass)
};

struct WhisperAsrOptions {
  std::string model_dir;
  std::string language;  // "zh", "en", ... ; empty: detected once per utterance (its first decode)
  WhisperTask task = WhisperTask::kTranscribe;  // kTranslate: English text from any language
  std::int64_t num_beams = 1;
  // Tokens one decode may generate (0: as many as the checkpoint's max_length
  // allows). A cap keeps a model that loops from costing a whole window's worth.
  std::int64_t max_new_tokens = 0;
  // And at most 10 + this many tokens per second of the window's audio (0: no
  // such cap): nobody says more than ~15 a second (fast Mandarin is ~6
  // characters, ~8 tokens, timestamps included), so a decode past it is looping
  // ("深深深..." on the first 0.24 s of an AISHELL utterance ran to 448 tokens).
  double max_tokens_per_second = 15.0;
  WhisperStreamingOptions streaming;
  // Every decode (partials and the final) encodes the utterance's audio, not a
  // padded 30 s window (WhisperOptions::encode_heard_only): partials of a
  // growing utterance then cost its length so far.
  bool encode_heard_only = true;
  // A final with nothing committed whose no-speech probability is above this is
  // empty (Whisper's 0.6); committed words are never taken back.
  double no_speech_threshold = 0.6;
  ModelOptions model;
  WhisperWordTimeSource word_times = WhisperWordTimeSource::kAuto;
  Logger* logger = nullptr;  // debug: each partial decode's time; may be null
  // On CUDA, Load transcribes a silent window twice as a session would (the
  // encoder's graph recorded, the decoder's shapes met), so the first words heard
  // do not pay for it; nothing on the CPU.
  bool warm_at_load = true;
  // Finish() also decodes the utterance with Whisper's translate task and puts the
  // English in AsrHypothesis::translation (speech not heard as English only): the
  // offline zh -> en fallback when no MT engine answers (docs/live.md). One more
  // decode per final; audio a partial already trimmed from the window is not in it.
  bool also_translate = false;
};

class WhisperAsrModel : public AsrModel {
 public:
  // Every problem with the checkpoint is one line naming the file, tensor or token.
  static absl::StatusOr<std::shared_ptr<WhisperAsrModel>> Load(const WhisperAsrOptions& options);

  absl::StatusOr<std::unique_ptr<AsrSession>> NewSession() const override;
  Language language() const override;
  std::string name() const override { return "whisper"; }
  const WhisperTranscriber& transcriber() const { return *transcriber_; }

 private:
  WhisperAsrModel(WhisperAsrOptions options, std::shared_ptr<const WhisperTranscriber> transcriber)
      : options_(std::move(options)), transcriber_(std::move(transcriber)) {}

  WhisperAsrOptions options_;
  std::shared_ptr<const WhisperTranscriber> transcriber_;
};

class WhisperAsrSession : public AsrSession {
 public:
  // InvalidArgument for streaming options that cannot work (CheckStreamingOptions).
  static absl::StatusOr<std::unique_ptr<WhisperAsrSession>> Create(WhisperAsrOptions options,
                                                                   std::shared_ptr<const WhisperTranscriber> transcriber);

  using AsrSession::AcceptAudio;
  absl::Status AcceptAudio(const AudioBuffer& pcm16k, MediaTime pts) override;
  std::optional<AsrHypothesis> Partial() override;
  absl::StatusOr<AsrHypothesis> Finish() override;
  // Each opening's first kOpeningTokens tokens scored after the prompt and
  // <|0.00|> of the last partial decode, on that decode's encoder output (no
  // second encode), all openings in one decoder pass
  // (WhisperTranscriber::ScoreOpenings). An opening that begins with a Latin
  // letter or digit is scored with the space Whisper writes before a word. Its
  // wall time counts toward the partials' compute share, as a decode's does.
  absl::StatusOr<std::vector<double>> ScoreOpenings(const std::vector<std::string>& openings) override;
  MediaTime position() const override { return position_; }

  // Tokens of an opening scored (bench/whisper_line_check: three told a line
  // from 33 others on real Mandarin speech).
  static constexpr std::size_t kOpeningTokens = 3;

  // What the streaming policy has settled, for tests and tools: committed words
  // still inside the window, and the text tokens of those whose audio was dropped.
  const std::vector<StreamWord>& committed_words() const { return committed_; }
  const std::vector<std::int64_t>& previous_tokens() const { return previous_tokens_; }
  // Samples of the open utterance dropped from the window so far.
  std::size_t trimmed_samples() const { return trimmed_; }

 private:
  WhisperAsrSession(WhisperAsrOptions options, std::shared_ptr<const WhisperTranscriber> transcriber, LocalAgreement policy)
      : options_(std::move(options)),
        transcriber_(std::move(transcriber)),
        policy_(std::move(policy)),
        language_(options_.language) {}

  // One decode of `count` window samples from `at`, continuing the committed text.
  // `keep_encoder_output`: the result carries the encoder's output (for TranslateWindow).
  WhisperResult DecodeWindow(std::size_t at, std::size_t count, bool continue_committed, bool word_times = false,
                             bool keep_encoder_output = false) const;
  // Drops the audio of committed words up to the last committed segment end
  // once the window is longer than trim_after (or the committed words would
  // crowd the decoder's positions).
  void TrimWindow();
  std::size_t window_samples() const;
  std::string Text(const std::vector<std::int64_t>& text_tokens) const;
  // The most tokens speech of `samples` could hold (max_tokens_per_second).
  std::int64_t SpokenAtMost(std::size_t samples) const;
  // The window's audio in English (Whisper's translate task), window by window;
  // `first_encoded`: the encoder's output of the first window, when the final
  // decode kept it (the same audio: not encoded again).
  std::string TranslateWindow(const torch::Tensor& first_encoded) const;
  // `timed`: words with their times (final only); without them the words share
  // the span by length.
  AsrHypothesis Hypothesis(std::string text, double no_speech, bool final,
                           std::optional<std::vector<AsrWord>> timed = std::nullopt) const;
  bool word_times() const;
  void Reset();

  WhisperAsrOptions options_;
  std::shared_ptr<const WhisperTranscriber> transcriber_;
  LocalAgreement policy_;
  std::vector<float> audio_;  // the open utterance from the window's start on
  std::optional<MediaTime> start_;
  MediaTime position_;
  std::size_t trimmed_ = 0;                     // samples of the utterance dropped before audio_
  std::size_t decoded_at_ = 0;                  // trimmed_ + audio_.size() at the last partial decode
  std::size_t next_interval_ = 0;               // samples of new audio the next partial decode waits for
  std::string language_;                        // of the utterance, once heard (or given)
  std::vector<std::int64_t> previous_tokens_;   // committed text whose audio was dropped
  std::vector<StreamWord> committed_;           // committed words inside the window
  // The newest hypothesis while the utterance is shorter than commit_after (it
  // is shown, not agreed on); empty once decodes may commit.
  std::vector<StreamWord> early_tail_;
  // The trimmed words with the times their partial decodes aligned them to
  // (on the session's timeline); valid while every trimmed word had them.
  std::vector<AsrWord> trimmed_words_;
  bool trimmed_words_timed_ = true;
  std::optional<AsrHypothesis> last_partial_;
  // The encoder's output of the last partial decode while it decoded the
  // utterance from its start with nothing forced (ScoreOpenings); undefined
  // otherwise.
  torch::Tensor opening_encoded_;
};

}  // namespace lingcast::neural
