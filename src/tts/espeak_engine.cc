#include "tts/espeak_engine.h"

#include <espeak-ng/speak_lib.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "core/status.h"
#include "text/data_files.h"
#include "text/sanitize.h"
#include "text/utf8.h"
#include "tts/speech_plan.h"

namespace lingcast {
namespace {

// What one espeak_Synth call produced: samples and events timed from its start.
struct RawEvent {
  espeak_EVENT_TYPE type;
  int sample = 0;         // from the start of this call's audio
  int text_position = 0;  // 1-based character position in the synthesized text
  int length = 0;         // characters (word events)
  std::string phoneme;    // IPA (phoneme events)
};

struct RawSynthesis {
  std::vector<int16_t> samples;
  std::vector<RawEvent> events;
  const std::atomic<bool>* cancel = nullptr;  // set: stop at the next callback
};

// espeak-ng's callback has no per-call context that survives every event type, so
// the synthesis in progress is published here while the runtime mutex is held.
// std::mutex rather than absl::Mutex: Debian's prebuilt abseil is not visible to
// ThreadSanitizer, so only a pthread-based mutex keeps the TSan build meaningful.
constinit std::mutex g_espeak_mutex;
RawSynthesis* g_active_synthesis ABSL_GUARDED_BY(g_espeak_mutex) = nullptr;

int CollectSynthesis(short* wav, int count, espeak_EVENT* events) ABSL_NO_THREAD_SAFETY_ANALYSIS {
  // Called by espeak_Synth on the calling thread, which holds g_espeak_mutex.
  RawSynthesis* out = g_active_synthesis;
  if (out == nullptr) return 1;  // abort: nobody is listening
  if (out->cancel != nullptr && out->cancel->load(std::memory_order_relaxed)) return 1;
  if (wav != nullptr && count > 0) out->samples.insert(out->samples.end(), wav, wav + count);
  for (espeak_EVENT* e = events; e != nullptr && e->type != espeakEVENT_LIST_TERMINATED; ++e) {
    if (e->type != espeakEVENT_PHONEME && e->type != espeakEVENT_WORD) continue;
    RawEvent raw{e->type, e->sample, e->text_position, e->length, {}};
    if (e->type == espeakEVENT_PHONEME) {
      raw.phoneme.assign(e->id.string, strnlen(e->id.string, sizeof e->id.string));
    }
    out->events.push_back(std::move(raw));
  }
  return 0;
}

// IPA as the lipsync stage wants it: one phoneme, no stress marks; "_" for a pause.
std::string CleanPhoneme(const std::string& ipa) {
  std::string out;
  for (const CodePoint& cp : DecodeUtf8(ipa)) {
    if (cp.value == U'ˈ' || cp.value == U'ˌ' || cp.value == '\'' || cp.value == ',') continue;
    out.append(ipa, cp.offset, cp.length);
  }
  return out.empty() ? "_" : out;
}

// espeak-ng's Mandarin voice names some phonemes in its own ASCII-ish notation even
// in IPA mode (retroflex "s.", aspirated "ph", apical vowel "i."); say them in IPA.
std::string MandarinIpa(std::string phoneme) {
  static constexpr std::pair<std::string_view, std::string_view> kFixes[] = {
      {"ts.h", "tʂʰ"}, {"ts.", "tʂ"}, {"s.", "ʂ"},  {"tsh", "tsʰ"}, {"tɕh", "tɕʰ"}, {"ph", "pʰ"},
      {"th", "tʰ"},    {"kh", "kʰ"},  {"i.", "ɨ"},  {"i̪", "ɨ"},     {"o-", "ɤ"},
  };
  for (const auto& [espeak, ipa] : kFixes) {
    if (phoneme == espeak) return std::string(ipa);
  }
  return phoneme;
}

// Byte offset of each 1-based character position of `text` (position size+1 = end).
std::vector<int> CharacterByteOffsets(std::string_view text) {
  std::vector<int> offsets = {0};  // position 0 is unused
  for (const CodePoint& cp : DecodeUtf8(text)) offsets.push_back(cp.offset);
  offsets.push_back(static_cast<int>(text.size()));
  return offsets;
}

// Silence kept on each side where the voice changes inside a clause.
constexpr MediaTime kHandoverSilence = MediaTime::Millis(30);

int Clamp(double value, int lo, int hi) {
  return static_cast<int>(std::lround(std::clamp(value, static_cast<double>(lo), static_cast<double>(hi))));
}

}  // namespace

// A lease on the process-wide espeak-ng library state; see the header comment.
// espeak-ng is initialized when the first lease is taken and stays initialized
// until the process exits: espeak-ng 1.51 (Debian 12) cannot go through a second
// Initialize/Terminate cycle (the second espeak_Terminate waits forever on its
// internal thread), so we never call espeak_Terminate. The count lives under
// g_espeak_mutex and only guards the one-data-path rule.
class EspeakEngine::Runtime {
 public:
  static absl::StatusOr<std::unique_ptr<Runtime>> Acquire(const std::string& data_path) {
    const std::lock_guard<std::mutex> lock(g_espeak_mutex);
    Shared& shared = State();
    if (shared.initialized) {
      if (shared.data_path != data_path) {
        return absl::FailedPreconditionError(absl::StrCat(
            "espeak-ng is already initialized with data path '", shared.data_path,
            "'; one process can use only one espeak-ng data path"));
      }
    } else {
      const int rate = espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, /*buflength=*/0,
                                         data_path.empty() ? nullptr : data_path.c_str(),
                                         espeakINITIALIZE_PHONEME_EVENTS | espeakINITIALIZE_PHONEME_IPA |
                                             espeakINITIALIZE_DONT_EXIT);
      if (rate <= 0) {
        return absl::NotFoundError(absl::StrCat(
            "cannot initialize espeak-ng (data path '", data_path.empty() ? "built-in default" : data_path,
            "'): install espeak-ng-data (scripts/install-deps.sh)"));
      }
      espeak_SetSynthCallback(CollectSynthesis);
      shared.sample_rate = rate;
      shared.data_path = data_path;
      shared.initialized = true;
    }
    ++shared.users;
    return std::unique_ptr<Runtime>(new Runtime(shared.sample_rate));
  }

