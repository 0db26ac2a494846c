// Unit tests of the live stages and report (live_job_test.cc runs the whole job).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "absl/strings/match.h"
#include "app/live_hearing.h"
#include "app/live_options.h"
#include "app/live_report.h"
#include "app/live_voice.h"
#include "core/scratch_dir.h"
#include "core/status.h"
#include "graph/harness.h"
#include "mt/loopback_http_server.h"
#include "mt/match_text.h"
#include "nlohmann/json.hpp"
#include "tts/test_engine.h"

namespace lingcast {
namespace {

using ::testing::HasSubstr;
using testing_util::ScratchDir;

LiveOptions Valid() {
  LiveOptions options;
  options.input = "host.wav";
  options.outputs = {"out.mp4"};
  return options;
}

TEST(LiveOptionsTest, DefaultsWithAnInputAndAnOutputAreValid) { EXPECT_TRUE(ValidateLiveOptions(Valid()).ok()); }

TEST(LiveOptionsTest, AMandarinHostNeedsWhisper) {
  LiveOptions options = Valid();
  options.source = Language::kZh;
  options.target = Language::kEn;
  options.asr_engine = "whisper";
  options.asr_model_dir = "models/whisper-small";
  EXPECT_TRUE(ValidateLiveOptions(options).ok());
}

TEST(LiveOptionsTest, BadValuesNameTheFlag) {
  struct Case {
    std::function<void(LiveOptions&)> change;
    std::string message;
  };
  const std::vector<Case> cases = {
      {[](LiveOptions& o) { o.input.clear(); }, "no input"},
      {[](LiveOptions& o) { o.outputs.clear(); }, "no output"},
      {[](LiveOptions& o) { o.target = Language::kEn; }, "both en"},
      {[](LiveOptions& o) {
         o.source = Language::kZh;
         o.target = Language::kEn;
       },
       "--source zh: pocketsphinx hears only English"},
      {[](LiveOptions& o) { o.asr_engine = "whispr"; }, "unknown --asr \"whispr\""},
      {[](LiveOptions& o) { o.asr_engine = "whisper"; }, "--asr whisper: "},
      {[](LiveOptions& o) {
         o.asr_engine = "pocketsphinx";
         o.asr_model_dir = "models/whisper-small";
       },
       "give it with --asr whisper"},
      {[](LiveOptions& o) { o.engines = {"tm", "marian"}; }, "give --marian-model DIR"},
      {[](LiveOptions& o) { o.marian_model_dir = "models/opus-mt-en-zh"; }, "add marian to --engine"},
      {[](LiveOptions& o) { o.tts_engine = "festival"; }, "unknown --tts \"festival\" (use auto, espeak or vits)"},
      {[](LiveOptions& o) { o.tts_engine = "vits"; }, "give --tts-model DIR"},
      {[](LiveOptions& o) { o.tts_model_dir = "models/mms-tts-eng"; }, "give it with --tts vits"},
      {[](LiveOptions& o) {
         o.tts_engine = "vits";
         o.tts_model_dir = "models/mms-tts-eng";
         o.voice_en = "en-gb";
       },
       "a vits checkpoint has one voice"},
      {[](LiveOptions& o) {
         o.tts_engine = "espeak";
         o.neural.device = "cuda";
       },
       "--device and --dtype place the neural engines"},
      {[](LiveOptions& o) {
         o.tts_engine = "espeak";
         o.neural.dtype = "bfloat16";
       },
       "use them with --asr whisper"},
      {[](LiveOptions& o) { o.fps = 0; }, "--fps"},
      {[](LiveOptions& o) { o.max_lag = MediaTime::Millis(100); }, "--max-lag"},
      {[](LiveOptions& o) { o.max_speedup = 3; }, "--max-speedup"},
      {[](LiveOptions& o) { o.rate = 5; }, "--rate"},
  };
  // No Whisper installed (the auto recognizer falls back to pocketsphinx).
  const char* old_models = std::getenv("LINGCAST_MODELS");
  const std::string kept_models = old_models != nullptr ? old_models : "";
  setenv("LINGCAST_MODELS", "none", 1);
  for (const Case& c : cases) {
    LiveOptions options = Valid();
    c.change(options);
    const absl::Status status = ValidateLiveOptions(options);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << c.message;
    EXPECT_THAT(std::string(status.message()), HasSubstr(c.message));
  }
  if (old_models != nullptr) {
    setenv("LINGCAST_MODELS", kept_models.c_str(), 1);
  } else {
    unsetenv("LINGCAST_MODELS");
  }
  EXPECT_THAT(std::string(ParseLagPolicy("faster").status().message()), HasSubstr("speedup, shorten or skip"));
  EXPECT_THAT(std::string(ParseLiveClock("wall").status().message()), HasSubstr("realtime or simulated"));
}

TEST(LiveOptionsTest, ZhScriptIsSimplifiedOrTraditional) {
  LiveOptions options = Valid();
  EXPECT_EQ(options.zh_script, "simplified");
  options.zh_script = "traditional";
  EXPECT_TRUE(ValidateLiveOptions(options).ok());
  options.zh_script = "cursive";
  const absl::Status status = ValidateLiveOptions(options);
  EXPECT_EQ(ExitCodeFor(status), 2) << status;
  EXPECT_EQ(status.message(), "unknown --zh-script \"cursive\" (use simplified or traditional)");
}

TEST(LiveVoiceTest, SpeedUpGrowsFromHalfTheMaximumLag) {
  LiveVoiceOptions options;
  options.max_lag = MediaTime::Seconds(4);
  options.max_speedup = 1.5;
  EXPECT_DOUBLE_EQ(LiveVoice::SpeedUpRate(MediaTime::Seconds(1), options), 1.0);
  EXPECT_DOUBLE_EQ(LiveVoice::SpeedUpRate(MediaTime::Seconds(2), options), 1.0);
  EXPECT_DOUBLE_EQ(LiveVoice::SpeedUpRate(MediaTime::Seconds(3), options), 1.25);
  EXPECT_DOUBLE_EQ(LiveVoice::SpeedUpRate(MediaTime::Seconds(4), options), 1.5);
  EXPECT_DOUBLE_EQ(LiveVoice::SpeedUpRate(MediaTime::Seconds(9), options), 1.5);
  options.policy = LagPolicy::kSkip;
  EXPECT_DOUBLE_EQ(LiveVoice::SpeedUpRate(MediaTime::Seconds(4), options), 1.0);
}

TEST(LiveVoiceTest, PaceRateEndsTheLineNearTheHostWithinTheSpeedUpCap) {
  LiveVoiceOptions options;
  options.max_speedup = 1.5;
  options.pace_slack = MediaTime::Millis(800);
  const MediaTime start = MediaTime::Seconds(10);
  // 2 s of speech and 2.8 s to the host's end plus slack: the normal rate.
  EXPECT_DOUBLE_EQ(LiveVoice::PaceRate(start, 2.0, MediaTime::Seconds(12), options), 1.0);
  // 3 s of speech in 2.5 s: 1.2 times as fast.
  EXPECT_DOUBLE_EQ(LiveVoice::PaceRate(start, 3.0, MediaTime::Millis(11700), options), 1.2);
  // Far behind (or the host already done): the cap, never more.
  EXPECT_DOUBLE_EQ(LiveVoice::PaceRate(start, 6.0, MediaTime::Seconds(11), options), 1.5);
  EXPECT_DOUBLE_EQ(LiveVoice::PaceRate(start, 3.0, MediaTime::Seconds(8), options), 1.5);
  // Only the speedup policy keeps pace, and only when asked to.
  options.keep_pace = false;
  EXPECT_DOUBLE_EQ(LiveVoice::PaceRate(start, 6.0, MediaTime::Seconds(11), options), 1.0);
  options.keep_pace = true;
  options.policy = LagPolicy::kShorten;
  EXPECT_DOUBLE_EQ(LiveVoice::PaceRate(start, 6.0, MediaTime::Seconds(11), options), 1.0);
}

TEST(LiveVoiceTest, TheHostsEndIsExpectedFromTheCommitPoint) {
  HeardLine line;
  line.utterance_start = MediaTime::Seconds(20);
  line.decided_at = MediaTime::Seconds(21);
  EXPECT_FALSE(LiveVoice::ExpectedHostEnd(line));  // off script
  line.line_number = 3;
  line.commit_point = 0.25;  // a quarter heard in 1 s: 4 s in all
  EXPECT_EQ(LiveVoice::ExpectedHostEnd(line), MediaTime::Seconds(24));
  line.at_endpoint = true;  // the host has ended the line
  EXPECT_EQ(LiveVoice::ExpectedHostEnd(line), MediaTime::Seconds(21));
  line.at_endpoint = false;
  line.commit_point = 0.01;  // too little heard to tell
  EXPECT_FALSE(LiveVoice::ExpectedHostEnd(line));
}

// A script line committed early in a long host line: spoken at the normal rate;
// the same line committed late (the host almost done): faster, within the cap.
TEST(LiveVoiceTest, AScriptLineKeepsTheHostsPace) {
  auto speak = [](double commit_point) {
    LiveVoiceOptions options;
    StageHarness<LiveVoice> harness(std::make_unique<LiveVoice>(TestEspeakEngine(), options));
    auto feed = harness.Feed(harness.stage().in);
    auto sink = harness.Collect(harness.stage().out);
    EXPECT_TRUE(harness.Open().ok());
    LiveEvent event;
    HeardLine line;
    line.line_number = 1;
    line.translation = "这条裙子有红色和黑色两种颜色";
    line.utterance_start = MediaTime::Seconds(10);
    line.decided_at = MediaTime::Seconds(11);
    line.commit_point = commit_point;
    event.line = line;
    event.watermark = line.decided_at;
    feed.Push(std::move(event), line.decided_at);
    feed.End();
    EXPECT_TRUE(harness.RunUntilFinished().ok());
    const std::vector<VoiceEvent> out = sink.Values();
    EXPECT_EQ(out.size(), 1u);
    return out.empty() || !out[0].spoken ? 0.0 : out[0].spoken->rate;
  };
  EXPECT_DOUBLE_EQ(speak(0.2), 1.0);  // the host has 4 s more to go
  const double late = speak(0.9);     // ~0.1 s more
  EXPECT_GT(late, 1.2);
  EXPECT_LE(late, 1.5);
}

// Ten lines decided within half a second: far more speech than fits.
std::vector<VoiceEvent> Burst(LagPolicy policy) {
  LiveVoiceOptions options;
  options.policy = policy;
  options.max_lag = MediaTime::Seconds(4);
  StageHarness<LiveVoice> harness(std::make_unique<LiveVoice>(TestEspeakEngine(), options));
  auto feed = harness.Feed(harness.stage().in);
  auto sink = harness.Collect(harness.stage().out);
  EXPECT_TRUE(harness.Open().ok());
  for (int i = 0; i < 10; ++i) {
    LiveEvent event;
    HeardLine line;
    line.id = i;
    line.translation = "点击下方链接立即购买";
    line.decided_at = MediaTime::Millis(1000 + 50 * i);
    event.line = line;
    event.watermark = line.decided_at;
    feed.Push(std::move(event), line.decided_at);
  }
  feed.End();
  EXPECT_TRUE(harness.RunUntilFinished().ok());
  return sink.Values();
}

TEST(LiveVoiceTest, ABurstOfLinesNeverPlansMoreThanTheMaximumLag) {
  for (LagPolicy policy : {LagPolicy::kSpeedUp, LagPolicy::kShorten, LagPolicy::kSkip}) {
    const std::vector<VoiceEvent> events = Burst(policy);
    ASSERT_EQ(events.size(), 10u);
    int spoken = 0, skipped = 0;
    MediaTime previous_end;
    for (const VoiceEvent& e : events) {
      ASSERT_TRUE(e.spoken.has_value());
      const SpokenLine& s = *e.spoken;
      if (s.skipped) {
        ++skipped;
        EXPECT_TRUE(s.pcm.samples.empty());
        continue;
      }
      ++spoken;
      EXPECT_FALSE(s.pcm.samples.empty());
      EXPECT_LE(s.planned_start - s.line.decided_at, MediaTime::Seconds(4)) << LagPolicyName(policy);
      EXPECT_GE(s.planned_start, previous_end) << "lines are said in order, one at a time";
      previous_end = s.planned_start + s.pcm.duration();
    }
    EXPECT_GE(spoken, 2) << LagPolicyName(policy);
    EXPECT_GE(skipped, 1) << LagPolicyName(policy);
  }
}

TEST(LiveVoiceTest, SpeedUpSpeaksFasterAndSaysNoLessOfABurstThanSkippingAlone) {
  auto count_spoken = [](const std::vector<VoiceEvent>& events) {
    int spoken = 0;
    for (const VoiceEvent& e : events) spoken += e.spoken && !e.spoken->skipped ? 1 : 0;
    return spoken;
  };
  const std::vector<VoiceEvent> fast = Burst(LagPolicy::kSpeedUp);
  EXPECT_GE(count_spoken(fast), count_spoken(Burst(LagPolicy::kSkip)));
  bool faster = false;
  for (const VoiceEvent& e : fast) faster |= e.spoken && e.spoken->rate > 1.0;
  EXPECT_TRUE(faster);
}

TEST(LiveVoiceTest, ALineWithoutTranslationIsPassedOnSilent) {
  StageHarness<LiveVoice> harness(std::make_unique<LiveVoice>(TestEspeakEngine(), LiveVoiceOptions{}));
  auto feed = harness.Feed(harness.stage().in);
  auto sink = harness.Collect(harness.stage().out);
  ASSERT_TRUE(harness.Open().ok());
  LiveEvent event;
  event.line = HeardLine{};
  event.line->source_text = "an ad-lib nobody translated";
  feed.Push(std::move(event), MediaTime::Zero());
  feed.End();
  ASSERT_TRUE(harness.RunUntilFinished().ok());
  const std::vector<VoiceEvent> out = sink.Values();
  ASSERT_EQ(out.size(), 1u);
  ASSERT_TRUE(out[0].spoken.has_value());
  EXPECT_TRUE(out[0].spoken->pcm.samples.empty());
  EXPECT_FALSE(out[0].spoken->skipped);
}

// --- LiveTranslate: provisional captions of ad-libs ----------------------------

// What an ad-lib's partial hypotheses look like as the recognizer hears it grow.
const std::vector<std::string> kAdLib = {"good",
                                         "good morning",
                                         "good morning my",
                                         "good morning my friends",
                                         "good morning my friends it",
                                         "good morning my friends it is a",
                                         "good morning my friends it is a lovely",
                                         "good morning my friends it is a lovely day"};
constexpr char kAdLibTranslation[] = "早上好我的朋友们，今天天气真好";

// A memory of what the host might say off script (a small TSV, English -> Chinese).
TranslationStack MemoryStack(const ScratchDir& dir, Clock& clock) {
  const std::string path = dir.File("adlibs.tsv");
  std::ofstream(path) << "good morning\t早上好\n"
                         "good morning my friends\t早上好我的朋友们\n"
                      << "good morning my friends it is a lovely day\t" << kAdLibTranslation << "\n"
                      << "click the link below\t点击下面的链接\n";
  TranslationOptions options;
  options.from = Language::kEn;
  options.to = Language::kZh;
  options.memory_paths = {path};
  Logger logger(LogLevel::kError);
  absl::StatusOr<TranslationStack> stack = BuildTranslationStack(options, clock, logger);
  EXPECT_TRUE(stack.ok()) << stack.status();
  return *std::move(stack);
}

LiveEvent Partial(int64_t utterance, const std::string& text, MediaTime at) {
  LiveEvent event;
  event.partial = HeardPartial{utterance, text, MediaTime::Millis(500), at};
  event.watermark = at;
  return event;
}

// The off-script decision LiveHear sends at the endpoint, and the utterance's end.
std::vector<LiveEvent> Endpoint(int64_t utterance, const std::string& heard, MediaTime at,
                                std::optional<int> line_number = std::nullopt, std::string translation = "") {
  LiveEvent decided;
  decided.line = HeardLine{};
  decided.line->id = utterance;
  decided.line->utterance = utterance;
  decided.line->line_number = line_number;
  decided.line->source_text = heard;
  decided.line->heard = heard;
  decided.line->translation = std::move(translation);
  decided.line->engine = decided.line->translation.empty() ? "" : "script";
  decided.line->decided_at = at;
  decided.watermark = at;
  LiveEvent ended;
  ended.ended = UtteranceEnded{utterance, MediaTime::Millis(500), at, heard};
  ended.watermark = at;
  return {decided, ended};
}

struct TranslateRun {
  std::vector<ProvisionalCaption> captions;
  std::vector<HeardLine> lines;
  int64_t failures = 0, dropped = 0;
};

// Feeds `events` to a LiveTranslate, all queued before it runs.
TranslateRun RunTranslate(TranslationStack& stack, std::vector<FollowerLine> script, ProvisionalOptions provisional,
                          const std::vector<LiveEvent>& events) {
  Logger logger(LogLevel::kError);
  StageHarness<LiveTranslate> harness(std::make_unique<LiveTranslate>(stack, Language::kEn, Language::kZh,
                                                                      std::move(script), nullptr, logger, provisional));
  auto feed = harness.Feed(harness.stage().in);
  auto sink = harness.Collect(harness.stage().out);
  EXPECT_TRUE(harness.Open().ok());
  for (const LiveEvent& event : events) feed.Push(event, event.watermark);
  feed.End();
  const absl::Status finished = harness.RunUntilFinished();
  EXPECT_TRUE(finished.ok()) << finished;
  TranslateRun run;
  MediaTime watermark = MediaTime::Micros(-1);
  for (const LiveEvent& event : sink.Values()) {
    EXPECT_GE(event.watermark, watermark) << "watermarks never go back";
    watermark = event.watermark;
    EXPECT_FALSE(event.partial.has_value()) << "partials stop at the translate stage";
    if (event.caption) run.captions.push_back(*event.caption);
    if (event.line) run.lines.push_back(*event.line);
  }
  run.failures = harness.stage().provisional_failures();
  run.dropped = harness.stage().provisional_dropped();
  return run;
}

ProvisionalOptions EveryPartial() {
  ProvisionalOptions provisional;
  provisional.enabled = true;
  provisional.newest_only = false;  // as on the simulated clock
  return provisional;
}

std::vector<LiveEvent> AdLibEvents(int64_t utterance, MediaTime start) {
  std::vector<LiveEvent> events;
  for (size_t i = 0; i < kAdLib.size(); ++i) {
    events.push_back(Partial(utterance, kAdLib[i], start + MediaTime::Millis(250 * static_cast<int64_t>(i + 1))));
  }
  for (LiveEvent& e : Endpoint(utterance, kAdLib.back(), start + MediaTime::Millis(3000))) events.push_back(e);
  return events;
}

TEST(LiveTranslateTest, AnAdLibShowsCaptionsWhoseStableTextOnlyGrowsAndEndsWithTheFinalTranslation) {
  ScratchDir dir;
  SimulatedClock clock;
  TranslationStack stack = MemoryStack(dir, clock);
  const TranslateRun run = RunTranslate(stack, {}, EveryPartial(), AdLibEvents(0, MediaTime::Zero()));
  ASSERT_GE(run.captions.size(), 2u);
  std::string stable;
  for (size_t i = 0; i < run.captions.size(); ++i) {
    const ProvisionalCaption& caption = run.captions[i];
    EXPECT_EQ(caption.update, static_cast<int>(i + 1));
    EXPECT_TRUE(absl::StartsWith(caption.stable, stable)) << "\"" << caption.stable << "\" took back \"" << stable << "\"";
    stable = caption.stable;
    EXPECT_FALSE(caption.stable.empty() && caption.provisional.empty());
    EXPECT_TRUE(absl::StartsWith(kAdLib.back(), caption.source));
  }
  EXPECT_FALSE(run.captions.front().provisional.empty()) << "the first translation is not stable yet";
  EXPECT_GT(run.captions.back().stable.size(), run.captions.front().stable.size());
  ASSERT_EQ(run.lines.size(), 1u);
  const HeardLine& line = run.lines[0];
  EXPECT_EQ(line.translation, kAdLibTranslation);
  EXPECT_EQ(line.engine, "tm");
  EXPECT_TRUE(absl::StartsWith(line.translation, stable));
  EXPECT_FALSE(line.revised);
  EXPECT_EQ(line.provisional_updates, static_cast<int>(run.captions.size()));
  EXPECT_EQ(run.failures, 0);
}

TEST(LiveTranslateTest, AScriptedLineGetsNoCaptionAndKeepsItsPreparedTranslation) {
  ScratchDir dir;
  SimulatedClock clock;
  TranslationStack stack = MemoryStack(dir, clock);
  const std::vector<FollowerLine> script = {{4, "Click the link below to buy it now", "", "点击下方链接立即购买"}};
  // The memory would translate "click the link below" if asked (its own pair):
  // being on the script must keep it from being asked.
  std::vector<LiveEvent> events;
  const std::vector<std::string> said = {"click the", "click the link", "click the link below",
                                         "click the link below to"};
  for (size_t i = 0; i < said.size(); ++i) {
    events.push_back(Partial(0, said[i], MediaTime::Millis(750 + 250 * static_cast<int64_t>(i))));
  }
  for (LiveEvent& e : Endpoint(0, said.back(), MediaTime::Millis(1800), 4, "点击下方链接立即购买")) {
    events.push_back(std::move(e));
  }
  // Then an ad-lib in the same show: off script, so it is captioned.
  for (LiveEvent& e : AdLibEvents(1, MediaTime::Seconds(3))) events.push_back(std::move(e));
  const TranslateRun run = RunTranslate(stack, script, EveryPartial(), events);
  ASSERT_EQ(run.lines.size(), 2u);
  EXPECT_EQ(run.lines[0].translation, "点击下方链接立即购买");
  EXPECT_EQ(run.lines[0].engine, "script");
  EXPECT_EQ(run.lines[0].provisional_updates, 0);
  ASSERT_FALSE(run.captions.empty());
  for (const ProvisionalCaption& caption : run.captions) EXPECT_EQ(caption.utterance, 1) << caption.source;
  EXPECT_EQ(run.lines[1].translation, kAdLibTranslation);
  EXPECT_EQ(run.lines[1].provisional_updates, static_cast<int>(run.captions.size()));
}

TEST(LiveTranslateTest, TheRecognizersOwnTranslationIsSaidOnlyWhenNoTranslatorAnswers) {
  ScratchDir dir;
  SimulatedClock clock;
  TranslationStack stack = MemoryStack(dir, clock);
  std::vector<LiveEvent> events = Endpoint(0, "good morning", MediaTime::Millis(1500));
  events[0].line->speech_translation = "what whisper said";  // the memory has the line: it stays in front
  for (LiveEvent& e : Endpoint(1, "the parcel ships from our own warehouse", MediaTime::Millis(4000))) {
    events.push_back(std::move(e));
  }
  events[2].line->speech_translation = "包裹从我们自己的仓库发货";
  for (LiveEvent& e : Endpoint(2, "nothing anyone translates", MediaTime::Millis(6000))) events.push_back(std::move(e));
  ProvisionalOptions off;
  off.enabled = false;
  const TranslateRun run = RunTranslate(stack, {}, off, events);
  ASSERT_EQ(run.lines.size(), 3u);
  EXPECT_EQ(run.lines[0].translation, "早上好");
  EXPECT_EQ(run.lines[0].engine, "tm");
  EXPECT_EQ(run.lines[1].translation, "包裹从我们自己的仓库发货");
  EXPECT_EQ(run.lines[1].engine, "whisper");
  EXPECT_TRUE(run.lines[2].translation.empty());  // neither: subtitles only
  EXPECT_EQ(run.lines[2].engine, "");
}

TEST(LiveTranslateTest, OnlyTheNewestQueuedPartialIsTranslatedAndTheFinalDropsStaleOnes) {
  ScratchDir dir;
  SimulatedClock clock;
  TranslationStack stack = MemoryStack(dir, clock);
  ProvisionalOptions realtime = EveryPartial();
  realtime.newest_only = true;
  // Everything already queued (a slow translate stage): the utterance's line
  // needs no caption at all, and gets its translation.
  TranslateRun run = RunTranslate(stack, {}, realtime, AdLibEvents(0, MediaTime::Zero()));
  EXPECT_TRUE(run.captions.empty());
  EXPECT_EQ(run.dropped, static_cast<int64_t>(kAdLib.size()));
  ASSERT_EQ(run.lines.size(), 1u);
  EXPECT_EQ(run.lines[0].translation, kAdLibTranslation);
  // Partials queued without their line: only the newest is translated.
  std::vector<LiveEvent> partials;
  for (size_t i = 0; i < kAdLib.size(); ++i) partials.push_back(Partial(0, kAdLib[i], MediaTime::Millis(250 * static_cast<int64_t>(i + 1))));
  run = RunTranslate(stack, {}, realtime, partials);
  ASSERT_EQ(run.captions.size(), 1u);
  EXPECT_EQ(run.captions[0].source, kAdLib.back());
  EXPECT_EQ(run.captions[0].provisional, kAdLibTranslation);
  EXPECT_EQ(run.dropped, static_cast<int64_t>(kAdLib.size()) - 1);
}

// An LLM server on loopback that fails some requests: a real engine failing.
struct FlakyServer {
  std::unique_ptr<LoopbackHttpServer> server;
  TranslationStack stack;

