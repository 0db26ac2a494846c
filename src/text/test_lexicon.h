// For tests only: the Mandarin lexicon generated into the build tree, loaded
// once per test binary. Needs LINGCAST_BINARY_DIR, which lingcast_test() defines.
#pragma once

#include <cstdlib>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "text/pinyin.h"

namespace lingcast {

inline const PinyinConverter& TestLexicon() {
  static const std::optional<PinyinConverter> converter = [] {
    auto loaded = PinyinConverter::Load(std::string(LINGCAST_BINARY_DIR) + "/data/zh_lexicon.tsv");
    EXPECT_TRUE(loaded.ok()) << loaded.status();
    return loaded.ok() ? std::optional<PinyinConverter>(*std::move(loaded)) : std::nullopt;
  }();
  if (!converter) std::abort();  // every test here needs it; the status was printed above
  return *converter;
}

}  // namespace lingcast
