#include "app/follow_command.h"

#include <filesystem>
#include <fstream>

#include "audio/audio_decoder.h"
#include "audio/resampler.h"
#include "core/scratch_dir.h"
#include "core/status.h"
#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tts/espeak_engine.h"

namespace lingcast {
namespace {

using ::testing::HasSubstr;
using testing_util::ScratchDir;

constexpr char kScript[] =
    "en: Welcome to the live room everyone | zh: 欢迎大家来到直播间\n"
    "en: Today we have a very special face cream for you | zh: 今天给大家带来一款特别的面霜\n"
    "en: This dress comes in red and in black | zh: 这条裙子有红色和黑色\n"
    "en: Click the link below to buy it now | zh: 点击下方链接立即购买\n"
    "en: Do not forget to follow our channel | zh: 别忘了关注我们的频道\n";

// Speech made by espeak-ng, at the recognizer's 16 kHz, each sentence followed by
// a second of silence (the VAD's endpoint). Its en-gb voice: pocketsphinx's en-us
// acoustic model recognizes it much better than espeak's en-us voice.
absl::StatusOr<AudioBuffer> Speak(const std::vector<std::string>& sentences) {
  EspeakOptions espeak;
  espeak.lexicon_path = std::string(LINGCAST_BINARY_DIR) + "/data/zh_lexicon.tsv";
  LC_ASSIGN_OR_RETURN(std::unique_ptr<EspeakEngine> engine, EspeakEngine::Create(espeak));
  AudioBuffer all{16000, 1, {}};
  all.samples.resize(8000, 0.0f);
  for (const std::string& sentence : sentences) {
    SynthesisRequest request;
    request.text = sentence;
    request.language = Language::kEn;
    request.voice = "en-gb";
    LC_ASSIGN_OR_RETURN(SynthesisResult speech, engine->Synthesize(request));
    LC_ASSIGN_OR_RETURN(Resampler resampler, Resampler::Create(speech.audio.sample_rate, 16000));
    std::vector<float> converted;
    LC_RETURN_IF_ERROR(resampler.Push(speech.audio.samples, converted));
    LC_RETURN_IF_ERROR(resampler.Flush(converted));
    all.samples.insert(all.samples.end(), converted.begin(), converted.end());
    all.samples.resize(all.samples.size() + 16000, 0.0f);
  }
  return all;
}

AudioSource FromBuffer(const AudioBuffer& audio) {
  auto position = std::make_shared<size_t>(0);
  return [&audio, position](AudioBuffer& chunk) -> absl::StatusOr<bool> {
    if (*position >= audio.samples.size()) return false;
    const size_t take = std::min<size_t>(1600, audio.samples.size() - *position);
    chunk = AudioBuffer{16000, 1, std::vector<float>(audio.samples.begin() + static_cast<std::ptrdiff_t>(*position),
                                                     audio.samples.begin() + static_cast<std::ptrdiff_t>(*position + take))};
    *position += take;
    return true;
  };
}

// Real recordings of two script lines, among lines that are never said.
TEST(FollowCommandTest, FollowsRealRecordingsOfScriptLines) {
  const std::string data = std::string(LINGCAST_SOURCE_DIR) + "/../shared/data/speech/";
  if (!std::filesystem::exists(data + "en-jfk.wav")) GTEST_SKIP() << "no recordings in " << data;
  ScratchDir dir;
  const std::string script = dir.File("show.script");
  std::ofstream(script) << kScript
                        << "en: And so my fellow Americans, ask not what your country can do for you, ask what "
                           "you can do for your country. | zh: 所以，我的美国同胞们，不要问国家能为你做什么，而要问你能为国家做什么。\n"
                        << "en: This lipstick is buy one get one free today | zh: 这款口红今天买一送一\n"
                        << "en: Concord returned to its place amidst the tents. | zh: 康科德回到了帐篷中间的位置。\n";
  AudioBuffer audio{16000, 1, {}};
  for (const char* file : {"en-jfk.wav", "en-librispeech-6930-75918-0000.flac"}) {
    absl::StatusOr<AudioBuffer> decoded = DecodeAudioFile(data + file, 16000);
    ASSERT_OK(decoded);
    audio.samples.insert(audio.samples.end(), decoded->samples.begin(), decoded->samples.end());
    audio.samples.resize(audio.samples.size() + 16000, 0.0f);
  }
  FollowCommandOptions options;
  options.script_path = script;
  Logger logger(LogLevel::kOff);
  std::vector<FollowRecord> seen;
  absl::StatusOr<FollowSummary> summary =
      RunFollow(options, FromBuffer(audio), [&](const FollowRecord& r) { seen.push_back(r); }, logger);
  ASSERT_OK(summary);
  // JFK's line is said in three utterances: it is decided once, before it ends,
  // and the other two are its continuation. Then the LibriSpeech line. No line
  // that was never said is decided, and nothing is off script.
  std::vector<int> lines;
  for (const FollowRecord& r : seen) {
    EXPECT_FALSE(r.decision.off_script) << FollowRecordLine(r);
    if (!r.decision.off_script) lines.push_back(r.decision.line_number);
  }
  EXPECT_EQ(lines, (std::vector<int>{6, 8}));
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen[0].engine, "script");
  EXPECT_THAT(seen[0].translation, HasSubstr("美国同胞"));
  ASSERT_TRUE(seen[0].decision.commit_point.has_value());
  EXPECT_LT(*seen[0].decision.commit_point, 0.5);
}

// An ad-lib spoken by espeak-ng matches no line: off script, with what was heard.
TEST(FollowCommandTest, AnAdLibIsOffScript) {
  ScratchDir dir;
  const std::string script = dir.File("show.script");
  std::ofstream(script) << kScript;
  absl::StatusOr<AudioBuffer> audio = Speak({"The weather outside is terrible, I almost missed my bus"});
  ASSERT_OK(audio);
  FollowCommandOptions options;
  options.script_path = script;
  Logger logger(LogLevel::kOff);
  std::vector<FollowRecord> seen;
  absl::StatusOr<FollowSummary> summary =
      RunFollow(options, FromBuffer(*audio), [&](const FollowRecord& r) { seen.push_back(r); }, logger);
  ASSERT_OK(summary);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_TRUE(seen[0].decision.off_script);
  EXPECT_FALSE(seen[0].source_text.empty());
  EXPECT_EQ(summary->off_script, 1);
  EXPECT_FALSE(summary->hypothesis_ms.empty());
  nlohmann::json off = nlohmann::json::parse(FollowRecordJson(seen[0]));
  for (const char* key : {"line", "off_script", "confidence", "commit_time_ms", "commit_point", "source_text",
                          "translation"}) {
    EXPECT_TRUE(off.contains(key)) << key;
  }
  EXPECT_TRUE(off["line"].is_null());
  EXPECT_TRUE(off["commit_point"].is_null());
  // The partials heard, in order, each with when it was heard.
  ASSERT_EQ(off["partials"].size(), seen[0].partials.size());
  for (size_t i = 0; i < seen[0].partials.size(); ++i) {
    EXPECT_EQ(off["partials"][i]["at_ms"], seen[0].partials[i].first.millis());
    EXPECT_EQ(off["partials"][i]["text"], seen[0].partials[i].second);
  }
  EXPECT_THAT(FollowRecordLine(seen[0]), HasSubstr("off script"));
}

TEST(FollowCommandTest, SilenceGivesNoRecords) {
  ScratchDir dir;
  const std::string script = dir.File("show.script");
  std::ofstream(script) << kScript;
  AudioBuffer silence{16000, 1, std::vector<float>(16000 * 3, 0.0f)};
  FollowCommandOptions options;
  options.script_path = script;
  Logger logger(LogLevel::kOff);
  absl::StatusOr<FollowSummary> summary = RunFollow(options, FromBuffer(silence), [](const FollowRecord&) {}, logger);
  ASSERT_OK(summary);
  EXPECT_TRUE(summary->records.empty());
}

TEST(FollowCommandTest, UnknownZhScriptIsOneClearLine) {
  ScratchDir dir;
  Logger logger(LogLevel::kOff);
  FollowCommandOptions options;
  options.script_path = dir.File("show.script");
  std::ofstream(options.script_path) << kScript;
  options.zh_script = "cursive";
  AudioBuffer silence{16000, 1, std::vector<float>(1600, 0.0f)};
  const absl::Status status = RunFollow(options, FromBuffer(silence), [](const FollowRecord&) {}, logger).status();
  EXPECT_EQ(ExitCodeFor(status), 2) << status;
  EXPECT_EQ(status.message(), "unknown --zh-script \"cursive\" (use simplified or traditional)");
  options.zh_script = "traditional";
  EXPECT_OK(RunFollow(options, FromBuffer(silence), [](const FollowRecord&) {}, logger));
}

TEST(FollowCommandTest, BadInputsAreClearErrors) {
  ScratchDir dir;
  Logger logger(LogLevel::kOff);
  std::ostringstream out;
  FollowCommandOptions options;
  options.script_path = dir.File("show.script");
  std::ofstream(options.script_path) << kScript;
  options.input = dir.File("missing.wav");
  absl::StatusOr<FollowSummary> missing = RunFollowCommand(options, out, logger);
  EXPECT_TRUE(absl::IsNotFound(missing.status())) << missing.status();
  EXPECT_THAT(std::string(missing.status().message()), HasSubstr("missing.wav"));

  const std::string zh_only = dir.File("zh.script");
  std::ofstream(zh_only) << "zh: 欢迎大家 | zh: 谢谢\n";
  AudioBuffer silence{16000, 1, std::vector<float>(1600, 0.0f)};
  options.script_path = zh_only;
  absl::StatusOr<FollowSummary> no_english =
      RunFollow(options, FromBuffer(silence), [](const FollowRecord&) {}, logger);
  EXPECT_FALSE(no_english.ok());

  options.script_path = "";
  EXPECT_THAT(std::string(RunFollow(options, FromBuffer(silence), [](const FollowRecord&) {}, logger)
                              .status()
                              .message()),
              HasSubstr("--script"));
  EXPECT_TRUE(out.str().empty());

  // The recognizer's options: each a clear line before any model loads.
  options.script_path = dir.File("show.script");
  struct Case {
    std::string engine, model_dir, language, message;
  };
  for (const Case& c : std::vector<Case>{
           {"whispr", "", "en", "unknown --asr \"whispr\""},
           {"pocketsphinx", "models/whisper-small", "en", "give it with --asr whisper"},
           {"pocketsphinx", "", "zh", "--lang zh: pocketsphinx hears only English"},
           {"pocketsphinx", "", "fr", "fr"},
       }) {
    FollowCommandOptions bad = options;
    bad.asr_engine = c.engine;
    bad.asr_model_dir = c.model_dir;
    bad.language = c.language;
    const absl::Status status = RunFollow(bad, FromBuffer(silence), [](const FollowRecord&) {}, logger).status();
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << c.message;
    EXPECT_THAT(std::string(status.message()), HasSubstr(c.message));
  }
  FollowCommandOptions placed = options;
  placed.neural.device = "cuda";
  EXPECT_THAT(std::string(RunFollow(placed, FromBuffer(silence), [](const FollowRecord&) {}, logger).status().message()),
              HasSubstr("--device and --dtype place the neural engines"));
  FollowCommandOptions marian = options;
  marian.fallback_engines = {"tm", "marian"};
  EXPECT_THAT(std::string(RunFollow(marian, FromBuffer(silence), [](const FollowRecord&) {}, logger).status().message()),
              HasSubstr("give --marian-model DIR"));
  marian.fallback_engines = {"tm"};
  marian.marian_model_dir = "models/opus-mt-en-zh";
  EXPECT_THAT(std::string(RunFollow(marian, FromBuffer(silence), [](const FollowRecord&) {}, logger).status().message()),
              HasSubstr("add marian to --engine"));
}

}  // namespace
}  // namespace lingcast
