#include "mt/translation_memory.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <random>

#include "absl/strings/str_cat.h"
#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mt/match_text.h"
#include "text/utf8.h"

namespace lingcast {
namespace {

using ::testing::HasSubstr;

class TempDir {
 public:
  TempDir() {
    path_ = std::filesystem::temp_directory_path() /
            absl::StrCat("lingcast_tm_test_", ::testing::UnitTest::GetInstance()->random_seed(), "_",
                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string Write(const std::string& name, const std::string& contents) const {
    const std::string file = (path_ / name).string();
    std::ofstream(file, std::ios::binary) << contents;
    return file;
  }

 private:
  std::filesystem::path path_;
};

TmEntry Pair(std::string source, std::string target, Language from = Language::kZh, Language to = Language::kEn) {
  return TmEntry{std::move(source), std::move(target), from, to, "test"};
}

TEST(TranslationMemoryTest, ExactMatchIgnoresPunctuationCaseAndWidth) {
  TranslationMemory tm;
  tm.Add(Pair("欢迎来到直播间！", "Welcome to the live room!"));
  std::optional<TmMatch> match = tm.Lookup("欢迎来到直播间", Language::kZh, Language::kEn);
  ASSERT_TRUE(match.has_value());
  EXPECT_TRUE(match->exact);
  EXPECT_DOUBLE_EQ(match->score, 1.0);
  EXPECT_EQ(match->entry.target, "Welcome to the live room!");
}

TEST(TranslationMemoryTest, DirectionsAreSeparate) {
  TranslationMemory tm;
  tm.Add(Pair("欢迎来到直播间", "Welcome to the live room"));
  EXPECT_FALSE(tm.Lookup("欢迎来到直播间", Language::kEn, Language::kZh).has_value());
}

TEST(TranslationMemoryTest, FuzzyMatchScoresByCharacters) {
  TranslationMemory tm;
  tm.Add(Pair("这款面霜今天特别适合送礼", "This cream is a perfect gift today"));
  tm.Add(Pair("这款口红今天买一送一", "This lipstick is buy one get one free today"));
  // One character differs out of 12.
  std::optional<TmMatch> match = tm.Lookup("这款面膜今天特别适合送礼", Language::kZh, Language::kEn);
  ASSERT_TRUE(match.has_value());
  EXPECT_FALSE(match->exact);
  EXPECT_NEAR(match->score, 11.0 / 12.0, 1e-9);
  EXPECT_EQ(match->entry.target, "This cream is a perfect gift today");
}

TEST(TranslationMemoryTest, ANumberIsOneTokenWhateverItsSpelling) {
  TranslationMemory tm;
  tm.Add(Pair("这款面霜今天只要九十九元", "This cream is only 99 yuan today"));
  // 九十九 / 八十九 is one wrong number among 10 tokens, as 99 / 89 would be.
  for (const std::string query : {"这款面霜今天只要八十九元", "这款面霜今天只要89元"}) {
    std::optional<TmMatch> match = tm.Lookup(query, Language::kZh, Language::kEn);
    ASSERT_TRUE(match.has_value()) << query;
    EXPECT_NEAR(match->score, 9.0 / 10.0, 1e-9) << query;
  }
}

TEST(TranslationMemoryTest, FuzzyMatchScoresEnglishByWords) {
  TranslationMemory tm;
  tm.Add(Pair("welcome to our live room everyone", "欢迎大家来到直播间", Language::kEn, Language::kZh));
  std::optional<TmMatch> match =
      tm.Lookup("Welcome to my live room, everyone!", Language::kEn, Language::kZh, 0.8);
  ASSERT_TRUE(match.has_value());
  EXPECT_NEAR(match->score, 5.0 / 6.0, 1e-9);
}

TEST(TranslationMemoryTest, BelowThresholdIsNoMatch) {
  TranslationMemory tm;
  tm.Add(Pair("这款面霜今天只要九十九元", "This cream is only 99 yuan today"));
  EXPECT_FALSE(tm.Lookup("今天天气很好我们出去玩吧", Language::kZh, Language::kEn).has_value());
  EXPECT_FALSE(tm.Lookup("这款面霜", Language::kZh, Language::kEn).has_value());
  EXPECT_FALSE(tm.Lookup("", Language::kZh, Language::kEn).has_value());
}

TEST(TranslationMemoryTest, SearchReturnsBestFirst) {
  TranslationMemory tm;
  tm.Add(Pair("今天所有商品打八折", "Everything is 20% off today"));
  tm.Add(Pair("今天所有商品打九折", "Everything is 10% off today"));
  tm.Add(Pair("明天所有商品打七折", "Everything is 30% off tomorrow"));
  std::vector<TmMatch> matches = tm.Search("今天所有商品打九折", Language::kZh, Language::kEn, 0.7, 5);
  ASSERT_EQ(matches.size(), 3u);
  EXPECT_EQ(matches[0].entry.target, "Everything is 10% off today");
  EXPECT_TRUE(matches[0].exact);
  EXPECT_GE(matches[1].score, matches[2].score);
}

TEST(TranslationMemoryTest, FirstTranslationWinsAndConflictIsReported) {
  TranslationMemory tm;
  std::string existing;
  EXPECT_EQ(tm.Add(Pair("谢谢大家", "Thank you all")), TranslationMemory::AddResult::kAdded);
  EXPECT_EQ(tm.Add(Pair("谢谢大家！", "thank you all")), TranslationMemory::AddResult::kDuplicate);
  EXPECT_EQ(tm.Add(Pair("谢谢大家", "Thanks, everyone"), &existing), TranslationMemory::AddResult::kConflict);
  EXPECT_EQ(existing, "test");
  EXPECT_EQ(tm.Lookup("谢谢大家", Language::kZh, Language::kEn)->entry.target, "Thank you all");
}

TEST(TranslationMemoryTest, PutReplacesATranslation) {
  TranslationMemory tm;
  tm.Add(Pair("谢谢大家", "Thank you all"));
  tm.Put(TmEntry{"谢谢大家", "Thanks, everyone", Language::kZh, Language::kEn, "correction"});
  EXPECT_EQ(tm.Lookup("谢谢大家", Language::kZh, Language::kEn)->entry.target, "Thanks, everyone");
  EXPECT_EQ(tm.size(), 1u);
}

TEST(TranslationMemoryTest, ScriptAddsBothDirectionsAndCountsUntranslatedLines) {
  absl::StatusOr<Script> script = ParseScriptText(
      "欢迎来到直播间 | Welcome to the live room\n"
      "\n"
      "Only the English side here\n"
      "zh: 谢谢大家 | en: Thank you all\n"
      "zh: 谢谢大家 | en: Thanks everyone\n",
      "show.script");
  ASSERT_OK(script);
  TranslationMemory tm;
  TmLoadReport report;
  tm.AddScript(*script, report);
  // Line 5 conflicts with line 4 from Chinese; its English side is a new source.
  EXPECT_EQ(report.added, 5);
  EXPECT_EQ(report.untranslated, 1);
  EXPECT_EQ(report.conflicts, 1);
  ASSERT_FALSE(report.warnings.empty());
  EXPECT_THAT(report.warnings[0], HasSubstr("show.script:3"));
  EXPECT_THAT(report.warnings[1], HasSubstr("show.script:5"));
  EXPECT_THAT(report.warnings[1], HasSubstr("show.script:4"));
  EXPECT_EQ(tm.Lookup("Welcome to the live room", Language::kEn, Language::kZh)->entry.target, "欢迎来到直播间");
  EXPECT_EQ(tm.Lookup("谢谢大家", Language::kZh, Language::kEn)->entry.origin, "show.script:4");
}

TEST(TranslationMemoryTest, LoadsTsvAndCsv) {
  TempDir dir;
  const std::string tsv = dir.Write("pairs.tsv", "\xEF\xBB\xBF# brand lines\n你好\tHello\r\n\n欢迎\tWelcome\n");
  const std::string csv = dir.Write("pairs.csv", "\"你好，朋友\",\"Hello, friend\"\n谢谢,\"Say \"\"thanks\"\"\"\n");
  TranslationMemory tm;
  TmLoadReport report;
  ASSERT_OK(tm.LoadFile(tsv, Language::kZh, Language::kEn, report));
  ASSERT_OK(tm.LoadFile(csv, Language::kZh, Language::kEn, report));
  EXPECT_EQ(report.added, 4);
  EXPECT_EQ(tm.Lookup("你好", Language::kZh, Language::kEn)->entry.target, "Hello");
  EXPECT_EQ(tm.Lookup("你好，朋友", Language::kZh, Language::kEn)->entry.target, "Hello, friend");
  EXPECT_EQ(tm.Lookup("谢谢", Language::kZh, Language::kEn)->entry.target, "Say \"thanks\"");
  EXPECT_EQ(tm.Lookup("欢迎", Language::kZh, Language::kEn)->entry.origin, tsv + ":4");
}

TEST(TranslationMemoryTest, BadFilesAreClearErrorsAndAddNothing) {
  TempDir dir;
  struct Case {
    std::string name, contents, message;
  };
  const std::vector<Case> cases = {
      {"missing.tsv", "你好\tHello\n欢迎\n", "missing.tsv:2: missing translation (expected SOURCE<TAB>TARGET)"},
      {"empty_target.tsv", "你好\t  \n", "empty_target.tsv:1: missing translation"},
      {"three.tsv", "你好\tHello\tHi\n", "three.tsv:1: 3 fields, expected 2"},
      {"no_source.tsv", "\tHello\n", "no_source.tsv:1: empty source"},
      {"quote.csv", "\"你好,Hello\n", "quote.csv:1: unterminated quote"},
      {"utf8.tsv", "你好\tHello\n\xFF\xFE\tbad\n", "utf8.tsv:2: invalid UTF-8 at byte 0"},
  };
  for (const Case& c : cases) {
    TranslationMemory tm;
    TmLoadReport report;
    absl::Status status = tm.LoadFile(dir.Write(c.name, c.contents), Language::kZh, Language::kEn, report);
    EXPECT_TRUE(absl::IsInvalidArgument(status)) << c.name << ": " << status;
    EXPECT_THAT(std::string(status.message()), HasSubstr(c.message)) << c.name;
    EXPECT_EQ(tm.size(), 0u) << c.name;
  }
  TranslationMemory tm;
  TmLoadReport report;
  absl::Status missing = tm.LoadFile(dir.Write("x", "") + ".absent", Language::kZh, Language::kEn, report);
  EXPECT_TRUE(absl::IsNotFound(missing)) << missing;
  EXPECT_THAT(std::string(missing.message()), HasSubstr(".absent"));
}

TEST(TranslationMemoryTest, VeryLongLinesMatch) {
  TranslationMemory tm;
  std::string long_line;
  for (int i = 0; i < 500; ++i) long_line += "这是一个很长的句子";
  tm.Add(Pair(long_line, "long"));
  std::string changed = long_line;
  changed.replace(0, 3, "那");
  std::optional<TmMatch> match = tm.Lookup(changed, Language::kZh, Language::kEn, 0.9);
  ASSERT_TRUE(match.has_value());
  EXPECT_EQ(match->entry.target, "long");
}

TEST(TranslationMemoryTest, FindsTheRightLineAmongManySimilarOnes) {
  TranslationMemory tm;
  for (int i = 0; i < 2000; ++i) {
    tm.Add(Pair(absl::StrCat("第", i, "号商品今天特价"), absl::StrCat("Item ", i, " is on sale today")));
  }
  std::optional<TmMatch> match = tm.Lookup("第1234号商品今天特价啦", Language::kZh, Language::kEn);
  ASSERT_TRUE(match.has_value());
  EXPECT_EQ(match->entry.target, "Item 1234 is on sale today");
}

}  // namespace
}  // namespace lingcast

namespace lingcast {
namespace {

// The index must find what a scan of every entry finds, whatever the threshold.
TEST(TranslationMemoryTest, IndexFindsWhatALinearScanFinds) {
  std::mt19937 rng(7);
  const std::vector<std::string> pieces = {"今天", "这款", "面霜", "特价", "只要", "九十九", "元", "包邮", "买一送一",
                                           "家人们", "库存", "不多", "了", "快", "下单", "赠品"};
  auto random_line = [&](int words) {
    std::string line;
    for (int i = 0; i < words; ++i) line += pieces[rng() % pieces.size()];
    return line;
  };
  TranslationMemory tm;
  std::vector<std::string> lines;
  for (int i = 0; i < 3000; ++i) {
    lines.push_back(random_line(2 + static_cast<int>(rng() % 8)));
    tm.Add(Pair(lines.back(), std::to_string(i)));
  }
  for (double threshold : {0.55, 0.7, 0.85}) {
    for (int q = 0; q < 150; ++q) {
      std::string query = lines[rng() % lines.size()];
      if (q % 2 == 0) query += pieces[rng() % pieces.size()];
      if (q % 3 == 0) query = pieces[rng() % pieces.size()] + query;
      std::optional<TmMatch> found = tm.Lookup(query, Language::kZh, Language::kEn, threshold);
      // Reference: the best similarity over every line, on the same tokens (as
      // the memory spells them).
      double best = 0;
      const MatchSpelling& spelling = tm.spelling(Language::kZh);
      for (const std::string& line : lines) {
        std::vector<std::string> a = spelling.TokensWithWholeNumbers(query), b = spelling.TokensWithWholeNumbers(line);
        std::map<std::string, uint32_t> ids;
        std::vector<uint32_t> ia, ib;
        for (const std::string& t : a) ia.push_back(ids.try_emplace(t, static_cast<uint32_t>(ids.size())).first->second);
        for (const std::string& t : b) ib.push_back(ids.try_emplace(t, static_cast<uint32_t>(ids.size())).first->second);
        best = std::max(best, TokenSimilarity(ia, ib));
      }
      if (best >= threshold) {
        ASSERT_TRUE(found.has_value()) << query << " at " << threshold << " (scan: " << best << ")";
        EXPECT_NEAR(found->score, best, 1e-9) << query;
      } else {
        EXPECT_FALSE(found.has_value()) << query;
      }
    }
  }
}

}  // namespace
}  // namespace lingcast

namespace lingcast {
namespace {

// Search (the best few, not only the best) against a scan of every entry, on
// lines built like a show's (stock phrases shared by thousands of lines, so the
// token-pair index has long lists) and queries with 1-6 tokens changed: the
// scores found must be exactly the best scores the scan finds.
TEST(TranslationMemoryTest, SearchFindsTheBestScoresALinearScanFinds) {
  std::mt19937 rng(11);
  const std::vector<std::string> openers = {"家人们", "宝宝们", "今天", "现在"};
  const std::vector<std::string> items = {"这款面霜", "这条裙子", "这个口红", "这双鞋"};
  const std::vector<std::string> claims = {"真的很好用", "质量特别好", "颜色很正", "库存不多了"};
  const std::vector<std::string> deals = {"只要九十九元", "买一送一", "打八折", "包邮到家"};
  auto pick = [&](const std::vector<std::string>& pool) { return pool[rng() % pool.size()]; };
  TranslationMemory tm;
  std::vector<std::string> lines;  // those the memory kept (a repeated source is kept once)
  for (int i = 0; i < 4000; ++i) {
    const std::string line = pick(openers) + pick(items) + pick(claims) + pick(deals) + "编号" + std::to_string(rng() % 500);
    if (tm.Add(Pair(line, std::to_string(i))) == TranslationMemory::AddResult::kAdded) lines.push_back(line);
  }
  std::map<std::string, uint32_t> ids;
  auto to_ids = [&](const std::string& text) {
    std::vector<uint32_t> out;
    // The tokens as the memory spells them (编号220 is 编号 二百二十).
    for (const std::string& t : tm.spelling(Language::kZh).TokensWithWholeNumbers(text)) {
      out.push_back(ids.try_emplace(t, static_cast<uint32_t>(ids.size())).first->second);
    }
    return out;
  };
  std::vector<std::vector<uint32_t>> line_ids;
  for (const std::string& line : lines) line_ids.push_back(to_ids(line));
  int compared = 0;
  for (double threshold : {0.6, 0.7, 0.8, 0.9}) {
    for (int q = 0; q < 40; ++q) {
      // A line with some characters replaced, dropped or added.
      std::u32string chars;
      for (const CodePoint& c : DecodeUtf8(lines[rng() % lines.size()])) chars.push_back(c.value);
      const int edits = 1 + static_cast<int>(rng() % 6);
      for (int e = 0; e < edits && chars.size() > 2; ++e) {
        const size_t at = rng() % chars.size();
        const char32_t filler = static_cast<char32_t>(0x55EF + rng() % 5);  // 嗯... a CJK neighbour
        switch (rng() % 3) {
          case 0: chars[at] = filler; break;
          case 1: chars.erase(at, 1); break;
          default: chars.insert(chars.begin() + static_cast<std::ptrdiff_t>(at), filler); break;
        }
      }
      const std::string query = EncodeUtf8(chars);
      const std::vector<uint32_t> query_ids = to_ids(query);
      std::vector<double> scan;
      for (const std::vector<uint32_t>& line : line_ids) {
        const double s = TokenSimilarity(query_ids, line);
        if (s >= threshold) scan.push_back(s);
      }
      std::sort(scan.rbegin(), scan.rend());
      constexpr size_t kResults = 5;
      if (scan.size() > kResults) scan.resize(kResults);
      const std::vector<TmMatch> found = tm.Search(query, Language::kZh, Language::kEn, threshold, kResults);
      ASSERT_EQ(found.size(), scan.size()) << query << " at " << threshold;
      for (size_t i = 0; i < found.size(); ++i) EXPECT_NEAR(found[i].score, scan[i], 1e-9) << query << " #" << i;
      ++compared;
    }
  }
  EXPECT_EQ(compared, 160);
}

}  // namespace
}  // namespace lingcast

namespace lingcast {
namespace {

// English (a token per word) on random lines of 1 to 90 words over a small
// vocabulary, so the index's lists are long, lines repeat words, and lines
// longer than a machine word (64 tokens) take the table's path. Queries are
// lines with words replaced, dropped or added; Search's best three must score
// exactly what a scan of every line finds.
TEST(TranslationMemoryTest, RandomEnglishLinesMatchALinearScan) {
  std::mt19937 rng(23);
  // No number words: a number said in words is one token to the memory
  // (MatchSpelling::TokensWithWholeNumbers), and here a token is a word.
  const std::vector<std::string> words = {"the", "price", "today", "is", "only", "great", "deal", "yuan", "buy",
                                          "pair", "get", "free", "shipping", "red", "black", "dress", "cream", "now"};
  auto random_line = [&] {
    std::vector<std::string> line;
    const int length = 1 + static_cast<int>(rng() % (rng() % 4 == 0 ? 90 : 16));
    for (int i = 0; i < length; ++i) line.push_back(words[rng() % words.size()]);
    return line;
  };
  auto join = [](const std::vector<std::string>& line) {
    std::string text;
    for (const std::string& word : line) text += (text.empty() ? "" : " ") + word;
    return text;
  };
  TranslationMemory tm;
  std::vector<std::vector<std::string>> lines;
  for (int i = 0; i < 3000; ++i) {
    std::vector<std::string> line = random_line();
    if (tm.Add(Pair(join(line), std::to_string(i), Language::kEn, Language::kZh)) ==
        TranslationMemory::AddResult::kAdded) {
      lines.push_back(std::move(line));
    }
  }
  std::map<std::string, uint32_t> ids;
  auto to_ids = [&](const std::vector<std::string>& line) {
    std::vector<uint32_t> out;
    for (const std::string& w : line) out.push_back(ids.try_emplace(w, static_cast<uint32_t>(ids.size())).first->second);
    return out;
  };
  std::vector<std::vector<uint32_t>> line_ids;
  for (const auto& line : lines) line_ids.push_back(to_ids(line));
  int compared = 0;
  for (double threshold : {0.7, 0.8, 0.9}) {
    for (int q = 0; q < 60; ++q) {
      std::vector<std::string> query = lines[rng() % lines.size()];
      const int edits = static_cast<int>(rng() % 5);
      for (int e = 0; e < edits && query.size() > 1; ++e) {
        const size_t at = rng() % query.size();
        switch (rng() % 3) {
          case 0: query[at] = words[rng() % words.size()]; break;
          case 1: query.erase(query.begin() + static_cast<std::ptrdiff_t>(at)); break;
          default: query.insert(query.begin() + static_cast<std::ptrdiff_t>(at), "uh"); break;
        }
      }
      const std::vector<uint32_t> query_ids = to_ids(query);
      std::vector<double> scan;
      for (const std::vector<uint32_t>& line : line_ids) {
        const double s = TokenSimilarity(query_ids, line);
        if (s >= threshold) scan.push_back(s);
      }
      std::sort(scan.rbegin(), scan.rend());
      constexpr size_t kResults = 3;
      if (scan.size() > kResults) scan.resize(kResults);
      const std::vector<TmMatch> found = tm.Search(join(query), Language::kEn, Language::kZh, threshold, kResults);
      // The index finds lines sharing a word pair with the query, which every
      // match of 3 or more words at 0.7 or more does (TranslationMemory).
      if (query.size() < 3) continue;
      ASSERT_EQ(found.size(), scan.size()) << join(query) << " at " << threshold;
      for (size_t i = 0; i < found.size(); ++i) EXPECT_NEAR(found[i].score, scan[i], 1e-9) << join(query) << " #" << i;
      ++compared;
    }
  }
  EXPECT_GT(compared, 150);
}

}  // namespace
}  // namespace lingcast

namespace lingcast {
namespace {

TEST(TranslationMemoryTest, TraditionalAndDigitsFindTheSimplifiedLine) {
  absl::StatusOr<MatchSpelling> zh = MatchSpelling::Load(Language::kZh);
  ASSERT_OK(zh);
  TranslationMemory tm(zh->to_simplified());
  tm.Add(Pair("专柜价格是三百二十八元", "The counter price is 328 yuan"));
  tm.Add(Pair("喜欢的话记得点个关注", "If you like it, remember to follow"));
  std::optional<TmMatch> m = tm.Lookup("專櫃價格是328元", Language::kZh, Language::kEn);
  ASSERT_TRUE(m.has_value());
  EXPECT_TRUE(m->exact);
  EXPECT_EQ(m->entry.target, "The counter price is 328 yuan");
  m = tm.Lookup("喜歡的話記得點個關注！", Language::kZh, Language::kEn);
  ASSERT_TRUE(m.has_value());
  EXPECT_TRUE(m->exact);
  // Without a converter, digits still match numerals but characters are as written.
  TranslationMemory as_written;
  as_written.Add(Pair("专柜价格是三百二十八元", "The counter price is 328 yuan"));
  as_written.Add(Pair("喜欢的话记得点个关注", "If you like it, remember to follow"));
  EXPECT_TRUE(as_written.Lookup("专柜价格是328元", Language::kZh, Language::kEn).has_value());
  EXPECT_FALSE(as_written.Lookup("喜歡的話記得點個關注", Language::kZh, Language::kEn).has_value());
}

TEST(TranslationMemoryTest, EnglishDigitsAndNumberWordsAreOneSource) {
  TranslationMemory tm;
  tm.Add(Pair("Now only $89 for the whole set", "整套只要八十九美元", Language::kEn, Language::kZh));
  std::optional<TmMatch> m = tm.Lookup("now only eighty nine dollars for the whole set", Language::kEn, Language::kZh);
  ASSERT_TRUE(m.has_value());
  EXPECT_TRUE(m->exact);
  // The same source spelled another way is a duplicate, not a second entry.
  EXPECT_EQ(tm.Add(Pair("Now only eighty-nine dollars for the whole set", "整套只要八十九美元", Language::kEn,
                        Language::kZh)),
            TranslationMemory::AddResult::kDuplicate);
}

}  // namespace
}  // namespace lingcast
