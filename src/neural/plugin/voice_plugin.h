// Inside the neural plug-in: a voice handle of the C ABI (lingcast_plugin_abi.h)
// over any of lingcast's TtsEngines (VITS/Piper, FastSpeech2), made by
// vits_plugin.cc and fastspeech2_plugin.cc and used by voice_plugin.cc.
#pragma once

#include <memory>
#include <string>

#include "neural/plugin/lingcast_plugin_abi.h"
#include "tts/tts_engine.h"

struct lc_voice {
  std::unique_ptr<lingcast::TtsEngine> engine;
  std::string name;
};