  ~Runtime() {
    const std::lock_guard<std::mutex> lock(g_espeak_mutex);
    --State().users;
  }

  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  int sample_rate() const { return sample_rate_; }


  // Selects `voice`: a voice file ("gmw/en-US", "en-US"), a voice name
  // ("English_(America)") or a language ("en-gb", the best non-MBROLA voice for it,
  // as `espeak-ng -v` does). InvalidArgument if espeak-ng has nothing by that name.
  static absl::Status SetVoice(const std::string& voice) ABSL_EXCLUSIVE_LOCKS_REQUIRED(g_espeak_mutex) {
    // Listing voices reads every voice file and selecting one loads its phoneme
    // tables: ~10 ms each, per clause when streaming. So names are resolved once,
    // and a voice already selected is not selected again (only we select voices).
    Shared& shared = State();
    const auto unknown = [&voice] {
      return absl::InvalidArgumentError(absl::StrCat(
          "unknown espeak-ng voice '", voice,
          "' (lingcast speaks with en-us, en-gb and cmn-latn-pinyin, each also with a variant such as en-us+klatt3; "
          "`espeak-ng --voices` lists all, `espeak-ng --voices=variant` the variants)"));
    };
    auto resolved = shared.resolved_voices.find(voice);
    if (resolved == shared.resolved_voices.end()) {
      std::string identifier = ResolveVoice(voice);
      if (identifier.empty()) return unknown();  // not cached: names users make up stay out
      resolved = shared.resolved_voices.emplace(voice, std::move(identifier)).first;
    }
    const std::string& chosen = resolved->second;
    if (chosen == shared.current_voice) return absl::OkStatus();
    if (espeak_SetVoiceByName(chosen.c_str()) != EE_OK) return unknown();
    shared.current_voice = chosen;
    return absl::OkStatus();
  }

  static absl::StatusOr<RawSynthesis> Synth(const std::string& text, const std::atomic<bool>* cancel)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(g_espeak_mutex) {
    RawSynthesis raw;
    raw.cancel = cancel;
    g_active_synthesis = &raw;
    const espeak_ERROR err = espeak_Synth(text.c_str(), text.size() + 1, 0, POS_CHARACTER, 0,
                                          espeakCHARS_UTF8, nullptr, nullptr);
    g_active_synthesis = nullptr;
    if (cancel != nullptr && cancel->load()) return absl::CancelledError("speech synthesis was cancelled");
    if (err != EE_OK) return absl::InternalError(absl::StrCat("espeak-ng failed to synthesize (error ", err, ")"));
    return raw;
  }

