// The neural plug-in's C ABI (neural/plugin/lingcast_plugin_abi.h) as the real
// loader and adapters meet it: a plug-in written in C and built by another
// toolchain (testdata/sine_voice_plugin.c, a test fixture: clang, C99) speaks
// through lingcast's TtsEngine; plug-ins of another ABI major or too short a
// table are refused with one line and closed again; a later minor's longer
// table is taken; the plug-in built beside this lingcast offers every engine.
#include "app/neural_plugin.h"

#include <dlfcn.h>

#include <cmath>
#include <filesystem>
#include <iostream>
#include <limits>
#include <cstdlib>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "app/engine_cache.h"
#include "app/model_dirs.h"
#include "app/neural_plugin_engines.h"
#include "app/studio.h"
#include "app/translation_setup.h"
#include "app/tts_command.h"
#include "audio/audio_decoder.h"
#include "core/clock.h"
#include "core/logger.h"
#include "core/status.h"
#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mt/speech_follower.h"

namespace lingcast {
namespace {

using ::testing::HasSubstr;
using testing_util::StatusIs;

// LINGCAST_NEURAL_PLUGIN set for one test, restored after.
class ScopedPluginPath {
 public:
  explicit ScopedPluginPath(const char* path) {
    if (const char* kept = std::getenv("LINGCAST_NEURAL_PLUGIN")) kept_ = kept;
    setenv("LINGCAST_NEURAL_PLUGIN", path, 1);
  }
  ~ScopedPluginPath() {
    if (kept_) {
      setenv("LINGCAST_NEURAL_PLUGIN", kept_->c_str(), 1);
    } else {
      unsetenv("LINGCAST_NEURAL_PLUGIN");
    }
  }

 private:
  std::optional<std::string> kept_;
};

bool IsLoaded(const char* path) {
  void* handle = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
  if (handle == nullptr) return false;
  dlclose(handle);
  return true;
}

// Sign changes per second of a mono signal: twice its frequency for a tone.
double ZeroCrossingsPerSecond(const AudioBuffer& audio) {
  int crossings = 0;
  for (size_t i = 1; i < audio.samples.size(); ++i) {
    if ((audio.samples[i - 1] < 0) != (audio.samples[i] < 0)) ++crossings;
  }
  return crossings / audio.duration().seconds();
}

absl::StatusOr<std::unique_ptr<TtsEngine>> SineVoice() {
  VoiceEngineSettings settings;
  settings.model_dir = "sine";
  return MakeVitsVoice(settings);
}

TEST(NeuralPluginTest, APlugInOfAnotherAbiMajorIsRefusedAndNothingStaysLoaded) {
  ScopedPluginPath path(OLD_MAJOR_FIXTURE);
  const absl::StatusOr<NeuralPlugin> plugin = NeuralPlugin::Open("whisper");
  EXPECT_THAT(plugin.status(),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       absl::StrCat("neural plug-in ", OLD_MAJOR_FIXTURE, " speaks ABI v1; this lingcast needs v",
                                    LC_PLUGIN_ABI_MAJOR, ": rebuild it")));
  EXPECT_FALSE(IsLoaded(OLD_MAJOR_FIXTURE));
}

TEST(NeuralPluginTest, ATableShorterThanThisMajorsIsRefusedAndNothingStaysLoaded) {
  ScopedPluginPath path(SHORT_TABLE_FIXTURE);
  const absl::StatusOr<NeuralPlugin> plugin = NeuralPlugin::Open("vits");
  EXPECT_THAT(plugin.status(),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       absl::StrCat("neural plug-in ", SHORT_TABLE_FIXTURE, " has a table of 16 bytes for ABI v",
                                    LC_PLUGIN_ABI_MAJOR, "; this lingcast needs at least ", LC_PLUGIN_TABLE_V2_0_SIZE,
                                    ": rebuild it")));
  EXPECT_FALSE(IsLoaded(SHORT_TABLE_FIXTURE));
}

