#include "app/neural_plugin_engines.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/status.h"

namespace lingcast {
namespace {

lc_language ToC(Language language) { return language == Language::kZh ? LC_LANGUAGE_ZH : LC_LANGUAGE_EN; }
Language FromC(lc_language language) { return language == LC_LANGUAGE_ZH ? Language::kZh : Language::kEn; }

// Copies `message` into a plug-in's lc_status (a sink's error going back in).
lc_status_code ReportTo(const absl::Status& status, lc_status* out) {
  const auto code = static_cast<lc_status_code>(status.code());
  if (out != nullptr) {
    out->code = code;
    const std::string message(status.message());
    const std::size_t n = std::min(message.size(), sizeof(out->message) - 1);
    std::memcpy(out->message, message.data(), n);
    out->message[n] = '\0';
  }
  return code;
}

std::string PlacedOn(const char (&buffer)[LC_PLACED_ON_CAPACITY]) {
  return std::string(buffer, strnlen(buffer, sizeof(buffer)));
}

// A stop flag in the plug-in that follows a std::stop_token for one call.
class StopLink {
 public:
  StopLink(const lc_plugin_table& table, const std::stop_token& stop) : table_(table) {
    if (!stop.stop_possible()) return;
    flag_ = table_.stop_create();
    if (flag_ != nullptr) callback_.emplace(stop, Request{table_.stop_request, flag_});
  }
  ~StopLink() {
    callback_.reset();  // no request can arrive after this
    if (flag_ != nullptr) table_.stop_destroy(flag_);
  }
  StopLink(const StopLink&) = delete;
  StopLink& operator=(const StopLink&) = delete;
  lc_stop* flag() const { return flag_; }

 private:
  struct Request {
    void (*request)(lc_stop*);
    lc_stop* flag;
    void operator()() const { request(flag); }
  };
  const lc_plugin_table& table_;
  lc_stop* flag_ = nullptr;
  std::optional<std::stop_callback<Request>> callback_;
};

// ---- recognizer ---------------------------------------------------------------

AsrHypothesis HypothesisFromC(const lc_hypothesis& in) {
  AsrHypothesis out;
  out.final = in.is_final != 0;
  out.text.assign(in.text, in.text_size);
  out.start = MediaTime::Micros(in.start_us);
  out.end = MediaTime::Micros(in.end_us);
  out.words.reserve(in.word_count);
  for (size_t i = 0; i < in.word_count; ++i) {
    const lc_word& word = in.words[i];
    out.words.push_back({std::string(word.text, word.text_size), MediaTime::Micros(word.start_us),
                         MediaTime::Micros(word.end_us), word.confidence});
  }
  out.language = FromC(in.language);
  out.stable_prefix_chars = in.stable_prefix_chars;
  out.translation.assign(in.translation, in.translation_size);
  return out;
}

void TakeHypothesis(void* user, const lc_hypothesis* hypothesis) {
  *static_cast<std::optional<AsrHypothesis>*>(user) = HypothesisFromC(*hypothesis);
}

// The records of the plug-in's logger, printed by the host's.
void ForwardLog(void* user, int32_t level, const char* component, const char* message, const lc_log_field* fields,
                size_t field_count) {
  std::vector<Logger::Field> copied;
  copied.reserve(field_count);
  for (size_t i = 0; i < field_count; ++i) copied.emplace_back(fields[i].key, fields[i].value);
  static_cast<Logger*>(user)->LogFields(static_cast<LogLevel>(level), component, message, copied);
}

// A recognizer handle, shared by the model and its sessions: the last one
// destroys it, then lets the library go.
struct RecognizerHandle {
  std::shared_ptr<const NeuralPluginLibrary> library;
  lc_recognizer* recognizer = nullptr;
  RecognizerHandle() = default;
  RecognizerHandle(const RecognizerHandle&) = delete;
  RecognizerHandle& operator=(const RecognizerHandle&) = delete;
  ~RecognizerHandle() {
    if (recognizer != nullptr) library->table().recognizer_destroy(recognizer);
  }
};

class PluginAsrSession : public AsrSession {
 public:
  PluginAsrSession(std::shared_ptr<const RecognizerHandle> model, lc_recognizer_session* session)
      : model_(std::move(model)), session_(session) {}
  PluginAsrSession(const PluginAsrSession&) = delete;
  PluginAsrSession& operator=(const PluginAsrSession&) = delete;
  ~PluginAsrSession() override { table().recognizer_session_destroy(session_); }

