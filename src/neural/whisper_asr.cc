#include "neural/whisper_asr.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "neural/status_adapter.h"

namespace lingcast::neural {
namespace {

Language LanguageOf(const std::string& code) { return code == "zh" ? Language::kZh : Language::kEn; }

}  // namespace

absl::StatusOr<std::shared_ptr<WhisperAsrModel>> WhisperAsrModel::Load(const WhisperAsrOptions& options) {
  auto transcriber =
      CallNeural("loading " + options.model_dir, [&] { return WhisperTranscriber::Load(options.model_dir, options.model); });
  if (!transcriber.ok()) return transcriber.status();
  const WhisperTranscriber& t = **transcriber;
  if (!options.language.empty() && t.multilingual() && t.special().languages.count(options.language) == 0) {
    return absl::InvalidArgumentError(absl::StrCat(options.model_dir, ": the checkpoint has no language token <|",
                                                   options.language, "|>"));
  }
  if (!t.multilingual() && options.task == WhisperTask::kTranslate) {
    return absl::InvalidArgumentError(absl::StrCat(options.model_dir, " is an English-only Whisper checkpoint: it cannot translate"));
  }
  if (!t.multilingual() && !options.language.empty() && options.language != "en") {
    return absl::InvalidArgumentError(absl::StrCat(options.model_dir, " is an English-only Whisper checkpoint: it cannot hear \"",
                                                   options.language, "\""));
  }
  return std::shared_ptr<WhisperAsrModel>(new WhisperAsrModel(options, *std::move(transcriber)));
}

absl::StatusOr<std::unique_ptr<AsrSession>> WhisperAsrModel::NewSession() const {
  return std::unique_ptr<AsrSession>(std::make_unique<WhisperAsrSession>(options_, transcriber_));
}

Language WhisperAsrModel::language() const {
  if (options_.task == WhisperTask::kTranslate) return Language::kEn;
  return LanguageOf(options_.language.empty() ? "en" : options_.language);
}

absl::Status WhisperAsrSession::AcceptAudio(const AudioBuffer& pcm16k, MediaTime pts) {
  if (pcm16k.sample_rate != kAsrSampleRate || pcm16k.channels != 1) {
    return absl::InvalidArgumentError(absl::StrCat("speech recognition takes 16000 Hz mono audio, got ", pcm16k.sample_rate,
                                                   " Hz with ", pcm16k.channels, " channel(s)"));
  }
  if (pts < position_) {
    return absl::InvalidArgumentError(absl::StrCat("audio at ", pts.micros(), " us goes back before the position ",
                                                   position_.micros(), " us"));
  }
  if (!start_) {
    start_ = pts;
  } else if (pts > position_) {
    // Audio the caller skipped inside an utterance is silence to the model.
    audio_.resize(audio_.size() + static_cast<std::size_t>((pts - position_).ToSamples(kAsrSampleRate)), 0.0f);
  }
  audio_.insert(audio_.end(), pcm16k.samples.begin(), pcm16k.samples.end());
  position_ = pts + pcm16k.duration();
  return absl::OkStatus();
}

absl::StatusOr<std::vector<WhisperResult>> WhisperAsrSession::Decode(std::size_t begin, std::size_t end) const {
  return CallNeural("recognizing with whisper", [&] {
    WhisperOptions o;
    o.language = options_.language;
    o.task = options_.task;
    o.num_beams = options_.num_beams;
    const auto window = static_cast<std::size_t>(transcriber_->features().window_samples());
    std::vector<WhisperResult> results;
    for (std::size_t at = begin; at < end; at += window) {
      const std::size_t count = std::min(window, end - at);
      results.push_back(transcriber_->Transcribe(audio_.data() + at, static_cast<std::int64_t>(count), o));
    }
    return results;
  });
}

AsrHypothesis WhisperAsrSession::Hypothesis(const std::vector<WhisperResult>& results, bool final) const {
  AsrHypothesis h;
  h.final = final;
  h.start = start_.value_or(position_);
  h.end = position_;
  std::vector<std::string> words;
  double no_speech = 0.0;
  for (const WhisperResult& r : results) {
    no_speech = std::max(no_speech, r.no_speech_probability);
    if (final && r.no_speech_probability > options_.no_speech_threshold) continue;
    for (absl::string_view word : absl::StrSplit(r.text, absl::ByAnyChar(" \t\n"), absl::SkipEmpty())) {
      words.emplace_back(word);
    }
  }
  h.text = absl::StrJoin(words, " ");
  if (!results.empty()) h.language = options_.task == WhisperTask::kTranslate ? Language::kEn : LanguageOf(results.front().language);
  if (!final || words.empty()) return h;
  std::size_t total = 0;
  for (const auto& w : words) total += w.size();
  const std::int64_t span = (h.end - h.start).micros();
  std::size_t before = 0;
  for (const auto& w : words) {
    AsrWord word;
    word.text = w;
    word.start = h.start + MediaTime::Micros(span * static_cast<std::int64_t>(before) / static_cast<std::int64_t>(total));
    before += w.size();
    word.end = h.start + MediaTime::Micros(span * static_cast<std::int64_t>(before) / static_cast<std::int64_t>(total));
    word.confidence = 1.0 - no_speech;
    h.words.push_back(std::move(word));
  }
  return h;
}

std::optional<AsrHypothesis> WhisperAsrSession::Partial() {
  if (audio_.empty()) return std::nullopt;
  const auto interval = static_cast<std::size_t>(options_.partial_interval.ToSamples(kAsrSampleRate));
  if (last_partial_ && audio_.size() < decoded_at_ + interval) return last_partial_;
  const auto window = static_cast<std::size_t>(transcriber_->features().window_samples());
  const std::size_t begin = audio_.size() > window ? audio_.size() - window : 0;
  absl::StatusOr<std::vector<WhisperResult>> results = Decode(begin, audio_.size());
  if (!results.ok()) return std::nullopt;  // a partial is a hint; Finish() reports the error
  decoded_at_ = audio_.size();
  AsrHypothesis h = Hypothesis(*results, /*final=*/false);
  if (h.text.empty()) return std::nullopt;
  last_partial_ = h;
  return h;
}

absl::StatusOr<AsrHypothesis> WhisperAsrSession::Finish() {
  absl::StatusOr<std::vector<WhisperResult>> results =
      audio_.empty() ? absl::StatusOr<std::vector<WhisperResult>>(std::vector<WhisperResult>{}) : Decode(0, audio_.size());
  AsrHypothesis h = results.ok() ? Hypothesis(*results, /*final=*/true) : AsrHypothesis{};
  audio_.clear();
  start_.reset();
  decoded_at_ = 0;
  last_partial_.reset();
  if (!results.ok()) return results.status();
  return h;
}

}  // namespace lingcast::neural