TEST(NeuralPluginTest, ALaterMinorsLongerTableIsTaken) {
  ScopedPluginPath path(NEWER_MINOR_FIXTURE);
  absl::StatusOr<NeuralPlugin> plugin = NeuralPlugin::Open("vits");
  ASSERT_OK(plugin);
  EXPECT_EQ(plugin->table().abi_minor, LC_PLUGIN_ABI_MINOR + 1u);
  EXPECT_GT(plugin->table().struct_size, LC_PLUGIN_TABLE_V2_0_SIZE);
  absl::StatusOr<std::unique_ptr<TtsEngine>> voice = SineVoice();
  ASSERT_OK(voice);
  EXPECT_EQ((*voice)->name(), "sine");
}

TEST(NeuralPluginTest, APathWithoutAPlugInSaysSo) {
  ScopedPluginPath path("/nonexistent/liblingcast_neural_plugin.so");
  EXPECT_THAT(NeuralPlugin::Open("marian").status(),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("cannot load the neural engines")));
}

TEST(NeuralPluginTest, ACPlugInFromAnotherCompilerSpeaksThroughTheTtsEngine) {
  ScopedPluginPath path(SINE_FIXTURE);
  absl::StatusOr<std::unique_ptr<TtsEngine>> voice = SineVoice();
  ASSERT_OK(voice) << "built by " << LINGCAST_C_FIXTURE_COMPILER;
  EXPECT_EQ((*voice)->name(), "sine");
  EXPECT_EQ((*voice)->sample_rate(), 16000);

  SynthesisRequest request;
  request.language = Language::kEn;
  request.text = "hi there";
  absl::StatusOr<SynthesisResult> speech = (*voice)->Synthesize(request);
  ASSERT_OK(speech);
  EXPECT_EQ(speech->audio.sample_rate, 16000);
  EXPECT_EQ(speech->audio.channels, 1);
  EXPECT_EQ(speech->audio.duration(), MediaTime::Millis(800));  // 100 ms a byte
  EXPECT_NEAR(ZeroCrossingsPerSecond(speech->audio), 2 * 440.0, 3.0);
  ASSERT_EQ(speech->track.words.size(), 2u);
  EXPECT_EQ(speech->track.words[1].start, MediaTime::Millis(300));
  EXPECT_EQ(speech->track.words[1].text_offset, 3);
  EXPECT_EQ(speech->track.words[1].text_length, 5);
  ASSERT_EQ(speech->track.phonemes.size(), 2u);
  EXPECT_EQ(speech->track.phonemes[0].phoneme, "a");
  EXPECT_EQ(speech->track.phonemes[0].duration, MediaTime::Millis(200));
}

TEST(NeuralPluginTest, ACPlugInStreamsAClauseInPartsThatJoinIntoTheWholeClause) {
  ScopedPluginPath path(SINE_FIXTURE);
  absl::StatusOr<std::unique_ptr<TtsEngine>> voice = SineVoice();
  ASSERT_OK(voice);
  absl::StatusOr<std::unique_ptr<TtsSession>> session = (*voice)->OpenSession(VoiceSettings{});
  ASSERT_OK(session);
  std::vector<SynthesisResult> parts;
  ASSERT_OK((*session)->StreamClause("one two three", Language::kEn, [&](SynthesisResult part) {
    parts.push_back(std::move(part));
    return absl::OkStatus();
  }));
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[1].track.words.at(0).start, MediaTime::Millis(400));  // timed from the clause's start
  EXPECT_EQ(parts[1].track.words.at(0).text_offset, 4);
  SynthesisResult joined;
  for (SynthesisResult& part : parts) AppendClausePart(joined, std::move(part));
  absl::StatusOr<SynthesisResult> whole = (*session)->SynthesizeClause("one two three", Language::kEn);
  ASSERT_OK(whole);
  EXPECT_EQ(joined.audio.samples.size(), whole->audio.samples.size());
  EXPECT_EQ(joined.track.words.size(), whole->track.words.size());
}

