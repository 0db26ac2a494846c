#include "neural/fastspeech2/fastspeech2_tts.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/status.h"
#include "neural/core/status_adapter.h"

namespace lingcast::neural {

namespace {

// Cuts the symbols between the opening sil and the closing sil/eos into pieces of
// at most `limit` symbols, at a #3 where there is one, else at a #0; each piece
// gets its own sil ... sil eos, as the model was trained.
std::vector<std::vector<BakerSymbol>> Pieces(const std::vector<BakerSymbol>& symbols, std::size_t limit) {
  if (symbols.size() <= limit || symbols.size() < 4) return {symbols};
  const BakerSymbol sil = symbols.front(), eos = symbols.back();
  const std::vector<BakerSymbol> body(symbols.begin() + 1, symbols.end() - 2);
  const std::size_t room = std::max<std::size_t>(limit, 8) - 3;
  std::vector<std::vector<BakerSymbol>> pieces;
  std::size_t at = 0;
  while (at < body.size()) {
    std::size_t end = std::min(body.size(), at + room);
    if (end < body.size()) {
      std::size_t cut = end;
      for (std::size_t i = end; i > at + room / 2; --i) {
        if (body[i - 1].symbol == "#3") { cut = i - 1; break; }
      }
      if (cut == end) {
        for (std::size_t i = end; i > at + 1; --i) {
          if (body[i - 1].symbol == "#0") { cut = i - 1; break; }
        }
      }
      end = cut;
    }
    std::vector<BakerSymbol> piece = {sil};
    piece.insert(piece.end(), body.begin() + static_cast<std::ptrdiff_t>(at), body.begin() + static_cast<std::ptrdiff_t>(end));
    piece.push_back(sil);
    piece.push_back(eos);
    pieces.push_back(std::move(piece));
    at = end;
    while (at < body.size() && (body[at].symbol == "#3" || body[at].symbol == "#0")) ++at;  // the cut's mark
  }
  return pieces;
}

}  // namespace

PhonemeTrack TrackOfBakerSymbols(const std::vector<BakerSymbol>& symbols, const std::vector<std::int64_t>& durations,
                                 std::int64_t hop_length, int sample_rate) {
  PhonemeTrack track;
  track.language = Language::kZh;
  auto time = [&](std::int64_t sample) { return MediaTime::FromSamples(sample, sample_rate); };
  std::int64_t frame = 0;
  std::pair<int, int> word = {-1, -1};
  for (std::size_t i = 0; i < symbols.size() && i < durations.size(); ++i) {
    const std::int64_t begin = frame * hop_length;
    frame += durations[i];
    const BakerSymbol& s = symbols[i];
    if (s.ipa.empty() || durations[i] == 0) continue;  // a mark: the phoneme before lasts through it
    const MediaTime start = time(begin);
    if (track.phonemes.empty() && begin > 0) track.phonemes.push_back({"_", MediaTime::Zero(), start});
    track.phonemes.push_back({s.ipa, start, time(frame * hop_length) - start});
    if (s.source_begin < 0) {
      word = {-1, -1};
      continue;
    }
    if (std::pair<int, int>{s.source_begin, s.source_end} != word) {
      word = {s.source_begin, s.source_end};
      track.words.push_back({start, s.source_begin, s.source_end - s.source_begin});
    }
  }
  return track;
}

class FastSpeech2Tts::Session : public TtsSession {
 public:
  Session(const FastSpeech2Tts& engine, VoiceSettings settings) : engine_(engine), settings_(std::move(settings)) {}
  absl::StatusOr<SynthesisResult> SynthesizeClause(std::string_view clause, Language language) override {
    if (cancelled_) return absl::CancelledError("the fastspeech2 session was cancelled");
    return engine_.Speak(clause, settings_, language, &cancelled_);
  }
  absl::Status StreamClause(std::string_view clause, Language language, const ClausePartSink& sink) override {
    if (cancelled_) return absl::CancelledError("the fastspeech2 session was cancelled");
    return engine_.Speak(clause, settings_, language, &cancelled_, &sink).status();
  }
  void Cancel() override { cancelled_ = true; }
  bool cancelled() const override { return cancelled_; }