 private:
  struct Shared {
    bool initialized = false;  // once true, stays true (see above)
    int users = 0;
    int sample_rate = 0;
    std::string data_path;
    std::map<std::string, std::string> resolved_voices;  // name asked for -> identifier
    std::string current_voice;                           // the identifier selected now
  };

  // The identifier of `voice`: a voice file ("gmw/en-US", "en-US"), a voice name
  // ("English_(America)") or a language ("en-gb", the best non-MBROLA voice for it,
  // as `espeak-ng -v` does); "" if espeak-ng has nothing by that name.
  // A variant may follow a "+" ("en-us+klatt3": the voice, spoken through
  // espeak-ng's Klatt formant synthesizer), as `espeak-ng -v` takes it; the
  // identifier is then "gmw/en-US+klatt3", which espeak_SetVoiceByName reads.
  static std::string ResolveVoice(const std::string& voice) ABSL_EXCLUSIVE_LOCKS_REQUIRED(g_espeak_mutex) {
    const size_t plus = voice.find('+');
    if (plus != std::string::npos) {
      const std::string variant = ResolveVariant(voice.substr(plus + 1));
      const std::string base = ResolveVoice(voice.substr(0, plus));
      return base.empty() || variant.empty() ? "" : absl::StrCat(base, "+", variant);
    }
    const std::string wanted = absl::AsciiStrToLower(voice);
    std::string chosen;
    int best_priority = 1 << 30;
    for (const espeak_VOICE** v = espeak_ListVoices(nullptr); v != nullptr && *v != nullptr; ++v) {
      const std::string identifier = (*v)->identifier ? (*v)->identifier : "";
      const std::string lower_id = absl::AsciiStrToLower(identifier);
      const std::string base = lower_id.substr(lower_id.rfind('/') + 1);
      const std::string name = absl::AsciiStrToLower(std::string((*v)->name ? (*v)->name : ""));
      if (wanted == lower_id || wanted == base || wanted == name) return identifier;
      if (lower_id.rfind("mb/", 0) == 0 || (*v)->languages == nullptr) continue;  // MBROLA voices need extra data
      // languages: repeated (priority byte, NUL-terminated code), ended by an empty code.
      for (const char* lang = (*v)->languages; *lang != 0; lang += std::strlen(lang + 1) + 2) {
        const int priority = static_cast<unsigned char>(*lang);
        if (absl::AsciiStrToLower(std::string(lang + 1)) == wanted && priority < best_priority) {
          chosen = identifier;
          best_priority = priority;
        }
      }
    }
    return chosen;
  }
  // The file name of a variant ("klatt3" for "Klatt3"); "" when there is none.
  static std::string ResolveVariant(const std::string& variant) ABSL_EXCLUSIVE_LOCKS_REQUIRED(g_espeak_mutex) {
    if (variant.empty()) return "";
    const std::string wanted = absl::AsciiStrToLower(variant);
    espeak_VOICE spec{};
    char variants[] = "variant";  // espeak-ng lists its variants under this language
    spec.languages = variants;
    for (const espeak_VOICE** v = espeak_ListVoices(&spec); v != nullptr && *v != nullptr; ++v) {
      const std::string identifier = (*v)->identifier ? (*v)->identifier : "";
      const std::string file = identifier.substr(identifier.rfind('/') + 1);  // "!v/klatt3" -> "klatt3"
      const std::string name = absl::AsciiStrToLower(std::string((*v)->name ? (*v)->name : ""));
      if (absl::AsciiStrToLower(file) == wanted || name == wanted) return file;
    }
    return "";
  }
  // Never destroyed: engines may outlive static destruction order.
  static Shared& State() ABSL_EXCLUSIVE_LOCKS_REQUIRED(g_espeak_mutex) {
    static Shared* const shared = new Shared;
    return *shared;
  }

  explicit Runtime(int sample_rate) : sample_rate_(sample_rate) {}
  const int sample_rate_;
};

absl::StatusOr<std::unique_ptr<EspeakEngine>> EspeakEngine::Create(const EspeakOptions& options) {
  std::string lexicon_path = options.lexicon_path;
  if (lexicon_path.empty()) {
    LC_ASSIGN_OR_RETURN(lexicon_path, FindDataFile(kZhLexiconFileName));
  }
  LC_ASSIGN_OR_RETURN(PinyinConverter pinyin, PinyinConverter::Load(lexicon_path));
  LC_ASSIGN_OR_RETURN(std::unique_ptr<Runtime> runtime, Runtime::Acquire(options.data_path));
  {
    const std::lock_guard<std::mutex> lock(g_espeak_mutex);
    LC_RETURN_IF_ERROR(Runtime::SetVoice(options.default_voice_en));
    LC_RETURN_IF_ERROR(Runtime::SetVoice(options.default_voice_zh));
  }
  return std::unique_ptr<EspeakEngine>(new EspeakEngine(std::move(runtime), std::move(pinyin), options));
}