  FlakyServer(Clock& clock, LoopbackHttpServer::Handler handler) {
    absl::StatusOr<std::unique_ptr<LoopbackHttpServer>> started = LoopbackHttpServer::Start(std::move(handler));
    EXPECT_TRUE(started.ok()) << started.status();
    server = *std::move(started);
    TranslationOptions options;
    options.from = Language::kEn;
    options.to = Language::kZh;
    options.engines = {"llm"};
    options.llm.endpoint = server->url();
    options.llm.max_attempts = 1;
    Logger logger(LogLevel::kError);
    absl::StatusOr<TranslationStack> built = BuildTranslationStack(options, clock, logger);
    EXPECT_TRUE(built.ok()) << built.status();
    stack = *std::move(built);
  }
};

LoopbackHttpServer::Reply Answer(const std::string& text) {
  LoopbackHttpServer::Reply reply;
  reply.content_type = "text/event-stream";
  reply.chunks = {"data: " + nlohmann::json{{"choices", {{{"delta", {{"content", text}}}}}}}.dump() + "\n\n",
                  "data: [DONE]\n\n"};
  return reply;
}

TEST(LiveTranslateTest, AnEngineFailingDuringCaptionsIsCountedAndTheFinalIsStillTranslated) {
  SimulatedClock clock(MediaTime::Zero(), SimulatedClock::Mode::kAutoAdvance);
  // The server fails the first two requests (the first captions), then answers.
  FlakyServer llm(clock, [](const LoopbackHttpServer::Request& request) {
    if (request.index < 2) {
      LoopbackHttpServer::Reply failed;
      failed.status = 503;
      failed.chunks = {R"({"error":{"message":"overloaded"}})"};
      return failed;
    }
    return Answer(kAdLibTranslation);
  });
  const TranslateRun run = RunTranslate(llm.stack, {}, EveryPartial(), AdLibEvents(0, MediaTime::Zero()));
  EXPECT_EQ(run.failures, 2);
  EXPECT_FALSE(run.captions.empty()) << "captions resume once the engine answers";
  ASSERT_EQ(run.lines.size(), 1u);
  EXPECT_EQ(run.lines[0].translation, kAdLibTranslation);
  EXPECT_EQ(run.lines[0].engine, "llm");
}

TEST(LiveTranslateTest, ALineSentWhileACaptionIsTranslatedStopsThatEngineCall) {
  SimulatedClock clock(MediaTime::Zero(), SimulatedClock::Mode::kAutoAdvance);
  ProvisionalInterrupt interrupt;
  // The caption's request never gets an answer; while it is in flight the hear
  // thread sends the line (here: the server's thread, when the request arrives).
  FlakyServer llm(clock, [&interrupt](const LoopbackHttpServer::Request& request) {
    if (request.index == 0) {
      interrupt.Urgent();
      LoopbackHttpServer::Reply hang;
      hang.kind = LoopbackHttpServer::Reply::Kind::kHang;
      return hang;
    }
    return Answer(kAdLibTranslation);
  });
  ProvisionalOptions realtime = EveryPartial();
  realtime.newest_only = true;
  realtime.interrupt = &interrupt;
  Logger logger(LogLevel::kError);
  StageHarness<LiveTranslate> harness(
      std::make_unique<LiveTranslate>(llm.stack, Language::kEn, Language::kZh, std::vector<FollowerLine>{}, nullptr,
                                      logger, realtime));
  auto feed = harness.Feed(harness.stage().in);
  auto sink = harness.Collect(harness.stage().out);
  ASSERT_TRUE(harness.Open().ok());
  feed.Push(Partial(0, "good morning my friends", MediaTime::Millis(1000)), MediaTime::Millis(1000));
  ASSERT_TRUE(harness.Step().ok());  // the caption's engine call, stopped
  EXPECT_EQ(interrupt.interrupted(), 1);
  for (LiveEvent& e : Endpoint(0, kAdLib.back(), MediaTime::Millis(3000))) feed.Push(std::move(e), MediaTime::Millis(3000));
  feed.End();
  ASSERT_TRUE(harness.RunUntilFinished().ok());
  std::vector<HeardLine> lines;
  for (const LiveEvent& e : sink.Values()) {
    EXPECT_FALSE(e.caption.has_value());
    if (e.line) lines.push_back(*e.line);
  }
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].translation, kAdLibTranslation);
  EXPECT_EQ(harness.stage().provisional_failures(), 0) << "a stopped call is not a failure";
  // Once the hear thread has sent something urgent the translate stage has not
  // taken yet, no caption starts.
  TranslationSession session = *TranslationSession::Create(*llm.stack.chain, {});
  interrupt.Urgent();
  EXPECT_FALSE(interrupt.Begin(session, 1));
  EXPECT_TRUE(interrupt.Begin(session, 2));
  interrupt.End();
  EXPECT_FALSE(session.cancelled());
}

