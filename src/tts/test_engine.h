// For tests only: one espeak-ng engine per test binary, reading the Mandarin
// lexicon generated into the build tree. Needs LINGCAST_BINARY_DIR, which
// lingcast_test() defines.
#pragma once

#include <cstdlib>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "tts/espeak_engine.h"

namespace lingcast {

inline EspeakEngine& TestEspeakEngine() {
  static const std::unique_ptr<EspeakEngine> engine = [] {
    EspeakOptions options;
    options.lexicon_path = std::string(LINGCAST_BINARY_DIR) + "/data/zh_lexicon.tsv";
    auto created = EspeakEngine::Create(options);
    EXPECT_TRUE(created.ok()) << created.status();
    return created.ok() ? *std::move(created) : nullptr;
  }();
  if (!engine) std::abort();  // every test here needs it; the status was printed above
  return *engine;
}

}  // namespace lingcast