TEST(NeuralPluginTest, AnErrorFromTheHostsSinkStopsTheStreamAndComesBackWhole) {
  ScopedPluginPath path(SINE_FIXTURE);
  absl::StatusOr<std::unique_ptr<TtsEngine>> voice = SineVoice();
  ASSERT_OK(voice);
  absl::StatusOr<std::unique_ptr<TtsSession>> session = (*voice)->OpenSession(VoiceSettings{});
  ASSERT_OK(session);
  int parts = 0;
  const absl::Status streamed = (*session)->StreamClause("one two three", Language::kEn, [&](SynthesisResult) {
    ++parts;
    return absl::ResourceExhaustedError("the player's queue is full");
  });
  EXPECT_THAT(streamed, StatusIs(absl::StatusCode::kResourceExhausted, "the player's queue is full"));
  EXPECT_EQ(parts, 1);
}

TEST(NeuralPluginTest, ACancelledSessionSaysSoAndSpeaksNoMore) {
  ScopedPluginPath path(SINE_FIXTURE);
  absl::StatusOr<std::unique_ptr<TtsEngine>> voice = SineVoice();
  ASSERT_OK(voice);
  absl::StatusOr<std::unique_ptr<TtsSession>> session = (*voice)->OpenSession(VoiceSettings{});
  ASSERT_OK(session);
  EXPECT_FALSE((*session)->cancelled());
  (*session)->Cancel();
  EXPECT_TRUE((*session)->cancelled());
  EXPECT_THAT((*session)->SynthesizeClause("one", Language::kEn).status(),
              StatusIs(absl::StatusCode::kCancelled, "the sine session was cancelled"));
}

TEST(NeuralPluginTest, ThePlugInsErrorsKeepTheirCodeAndMessage) {
  ScopedPluginPath path(SINE_FIXTURE);
  VoiceEngineSettings settings;
  settings.model_dir = "models/elsewhere";
  EXPECT_THAT(MakeVitsVoice(settings).status(),
              StatusIs(absl::StatusCode::kNotFound, "the sine fixture speaks only the model \"sine\""));
  absl::StatusOr<std::unique_ptr<TtsEngine>> voice = SineVoice();
  ASSERT_OK(voice);
  VoiceSettings loud;
  loud.volume = 9;
  EXPECT_THAT((*voice)->OpenSession(loud).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, "volume must be in [0, 4]"));
}

TEST(NeuralPluginTest, AnEngineThePlugInLacksIsNamed) {
  ScopedPluginPath path(SINE_FIXTURE);
  VoiceEngineSettings settings;
  settings.model_dir = "sine";
  EXPECT_THAT(MakeFastSpeech2Voice(settings).status(),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       absl::StrCat("neural plug-in ", SINE_FIXTURE, " was built without the fastspeech2 engine: "
                                    "rebuild it")));
}

TEST(NeuralPluginTest, ThePlugInBuiltBesideThisLingcastOffersEveryEngine) {
  ScopedPluginPath path(LINGCAST_NEURAL_PLUGIN_PATH);
  absl::StatusOr<NeuralPlugin> plugin = NeuralPlugin::Open("marian");
  ASSERT_OK(plugin);
  EXPECT_EQ(plugin->table().abi_major, static_cast<std::uint32_t>(LC_PLUGIN_ABI_MAJOR));
  EXPECT_EQ(plugin->table().struct_size, sizeof(lc_plugin_table));
  EXPECT_OK(plugin->Require(plugin->table().create_marian_translator, "marian"));
  EXPECT_OK(plugin->Require(plugin->table().create_whisper_recognizer, "whisper"));
  EXPECT_OK(plugin->Require(plugin->table().create_vits_voice, "vits"));
  EXPECT_OK(plugin->Require(plugin->table().create_fastspeech2_voice, "fastspeech2"));
  EXPECT_OK(plugin->Require(plugin->table().describe_runtime, "runtime"));
  EXPECT_THAT(DescribePluginRuntime(*plugin).summary, HasSubstr("libtorch"));
}

// The tiny test checkpoint (random weights), English, on the CPU.
WhisperPluginRequest TinyWhisperOnTheCpu() {
  WhisperPluginRequest request;
  request.model_dir = std::string(NEURAL_TESTDATA_DIR) + "/whisper_tiny";
  request.language = "en";
  request.device = "cpu";
  return request;
}

