// The session settings of `lingcast serve` go through `live`'s own flags: the
// same conversions, the same checks, the same one-line messages.
#include "app/live_flags.h"

#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace lingcast {
namespace {

using ::testing::HasSubstr;
using testing_util::StatusIs;

// What the command line gives for `arguments` (as typed after `lingcast live`).
absl::StatusOr<LiveOptions> FromCommandLine(std::vector<std::string> arguments) {
  CLI::App command("live", "live");
  LiveFlags flags;
  AddLiveFlags(command, flags);
  std::vector<std::string> reversed(arguments.rbegin(), arguments.rend());
  try {
    command.parse(reversed);
  } catch (const CLI::ParseError& error) {
    return absl::InvalidArgumentError(error.what());
  }
  return LiveOptionsFromFlags(flags);
}

nlohmann::json Base() {
  return {{"in", "show.wav"}, {"out", {"show.mp4"}}, {"asr", "pocketsphinx"}, {"tts", "espeak"}};
}

TEST(LiveFlagsTest, SettingsStandForTheirFlags) {
  CLI::App command("live", "live");
  LiveFlags flags;
  AddLiveFlags(command, flags);
  nlohmann::json settings = Base();
  settings["out"] = {"show.mp4", "hls:web"};
  settings["fps"] = 25;
  settings["max_lag"] = 2.5;
  settings["pip"] = true;
  settings["passthrough"] = false;
  absl::StatusOr<std::vector<std::string>> arguments = SettingsToArguments(command, settings, {});
  ASSERT_OK(arguments);
  // nlohmann's object keeps its keys sorted.
  EXPECT_EQ(*arguments, (std::vector<std::string>{"--asr", "pocketsphinx", "--fps", "25", "--in", "show.wav",
                                                  "--max-lag", "2.5", "--out", "show.mp4", "--out", "hls:web", "--pip",
                                                  "--tts", "espeak"}));
}

TEST(LiveFlagsTest, SettingsGiveTheOptionsTheCommandLineGives) {
  nlohmann::json settings = Base();
  settings["source"] = "en";
  settings["target"] = "zh";
  settings["size"] = "640x360";
  settings["engine"] = {"tm"};
  settings["max_lag"] = 3;
  settings["lag_policy"] = "skip";
  settings["clock"] = "simulated";
  settings["no_provisional"] = true;
  settings["no_opening_scores"] = true;
  absl::StatusOr<LiveOptions> from_settings = LiveOptionsFromSettings(settings, {});
  ASSERT_OK(from_settings);
  absl::StatusOr<LiveOptions> from_cli = FromCommandLine(
      {"--in", "show.wav", "--out", "show.mp4", "--asr", "pocketsphinx", "--tts", "espeak", "--source", "en",
       "--target", "zh", "--size", "640x360", "--engine", "tm", "--max-lag", "3", "--lag-policy", "skip", "--clock",
       "simulated", "--no-provisional", "--no-opening-scores"});
  ASSERT_OK(from_cli);
  for (const LiveOptions* o : {&*from_settings, &*from_cli}) {
    EXPECT_EQ(o->input.path, "show.wav");
    EXPECT_EQ(o->outputs.destinations, std::vector<std::string>{"show.mp4"});
    EXPECT_EQ(o->source, Language::kEn);
    EXPECT_EQ(o->target, Language::kZh);
    EXPECT_EQ(o->look.width, 640);
    EXPECT_EQ(o->look.height, 360);
    EXPECT_EQ(o->timing.max_lag, MediaTime::Seconds(3));
    EXPECT_EQ(o->timing.lag_policy, LagPolicy::kSkip);
    EXPECT_EQ(o->timing.clock, LiveClock::kSimulated);
    EXPECT_FALSE(o->translation.provisional_captions);
    EXPECT_FALSE(o->recognition.score_openings);
    EXPECT_EQ(o->translation.engines, std::vector<std::string>{"tm"});
  }
  // Opening scores are on unless turned off.
  absl::StatusOr<LiveOptions> by_default = LiveOptionsFromSettings(Base(), {});
  ASSERT_OK(by_default);
  EXPECT_TRUE(by_default->recognition.score_openings);
}

TEST(LiveFlagsTest, BadValuesFailWithTheCommandLinesMessage) {
  nlohmann::json settings = Base();
  settings["fps"] = 500;
  absl::StatusOr<LiveOptions> from_settings = LiveOptionsFromSettings(settings, {});
  absl::StatusOr<LiveOptions> from_cli = FromCommandLine(
      {"--in", "show.wav", "--out", "show.mp4", "--asr", "pocketsphinx", "--tts", "espeak", "--fps", "500"});
  EXPECT_THAT(from_settings, StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--fps 500 is outside 1..120")));
  EXPECT_EQ(from_settings.status(), from_cli.status());

  settings = Base();
  settings["size"] = "wide";
  EXPECT_EQ(LiveOptionsFromSettings(settings, {}).status(),
            FromCommandLine({"--in", "show.wav", "--out", "show.mp4", "--asr", "pocketsphinx", "--tts", "espeak",
                             "--size", "wide"})
                .status());
  settings = Base();
  settings["fps"] = "fast";
  EXPECT_THAT(LiveOptionsFromSettings(settings, {}), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--fps")));
  settings = Base();
  settings.erase("in");
  EXPECT_THAT(LiveOptionsFromSettings(settings, {}), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--in")));
}

TEST(LiveFlagsTest, TheRendererIsAutoCpuOrCudaAndEachDrawsPictureInPicture) {
  const std::vector<std::string> base = {"--in", "show.mp4", "--out", "out.mp4", "--asr", "pocketsphinx",
                                         "--tts", "espeak"};
  auto with = [&base](std::vector<std::string> more) {
    std::vector<std::string> arguments = base;
    arguments.insert(arguments.end(), more.begin(), more.end());
    return FromCommandLine(arguments);
  };
  absl::StatusOr<LiveOptions> options = FromCommandLine(base);
  ASSERT_OK(options);
  EXPECT_EQ(options->look.renderer, "auto");
  for (const std::string renderer : {"cpu", "auto", "cuda"}) {
    options = with({"--renderer", renderer, "--pip"});
    ASSERT_OK(options) << renderer;
    EXPECT_EQ(options->look.renderer, renderer);
    EXPECT_TRUE(options->look.picture_in_picture);
  }

  const absl::StatusOr<LiveOptions> bad = with({"--renderer", "opengl"});
  EXPECT_THAT(bad, StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--renderer opengl: must be auto, cpu or cuda")));
  nlohmann::json settings = Base();
  settings["renderer"] = "opengl";
  EXPECT_EQ(LiveOptionsFromSettings(settings, {}).status(), bad.status());
  settings = Base();
  settings["renderer"] = "cuda";
  settings["pip"] = true;
  ASSERT_OK(LiveOptionsFromSettings(settings, {}));
}

// A minimal live command line (a WAV in, an MP4 out) with `more` after it.
absl::StatusOr<LiveOptions> MinimalCommandLineWith(const std::vector<std::string>& more) {
  std::vector<std::string> arguments = {"--in", "show.wav", "--out", "show.mp4", "--asr", "pocketsphinx",
                                        "--tts", "espeak"};
  arguments.insert(arguments.end(), more.begin(), more.end());
  return FromCommandLine(arguments);
}

TEST(LiveFlagsTest, SegmentMinutesIsAWholeNumberOfMinutesUpToADay) {
  auto with = [](const std::string& value) { return MinimalCommandLineWith({"--segment-minutes", value}); };
  absl::StatusOr<LiveOptions> options = MinimalCommandLineWith({});
  ASSERT_OK(options);
  EXPECT_EQ(options->outputs.segment_minutes, 0);  // one file unless asked
  options = with("30");
  ASSERT_OK(options);
  EXPECT_EQ(options->outputs.segment_minutes, 30);
  nlohmann::json settings = Base();
  settings["segment_minutes"] = 60;
  options = LiveOptionsFromSettings(settings, {});
  ASSERT_OK(options);
  EXPECT_EQ(options->outputs.segment_minutes, 60);

  EXPECT_THAT(with("2000"), StatusIs(absl::StatusCode::kInvalidArgument,
                                     HasSubstr("--segment-minutes 2000 is outside 1..1440 (0: one MP4 file)")));
  EXPECT_THAT(with("-1"), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--segment-minutes -1 is outside")));
  for (const std::string bad : {"half", "1.5", "10m"}) {
    EXPECT_THAT(with(bad), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--segment-minutes"))) << bad;
  }
  settings["segment_minutes"] = "hourly";
  EXPECT_THAT(LiveOptionsFromSettings(settings, {}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--segment-minutes")));
  settings["segment_minutes"] = 1441;
  EXPECT_EQ(LiveOptionsFromSettings(settings, {}).status(), with("1441").status());
}

TEST(LiveFlagsTest, EncoderThreadsAreAutomaticOrAFewUpTo64) {
  auto with = [](const std::string& value) { return MinimalCommandLineWith({"--encoder-threads", value}); };
  absl::StatusOr<LiveOptions> options = MinimalCommandLineWith({});
  ASSERT_OK(options);
  EXPECT_EQ(options->outputs.encoder_threads, 0);  // x264 chooses
  options = with("2");
  ASSERT_OK(options);
  EXPECT_EQ(options->outputs.encoder_threads, 2);
  nlohmann::json settings = Base();
  settings["encoder_threads"] = 3;
  options = LiveOptionsFromSettings(settings, {});
  ASSERT_OK(options);
  EXPECT_EQ(options->outputs.encoder_threads, 3);

  EXPECT_THAT(with("65"), StatusIs(absl::StatusCode::kInvalidArgument,
                                   HasSubstr("--encoder-threads 65 is outside 0..64 (0: automatic)")));
  EXPECT_THAT(with("-1"), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--encoder-threads -1 is outside")));
  EXPECT_THAT(with("many"), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--encoder-threads")));
  settings["encoder_threads"] = 100;
  EXPECT_EQ(LiveOptionsFromSettings(settings, {}).status(), with("100").status());
}

TEST(LiveFlagsTest, ThePartialCadenceIsTheRecognizersOwnOrOneFrom100MsTo5s) {
  auto with = [](const std::string& value) { return MinimalCommandLineWith({"--asr-partial-ms", value}); };
  absl::StatusOr<LiveOptions> options = MinimalCommandLineWith({});
  ASSERT_OK(options);
  EXPECT_EQ(options->recognition.partial_interval_ms, 0);
  PartialCadence cadence = LivePartialCadence(options->recognition, /*scores_openings=*/false);
  EXPECT_EQ(cadence.follower, MediaTime::Millis(250));
  EXPECT_EQ(cadence.whisper_cpu_ms, 0);  // Whisper's own: 500 ms
  EXPECT_EQ(cadence.whisper_gpu_ms, 0);  // ... and 250 ms on a GPU
  // Opening scores gain from each decode more: 150 ms, Whisper's CPU cadence kept.
  cadence = LivePartialCadence(options->recognition, /*scores_openings=*/true);
  EXPECT_EQ(cadence.follower, MediaTime::Millis(150));
  EXPECT_EQ(cadence.whisper_cpu_ms, 0);
  EXPECT_EQ(cadence.whisper_gpu_ms, 150);

  options = with("150");
  ASSERT_OK(options);
  cadence = LivePartialCadence(options->recognition, /*scores_openings=*/false);
  EXPECT_EQ(cadence.follower, MediaTime::Millis(150));
  EXPECT_EQ(cadence.whisper_cpu_ms, 150);
  EXPECT_EQ(cadence.whisper_gpu_ms, 150);
  nlohmann::json settings = Base();
  settings["asr_partial_ms"] = 1000;
  options = LiveOptionsFromSettings(settings, {});
  ASSERT_OK(options);
  // Given, it holds with opening scores too.
  cadence = LivePartialCadence(options->recognition, /*scores_openings=*/true);
  EXPECT_EQ(cadence.follower, MediaTime::Seconds(1));
  EXPECT_EQ(cadence.whisper_cpu_ms, 1000);
  EXPECT_EQ(cadence.whisper_gpu_ms, 1000);

  EXPECT_THAT(with("99"), StatusIs(absl::StatusCode::kInvalidArgument,
                                   HasSubstr("--asr-partial-ms 99 is outside 100..5000 (0: the recognizer's own")));
  EXPECT_THAT(with("5001"), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--asr-partial-ms 5001")));
  EXPECT_THAT(with("-5"), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--asr-partial-ms -5")));
  settings["asr_partial_ms"] = 20;
  EXPECT_EQ(LiveOptionsFromSettings(settings, {}).status(), with("20").status());
}

TEST(LiveFlagsTest, SettingsThatAreNotFlagsAreRefusedByName) {
  nlohmann::json settings = Base();
  settings["frames_per_second"] = 30;
  EXPECT_THAT(LiveOptionsFromSettings(settings, {}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("setting \"frames_per_second\": no such setting")));
  settings = Base();
  settings["max-lag"] = 3;  // the flag's spelling, not the setting's
  EXPECT_THAT(LiveOptionsFromSettings(settings, {}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("setting \"max-lag\": no such setting")));
  settings = Base();
  settings["help"] = true;
  EXPECT_THAT(LiveOptionsFromSettings(settings, {}), StatusIs(absl::StatusCode::kInvalidArgument, ::testing::_));
  settings = Base();
  settings["report"] = "r.json";
  EXPECT_THAT(LiveOptionsFromSettings(settings, {"report"}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("setting \"report\": not taken here")));
}

TEST(LiveFlagsTest, ValuesOfTheWrongShapeAreRefused) {
  for (const auto& [key, value, why] : std::vector<std::tuple<std::string, nlohmann::json, std::string>>{
           {"pip", "yes", "expected true or false"},
           {"fps", {25, 30}, "takes one value, not a list"},
           {"title", {{"name", "x"}}, "expected a string or a number"},
           {"out", {{{"file", "a.mp4"}}}, "expected a string or a number"},
           {"script", nullptr, "expected a string or a number"},
       }) {
    nlohmann::json settings = Base();
    settings[key] = value;
    EXPECT_THAT(LiveOptionsFromSettings(settings, {}),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(absl::StrCat("setting \"", key, "\": ", why))))
        << key;
  }
  EXPECT_THAT(LiveOptionsFromSettings(nlohmann::json::array(), {}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("JSON object")));
}

TEST(LiveFlagsTest, TheWatchdogsMarksAreReadAndBadOnesRefused) {
  const std::vector<std::string> base = {"--in", "show.wav", "--out", "show.mp4", "--asr", "pocketsphinx", "--tts",
                                         "espeak"};
  auto with = [&](std::vector<std::string> more) {
    std::vector<std::string> arguments = base;
    arguments.insert(arguments.end(), more.begin(), more.end());
    return FromCommandLine(arguments);
  };
  absl::StatusOr<LiveOptions> defaults = with({});
  ASSERT_OK(defaults);
  EXPECT_TRUE(defaults->watchdog.enabled);
  EXPECT_EQ(defaults->watchdog.limits.lag_high, MediaTime::Seconds(3));
  EXPECT_EQ(defaults->watchdog.limits.lag_low, MediaTime::Seconds(1));
  EXPECT_EQ(defaults->watchdog.limits.rss_high_mb, 0) << "memory is not watched unless asked";
  EXPECT_EQ(defaults->watchdog.limits.gpu_high_mb, 0) << "nor the GPU's";

  absl::StatusOr<LiveOptions> set =
      with({"--watch-lag", "2.5,0.5", "--watch-memory", "1800,1500", "--watch-gpu-memory", "70000,60000"});
  ASSERT_OK(set);
  EXPECT_EQ(set->watchdog.limits.gpu_high_mb, 70000);
  EXPECT_EQ(set->watchdog.limits.gpu_low_mb, 60000);
  EXPECT_EQ(set->watchdog.limits.lag_high, MediaTime::Millis(2500));
  EXPECT_EQ(set->watchdog.limits.lag_low, MediaTime::Millis(500));
  EXPECT_EQ(set->watchdog.limits.rss_high_mb, 1800);
  EXPECT_EQ(set->watchdog.limits.rss_low_mb, 1500);
  absl::StatusOr<LiveOptions> off = with({"--watchdog", "off", "--watch-lag", "off"});
  ASSERT_OK(off);
  EXPECT_FALSE(off->watchdog.enabled);
  EXPECT_EQ(off->watchdog.limits.lag_high, MediaTime::Zero());

  for (const auto& [flag, value] : std::vector<std::pair<std::string, std::string>>{
           {"--watch-lag", "1,3"}, {"--watch-lag", "3"}, {"--watch-lag", "a,b"}, {"--watch-lag", "nan,1"},
           {"--watch-memory", "1000,1000"}, {"--watch-memory", "-5,-10"}, {"--watch-lag", "3,1,0"},
           {"--watch-gpu-memory", "60000,70000"}, {"--watch-gpu-memory", "auto"}}) {
    EXPECT_THAT(with({flag, value}),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr(flag + " \"" + value + "\": expected HIGH,LOW (two numbers, HIGH above LOW) or off")))
        << flag << " " << value;
  }
  EXPECT_THAT(with({"--watchdog", "maybe"}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--watchdog \"maybe\": expected on or off")));
  // The server's settings take the same flags, with the same messages.
  nlohmann::json settings = Base();
  settings["watch_lag"] = "1,3";
  EXPECT_EQ(LiveOptionsFromSettings(settings, {}).status(), with({"--watch-lag", "1,3"}).status());
}

// Found by fuzz/session_settings_fuzz.cc: seconds beyond what a MediaTime holds
// were converted before their range was checked (undefined behaviour, which
// UBSan reported); now they fail, from the command line as from a session.
TEST(LiveFlagsTest, SecondsBeyondAnyClockAreRefused) {
  for (const auto& [key, flag, seconds] : std::vector<std::tuple<std::string, std::string, double>>{
           {"source_timeout", "--source-timeout", 1.1e41},
           {"max_lag", "--max-lag", -1e300},
       }) {
    nlohmann::json settings = Base();
    settings[key] = seconds;
    const absl::StatusOr<LiveOptions> from_settings = LiveOptionsFromSettings(settings, {});
    EXPECT_THAT(from_settings,
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(flag + " " + absl::StrFormat("%g", seconds) +
                                                                        " s is not a time lingcast can count")))
        << key;
    EXPECT_EQ(from_settings.status(),
              FromCommandLine({"--in", "show.wav", "--out", "show.mp4", "--asr", "pocketsphinx", "--tts", "espeak",
                               flag, absl::StrFormat("%g", seconds)})
                  .status());
  }
}

// Found by fuzz/session_settings_fuzz.cc: "\u0000" in a path passed the
// confinement of serve's session paths and would be cut short when opened.
TEST(LiveFlagsTest, ANulByteInAValueIsRefused) {
  const std::string with_nul("a\0/../../b.tsv", 14);
  for (const auto& [key, value] : std::vector<std::pair<std::string, nlohmann::json>>{
           {"tm", {"ok.tsv", with_nul}},
           {"script", with_nul},
           {"title", with_nul},
       }) {
    nlohmann::json settings = Base();
    settings[key] = value;
    EXPECT_THAT(LiveOptionsFromSettings(settings, {}),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr(absl::StrCat("setting \"", key, "\": a NUL byte (\\u0000) cannot be in a setting"))))
        << key;
  }
}

}  // namespace
}  // namespace lingcast