EspeakEngine::EspeakEngine(std::unique_ptr<Runtime> runtime, PinyinConverter pinyin, EspeakOptions options)
    : runtime_(std::move(runtime)), pinyin_(std::move(pinyin)), options_(std::move(options)),
      sample_rate_(runtime_->sample_rate()) {}

EspeakEngine::~EspeakEngine() = default;

// A session is only the voice settings and a cancel flag: espeak-ng has no
// per-stream state of its own (its one global voice is set before every call).
class EspeakEngine::Session : public TtsSession {
 public:
  Session(EspeakEngine& engine, VoiceSettings settings) : engine_(engine), settings_(std::move(settings)) {}

  absl::StatusOr<SynthesisResult> SynthesizeClause(std::string_view clause, Language language) override {
    if (cancelled_.load()) return absl::CancelledError("speech synthesis was cancelled");
    LC_RETURN_IF_ERROR(ValidateUtf8(clause));
    // The clause comes sanitized from TtsStream; a caller driving the session
    // directly gets emoji and the like skipped here too.
    const SanitizedText sanitized = SanitizeText(clause);
    LC_ASSIGN_OR_RETURN(SynthesisResult result,
                        engine_.SynthesizeText(sanitized.text, settings_, language, &cancelled_));
    MapWordOffsets(result.track, sanitized.source_offset, clause);
    return result;
  }
  void Cancel() override { cancelled_.store(true); }
  bool cancelled() const override { return cancelled_.load(); }

 private:
  EspeakEngine& engine_;
  const VoiceSettings settings_;
  std::atomic<bool> cancelled_{false};
};

absl::StatusOr<SynthesisResult> EspeakEngine::Synthesize(const SynthesisRequest& request) {
  LC_RETURN_IF_ERROR(ValidateVoiceSettings(request));
  LC_RETURN_IF_ERROR(ValidateUtf8(request.text));
  // Emoji and the like would be read out by name ("grinning face"): skip them, and
  // map word offsets back to the text as given.
  const SanitizedText sanitized = SanitizeText(request.text);
  LC_ASSIGN_OR_RETURN(SynthesisResult result, SynthesizeText(sanitized.text, request, request.language, nullptr));
  MapWordOffsets(result.track, sanitized.source_offset, request.text);
  return result;
}

absl::StatusOr<std::unique_ptr<TtsSession>> EspeakEngine::OpenSession(const VoiceSettings& settings) {
  LC_RETURN_IF_ERROR(ValidateVoiceSettings(settings));
  {
    const std::lock_guard<std::mutex> lock(g_espeak_mutex);
    LC_RETURN_IF_ERROR(Runtime::SetVoice(VoiceFor(settings, settings.language)));
  }
  return std::make_unique<Session>(*this, settings);
}

const LanguageVoiceDefaults& EspeakEngine::DefaultsFor(Language language) const {
  return language == Language::kZh ? options_.zh : options_.en;
}

std::string EspeakEngine::VoiceFor(const VoiceSettings& settings, Language chunk_language) const {
  if (chunk_language == settings.language && !settings.voice.empty()) return settings.voice;
  return chunk_language == Language::kZh ? options_.default_voice_zh : options_.default_voice_en;
}