// Minor 2: a Whisper recognizer counts the decoder steps of its sessions and
// the passes they took (alone or joined by the step batcher), and the engine
// cache that keeps it sums them for /metrics.
TEST(NeuralPluginTest, AWhisperRecognizerCountsItsSessionsDecoderStepsForMetrics) {
  ScopedPluginPath path(LINGCAST_NEURAL_PLUGIN_PATH);
  absl::StatusOr<NeuralPlugin> plugin = NeuralPlugin::Open("whisper");
  ASSERT_OK(plugin);
  const WhisperPluginRequest request = TinyWhisperOnTheCpu();
  EngineCache engines;
  absl::StatusOr<std::shared_ptr<AsrModel>> model =
      engines.Recognizer("whisper_tiny", [&] { return MakePluginRecognizer(*plugin, request); });
  ASSERT_OK(model);
  const std::optional<AsrModel::StepBatching> before = (*model)->step_batching();
  ASSERT_TRUE(before.has_value()) << "the plug-in of this build has minor 2";
  EXPECT_EQ(before->steps, 0);
  EXPECT_EQ(before->passes, 0);

  // Two sessions decode at once, each a second of its own tone.
  auto decode = [&](float hz, absl::Status* result) {
    absl::StatusOr<std::unique_ptr<AsrSession>> session = (*model)->NewSession();
    if (!session.ok()) {
      *result = session.status();
      return;
    }
    AudioBuffer tone;
    tone.sample_rate = 16000;
    tone.channels = 1;
    for (int i = 0; i < 16000; ++i) tone.samples.push_back(0.3f * std::sin(6.2831853f * hz * i / 16000.0f));
    *result = (*session)->AcceptAudio(tone);
    if (result->ok()) *result = (*session)->Finish().status();
  };
  absl::Status first, second;
  std::thread a(decode, 220.0f, &first), b(decode, 330.0f, &second);
  a.join();
  b.join();
  ASSERT_OK(first);
  ASSERT_OK(second);

  const std::optional<AsrModel::StepBatching> after = (*model)->step_batching();
  ASSERT_TRUE(after.has_value());
  EXPECT_GE(after->steps, 2);  // each session's final took at least one step
  EXPECT_GE(after->passes, 1);
  EXPECT_LE(after->passes, after->steps);
  EXPECT_LE(after->joined_steps, after->steps);
  EXPECT_GE(after->largest_pass, 1);
  EXPECT_LE(after->largest_pass, 2);  // never more steps in one pass than sessions
  const EngineCache::Stats stats = engines.stats();
  EXPECT_EQ(stats.recognizer_steps.steps, after->steps);
  EXPECT_EQ(stats.recognizer_steps.passes, after->passes);
  EXPECT_EQ(stats.recognizer_steps.joined_steps, after->joined_steps);
  EXPECT_EQ(stats.recognizer_steps.largest_pass, after->largest_pass);
}

