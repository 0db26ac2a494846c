#include "neural/vits/vits_tts.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/status.h"
#include "neural/core/status_adapter.h"

namespace lingcast::neural {
namespace {

// The nearest IPA phoneme of an English letter, for the mouth shapes; other
// characters stand for themselves (phoneme_shapes.h judges unknown symbols by
// their first letter).
std::string PhonemeOfCharacter(std::string_view character) {
  if (character.size() != 1) return std::string(character);
  const char c = character[0];
  switch (c) {
    case 'c': case 'q': return "k";
    case 'e': return "ɛ";
    case 'g': return "ɡ";
    case 'i': return "ɪ";
    case 'j': return "dʒ";
    case 'o': return "ɒ";
    case 'r': return "ɹ";
    case 'u': return "ʌ";
    case 'x': return "ks";
    case 'y': return "j";
    default: break;
  }
  if ((c >= 'a' && c <= 'z')) return std::string(1, c);
  if (c >= 'A' && c <= 'Z') return PhonemeOfCharacter(std::string(1, static_cast<char>(c - 'A' + 'a')));
  return "_";  // spaces, punctuation, digits: the mouth rests
}

bool IsWordCharacter(std::string_view character) {
  return !(character.size() == 1 && (character[0] == ' ' || character[0] == '\t' || character[0] == '\n'));
}

std::optional<Language> LanguageOfCode(const std::string& code) {
  if (code == "eng" || code == "en") return Language::kEn;
  if (code == "cmn" || code == "zho" || code == "zh") return Language::kZh;
  return std::nullopt;
}

IpaPhonemizer PhonemizerOf(const VitsTtsOptions& options) {
  if (options.phonemize) return options.phonemize;
  return [](std::string_view text, const std::string& voice) { return EspeakEngine::PhonemizeIpa(text, voice); };
}

}  // namespace

std::vector<TokenSpan> TokenTimeline(const std::vector<std::int64_t>& durations, std::int64_t hop_length) {
  std::vector<TokenSpan> spans;
  std::int64_t frame = 0;
  for (const std::int64_t d : durations) {
    spans.push_back({frame * hop_length, (frame + d) * hop_length});
    frame += d;
  }
  return spans;
}

PhonemeTrack TrackOf(const VitsEncoding& encoding, const std::vector<TokenSpan>& spans, std::string_view text,
                     int sample_rate, Language language) {
  PhonemeTrack track;
  track.language = language;
  auto time = [&](std::int64_t sample) { return MediaTime::FromSamples(sample, sample_rate); };
  bool in_word = false;
  for (std::size_t i = 0; i < encoding.ids.size() && i < spans.size(); ++i) {
    if (encoding.source_offset[i] < 0) continue;  // a blank: the character before it lasts through it
    const std::string_view character = text.substr(static_cast<std::size_t>(encoding.source_offset[i]),
                                                   static_cast<std::size_t>(encoding.source_length[i]));
    const MediaTime start = time(spans[i].start);
    if (track.phonemes.empty() && spans[i].start > 0) track.phonemes.push_back({"_", MediaTime::Zero(), start});
    track.phonemes.push_back({PhonemeOfCharacter(character), start, time(spans[i].end) - start});
    if (!IsWordCharacter(character)) {
      in_word = false;
      continue;
    }
    const int end = encoding.source_offset[i] + encoding.source_length[i];
    if (in_word) {
      track.words.back().text_length = end - track.words.back().text_offset;
    } else {
      track.words.push_back({start, encoding.source_offset[i], encoding.source_length[i]});
      in_word = true;
    }
  }
  return track;
}

PhonemeTrack TrackOfPhonemes(const VitsEncoding& encoding, const std::vector<TokenSpan>& spans, int sample_rate,
                             Language language) {
  PhonemeTrack track;
  track.language = language;
  auto time = [&](std::int64_t sample) { return MediaTime::FromSamples(sample, sample_rate); };
  int word_offset = -1;
  for (std::size_t i = 0; i < encoding.ids.size() && i < spans.size() && i < encoding.phonemes.size(); ++i) {
    const std::string& phoneme = encoding.phonemes[i];
    if (phoneme.empty()) continue;  // a pad or a mark: the phoneme before it lasts through it
    const MediaTime start = time(spans[i].start);
    if (track.phonemes.empty() && spans[i].start > 0) track.phonemes.push_back({"_", MediaTime::Zero(), start});
    track.phonemes.push_back({phoneme, start, time(spans[i].end) - start});
    const int offset = encoding.source_offset[i];
    if (offset < 0) {  // a space or punctuation ends the word
      word_offset = -1;
      continue;
    }
    if (offset != word_offset) {
      track.words.push_back({start, offset, encoding.source_length[i]});
      word_offset = offset;
    }
  }
  return track;
}

class VitsTts::Session : public TtsSession {
 public:
  Session(const VitsTts& engine, VoiceSettings settings) : engine_(engine), settings_(std::move(settings)) {}