  using AsrSession::AcceptAudio;
  absl::Status AcceptAudio(const AudioBuffer& pcm16k, MediaTime pts) override {
    lc_status status{};
    const lc_status_code code = table().recognizer_session_accept_audio(
        session_, pcm16k.samples.data(), pcm16k.samples.size(), pcm16k.sample_rate, pcm16k.channels, pts.micros(),
        &status);
    return StatusFromPlugin(code, status);
  }
  std::optional<AsrHypothesis> Partial() override {
    std::optional<AsrHypothesis> partial;
    lc_status status{};
    if (table().recognizer_session_partial(session_, &TakeHypothesis, &partial, &status) != LC_OK) {
      return std::nullopt;
    }
    return partial;
  }
  absl::StatusOr<AsrHypothesis> Finish() override {
    std::optional<AsrHypothesis> final;
    lc_status status{};
    const lc_status_code code = table().recognizer_session_finish(session_, &TakeHypothesis, &final, &status);
    if (code != LC_OK) return StatusFromPlugin(code, status);
    if (!final) return absl::InternalError("the neural plug-in finished an utterance without a hypothesis");
    return *std::move(final);
  }
  absl::StatusOr<std::vector<double>> ScoreOpenings(const std::vector<std::string>& openings) override {
    // A plug-in of minor 2 or older has no such entry.
    if (table().struct_size < offsetof(lc_plugin_table, recognizer_session_score_openings) + sizeof(void (*)(void)) ||
        table().recognizer_session_score_openings == nullptr) {
      return AsrSession::ScoreOpenings(openings);
    }
    std::vector<const char*> texts;
    std::vector<size_t> sizes;
    for (const std::string& opening : openings) {
      texts.push_back(opening.data());
      sizes.push_back(opening.size());
    }
    std::vector<double> scores(openings.size());
    lc_status status{};
    const lc_status_code code = table().recognizer_session_score_openings(session_, texts.data(), sizes.data(),
                                                                          openings.size(), scores.data(), &status);
    if (code != LC_OK) return StatusFromPlugin(code, status);
    return scores;
  }
  MediaTime position() const override {
    return MediaTime::Micros(table().recognizer_session_position_us(session_));
  }

 private:
  const lc_plugin_table& table() const { return model_->library->table(); }

  std::shared_ptr<const RecognizerHandle> model_;
  lc_recognizer_session* session_;  // owned
};

class PluginAsrModel : public AsrModel {
 public:
  explicit PluginAsrModel(std::shared_ptr<const RecognizerHandle> handle) : handle_(std::move(handle)) {}
  absl::StatusOr<std::unique_ptr<AsrSession>> NewSession() const override {
    lc_status status{};
    lc_recognizer_session* session = table().recognizer_new_session(handle_->recognizer, &status);
    if (session == nullptr) return StatusFromPlugin(status.code != LC_OK ? status.code : LC_UNKNOWN, status);
    return std::unique_ptr<AsrSession>(std::make_unique<PluginAsrSession>(handle_, session));
  }
  Language language() const override { return FromC(table().recognizer_language(handle_->recognizer)); }
  std::string name() const override { return table().recognizer_name(handle_->recognizer); }
  std::optional<StepBatching> step_batching() const override {
    // A plug-in of minor 2 or later has the entry (lingcast_plugin_abi.h).
    if (table().struct_size < offsetof(lc_plugin_table, recognizer_step_batching) + sizeof(void (*)(void)) ||
        table().recognizer_step_batching == nullptr) {
      return std::nullopt;
    }
    lc_step_batching stats{};
    stats.struct_size = sizeof(stats);
    if (table().recognizer_step_batching(handle_->recognizer, &stats) == 0) return std::nullopt;
    return StepBatching{stats.steps, stats.passes, stats.joined_steps, stats.largest_pass};
  }