 private:
  const FastSpeech2Tts& engine_;
  VoiceSettings settings_;
  std::atomic<bool> cancelled_{false};
};

absl::StatusOr<std::unique_ptr<FastSpeech2Tts>> FastSpeech2Tts::Create(const FastSpeech2TtsOptions& options) {
  if (auto chunks = CallNeural("chunking", [&] { return ChunkFrames(0, options.chunking); }); !chunks.ok()) {
    return chunks.status();
  }
  auto model = CallNeural("loading " + options.model_dir, [&] { return FastSpeech2Model::Load(options.model_dir); });
  if (!model.ok()) return model.status();
  for (const char* symbol : {"sil", "#0", "#3", "^", "eos", "er5"}) {
    if ((*model)->config().symbol_to_id.count(symbol) == 0) {
      return absl::InvalidArgumentError(absl::StrCat(options.model_dir, "/config.json: symbol_to_id has no '", symbol,
                                                     "' (not a Baker symbol table)"));
    }
  }
  FastSpeech2TtsOptions kept = options;
  if (kept.lexicon == nullptr) {
    absl::StatusOr<PinyinConverter> lexicon = PinyinConverter::LoadDefault();
    if (!lexicon.ok()) return lexicon.status();
    kept.lexicon = std::make_shared<const PinyinConverter>(*std::move(lexicon));
  }
  return std::unique_ptr<FastSpeech2Tts>(new FastSpeech2Tts(std::move(kept), *std::move(model)));
}

absl::Status FastSpeech2Tts::CheckSettings(const VoiceSettings& settings, Language language) const {
  if (absl::Status valid = ValidateVoiceSettings(settings); !valid.ok()) return valid;
  if (!settings.voice.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("voice \"", settings.voice,
                                                   "\": the fastspeech2 checkpoint has one voice (", options_.model_dir,
                                                   "); leave --voice out"));
  }
  if (settings.pitch != 1.0) {
    return absl::InvalidArgumentError(
        absl::StrFormat("pitch %g: the fastspeech2 engine speaks at the voice's own pitch only (1)", settings.pitch));
  }
  if (language != Language::kZh) {
    return absl::InvalidArgumentError(absl::StrCat("the fastspeech2 voice ", options_.model_dir,
                                                   " speaks Mandarin (zh), not ", std::string(LanguageCode(language))));
  }
  return absl::OkStatus();
}

absl::StatusOr<SynthesisResult> FastSpeech2Tts::Synthesize(const SynthesisRequest& request) {
  if (absl::Status ok = CheckSettings(request, request.language); !ok.ok()) return ok;
  return Speak(request.text, request, request.language, nullptr);
}

absl::StatusOr<std::unique_ptr<TtsSession>> FastSpeech2Tts::OpenSession(const VoiceSettings& settings) {
  if (absl::Status ok = CheckSettings(settings, settings.language); !ok.ok()) return ok;
  return std::unique_ptr<TtsSession>(std::make_unique<Session>(*this, settings));
}

