// Whisper behind lingcast's AsrModel / AsrSession interface (src/asr).
//
// Whisper hears whole windows, not a stream: a session buffers the open
// utterance's audio; Partial() decodes the last 30 s of it again once at least
// `partial_interval` of new audio has arrived (else it returns the last partial
// unchanged), and Finish() decodes the whole utterance, window after window.
// The interval is counted in audio, not wall time, so runs are reproducible.
//
// Word times: Whisper gives none without timestamp tokens, so a final's words
// share the utterance's span in proportion to their length in bytes; their
// confidence is 1 - the no-speech probability (uncalibrated).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "asr/asr_engine.h"
#include "neural/whisper_transcriber.h"

namespace lingcast::neural {

struct WhisperAsrOptions {
  std::string model_dir;
  std::string language;  // "zh", "en", ... ; empty: detected per utterance
  WhisperTask task = WhisperTask::kTranscribe;  // kTranslate: English text from any language
  std::int64_t num_beams = 1;
  MediaTime partial_interval = MediaTime::Millis(1000);
  // A final whose no-speech probability is above this is empty (Whisper's 0.6).
  double no_speech_threshold = 0.6;
  ModelOptions model;
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
  WhisperAsrSession(WhisperAsrOptions options, std::shared_ptr<const WhisperTranscriber> transcriber)
      : options_(std::move(options)), transcriber_(std::move(transcriber)) {}

  using AsrSession::AcceptAudio;
  absl::Status AcceptAudio(const AudioBuffer& pcm16k, MediaTime pts) override;
  std::optional<AsrHypothesis> Partial() override;
  absl::StatusOr<AsrHypothesis> Finish() override;
  MediaTime position() const override { return position_; }

 private:
  // Decodes samples [begin, end) of the utterance, window by window.
  absl::StatusOr<std::vector<WhisperResult>> Decode(std::size_t begin, std::size_t end) const;
  AsrHypothesis Hypothesis(const std::vector<WhisperResult>& results, bool final) const;

  WhisperAsrOptions options_;
  std::shared_ptr<const WhisperTranscriber> transcriber_;
  std::vector<float> audio_;  // the open utterance
  std::optional<MediaTime> start_;
  MediaTime position_;
  std::size_t decoded_at_ = 0;  // audio_.size() at the last partial decode
  std::optional<AsrHypothesis> last_partial_;
};

}  // namespace lingcast::neural
