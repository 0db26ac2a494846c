#include "app/render_plan.h"

#include <gtest/gtest.h>

namespace lingcast {
namespace {

Script TwoLines() {
  Script s;
  s.items.push_back(ScriptLine{1, {{"你好", Language::kZh}, {"Hello", Language::kEn}}});
  s.items.push_back(ScriptPause{2, MediaTime::Millis(600)});
  s.items.push_back(ScriptLine{3, {{"Thanks", Language::kEn}, {"谢谢", Language::kZh}}});
  s.items.push_back(ScriptLine{4, {{"只有中文", Language::kZh}}});
  return s;
}

const Utterance& U(const PlanItem& item) { return std::get<Utterance>(item); }

TEST(RenderPlanTest, FirstSegmentIsSpokenByDefault) {
  const auto plan = PlanRender(TwoLines(), SpeakMode::kFirst);
  ASSERT_EQ(plan.size(), 4u);
  EXPECT_EQ(U(plan[0]).spoken.text, "你好");
  EXPECT_EQ(U(plan[0]).translation.text, "Hello");
  EXPECT_EQ(std::get<PlannedPause>(plan[1]).duration, MediaTime::Millis(600));
  EXPECT_EQ(U(plan[2]).spoken.text, "Thanks");
  EXPECT_EQ(U(plan[3]).translation.text, "");
}

TEST(RenderPlanTest, SpeakOneLanguage) {
  const auto plan = PlanRender(TwoLines(), SpeakMode::kZh);
  EXPECT_EQ(U(plan[0]).spoken.text, "你好");
  EXPECT_EQ(U(plan[2]).spoken.text, "谢谢");
  EXPECT_EQ(U(plan[2]).translation.text, "Thanks");
  const auto en = PlanRender(TwoLines(), SpeakMode::kEn);
  EXPECT_EQ(U(en[0]).spoken.text, "Hello");
  EXPECT_EQ(U(en[3]).spoken.text, "只有中文");  // no English segment: the first one
}

TEST(RenderPlanTest, SpeakBothInTurn) {
  const auto plan = PlanRender(TwoLines(), SpeakMode::kBoth);
  ASSERT_EQ(plan.size(), 6u);
  EXPECT_EQ(U(plan[0]).spoken.text, "你好");
  EXPECT_EQ(U(plan[1]).spoken.text, "Hello");
  EXPECT_EQ(U(plan[1]).translation.text, "你好");
}

TEST(RenderPlanTest, EmotionDirectivesCarryToTheFollowingUtterances) {
  Script s;
  s.items.push_back(ScriptLine{1, {{"Hello", Language::kEn}}});
  s.items.push_back(ScriptEmotion{2, "smile"});
  s.items.push_back(ScriptLine{3, {{"Great news", Language::kEn}, {"好消息", Language::kZh}}});
  s.items.push_back(ScriptPause{4, MediaTime::Millis(600)});
  s.items.push_back(ScriptEmotion{5, "thinking"});
  s.items.push_back(ScriptLine{6, {{"Hmm", Language::kEn}}});
  const auto plan = PlanRender(s, SpeakMode::kBoth);
  ASSERT_EQ(plan.size(), 5u);  // emotions are not items of their own
  EXPECT_EQ(U(plan[0]).expression, Expression::kNeutral);
  EXPECT_EQ(U(plan[1]).expression, Expression::kSmile);
  EXPECT_EQ(U(plan[2]).expression, Expression::kSmile);
  EXPECT_EQ(U(plan[4]).expression, Expression::kThinking);
}

TEST(RenderPlanTest, TitleDirectivesMarkTheItemAfterThem) {
  Script s;
  s.items.push_back(ScriptTitle{1, "Li Na|Host"});
  s.items.push_back(ScriptLine{2, {{"Hello", Language::kEn}, {"你好", Language::kZh}}});
  s.items.push_back(ScriptLine{3, {{"Welcome", Language::kEn}}});
  s.items.push_back(ScriptTitle{4, "Wang"});
  s.items.push_back(ScriptTitle{5, ""});  // the last of several wins
  s.items.push_back(ScriptPause{6, MediaTime::Millis(600)});
  s.items.push_back(ScriptLine{7, {{"Bye", Language::kEn}}});
  s.items.push_back(ScriptTitle{8, "After the end"});  // nothing follows: no effect
  const auto plan = PlanRender(s, SpeakMode::kBoth);
  ASSERT_EQ(plan.size(), 5u);  // titles are not items of their own
  EXPECT_EQ(U(plan[0]).title, std::optional<std::string>("Li Na|Host"));
  EXPECT_EQ(U(plan[1]).title, std::nullopt) << "the line's second utterance keeps the title";
  EXPECT_EQ(U(plan[2]).title, std::nullopt);
  EXPECT_EQ(std::get<PlannedPause>(plan[3]).title, std::optional<std::string>(""));
  EXPECT_EQ(U(plan[4]).title, std::nullopt);
}

}  // namespace
}  // namespace lingcast
