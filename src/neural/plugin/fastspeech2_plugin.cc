// The FastSpeech2 Mandarin voice behind the C ABI (lingcast_plugin_abi.h):
// FastSpeech2Tts with libtorch inside.
//
// The lexicon: the plug-in loads its own from a path (the default one when the
// host gives none), as it did before the C ABI, rather than asking the host for
// Baker symbols through a callback. A loaded lexicon is ~16 MB (resident:
// `lingcast pinyin` 55 MB, `lingcast --version` 39 MB). The host holds one only
// inside an espeak-ng engine: `tts --engine fastspeech2` makes none, and the
// studio voice (render, live, serve) drops the espeak-ng fallback it made once
// both neural voices are loaded, so there a callback would only have kept a host
// copy alive for the plug-in (the same 16 MB on the other side) and added a C
// round trip per clause. Two copies live only when English speaks through
// espeak-ng and Mandarin through FastSpeech2 (no Piper voice installed).
#include <memory>
#include <string>

#include "neural/fastspeech2/fastspeech2_tts.h"
#include "neural/plugin/plugin_entries.h"
#include "neural/plugin/plugin_glue.h"
#include "neural/plugin/voice_plugin.h"
#include "text/pinyin.h"

namespace lingcast::plugin {
namespace {

absl::StatusOr<std::unique_ptr<lc_voice>> Create(const lc_fastspeech2_options& request) {
  neural::FastSpeech2TtsOptions options;
  options.model_dir = StringOr(request.model_dir, "");
  options.seed = request.seed;
  if (request.lexicon_path != nullptr) {
    absl::StatusOr<PinyinConverter> lexicon = PinyinConverter::Load(request.lexicon_path);
    if (!lexicon.ok()) return lexicon.status();
    options.lexicon = std::make_shared<const PinyinConverter>(*std::move(lexicon));
  }
  absl::StatusOr<std::unique_ptr<neural::FastSpeech2Tts>> created = neural::FastSpeech2Tts::Create(options);
  if (!created.ok()) return created.status();
  auto voice = std::make_unique<lc_voice>();
  voice->name = (*created)->name();
  voice->engine = *std::move(created);
  return voice;
}

}  // namespace

lc_voice* CreateFastSpeech2Voice(const lc_fastspeech2_options* options, lc_status* status) {
  return CreateHandle<lc_voice>("loading fastspeech2", "lc_fastspeech2_options", options, status, Create);
}

}  // namespace lingcast::plugin
