#include "app/render_stages.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>

#include "graph/harness.h"
#include "tts/espeak_engine.h"

namespace lingcast {
namespace {

class SpeechStageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    EspeakOptions options;
    options.lexicon_path = std::string(LINGCAST_BINARY_DIR) + "/data/zh_lexicon.tsv";
    auto engine = EspeakEngine::Create(options);
    ASSERT_TRUE(engine.ok()) << engine.status();
    engine_ = std::move(*engine);
  }
  std::unique_ptr<EspeakEngine> engine_;
};

TEST_F(SpeechStageTest, PlacesSpeechAndPausesOnTheAudioTimelineBySampleCount) {
  RenderProgress progress;
  StageHarness<SpeechStage> h(std::make_unique<SpeechStage>(*engine_, SpeechSettings{}, progress));
  auto feed = h.Feed(h.stage().in);
  auto audio = h.Collect(h.stage().audio);
  auto timing = h.Collect(h.stage().timing);
  feed.Push(PlanItem{Utterance{1, {"大家好", Language::kZh}, {"Hello everyone", Language::kEn}}}, MediaTime::Micros(0));
  feed.Push(PlanItem{PlannedPause{MediaTime::Millis(600)}}, MediaTime::Micros(1));
  feed.Push(PlanItem{Utterance{3, {"Welcome to the show", Language::kEn}, {}}}, MediaTime::Micros(2));
  feed.End();
  ASSERT_TRUE(h.RunUntilFinished().ok());
  EXPECT_TRUE(progress.speech_done.load());

  const auto a = audio.Packets();
  const auto t = timing.Packets();
  ASSERT_EQ(a.size(), 3u);
  ASSERT_EQ(t.size(), 3u);
  // Contiguous: each packet starts where the previous ended; no gaps, no overlap.
  EXPECT_EQ(a[0].pts, MediaTime::Zero());
  int64_t samples = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].pts, MediaTime::FromSamples(samples, engine_->sample_rate())) << i;
    samples += a[i].value.frames();
    EXPECT_EQ(a[i].end(), MediaTime::FromSamples(samples, engine_->sample_rate())) << i;
    EXPECT_EQ(t[i].pts, a[i].pts);
    EXPECT_EQ(t[i].duration, a[i].duration);
  }
  EXPECT_EQ(progress.audio_samples.load(), samples);
  EXPECT_EQ(a[1].duration, MediaTime::Millis(600));
  // Speech has a cue covering exactly its audio, and a mouth that moves.
  ASSERT_TRUE(t[0].value.cue.has_value());
  EXPECT_EQ(t[0].value.cue->start, a[0].pts);
  EXPECT_EQ(t[0].value.cue->end, a[0].end());
  EXPECT_EQ(t[0].value.cue->secondary.text, "Hello everyone");
  EXPECT_FALSE(t[0].value.visemes.cues.empty());
  EXPECT_FALSE(t[1].value.cue.has_value());  // a pause shows no subtitle
  EXPECT_EQ(h.stage().cues().size(), 2u);
  // The English line's words, for the highlight: byte ranges of the spoken
  // text, in order, inside the cue's time.
  const SubtitleCue& en = *t[2].value.cue;
  ASSERT_EQ(en.words.size(), 4u);
  EXPECT_EQ(en.primary.text.substr(en.words[0].text_offset, en.words[0].text_length), "Welcome");
  EXPECT_EQ(en.primary.text.substr(en.words[3].text_offset, en.words[3].text_length), "show");
  for (size_t i = 0; i < en.words.size(); ++i) {
    EXPECT_GE(en.words[i].start, en.start) << i;
    EXPECT_LE(en.words[i].end, en.end) << i;
    EXPECT_LT(en.words[i].start, en.words[i].end) << i;
    if (i > 0) {
      EXPECT_GE(en.words[i].start, en.words[i - 1].start) << i;
    }
  }
}

TEST_F(SpeechStageTest, AnUnknownVoiceFailsNamingTheLine) {
  RenderProgress progress;
  StageHarness<SpeechStage> h(
      std::make_unique<SpeechStage>(*engine_, SpeechSettings{"", "xx-nonexistent", 1.0}, progress));
  auto feed = h.Feed(h.stage().in);
  feed.Push(PlanItem{Utterance{7, {"Hello", Language::kEn}, {}}}, MediaTime::Zero());
  feed.End();
  const absl::Status s = h.RunUntilFinished();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("line 7"), absl::string_view::npos) << s;
}

