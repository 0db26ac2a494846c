#include "text/pinyin.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "core/status_matchers.h"
#include "text/data_files.h"
#include "text/normalize_zh.h"

namespace lingcast {
namespace {

using ::testing::HasSubstr;

const std::string kLexiconPath = std::string(LINGCAST_BINARY_DIR) + "/data/zh_lexicon.tsv";

// Loaded once: the lexicon is ~1.7 MB and every test reads it the same way.
const PinyinConverter& Lexicon() {
  static const std::optional<PinyinConverter> converter = [] {
    auto loaded = PinyinConverter::Load(kLexiconPath);
    EXPECT_OK(loaded);
    return loaded.ok() ? std::optional<PinyinConverter>(*std::move(loaded)) : std::nullopt;
  }();
  if (!converter) std::abort();
  return *converter;
}

TEST(PinyinTest, LexiconIsCompactAndLoads) {
  EXPECT_LT(std::filesystem::file_size(kLexiconPath), 5u * 1024 * 1024);
  EXPECT_GT(Lexicon().character_count(), 20000u);
  EXPECT_GT(Lexicon().phrase_count(), 10000u);
}

TEST(PinyinTest, MostCommonReadingFirst) {
  EXPECT_EQ(Lexicon().Readings(U'的').front(), "de5");
  EXPECT_EQ(Lexicon().Readings(U'行').front(), "xing2");
  EXPECT_THAT(Lexicon().Readings(U'行'), ::testing::Contains("hang2"));
  EXPECT_TRUE(Lexicon().Readings(U'a').empty());
}

TEST(PinyinTest, PolyphonesInContext) {
  EXPECT_EQ(Lexicon().ToPinyinString("银行"), "yin2 hang2");
  EXPECT_EQ(Lexicon().ToPinyinString("行走"), "xing2 zou3");
  EXPECT_EQ(Lexicon().ToPinyinString("长大"), "zhang3 da4");
  EXPECT_EQ(Lexicon().ToPinyinString("长城"), "chang2 cheng2");
  EXPECT_EQ(Lexicon().ToPinyinString("重新"), "chong2 xin1");
  EXPECT_EQ(Lexicon().ToPinyinString("重要"), "zhong4 yao4");
  EXPECT_EQ(Lexicon().ToPinyinString("还钱"), "huan2 qian2");
  EXPECT_EQ(Lexicon().ToPinyinString("空气"), "kong1 qi4");
  EXPECT_EQ(Lexicon().ToPinyinString("有空"), "you3 kong4");
  EXPECT_EQ(Lexicon().ToPinyinString("还有"), "hai2 you3");
  EXPECT_EQ(Lexicon().ToPinyinString("好人"), "hao3 ren2");
  EXPECT_EQ(Lexicon().ToPinyinString("好客"), "hao4 ke4");
  EXPECT_EQ(Lexicon().ToPinyinString("衣服"), "yi1 fu5");  // neutral tone from CC-CEDICT
}

TEST(PinyinTest, StandaloneReadingsAndLexiconCorrections) {
  EXPECT_EQ(Lexicon().ToPinyinString("我教他"), "wo3 jiao1 ta1");
  EXPECT_EQ(Lexicon().ToPinyinString("教师"), "jiao4 shi1");
  EXPECT_EQ(Lexicon().ToPinyinString("切开"), "qie1 kai1");
  EXPECT_EQ(Lexicon().ToPinyinString("一切"), "yi1 qie4");
  EXPECT_EQ(Lexicon().ToPinyinString("数学"), "shu4 xue2");
  EXPECT_EQ(Lexicon().ToPinyinString("东西"), "dong1 xi5");
  EXPECT_EQ(Lexicon().ToPinyinString("东西方"), "dong1 xi1 fang1");
  EXPECT_EQ(Lexicon().ToPinyinString("这个"), "zhe4 ge4");
  EXPECT_EQ(Lexicon().ToPinyinString("几个"), "ji3 ge4");
}

// Each context rule, with a case where it applies and one where it must not.
TEST(PinyinTest, ContextRules) {
  const auto reads = [](std::string_view text) { return Lexicon().ToPinyinString(text); };
  EXPECT_EQ(reads("两只狗"), "liang3 zhi1 gou3");
  EXPECT_EQ(reads("我只有"), "wo3 zhi3 you3");
  EXPECT_EQ(reads("三种颜色"), "san1 zhong3 yan2 se4");
  EXPECT_EQ(reads("我种树"), "wo3 zhong4 shu4");
  EXPECT_EQ(reads("我得走了"), "wo3 dei3 zou3 le5");
  EXPECT_EQ(reads("我们还得等"), "wo3 men5 hai2 dei3 deng3");
  EXPECT_EQ(reads("他跑得快"), "ta1 pao3 de5 kuai4");
  EXPECT_EQ(reads("他得了第一"), "ta1 de2 le5 di4 yi1");
  EXPECT_EQ(reads("河很长"), "he2 hen3 chang2");
  EXPECT_EQ(reads("太长了"), "tai4 chang2 le5");
  EXPECT_EQ(reads("孩子长了"), "hai2 zi5 zhang3 le5");
  EXPECT_EQ(reads("调大声音"), "tiao2 da4 sheng1 yin1");
  EXPECT_EQ(reads("他被调到北京"), "ta1 bei4 diao4 dao4 bei3 jing1");
  EXPECT_EQ(reads("调一下灯光"), "tiao2 yi1 xia4 deng1 guang1");
  EXPECT_EQ(reads("他还了我"), "ta1 huan2 le5 wo3");
  EXPECT_EQ(reads("他还在"), "ta1 hai2 zai4");
  EXPECT_EQ(reads("背着书包"), "bei1 zhe5 shu1 bao1");
  EXPECT_EQ(reads("我数了数"), "wo3 shu3 le5 shu3");
  EXPECT_EQ(reads("我看了看"), "wo3 kan4 le5 kan4");
  EXPECT_EQ(reads("地方口音"), "di4 fang1 kou3 yin1");
  EXPECT_EQ(reads("这个地方好"), "zhe4 ge4 di4 fang5 hao3");
  EXPECT_EQ(reads("很长，长了"), "hen3 chang2 zhang3 le5") << "rules stay inside a run of Han characters";
}

TEST(PinyinTest, ContextRulesNameThemselves) {
  const std::vector<PinyinWord> words = Lexicon().Segment("我得走了");
  ASSERT_GE(words.size(), 2u);
  EXPECT_EQ(words[1].syllables[0].pinyin, "dei3");
  EXPECT_THAT(words[1].rule, HasSubstr("must"));
  EXPECT_EQ(words[0].rule, "");
  EXPECT_EQ(Lexicon().PhraseReading(U"银行"), (std::vector<std::string>{"yin2", "hang2"}));
  EXPECT_TRUE(Lexicon().PhraseReading(U"银").empty());
}

TEST(PinyinTest, ReadingsAreLexicalWithoutSandhi) {
  EXPECT_EQ(Lexicon().ToPinyinString("一个"), "yi1 ge4");
  EXPECT_EQ(Lexicon().ToPinyinString("不要"), "bu4 yao4");
  EXPECT_EQ(Lexicon().ToPinyinString("对不起"), "dui4 bu5 qi3");
}

TEST(PinyinTest, SkipsNonHanAndKeepsOffsets) {
  const std::string text = "买iPhone，银行!";
  const std::vector<PinyinSyllable> syllables = Lexicon().Convert(text);
  ASSERT_EQ(syllables.size(), 3u);
  EXPECT_EQ(syllables[0].pinyin, "mai3");
  EXPECT_EQ(syllables[1].text_offset, static_cast<int>(text.find("银")));
  EXPECT_EQ(syllables[1].text_length, 3);
  const std::vector<PinyinWord> words = Lexicon().Segment(text);
  ASSERT_EQ(words.size(), 2u);
  EXPECT_TRUE(words[1].from_phrase);
  EXPECT_EQ(text.substr(words[1].text_offset, words[1].text_length), "银行");
}

TEST(PinyinTest, MalformedLexiconIsAClearError) {
  auto bad = PinyinConverter::FromText("C\t行\txing\n", "lex.tsv");
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(), HasSubstr("lex.tsv:1: bad pinyin syllable 'xing'"));
  bad = PinyinConverter::FromText("P\t银行\tyin2\n", "lex.tsv");
  EXPECT_THAT(bad.status().message(), HasSubstr("lex.tsv:1: a P line needs"));
  EXPECT_EQ(PinyinConverter::Load("/nonexistent/zh.tsv").status().code(), absl::StatusCode::kNotFound);
}

TEST(PinyinTest, FindDataFileSearchPath) {
  const char* old = std::getenv("LINGCAST_DATA_DIR");
  const std::optional<std::string> saved = old ? std::optional<std::string>(old) : std::nullopt;
  ::unsetenv("LINGCAST_DATA_DIR");
  // Without the variable: beside the executable, then the installed share folder.
  const std::vector<std::string> dirs = DataSearchPath();
  const std::filesystem::path exe_dir = std::filesystem::read_symlink("/proc/self/exe").parent_path();
  EXPECT_THAT(dirs, ::testing::ElementsAre((exe_dir / "data").string(),
                                           (exe_dir.parent_path() / "share" / "lingcast").string()));
  const auto missing = FindDataFile("no_such_file.bin");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(), HasSubstr("LINGCAST_DATA_DIR"));

