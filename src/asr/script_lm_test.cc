#include "asr/script_lm.h"

#include <cmath>
#include <map>
#include <sstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/status_matchers.h"
#include "text/script.h"

namespace lingcast {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(AsrWordsOfTest, LowerCaseWordsWithoutPunctuation) {
  EXPECT_THAT(AsrWordsOf("Hello, World! Don't stop-now."),
              ElementsAre("hello", "world", "don't", "stop", "now"));
}

TEST(AsrWordsOfTest, NumbersAreSpelledOut) {
  EXPECT_THAT(AsrWordsOf("only 99"), ElementsAre("only", "ninety", "nine"));
  EXPECT_THAT(AsrWordsOf("$19.99"), ElementsAre("nineteen", "point", "nine", "nine", "dollars"));
  EXPECT_THAT(AsrWordsOf("50% off"), ElementsAre("fifty", "percent", "off"));
  EXPECT_THAT(AsrWordsOf("the 2nd and 21st"), ElementsAre("the", "second", "and", "twenty", "first"));
  EXPECT_THAT(AsrWordsOf("1,200 units"), ElementsAre("one", "thousand", "two", "hundred", "units"));
  EXPECT_THAT(AsrWordsOf("5kg"), ElementsAre("five", "kg"));
}

TEST(AsrWordsOfTest, NonLatinTextAndEmojiAreDropped) {
  EXPECT_THAT(AsrWordsOf("buy 淘宝 now \xF0\x9F\x98\x80"), ElementsAre("buy", "now"));
  EXPECT_THAT(AsrWordsOf("你好"), IsEmpty());
}

TEST(CardinalWordsTest, Scales) {
  EXPECT_EQ(CardinalWords(0), "zero");
  EXPECT_EQ(CardinalWords(115), "one hundred fifteen");
  EXPECT_EQ(CardinalWords(2024), "two thousand twenty four");
  EXPECT_EQ(CardinalWords(3'000'005), "three million five");
}

TEST(CorpusOfTest, KeepsLinesOfTheLanguageAndSplitsSentences) {
  const auto script = ParseScriptText(
      "en: Hello everyone. Welcome! | zh: 大家好\n"
      "zh: 这件夹克只要99元。 | en: Only 99 yuan.\n"
      "It costs 19.99 today.\n",
      "show.txt");
  ASSERT_OK(script);
  const ScriptCorpus corpus = CorpusOf(*script, Language::kEn);
  ASSERT_EQ(corpus.sentences.size(), 3u);
  EXPECT_THAT(corpus.sentences[0], ElementsAre("hello", "everyone"));
  EXPECT_THAT(corpus.sentences[1], ElementsAre("welcome"));
  EXPECT_THAT(corpus.sentences[2], ElementsAre("it", "costs", "nineteen", "point", "nine", "nine", "today"));
  EXPECT_THAT(corpus.skipped_lines, ElementsAre(2));
}

// log10 probabilities and backoffs of an ARPA text, by n-gram.
struct Arpa {
  std::map<std::string, double> prob, backoff;
  std::map<int, int> declared;
};

Arpa ParseArpa(const std::string& text) {
  Arpa arpa;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("ngram ", 0) == 0) {
      arpa.declared[std::stoi(line.substr(6))] = std::stoi(line.substr(line.find('=') + 1));
      continue;
    }
    if (line.empty() || line[0] == '\\') continue;
    std::istringstream fields(line);
    std::string p, gram, bow;
    std::getline(fields, p, '\t');
    std::getline(fields, gram, '\t');
    arpa.prob[gram] = std::stod(p);
    if (std::getline(fields, bow, '\t')) arpa.backoff[gram] = std::stod(bow);
  }
  return arpa;
}

TEST(BuildArpaTest, CountsAndDiscountedProbabilities) {
  const Arpa arpa = ParseArpa(BuildArpa({{"a", "b"}, {"a", "c"}}));
  // Unigrams <s> a b c </s>; bigrams <s>-a a-b a-c b-</s> c-</s>; trigrams <s>-a-b <s>-a-c a-b-</s> a-c-</s>.
  EXPECT_EQ(arpa.declared.at(1), 5);
  EXPECT_EQ(arpa.declared.at(2), 5);
  EXPECT_EQ(arpa.declared.at(3), 4);
  // p(b) = 1/6 (tokens a b </s> a c </s>); p(b|a) = (1 - D)/2 + D * 2/2 * p(b) with D = 0.5.
  EXPECT_NEAR(std::pow(10, arpa.prob.at("b")), 1.0 / 6, 1e-3);
  EXPECT_NEAR(std::pow(10, arpa.prob.at("a b")), 0.25 + 0.5 / 6, 1e-3);
  // Unseen continuations of "a" get D * distinct / count = 0.5 of the lower order.
  EXPECT_NEAR(std::pow(10, arpa.backoff.at("a")), 0.5, 1e-3);
  // Probabilities given "a" sum to one: seen bigrams plus backoff mass on the rest.
  double unseen_unigram_mass = 0;
  for (const char* w : {"a", "</s>"}) unseen_unigram_mass += std::pow(10, arpa.prob.at(w));
  const double total = std::pow(10, arpa.prob.at("a b")) + std::pow(10, arpa.prob.at("a c")) +
                       std::pow(10, arpa.backoff.at("a")) * unseen_unigram_mass;
  EXPECT_NEAR(total, 1.0, 1e-3);
}

}  // namespace
}  // namespace lingcast