// Minor 3: a Whisper session scores how the utterance so far begins
// (AsrSession::ScoreOpenings), each opening in one batch as it scores alone.
TEST(NeuralPluginTest, AWhisperSessionScoresOpeningsOfTheUtteranceSoFar) {
  ScopedPluginPath path(LINGCAST_NEURAL_PLUGIN_PATH);
  absl::StatusOr<NeuralPlugin> plugin = NeuralPlugin::Open("whisper");
  ASSERT_OK(plugin);
  const WhisperPluginRequest request = TinyWhisperOnTheCpu();
  absl::StatusOr<std::shared_ptr<AsrModel>> model = MakePluginRecognizer(*plugin, request);
  ASSERT_OK(model);
  absl::StatusOr<std::unique_ptr<AsrSession>> session = (*model)->NewSession();
  ASSERT_OK(session);
  // Nothing decoded yet: nothing to score against, said so.
  EXPECT_THAT((*session)->ScoreOpenings({"hello"}),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("no partial decode")));

  AudioBuffer tone{16000, 1, {}};
  for (int i = 0; i < 12000; ++i) tone.samples.push_back(0.3f * std::sin(6.2831853f * 220.0f * i / 16000.0f));
  ASSERT_OK((*session)->AcceptAudio(tone));
  (*session)->Partial();
  const std::vector<std::string> openings = {"hello world", "", "and so my fellow", "换一首歌"};
  absl::StatusOr<std::vector<double>> together = (*session)->ScoreOpenings(openings);
  ASSERT_OK(together);
  ASSERT_EQ(together->size(), openings.size());
  EXPECT_EQ((*together)[1], -std::numeric_limits<double>::infinity());  // an empty opening
  for (size_t i = 0; i < openings.size(); ++i) {
    if (openings[i].empty()) continue;
    EXPECT_TRUE(std::isfinite((*together)[i])) << openings[i];
    EXPECT_LE((*together)[i], 0.0) << openings[i];
    // Scored alone, the same: rows of one pass do not see each other.
    absl::StatusOr<std::vector<double>> alone = (*session)->ScoreOpenings({openings[i]});
    ASSERT_OK(alone);
    EXPECT_NEAR((*alone)[0], (*together)[i], 1e-4) << openings[i];
  }
  // The utterance's final ends it: its opening is no longer there to score.
  ASSERT_OK((*session)->Finish());
  EXPECT_THAT((*session)->ScoreOpenings({"hello"}), StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("no partial")));
}

// Whisper base on a real Mandarin recording of the script's line 换一首歌, with
// partials every 100 ms: its score of the line's opening commits the line
// before the greedy text spells it (bench/whisper_line_check measured 800 ms
// against 1000 ms), and the same follower without scores commits the same line
// later.
TEST(NeuralPluginTest, WhisperBaseCommitsAMandarinLineFromItsOpeningBeforeItsWords) {
  const std::optional<ModelDirectory> installed = FindInstalledModel("whisper-base");
  const std::string recording = std::string(LINGCAST_SOURCE_DIR) + "/../shared/data/speech/zh-IT0011W0001.wav";
  if (!installed) GTEST_SKIP() << "whisper-base is not installed in " << ModelsRoot() << " (scripts/install-deps.sh installs it)";
  const std::string model_dir = installed->path;
  if (!std::filesystem::exists(recording)) GTEST_SKIP() << recording << " is absent (../shared/data is not part of a clone)";
  ScopedPluginPath path(LINGCAST_NEURAL_PLUGIN_PATH);
  absl::StatusOr<NeuralPlugin> plugin = NeuralPlugin::Open("whisper");
  ASSERT_OK(plugin);
  WhisperPluginRequest request;
  request.model_dir = model_dir;
  request.language = "zh";
  request.device = "cpu";
  request.min_partial_interval_ms = 100;
  request.max_compute_share = -1;  // a partial every 100 ms of audio, however long each decode takes here
  absl::StatusOr<std::shared_ptr<AsrModel>> model = MakePluginRecognizer(*plugin, request);
  ASSERT_OK(model);
  absl::StatusOr<AudioBuffer> audio = DecodeAudioFile(recording, 16000);
  ASSERT_OK(audio);
  // A live-commerce script that opens with the line the host says.
  const std::vector<std::string> sources = {"换一首歌", "甚至出现交易几乎停滞的情况", "今晚我想给大家展示我们的新款铸铁锅",
                                            "平时的价格是八十九美元", "前五十个订单包邮", "每瓶容量是五百毫升",
                                            "点击下方链接就可以加入购物车", "库存只剩下二十件了", "电池充满电可以用十个小时"};
  std::vector<FollowerLine> lines;
  for (const std::string& source : sources) lines.push_back(FollowerLine{static_cast<int>(lines.size()) + 1, source, "", ""});

  struct Run {
    std::vector<FollowDecision> decisions;
    size_t scored = 0;
  };
  auto follow = [&](bool score_openings) -> absl::StatusOr<Run> {
    SpeechFollowerOptions options;
    options.score_openings = score_openings;
    LC_ASSIGN_OR_RETURN(options.spelling, MatchSpelling::Load(Language::kZh));
    LC_ASSIGN_OR_RETURN(SpeechFollower follower, SpeechFollower::Create(**model, lines, options));
    Run run;
    const FollowSink keep = [&](FollowEvent event) {
      if (event.type == FollowEvent::Type::kDecision) run.decisions.push_back(std::move(event.decision));
      return absl::OkStatus();
    };
    for (size_t at = 0; at < audio->samples.size(); at += 1600) {
      const size_t take = std::min<size_t>(1600, audio->samples.size() - at);
      const AudioBuffer chunk{16000, 1, std::vector<float>(audio->samples.begin() + static_cast<std::ptrdiff_t>(at),
                                                           audio->samples.begin() + static_cast<std::ptrdiff_t>(at + take))};
      LC_RETURN_IF_ERROR(follower.Push(chunk, keep));
    }
    LC_RETURN_IF_ERROR(follower.Push(AudioBuffer{16000, 1, std::vector<float>(16000, 0.0f)}, keep));
    LC_RETURN_IF_ERROR(follower.Flush(keep));
    run.scored = follower.opening_score_cpu_ms().size();
    return run;
  };
  absl::StatusOr<Run> scored = follow(true);
  ASSERT_OK(scored);
  absl::StatusOr<Run> words_only = follow(false);
  ASSERT_OK(words_only);
  ASSERT_FALSE(scored->decisions.empty());
  ASSERT_FALSE(words_only->decisions.empty());
  const FollowDecision& by_score = scored->decisions.front();
  const FollowDecision& by_words = words_only->decisions.front();
  std::cout << "[ opening  ] 换一首歌 committed at " << by_score.commit_time.millis() << " ms by its opening score ("
            << by_score.opening_logp.value_or(0) << " per token, " << scored->scored << " scorings), at "
            << by_words.commit_time.millis() << " ms by the words heard (" << by_words.heard << ")\n";
  EXPECT_EQ(by_score.line, 0);
  EXPECT_EQ(by_words.line, 0);
  ASSERT_TRUE(by_score.opening_logp.has_value()) << "heard: " << by_score.heard;
  EXPECT_GE(*by_score.opening_logp, -3.0);
  EXPECT_FALSE(by_words.opening_logp.has_value());
  EXPECT_LT(by_score.commit_time, by_words.commit_time);
  EXPECT_EQ(words_only->scored, 0u);
  // One line said, one decided: the rest of the utterance is that line.
  EXPECT_EQ(scored->decisions.size(), 1u);
}

