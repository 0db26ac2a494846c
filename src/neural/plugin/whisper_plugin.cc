// The entry point behind whisper_plugin.h: WhisperAsrModel with libtorch inside.
#include "neural/plugin/whisper_plugin.h"

#include "neural/core/cpu_threads.h"
#include "neural/core/device_choice.h"
#include "neural/core/quantization.h"
#include "neural/core/status_adapter.h"
#include "neural/whisper/whisper_asr.h"

void lingcast_create_whisper_asr(
    const lingcast::WhisperPluginRequest& request, absl::StatusOr<std::shared_ptr<lingcast::AsrModel>>& result) {
  // libtorch sized its pool from what OpenMP saw at start-up (one thread on the
  // 2-core build VM); the model runs on the cores the process may use.
  lingcast::neural::UseAvailableCpuThreads();
  lingcast::neural::WhisperAsrOptions options;
  options.model_dir = request.model_dir;
  options.language = request.language;
  options.task = request.translate ? lingcast::neural::WhisperTask::kTranslate : lingcast::neural::WhisperTask::kTranscribe;
  options.also_translate = request.also_translate;
  options.streaming.agreement = request.agreement;
  options.streaming.min_partial_interval = lingcast::MediaTime::Millis(request.min_partial_interval_ms);
  options.streaming.trim_after = lingcast::MediaTime::Millis(request.trim_after_ms);
  options.logger = request.logger;
  const absl::StatusOr<lingcast::neural::Quantization> quantization = lingcast::neural::CallNeural(
      "--quantize", [&] { return lingcast::neural::ParseQuantization(request.quantize, "--quantize"); });
  if (!quantization.ok()) {
    result = quantization.status();
    return;
  }
  options.model.quantization = *quantization;
  const absl::StatusOr<lingcast::neural::DeviceChoice> placement = lingcast::neural::CallNeural("--device", [&] {
    return lingcast::neural::ChooseDevice(request.device, request.dtype, lingcast::neural::EngineKind::kWhisper);
  });
  if (!placement.ok()) {
    result = placement.status();
    return;
  }
  options.model.device = placement->device;
  options.model.dtype = placement->dtype;
  if (request.int8_on_cpu && request.quantize == "none" && placement->device.is_cpu()) {
    options.model.quantization = lingcast::neural::Quantization::kInt8;
  }
  absl::StatusOr<std::shared_ptr<lingcast::neural::WhisperAsrModel>> created = lingcast::neural::WhisperAsrModel::Load(options);
  if (!created.ok()) {
    result = created.status();
    return;
  }
  if (request.placed_on != nullptr) *request.placed_on = lingcast::neural::DescribeDevice(*placement);
  result = std::shared_ptr<lingcast::AsrModel>(*std::move(created));
}

// The app checks the signature it calls against the one defined here.
static_assert(std::is_same_v<decltype(&lingcast_create_whisper_asr), lingcast::CreateWhisperAsrFn>);
