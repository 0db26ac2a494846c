// mt/speech_follower.h on espeak-ng speech: tested here rather than beside it
// because the voice is src/tts's, a module below mt (mt/follow_stage_test.cc
// hears the shared recordings instead).
#include "mt/speech_follower.h"

#include <unistd.h>

#include <optional>

#include "asr/pocketsphinx_engine.h"
#include "audio/resampler.h"
#include "core/status.h"
#include "core/status_matchers.h"
#include "gtest/gtest.h"
#include "tts/espeak_engine.h"

namespace lingcast {
namespace {

using Type = FollowEvent::Type;

// espeak-ng's en-gb voice at 16 kHz (pocketsphinx hears it better than en-us),
// half a second of silence first and a second after each sentence.
AudioBuffer Speak(const std::vector<std::string>& sentences) {
  EspeakOptions espeak;
  espeak.lexicon_path = std::string(LINGCAST_BINARY_DIR) + "/data/zh_lexicon.tsv";
  absl::StatusOr<std::unique_ptr<EspeakEngine>> engine = EspeakEngine::Create(espeak);
  EXPECT_OK(engine);
  AudioBuffer all{16000, 1, std::vector<float>(8000, 0.0f)};
  for (const std::string& sentence : sentences) {
    SynthesisRequest request;
    request.text = sentence;
    request.language = Language::kEn;
    request.voice = "en-gb";
    absl::StatusOr<SynthesisResult> speech = (*engine)->Synthesize(request);
    EXPECT_OK(speech);
    absl::StatusOr<Resampler> resampler = Resampler::Create(speech->audio.sample_rate, 16000);
    std::vector<float> converted;
    EXPECT_OK(resampler->Push(speech->audio.samples, converted));
    EXPECT_OK(resampler->Flush(converted));
    all.samples.insert(all.samples.end(), converted.begin(), converted.end());
    all.samples.resize(all.samples.size() + 16000, 0.0f);
  }
  return all;
}

std::vector<FollowEvent> Follow(SpeechFollower& follower, const AudioBuffer& audio) {
  std::vector<FollowEvent> events;
  for (size_t begin = 0; begin < audio.samples.size(); begin += 320) {
    AudioBuffer chunk{16000, 1, {}};
    chunk.samples.assign(audio.samples.begin() + static_cast<std::ptrdiff_t>(begin),
                         audio.samples.begin() + static_cast<std::ptrdiff_t>(std::min(audio.samples.size(), begin + 320)));
    absl::StatusOr<std::vector<FollowEvent>> got = follower.Push(chunk);
    EXPECT_OK(got);
    if (got.ok()) events.insert(events.end(), got->begin(), got->end());
  }
  absl::StatusOr<std::vector<FollowEvent>> rest = follower.Flush();
  EXPECT_OK(rest);
  if (rest.ok()) events.insert(events.end(), rest->begin(), rest->end());
  return events;
}

std::vector<FollowerLine> Lines() {
  return {{1, "Welcome to the live room everyone", "", "欢迎大家来到直播间"},
          {2, "Today we have a very special face cream for you", "", "今天给大家带来一款特别的面霜"},
          {3, "This dress comes in red and in black", "", "这条裙子有红色和黑色"},
          {4, "Click the link below to buy it now", "", "点击下方链接立即购买"}};
}

std::shared_ptr<PocketsphinxModel> ScriptModel(const std::vector<FollowerLine>& lines) {
  std::string script;
  for (const FollowerLine& line : lines) script += "en: " + line.source + " | zh: " + line.translation + "\n";
  // One file per process: ctest runs this suite's tests side by side, and a
  // shared path was read by one while another rewrote it (an empty script).
  const std::string path = ::testing::TempDir() + "/speech_follower." + std::to_string(::getpid()) + ".script";
  FILE* file = std::fopen(path.c_str(), "w");
  std::fputs(script.c_str(), file);
  std::fclose(file);
  absl::StatusOr<std::shared_ptr<PocketsphinxModel>> model = PocketsphinxModel::Load({.script_path = path});
  EXPECT_OK(model);
  return *model;
}

TEST(SpeechFollowerTest, CommitsAScriptLineBeforeTheHostFinishesIt) {
  const std::vector<FollowerLine> lines = Lines();
  auto model = ScriptModel(lines);
  absl::StatusOr<SpeechFollower> follower = SpeechFollower::Create(*model, lines, {});
  ASSERT_OK(follower);
  const std::vector<FollowEvent> events = Follow(*follower, Speak({lines[2].source}));

  const FollowEvent* decision = nullptr;
  const FollowEvent* end = nullptr;
  for (const FollowEvent& e : events) {
    if (e.type == Type::kDecision && decision == nullptr) decision = &e;
    if (e.type == Type::kUtteranceEnd) end = &e;
  }
  ASSERT_NE(decision, nullptr);
  ASSERT_NE(end, nullptr);
  EXPECT_EQ(decision->decision.line_number, 3);
  EXPECT_EQ(decision->decision.translation, "这条裙子有红色和黑色");
  EXPECT_FALSE(decision->decision.at_endpoint);
  // Known while the host is still speaking: before the speech ends, long before
  // the VAD decides the endpoint.
  EXPECT_LT(decision->decided_at, end->utterance_end);
  EXPECT_LT(decision->decided_at, end->decided_at);
  EXPECT_EQ(decision->utterance, end->utterance);
}

// Two lines that differ only in their last word can only be told apart at the
// endpoint. With decide_at_endpoint the streamed words decide there, before the
// final pass; the line decided is the same as when the final decides.
TEST(SpeechFollowerTest, ALineToldApartOnlyAtItsEndIsTheSameDecidedBeforeOrAfterTheFinalPass) {
  const std::vector<FollowerLine> lines = {{1, "This dress comes in red and in black", "", "这条裙子有红色和黑色"},
                                           {2, "This dress comes in red and in white", "", "这条裙子有红色和白色"}};
  auto model = ScriptModel(lines);
  const AudioBuffer audio = Speak({lines[0].source});
  for (const bool early : {true, false}) {
    SpeechFollowerOptions options;
    options.decide_at_endpoint = early;
    absl::StatusOr<SpeechFollower> follower = SpeechFollower::Create(*model, lines, options);
    ASSERT_OK(follower);
    std::vector<FollowEvent> events;
    // Through the sink: every event in order, as it is made.
    bool ended = false;
    auto sink = [&](FollowEvent event) {
      if (event.type == Type::kDecision) {
        EXPECT_FALSE(ended) << "decided before its utterance ends";
      }
      if (event.type == Type::kUtteranceEnd) ended = true;
      events.push_back(std::move(event));
      return absl::OkStatus();
    };
    ASSERT_OK(follower->Push(audio, sink));
    ASSERT_OK(follower->Flush(sink));
    std::vector<const FollowEvent*> decisions;
    for (const FollowEvent& e : events) {
      if (e.type == Type::kDecision) decisions.push_back(&e);
    }
    ASSERT_EQ(decisions.size(), 1u) << "decide_at_endpoint " << early;
    EXPECT_EQ(decisions[0]->decision.line_number, 1) << "decide_at_endpoint " << early;
    EXPECT_TRUE(decisions[0]->decision.at_endpoint) << "decide_at_endpoint " << early;
    EXPECT_TRUE(ended);
  }
}

// A line the recognizer mishears is found by the acoustic check. With
// check_on_pause the check runs on the pause before the endpoint and the line
// is decided at the endpoint with no check after it; without, the check runs
// after the final pass. Either way the same lines are decided.
TEST(SpeechFollowerTest, AMisheardLineIsCheckedOnThePauseBeforeItsEndpoint) {
  const std::vector<FollowerLine> lines = Lines();
  auto model = ScriptModel(lines);
  const AudioBuffer audio = Speak({lines[0].source, lines[1].source, lines[3].source});
  std::vector<std::vector<int>> decided;  // line numbers, per run
  for (const MediaTime pause : {MediaTime::Millis(150), MediaTime::Zero()}) {
    SpeechFollowerOptions options;
    options.check_on_pause = pause;
    absl::StatusOr<SpeechFollower> follower = SpeechFollower::Create(*model, lines, options);
    ASSERT_OK(follower);
    std::vector<int> numbers;
    int by_audio = 0;
    for (const FollowEvent& e : Follow(*follower, audio)) {
      if (e.type != Type::kDecision) continue;
      numbers.push_back(e.decision.line_number);
      by_audio += e.decision.acoustic_gap.has_value();
    }
    decided.push_back(numbers);
    std::printf("check_on_pause %s: %d by the audio, %d checks on pauses (%d used), %zu checks in all\n",
                pause.ToString().c_str(), by_audio, follower->checks_on_pause(), follower->checks_on_pause_used(),
                follower->acoustic_check_cpu_ms().size());
    ASSERT_GE(by_audio, 1) << "the test needs a misheard line";
    if (pause > MediaTime::Zero()) {
      // Every check ran on a pause, and each one that found a line was used.
      EXPECT_EQ(follower->acoustic_check_cpu_ms().size(), static_cast<size_t>(follower->checks_on_pause()));
      EXPECT_GE(follower->checks_on_pause_used(), by_audio);
    } else {
      EXPECT_EQ(follower->checks_on_pause(), 0);
    }
  }
  EXPECT_EQ(decided[0], decided[1]);
}

// With the recognizer's dither (off by default), six utterances into an
// espeak-ng show -- whose pauses are exact zeros -- "the price today is only
// ninety nine yuan" is committed from a partial, on its first words (the follow
// bench's development show; undithered it was heard as "the yuan" there, but
// that depends on the exact audio, which espeak-ng's process-wide state varies
// with the tests run before).
TEST(SpeechFollowerTest, WithDitherALineSixUtterancesIntoAnEspeakShowIsCommittedFromAPartial) {
  const std::vector<FollowerLine> lines = {
      {1, "Welcome to the live room everyone", "", "欢迎大家来到直播间"},
      {2, "Today we have a very special face cream for you", "", "今天给大家带来一款特别的面霜"},
      {3, "It keeps your skin soft for the whole day", "", "它能让你的皮肤一整天都保持柔软"},
      {4, "This dress comes in red and in black", "", "这条裙子有红色和黑色"},
      {5, "The price today is only ninety nine yuan", "", "今天只要九十九元"},
      {6, "Buy one and get the second one for half price", "", "第二件半价"},
      {7, "Click the link below to buy it now", "", "点击下方链接立即购买"},
      {8, "We only have two hundred left in stock", "", "库存只剩两百件了"},
      {9, "Shipping is free to every city", "", "全国包邮"},
      {10, "Do not forget to follow our channel", "", "别忘了关注我们的频道"}};
  const AudioBuffer audio = Speak({lines[0].source, lines[1].source, "Wow so many of you are here tonight",
                                   lines[2].source, lines[2].source, lines[3].source, lines[4].source});
  std::string script;
  for (const FollowerLine& line : lines) script += "en: " + line.source + " | zh: " + line.translation + "\n";
  const std::string path = ::testing::TempDir() + "/speech_follower_dither.script";
  FILE* file = std::fopen(path.c_str(), "w");
  std::fputs(script.c_str(), file);
  std::fclose(file);
  absl::StatusOr<std::shared_ptr<PocketsphinxModel>> model = PocketsphinxModel::Load({.script_path = path, .dither = true});
  ASSERT_OK(model);
  absl::StatusOr<SpeechFollower> follower = SpeechFollower::Create(**model, lines, {});
  ASSERT_OK(follower);
  std::optional<FollowDecision> price;  // the last utterance's decision
  for (const FollowEvent& e : Follow(*follower, audio)) {
    if (e.type == Type::kDecision && e.utterance == 6) price = e.decision;
  }
  ASSERT_TRUE(price.has_value());
  EXPECT_EQ(price->line_number, 5);
  EXPECT_FALSE(price->at_endpoint);
  ASSERT_TRUE(price->commit_point.has_value());
  EXPECT_LT(*price->commit_point, 0.5);
}

TEST(SpeechFollowerTest, WithoutAScriptEachUtteranceIsOneOffScriptDecisionAtItsEnd) {
  absl::StatusOr<std::shared_ptr<PocketsphinxModel>> model = PocketsphinxModel::Load({});
  ASSERT_OK(model);
  absl::StatusOr<SpeechFollower> follower = SpeechFollower::Create(**model, {}, {});
  ASSERT_OK(follower);
  EXPECT_FALSE(follower->has_script());
  const std::vector<FollowEvent> events = Follow(*follower, Speak({"Good morning", "Thank you very much"}));
  int decisions = 0, ends = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    const FollowEvent& e = events[i];
    if (e.type == Type::kDecision) {
      ++decisions;
      EXPECT_TRUE(e.decision.off_script);
      EXPECT_TRUE(e.decision.at_endpoint);
      EXPECT_FALSE(e.decision.heard.empty());
      // The decision comes right before its utterance's end.
      ASSERT_LT(i + 1, events.size());
      EXPECT_EQ(events[i + 1].type, Type::kUtteranceEnd);
      EXPECT_EQ(events[i + 1].utterance, e.utterance);
    }
    if (e.type == Type::kUtteranceEnd) ++ends;
  }
  EXPECT_EQ(ends, 2);
  EXPECT_EQ(decisions, 2);
}

// The live show's partial cadence follows this (app/live_options.h): a show
// that scores openings asks for partials more often.
TEST(SpeechFollowerTest, OpeningsAreScoredOnAScriptOfEightLinesOrMoreUnlessTurnedOff) {
  SpeechFollowerOptions options;
  EXPECT_FALSE(ScoresOpenings(options, 0));
  EXPECT_FALSE(ScoresOpenings(options, 7));
  EXPECT_TRUE(ScoresOpenings(options, 8));
  EXPECT_TRUE(ScoresOpenings(options, 500));
  options.score_openings = false;  // --no-opening-scores
  EXPECT_FALSE(ScoresOpenings(options, 500));
  options.score_openings = true;
  options.follower.opening_lines = 0;
  EXPECT_FALSE(ScoresOpenings(options, 500));
}

}  // namespace
}  // namespace lingcast
