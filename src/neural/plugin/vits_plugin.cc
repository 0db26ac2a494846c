// The VITS/Piper voice behind the C ABI (lingcast_plugin_abi.h): VitsTts with
// libtorch inside, phonemizing through the host's espeak-ng when the host
// gives its phonemizer (lc_vits_options::phonemize says why).
#include <string>
#include <vector>

#include "neural/core/device_choice.h"
#include "neural/core/status_adapter.h"
#include "neural/plugin/plugin_entries.h"
#include "neural/plugin/plugin_glue.h"
#include "neural/plugin/voice_plugin.h"
#include "neural/vits/vits_tts.h"

namespace lingcast::plugin {
namespace {

// The host's lc_phonemize_fn as the IpaPhonemizer VitsTts takes.
neural::IpaPhonemizer PhonemizerOf(lc_phonemize_fn phonemize, void* phonemize_user) {
  return [phonemize, phonemize_user](std::string_view text,
                                     const std::string& voice) -> absl::StatusOr<std::vector<IpaClause>> {
    std::vector<IpaClause> clauses;
    const lc_ipa_sink collect = [](void* user, const lc_ipa_clause* clause) {
      IpaClause copy;
      copy.terminator = clause->terminator;
      for (size_t i = 0; i < clause->word_count; ++i) {
        const lc_ipa_word& word = clause->words[i];
        copy.words.push_back({std::string(word.ipa, word.ipa_size), word.text_offset, word.text_length});
      }
      static_cast<std::vector<IpaClause>*>(user)->push_back(std::move(copy));
    };
    lc_status status{};
    const lc_status_code code =
        phonemize(phonemize_user, text.data(), text.size(), voice.c_str(), collect, &clauses, &status);
    if (code != LC_OK) return FromC(code, status);
    return clauses;
  };
}

absl::StatusOr<std::unique_ptr<lc_voice>> Create(const lc_vits_options& request) {
  neural::VitsTtsOptions options;
  options.model_dir = StringOr(request.model_dir, "");
  options.seed = request.seed;
  if (request.phonemize != nullptr) options.phonemize = PhonemizerOf(request.phonemize, request.phonemize_user);
  const bool has_capture_flag =
      request.struct_size >= offsetof(lc_vits_options, capture_as_needed) + sizeof(int32_t);
  options.warm_at_load = !(has_capture_flag && request.capture_as_needed != 0);
  // Without the warm-up (a render) most lines come at a length not seen yet,
  // and cuDNN plans every convolution anew at each: a HiFi-GAN V1 took 107-146
  // ms at a new length against 8 ms at a known one, PyTorch's own kernels about
  // 40 ms at either (H100, 2026-12-07; docs/gpu.md). Live warms its lengths at
  // load and keeps cuDNN.
  options.model.cudnn_convolutions = options.warm_at_load;
  const absl::StatusOr<neural::DeviceChoice> placement = neural::CallNeural("--device", [&] {
    return neural::ChooseDevice(StringOr(request.device, "auto"), StringOr(request.dtype, "auto"),
                                neural::EngineKind::kVits);
  });
  if (!placement.ok()) return placement.status();
  options.model.device = placement->device;
  options.model.dtype = placement->dtype;
  absl::StatusOr<std::unique_ptr<neural::VitsTts>> created = neural::VitsTts::Create(options);
  if (!created.ok()) return created.status();
  CopyOut(neural::DescribeDevice(*placement), request.placed_on, LC_PLACED_ON_CAPACITY);
  auto voice = std::make_unique<lc_voice>();
  voice->name = (*created)->name();
  voice->engine = *std::move(created);
  return voice;
}

}  // namespace

lc_voice* CreateVitsVoice(const lc_vits_options* options, lc_status* status) {
  return CreateHandle<lc_voice>("loading vits", "lc_vits_options", options, status, Create, LC_VITS_OPTIONS_V2_0_SIZE);
}

}  // namespace lingcast::plugin