 private:
  const lc_plugin_table& table() const { return handle_->library->table(); }

  std::shared_ptr<const RecognizerHandle> handle_;
};

// ---- voices ---------------------------------------------------------------------

SynthesisResult SynthesisFromC(const lc_synthesis& in) {
  SynthesisResult out;
  out.audio.sample_rate = in.sample_rate;
  out.audio.channels = in.channels;
  out.audio.samples.assign(in.samples, in.samples + in.sample_count);
  out.track.language = FromC(in.track_language);
  out.track.phonemes.reserve(in.phoneme_count);
  for (size_t i = 0; i < in.phoneme_count; ++i) {
    const lc_phoneme& phoneme = in.phonemes[i];
    out.track.phonemes.push_back({std::string(phoneme.phoneme, phoneme.phoneme_size),
                                  MediaTime::Micros(phoneme.start_us), MediaTime::Micros(phoneme.duration_us)});
  }
  out.track.words.reserve(in.word_count);
  for (size_t i = 0; i < in.word_count; ++i) {
    const lc_word_boundary& word = in.words[i];
    out.track.words.push_back({MediaTime::Micros(word.start_us), word.text_offset, word.text_length});
  }
  return out;
}

lc_status_code TakeSynthesis(void* user, const lc_synthesis* synthesis, lc_status* /*status*/) {
  *static_cast<std::optional<SynthesisResult>*>(user) = SynthesisFromC(*synthesis);
  return LC_OK;
}

lc_status_code PassPart(void* user, const lc_synthesis* part, lc_status* status) {
  const ClausePartSink& sink = *static_cast<const ClausePartSink*>(user);
  return ReportTo(sink(SynthesisFromC(*part)), status);
}

lc_voice_settings SettingsToC(const VoiceSettings& settings) {
  lc_voice_settings out{};
  out.struct_size = sizeof(out);
  out.language = ToC(settings.language);
  out.voice = settings.voice.c_str();
  out.rate = settings.rate;
  out.pitch = settings.pitch;
  out.volume = settings.volume;
  return out;
}

using Phonemizer = std::function<absl::StatusOr<std::vector<IpaClause>>(std::string_view, const std::string&)>;

// The host's phonemizer as the plug-in calls it.
lc_status_code Phonemize(void* user, const char* text, size_t size, const char* voice, lc_ipa_sink sink,
                         void* sink_user, lc_status* status) {
  const Phonemizer& phonemize = *static_cast<const Phonemizer*>(user);
  absl::StatusOr<std::vector<IpaClause>> clauses = phonemize(std::string_view(text, size), voice);
  if (!clauses.ok()) return ReportTo(clauses.status(), status);
  std::vector<lc_ipa_word> words;
  for (const IpaClause& clause : *clauses) {
    words.clear();
    for (const IpaWord& word : clause.words) {
      words.push_back({word.ipa.data(), word.ipa.size(), word.text_offset, word.text_length});
    }
    const lc_ipa_clause c_clause{words.data(), words.size(), clause.terminator};
    sink(sink_user, &c_clause);
  }
  return LC_OK;
}

struct VoiceHandle {
  std::shared_ptr<const NeuralPluginLibrary> library;
  Phonemizer phonemize;  // lives at a fixed address: the plug-in's voice calls it
  lc_voice* voice = nullptr;
  VoiceHandle() = default;
  VoiceHandle(const VoiceHandle&) = delete;
  VoiceHandle& operator=(const VoiceHandle&) = delete;
  ~VoiceHandle() {
    if (voice != nullptr) library->table().voice_destroy(voice);
  }
};

class PluginTtsSession : public TtsSession {
 public:
  PluginTtsSession(std::shared_ptr<const VoiceHandle> voice, lc_voice_session* session)
      : voice_(std::move(voice)), session_(session) {}
  PluginTtsSession(const PluginTtsSession&) = delete;
  PluginTtsSession& operator=(const PluginTtsSession&) = delete;
  ~PluginTtsSession() override { table().voice_session_destroy(session_); }