absl::StatusOr<SynthesisResult> EspeakEngine::SynthesizeText(std::string_view text, const VoiceSettings& settings,
                                                            Language language, const std::atomic<bool>* cancel) {
  const std::vector<SpeechChunk> chunks =
      language == Language::kZh ? PlanMandarinSpeech(text, pinyin_) : PlanEnglishSpeech(text, pinyin_);

  SynthesisResult result;
  result.audio.sample_rate = sample_rate_;
  result.track.language = language;
  const std::lock_guard<std::mutex> lock(g_espeak_mutex);
  // An unknown voice is an error even when the text has nothing to say.
  LC_RETURN_IF_ERROR(Runtime::SetVoice(VoiceFor(settings, language)));

  for (size_t c = 0; c < chunks.size(); ++c) {
    const SpeechChunk& chunk = chunks[c];
    const LanguageVoiceDefaults& defaults = DefaultsFor(chunk.language);
    LC_RETURN_IF_ERROR(Runtime::SetVoice(VoiceFor(settings, chunk.language)));
    // espeak-ng's defaults: 175 words per minute, pitch 50 of 0-100, volume 100 of
    // 0-200. The language's level goes in through espeak-ng's volume (it clips
    // inside, so a loud voice must be turned down there); the request's volume is
    // a linear gain on our side, so doubling it doubles the amplitude.
    espeak_SetParameter(espeakRATE, Clamp(175 * defaults.rate * settings.rate, 80, 450), 0);
    espeak_SetParameter(espeakPITCH, Clamp(50 * defaults.pitch * settings.pitch, 0, 100), 0);
    espeak_SetParameter(espeakVOLUME, Clamp(100 * defaults.level, 0, 200), 0);
    LC_ASSIGN_OR_RETURN(RawSynthesis raw, Runtime::Synth(chunk.text, cancel));

    SynthesisResult piece;
    piece.audio.sample_rate = sample_rate_;
    const std::vector<int> char_bytes = CharacterByteOffsets(chunk.text);
    const int max_position = static_cast<int>(char_bytes.size()) - 1;
    for (const RawEvent& e : raw.events) {
      const int64_t sample = std::clamp<int64_t>(e.sample, 0, static_cast<int64_t>(raw.samples.size()));
      const MediaTime start = MediaTime::FromSamples(sample, sample_rate_);
      if (e.type == espeakEVENT_PHONEME) {
        std::string phoneme = CleanPhoneme(e.phoneme);
        if (chunk.language == Language::kZh) phoneme = MandarinIpa(std::move(phoneme));
        piece.track.phonemes.push_back({std::move(phoneme), start, MediaTime::Zero()});
        continue;
      }
      const int first = char_bytes[std::clamp(e.text_position, 1, max_position)];
      const int last = char_bytes[std::clamp(e.text_position + e.length, 1, max_position)];
      const auto [lo, hi] = chunk.SourceRange(first, last);
      if (lo < 0) continue;
      // espeak-ng splits some words ("iPhone" -> i + Phone) and a number reads as
      // several words: one boundary per stretch of source text.
      const bool same_as_previous = !piece.track.words.empty() && piece.track.words.back().text_offset == lo &&
                                    piece.track.words.back().text_length == hi - lo;
      if (!same_as_previous) piece.track.words.push_back({start, lo, hi - lo});
    }
    piece.audio.samples.reserve(raw.samples.size());
    for (const int16_t s : raw.samples) piece.audio.samples.push_back(static_cast<float>(s) / 32768.0f);

    // espeak-ng pads every utterance with silence. Where one voice hands over to the
    // other mid-sentence ("我爱iPhone手机") keep only a breath so it flows.
    const bool first_chunk = c == 0;
    const bool last_chunk = c + 1 == chunks.size();
    const size_t text_end = chunk.text.find_last_not_of(' ');
    const bool ends_clause = text_end != std::string::npos && std::string_view(",.!?").find(chunk.text[text_end]) !=
                                                                  std::string_view::npos;
    TrimSilence(piece, first_chunk ? options_.max_leading_silence : kHandoverSilence,
                last_chunk || ends_clause ? options_.max_trailing_silence : kHandoverSilence);
    // After trimming, so what counts as silence does not depend on the volume.
    const float gain = static_cast<float>(settings.volume);
    for (float& s : piece.audio.samples) s = std::clamp(gain * s, -1.0f, 1.0f);
    AppendSynthesis(result, std::move(piece));
  }
  FinishPhonemeTrack(result);
  return result;
}

}  // namespace lingcast