  absl::StatusOr<SynthesisResult> SynthesizeClause(std::string_view clause, Language language) override {
    if (cancelled_) return absl::CancelledError("the vits session was cancelled");
    return engine_.Speak(clause, settings_, language, &cancelled_);
  }
  absl::Status StreamClause(std::string_view clause, Language language, const ClausePartSink& sink) override {
    if (cancelled_) return absl::CancelledError("the vits session was cancelled");
    return engine_.Speak(clause, settings_, language, &cancelled_, &sink).status();
  }
  void Cancel() override { cancelled_ = true; }
  bool cancelled() const override { return cancelled_; }

 private:
  const VitsTts& engine_;
  VoiceSettings settings_;
  std::atomic<bool> cancelled_{false};
};

absl::StatusOr<std::unique_ptr<VitsTts>> VitsTts::Create(const VitsTtsOptions& options) {
  if (auto chunks = CallNeural("chunking", [&] {
        ChunkFrames(0, options.chunking);
        return ChunkFrames(0, {options.whole_chunk_frames, options.whole_chunk_frames});
      });
      !chunks.ok()) {
    return chunks.status();
  }
  auto model = CallNeural("loading " + options.model_dir, [&] { return VitsModel::Load(options.model_dir, options.model); });
  if (!model.ok()) return model.status();
  std::optional<VitsTokenizer> tokenizer;
  std::optional<PiperPhonemes> piper;
  std::string code;
  if (std::filesystem::exists(std::filesystem::path(options.model_dir) / "piper.json")) {
    auto phonemes = CallNeural("loading " + options.model_dir, [&] { return PiperPhonemes::Load(options.model_dir); });
    if (!phonemes.ok()) return phonemes.status();
    if (phonemes->max_id() >= (*model)->config().vocab_size) {
      return absl::InvalidArgumentError(absl::StrCat(options.model_dir, "/piper.json has phoneme id ", phonemes->max_id(),
                                                     " but config.json's vocab_size is ", (*model)->config().vocab_size,
                                                     ": they are from different voices"));
    }
    // An unknown espeak-ng voice is said at load, not at the first line.
    if (auto probe = PhonemizerOf(options)("", phonemes->espeak_voice()); !probe.ok()) return probe.status();
    code = phonemes->language();
    piper = *std::move(phonemes);
  } else {
    auto characters = CallNeural("loading " + options.model_dir, [&] { return VitsTokenizer::Load(options.model_dir); });
    if (!characters.ok()) return characters.status();
    if (characters->vocab_size() > (*model)->config().vocab_size) {
      return absl::InvalidArgumentError(absl::StrCat(options.model_dir, "/vocab.json has ", characters->vocab_size(),
                                                     " characters but config.json's vocab_size is ",
                                                     (*model)->config().vocab_size, ": they are from different models"));
    }
    code = characters->language();
    tokenizer = *std::move(characters);
  }
  // A checkpoint for a language lingcast does not name still speaks: clauses are
  // then taken as they come, whatever language they are tagged with.
  const Language language = LanguageOfCode(code).value_or(Language::kEn);
  if (options.warm_at_load) {
    const auto warmed = CallNeural("warming " + options.model_dir, [&] { return (*model)->WarmGraphs(options.warmup); });
    if (!warmed.ok()) return warmed.status();
  }
  return std::unique_ptr<VitsTts>(new VitsTts(options, *std::move(model), std::move(tokenizer), std::move(piper),
                                              language));
}

std::string VitsTts::LanguageCodeOfCheckpoint() const {
  return piper_ ? piper_->language() : tokenizer_->language();
}

absl::StatusOr<VitsEncoding> VitsTts::Encode(const std::string& text) const {
  if (piper_) {
    LC_ASSIGN_OR_RETURN(const std::vector<IpaClause> clauses, PhonemizerOf(options_)(text, piper_->espeak_voice()));
    return piper_->Encode(clauses);
  }
  return CallNeural("tokenizing", [&] { return tokenizer_->Encode(text); });
}

absl::Status VitsTts::CheckSettings(const VoiceSettings& settings, Language language) const {
  if (absl::Status valid = ValidateVoiceSettings(settings); !valid.ok()) return valid;
  if (!settings.voice.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("voice \"", settings.voice, "\": a vits checkpoint has one voice (",
                                                   options_.model_dir, "); leave --voice out"));
  }
  if (settings.pitch != 1.0) {
    return absl::InvalidArgumentError(absl::StrFormat("pitch %g: the vits engine speaks at the checkpoint's pitch only (1)",
                                                      settings.pitch));
  }
  if (LanguageOfCode(LanguageCodeOfCheckpoint()) && language != language_) {
    return absl::InvalidArgumentError(absl::StrCat("the ", name(), " checkpoint ", options_.model_dir, " speaks ",
                                                   LanguageCodeOfCheckpoint(), ", not ",
                                                   std::string(LanguageCode(language))));
  }
  return absl::OkStatus();
}