  const std::string dir = std::filesystem::path(kLexiconPath).parent_path().string();
  ::setenv("LINGCAST_DATA_DIR", dir.c_str(), 1);
  const auto found = FindDataFile(kZhLexiconFileName);
  if (saved) {
    ::setenv("LINGCAST_DATA_DIR", saved->c_str(), 1);
  } else {
    ::unsetenv("LINGCAST_DATA_DIR");
  }
  ASSERT_OK(found);
  EXPECT_EQ(std::filesystem::canonical(*found), std::filesystem::canonical(kLexiconPath));
}

// Syllable accuracy over a set of "sentence<TAB>expected pinyin per Han character"
// lines ('#' starts a comment), after Chinese normalization as `lingcast pinyin` does.
struct Accuracy {
  int correct = 0;
  int total = 0;
  double ratio() const { return total == 0 ? 0.0 : static_cast<double>(correct) / total; }
};

Accuracy MeasureAccuracy(std::istream& in, const std::string& name) {
  Accuracy result;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const std::vector<std::string> fields = absl::StrSplit(line, '\t');
    if (fields.size() != 2) continue;
    const std::vector<std::string> expected = absl::StrSplit(fields[1], ' ', absl::SkipEmpty());
    std::vector<std::string> got;
    for (const PinyinSyllable& s : Lexicon().Convert(NormalizeChinese(fields[0]).text)) got.push_back(s.pinyin);
    EXPECT_EQ(got.size(), expected.size()) << name << ": one expected syllable per Han character: " << fields[0];
    result.total += static_cast<int>(expected.size());
    for (size_t i = 0; i < expected.size() && i < got.size(); ++i) result.correct += expected[i] == got[i];
    if (got != expected) {
      std::cout << "  differs: " << fields[0] << "\n    want " << fields[1] << "\n    got  "
                << absl::StrJoin(got, " ") << "\n";
    }
  }
  std::cout << "pinyin syllable accuracy on " << name << ": " << result.correct << "/" << result.total << " = "
            << result.ratio() * 100 << "%\n";
  return result;
}