TEST(LiveTranslateTest, SpeechIsOffScriptOnceItMatchesNoStretchOfAnyLine) {
  ProvisionalOptions options;
  const std::vector<std::vector<std::string>> script = {MatchTokens("Click the link below to buy it now"),
                                                        MatchTokens("Do not forget to follow our channel")};
  EXPECT_TRUE(LiveTranslate::MayBeScripted("good morning", script, options)) << "too few words to tell";
  EXPECT_TRUE(LiveTranslate::MayBeScripted("click the link below", script, options));
  EXPECT_TRUE(LiveTranslate::MayBeScripted("the link below to by it", script, options)) << "mid-line, one misheard";
  EXPECT_TRUE(LiveTranslate::MayBeScripted("forget to follow our", script, options));
  EXPECT_FALSE(LiveTranslate::MayBeScripted("good morning my friends", script, options));
  EXPECT_FALSE(LiveTranslate::MayBeScripted("my cat jumped on the table", script, options));
  EXPECT_FALSE(LiveTranslate::MayBeScripted("good morning", {}, options)) << "no script: everything is off script";
}

TEST(LiveReportTest, PercentilesAreNearestRank) {
  std::vector<double> values;
  for (int i = 100; i >= 1; --i) values.push_back(i);
  const Percentiles p = ComputePercentiles(values);
  EXPECT_EQ(p.count, 100);
  EXPECT_EQ(p.p50, 50);
  EXPECT_EQ(p.p95, 95);
  EXPECT_EQ(p.p99, 99);
  EXPECT_EQ(ComputePercentiles({}).p95, 0);
  EXPECT_EQ(ComputePercentiles({7}).p99, 7);
}

