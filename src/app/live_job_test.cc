// `lingcast live` end to end on the simulated clock: a show made by the TTS,
// heard, followed, translated, spoken by the avatar and written to an MP4.
#include "app/live_job.h"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "audio/audio_decoder.h"
#include "audio/resampler.h"
#include "audio/test_audio.h"
#include "compose/geometry.h"
#include "compose/gpu_compositor.h"
#include "compose/media_background.h"
#include "core/scratch_dir.h"
#include "core/status.h"
#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "output/output_set.h"
#include "output/read_back.h"
#include "output/rtmp_test_server.h"
#include "tts/test_engine.h"

namespace lingcast {
namespace {

using ::testing::HasSubstr;
using testing_util::ScratchDir;

// Lines 3, 4, 5 and 7 are said in the show below (pocketsphinx hears espeak-ng's
// en-gb voice saying them reliably); the others are never said.
constexpr char kScript[] =
    "en: Welcome to the live room everyone | zh: 欢迎大家来到直播间\n"
    "en: Today we have a very special face cream for you | zh: 今天给大家带来一款特别的面霜\n"
    "en: This dress comes in red and in black | zh: 这条裙子有红色和黑色\n"
    "en: Click the link below to buy it now | zh: 点击下方链接立即购买\n"
    "en: Do not forget to follow our channel | zh: 别忘了关注我们的频道\n"
    "en: The price today is only ninety nine dollars | zh: 今天只要九十九美元\n"
    "en: Thank you all for watching the show tonight | zh: 感谢大家今晚收看节目\n";

struct Said {
  std::string text;
  MediaTime silence_after = MediaTime::Millis(1200);
};

// The host: espeak-ng en-gb at 16 kHz, as raw s16le (what `--in -` reads).
std::string HostPcm(const std::vector<Said>& show, double cut_fraction = 1.0) {
  std::vector<float> samples(8000, 0.0f);
  for (const Said& said : show) {
    SynthesisRequest request;
    request.text = said.text;
    request.language = Language::kEn;
    request.voice = "en-gb";
    absl::StatusOr<SynthesisResult> speech = TestEspeakEngine().Synthesize(request);
    EXPECT_OK(speech);
    absl::StatusOr<Resampler> resampler = Resampler::Create(speech->audio.sample_rate, 16000);
    std::vector<float> converted;
    EXPECT_OK(resampler->Push(speech->audio.samples, converted));
    EXPECT_OK(resampler->Flush(converted));
    samples.insert(samples.end(), converted.begin(), converted.end());
    samples.resize(samples.size() + static_cast<size_t>(said.silence_after.ToSamples(16000)), 0.0f);
  }
  samples.resize(static_cast<size_t>(static_cast<double>(samples.size()) * cut_fraction));
  std::string bytes;
  for (float s : samples) {
    const int16_t v = static_cast<int16_t>(std::clamp(s, -1.0f, 1.0f) * 32767);
    bytes.push_back(static_cast<char>(v & 0xff));
    bytes.push_back(static_cast<char>((v >> 8) & 0xff));
  }
  return bytes;
}

class LiveJobTest : public ::testing::Test {
 protected:
  // The voice reads the Mandarin lexicon the build generates.
  static void SetUpTestSuite() { setenv("LINGCAST_DATA_DIR", LINGCAST_BINARY_DIR "/data", 1); }

  LiveOptions Options() {
    LiveOptions options;
    options.input.path.assign(1, '-');  // stdin; assign(): GCC 12's -Wrestrict misfires on = "-" here
    options.outputs.destinations = {dir_.File("out.mp4")};
    options.translation.script_path = dir_.File("show.script");
    std::ofstream(options.translation.script_path) << kScript;
    options.timing.clock = LiveClock::kSimulated;
    // The pipeline on the embedded recognizer (what these tests' espeak-ng hosts
    // were tuned on); Whisper's live path has tests of its own (e2e WhisperCli).
    options.recognition.engine = "pocketsphinx";
    options.look.width = 320;
    options.look.height = 180;
    options.look.fps = 15;
    options.quiet = true;
    return options;
  }

  absl::StatusOr<nlohmann::json> Run(const LiveOptions& options, const std::string& pcm) {
    std::istringstream in(pcm);
    return RunLive(options, logger_, signals_, in, nullptr);
  }