absl::StatusOr<SynthesisResult> VitsTts::Synthesize(const SynthesisRequest& request) {
  if (absl::Status ok = CheckSettings(request, request.language); !ok.ok()) return ok;
  return Speak(request.text, request, request.language, nullptr);
}

absl::StatusOr<std::unique_ptr<TtsSession>> VitsTts::OpenSession(const VoiceSettings& settings) {
  if (absl::Status ok = CheckSettings(settings, settings.language); !ok.ok()) return ok;
  return std::unique_ptr<TtsSession>(std::make_unique<Session>(*this, settings));
}

PhonemeTrack VitsTts::TrackFor(const VitsEncoding& encoding, const torch::Tensor& frames, const std::string& text,
                               Language language) const {
  const torch::Tensor durations = frames[0].contiguous();
  const std::vector<std::int64_t> per_token(durations.data_ptr<std::int64_t>(),
                                            durations.data_ptr<std::int64_t>() + durations.numel());
  const std::vector<TokenSpan> spans = TokenTimeline(per_token, model_->config().hop_length());
  return encoding.phonemes.empty() ? TrackOf(encoding, spans, text, sample_rate(), language)
                                   : TrackOfPhonemes(encoding, spans, sample_rate(), language);
}

absl::StatusOr<SynthesisResult> VitsTts::Speak(std::string_view text, const VoiceSettings& settings, Language language,
                                               const std::atomic<bool>* cancel, const ClausePartSink* sink) const {
  if (absl::Status ok = CheckSettings(settings, language); !ok.ok()) return ok;
  SynthesisResult result;
  result.audio.sample_rate = sample_rate();
  result.track.language = language;
  const std::string utf8(text);
  auto encoding = Encode(utf8);
  if (!encoding.ok()) return encoding.status();
  if (encoding->ids.empty()) {  // nothing to say
    if (sink == nullptr) return result;
    LC_RETURN_IF_ERROR((*sink)(std::move(result)));
    return SynthesisResult{};
  }
  VitsSynthesisOptions options;
  options.seed = options_.seed;
  options.speaking_rate = model_->config().speaking_rate * settings.rate;
  const float gain = static_cast<float>(settings.volume);
  const torch::Tensor ids = torch::tensor(encoding->ids, torch::kLong).unsqueeze(0);
  // Whole speech is decoded in chunks too, only long ones: the decoder's
  // activations grow with the length (a 10 s line took ~400 MB at once).
  const VocoderChunking chunking =
      sink != nullptr ? options_.chunking : VocoderChunking{options_.whole_chunk_frames, options_.whole_chunk_frames};
  // The first chunk carries the whole track: the durations are known before any
  // sample is decoded.
  absl::Status delivered = absl::OkStatus();
  bool first = true;
  auto made = CallNeural("synthesizing", [&] {
    model_->SynthesizeInChunks(ids, options, chunking, [&](const torch::Tensor& durations, const torch::Tensor& samples) {
      if (cancel != nullptr && cancel->load()) {
        delivered = absl::CancelledError("the vits session was cancelled");
        return false;
      }
      SynthesisResult part;
      part.audio.sample_rate = sample_rate();
      part.track.language = language;
      if (first) {
        part.track = TrackFor(*encoding, durations, utf8, language);
        const std::int64_t frames = std::max<std::int64_t>(1, durations.sum().item<std::int64_t>());
        FinishPhonemeTrack(part.track, MediaTime::FromSamples(frames * model_->config().hop_length(), sample_rate()));
        first = false;
      }
      const float* values = samples.data_ptr<float>();
      part.audio.samples.reserve(static_cast<std::size_t>(samples.numel()));
      for (std::int64_t i = 0; i < samples.numel(); ++i) {
        part.audio.samples.push_back(std::clamp(gain * values[i], -1.0f, 1.0f));
      }
      if (sink == nullptr) {
        AppendClausePart(result, std::move(part));
        return true;
      }
      delivered = (*sink)(std::move(part));
      return delivered.ok();
    });
    return true;
  });
  if (!made.ok()) return made.status();
  LC_RETURN_IF_ERROR(delivered);
  return sink == nullptr ? result : SynthesisResult{};
}

}  // namespace lingcast::neural
