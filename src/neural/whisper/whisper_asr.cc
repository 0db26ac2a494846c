#include "neural/whisper/whisper_asr.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/status.h"
#include "neural/core/status_adapter.h"

namespace lingcast::neural {
namespace {

Language LanguageOf(const std::string& code) { return code == "zh" ? Language::kZh : Language::kEn; }

// The space-separated words of `text` sharing [start, end) in proportion to their bytes.
std::vector<AsrWord> ProportionalWords(const std::string& text, MediaTime start, MediaTime end) {
  std::vector<std::string> spelled = absl::StrSplit(text, ' ', absl::SkipEmpty());
  std::size_t total = 0;
  for (const auto& w : spelled) total += w.size();
  std::vector<AsrWord> words;
  const std::int64_t span = (end - start).micros();
  std::size_t before = 0;
  for (auto& w : spelled) {
    AsrWord word;
    word.start = start + MediaTime::Micros(span * static_cast<std::int64_t>(before) / static_cast<std::int64_t>(total));
    before += w.size();
    word.end = start + MediaTime::Micros(span * static_cast<std::int64_t>(before) / static_cast<std::int64_t>(total));
    word.text = std::move(w);
    words.push_back(std::move(word));
  }
  return words;
}

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
  LC_RETURN_IF_ERROR(CheckStreamingOptions(
      options.streaming, MediaTime::FromSamples(t.features().window_samples(), kAsrSampleRate)));
  if (options.word_times == WhisperWordTimeSource::kRequired) {
    LC_RETURN_IF_ERROR(CallNeural("word times", [&] {
      RequireAlignmentHeads(t.model().config(), options.model_dir);
      return true;
    }).status());
  }
  if (options.warm_at_load && t.model().options().device.is_cuda()) {
    LC_RETURN_IF_ERROR(CallNeural("warming " + options.model_dir, [&] {
      const std::vector<float> silence(static_cast<std::size_t>(t.features().window_samples()), 0.0f);
      WhisperOptions o;
      o.language = options.language;
      o.task = options.task;
      o.num_beams = options.num_beams;
      o.timestamps = true;
      o.max_new_tokens = options.max_new_tokens;
      for (int pass = 0; pass < 2; ++pass) t.Transcribe(silence.data(), static_cast<std::int64_t>(silence.size()), o);
      ReleaseCachedDeviceMemory(t.model().options().device);
      return true;
    }).status());
  }
  return std::shared_ptr<WhisperAsrModel>(new WhisperAsrModel(options, *std::move(transcriber)));
}

absl::StatusOr<std::unique_ptr<AsrSession>> WhisperAsrModel::NewSession() const {
  LC_ASSIGN_OR_RETURN(std::unique_ptr<WhisperAsrSession> session, WhisperAsrSession::Create(options_, transcriber_));
  return std::unique_ptr<AsrSession>(std::move(session));
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

absl::StatusOr<std::unique_ptr<WhisperAsrSession>> WhisperAsrSession::Create(
    WhisperAsrOptions options, std::shared_ptr<const WhisperTranscriber> transcriber) {
  LC_RETURN_IF_ERROR(CheckStreamingOptions(
      options.streaming, MediaTime::FromSamples(transcriber->features().window_samples(), kAsrSampleRate)));
  LC_ASSIGN_OR_RETURN(LocalAgreement policy, LocalAgreement::Create(options.streaming.agreement));
  return std::unique_ptr<WhisperAsrSession>(
      new WhisperAsrSession(std::move(options), std::move(transcriber), std::move(policy)));
}

std::size_t WhisperAsrSession::window_samples() const {
  return static_cast<std::size_t>(transcriber_->features().window_samples());
}

bool WhisperAsrSession::word_times() const {
  return options_.word_times != WhisperWordTimeSource::kProportional && transcriber_->has_word_timestamps();
}

WhisperResult WhisperAsrSession::DecodeWindow(std::size_t at, std::size_t count, bool continue_committed,
                                              bool word_times, bool keep_encoder_output) const {
  WhisperOptions o;
  o.word_timestamps = word_times;
  o.keep_encoder_output = keep_encoder_output;
  o.encode_heard_only = options_.encode_heard_only;
  o.language = language_;
  o.task = options_.task;
  o.num_beams = options_.num_beams;
  // Timestamps give the segment ends where the window can be trimmed.
  o.timestamps = true;
  if (continue_committed) {
    o.previous_tokens = previous_tokens_;
    o.prefix_tokens = TokensOf(committed_, /*text_only=*/false);
  }
  // Room left in the decoder's positions after the prompt (at most the newest
  // half of them hold previous text; 4 for <|startoftranscript|>, language, task,
  // <|notimestamps|>; the prefix) bounds what one decode generates.
  const std::int64_t positions = transcriber_->model().config().max_target_positions;
  const std::int64_t previous =
      o.previous_tokens.empty() ? 0 : 1 + std::min<std::int64_t>(static_cast<std::int64_t>(o.previous_tokens.size()), positions / 2 - 1);
  const std::int64_t room = positions - previous - 4 - static_cast<std::int64_t>(o.prefix_tokens.size());
  const std::int64_t wanted = options_.max_new_tokens > 0 ? options_.max_new_tokens : transcriber_->model().config().max_length;
  o.max_new_tokens = std::max<std::int64_t>(1, std::min({wanted, room, SpokenAtMost(count)}));
  return transcriber_->Transcribe(audio_.data() + at, static_cast<std::int64_t>(count), o);
}

std::int64_t WhisperAsrSession::SpokenAtMost(std::size_t samples) const {
  if (options_.max_tokens_per_second <= 0.0) return std::numeric_limits<std::int64_t>::max();
  return 10 + static_cast<std::int64_t>(options_.max_tokens_per_second * static_cast<double>(samples) / kAsrSampleRate);
}

std::string WhisperAsrSession::TranslateWindow(const torch::Tensor& first_encoded) const {
  std::vector<std::int64_t> english;
  for (std::size_t at = 0; at < audio_.size(); at += window_samples()) {
    const std::size_t count = std::min(window_samples(), audio_.size() - at);
    WhisperOptions o;
    o.language = language_;
    o.task = WhisperTask::kTranslate;
    o.num_beams = options_.num_beams;
    // Whisper base's translations loop far more often than its transcripts
    // (LoopedTokens): end them there rather than at the token limit.
    o.end_loops = true;
    // Timestamps on, as every session decode: encoding only the heard audio
    // without them loops (LibriSpeech repeated its sentence to the token limit
    // with 1 s of padding); the timestamp tokens are dropped below.
    o.timestamps = true;
    o.encode_heard_only = options_.encode_heard_only;
    // As DecodeWindow: no more tokens than speech of this length could hold.
    o.max_new_tokens = std::max<std::int64_t>(
        1, std::min<std::int64_t>(transcriber_->model().config().max_length - 4, SpokenAtMost(count)));
    if (at == 0) o.encoder_output = first_encoded;
    const WhisperResult r = transcriber_->Transcribe(audio_.data() + at, static_cast<std::int64_t>(count), o);
    for (std::int64_t id : r.tokens) {
      if (id < transcriber_->special().end_of_text) english.push_back(id);
    }
  }
  return Text(english);
}

std::string WhisperAsrSession::Text(const std::vector<std::int64_t>& text_tokens) const {
  const std::string decoded = transcriber_->tokenizer().Decode(text_tokens);
  std::vector<std::string> words = absl::StrSplit(decoded, absl::ByAnyChar(" \t\n"), absl::SkipEmpty());
  return absl::StrJoin(words, " ");
}

AsrHypothesis WhisperAsrSession::Hypothesis(std::string text, double no_speech, bool final,
                                            std::optional<std::vector<AsrWord>> timed) const {
  AsrHypothesis h;
  h.final = final;
  h.start = start_.value_or(position_);
  h.end = position_;
  h.text = std::move(text);
  h.language = options_.task == WhisperTask::kTranslate ? Language::kEn : LanguageOf(language_);
  if (final) h.stable_prefix_chars = h.text.size();
  if (!final || h.text.empty()) return h;
  if (timed) {
    // Inside the utterance and in order, whatever the alignment said.
    MediaTime floor = h.start;
    for (AsrWord& word : *timed) {
      word.start = std::clamp(word.start, floor, h.end);
      word.end = std::clamp(word.end, word.start, h.end);
      word.confidence = 1.0 - no_speech;
      floor = word.start;
    }
    h.words = *std::move(timed);
    return h;
  }
  h.words = ProportionalWords(h.text, h.start, h.end);
  for (AsrWord& word : h.words) word.confidence = 1.0 - no_speech;
  return h;
}

void WhisperAsrSession::TrimWindow() {
  const auto trim_after = static_cast<std::size_t>(options_.streaming.trim_after.ToSamples(kAsrSampleRate));
  // Committed words are fed again to every decode: a quarter of the decoder's
  // positions is their limit.
  const auto crowded = static_cast<std::size_t>(transcriber_->model().config().max_target_positions / 4);
  if (audio_.size() <= trim_after && TokensOf(committed_, /*text_only=*/false).size() <= crowded) return;
  std::size_t last = committed_.size();
  for (std::size_t i = 0; i < committed_.size(); ++i) {
    if (committed_[i].segment_end && *committed_[i].segment_end > 0.0) last = i;
  }
  std::size_t cut = 0;
  std::size_t keep_from = 0;  // committed words that stay in the window
  if (last < committed_.size()) {
    cut = std::min(audio_.size(), static_cast<std::size_t>(*committed_[last].segment_end * kAsrSampleRate));
    keep_from = last + 1;
  }
  if (audio_.size() - cut > window_samples() ||
      TokensOf({committed_.begin() + static_cast<std::ptrdiff_t>(keep_from), committed_.end()}, false).size() > crowded) {
    // No committed segment ends late enough: everything committed becomes
    // previous text and its audio is estimated as its share of the newest
    // hypothesis's text (bytes), within what keeps the window under 30 s.
    std::size_t committed_bytes = 0, all_bytes = 0;
    for (const StreamWord& w : committed_) committed_bytes += w.text.size();
    all_bytes = committed_bytes;
    for (const StreamWord& w : policy_.tail()) all_bytes += w.text.size();
    cut = all_bytes == 0 ? 0 : audio_.size() * committed_bytes / all_bytes;
    if (audio_.size() - cut > window_samples()) cut = audio_.size() - trim_after;
    keep_from = committed_.size();
  }
  if (cut == 0 && keep_from == 0) return;
  const std::vector<StreamWord> dropped(committed_.begin(), committed_.begin() + static_cast<std::ptrdiff_t>(keep_from));
  const MediaTime window_start =
      start_.value_or(position_) + MediaTime::FromSamples(static_cast<std::int64_t>(trimmed_), kAsrSampleRate);
  for (const StreamWord& word : dropped) {
    if (word.text_tokens.empty()) continue;
    if (!word.start || !word.end) {
      trimmed_words_timed_ = false;
      continue;
    }
    const std::string spelled = absl::StrJoin(absl::StrSplit(word.text, absl::ByAnyChar(" \t\n"), absl::SkipEmpty()), " ");
    if (spelled.empty()) continue;
    trimmed_words_.push_back({spelled, window_start + MediaTime::Micros(std::llround(*word.start * 1e6)),
                              window_start + MediaTime::Micros(std::llround(*word.end * 1e6)), 0.0});
  }
  const std::vector<std::int64_t> text = TokensOf(dropped, /*text_only=*/true);
  previous_tokens_.insert(previous_tokens_.end(), text.begin(), text.end());
  committed_.erase(committed_.begin(), committed_.begin() + static_cast<std::ptrdiff_t>(keep_from));
  // Timestamps of the words kept count from the new window start.
  const std::int64_t timestamp_begin = transcriber_->special().timestamp_begin;
  const auto shift = static_cast<std::int64_t>(static_cast<double>(cut) / kAsrSampleRate / 0.02 + 0.5);
  for (StreamWord& word : committed_) {
    for (std::int64_t& id : word.tokens) {
      if (id >= timestamp_begin) id = std::max(timestamp_begin, id - shift);
    }
    if (word.segment_end) *word.segment_end = std::max(0.0, *word.segment_end - static_cast<double>(cut) / kAsrSampleRate);
    if (word.start) *word.start = std::max(0.0, *word.start - static_cast<double>(cut) / kAsrSampleRate);
    if (word.end) *word.end = std::max(0.0, *word.end - static_cast<double>(cut) / kAsrSampleRate);
  }
  audio_.erase(audio_.begin(), audio_.begin() + static_cast<std::ptrdiff_t>(cut));
  trimmed_ += cut;
  policy_.Reset();
}

std::optional<AsrHypothesis> WhisperAsrSession::Partial() {
  if (audio_.empty()) return std::nullopt;
  const auto interval = std::max(
      next_interval_, static_cast<std::size_t>(options_.streaming.min_partial_interval.ToSamples(kAsrSampleRate)));
  const std::size_t heard = trimmed_ + audio_.size();
  if (last_partial_ && heard < decoded_at_ + interval) return last_partial_;
  TrimWindow();
  // A decode of the utterance's opening keeps its encoder output to score
  // openings on (a copy of (1, positions, d_model): ~100 KB a second of audio).
  const bool opening = committed_.empty() && previous_tokens_.empty() && trimmed_ == 0;
  const auto began = std::chrono::steady_clock::now();
  absl::StatusOr<WhisperResult> result = CallNeural("recognizing with whisper", [&] {
    return DecodeWindow(0, audio_.size(), /*continue_committed=*/true, word_times(), /*keep_encoder_output=*/opening);
  });
  const double decode_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - began).count();
  if (!result.ok()) return last_partial_;  // a partial is a hint; Finish() reports the error
  decoded_at_ = heard;
  opening_encoded_ = opening ? std::move(result->encoder_output) : torch::Tensor();
  // Partials take at most max_compute_share of real time: the next one waits for
  // audio enough to pay for this one.
  next_interval_ = options_.streaming.max_compute_share > 0.0
                       ? static_cast<std::size_t>(decode_ms / 1000.0 / options_.streaming.max_compute_share * kAsrSampleRate)
                       : 0;
  if (language_.empty()) language_ = result->language;
  // The decode continued the committed words: what follows them is the hypothesis.
  const std::size_t prefix = TokensOf(committed_, /*text_only=*/false).size();
  const std::vector<std::int64_t> generated(result->tokens.begin() + static_cast<std::ptrdiff_t>(prefix), result->tokens.end());
  const bool after_text = !committed_.empty() && committed_.back().tokens.back() < transcriber_->special().timestamp_begin;
  std::vector<StreamWord> hypothesis = SplitWords(generated, *transcriber_, after_text);
  if (!result->token_timestamps.empty()) {
    // A text token spans (the time of the token before it, its own time).
    const std::vector<double>& times = result->token_timestamps;
    std::size_t position = result->tokens_begin + prefix;
    for (StreamWord& word : hypothesis) {
      for (std::int64_t id : word.tokens) {
        if (id < transcriber_->special().end_of_text && position > 0 && position < times.size()) {
          if (!word.start) word.start = times[position - 1];
          word.end = times[position];
        }
        ++position;
      }
    }
  }
  if (heard >= static_cast<std::size_t>(options_.streaming.commit_after.ToSamples(kAsrSampleRate))) {
    std::vector<StreamWord> now = policy_.Add(std::move(hypothesis));
    early_tail_.clear();
    if (const std::size_t keep = CommittableWords(committed_, now); keep < now.size()) {
      // A phrase agreed on again right after itself: held back with the rest
      // of the hypothesis, shown as unconfirmed, and agreed on anew from the
      // next decodes (CommittableWords).
      early_tail_.assign(now.begin() + static_cast<std::ptrdiff_t>(keep), now.end());
      early_tail_.insert(early_tail_.end(), policy_.tail().begin(), policy_.tail().end());
      now.resize(keep);
      policy_.Reset();
      if (options_.logger != nullptr) {
        options_.logger->Debug("whisper", "repeat held back",
                               {{"held", Text(TokensOf(early_tail_, /*text_only=*/true))},
                                {"committed_words", absl::StrCat(committed_.size() + keep)}});
      }
    }
    committed_.insert(committed_.end(), now.begin(), now.end());
  } else {
    early_tail_ = std::move(hypothesis);
  }
  const std::vector<StreamWord>& unconfirmed = early_tail_.empty() ? policy_.tail() : early_tail_;

  std::vector<std::int64_t> settled = previous_tokens_;
  const std::vector<std::int64_t> window_text = TokensOf(committed_, /*text_only=*/true);
  settled.insert(settled.end(), window_text.begin(), window_text.end());
  std::vector<std::int64_t> all = settled;
  const std::vector<std::int64_t> tail = TokensOf(unconfirmed, /*text_only=*/true);
  all.insert(all.end(), tail.begin(), tail.end());
  const std::string stable = Text(settled);
  AsrHypothesis h = Hypothesis(Text(all), result->no_speech_probability, /*final=*/false);
  h.stable_prefix_chars = h.text.compare(0, stable.size(), stable) == 0 ? stable.size() : 0;
  if (options_.logger != nullptr) {
    options_.logger->Debug("whisper", "partial decoded",
                           {{"decode_ms", absl::StrFormat("%.1f", decode_ms)},
                            {"window_ms", absl::StrCat(MediaTime::FromSamples(static_cast<std::int64_t>(audio_.size()),
                                                                              kAsrSampleRate).millis())},
                            {"committed_words", absl::StrCat(committed_.size())},
                            {"tail_words", absl::StrCat(unconfirmed.size())}});
  }
  if (h.text.empty()) return std::nullopt;
  last_partial_ = h;
  return h;
}

absl::StatusOr<AsrHypothesis> WhisperAsrSession::Finish() {
  absl::StatusOr<AsrHypothesis> final = CallNeural("recognizing with whisper", [&] {
    if (audio_.empty() && previous_tokens_.empty()) return Hypothesis("", 0.0, /*final=*/true);
    std::vector<std::int64_t> text = previous_tokens_;
    double no_speech = 0.0;
    bool speech = !previous_tokens_.empty() || !committed_.empty();
    const bool timed = word_times();
    const MediaTime start = start_.value_or(position_);
    // Words whose audio was trimmed: the times their partial decodes gave them,
    // else they share the trimmed span by length.
    std::vector<AsrWord> words =
        trimmed_words_timed_
            ? trimmed_words_
            : ProportionalWords(Text(previous_tokens_), start,
                                start + MediaTime::FromSamples(static_cast<std::int64_t>(trimmed_), kAsrSampleRate));
    // The first window continues the committed words; any further ones (an
    // utterance past 30 s that no partial trimmed) are decoded on their own.
    const bool translate = options_.also_translate && options_.task == WhisperTask::kTranscribe;
    torch::Tensor first_encoded;  // the first window's, for its translation
    for (std::size_t at = 0; at < audio_.size(); at += window_samples()) {
      const std::size_t count = std::min(window_samples(), audio_.size() - at);
      WhisperResult r = DecodeWindow(at, count, /*continue_committed=*/at == 0, timed, translate && at == 0);
      if (at == 0) first_encoded = std::move(r.encoder_output);
      if (language_.empty()) language_ = r.language;
      no_speech = std::max(no_speech, r.no_speech_probability);
      // Whisper's no-speech rule drops a window, but never words already committed.
      if (r.no_speech_probability > options_.no_speech_threshold && !(at == 0 && speech)) continue;
      speech = true;
      for (std::int64_t id : r.tokens) {
        if (id < transcriber_->special().end_of_text) text.push_back(id);
      }
      const MediaTime window_start = start + MediaTime::FromSamples(static_cast<std::int64_t>(trimmed_ + at), kAsrSampleRate);
      // The final's text is its words joined by spaces: a word the grouping
      // split off without a space ("it" "'s") joins the one before it. Chinese
      // keeps one word per character (its text has no spaces to split on).
      const bool characters = WordsAreCharacters(options_.task == WhisperTask::kTranslate ? "en" : language_);
      bool first_in_window = true;
      for (const WhisperWordTiming& w : r.words) {
        const std::string spelled = absl::StrJoin(absl::StrSplit(w.text, absl::ByAnyChar(" \t\n"), absl::SkipEmpty()), " ");
        if (spelled.empty()) continue;
        const MediaTime word_start = window_start + MediaTime::Micros(std::llround(w.start * 1e6));
        const MediaTime word_end = window_start + MediaTime::Micros(std::llround(w.end * 1e6));
        if (!characters && !first_in_window && w.text.front() != ' ') {
          words.back().text += spelled;
          words.back().end = std::max(words.back().end, word_end);
        } else {
          words.push_back({spelled, word_start, word_end, 0.0});
        }
        first_in_window = false;
      }
    }
    AsrHypothesis hypothesis = timed ? Hypothesis(speech ? Text(text) : "", no_speech, /*final=*/true, std::move(words))
                                     : Hypothesis(speech ? Text(text) : "", no_speech, /*final=*/true);
    if (translate && !hypothesis.text.empty() && language_ != "en") hypothesis.translation = TranslateWindow(first_encoded);
    return hypothesis;
  });
  Reset();
  return final;
}

void WhisperAsrSession::Reset() {
  audio_.clear();
  start_.reset();
  trimmed_ = 0;
  decoded_at_ = 0;
  next_interval_ = 0;
  language_ = options_.language;
  previous_tokens_.clear();
  committed_.clear();
  trimmed_words_.clear();
  trimmed_words_timed_ = true;
  policy_.Reset();
  early_tail_.clear();
  last_partial_.reset();
  opening_encoded_ = torch::Tensor();
}

absl::StatusOr<std::vector<double>> WhisperAsrSession::ScoreOpenings(const std::vector<std::string>& openings) {
  if (!opening_encoded_.defined() || (language_.empty() && transcriber_->multilingual())) {
    return absl::FailedPreconditionError("no partial decode of the utterance's opening to score openings on");
  }
  const auto began = std::chrono::steady_clock::now();
  absl::StatusOr<std::vector<double>> scores = CallNeural("scoring openings with whisper", [&] {
    WhisperOptions o;
    o.language = language_;
    o.task = options_.task;
    o.timestamps = true;  // as the partial decoded: its text begins after <|0.00|>
    std::vector<std::int64_t> prompt = transcriber_->Prompt(language_, o);
    prompt.push_back(transcriber_->special().timestamp_begin);
    std::vector<std::vector<std::int64_t>> tokens;
    tokens.reserve(openings.size());
    for (const std::string& text : openings) {
      const bool word = !text.empty() && std::isalnum(static_cast<unsigned char>(text.front())) != 0;
      tokens.push_back(transcriber_->tokenizer().Encode(word ? " " + text : text));
    }
    return transcriber_->ScoreOpenings(opening_encoded_, prompt, tokens, kOpeningTokens);
  });
  // The scoring is the partial's compute too: the next partial waits for audio
  // enough to pay for both.
  const double score_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - began).count();
  if (options_.streaming.max_compute_share > 0.0) {
    next_interval_ +=
        static_cast<std::size_t>(score_ms / 1000.0 / options_.streaming.max_compute_share * kAsrSampleRate);
  }
  return scores;
}

}  // namespace lingcast::neural
