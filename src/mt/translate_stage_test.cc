#include "mt/translate_stage.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/status_matchers.h"
#include "graph/harness.h"
#include "mt/live_control.h"
#include "mt/tm_translator.h"

namespace lingcast {
namespace {

// An engine that is down: every request fails (as a server that answers 503).
class BrokenTranslator final : public Translator {
 public:
  std::string name() const override { return "broken"; }
  absl::StatusOr<Translation> Translate(const TranslationRequest&, std::stop_token, const PartialTranslation&) override {
    return absl::UnavailableError("the server is down");
  }
};

const std::vector<FollowerLine> kScript = {{1, "Welcome to the live room everyone", "", "欢迎大家来到直播间"},
                                           {2, "Click the link below to buy it now", "", "点击下方链接立即购买"}};

// A memory of what the host might say off script (English -> Chinese), and the
// script's own lines translated otherwise, so that using it for them shows.
// The memory answers first; then `more` engines.
TranslationStack MemoryStack(const Clock& clock, std::vector<std::unique_ptr<Translator>> more = {}) {
  TranslationStack stack;
  stack.memory = std::make_unique<TranslationMemory>();
  stack.memory->Put(TmEntry{"thank you all for coming", "感谢大家的到来", Language::kEn, Language::kZh, "test"});
  stack.memory->Put(TmEntry{"Click the link below to buy it now", "点链接", Language::kEn, Language::kZh, "test"});
  std::vector<std::unique_ptr<Translator>> engines;
  engines.push_back(std::make_unique<TmTranslator>(*stack.memory));
  for (auto& engine : more) engines.push_back(std::move(engine));
  stack.chain = std::make_unique<TranslatorChain>(std::move(engines), clock);
  return stack;
}

// A line as the follow stage decides it: a script line carries the script's
// translation; off script, what was heard.
LiveEvent Decided(int64_t utterance, const std::string& heard, const FollowerLine* script_line, MediaTime at) {
  LiveEvent event;
  HeardLine line;
  line.id = utterance;
  line.utterance = utterance;
  line.heard = heard;
  line.decided_at = at;
  if (script_line != nullptr) {
    line.line_number = script_line->line_number;
    line.source_text = script_line->source;
    line.translation = script_line->translation;
    line.engine = "script";
  } else {
    line.source_text = heard;
  }
  event.line = std::move(line);
  event.watermark = at;
  return event;
}

std::vector<HeardLine> LinesOf(const std::vector<LiveEvent>& events) {
  std::vector<HeardLine> lines;
  for (const LiveEvent& event : events) {
    if (event.line) lines.push_back(*event.line);
  }
  return lines;
}

class TranslateStageTest : public ::testing::Test {
 protected:
  std::unique_ptr<StageHarness<TranslateStage>> Harness(TranslationStack& stack, LiveControl* control = nullptr) {
    return std::make_unique<StageHarness<TranslateStage>>(
        std::make_unique<TranslateStage>(stack, Language::kEn, Language::kZh, kScript, control, logger_));
  }

