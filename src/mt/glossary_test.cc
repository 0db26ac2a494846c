#include "mt/glossary.h"

#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace lingcast {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

Glossary Make(const std::string& text) {
  absl::StatusOr<Glossary> glossary = Glossary::Parse(text, "terms.tsv");
  EXPECT_OK(glossary);
  return std::move(glossary).value();
}

TEST(FindTermTest, FoldsCaseAndWidthAndRespectsWordEdges) {
  const std::string text = "The IPHONE and ｉＰｈｏｎｅ, not iPhones or Product";
  std::vector<TextSpan> spans = FindTerm(text, "iPhone");
  ASSERT_EQ(spans.size(), 2u);
  EXPECT_EQ(text.substr(spans[0].offset, spans[0].length), "IPHONE");
  EXPECT_EQ(text.substr(spans[1].offset, spans[1].length), "ｉＰｈｏｎｅ");
  EXPECT_TRUE(FindTerm(text, "Pro").empty());
  EXPECT_EQ(FindTerm("买小米手机", "小米").size(), 1u);  // Han terms need no word edges
}

TEST(GlossaryTest, RespellsTermsInTheTranslation) {
  Glossary glossary = Make("苹果手机\tiPhone\n小米\tXiaomi\n");
  GlossaryResult result = glossary.Enforce("这台苹果手机很便宜", Language::kZh, "This IPHONE is cheap", Language::kEn);
  EXPECT_EQ(result.text, "This iPhone is cheap");
  EXPECT_EQ(result.fixed, 1);
  EXPECT_TRUE(result.missing.empty());
}

TEST(GlossaryTest, TranslatesTermsLeftUntranslated) {
  Glossary glossary = Make("小米\tXiaomi\n");
  GlossaryResult result = glossary.Enforce("小米的新手机", Language::kZh, "The new phone of 小米", Language::kEn);
  EXPECT_EQ(result.text, "The new phone of Xiaomi");
  EXPECT_EQ(result.fixed, 1);
}

TEST(GlossaryTest, ReportsTermsTheTranslationLost) {
  Glossary glossary = Make("小米\tXiaomi\n");
  GlossaryResult result = glossary.Enforce("小米的新手机", Language::kZh, "A new phone from Mi", Language::kEn);
  EXPECT_EQ(result.text, "A new phone from Mi");
  EXPECT_THAT(result.missing, ElementsAre("小米"));
}

TEST(GlossaryTest, WorksFromEnglishToChinese) {
  Glossary glossary = Make("小米\tXiaomi\n");
  GlossaryResult result = glossary.Enforce("The new xiaomi phone", Language::kEn, "新款XIAOMI手机", Language::kZh);
  EXPECT_EQ(result.text, "新款小米手机");
}

TEST(GlossaryTest, LongestTermWins) {
  Glossary glossary = Make("苹果\tApple\n苹果手机\tiPhone\n");
  std::vector<GlossaryTerm> terms = glossary.TermsIn("苹果手机和苹果", Language::kZh);
  ASSERT_EQ(terms.size(), 2u);
  EXPECT_EQ(terms[0].en, "iPhone");
  EXPECT_EQ(terms[1].en, "Apple");
  EXPECT_EQ(glossary.TermsIn("买苹果手机", Language::kZh).size(), 1u);
}

TEST(GlossaryTest, PutCorrectsATerm) {
  Glossary glossary = Make("小米\tMillet\n");
  glossary.Put(GlossaryTerm{"小米", "Xiaomi", "correction"});
  EXPECT_EQ(glossary.size(), 1u);
  EXPECT_EQ(glossary.Enforce("小米", Language::kZh, "Millet", Language::kEn).missing.size(), 1u);
  EXPECT_EQ(glossary.Enforce("小米", Language::kZh, "小米", Language::kEn).text, "Xiaomi");
}

TEST(GlossaryTest, DuplicateTermKeepsTheFirstWithAWarning) {
  std::vector<std::string> warnings;
  absl::StatusOr<Glossary> glossary = Glossary::Parse("小米\tXiaomi\n# note\n小米\tMi\n", "terms.tsv", &warnings);
  ASSERT_OK(glossary);
  EXPECT_EQ(glossary->size(), 1u);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_THAT(warnings[0], HasSubstr("terms.tsv:3"));
  EXPECT_THAT(warnings[0], HasSubstr("terms.tsv:1"));
}

TEST(GlossaryTest, MalformedLinesNameFileAndLine) {
  struct Case {
    std::string text, message;
  };
  for (const Case& c : std::vector<Case>{
           {"小米\tXiaomi\n华为 Huawei\n", "terms.tsv:2: expected CHINESE<TAB>ENGLISH"},
           {"小米\t\n", "terms.tsv:1: empty English term"},
           {"\tXiaomi\n", "terms.tsv:1: empty Chinese term"},
           {"a\tb\tc\n", "terms.tsv:1: more than two"},
           {"ok\tok\n\xC3\x28\tx\n", "terms.tsv:2: invalid UTF-8"},
       }) {
    absl::StatusOr<Glossary> glossary = Glossary::Parse(c.text, "terms.tsv");
    ASSERT_FALSE(glossary.ok()) << c.text;
    EXPECT_TRUE(absl::IsInvalidArgument(glossary.status()));
    EXPECT_THAT(std::string(glossary.status().message()), HasSubstr(c.message));
  }
  EXPECT_TRUE(absl::IsNotFound(Glossary::LoadFile("/nonexistent/terms.tsv").status()));
}

}  // namespace
}  // namespace lingcast