// The shared development set (beside the repo).
TEST(PinyinTest, SyllableAccuracyOnDevelopmentSet) {
  const std::string path = std::string(LINGCAST_SOURCE_DIR) + "/../shared/data/text/pinyin-dev.tsv";
  std::ifstream in(path);
  if (!in) GTEST_SKIP() << "development set " << path << " not present (it lives beside the repo)";
  const Accuracy accuracy = MeasureAccuracy(in, "pinyin-dev.tsv");
  ASSERT_GT(accuracy.total, 0) << path << " holds no sentences";
  EXPECT_GE(accuracy.ratio(), 0.97);
}

// Our own test set of polyphones in context (src/text/testdata/pinyin-test.tsv); the
// rules were not tuned on the development set alone, and this keeps them honest.
TEST(PinyinTest, SyllableAccuracyOnOwnTestSet) {
  const std::string path = std::string(LINGCAST_SOURCE_DIR) + "/src/text/testdata/pinyin-test.tsv";
  std::ifstream in(path);
  ASSERT_TRUE(in) << "cannot read " << path;
  const Accuracy accuracy = MeasureAccuracy(in, "testdata/pinyin-test.tsv");
  ASSERT_GE(accuracy.total, 500) << path << " lost sentences";
  EXPECT_GE(accuracy.ratio(), 0.90);
}

}  // namespace
}  // namespace lingcast