  SimulatedClock clock_;
  Logger logger_{LogLevel::kError};
};

TEST_F(TranslateStageTest, ScriptLinesKeepTheirOwnTranslationAndOffScriptLinesGoThroughTheEngines) {
  TranslationStack stack = MemoryStack(clock_);
  auto harness = Harness(stack);
  auto in = harness->Feed(harness->stage().in);
  auto out = harness->Collect(harness->stage().out);
  ASSERT_OK(harness->Open());
  in.Push(Decided(0, "click the link below to buy it now", &kScript[1], MediaTime::Seconds(2)), MediaTime::Seconds(2));
  in.Push(Decided(1, "thank you all for coming", nullptr, MediaTime::Seconds(4)), MediaTime::Seconds(4));
  LiveEvent watermark;
  watermark.watermark = MediaTime::Seconds(5);
  in.Push(watermark, MediaTime::Seconds(5));
  in.End();
  ASSERT_OK(harness->RunUntilFinished());

  const std::vector<LiveEvent> events = out.Values();
  ASSERT_EQ(events.size(), 3u) << "every event goes on, in order";
  ASSERT_TRUE(events[0].line.has_value());
  EXPECT_EQ(events[0].line->translation, "点击下方链接立即购买") << "the script's, not the memory's";
  EXPECT_EQ(events[0].line->engine, "script");
  ASSERT_TRUE(events[1].line.has_value());
  EXPECT_EQ(events[1].line->translation, "感谢大家的到来");
  EXPECT_EQ(events[1].line->engine, "tm");
  EXPECT_FALSE(events[2].line.has_value());
  EXPECT_EQ(events[2].watermark, MediaTime::Seconds(5));
  EXPECT_EQ(harness->stage().failures(), 0);
  EXPECT_TRUE(out.ended());
}

TEST_F(TranslateStageTest, ACorrectionAppliesToTheNextLineDecided) {
  TranslationStack stack = MemoryStack(clock_);
  std::unique_ptr<LiveControl> control = LiveControl::InProcess();
  auto harness = Harness(stack, control.get());
  auto in = harness->Feed(harness->stage().in);
  auto out = harness->Collect(harness->stage().out);
  ASSERT_OK(harness->Open());
  in.Push(Decided(0, "welcome to the live room everyone", &kScript[0], MediaTime::Seconds(2)), MediaTime::Seconds(2));
  ASSERT_OK(harness->Step());
  // The operator fixes line 1 and teaches the memory an ad-lib; one command is a typo.
  ASSERT_OK(control->Submit("line 1 = 欢迎来到直播间", "test:1"));
  ASSERT_OK(control->Submit("tm see you tomorrow = 明天见", "test:2"));
  ASSERT_OK(control->Submit("line 9 = 没有这一行", "test:3"));
  in.Push(Decided(1, "welcome to the live room everyone", &kScript[0], MediaTime::Seconds(5)), MediaTime::Seconds(5));
  in.Push(Decided(2, "see you tomorrow", nullptr, MediaTime::Seconds(7)), MediaTime::Seconds(7));
  in.End();
  ASSERT_OK(harness->RunUntilFinished());

  const std::vector<HeardLine> lines = LinesOf(out.Values());
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].translation, "欢迎大家来到直播间") << "decided before the correction";
  EXPECT_EQ(lines[0].engine, "script");
  EXPECT_EQ(lines[1].translation, "欢迎来到直播间");
  EXPECT_EQ(lines[1].engine, "correction");
  EXPECT_EQ(lines[2].translation, "明天见");
  EXPECT_EQ(lines[2].engine, "tm");
  EXPECT_EQ(harness->stage().corrections_applied(), 2);
  EXPECT_EQ(harness->stage().corrections_rejected(), 1) << "line 9 is not a script line: counted, the show goes on";
}

TEST_F(TranslateStageTest, AFailingEngineIsCountedAndTheShowGoesOn) {
  std::vector<std::unique_ptr<Translator>> broken;
  broken.push_back(std::make_unique<BrokenTranslator>());
  TranslationStack stack = MemoryStack(clock_, std::move(broken));
  auto harness = Harness(stack);
  auto in = harness->Feed(harness->stage().in);
  auto out = harness->Collect(harness->stage().out);
  ASSERT_OK(harness->Open());
  // Not in the memory: the broken engine is asked, and fails.
  in.Push(Decided(0, "my cat jumped on the table", nullptr, MediaTime::Seconds(2)), MediaTime::Seconds(2));
  in.Push(Decided(1, "thank you all for coming", nullptr, MediaTime::Seconds(4)), MediaTime::Seconds(4));
  in.End();
  ASSERT_OK(harness->RunUntilFinished());

  const std::vector<HeardLine> lines = LinesOf(out.Values());
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_TRUE(lines[0].translation.empty()) << "subtitles only";
  EXPECT_EQ(lines[0].engine, "");
  EXPECT_EQ(lines[1].translation, "感谢大家的到来");
  EXPECT_EQ(lines[1].engine, "tm");
  EXPECT_EQ(harness->stage().failures(), 1);
  // Nothing fatal: one warning for the job to count and log.
  const std::vector<BusMessage> messages = harness->bus().Drain();
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(messages[0].kind, BusMessage::Kind::kWarning);
  EXPECT_EQ(messages[0].source, "translate");
  EXPECT_THAT(std::string(messages[0].status.message()), ::testing::HasSubstr("off-script line 0 left untranslated"));
}

}  // namespace
}  // namespace lingcast