  absl::StatusOr<SynthesisResult> SynthesizeClause(std::string_view clause, Language language) override {
    std::optional<SynthesisResult> result;
    lc_status status{};
    const lc_status_code code = table().voice_session_synthesize_clause(session_, clause.data(), clause.size(),
                                                                        ToC(language), &TakeSynthesis, &result, &status);
    if (code != LC_OK) return StatusFromPlugin(code, status);
    if (!result) return absl::InternalError("the neural plug-in gave no speech for a clause");
    return *std::move(result);
  }
  absl::Status StreamClause(std::string_view clause, Language language, const ClausePartSink& sink) override {
    lc_status status{};
    const lc_status_code code =
        table().voice_session_stream_clause(session_, clause.data(), clause.size(), ToC(language), &PassPart,
                                            const_cast<ClausePartSink*>(&sink), &status);
    return StatusFromPlugin(code, status);
  }
  void Cancel() override { table().voice_session_cancel(session_); }
  bool cancelled() const override { return table().voice_session_cancelled(session_) != 0; }

 private:
  const lc_plugin_table& table() const { return voice_->library->table(); }

  std::shared_ptr<const VoiceHandle> voice_;
  lc_voice_session* session_;  // owned
};

class PluginTtsEngine : public TtsEngine {
 public:
  explicit PluginTtsEngine(std::shared_ptr<const VoiceHandle> voice) : voice_(std::move(voice)) {}

  absl::StatusOr<SynthesisResult> Synthesize(const SynthesisRequest& request) override {
    const lc_voice_settings settings = SettingsToC(request);
    std::optional<SynthesisResult> result;
    lc_status status{};
    const lc_status_code code = table().voice_synthesize(voice_->voice, &settings, request.text.data(),
                                                         request.text.size(), &TakeSynthesis, &result, &status);
    if (code != LC_OK) return StatusFromPlugin(code, status);
    if (!result) return absl::InternalError("the neural plug-in gave no speech");
    return *std::move(result);
  }
  absl::StatusOr<std::unique_ptr<TtsSession>> OpenSession(const VoiceSettings& settings) override {
    const lc_voice_settings c_settings = SettingsToC(settings);
    lc_status status{};
    lc_voice_session* session = table().voice_open_session(voice_->voice, &c_settings, &status);
    if (session == nullptr) return StatusFromPlugin(status.code != LC_OK ? status.code : LC_UNKNOWN, status);
    return std::unique_ptr<TtsSession>(std::make_unique<PluginTtsSession>(voice_, session));
  }
  int sample_rate() const override { return table().voice_sample_rate(voice_->voice); }
  std::string name() const override { return table().voice_name(voice_->voice); }

 private:
  const lc_plugin_table& table() const { return voice_->library->table(); }

