// Unit tests of the live options, and of the translate stage with the engines
// the live job builds (BuildTranslationStack: a memory from a file, an LLM
// client). live_job_test.cc runs the whole job; mt/follow_stage_test.cc,
// mt/translate_stage_test.cc, tts/voice_stage_test.cc, output/playout_stage_test.cc
// and output/live_report_test.cc test the stages alone and the report.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "absl/strings/match.h"
#include "app/live_options.h"
#include "app/live_watchdog.h"
#include "app/translation_setup.h"
#include "core/scratch_dir.h"
#include "core/status.h"
#include "core/status_matchers.h"
#include "graph/harness.h"
#include "mt/loopback_http_server.h"
#include "mt/match_text.h"
#include "mt/translate_stage.h"
#include "nlohmann/json.hpp"
#include "tts/test_engine.h"

namespace lingcast {
namespace {

using ::testing::HasSubstr;
using testing_util::ScratchDir;

LiveOptions Valid() {
  LiveOptions options;
  options.input.path = "host.wav";
  options.outputs.destinations = {"out.mp4"};
  return options;
}

// The watchdog sees every output frame and reads the pressure once a second
// of output: the frames between two looks read nothing.
TEST(LiveWatchdogTest, LooksOnceASecondOfOutput) {
  absl::StatusOr<DegradationLadder> ladder = DegradationLadder::Create(PressureLimits{});
  ASSERT_OK(ladder);
  std::vector<MediaTime> looks;
  Logger logger(LogLevel::kOff);
  LiveMonitor monitor;
  LiveWatchdog watchdog(*std::move(ladder), {}, [&](const LiveCounters& counters) {
    looks.push_back(counters.output_time);
    return PressureReading{};
  }, logger, monitor);
  for (int64_t frame = 0; frame < 90; ++frame) {  // 3 s at 30 fps
    LiveCounters counters;
    counters.output_time = MediaTime::FromFrameIndex(frame, 30);
    watchdog.OnOutputTick(counters);
  }
  EXPECT_EQ(looks, (std::vector<MediaTime>{MediaTime::Zero(), MediaTime::Seconds(1), MediaTime::Seconds(2)}));
  EXPECT_EQ(watchdog.level(), 0);
}

TEST(LiveOptionsTest, DefaultsWithAnInputAndAnOutputAreValid) { EXPECT_OK(ValidateLiveOptions(Valid())); }

TEST(LiveOptionsTest, AMandarinHostNeedsWhisper) {
  LiveOptions options = Valid();
  options.source = Language::kZh;
  options.target = Language::kEn;
  options.recognition.engine = "whisper";
  options.recognition.model_dir = "models/whisper-small";
  EXPECT_OK(ValidateLiveOptions(options));
}

TEST(LiveOptionsTest, BadValuesNameTheFlag) {
  struct Case {
    std::function<void(LiveOptions&)> change;
    std::string message;
  };
  const std::vector<Case> cases = {
      {[](LiveOptions& o) { o.input.path.clear(); }, "no input"},
      {[](LiveOptions& o) { o.outputs.destinations.clear(); }, "no output"},
      {[](LiveOptions& o) { o.target = Language::kEn; }, "both en"},
      {[](LiveOptions& o) {
         o.source = Language::kZh;
         o.target = Language::kEn;
       },
       "--source zh: pocketsphinx hears only English"},
      {[](LiveOptions& o) { o.recognition.engine = "whispr"; }, "unknown --asr \"whispr\""},
      {[](LiveOptions& o) { o.recognition.engine = "whisper"; }, "--asr whisper: "},
      {[](LiveOptions& o) {
         o.recognition.engine = "pocketsphinx";
         o.recognition.model_dir = "models/whisper-small";
       },
       "give it with --asr whisper"},
      {[](LiveOptions& o) { o.translation.engines = {"tm", "marian"}; }, "give --marian-model DIR"},
      {[](LiveOptions& o) { o.translation.marian_model_dir = "models/opus-mt-en-zh"; }, "add marian to --engine"},
      {[](LiveOptions& o) { o.voice.engine = "festival"; }, "unknown --tts \"festival\" (use auto, espeak or vits)"},
      {[](LiveOptions& o) { o.voice.engine = "vits"; }, "give --tts-model DIR"},
      {[](LiveOptions& o) { o.voice.model_dir = "models/mms-tts-eng"; }, "give it with --tts vits"},
      {[](LiveOptions& o) {
         o.voice.engine = "vits";
         o.voice.model_dir = "models/mms-tts-eng";
         o.voice.voice_en = "en-gb";
       },
       "a vits checkpoint has one voice"},
      {[](LiveOptions& o) {
         o.voice.engine = "espeak";
         o.neural.device = "cuda";
       },
       "--device and --dtype place the neural engines"},
      {[](LiveOptions& o) {
         o.voice.engine = "espeak";
         o.neural.dtype = "bfloat16";
       },
       "use them with --asr whisper"},
      {[](LiveOptions& o) { o.look.fps = 0; }, "--fps"},
      {[](LiveOptions& o) { o.timing.max_lag = MediaTime::Millis(100); }, "--max-lag"},
      {[](LiveOptions& o) { o.timing.max_speedup = 3; }, "--max-speedup"},
      {[](LiveOptions& o) { o.voice.rate = 5; }, "--rate"},
      {[](LiveOptions& o) { o.outputs.segment_minutes = -5; }, "--segment-minutes -5 is outside 1..1440 (0: one MP4 file)"},
      {[](LiveOptions& o) { o.outputs.segment_minutes = 1441; }, "--segment-minutes 1441 is outside 1..1440"},
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
  EXPECT_EQ(options.recognition.zh_script, "simplified");
  options.recognition.zh_script = "traditional";
  EXPECT_OK(ValidateLiveOptions(options));
  options.recognition.zh_script = "cursive";
  const absl::Status status = ValidateLiveOptions(options);
  EXPECT_EQ(ExitCodeFor(status), 2) << status;
  EXPECT_EQ(status.message(), "unknown --zh-script \"cursive\" (use simplified or traditional)");
}

// --- TranslateStage: provisional captions of ad-libs ----------------------------

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
  EXPECT_OK(stack);
  return *std::move(stack);
}

LiveEvent Partial(int64_t utterance, const std::string& text, MediaTime at) {
  LiveEvent event;
  event.partial = HeardPartial{utterance, text, MediaTime::Millis(500), at};
  event.watermark = at;
  return event;
}

// The off-script decision the follow stage sends at the endpoint, and the utterance's end.
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

// Feeds `events` to a TranslateStage, all queued before it runs.
TranslateRun RunTranslate(TranslationStack& stack, std::vector<FollowerLine> script, ProvisionalOptions provisional,
                          const std::vector<LiveEvent>& events) {
  Logger logger(LogLevel::kError);
  StageHarness<TranslateStage> harness(std::make_unique<TranslateStage>(stack, Language::kEn, Language::kZh,
                                                                       std::move(script), nullptr, logger, provisional));
  auto feed = harness.Feed(harness.stage().in);
  auto sink = harness.Collect(harness.stage().out);
  EXPECT_OK(harness.Open());
  for (const LiveEvent& event : events) feed.Push(event, event.watermark);
  feed.End();
  const absl::Status finished = harness.RunUntilFinished();
  EXPECT_OK(finished);
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
    EXPECT_OK(started);
    server = *std::move(started);
    TranslationOptions options;
    options.from = Language::kEn;
    options.to = Language::kZh;
    options.engines = {"llm"};
    options.llm.endpoint = server->url();
    options.llm.max_attempts = 1;
    Logger logger(LogLevel::kError);
    absl::StatusOr<TranslationStack> built = BuildTranslationStack(options, clock, logger);
    EXPECT_OK(built);
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
  StageHarness<TranslateStage> harness(
      std::make_unique<TranslateStage>(llm.stack, Language::kEn, Language::kZh, std::vector<FollowerLine>{}, nullptr,
                                       logger, realtime));
  auto feed = harness.Feed(harness.stage().in);
  auto sink = harness.Collect(harness.stage().out);
  ASSERT_OK(harness.Open());
  feed.Push(Partial(0, "good morning my friends", MediaTime::Millis(1000)), MediaTime::Millis(1000));
  ASSERT_OK(harness.Step());  // the caption's engine call, stopped
  EXPECT_EQ(interrupt.interrupted(), 1);
  for (LiveEvent& e : Endpoint(0, kAdLib.back(), MediaTime::Millis(3000))) feed.Push(std::move(e), MediaTime::Millis(3000));
  feed.End();
  ASSERT_OK(harness.RunUntilFinished());
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
  EXPECT_TRUE(TranslateStage::MayBeScripted("good morning", script, options)) << "too few words to tell";
  EXPECT_TRUE(TranslateStage::MayBeScripted("click the link below", script, options));
  EXPECT_TRUE(TranslateStage::MayBeScripted("the link below to by it", script, options)) << "mid-line, one misheard";
  EXPECT_TRUE(TranslateStage::MayBeScripted("forget to follow our", script, options));
  EXPECT_FALSE(TranslateStage::MayBeScripted("good morning my friends", script, options));
  EXPECT_FALSE(TranslateStage::MayBeScripted("my cat jumped on the table", script, options));
  EXPECT_FALSE(TranslateStage::MayBeScripted("good morning", {}, options)) << "no script: everything is off script";
}

}  // namespace
}  // namespace lingcast

namespace lingcast {
namespace {

// live and follow share --device with the recognizer and the voice: a show with
// Whisper on a GPU and no Marian among its translators is a good show (it was
// refused with "--device and --dtype apply to the marian engine only" on the
// GPU machine). translate's own --device still needs marian (translate_command_test).
TEST(LiveTranslation, ASharedDeviceNeedsNoNeuralTranslator) {
  ScratchDir dir;
  const std::string path = dir.File("memory.tsv");
  std::ofstream(path) << "good morning\t早上好\n";
  TranslationOptions options;
  options.from = Language::kEn;
  options.to = Language::kZh;
  options.memory_paths = {path};
  options.marian_device.device = "cuda";
  SimulatedClock clock;
  Logger logger(LogLevel::kError);
  absl::StatusOr<TranslationStack> stack = BuildTranslationStack(options, clock, logger);
  ASSERT_OK(stack);
  EXPECT_EQ(stack->memory->size(), 1u);
}

}  // namespace
}  // namespace lingcast