absl::StatusOr<SynthesisResult> FastSpeech2Tts::Speak(std::string_view text, const VoiceSettings& settings,
                                                      Language language, const std::atomic<bool>* cancel,
                                                      const ClausePartSink* sink) const {
  if (absl::Status ok = CheckSettings(settings, language); !ok.ok()) return ok;
  SynthesisResult result;
  result.audio.sample_rate = sample_rate();
  result.track.language = Language::kZh;
  const BakerPhonemes phonemes = ToBakerPhonemes(text, *options_.lexicon);
  if (phonemes.symbols.empty()) {  // nothing Mandarin to say
    if (sink == nullptr) return result;
    LC_RETURN_IF_ERROR((*sink)(std::move(result)));
    return SynthesisResult{};
  }
  const FastSpeech2Config& config = model_->config();
  const float gain = static_cast<float>(settings.volume);
  auto scaled = [gain](const torch::Tensor& wave, std::vector<float>& into) {
    const float* samples = wave.data_ptr<float>();
    into.reserve(into.size() + static_cast<std::size_t>(wave.numel()));
    for (std::int64_t i = 0; i < wave.numel(); ++i) into.push_back(std::clamp(gain * samples[i], -1.0f, 1.0f));
  };
  auto cancelled = [cancel] { return cancel != nullptr && cancel->load(); };
  std::int64_t samples_made = 0;  // of the clause so far: where the next call's track starts
  for (const std::vector<BakerSymbol>& piece : Pieces(phonemes.symbols, options_.max_symbols_per_call)) {
    if (cancelled()) return absl::CancelledError("the fastspeech2 session was cancelled");
    std::vector<std::int64_t> ids;
    ids.reserve(piece.size());
    for (const BakerSymbol& s : piece) {
      const auto it = config.symbol_to_id.find(s.symbol);
      if (it == config.symbol_to_id.end()) {
        return absl::InternalError(absl::StrCat("fastspeech2: the front-end gave symbol '", s.symbol,
                                                "', which ", options_.model_dir, "/config.json does not have"));
      }
      ids.push_back(it->second);
    }
    auto output = CallNeural("synthesizing", [&] {
      FastSpeech2Options o;
      o.seed = options_.seed;
      o.speaking_rate = settings.rate;
      o.vocode = sink == nullptr;
      return model_->Synthesize(ids, o);
    });
    if (!output.ok()) return output.status();
    SynthesisResult part;
    part.audio.sample_rate = sample_rate();
    part.track = TrackOfBakerSymbols(piece, output->durations, config.hop_length, sample_rate());
    if (sink == nullptr) {
      scaled(output->waveform, part.audio.samples);
      FinishPhonemeTrack(part);
      AppendSynthesis(result, std::move(part));
      continue;
    }
    // The call's track goes with its first chunk, on the clause's timeline.
    const std::int64_t length = output->mel.size(0) * config.hop_length;
    FinishPhonemeTrack(part.track, MediaTime::FromSamples(length, sample_rate()));
    const MediaTime offset = MediaTime::FromSamples(samples_made, sample_rate());
    for (PhonemeEvent& p : part.track.phonemes) p.start += offset;
    for (WordBoundary& w : part.track.words) w.start += offset;
    absl::Status delivered = absl::OkStatus();
    bool first = true;
    auto vocoded = CallNeural("vocoding", [&] {
      model_->VocodeInChunks(output->mel, options_.chunking, [&](const torch::Tensor& samples) {
        if (cancelled()) {
          delivered = absl::CancelledError("the fastspeech2 session was cancelled");
          return false;
        }
        SynthesisResult chunk;
        chunk.audio.sample_rate = sample_rate();
        chunk.track.language = Language::kZh;
        if (first) chunk.track = std::move(part.track);
        first = false;
        scaled(samples, chunk.audio.samples);
        samples_made += samples.numel();
        delivered = (*sink)(std::move(chunk));
        return delivered.ok();
      });
      return true;
    });
    if (!vocoded.ok()) return vocoded.status();
    LC_RETURN_IF_ERROR(delivered);
    if (first) {  // no frames: the track still goes
      SynthesisResult empty;
      empty.audio.sample_rate = sample_rate();
      empty.track = std::move(part.track);
      LC_RETURN_IF_ERROR((*sink)(std::move(empty)));
    }
  }
  if (sink != nullptr) return SynthesisResult{};
  // One track for the clause: a call's closing silence and the next one's opening
  // silence are one pause (the streamed parts join them the same way).
  FinishPhonemeTrack(result);
  return result;
}

}  // namespace lingcast::neural