std::string TempPath(const std::string& name) {
  return (std::filesystem::temp_directory_path() / (name + "-" + std::to_string(getpid()) + ".mp4")).string();
}

std::shared_ptr<VideoFrame> GreyFrame(int w, int h) {
  auto f = std::make_shared<VideoFrame>();
  f->Allocate(w, h);
  for (size_t i = 0; i < f->rgba.size(); i += 4) {
    f->rgba[i] = f->rgba[i + 1] = f->rgba[i + 2] = 128;
    f->rgba[i + 3] = 255;
  }
  return f;
}

VideoEncoderOptions SmallVideo() {
  VideoEncoderOptions v;
  v.width = 160;
  v.height = 90;
  v.fps_num = 10;
  return v;
}

TEST(EncodeStageTest, InterleavesAudioAndVideoAndFinishesTheFile) {
  const std::string path = TempPath("encode-stage");
  AudioEncoderOptions audio_options;
  audio_options.input_sample_rate = 16000;
  SystemClock clock;
  auto writer = OutputSet::Open({*ParseOutputSpec(path)}, SmallVideo(), audio_options, {}, clock);
  ASSERT_TRUE(writer.ok()) << writer.status();
  RenderProgress progress;
  StageHarness<EncodeStage> h(std::make_unique<EncodeStage>(std::move(*writer), /*fps=*/10, progress));
  auto audio = h.Feed(h.stage().audio);
  auto video = h.Feed(h.stage().video);
  for (int i = 0; i < 10; ++i) {
    AudioBuffer pcm = AudioBuffer::Silence(MediaTime::Millis(100), 16000);
    audio.Push(std::move(pcm), MediaTime::Millis(100 * i), MediaTime::Millis(100));
    video.Push(GreyFrame(160, 90), MediaTime::Millis(100 * i), MediaTime::Millis(100));
  }
  audio.End();
  video.End();
  ASSERT_TRUE(h.RunUntilFinished().ok());
  EXPECT_TRUE(h.stage().finished());
  EXPECT_EQ(progress.frames_encoded.load(), 10);
  EXPECT_TRUE(std::filesystem::exists(path));
  EXPECT_GT(std::filesystem::file_size(path), 0u);
  std::filesystem::remove(path);
}

TEST(EncodeStageTest, AStopBeforeTheEndLeavesNoFile) {
  const std::string path = TempPath("encode-stage-stopped");
  AudioEncoderOptions audio_options;
  audio_options.input_sample_rate = 16000;
  SystemClock clock;
  auto writer = OutputSet::Open({*ParseOutputSpec(path)}, SmallVideo(), audio_options, {}, clock);
  ASSERT_TRUE(writer.ok()) << writer.status();
  RenderProgress progress;
  {
    StageHarness<EncodeStage> h(std::make_unique<EncodeStage>(std::move(*writer), /*fps=*/10, progress));
    auto audio = h.Feed(h.stage().audio);
    auto video = h.Feed(h.stage().video);
    audio.Push(AudioBuffer::Silence(MediaTime::Millis(100), 16000), MediaTime::Zero(), MediaTime::Millis(100));
    video.Push(GreyFrame(160, 90), MediaTime::Zero(), MediaTime::Millis(100));
    ASSERT_TRUE(h.Step().ok());
    ASSERT_TRUE(h.Step().ok());
    EXPECT_FALSE(h.stage().finished());
  }  // the stage (and its writer) go away mid-stream, as on SIGINT
  EXPECT_FALSE(std::filesystem::exists(path));
  for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::temp_directory_path())) {
    EXPECT_EQ(entry.path().filename().string().find("encode-stage-stopped"), std::string::npos) << entry.path();
  }
}

}  // namespace
}  // namespace lingcast

namespace lingcast {
namespace {

class VideoStageTest : public ::testing::Test {
 protected:
  std::unique_ptr<VideoStage> MakeStage(bool burn_subtitles, RenderProgress& progress) {
    compose::CompositorOptions options;
    options.width = 320;
    options.height = 180;
    auto compositor = compose::Compositor::Create(options);
    EXPECT_TRUE(compositor.ok()) << compositor.status();
    return std::make_unique<VideoStage>(std::move(*compositor), std::make_unique<AvatarRenderer>(),
                                        AnimatorOptions{}, /*fps=*/10, burn_subtitles, progress,
                                        /*frames_in_flight=*/64);  // the test holds every frame
  }

