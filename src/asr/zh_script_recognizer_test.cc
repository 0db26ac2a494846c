#include "asr/zh_script_recognizer.h"

#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_join.h"
#include "core/status_matchers.h"
#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace lingcast {
namespace {

using ::testing::ElementsAre;

// A recognizer that says what it is told: each Partial() and Finish() takes the
// next hypothesis given.
class ScriptedSession : public AsrSession {
 public:
  explicit ScriptedSession(std::deque<AsrHypothesis> said) : said_(std::move(said)) {}
  using AsrSession::AcceptAudio;
  absl::Status AcceptAudio(const AudioBuffer&, MediaTime pts) override {
    position_ = pts;
    return absl::OkStatus();
  }
  std::optional<AsrHypothesis> Partial() override { return Next(); }
  absl::StatusOr<AsrHypothesis> Finish() override { return Next(); }
  // Each opening's score: 1 when it is written in Traditional characters as given.
  absl::StatusOr<std::vector<double>> ScoreOpenings(const std::vector<std::string>& openings) override {
    std::vector<double> scores;
    for (const std::string& opening : openings) scores.push_back(opening == "換一首歌" ? 1.0 : 0.0);
    return scores;
  }
  MediaTime position() const override { return position_; }

 private:
  AsrHypothesis Next() {
    AsrHypothesis h = said_.front();
    said_.pop_front();
    return h;
  }
  std::deque<AsrHypothesis> said_;
  MediaTime position_;
};

class ScriptedModel : public AsrModel {
 public:
  explicit ScriptedModel(std::deque<AsrHypothesis> said) : said_(std::move(said)) {}
  absl::StatusOr<std::unique_ptr<AsrSession>> NewSession() const override {
    return std::unique_ptr<AsrSession>(std::make_unique<ScriptedSession>(said_));
  }
  Language language() const override { return Language::kZh; }
  std::string name() const override { return "scripted"; }
  std::optional<StepBatching> step_batching() const override { return StepBatching{10, 7, 6, 2}; }

 private:
  std::deque<AsrHypothesis> said_;
};

std::shared_ptr<const ZhScriptConverter> Converter(ZhScript target) {
  absl::StatusOr<ZhScriptConverter> converter = ZhScriptConverter::Load(target);
  EXPECT_OK(converter);
  return std::make_shared<const ZhScriptConverter>(*std::move(converter));
}

AsrHypothesis Hypothesis(std::string text, Language language, bool final, std::vector<std::string> words = {}) {
  AsrHypothesis h;
  h.final = final;
  h.text = std::move(text);
  h.language = language;
  h.stable_prefix_chars = final ? h.text.size() : 0;
  for (std::string& word : words) h.words.push_back(AsrWord{std::move(word), MediaTime::Zero(), MediaTime::Zero(), 1.0});
  return h;
}

TEST(ZhScriptRecognizerTest, PartialsAndFinalsInChineseAreSimplified) {
  AsrHypothesis partial = Hypothesis("甚至出現交易", Language::kZh, false);
  partial.stable_prefix_chars = std::string("甚至出現").size();
  std::deque<AsrHypothesis> said = {
      partial, Hypothesis("甚至出現交易幾乎停滯的情況", Language::kZh, true,
                          {"甚", "至", "出", "現", "交", "易", "幾", "乎", "停", "滯", "的", "情", "況"})};
  const std::shared_ptr<AsrModel> model =
      WriteChineseIn(std::make_shared<ScriptedModel>(said), Converter(ZhScript::kSimplified));
  EXPECT_EQ(model->name(), "scripted");
  EXPECT_EQ(model->language(), Language::kZh);
  absl::StatusOr<std::unique_ptr<AsrSession>> session = model->NewSession();
  ASSERT_OK(session);
  const std::optional<AsrHypothesis> p = (*session)->Partial();
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->text, "甚至出现交易");
  EXPECT_EQ(p->text.substr(0, p->stable_prefix_chars), "甚至出现");
  const absl::StatusOr<AsrHypothesis> f = (*session)->Finish();
  ASSERT_OK(f);
  EXPECT_EQ(f->text, "甚至出现交易几乎停滞的情况");
  EXPECT_EQ(f->stable_prefix_chars, f->text.size());
  std::vector<std::string> words;
  for (const AsrWord& w : f->words) words.push_back(w.text);
  EXPECT_EQ(absl::StrJoin(words, ""), f->text);
  EXPECT_EQ(words[3], "现");
  EXPECT_EQ(words[12], "况");
}

