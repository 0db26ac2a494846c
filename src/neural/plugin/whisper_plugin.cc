// The Whisper recognizer behind the C ABI (lingcast_plugin_abi.h):
// WhisperAsrModel with libtorch inside, its streaming sessions, and its debug
// records forwarded to the host's logger.
#include <algorithm>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/logger.h"
#include "neural/core/cpu_threads.h"
#include "neural/core/device_choice.h"
#include "neural/core/quantization.h"
#include "neural/core/status_adapter.h"
#include "neural/plugin/plugin_entries.h"
#include "neural/plugin/plugin_glue.h"
#include "neural/whisper/whisper_asr.h"

struct lc_recognizer {
  // Declared first, destroyed last: the model logs through it.
  std::unique_ptr<lingcast::Logger> logger;
  std::shared_ptr<lingcast::neural::WhisperAsrModel> model;
  std::string name;
};

struct lc_recognizer_session {
  std::unique_ptr<lingcast::AsrSession> session;
};

namespace lingcast::plugin {
namespace {

// A logger whose records go to the host's lc_log_fn.
std::unique_ptr<Logger> ForwardingLogger(const lc_whisper_options& request) {
  if (request.log == nullptr) return nullptr;
  const lc_log_fn log = request.log;
  void* const user = request.log_user;
  return std::make_unique<Logger>(
      static_cast<LogLevel>(request.log_level),
      [log, user](LogLevel level, std::string_view component, std::string_view message,
                  absl::Span<const Logger::Field> fields) {
        const std::string component_text(component);
        const std::string message_text(message);
        std::vector<std::string> keys;
        keys.reserve(fields.size());
        std::vector<lc_log_field> c_fields;
        c_fields.reserve(fields.size());
        for (const Logger::Field& field : fields) keys.emplace_back(field.first);
        for (size_t i = 0; i < fields.size(); ++i) c_fields.push_back({keys[i].c_str(), fields[i].second.c_str()});
        log(user, static_cast<int32_t>(level), component_text.c_str(), message_text.c_str(), c_fields.data(),
            c_fields.size());
      });
}

absl::StatusOr<std::unique_ptr<lc_recognizer>> Create(const lc_whisper_options& request) {
  // libtorch sized its pool from what OpenMP saw at start-up (one thread on the
  // 2-core build VM); the model runs on the cores the process may use.
  const int cpu_threads = neural::UseAvailableCpuThreads();
  auto recognizer = std::make_unique<lc_recognizer>();
  recognizer->logger = ForwardingLogger(request);
  neural::WhisperAsrOptions options;
  options.model_dir = StringOr(request.model_dir, "");
  options.language = StringOr(request.language, "");
  options.task = request.translate ? neural::WhisperTask::kTranslate : neural::WhisperTask::kTranscribe;
  options.also_translate = request.also_translate != 0;
  options.streaming.agreement = request.agreement;
  options.streaming.min_partial_interval = MediaTime::Micros(request.min_partial_interval_us);
  options.streaming.trim_after = MediaTime::Micros(request.trim_after_us);
  options.logger = recognizer->logger.get();
  const std::string quantize = StringOr(request.quantize, "none");
  const absl::StatusOr<neural::Quantization> quantization =
      neural::CallNeural("--quantize", [&] { return neural::ParseQuantization(quantize, "--quantize"); });
  if (!quantization.ok()) return quantization.status();
  options.model.quantization = *quantization;
  const absl::StatusOr<neural::DeviceChoice> placement = neural::CallNeural("--device", [&] {
    return neural::ChooseDevice(StringOr(request.device, "auto"), StringOr(request.dtype, "auto"),
                                neural::EngineKind::kWhisper);
  });
  if (!placement.ok()) return placement.status();
  options.model.device = placement->device;
  options.model.dtype = placement->dtype;
  const bool has_gpu_interval =
      request.struct_size >= offsetof(lc_whisper_options, min_partial_interval_gpu_us) + sizeof(int64_t);
  if (has_gpu_interval && request.min_partial_interval_gpu_us > 0 && placement->device.is_cuda()) {
    options.streaming.min_partial_interval = MediaTime::Micros(request.min_partial_interval_gpu_us);
  }
  if (request.struct_size >= offsetof(lc_whisper_options, max_compute_share) + sizeof(double) &&
      request.max_compute_share != 0.0) {
    options.streaming.max_compute_share = std::max(request.max_compute_share, 0.0);
  }
  // int8 only where the CPU has our int8 kernels (AVX-512 VNNI, or AVX2 for the
  // decode steps): elsewhere each product would dequantize its weight first,
  // 3-10x slower than float32 (a partial decode of Whisper base took 3.4 s
  // instead of 0.3 s on an AVX2-only machine before the AVX2 kernel).
  if (request.int8_on_cpu && quantize == "none" && placement->device.is_cpu() && neural::CpuInt8KernelsRun()) {
    options.model.quantization = neural::Quantization::kInt8;
  }
  // Sessions sharing the model (serve) join their decode steps into one pass
  // once more than twice as many decoders are live as the CPU has threads;
  // fewer decode sooner side by side (model_options.h has the figures).
  if (placement->device.is_cpu()) {
    options.model.step_batching.enabled = true;
    options.model.step_batching.join_above_live_decoders = 2 * static_cast<std::int64_t>(cpu_threads);
  }
  absl::StatusOr<std::shared_ptr<neural::WhisperAsrModel>> created = neural::WhisperAsrModel::Load(options);
  if (!created.ok()) return created.status();
  CopyOut(neural::DescribeDevice(*placement), request.placed_on, LC_PLACED_ON_CAPACITY);
  recognizer->name = (*created)->name();
  recognizer->model = *std::move(created);
  return recognizer;
}

void HandOver(const AsrHypothesis& hypothesis, lc_hypothesis_sink sink, void* user) {
  std::vector<lc_word> words;
  words.reserve(hypothesis.words.size());
  for (const AsrWord& word : hypothesis.words) {
    words.push_back({word.text.data(), word.text.size(), word.start.micros(), word.end.micros(), word.confidence});
  }
  lc_hypothesis out{};
  out.struct_size = sizeof(out);
  out.is_final = hypothesis.final ? 1 : 0;
  out.text = hypothesis.text.data();
  out.text_size = hypothesis.text.size();
  out.start_us = hypothesis.start.micros();
  out.end_us = hypothesis.end.micros();
  out.words = words.data();
  out.word_count = words.size();
  out.language = ToC(hypothesis.language);
  out.stable_prefix_chars = hypothesis.stable_prefix_chars;
  out.translation = hypothesis.translation.data();
  out.translation_size = hypothesis.translation.size();
  sink(user, &out);
}

}  // namespace

lc_recognizer* CreateWhisperRecognizer(const lc_whisper_options* options, lc_status* status) {
  // A host of minor 0 fills the options up to log_level (lingcast_plugin_abi.h).
  return CreateHandle<lc_recognizer>("loading whisper", "lc_whisper_options", options, status, Create,
                                     LC_WHISPER_OPTIONS_V2_0_SIZE);
}

void RecognizerDestroy(lc_recognizer* recognizer) { delete recognizer; }

const char* RecognizerName(const lc_recognizer* recognizer) { return recognizer->name.c_str(); }

lc_language RecognizerLanguage(const lc_recognizer* recognizer) { return ToC(recognizer->model->language()); }

int32_t RecognizerStepBatching(const lc_recognizer* recognizer, lc_step_batching* out) {
  if (out == nullptr || out->struct_size < offsetof(lc_step_batching, largest_pass) + sizeof(int64_t)) return 0;
  const neural::StepBatchingStats stats = recognizer->model->transcriber().model().step_batching_stats();
  out->steps = stats.steps;
  out->passes = stats.passes;
  out->joined_steps = stats.joined_steps;
  out->largest_pass = stats.largest_pass;
  return 1;
}

lc_recognizer_session* RecognizerNewSession(lc_recognizer* recognizer, lc_status* status) {
  std::unique_ptr<lc_recognizer_session> session;
  Report(Guard("opening a whisper session", [&]() -> absl::Status {
           absl::StatusOr<std::unique_ptr<AsrSession>> opened = recognizer->model->NewSession();
           if (!opened.ok()) return opened.status();
           session = std::make_unique<lc_recognizer_session>();
           session->session = *std::move(opened);
           return absl::OkStatus();
         }),
         status);
  return session.release();
}

void RecognizerSessionDestroy(lc_recognizer_session* session) { delete session; }

lc_status_code RecognizerSessionAcceptAudio(lc_recognizer_session* session, const float* samples, size_t sample_count,
                                            int32_t sample_rate, int32_t channels, int64_t pts_us, lc_status* status) {
  return Report(Guard("recognizing with whisper", [&]() -> absl::Status {
                  AudioBuffer audio;
                  audio.sample_rate = sample_rate;
                  audio.channels = channels;
                  audio.samples.assign(samples, samples + sample_count);
                  return session->session->AcceptAudio(audio, MediaTime::Micros(pts_us));
                }),
                status);
}

lc_status_code RecognizerSessionPartial(lc_recognizer_session* session, lc_hypothesis_sink sink, void* user,
                                        lc_status* status) {
  return Report(Guard("recognizing with whisper", [&]() -> absl::Status {
                  const std::optional<AsrHypothesis> partial = session->session->Partial();
                  if (partial) HandOver(*partial, sink, user);
                  return absl::OkStatus();
                }),
                status);
}

lc_status_code RecognizerSessionScoreOpenings(lc_recognizer_session* session, const char* const* texts,
                                              const size_t* sizes, size_t count, double* scores, lc_status* status) {
  return Report(Guard("scoring openings with whisper", [&]() -> absl::Status {
                  if (count > 0 && (texts == nullptr || sizes == nullptr || scores == nullptr)) {
                    return absl::InvalidArgumentError("openings to score need texts, sizes and room for the scores");
                  }
                  std::vector<std::string> openings;
                  openings.reserve(count);
                  for (size_t i = 0; i < count; ++i) openings.emplace_back(texts[i], sizes[i]);
                  absl::StatusOr<std::vector<double>> scored = session->session->ScoreOpenings(openings);
                  if (!scored.ok()) return scored.status();
                  for (size_t i = 0; i < count; ++i) scores[i] = (*scored)[i];
                  return absl::OkStatus();
                }),
                status);
}

lc_status_code RecognizerSessionFinish(lc_recognizer_session* session, lc_hypothesis_sink sink, void* user,
                                       lc_status* status) {
  return Report(Guard("recognizing with whisper", [&]() -> absl::Status {
                  absl::StatusOr<AsrHypothesis> final = session->session->Finish();
                  if (!final.ok()) return final.status();
                  HandOver(*final, sink, user);
                  return absl::OkStatus();
                }),
                status);
}

int64_t RecognizerSessionPositionUs(const lc_recognizer_session* session) {
  return session->session->position().micros();
}

}  // namespace lingcast::plugin