  ScratchDir dir_;
  Logger logger_{LogLevel::kWarning};
  SignalWatcher signals_;
};

std::vector<int> Lines(const nlohmann::json& report) {
  std::vector<int> lines;
  for (const auto& u : report["utterances"]) lines.push_back(u["line"].is_null() ? 0 : u["line"].get<int>());
  return lines;
}

TEST_F(LiveJobTest, InterpretsEveryScriptedLineInOrder) {
  LiveOptions options = Options();
  options.report_path = dir_.File("report.json");
  const std::string pcm = HostPcm({{"This dress comes in red and in black."},
                                   {"Click the link below to buy it now."},
                                   {"Do not forget to follow our channel."},
                                   {"Thank you all for watching the show tonight."}});
  absl::StatusOr<nlohmann::json> report = Run(options, pcm);
  ASSERT_OK(report);
  EXPECT_EQ(Lines(*report), (std::vector<int>{3, 4, 5, 7}));
  const std::vector<std::string> translations = {"这条裙子有红色和黑色", "点击下方链接立即购买",
                                                 "别忘了关注我们的频道", "感谢大家今晚收看节目"};
  double previous_start = -1;
  for (size_t i = 0; i < report->at("utterances").size(); ++i) {
    const nlohmann::json& u = (*report)["utterances"][i];
    EXPECT_EQ(u["translation"], translations[i]);
    EXPECT_EQ(u["engine"], "script");
    EXPECT_TRUE(u["spoken"].get<bool>());
    // The figures are there and agree with each other.
    const double speech_start = u["speech_start_ms"].get<double>();
    EXPECT_GT(speech_start, previous_start);
    previous_start = speech_start;
    EXPECT_GE(speech_start, u["decided_at_ms"].get<double>());
    EXPECT_NEAR(u["start_offset_ms"].get<double>(), speech_start - u["utterance_start_ms"].get<double>(), 0.2);
    EXPECT_NEAR(u["end_offset_ms"].get<double>(),
                u["speech_end_ms"].get<double>() - u["utterance_end_ms"].get<double>(), 0.2);
    // On the simulated clock computing takes no time: the latency is the wait
    // for the next frame (at 15 fps), and the rest the wait for the line before.
    EXPECT_GE(u["compute_latency_ms"].get<double>(), 0);
    EXPECT_LT(u["compute_latency_ms"].get<double>(), 1000.0 / 15 + 0.2);
    EXPECT_GE(u["queue_wait_ms"].get<double>(), 0);
    EXPECT_NEAR(u["compute_latency_ms"].get<double>() + u["queue_wait_ms"].get<double>(),
                speech_start - u["decided_at_ms"].get<double>(), 0.2);
    EXPECT_GT(u["commit_point"].get<double>(), 0);
    EXPECT_TRUE(u["opening_logp"].is_null());  // pocketsphinx has no opening scores: its words decided
    // Scripted lines are not captioned provisionally: their prepared translation is shown.
    EXPECT_EQ(u["provisional_updates"], 0);
    EXPECT_TRUE(u["first_provisional_ms"].is_null());
  }
  const nlohmann::json& s = (*report)["summary"];
  EXPECT_EQ(s["spoken"], 4);
  EXPECT_EQ(s["audio_drops"], 0);
  EXPECT_EQ(s["video_drops"], 0);
  EXPECT_EQ(s["compute_latency_ms"]["count"], 4);
  EXPECT_GT(s["end_offset_ms"]["p50"].get<double>(), 0);
  EXPECT_GT(s["peak_rss_mb"].get<double>(), 0);

  // The video: both streams, as long as the output timeline.
  absl::StatusOr<AudioBuffer> audio = DecodeAudioFile(options.outputs.destinations[0], 16000);
  ASSERT_OK(audio);
  EXPECT_NEAR(audio->duration().seconds(), s["output_seconds"].get<double>(), 0.1);
  // The report on disk is the one returned.
  std::ifstream file(options.report_path);
  EXPECT_EQ(nlohmann::json::parse(file)["utterances"], (*report)["utterances"]);
  // The SRT sidecar has a cue per spoken line.
  std::ifstream srt(dir_.File("out.srt"));
  std::stringstream srt_text;
  srt_text << srt.rdbuf();
  EXPECT_THAT(srt_text.str(), HasSubstr("点击下方链接立即购买"));
}

TEST_F(LiveJobTest, AnAdLibWithoutAFallbackTranslatorIsSubtitlesOnly) {
  LiveOptions options = Options();
  options.translation.engines.clear();
  const std::string pcm = HostPcm({{"Good morning, my friends, it is a lovely day."},
                                   {"Click the link below to buy it now."}});
  absl::StatusOr<nlohmann::json> report = Run(options, pcm);
  ASSERT_OK(report);
  const nlohmann::json& utterances = (*report)["utterances"];
  ASSERT_GE(utterances.size(), 2u);
  const nlohmann::json& ad_lib = utterances[0];
  EXPECT_TRUE(ad_lib["off_script"].get<bool>());
  EXPECT_EQ(ad_lib["translation"], "");
  EXPECT_FALSE(ad_lib["spoken"].get<bool>());
  EXPECT_EQ(utterances.back()["line"], 4);
  EXPECT_TRUE(utterances.back()["spoken"].get<bool>());
  EXPECT_GE((*report)["summary"]["subtitles_only"].get<int>(), 1);
  EXPECT_EQ(ad_lib["provisional_updates"], 0);
  EXPECT_EQ((*report)["summary"]["provisional_captions"], 0);
}

TEST_F(LiveJobTest, OffScriptSpeechWithAFallbackIsCaptionedWhileTheHostSpeaksThenSpoken) {
  // A real speaker without a script: all of it is off script, heard with the
  // recognizer's general model (which hears espeak-ng's voice too poorly for this).
  const std::string recording = LINGCAST_SOURCE_DIR "/../shared/data/speech/en-jfk.wav";
  if (!std::filesystem::exists(recording)) GTEST_SKIP() << recording << " is absent (the shared test data)";
  LiveOptions options = Options();
  options.input.path = recording;
  options.translation.script_path.clear();
  options.translation.engines.clear();
  // What the recognizer hears of each utterance (a run without a fallback), put
  // in a memory the next run falls back to.
  absl::StatusOr<nlohmann::json> report = Run(options, "");
  ASSERT_OK(report);
  ASSERT_GE((*report)["utterances"].size(), 1u);
  std::ofstream memory(dir_.File("adlibs.tsv"));
  std::vector<std::string> translations;
  for (const auto& u : (*report)["utterances"]) {
    EXPECT_EQ(u["provisional_updates"], 0) << "no fallback, no captions";
    translations.push_back(absl::StrCat("译文", translations.size() + 1, "：我的美国同胞们"));
    memory << u["source_text"].get<std::string>() << "\t" << translations.back() << "\n";
  }
  memory.close();

  options.translation.engines = {"tm"};
  options.translation.memory_paths = {dir_.File("adlibs.tsv")};
  options.outputs.destinations = {dir_.File("captioned.mp4")};
  report = Run(options, "");
  ASSERT_OK(report);
  const nlohmann::json& utterances = (*report)["utterances"];
  ASSERT_EQ(utterances.size(), translations.size());
  int captioned = 0, updates = 0;
  for (size_t i = 0; i < utterances.size(); ++i) {
    const nlohmann::json& u = utterances[i];
    EXPECT_TRUE(u["off_script"].get<bool>());
    EXPECT_EQ(u["translation"], translations[i]) << "the final translation replaces the captions";
    // (The last one, decided when the input ends, may come too late to say.)
    EXPECT_TRUE(u["spoken"].get<bool>() || u["skipped"].get<bool>()) << u.dump();
    updates += u["provisional_updates"].get<int>();
    if (!u["first_provisional_ms"].is_number()) continue;
    ++captioned;
    EXPECT_GE(u["provisional_updates"].get<int>(), 1);
    // On screen while the host was still speaking, long before the avatar spoke.
    EXPECT_GT(u["first_provisional_ms"].get<double>(), 0);
    EXPECT_LT(u["first_provisional_ms"].get<double>(),
              u["utterance_end_ms"].get<double>() - u["utterance_start_ms"].get<double>());
    EXPECT_LT(u["first_provisional_ms"].get<double>(), u["start_offset_ms"].get<double>());
  }
  EXPECT_GE(captioned, 1);
  const nlohmann::json& s = (*report)["summary"];
  EXPECT_EQ(s["provisional_updates"], updates);
  EXPECT_EQ(s["provisional_captions"], updates);
  EXPECT_EQ(s["provisional_failures"], 0);
  EXPECT_EQ(s["first_provisional_ms"]["count"], captioned);
  // Captions are drawn, not timed text: the subtitle file has the final translations.
  std::ifstream srt(dir_.File("captioned.srt"));
  std::stringstream srt_text;
  srt_text << srt.rdbuf();
  EXPECT_THAT(srt_text.str(), HasSubstr(translations[0]));
  EXPECT_THAT(srt_text.str(), ::testing::Not(HasSubstr("…")));
}

// The watchdog under injected pressure (its lag reading held at 5 s for the
// first 3 s of output, then 0): it steps down a rung a second (provisional
// captions, video, voice), says so in the event stream, the log and the
// report, and gives the rungs back one by one after 2 s of calm. Ad-libs meant
// captions while the host spoke; with the first rung taken they are not
// translated, and counted.
TEST_F(LiveJobTest, UnderPressureTheShowStepsDownTheLadderAndBackUp) {
  const std::string recording = LINGCAST_SOURCE_DIR "/../shared/data/speech/en-jfk.wav";
  if (!std::filesystem::exists(recording)) GTEST_SKIP() << recording << " is absent (the shared test data)";
  LiveOptions options = Options();
  options.input.path = recording;
  options.translation.script_path.clear();
  options.voice.engine = "espeak";
  // What the recognizer hears of each utterance, put in the memory the shows fall back to.
  options.translation.engines.clear();
  absl::StatusOr<nlohmann::json> heard = Run(options, "");
  ASSERT_OK(heard);
  {
    std::ofstream memory(dir_.File("adlibs.tsv"));
    for (const auto& u : (*heard)["utterances"]) memory << u["source_text"].get<std::string>() << "\t我的美国同胞们\n";
  }
  options.translation.engines = {"tm"};
  options.translation.memory_paths = {dir_.File("adlibs.tsv")};
  options.outputs.destinations = {dir_.File("calm.mp4")};
  auto run = [&](bool pressure, std::vector<nlohmann::json>* events, int floor = 0) -> absl::StatusOr<nlohmann::json> {
    options.watchdog.limits.step_interval = MediaTime::Seconds(1);
    options.watchdog.limits.recover_after = MediaTime::Seconds(2);
    std::istringstream in("");
    LC_ASSIGN_OR_RETURN(std::unique_ptr<LiveJob> job, LiveJob::Create(options, logger_, in));
    job->SetEventObserver([events](const nlohmann::json& event) {
      if (event["type"] == "degradation") events->push_back(event);
    });
    job->SetPressureSource([pressure](const LiveCounters& counters) {
      const bool high = pressure && counters.output_time < MediaTime::Seconds(3);
      return PressureReading{.lag = MediaTime::Seconds(high ? 5 : 0)};
    });
    if (floor > 0) job->SetDegradationFloor(floor);
    return job->Run(nullptr, nullptr);
  };
  std::vector<nlohmann::json> calm_events;
  absl::StatusOr<nlohmann::json> calm = run(false, &calm_events);
  ASSERT_OK(calm);
  EXPECT_TRUE(calm_events.empty());
  const nlohmann::json& calm_summary = (*calm)["summary"];
  EXPECT_EQ(calm_summary["degradation"]["deepest"], "none");
  EXPECT_EQ(calm_summary["provisional_paused"], 0);
  ASSERT_GE(calm_summary["provisional_captions"].get<int>(), 1) << "the show must have captions to give up";

  options.outputs.destinations = {dir_.File("pressed.mp4")};
  std::vector<nlohmann::json> events;
  absl::StatusOr<nlohmann::json> pressed = run(true, &events);
  ASSERT_OK(pressed);
  const nlohmann::json& summary = (*pressed)["summary"];
  const nlohmann::json& degradation = summary["degradation"];
  EXPECT_EQ(degradation["deepest"], "lighter_voice");
  EXPECT_EQ(degradation["level"], 0) << "every rung given back by the end: " << degradation.dump();
  for (const char* rung : {"drop_provisional_captions", "lower_video", "lighter_voice"}) {
    EXPECT_EQ(degradation["taken"][rung], 1) << rung;
    EXPECT_EQ(degradation["given_back"][rung], 1) << rung;
  }
  // Looks once a second of output from the end of the first frame (66 ms at
  // 15 fps): down at the first three, calm from 3 s, back up 2 s apart.
  std::vector<int64_t> at_ms;
  for (const nlohmann::json& change : degradation["changes"]) at_ms.push_back(change["at_ms"].get<int64_t>());
  EXPECT_EQ(at_ms, (std::vector<int64_t>{66, 1066, 2066, 5066, 7066, 9066}));
  EXPECT_EQ(degradation["changes"][0]["reason"], "lag 5.00 s above 3.00 s");
  ASSERT_EQ(events.size(), 6u);
  EXPECT_EQ(events[0]["rung"], "drop_provisional_captions");
  EXPECT_TRUE(events[0]["taken"].get<bool>());
  EXPECT_EQ(events[5]["level"], 0);
  EXPECT_FALSE(events[5]["taken"].get<bool>());
  // The drafts given up while the rung held; the show's lines all said as before.
  EXPECT_GE(summary["provisional_paused"].get<int>(), 1);
  EXPECT_LT(summary["provisional_captions"].get<int>(), calm_summary["provisional_captions"].get<int>());
  EXPECT_EQ((*pressed)["utterances"].size(), (*calm)["utterances"].size());
  EXPECT_EQ(summary["audio_drops"], 0);

  // The server's floor (its memory ladder): the whole show two rungs down
  // without any pressure of its own, from the first look.
  options.outputs.destinations = {dir_.File("floored.mp4")};
  std::vector<nlohmann::json> floored_events;
  absl::StatusOr<nlohmann::json> floored = run(false, &floored_events, 2);
  ASSERT_OK(floored);
  const nlohmann::json& floored_degradation = (*floored)["summary"]["degradation"];
  EXPECT_EQ(floored_degradation["level"], 2);
  EXPECT_EQ(floored_degradation["floor"], 2);
  EXPECT_TRUE(floored_degradation["changes"].empty()) << "the show's own ladder never moved";
  ASSERT_EQ(floored_events.size(), 1u);
  EXPECT_EQ(floored_events[0]["reason"], "the server's level is 2");
  EXPECT_EQ(floored_events[0]["at_ms"], 66);
  EXPECT_EQ((*floored)["summary"]["provisional_captions"], 0);
}

// The second rung on a show without an MP4 (an HLS stream): the picture at
// half its size from the look that takes the rung, and back to its size from
// the look that gives it back, as a viewer decodes the playlist; audio whole.
// (With an MP4 among the outputs the rung keeps the picture: the recording
// would be fed a second encode, costing more than the smaller picture saves.)
TEST_F(LiveJobTest, TheLowerVideoRungHalvesThePictureAndGivesItBack) {
  LiveOptions options = Options();
  options.outputs.destinations = {"hls:" + dir_.File("hls")};
  options.watchdog.limits.step_interval = MediaTime::Seconds(1);
  options.watchdog.limits.recover_after = MediaTime::Seconds(2);
  options.watchdog.limits.max_level = 2;
  std::istringstream in(HostPcm({{"Welcome to the live room everyone"}, {"This dress comes in red and in black"}}));
  absl::StatusOr<std::unique_ptr<LiveJob>> job = LiveJob::Create(options, logger_, in);
  ASSERT_OK(job);
  std::vector<nlohmann::json> video_events;
  (*job)->SetEventObserver([&video_events](const nlohmann::json& event) {
    if (event["type"] == "video") video_events.push_back(event);
  });
  (*job)->SetPressureSource([](const LiveCounters& counters) {
    return PressureReading{.lag = MediaTime::Seconds(counters.output_time < MediaTime::Seconds(2) ? 5 : 0)};
  });
  absl::StatusOr<nlohmann::json> report = (*job)->Run(nullptr, nullptr);
  ASSERT_OK(report);
  const nlohmann::json& summary = (*report)["summary"];
  EXPECT_EQ(summary["degradation"]["taken"]["lower_video"], 1);
  EXPECT_EQ(summary["degradation"]["given_back"]["lower_video"], 1);
  EXPECT_EQ(summary["video_switches"], 2);
  EXPECT_EQ(summary["audio_drops"], 0);
  // Taken at the look of 1.07 s, given back at 4.07 s (calm from 2.07 s; each
  // applied at the next frame).
  ASSERT_EQ(video_events.size(), 2u);
  EXPECT_EQ(video_events[0]["width"], 160);
  EXPECT_EQ(video_events[0]["height"], 90);
  EXPECT_EQ(video_events[0]["fps"], 15);
  EXPECT_EQ(video_events[1]["width"], 320);
  EXPECT_EQ(video_events[1]["height"], 180);
  const int64_t lowered_ms = video_events[0]["at_ms"].get<int64_t>();
  const int64_t restored_ms = video_events[1]["at_ms"].get<int64_t>();
  EXPECT_GE(lowered_ms, 1066);
  EXPECT_LE(lowered_ms, 1066 + 67);
  EXPECT_GE(restored_ms, 4066);
  EXPECT_LE(restored_ms, 4066 + 67);

  absl::StatusOr<testing_util::ReadBackResult> read =
      testing_util::ReadBackAll(dir_.File("hls") + "/index.m3u8", {}, INT64_MAX, nullptr, nullptr, /*decode=*/true);
  ASSERT_OK(read);
  const testing_util::ReadStream* video = read->Find(AVMEDIA_TYPE_VIDEO);
  ASSERT_NE(video, nullptr);
  ASSERT_FALSE(video->pictures.empty());
  EXPECT_EQ(video->decode_errors, 0);
  int before = 0, lowered = 0, after = 0;
  for (const testing_util::DecodedPicture& picture : video->pictures) {
    const bool small = picture.width == 160 && picture.height == 90;
    if (picture.pts_ms < lowered_ms - 5) {
      before += picture.width == 320 ? 1 : 0;
      EXPECT_FALSE(small) << picture.pts_ms;
    } else if (picture.pts_ms < restored_ms - 5) {
      lowered += small ? 1 : 0;
      EXPECT_TRUE(small) << picture.pts_ms;
    } else {
      after += picture.width == 320 ? 1 : 0;
      EXPECT_FALSE(small) << picture.pts_ms;
    }
  }
  EXPECT_GT(before, 0);
  EXPECT_GE(lowered, 40);  // 2.9 s at 15 fps
  EXPECT_GT(after, 0);
}

TEST_F(LiveJobTest, LongSilenceIsNotSpeech) {
  LiveOptions options = Options();
  const std::string pcm = HostPcm({{"Click the link below to buy it now.", MediaTime::Seconds(30)},
                                   {"Thank you all for watching the show tonight."}});
  absl::StatusOr<nlohmann::json> report = Run(options, pcm);
  ASSERT_OK(report);
  EXPECT_EQ(Lines(*report), (std::vector<int>{4, 7}));
  EXPECT_GT((*report)["summary"]["output_seconds"].get<double>(), 33);
}

TEST_F(LiveJobTest, OverlappingSpeechDoesNotStallThePipeline) {
  // Two people talking at once (the show and a second voice mixed at the same
  // level): whatever is recognized, the run ends, in order, with nothing dropped.
  const std::string a = HostPcm({{"Click the link below to buy it now."}, {"Do not forget to follow our channel."}});
  const std::string b = HostPcm({{"My cat just jumped on the table, sorry about that."}});
  std::string mixed = a;
  for (size_t i = 0; i + 1 < std::min(a.size(), b.size()); i += 2) {
    const int sum = static_cast<int16_t>((static_cast<uint8_t>(a[i]) | static_cast<uint8_t>(a[i + 1]) << 8)) / 2 +
                    static_cast<int16_t>((static_cast<uint8_t>(b[i]) | static_cast<uint8_t>(b[i + 1]) << 8)) / 2;
    mixed[i] = static_cast<char>(sum & 0xff);
    mixed[i + 1] = static_cast<char>((sum >> 8) & 0xff);
  }
  absl::StatusOr<nlohmann::json> report = Run(Options(), mixed);
  ASSERT_OK(report);
  const nlohmann::json& s = (*report)["summary"];
  EXPECT_EQ(s["audio_drops"], 0);
  EXPECT_EQ(s["video_drops"], 0);
  EXPECT_GT(s["output_seconds"].get<double>(), static_cast<double>(a.size()) / 32000 - 0.5);
  double previous = -1;
  for (const auto& u : (*report)["utterances"]) {
    if (u["speech_start_ms"].is_null()) continue;
    EXPECT_GT(u["speech_start_ms"].get<double>(), previous) << "lines are said in order";
    previous = u["speech_start_ms"].get<double>();
  }
}

TEST_F(LiveJobTest, InputThatEndsMidWordStillFinishesTheLineInFlight) {
  const std::string pcm = HostPcm({{"Click the link below to buy it now.", MediaTime::Zero()}}, 0.9);
  absl::StatusOr<nlohmann::json> report = Run(Options(), pcm);
  ASSERT_OK(report);
  EXPECT_EQ(Lines(*report), (std::vector<int>{4}));
  EXPECT_TRUE((*report)["utterances"][0]["spoken"].get<bool>());
  EXPECT_TRUE(std::filesystem::exists(Options().outputs.destinations[0]));
}

TEST_F(LiveJobTest, OperatorCorrectionsApplyAndAreKeptForTheNextShow) {
  LiveOptions options = Options();
  options.translation.control_path = dir_.File("control.txt");
  options.translation.corrections_path = dir_.File("corrections.tsv");
  std::ofstream(options.translation.control_path)
      << "line 4 = 点击下面的链接马上买\nline 2 = 不是这一行\nline 99 = 没有\nterm x = y\nvideo 1281x720\n";
  const std::string pcm =
      HostPcm({{"Click the link below to buy it now."}, {"Thank you all for watching the show tonight."}});
  absl::StatusOr<nlohmann::json> report = Run(options, pcm);
  ASSERT_OK(report);
  ASSERT_EQ(Lines(*report), (std::vector<int>{4, 7}));
  EXPECT_EQ((*report)["utterances"][0]["translation"], "点击下面的链接马上买");
  EXPECT_EQ((*report)["utterances"][0]["engine"], "correction");
  EXPECT_EQ((*report)["utterances"][1]["translation"], "感谢大家今晚收看节目");
  // Line 99 does not exist and a term needs a glossary: counted, the show goes on.
  EXPECT_EQ((*report)["summary"]["corrections_applied"], 2);
  EXPECT_EQ((*report)["summary"]["corrections_rejected"], 2);
  // A bad `video` line is no correction: the playout's warning, the picture unchanged.
  EXPECT_EQ((*report)["summary"]["warnings"]["playout"], 1);
  EXPECT_EQ((*report)["summary"]["video_switches"], 0);
  std::ifstream kept(options.translation.corrections_path);
  std::stringstream kept_text;
  kept_text << kept.rdbuf();
  EXPECT_THAT(kept_text.str(), HasSubstr("line\ten\tzh\tClick the link below to buy it now\t点击下面的链接马上买"));

  // The next show starts with them, without --control.
  options.translation.control_path.clear();
  options.outputs.destinations = {dir_.File("next.mp4")};
  report = Run(options, pcm);
  ASSERT_OK(report);
  EXPECT_EQ((*report)["utterances"][0]["translation"], "点击下面的链接马上买");
  EXPECT_EQ((*report)["summary"]["corrections_applied"], 0);
}

TEST_F(LiveJobTest, TheStreamingServerDyingMidRunIsSurvivedAndReconnected) {
  using testing_util::RtmpTestServer;
  if (!RtmpTestServer::Available()) GTEST_SKIP() << RtmpTestServer::kMissing;
  RtmpTestServer server;
  ASSERT_TRUE(server.Start()) << server.ErrorLog();
  LiveOptions options = Options();
  options.outputs.destinations.push_back(server.Url("live", "show"));
  // kill -9 the server once the stream is 3 s in, and bring it straight back:
  // the sender notices on its next write and reconnects after its backoff.
  std::mutex mu;
  bool killed = false;
  int last_connection = 0;
  int64_t packets_after = 0;
  options.outputs.on_packet_written = [&](const std::string&, const PacketWritten& p) {
    std::lock_guard<std::mutex> lock(mu);
    last_connection = std::max(last_connection, p.connection);
    if (p.connection > 0) ++packets_after;
    if (!killed && p.pts > MediaTime::Seconds(3)) {
      killed = true;
      server.Kill();
      ASSERT_TRUE(server.Start()) << server.ErrorLog();
    }
  };
  absl::StatusOr<nlohmann::json> report = Run(options, HostPcm({{"This dress comes in red and in black."},
                                                                {"Click the link below to buy it now."},
                                                                {"Do not forget to follow our channel."},
                                                                {"Thank you all for watching the show tonight."}}));
  ASSERT_OK(report);
  // The show went on: every line, nothing lost on the file or the audio.
  EXPECT_EQ(Lines(*report), (std::vector<int>{3, 4, 5, 7}));
  const nlohmann::json& s = (*report)["summary"];
  EXPECT_EQ(s["audio_drops"], 0);
  ASSERT_EQ(s["outputs"].size(), 2u);
  EXPECT_EQ(s["outputs"][0]["error"], "");
  absl::StatusOr<AudioBuffer> audio = DecodeAudioFile(options.outputs.destinations[0], 16000);
  ASSERT_OK(audio);
  EXPECT_NEAR(audio->duration().seconds(), s["output_seconds"].get<double>(), 0.1);
  // ...and the stream came back on a new connection.
  std::lock_guard<std::mutex> lock(mu);
  EXPECT_TRUE(killed);
  EXPECT_GE(s["outputs"][1]["reconnects"].get<int>(), 1);
  EXPECT_EQ(s["outputs"][1]["error"], "");
  EXPECT_GT(s["outputs"][1]["max_send_buffer_packets"].get<int64_t>(), 0);
  EXPECT_EQ(s["outputs"][0]["max_send_buffer_packets"].get<int64_t>(), 0);  // the file has no send queue
  // The network output gives the encode a target bitrate (which the adaptive bitrate may move).
  EXPECT_GT(s["video_bitrate"]["now"].get<int64_t>(), 0);
  EXPECT_GE(last_connection, 1);
  EXPECT_GT(packets_after, 100);
}

// A host recording with video: a solid colour per second (red, green, blue, ...)
// and the show's voice, as an MP4.
const std::vector<compose::Rgba> kSecondColors = {{230, 20, 20, 255}, {20, 230, 20, 255}, {20, 20, 230, 255},
                                                  {230, 230, 20, 255}, {20, 230, 230, 255}, {230, 20, 230, 255}};

absl::Status WriteHostVideo(const std::string& path, const std::string& pcm) {
  SimulatedClock clock;
  VideoEncoderOptions video;
  video.width = 160;
  video.height = 90;
  video.fps_num = 10;
  AudioEncoderOptions audio;
  audio.input_sample_rate = 16000;
  LC_ASSIGN_OR_RETURN(OutputSpec spec, ParseOutputSpec(path));
  OutputSetOptions options;
  options.srt_sidecars = false;
  LC_ASSIGN_OR_RETURN(std::unique_ptr<OutputSet> out, OutputSet::Open({spec}, video, audio, options, clock));
  const size_t samples = pcm.size() / 2;
  for (int64_t frame = 0; static_cast<size_t>(frame) * 1600 < samples; ++frame) {
    const compose::Rgba c = kSecondColors[static_cast<size_t>(frame / 10) % kSecondColors.size()];
    VideoFrame picture;
    picture.Allocate(160, 90);
    for (size_t i = 0; i < picture.rgba.size(); i += 4) {
      picture.rgba[i] = c.r;
      picture.rgba[i + 1] = c.g;
      picture.rgba[i + 2] = c.b;
      picture.rgba[i + 3] = 255;
    }
    LC_RETURN_IF_ERROR(out->WriteVideo(picture, frame));
    AudioBuffer chunk{16000, 1, {}};
    for (size_t i = static_cast<size_t>(frame) * 1600; i < std::min(samples, static_cast<size_t>(frame + 1) * 1600); ++i) {
      chunk.samples.push_back(static_cast<int16_t>(static_cast<uint8_t>(pcm[2 * i]) | static_cast<uint8_t>(pcm[2 * i + 1]) << 8) /
                              32768.0f);
    }
    LC_RETURN_IF_ERROR(out->WriteAudio(chunk));
  }
  return out->Finish();
}

TEST_F(LiveJobTest, PictureInPictureShowsTheHostVideoInStepWithTheShow) {
  LiveOptions options = Options();
  options.input.path = dir_.File("host.mp4");
  options.look.picture_in_picture = true;
  ASSERT_OK(WriteHostVideo(options.input.path, HostPcm({{"Click the link below to buy it now."}})));
  absl::StatusOr<nlohmann::json> report = Run(options, "");
  ASSERT_OK(report);
  EXPECT_EQ(Lines(*report), (std::vector<int>{4}));
  // The output's inset (top right of 320x180) shows the host's colour of that
  // second, 100 ms behind (in step with the host voice pass-through).
  absl::StatusOr<std::unique_ptr<compose::VideoBackground>> video =
      compose::VideoBackground::Open(options.outputs.destinations[0], 320, 180, compose::BackgroundFit::kStretch);
  ASSERT_OK(video);
  for (int second = 0; second < 3; ++second) {
    absl::StatusOr<const VideoFrame*> frame = (*video)->FrameAt(MediaTime::Millis(1000 * second + 600));
    ASSERT_OK(frame);
    const uint8_t* inset = (*frame)->Row(25) + 4 * 270;  // inside the inset (x 225..315, y 5..56)
    const compose::Rgba want = kSecondColors[static_cast<size_t>(second)];
    EXPECT_NEAR(inset[0], want.r, 40) << "second " << second;
    EXPECT_NEAR(inset[1], want.g, 40) << "second " << second;
    EXPECT_NEAR(inset[2], want.b, 40) << "second " << second;
    const uint8_t* studio = (*frame)->Row(25) + 4 * 20;  // the studio background, left
    EXPECT_GT(std::abs(studio[0] - static_cast<int>(want.r)) + std::abs(studio[1] - static_cast<int>(want.g)) +
                  std::abs(studio[2] - static_cast<int>(want.b)),
              60);
  }

  // Sources without a picture say so before anything is written.
  LiveOptions no_video = Options();
  no_video.outputs.destinations = {dir_.File("none.mp4")};
  no_video.look.picture_in_picture = true;
  report = Run(no_video, HostPcm({{"Hello."}}));
  ASSERT_FALSE(report.ok());
  EXPECT_THAT(std::string(report.status().message()), HasSubstr("--pip"));
  EXPECT_FALSE(std::filesystem::exists(dir_.File("none.mp4")));
}

// --encoder-threads reaches x264, which writes its settings into the stream.
TEST_F(LiveJobTest, TheEncoderRunsOnTheThreadsAskedFor) {
  const std::string pcm = HostPcm({{"Click the link below to buy it now."}});
  for (int threads : {1, 3}) {
    LiveOptions options = Options();
    options.outputs.encoder_threads = threads;
    ASSERT_OK(Run(options, pcm));
    std::ifstream in(options.outputs.destinations[0], std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_NE(bytes.find(absl::StrCat(" threads=", threads, " ")), std::string::npos) << threads;
  }
}

// --renderer: the report says what drew the frames. Without a usable GPU,
// cuda is refused before anything is written; with one, the show is drawn
// there (its frames byte for byte the CPU's: PlayoutStageTest, GPU machine).
TEST_F(LiveJobTest, TheRendererIsReportedAndCudaWithoutAGpuWritesNothing) {
  const std::string pcm = HostPcm({{"Click the link below to buy it now."}});
  LiveOptions cpu = Options();
  cpu.look.renderer = "cpu";
  absl::StatusOr<nlohmann::json> report = Run(cpu, pcm);
  ASSERT_OK(report);
  EXPECT_EQ((*report)["summary"]["renderer"], "cpu");
  const nlohmann::json drawn_on_cpu = (*report)["summary"];

  LiveOptions cuda = Options();
  cuda.look.renderer = "cuda";
  cuda.outputs.destinations = {dir_.File("cuda.mp4")};
  report = Run(cuda, pcm);
  if (absl::Status usable = compose::ChooseRenderer("cuda").status(); !usable.ok()) {
    ASSERT_FALSE(report.ok());
    EXPECT_EQ(report.status(), usable);
    EXPECT_THAT(std::string(report.status().message()), HasSubstr("--renderer cuda"));
    EXPECT_FALSE(std::filesystem::exists(dir_.File("cuda.mp4")));
    GTEST_SKIP() << "no usable CUDA GPU here, so no show was drawn on one: " << usable.message();
  }
  ASSERT_OK(report);
  EXPECT_EQ((*report)["summary"]["renderer"], "cuda");
  EXPECT_EQ((*report)["summary"]["frames"], drawn_on_cpu["frames"]);
  EXPECT_EQ((*report)["summary"]["spoken"], drawn_on_cpu["spoken"]);
  EXPECT_GT(std::filesystem::file_size(dir_.File("cuda.mp4")), 1000u);
}

TEST_F(LiveJobTest, TheLookTakesTheSameFlagsAsRender) {
  LiveOptions options = Options();
  options.look.background = "#203040";
  options.look.subtitle_style = "box";
  options.look.title = "Lin|Live from Hangzhou";
  options.look.avatar_path = LINGCAST_SOURCE_DIR "/examples/avatars/pngtuber/pngtuber.json";
  absl::StatusOr<nlohmann::json> report = Run(options, HostPcm({{"Click the link below to buy it now."}}));
  ASSERT_OK(report);
  absl::StatusOr<std::unique_ptr<compose::VideoBackground>> video =
      compose::VideoBackground::Open(options.outputs.destinations[0], 320, 180, compose::BackgroundFit::kStretch);
  ASSERT_OK(video);
  absl::StatusOr<const VideoFrame*> frame = (*video)->FrameAt(MediaTime::Seconds(2));
  ASSERT_OK(frame);
  const uint8_t* corner = (*frame)->Row(4) + 4 * 4;
  EXPECT_NEAR(corner[0], 0x20, 12);
  EXPECT_NEAR(corner[1], 0x30, 12);
  EXPECT_NEAR(corner[2], 0x40, 12);

  // A bad look is refused before anything is written.
  for (auto bad : std::vector<std::function<void(LiveOptions&)>>{
           [](LiveOptions& o) { o.look.background = "#12345"; }, [](LiveOptions& o) { o.look.subtitle_style = "neon"; },
           [this](LiveOptions& o) { o.look.avatar_path = dir_.File("missing.json"); }}) {
    LiveOptions wrong = Options();
    wrong.outputs.destinations = {dir_.File("wrong.mp4")};
    bad(wrong);
    report = Run(wrong, HostPcm({{"Hello."}}));
    EXPECT_FALSE(report.ok());
    EXPECT_FALSE(std::filesystem::exists(dir_.File("wrong.mp4"))) << report.status();
  }
}

// A WAV file: `format` 1 (integer PCM), 3 (float) or a tag no decoder knows; any rate, channels and width.
void WriteWav(const std::string& path, int format, int rate, int channels, int bits, const std::string& data) {
  lingcast::testing::WriteFile(path, lingcast::testing::RawWavBytes(format, rate, channels, bits, data));
}

TEST_F(LiveJobTest, AnotherSampleFormatIsConvertedAndAnUnknownCodecIsNamed) {
  // The show as 44.1 kHz stereo 32-bit integer PCM.
  const std::string pcm = HostPcm({{"Click the link below to buy it now."}});
  std::vector<float> host;
  for (size_t i = 0; i + 1 < pcm.size(); i += 2) {
    host.push_back(static_cast<int16_t>(static_cast<uint8_t>(pcm[i]) | static_cast<uint8_t>(pcm[i + 1]) << 8) / 32768.0f);
  }
  absl::StatusOr<Resampler> resampler = Resampler::Create(16000, 44100);
  ASSERT_OK(resampler);
  std::vector<float> resampled;
  ASSERT_OK(resampler->Push(host, resampled));
  ASSERT_OK(resampler->Flush(resampled));
  std::string data;
  for (float v : resampled) {
    const int32_t sample = static_cast<int32_t>(std::clamp(v, -1.0f, 1.0f) * 2147483000.0f);
    for (int channel = 0; channel < 2; ++channel) data.append(reinterpret_cast<const char*>(&sample), 4);
  }
  LiveOptions options = Options();
  options.input.path = dir_.File("host_44k_s32_stereo.wav");
  WriteWav(options.input.path, 1, 44100, 2, 32, data);
  absl::StatusOr<nlohmann::json> report = Run(options, "");
  ASSERT_OK(report);
  EXPECT_EQ(Lines(*report), (std::vector<int>{4}));
  EXPECT_NEAR((*report)["summary"]["host_seconds"].get<double>(), static_cast<double>(host.size()) / 16000, 0.05);

  // A codec libav does not know in a WAV: one line naming the file, nothing written.
  LiveOptions unknown = Options();
  unknown.outputs.destinations = {dir_.File("unknown.mp4")};
  unknown.input.path = dir_.File("odd_codec.wav");
  WriteWav(unknown.input.path, 0x7777, 16000, 1, 16, std::string(32000, '\x11'));
  report = Run(unknown, "");
  ASSERT_FALSE(report.ok());
  EXPECT_THAT(std::string(report.status().message()), HasSubstr("odd_codec.wav"));
  EXPECT_FALSE(std::filesystem::exists(unknown.outputs.destinations[0]));
}

TEST_F(LiveJobTest, AScriptInAnotherLanguageIsRefusedBeforeAnythingIsWritten) {
  LiveOptions options = Options();
  std::ofstream(options.translation.script_path, std::ios::trunc) << "zh: 大家好 | \n";
  absl::StatusOr<nlohmann::json> report = Run(options, HostPcm({{"Hello."}}));
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(report.status().message()), HasSubstr("has no line in en"));
  EXPECT_FALSE(std::filesystem::exists(options.outputs.destinations[0]));
}

TEST_F(LiveJobTest, BadInputsAndOutputsAreClearErrors) {
  LiveOptions options = Options();
  options.input.path = std::string(LINGCAST_SOURCE_DIR) + "/src/avatar/testdata/avatar_A.png";
  absl::StatusOr<nlohmann::json> report = Run(options, "");
  ASSERT_FALSE(report.ok());
  EXPECT_THAT(std::string(report.status().message()), HasSubstr("avatar_A.png"));

  options = Options();
  options.input.path = dir_.File("missing.wav");
  report = Run(options, "");
  EXPECT_EQ(report.status().code(), absl::StatusCode::kNotFound);

  options = Options();
  options.outputs.destinations = {"gopher://example.com/stream"};
  report = Run(options, "");
  ASSERT_FALSE(report.ok());
  EXPECT_THAT(std::string(report.status().message()), HasSubstr("gopher"));

  options = Options();
  options.input.path = "rtmp://127.0.0.1:1/live/host";  // nothing listens there
  report = Run(options, "");
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(report.status().message()), HasSubstr("rtmp://127.0.0.1:1/live/host: cannot connect"));
  EXPECT_FALSE(std::filesystem::exists(Options().outputs.destinations[0]));
}

}  // namespace
}  // namespace lingcast
