#include "asr/letter_to_sound.h"

#include <map>
#include <optional>
#include <string>

#include <gtest/gtest.h>

namespace lingcast {
namespace {

TEST(SpellingToPhonesTest, CommonSpellings) {
  EXPECT_EQ(SpellingToPhones("ship"), "SH IH P");
  EXPECT_EQ(SpellingToPhones("make"), "M AE K");  // final e is silent
  EXPECT_EQ(SpellingToPhones("city"), "S IH T IY");  // soft c
  EXPECT_EQ(SpellingToPhones("nation"), "N AE SH AH N");
  EXPECT_EQ(SpellingToPhones("yolo"), "Y AA L AA");
  EXPECT_EQ(SpellingToPhones("123"), "");
}

TEST(GuessPronunciationTest, DictionaryThenCompoundThenRules) {
  const std::map<std::string, std::string> dictionary = {
      {"live", "L AY V"}, {"stream", "S T R IY M"}, {"hello", "HH AH L OW"}};
  auto lookup = [&](const std::string& word) -> std::optional<std::string> {
    auto it = dictionary.find(word);
    if (it == dictionary.end()) return std::nullopt;
    return it->second;
  };
  EXPECT_EQ(GuessPronunciation("hello", lookup), "HH AH L OW");
  EXPECT_EQ(GuessPronunciation("livestream", lookup), "L AY V S T R IY M");
  EXPECT_EQ(GuessPronunciation("zork", lookup), "Z AO R K");
}

}  // namespace
}  // namespace lingcast