// A host of minor 0 fills lc_whisper_options up to log_level: the plug-in of
// minor 1 still takes it (and reads no GPU interval), and refuses anything
// shorter with one line.
TEST(NeuralPluginTest, WhisperOptionsOfMinorZeroAreTakenAndShorterOnesRefused) {
  ScopedPluginPath path(LINGCAST_NEURAL_PLUGIN_PATH);
  absl::StatusOr<NeuralPlugin> plugin = NeuralPlugin::Open("whisper");
  ASSERT_OK(plugin);
  const lc_plugin_table& table = plugin->table();
  const std::string model_dir = std::string(NEURAL_TESTDATA_DIR) + "/whisper_tiny";
  lc_whisper_options options{};
  options.model_dir = model_dir.c_str();
  options.language = "en";
  options.agreement = 2;
  options.min_partial_interval_us = 500000;
  options.trim_after_us = 20000000;
  options.quantize = "none";
  options.device = "cpu";
  options.dtype = "auto";
  options.min_partial_interval_gpu_us = 123;  // beyond a minor-0 struct: never read
  options.struct_size = LC_WHISPER_OPTIONS_V2_0_SIZE;
  lc_status status{};
  lc_recognizer* recognizer = table.create_whisper_recognizer(&options, &status);
  ASSERT_NE(recognizer, nullptr) << status.message;
  table.recognizer_destroy(recognizer);

  options.struct_size = LC_WHISPER_OPTIONS_V2_0_SIZE - 4;
  status = lc_status{};
  EXPECT_EQ(table.create_whisper_recognizer(&options, &status), nullptr);
  EXPECT_THAT(std::string(status.message), HasSubstr("lc_whisper_options of"));
}