TEST(LiveReportTest, OffsetsComeFromTheHostAndOutputTimes) {
  LiveMonitor monitor;
  SpokenLine spoken;
  spoken.line.id = 0;
  spoken.line.utterance = 3;
  spoken.line.line_number = 12;
  spoken.line.source_text = "Click the link below";
  spoken.line.translation = "点击下方链接";
  spoken.line.utterance_start = MediaTime::Millis(1000);
  spoken.line.commit_point = 0.4;
  monitor.LineQueued(spoken);
  monitor.SpeechStarted(0, MediaTime::Millis(2100), MediaTime::Millis(35), MediaTime::Millis(400));
  monitor.UtteranceEnd(UtteranceEnded{3, MediaTime::Millis(1000), MediaTime::Millis(2600), "click the link below"});
  monitor.SpeechEnded(0, MediaTime::Millis(3900));
  const nlohmann::json report = monitor.Report({}, {{"peak_rss_mb", 12.5}});
  ASSERT_EQ(report["utterances"].size(), 1u);
  const nlohmann::json& u = report["utterances"][0];
  EXPECT_EQ(u["line"], 12);
  EXPECT_EQ(u["start_offset_ms"], 1100.0);
  EXPECT_EQ(u["end_offset_ms"], 1300.0);
  EXPECT_EQ(u["compute_latency_ms"], 35.0);
  EXPECT_EQ(u["queue_wait_ms"], 400.0);
  const nlohmann::json& s = report["summary"];
  EXPECT_EQ(s["compute_latency_ms"]["p50"], 35.0);
  EXPECT_EQ(s["queue_wait_ms"]["p50"], 400.0);
  EXPECT_EQ(s["end_offset_ms"]["p95"], 1300.0);
  EXPECT_EQ(s["commit_point"]["p50"], 0.4);
  EXPECT_EQ(s["peak_rss_mb"], 12.5);
  EXPECT_EQ(s["audio_drops"], 0);
}

}  // namespace
}  // namespace lingcast