namespace lingcast {
namespace {

constexpr int kPhonemesIpa = 0x02;  // espeak_TextToPhonemes: IPA, no separator (what Piper asks for)

struct ByteSpan {
  int begin = 0, end = 0;
};

// The words of text[begin, end): runs of non-space bytes holding a letter or a
// digit (any non-ASCII byte counts as a letter), so "—" or a lone "-" is none.
std::vector<ByteSpan> TextWords(std::string_view text, int begin, int end) {
  std::vector<ByteSpan> words;
  int i = begin;
  while (i < end) {
    while (i < end && absl::ascii_isspace(static_cast<unsigned char>(text[i]))) ++i;
    const int start = i;
    bool sayable = false;
    while (i < end && !absl::ascii_isspace(static_cast<unsigned char>(text[i]))) {
      const auto c = static_cast<unsigned char>(text[i]);
      sayable = sayable || c >= 0x80 || absl::ascii_isalnum(c);
      ++i;
    }
    if (i > start && sayable) words.push_back({start, i});
  }
  return words;
}

std::vector<std::string> SplitIpaWords(const char* ipa) {
  std::vector<std::string> words;
  std::string current;
  for (const char* p = ipa; p != nullptr && *p != '\0'; ++p) {
    if (*p == ' ' || *p == '\n') {
      if (!current.empty()) words.push_back(std::move(current));
      current.clear();
    } else {
      current.push_back(*p);
    }
  }
  if (!current.empty()) words.push_back(std::move(current));
  return words;
}

// How many IPA words espeak-ng makes of `word` alone ("$89": three). Holds the
// runtime's lock through the caller.
std::size_t IpaWordCount(const std::string& word) {
  std::size_t n = 0;
  const void* cursor = word.c_str();
  while (cursor != nullptr) n += SplitIpaWords(espeak_TextToPhonemes(&cursor, espeakCHARS_UTF8, kPhonemesIpa)).size();
  return n;
}

}  // namespace

absl::StatusOr<std::vector<IpaClause>> EspeakEngine::PhonemizeIpa(std::string_view text, const std::string& voice) {
  LC_RETURN_IF_ERROR(ValidateUtf8(text));
  LC_ASSIGN_OR_RETURN(const std::unique_ptr<Runtime> runtime, Runtime::Acquire(""));
  const std::string input(text);  // NUL-terminated, as espeak-ng reads it
  const std::lock_guard<std::mutex> lock(g_espeak_mutex);
  LC_RETURN_IF_ERROR(Runtime::SetVoice(voice));
  // espeak-ng's IPA, clause by clause. Where a clause ended in the text cannot be
  // read off its cursor (it reads a character or two ahead), so the words of the
  // whole text are matched to the IPA words below.
  std::vector<std::vector<std::string>> clause_ipa;
  const void* cursor = input.c_str();
  while (cursor != nullptr) {
    std::vector<std::string> ipa = SplitIpaWords(espeak_TextToPhonemes(&cursor, espeakCHARS_UTF8, kPhonemesIpa));
    if (!ipa.empty()) clause_ipa.push_back(std::move(ipa));
  }
  std::size_t total = 0;
  for (const auto& ipa : clause_ipa) total += ipa.size();
  if (total == 0) return std::vector<IpaClause>{};
  std::vector<ByteSpan> words = TextWords(input, 0, static_cast<int>(input.size()));
  if (words.empty()) words.push_back({0, static_cast<int>(input.size())});

  // Which text word each IPA word says: one each when the counts agree; else by
  // what espeak-ng makes of each word alone ("$89": three); else spread in order.
  std::vector<std::size_t> counts;
  std::size_t sum = 0;
  if (total != words.size()) {
    for (const ByteSpan& w : words) counts.push_back(IpaWordCount(input.substr(w.begin, w.end - w.begin)));
    for (const std::size_t c : counts) sum += c;
  }
  std::size_t k = 0, word = 0, used = 0;
  auto owner = [&]() -> std::size_t {
    std::size_t o = 0;
    if (total == words.size()) {
      o = k;
    } else if (sum == total) {
      while (word < counts.size() && used == counts[word]) ++word, used = 0;
      o = word;
      ++used;
    } else {
      o = k * words.size() / total;
    }
    ++k;
    return o;
  };
  // The punctuation that ends a clause whose last word is `w`: on the word itself
  // ("dollars,") or standing after it ("dollars ,").
  auto terminator = [&](std::size_t w) -> char {
    const int limit = w + 1 < words.size() ? words[w + 1].begin : static_cast<int>(input.size());
    for (int i = words[w].end - 1; i < limit; ++i) {
      if (std::string_view(".,?!:;").find(input[i]) != std::string_view::npos) return input[i];
    }
    return 0;
  };
  std::vector<IpaClause> clauses;
  for (const auto& ipa : clause_ipa) {
    IpaClause clause;
    std::size_t last_owner = 0;
    for (const std::string& piece : ipa) {
      const std::size_t o = owner();
      const ByteSpan& w = words[o];
      if (!clause.words.empty() && o == last_owner) {
        clause.words.back().ipa += " " + piece;
      } else {
        clause.words.push_back({piece, w.begin, w.end - w.begin});
      }
      last_owner = o;
    }
    clause.terminator = terminator(last_owner);
    clauses.push_back(std::move(clause));
  }
  return clauses;
}

}  // namespace lingcast