// The same for lc_vits_options, whose minor 1 appended capture_as_needed.
TEST(NeuralPluginTest, VitsOptionsOfMinorZeroAreTaken) {
  ScopedPluginPath path(LINGCAST_NEURAL_PLUGIN_PATH);
  absl::StatusOr<NeuralPlugin> plugin = NeuralPlugin::Open("vits");
  ASSERT_OK(plugin);
  const lc_plugin_table& table = plugin->table();
  const std::string model_dir = std::string(NEURAL_TESTDATA_DIR) + "/vits_tiny";
  for (const std::uint32_t size : {LC_VITS_OPTIONS_V2_0_SIZE, static_cast<std::uint32_t>(sizeof(lc_vits_options))}) {
    lc_vits_options options{};
    options.model_dir = model_dir.c_str();
    options.device = "cpu";
    options.dtype = "auto";
    options.capture_as_needed = 1;  // read only from a minor-1 struct
    options.struct_size = size;
    lc_status status{};
    lc_voice* voice = table.create_vits_voice(&options, &status);
    ASSERT_NE(voice, nullptr) << size << " bytes: " << status.message;
    table.voice_destroy(voice);
  }
}

// Every engine's create entry point of the real plug-in refuses options it
// cannot read (none, or a struct shorter than its own) with one line naming
// the struct, and hands back no handle.
TEST(NeuralPluginTest, ACreateCallWithoutItsOptionsOrWithAShortStructIsRefusedByName) {
  ScopedPluginPath path(LINGCAST_NEURAL_PLUGIN_PATH);
  absl::StatusOr<NeuralPlugin> plugin = NeuralPlugin::Open("marian");
  ASSERT_OK(plugin);
  const lc_plugin_table& table = plugin->table();
  // `options` of 4 bytes, then none.
  auto expect_refused = [](auto create, auto options, const std::string& name) {
    options.struct_size = 4;
    for (const auto* given : {&options, static_cast<decltype(&options)>(nullptr)}) {
      lc_status status{};
      const std::string message = given != nullptr ? name + " of 4 bytes" : "no " + name + " given";
      EXPECT_EQ(create(given, &status), nullptr) << message;
      EXPECT_EQ(status.code, LC_INVALID_ARGUMENT) << message;
      EXPECT_THAT(std::string(status.message), HasSubstr(message));
    }
  };
  expect_refused(table.create_vits_voice, lc_vits_options{}, "lc_vits_options");
  expect_refused(table.create_fastspeech2_voice, lc_fastspeech2_options{}, "lc_fastspeech2_options");
  expect_refused(table.create_marian_translator, lc_marian_options{}, "lc_marian_options");
  expect_refused(table.create_whisper_recognizer, lc_whisper_options{}, "lc_whisper_options");
}

// The real plug-in's Marian through the C ABI: a batch gives what each line
// gives alone, the plug-in's errors keep their code and message, and a stop
// requested on the host's std::stop_token reaches the plug-in's decode.
class RealMarianTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<NeuralPlugin> plugin = NeuralPlugin::Open("marian");
    ASSERT_OK(plugin);
    MarianPluginRequest request;
    request.model_dir = std::string(NEURAL_TESTDATA_DIR) + "/marian_tiny";
    request.device = "cpu";
    request.placed_on = &placed_on_;
    absl::StatusOr<std::unique_ptr<PluginTranslator>> translator = PluginTranslator::Create(*plugin, request);
    ASSERT_OK(translator);
    translator_ = *std::move(translator);
  }

  ScopedPluginPath path_{LINGCAST_NEURAL_PLUGIN_PATH};
  std::string placed_on_;
  std::unique_ptr<PluginTranslator> translator_;
};

