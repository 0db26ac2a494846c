// The module behind marian_plugin.h: MarianTranslator with libtorch inside.
#include "neural/plugin/marian_plugin.h"

#include "neural/core/device_choice.h"
#include "neural/marian/marian_translator.h"
#include "neural/core/quantization.h"
#include "neural/core/status_adapter.h"

void lingcast_create_marian_translator(
    const lingcast::MarianPluginRequest& request, absl::StatusOr<std::unique_ptr<lingcast::Translator>>& result) {
  lingcast::neural::MarianTranslatorOptions options;
  options.model_dir = request.model_dir;
  options.from = request.from;
  options.to = request.to;
  const absl::StatusOr<lingcast::neural::Quantization> quantization = lingcast::neural::CallNeural(
      "--quantize", [&] { return lingcast::neural::ParseQuantization(request.quantize, "--quantize"); });
  if (!quantization.ok()) {
    result = quantization.status();
    return;
  }
  options.model.quantization = *quantization;
  const absl::StatusOr<lingcast::neural::DeviceChoice> placement = lingcast::neural::CallNeural("--device", [&] {
    return lingcast::neural::ChooseDevice(request.device, request.dtype, lingcast::neural::EngineKind::kMarian);
  });
  if (!placement.ok()) {
    result = placement.status();
    return;
  }
  options.model.device = placement->device;
  options.model.dtype = placement->dtype;
  absl::StatusOr<std::unique_ptr<lingcast::neural::MarianTranslator>> created =
      lingcast::neural::MarianTranslator::Create(options);
  if (!created.ok()) {
    result = created.status();
    return;
  }
  if (request.placed_on != nullptr) *request.placed_on = lingcast::neural::DescribeDevice(*placement);
  result = std::unique_ptr<lingcast::Translator>(std::move(*created));
}

// The app checks the signature it calls against the one defined here.
static_assert(std::is_same_v<decltype(&lingcast_create_marian_translator), lingcast::CreateMarianTranslatorFn>);