  std::shared_ptr<const VoiceHandle> voice_;
};

// The error of a create call that gave no handle.
absl::Status CreateFailed(const lc_status& status) {
  return StatusFromPlugin(status.code != LC_OK ? status.code : LC_UNKNOWN, status);
}

}  // namespace

absl::Status StatusFromPlugin(lc_status_code code, const lc_status& status) {
  if (code == LC_OK) return absl::OkStatus();
  const std::string message(status.message, strnlen(status.message, sizeof(status.message)));
  if (code < 0 || code > static_cast<lc_status_code>(absl::StatusCode::kUnauthenticated)) {
    return absl::UnknownError(absl::StrCat("neural plug-in status ", code, ": ", message));
  }
  return absl::Status(static_cast<absl::StatusCode>(code), message);
}

// ---- translator -------------------------------------------------------------------

absl::StatusOr<std::unique_ptr<PluginTranslator>> PluginTranslator::Create(const NeuralPlugin& plugin,
                                                                           const MarianPluginRequest& request) {
  LC_RETURN_IF_ERROR(plugin.Require(plugin.table().create_marian_translator, "marian"));
  lc_marian_options options{};
  options.struct_size = sizeof(options);
  options.model_dir = request.model_dir.c_str();
  options.from = ToC(request.from);
  options.to = ToC(request.to);
  options.quantize = request.quantize.c_str();
  options.device = request.device.c_str();
  options.dtype = request.dtype.c_str();
  char placed_on[LC_PLACED_ON_CAPACITY] = {};
  options.placed_on = placed_on;
  lc_status status{};
  lc_translator* translator = plugin.table().create_marian_translator(&options, &status);
  if (translator == nullptr) return CreateFailed(status);
  if (request.placed_on != nullptr) *request.placed_on = PlacedOn(placed_on);
  return std::unique_ptr<PluginTranslator>(new PluginTranslator(plugin.library(), translator));
}

PluginTranslator::~PluginTranslator() { library_->table().translator_destroy(translator_); }

std::string PluginTranslator::name() const { return library_->table().translator_name(translator_); }

absl::StatusOr<Translation> PluginTranslator::Translate(const TranslationRequest& request, std::stop_token stop,
                                                        const PartialTranslation& on_partial) {
  const lc_plugin_table& table = library_->table();
  const StopLink stop_link(table, stop);
  lc_translation_request c_request{};
  c_request.struct_size = sizeof(c_request);
  c_request.source = request.source.data();
  c_request.source_size = request.source.size();
  c_request.from = ToC(request.from);
  c_request.to = ToC(request.to);
  c_request.stop = stop_link.flag();
  if (on_partial) {
    c_request.on_partial = [](void* user, const char* text, size_t size) {
      (*static_cast<const PartialTranslation*>(user))(std::string_view(text, size));
    };
    c_request.partial_user = const_cast<PartialTranslation*>(&on_partial);
  }
  std::optional<Translation> translation;
  lc_status status{};
  const lc_status_code code = table.translator_translate(
      translator_, &c_request,
      [](void* user, const lc_translation* result) {
        Translation& out = static_cast<std::optional<Translation>*>(user)->emplace();
        out.text.assign(result->text, result->text_size);
        out.confidence = result->confidence;
      },
      &translation, &status);
  if (code != LC_OK) return StatusFromPlugin(code, status);
  if (!translation) return absl::InternalError("the neural plug-in gave no translation");
  translation->engine = name();
  return *std::move(translation);
}

absl::StatusOr<std::vector<std::string>> PluginTranslator::TranslateBatch(const std::vector<std::string>& sources,
                                                                          std::stop_token stop) {
  const lc_plugin_table& table = library_->table();
  const StopLink stop_link(table, stop);
  std::vector<const char*> texts;
  std::vector<size_t> sizes;
  for (const std::string& source : sources) {
    texts.push_back(source.data());
    sizes.push_back(source.size());
  }
  std::vector<std::string> lines(sources.size());
  lc_status status{};
  const lc_status_code code = table.translator_translate_batch(
      translator_, texts.data(), sizes.data(), sources.size(), stop_link.flag(),
      [](void* user, size_t index, const char* text, size_t size) {
        auto& out = *static_cast<std::vector<std::string>*>(user);
        if (index < out.size()) out[index].assign(text, size);
      },
      &lines, &status);
  if (code != LC_OK) return StatusFromPlugin(code, status);
  return lines;
}

absl::StatusOr<std::shared_ptr<AsrModel>> MakePluginRecognizer(const NeuralPlugin& plugin,
                                                               const WhisperPluginRequest& request) {
  LC_RETURN_IF_ERROR(plugin.Require(plugin.table().create_whisper_recognizer, "whisper"));
  lc_whisper_options options{};
  options.struct_size = sizeof(options);
  options.model_dir = request.model_dir.c_str();
  options.language = request.language.c_str();
  options.translate = request.translate ? 1 : 0;
  options.also_translate = request.also_translate ? 1 : 0;
  options.agreement = request.agreement;
  options.min_partial_interval_us = request.min_partial_interval_ms * 1000;
  options.min_partial_interval_gpu_us = request.min_partial_interval_gpu_ms * 1000;
  options.max_compute_share = request.max_compute_share;
  options.trim_after_us = request.trim_after_ms * 1000;
  options.quantize = request.quantize.c_str();
  options.int8_on_cpu = request.int8_on_cpu ? 1 : 0;
  options.device = request.device.c_str();
  options.dtype = request.dtype.c_str();
  char placed_on[LC_PLACED_ON_CAPACITY] = {};
  options.placed_on = placed_on;
  if (request.logger != nullptr) {
    options.log = &ForwardLog;
    options.log_user = request.logger;
    options.log_level = static_cast<int32_t>(request.logger->level());
  }
  lc_status status{};
  auto handle = std::make_shared<RecognizerHandle>();
  handle->library = plugin.library();
  handle->recognizer = plugin.table().create_whisper_recognizer(&options, &status);
  if (handle->recognizer == nullptr) return CreateFailed(status);
  if (request.placed_on != nullptr) *request.placed_on = PlacedOn(placed_on);
  return std::shared_ptr<AsrModel>(std::make_shared<PluginAsrModel>(std::move(handle)));
}

absl::StatusOr<std::unique_ptr<TtsEngine>> MakePluginVitsVoice(const NeuralPlugin& plugin,
                                                               const VitsPluginRequest& request) {
  LC_RETURN_IF_ERROR(plugin.Require(plugin.table().create_vits_voice, "vits"));
  auto handle = std::make_shared<VoiceHandle>();
  handle->library = plugin.library();
  handle->phonemize = request.phonemize;
  lc_vits_options options{};
  options.struct_size = sizeof(options);
  options.model_dir = request.model_dir.c_str();
  options.seed = request.seed;
  options.device = request.device.c_str();
  options.dtype = request.dtype.c_str();
  options.capture_as_needed = request.warm_at_load ? 0 : 1;
  char placed_on[LC_PLACED_ON_CAPACITY] = {};
  options.placed_on = placed_on;
  if (handle->phonemize) {
    options.phonemize = &Phonemize;
    options.phonemize_user = &handle->phonemize;
  }
  lc_status status{};
  handle->voice = plugin.table().create_vits_voice(&options, &status);
  if (handle->voice == nullptr) return CreateFailed(status);
  if (request.placed_on != nullptr) *request.placed_on = PlacedOn(placed_on);
  return std::unique_ptr<TtsEngine>(std::make_unique<PluginTtsEngine>(std::move(handle)));
}

absl::StatusOr<std::unique_ptr<TtsEngine>> MakePluginFastSpeech2Voice(const NeuralPlugin& plugin,
                                                                      const FastSpeech2PluginRequest& request) {
  LC_RETURN_IF_ERROR(plugin.Require(plugin.table().create_fastspeech2_voice, "fastspeech2"));
  auto handle = std::make_shared<VoiceHandle>();
  handle->library = plugin.library();
  lc_fastspeech2_options options{};
  options.struct_size = sizeof(options);
  options.model_dir = request.model_dir.c_str();
  options.seed = request.seed;
  options.lexicon_path = request.lexicon_path.empty() ? nullptr : request.lexicon_path.c_str();
  lc_status status{};
  handle->voice = plugin.table().create_fastspeech2_voice(&options, &status);
  if (handle->voice == nullptr) return CreateFailed(status);
  return std::unique_ptr<TtsEngine>(std::make_unique<PluginTtsEngine>(std::move(handle)));
}

NeuralRuntimeReport DescribePluginRuntime(const NeuralPlugin& plugin) {
  lc_runtime_report report{};
  report.struct_size = sizeof(report);
  plugin.table().describe_runtime(&report);
  NeuralRuntimeReport out;
  out.summary.assign(report.summary, strnlen(report.summary, sizeof(report.summary)));
  out.reference_blas = report.reference_blas != 0;
  out.gpus = report.gpus;
  return out;
}

}  // namespace lingcast
