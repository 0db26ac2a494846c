// The Marian translator behind the C ABI (lingcast_plugin_abi.h): MarianTranslator
// with libtorch inside.
//
// Why a plug-in at all: libtorch is large (loading libtorch_cpu relocates half a
// million pointers and adds about 140 MB of resident memory to every process
// that links it, whatever it runs), so the `lingcast` binary does not link it;
// `--engine marian` (and whisper, vits, fastspeech2) opens this module with
// dlopen. Only C crosses, so the module may be built against another libtorch,
// compiler or standard library than the binary.
#include <memory>
#include <string>
#include <vector>

#include "neural/core/device_choice.h"
#include "neural/core/quantization.h"
#include "neural/core/status_adapter.h"
#include "neural/marian/marian_translator.h"
#include "neural/plugin/plugin_entries.h"
#include "neural/plugin/plugin_glue.h"

struct lc_translator {
  std::unique_ptr<lingcast::neural::MarianTranslator> engine;
  std::string name;
};

namespace lingcast::plugin {
namespace {

absl::StatusOr<std::unique_ptr<lc_translator>> Create(const lc_marian_options& request) {
  neural::MarianTranslatorOptions options;
  options.model_dir = StringOr(request.model_dir, "");
  options.from = FromC(request.from);
  options.to = FromC(request.to);
  const std::string quantize = StringOr(request.quantize, "none");
  const absl::StatusOr<neural::Quantization> quantization =
      neural::CallNeural("--quantize", [&] { return neural::ParseQuantization(quantize, "--quantize"); });
  if (!quantization.ok()) return quantization.status();
  options.model.quantization = *quantization;
  const absl::StatusOr<neural::DeviceChoice> placement = neural::CallNeural("--device", [&] {
    return neural::ChooseDevice(StringOr(request.device, "auto"), StringOr(request.dtype, "auto"),
                                neural::EngineKind::kMarian);
  });
  if (!placement.ok()) return placement.status();
  options.model.device = placement->device;
  options.model.dtype = placement->dtype;
  absl::StatusOr<std::unique_ptr<neural::MarianTranslator>> created = neural::MarianTranslator::Create(options);
  if (!created.ok()) return created.status();
  CopyOut(neural::DescribeDevice(*placement), request.placed_on, LC_PLACED_ON_CAPACITY);
  auto translator = std::make_unique<lc_translator>();
  translator->name = (*created)->name();
  translator->engine = *std::move(created);
  return translator;
}

}  // namespace

lc_translator* CreateMarianTranslator(const lc_marian_options* options, lc_status* status) {
  return CreateHandle<lc_translator>("loading marian", "lc_marian_options", options, status, Create);
}

void TranslatorDestroy(lc_translator* translator) { delete translator; }

const char* TranslatorName(const lc_translator* translator) { return translator->name.c_str(); }

lc_status_code TranslatorTranslate(lc_translator* translator, const lc_translation_request* request,
                                   lc_translation_sink sink, void* user, lc_status* status) {
  return Report(Guard("translating with marian", [&]() -> absl::Status {
                  if (absl::Status size = CheckStructSize(request, request ? request->struct_size : 0,
                                                          sizeof(lc_translation_request), "lc_translation_request");
                      !size.ok()) {
                    return size;
                  }
                  TranslationRequest line;
                  line.source.assign(request->source, request->source_size);
                  line.from = FromC(request->from);
                  line.to = FromC(request->to);
                  PartialTranslation on_partial;
                  if (request->on_partial != nullptr) {
                    on_partial = [request](std::string_view text) {
                      request->on_partial(request->partial_user, text.data(), text.size());
                    };
                  }
                  const std::stop_token stop = request->stop != nullptr ? request->stop->source.get_token()
                                                                        : std::stop_token();
                  absl::StatusOr<Translation> translation = translator->engine->Translate(line, stop, on_partial);
                  if (!translation.ok()) return translation.status();
                  lc_translation out{};
                  out.struct_size = sizeof(out);
                  out.text = translation->text.data();
                  out.text_size = translation->text.size();
                  out.confidence = translation->confidence;
                  sink(user, &out);
                  return absl::OkStatus();
                }),
                status);
}

lc_status_code TranslatorTranslateBatch(lc_translator* translator, const char* const* sources,
                                        const size_t* source_sizes, size_t count, lc_stop* stop, lc_batch_sink sink,
                                        void* user, lc_status* status) {
  return Report(Guard("translating with marian", [&]() -> absl::Status {
                  std::vector<std::string> lines;
                  lines.reserve(count);
                  for (size_t i = 0; i < count; ++i) lines.emplace_back(sources[i], source_sizes[i]);
                  absl::StatusOr<std::vector<std::string>> texts = translator->engine->TranslateBatch(
                      lines, stop != nullptr ? stop->source.get_token() : std::stop_token());
                  if (!texts.ok()) return texts.status();
                  for (size_t i = 0; i < texts->size(); ++i) sink(user, i, (*texts)[i].data(), (*texts)[i].size());
                  return absl::OkStatus();
                }),
                status);
}

}  // namespace lingcast::plugin