  static Packet<SpeechTiming> Speech(MediaTime pts, MediaTime duration, Viseme shape, bool with_cue) {
    SpeechTiming timing;
    timing.visemes.cues.push_back(VisemeCue{MediaTime::Zero(), duration, shape});
    if (with_cue) timing.cue = SubtitleCue{pts, pts + duration, {"大家好", Language::kZh}, {"Hello", Language::kEn}};
    return Packet<SpeechTiming>{std::move(timing), pts, duration, pts};
  }
};

TEST_F(VideoStageTest, RendersEveryFrameOfTheSpeechTimelineInOrder) {
  RenderProgress progress;
  StageHarness<VideoStage> h(MakeStage(true, progress));
  auto feed = h.Feed(h.stage().in);
  auto sink = h.Collect(h.stage().out);
  ASSERT_TRUE(h.Open().ok());
  feed.Push(Speech(MediaTime::Zero(), MediaTime::Millis(1000), Viseme::kD, true));
  feed.Push(Speech(MediaTime::Millis(1000), MediaTime::Millis(450), Viseme::kX, false));
  feed.End();
  ASSERT_TRUE(h.RunUntilFinished().ok());
  const auto frames = sink.Packets();
  // 1.45 s at 10 fps: frames 0..14 (the last one starts at 1.4 s, inside the audio).
  ASSERT_EQ(frames.size(), 15u);
  for (size_t i = 0; i < frames.size(); ++i) {
    EXPECT_EQ(frames[i].pts, MediaTime::Millis(100 * static_cast<int64_t>(i)));
    EXPECT_EQ(frames[i].duration, MediaTime::Millis(100));
    EXPECT_EQ(frames[i].value->width, 320);
  }
  EXPECT_EQ(progress.frames_rendered.load(), 15);
}

TEST_F(VideoStageTest, TheMouthFollowsTheVisemesAndSubtitlesFollowTheCue) {
  RenderProgress progress;
  StageHarness<VideoStage> h(MakeStage(true, progress));
  auto feed = h.Feed(h.stage().in);
  auto sink = h.Collect(h.stage().out);
  ASSERT_TRUE(h.Open().ok());
  feed.Push(Speech(MediaTime::Zero(), MediaTime::Millis(500), Viseme::kD, true));     // wide open, subtitled
  feed.Push(Speech(MediaTime::Millis(500), MediaTime::Millis(500), Viseme::kX, false));  // rest, no subtitle
  feed.End();
  ASSERT_TRUE(h.RunUntilFinished().ok());
  const auto frames = sink.Packets();
  ASSERT_EQ(frames.size(), 10u);
  const VideoFrame& open = *frames[3].value;  // 0.3 s: inside the D cue, past the cross-fade
  const VideoFrame& rest = *frames[8].value;  // 0.8 s: at rest
  const Rect mouth = AvatarRenderer::MouthRegion(compose::AvatarArea(320, 180, compose::AvatarPlacement{}));
  int mouth_differences = 0;
  for (int y = mouth.y; y < mouth.bottom(); ++y) {
    for (int x = mouth.x; x < mouth.right(); ++x) {
      mouth_differences += std::memcmp(open.Row(y) + 4 * x, rest.Row(y) + 4 * x, 4) != 0;
    }
  }
  EXPECT_GT(mouth_differences, mouth.width * mouth.height / 10) << "the mouth did not move";
  // The bottom band carries the subtitle only while the cue is on.
  int subtitle_differences = 0;
  for (int y = 150; y < 180; ++y) {
    for (int x = 0; x < 320; ++x) subtitle_differences += std::memcmp(open.Row(y) + 4 * x, rest.Row(y) + 4 * x, 4) != 0;
  }
  EXPECT_GT(subtitle_differences, 200);
}

TEST_F(VideoStageTest, AnEmotionChangesTheFaceFromItsLineOn) {
  // The same two seconds of rest, said neutral and then with a smile set on the
  // second line: the frames differ only after the smile's line begins.
  auto render = [&](std::optional<Expression> second_line) {
    RenderProgress progress;
    StageHarness<VideoStage> h(MakeStage(false, progress));
    auto feed = h.Feed(h.stage().in);
    auto sink = h.Collect(h.stage().out);
    EXPECT_TRUE(h.Open().ok());
    Packet<SpeechTiming> first = Speech(MediaTime::Zero(), MediaTime::Millis(1000), Viseme::kX, false);
    first.value.expression = Expression::kNeutral;
    Packet<SpeechTiming> second = Speech(MediaTime::Millis(1000), MediaTime::Millis(1000), Viseme::kX, false);
    second.value.expression = second_line;
    feed.Push(std::move(first));
    feed.Push(std::move(second));
    feed.End();
    EXPECT_TRUE(h.RunUntilFinished().ok());
    return sink.Packets();
  };
  const auto neutral = render(Expression::kNeutral);
  const auto smiling = render(Expression::kSmile);
  ASSERT_EQ(neutral.size(), 20u);
  ASSERT_EQ(smiling.size(), 20u);
  auto same = [](const VideoFrame& a, const VideoFrame& b) {
    for (int y = 0; y < a.height; ++y) {
      if (std::memcmp(a.Row(y), b.Row(y), static_cast<size_t>(4 * a.width)) != 0) return false;
    }
    return true;
  };
  EXPECT_TRUE(same(*neutral[5].value, *smiling[5].value)) << "before the smile's line";
  EXPECT_FALSE(same(*neutral[19].value, *smiling[19].value)) << "the smile should show by the end of its line";
}

TEST_F(VideoStageTest, ATitleShowsFromItsStretchUntilTurnedOff) {
  // Three seconds of rest: a title set at 1 s and turned off at 2 s changes
  // only the frames from 1 s on, on the left, and is gone by 2.5 s.
  auto render = [&](bool with_title) {
    RenderProgress progress;
    StageHarness<VideoStage> h(MakeStage(false, progress));
    auto feed = h.Feed(h.stage().in);
    auto sink = h.Collect(h.stage().out);
    EXPECT_TRUE(h.Open().ok());
    Packet<SpeechTiming> first = Speech(MediaTime::Zero(), MediaTime::Millis(1000), Viseme::kX, false);
    Packet<SpeechTiming> second = Speech(MediaTime::Millis(1000), MediaTime::Millis(1000), Viseme::kX, false);
    Packet<SpeechTiming> third = Speech(MediaTime::Millis(2000), MediaTime::Millis(1000), Viseme::kX, false);
    if (with_title) {
      second.value.title = "Li Na|Host";
      third.value.title = "";
    }
    feed.Push(std::move(first));
    feed.Push(std::move(second));
    feed.Push(std::move(third));
    feed.End();
    EXPECT_TRUE(h.RunUntilFinished().ok());
    return sink.Packets();
  };
  const auto plain = render(false);
  const auto titled = render(true);
  ASSERT_EQ(plain.size(), 30u);
  ASSERT_EQ(titled.size(), 30u);
  // Pixels that differ: on the left (where the bar rests, left of 60 % of the
  // width; at 320x180 it sits over the middle rows, above the subtitle zone) and elsewhere.
  auto differences = [](const VideoFrame& a, const VideoFrame& b) {
    std::pair<int, int> left_and_elsewhere{0, 0};
    for (int y = 0; y < a.height; ++y) {
      for (int x = 0; x < a.width; ++x) {
        if (std::memcmp(a.Row(y) + 4 * x, b.Row(y) + 4 * x, 4) == 0) continue;
        (x < a.width * 6 / 10 ? left_and_elsewhere.first : left_and_elsewhere.second)++;
      }
    }
    return left_and_elsewhere;
  };
  EXPECT_EQ(differences(*plain[9].value, *titled[9].value), std::make_pair(0, 0)) << "before the title";
  const auto shown = differences(*plain[18].value, *titled[18].value);
  EXPECT_GT(shown.first, 500) << "the bar is drawn by 1.8 s";
  EXPECT_EQ(shown.second, 0) << "only where the bar is";
  EXPECT_EQ(differences(*plain[26].value, *titled[26].value), std::make_pair(0, 0)) << "gone after @title off";
}

}  // namespace
}  // namespace lingcast
