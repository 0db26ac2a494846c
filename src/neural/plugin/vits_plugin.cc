// The VITS entry point of the neural plug-in: VitsTts with libtorch inside.
#include "neural/plugin/vits_plugin.h"

#include "neural/core/device_choice.h"
#include "neural/core/status_adapter.h"
#include "neural/vits/vits_tts.h"

void lingcast_create_vits_tts(
    const lingcast::VitsPluginRequest& request, absl::StatusOr<std::unique_ptr<lingcast::TtsEngine>>& result) {
  lingcast::neural::VitsTtsOptions options;
  options.model_dir = request.model_dir;
  options.seed = request.seed;
  options.phonemize = request.phonemize;
  const absl::StatusOr<lingcast::neural::DeviceChoice> placement = lingcast::neural::CallNeural("--device", [&] {
    return lingcast::neural::ChooseDevice(request.device, request.dtype, lingcast::neural::EngineKind::kVits);
  });
  if (!placement.ok()) {
    result = placement.status();
    return;
  }
  options.model.device = placement->device;
  options.model.dtype = placement->dtype;
  absl::StatusOr<std::unique_ptr<lingcast::neural::VitsTts>> created = lingcast::neural::VitsTts::Create(options);
  if (!created.ok()) {
    result = created.status();
    return;
  }
  if (request.placed_on != nullptr) *request.placed_on = lingcast::neural::DescribeDevice(*placement);
  result = std::unique_ptr<lingcast::TtsEngine>(std::move(*created));
}

// The app checks the signature it calls against the one defined here.
static_assert(std::is_same_v<decltype(&lingcast_create_vits_tts), lingcast::CreateVitsTtsFn>);