TEST_F(RealMarianTest, ABatchGivesWhatEachLineGivesAlone) {
  EXPECT_EQ(placed_on_, "cpu float32");
  EXPECT_EQ(translator_->name(), "marian");
  const std::vector<std::string> lines = {"你好，世界。", "今天所有订单都包邮。"};
  std::vector<std::string> alone;
  for (const std::string& line : lines) {
    TranslationRequest request;
    request.source = line;
    std::vector<std::string> partials;
    absl::StatusOr<Translation> translation =
        translator_->Translate(request, {}, [&](std::string_view text) { partials.emplace_back(text); });
    ASSERT_OK(translation);
    EXPECT_EQ(translation->engine, "marian");
    EXPECT_FALSE(translation->text.empty());
    EXPECT_EQ(partials, std::vector<std::string>{translation->text});
    alone.push_back(translation->text);
  }
  absl::StatusOr<std::vector<std::string>> batch = translator_->TranslateBatch(lines);
  ASSERT_OK(batch);
  EXPECT_EQ(*batch, alone);
}

// The server's sessions ask for the same Marian checkpoint: one copy is
// loaded, and two jobs translate through it at once and get what a job's own
// copy gives.
TEST_F(RealMarianTest, JobsThatShareAnEngineCacheShareOneModel) {
  SimulatedClock clock{MediaTime::Zero(), SimulatedClock::Mode::kAutoAdvance};
  Logger logger{LogLevel::kOff};
  TranslationOptions options;
  options.engines = {"marian"};
  options.marian_model_dir = std::string(NEURAL_TESTDATA_DIR) + "/marian_tiny";
  options.marian_device.device = "cpu";
  const TranslationStack unused;
  absl::StatusOr<std::unique_ptr<Translator>> own = MakeMarianTranslator(options, unused, clock, logger);
  ASSERT_OK(own);

  EngineCache cache;
  options.shared_engines = &cache;
  absl::StatusOr<std::unique_ptr<Translator>> first = MakeMarianTranslator(options, unused, clock, logger);
  absl::StatusOr<std::unique_ptr<Translator>> second = MakeMarianTranslator(options, unused, clock, logger);
  ASSERT_OK(first);
  ASSERT_OK(second);
  EngineCache::Stats stats = cache.stats();
  EXPECT_EQ(stats.translators, 1);
  EXPECT_EQ(stats.loads, 1);
  EXPECT_EQ(stats.reuses, 1);
  TranslationOptions missing = options;
  missing.marian_model_dir = options.marian_model_dir + "-missing";
  EXPECT_FALSE(MakeMarianTranslator(missing, unused, clock, logger).ok());
  EXPECT_EQ(cache.stats().translators, 1);  // a failed load keeps nothing

  TranslationRequest request;
  request.source = "今天所有订单都包邮。";
  absl::StatusOr<Translation> expected = (*own)->Translate(request);
  ASSERT_OK(expected);
  absl::StatusOr<Translation> got_first = absl::UnknownError("not run"), got_second = absl::UnknownError("not run");
  std::thread a([&] { got_first = (*first)->Translate(request); });
  std::thread b([&] { got_second = (*second)->Translate(request); });
  a.join();
  b.join();
  ASSERT_OK(got_first);
  ASSERT_OK(got_second);
  EXPECT_EQ(got_first->text, expected->text);
  EXPECT_EQ(got_second->text, expected->text);
  EXPECT_EQ((*first)->name(), "marian");
}

TEST_F(RealMarianTest, AnotherDirectionIsNotFoundWithThePlugInsMessage) {
  TranslationRequest request;
  request.source = "hello";
  request.from = Language::kEn;
  request.to = Language::kZh;
  EXPECT_THAT(translator_->Translate(request).status(),
              StatusIs(absl::StatusCode::kNotFound, "the marian model translates zh -> en, not en -> zh"));
}

TEST_F(RealMarianTest, AStopRequestedOnTheHostCancelsTheDecode) {
  std::stop_source stop;
  stop.request_stop();
  TranslationRequest request;
  request.source = "你好，世界。";
  EXPECT_THAT(translator_->Translate(request, stop.get_token()).status(),
              StatusIs(absl::StatusCode::kCancelled, ::testing::_));
}

}  // namespace
}  // namespace lingcast