TEST(ZhScriptRecognizerTest, TraditionalOnRequest) {
  std::deque<AsrHypothesis> said = {Hypothesis("喜欢的话记得点个关注", Language::kZh, true, {"喜欢的话", "记得点个关注"})};
  const std::shared_ptr<AsrModel> model =
      WriteChineseIn(std::make_shared<ScriptedModel>(said), Converter(ZhScript::kTraditional));
  absl::StatusOr<AsrHypothesis> f = (*model->NewSession())->Finish();
  ASSERT_OK(f);
  EXPECT_EQ(f->text, "喜歡的話記得點個關注");
  ASSERT_EQ(f->words.size(), 2u);
  EXPECT_EQ(f->words[0].text, "喜歡的話");
  EXPECT_EQ(f->words[1].text, "記得點個關注");
}

TEST(ZhScriptRecognizerTest, WordsConvertInTheTextsContext) {
  // 乾 alone is 干, in 乾隆 it stays: a word takes the characters at its place
  // in the converted text.
  const std::shared_ptr<const ZhScriptConverter> converter = Converter(ZhScript::kSimplified);
  AsrHypothesis h = Hypothesis("乾隆的頭髮", Language::kZh, true, {"乾", "隆", "的", "頭", "髮"});
  ConvertHypothesis(*converter, h);
  EXPECT_EQ(h.text, "乾隆的头发");
  std::vector<std::string> words;
  for (const AsrWord& w : h.words) words.push_back(w.text);
  EXPECT_THAT(words, ElementsAre("乾", "隆", "的", "头", "发"));
}

TEST(ZhScriptRecognizerTest, OtherLanguagesPassUnchanged) {
  const std::shared_ptr<const ZhScriptConverter> converter = Converter(ZhScript::kSimplified);
  // Whisper's language detection may say English for a line with a Chinese name in it.
  AsrHypothesis h = Hypothesis("Welcome to 臺灣", Language::kEn, true, {"Welcome", "to", "臺灣"});
  ConvertHypothesis(*converter, h);
  EXPECT_EQ(h.text, "Welcome to 臺灣");
  EXPECT_EQ(h.words[2].text, "臺灣");
}

// Opening scores pass through as written: the inner recognizer scores its own
// spelling, and the follower asks in both scripts (SpeechFollower).
TEST(ZhScriptRecognizerTest, OpeningsAreScoredAsWritten) {
  const std::shared_ptr<AsrModel> model =
      WriteChineseIn(std::make_shared<ScriptedModel>(std::deque<AsrHypothesis>{}), Converter(ZhScript::kSimplified));
  absl::StatusOr<std::unique_ptr<AsrSession>> session = model->NewSession();
  ASSERT_OK(session);
  absl::StatusOr<std::vector<double>> scores = (*session)->ScoreOpenings({"换一首歌", "換一首歌"});
  ASSERT_OK(scores);
  EXPECT_THAT(*scores, ElementsAre(0.0, 1.0));
}

// How the wrapped recognizer's sessions shared its decoder passes passes
// through (serve's /metrics reads it of a Mandarin host's recognizer too).
TEST(ZhScriptRecognizerTest, TheWrappedRecognizersStepBatchingPassesThrough) {
  const std::shared_ptr<AsrModel> model =
      WriteChineseIn(std::make_shared<ScriptedModel>(std::deque<AsrHypothesis>{}), Converter(ZhScript::kSimplified));
  const std::optional<AsrModel::StepBatching> batching = model->step_batching();
  ASSERT_TRUE(batching.has_value());
  EXPECT_EQ(batching->steps, 10);
  EXPECT_EQ(batching->passes, 7);
  EXPECT_EQ(batching->joined_steps, 6);
  EXPECT_EQ(batching->largest_pass, 2);
}

}  // namespace
}  // namespace lingcast
