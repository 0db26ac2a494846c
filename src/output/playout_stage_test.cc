#include "output/playout_stage.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/scratch_dir.h"
#include "core/status.h"
#include "core/status_matchers.h"
#include "graph/harness.h"
#include "output/read_back.h"
#include "output/test_util.h"
#include "output/switch_checks.h"

namespace lingcast {
namespace {

using testing_util::ScratchDir;

constexpr int kRate = 16000;
constexpr int kFps = 10;

// A line the voice stage has made: `seconds` of a tone, decided at `decided_ms`.
VoiceEvent Spoken(int64_t id, int64_t decided_ms, double seconds, const std::string& translation = "你好") {
  SpokenLine spoken;
  spoken.line.id = id;
  spoken.line.utterance = id;
  spoken.line.source_text = "hello";
  spoken.line.translation = translation;
  spoken.line.decided_at = MediaTime::Millis(decided_ms);
  if (!translation.empty()) {
    spoken.pcm = AudioBuffer{kRate, 1, std::vector<float>(static_cast<size_t>(seconds * kRate), 0.25f)};
    spoken.phonemes.phonemes.push_back(PhonemeEvent{"a", MediaTime::Zero(), spoken.pcm.duration()});
  }
  VoiceEvent event;
  event.spoken = std::move(spoken);
  event.watermark = MediaTime::Millis(decided_ms);
  return event;
}

class PlayoutStageTest : public ::testing::Test {
 protected:
  std::unique_ptr<PlayoutStage> MakeStage(bool simulated = true, const std::string& path = "",
                                          bool switchable = false) {
    VideoEncoderOptions video;
    video.width = 160;
    video.height = 90;
    video.fps_num = kFps;
    if (switchable) video.tune = "zerolatency";  // as live encodes: the picture can switch
    AudioEncoderOptions audio;
    audio.input_sample_rate = kRate;
    OutputSetOptions output_options;
    output_options.live = true;
    auto outputs = OutputSet::Open({*ParseOutputSpec(path.empty() ? path_ : path)}, video, audio, output_options, clock_);
    EXPECT_OK(outputs);
    outputs_ = std::move(*outputs);
    compose::CompositorOptions compose_options;
    compose_options.width = 160;
    compose_options.height = 90;
    auto compositor = compose::Compositor::Create(compose_options);
    EXPECT_OK(compositor);
    PlayoutOptions options;
    options.fps = kFps;
    options.output_rate = kRate;
    options.simulated = simulated;
    options.line_gap = MediaTime::Millis(250);
    options.tail = MediaTime::Millis(200);
    if (switchable) {
      // The test and the stage share one thread (the harness), so a plain vector will do.
      options.take_video_changes = [this] { return std::exchange(video_changes_, {}); };
      options.make_picture = [this](int width, int height) -> absl::StatusOr<PlayoutPicture> {
        if (refuse_pictures_) return absl::UnavailableError("no picture today");
        compose::CompositorOptions picture;
        picture.width = width;
        picture.height = height;
        LC_ASSIGN_OR_RETURN(std::unique_ptr<compose::Compositor> compositor, compose::Compositor::Create(picture));
        return Picture(std::move(compositor));
      };
    }
    absl::StatusOr<PlayoutPicture> picture = Picture(std::move(*compositor));
    EXPECT_OK(picture);
    return std::make_unique<PlayoutStage>(options, *std::move(picture), std::make_unique<AvatarRenderer>(),
                                          *outputs_, monitor_);
  }

  // The picture over `compositor`, drawn on the GPU when draw_on_gpu_.
  absl::StatusOr<PlayoutPicture> Picture(std::unique_ptr<compose::Compositor> compositor) const {
    PlayoutPicture picture{std::move(compositor), nullptr, nullptr};
    if (!inset_path_.empty()) {
      LC_ASSIGN_OR_RETURN(picture.picture_in_picture,
                          compose::PictureInPicture::Open(inset_path_, picture.compositor->options().width,
                                                          picture.compositor->options().height, {}));
    }
    if (draw_on_gpu_) {
      LC_ASSIGN_OR_RETURN(picture.gpu, compose::CreateGpuCompositor(*picture.compositor));
    }
    return picture;
  }

  // A switchable stage into path_ saying one line of 0.5 s, after its first frame.
  std::unique_ptr<StageHarness<PlayoutStage>> SwitchableShowAfterOneFrame() {
    auto h = std::make_unique<StageHarness<PlayoutStage>>(MakeStage(/*simulated=*/true, "", /*switchable=*/true));
    auto feed = h->Feed(h->stage().in);
    EXPECT_OK(h->Open());
    feed.Push(Spoken(0, 0, 0.5), MediaTime::Zero());
    feed.End();
    EXPECT_OK(h->Step());
    return h;
  }

  ScratchDir dir_;
  const std::string path_ = dir_.File("show.mp4");
  SystemClock clock_;  // the outputs' (for live pacing); the stage runs on the harness's simulated clock
  std::unique_ptr<OutputSet> outputs_;
  LiveMonitor monitor_;
  std::vector<absl::StatusOr<VideoChange>> video_changes_;
  bool refuse_pictures_ = false;
  bool draw_on_gpu_ = false;  // the CUDA renderer draws (PlayoutPicture::gpu)
  std::string inset_path_;    // when set, each picture has a picture-in-picture of it
};

// `event`'s line cut into parts as the voice sends them: the first `first_seconds`
// with the line, the rest in `later` parts, then a closing part without audio that
// carries the event's watermark.
std::vector<VoiceEvent> InParts(const VoiceEvent& event, double first_seconds, int later) {
  const SpokenLine& whole = *event.spoken;
  const size_t first = static_cast<size_t>(first_seconds * kRate);
  std::vector<VoiceEvent> parts;
  auto add = [&](SpokenLine part, MediaTime watermark) {
    VoiceEvent e;
    e.spoken = std::move(part);
    e.watermark = watermark;
    parts.push_back(std::move(e));
  };
  SpokenLine head = whole;
  head.pcm.samples.resize(first);
  head.continues = true;
  add(head, MediaTime::Zero());
  const size_t rest = whole.pcm.samples.size() - first;
  for (int i = 0; i <= later; ++i) {
    SpokenLine part;
    part.line.id = whole.line.id;
    part.part = i + 1;
    part.continues = i < later;
    part.pcm.sample_rate = kRate;
    if (i < later) {
      const size_t from = first + rest * i / later, to = first + rest * (i + 1) / later;
      part.pcm.samples.assign(whole.pcm.samples.begin() + from, whole.pcm.samples.begin() + to);
    } else {
      part.phonemes = whole.phonemes;  // the closing part may bring the rest of the track
    }
    add(std::move(part), i < later ? MediaTime::Zero() : event.watermark);
  }
  parts[0].spoken->phonemes.phonemes.clear();  // all of the track comes with the last part
  return parts;
}

// The realtime playout sleeps until each frame's time: the test's clock is moved
// there first, so frames are neither late nor waited for.
absl::StatusOr<Flow> RealtimeStep(StageHarness<PlayoutStage>& h, int64_t& tick) {
  h.clock().AdvanceTo(MediaTime::FromFrameIndex(tick++, kFps));
  return h.Step();
}

absl::Status RealtimeRunUntilFinished(StageHarness<PlayoutStage>& h, int64_t& tick) {
  for (int i = 0; i < 1000; ++i) {
    LC_ASSIGN_OR_RETURN(Flow flow, RealtimeStep(h, tick));
    if (flow == Flow::kFinished) return absl::OkStatus();
  }
  return absl::DeadlineExceededError("the playout did not finish");
}

std::string FileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST_F(PlayoutStageTest, SaysEachLineAtTheFirstFrameAfterItsDecisionThenTheNextAfterTheGap) {
  StageHarness<PlayoutStage> h(MakeStage());
  auto feed = h.Feed(h.stage().in);
  ASSERT_OK(h.Open());
  feed.Push(Spoken(0, 250, 0.5), MediaTime::Zero());
  feed.Push(Spoken(1, 300, 0.4), MediaTime::Zero());  // queued behind the first
  feed.End();
  ASSERT_OK(h.RunUntilFinished());
  const std::vector<LiveLineRecord> records = monitor_.records();
  ASSERT_EQ(records.size(), 2u);
  // Decided at 0.25 s: starts at the 0.3 s frame and lasts its 0.5 s of audio.
  EXPECT_EQ(records[0].speech_start, MediaTime::Millis(300));
  EXPECT_EQ(records[0].speech_end, MediaTime::Millis(800));
  // The second waits for the first and the 0.25 s gap: 1.05 s, said from the 1.1 s frame.
  EXPECT_EQ(records[1].speech_start, MediaTime::Millis(1100));
  EXPECT_EQ(records[1].speech_end, MediaTime::Millis(1500));
  EXPECT_EQ(records[1].queue_wait, MediaTime::Millis(800));  // ready at 0.3 s, started at 1.1 s
  // Audio never stops: one frame period of samples per tick, through the tail.
  const LiveCounters counters = monitor_.counters();
  EXPECT_EQ(counters.output_time, MediaTime::FromFrameIndex(counters.frames, kFps));
  EXPECT_EQ(counters.output_time, MediaTime::Millis(1700));  // 1.5 s of speech + the 0.2 s tail
  EXPECT_EQ(counters.audio_drops, 0);
  EXPECT_EQ(counters.video_drops, 0);
  EXPECT_TRUE(std::filesystem::exists(path_));
}

TEST_F(PlayoutStageTest, ALineWithNothingToSayIsShownNotSaid) {
  StageHarness<PlayoutStage> h(MakeStage());
  auto feed = h.Feed(h.stage().in);
  ASSERT_OK(h.Open());
  feed.Push(Spoken(0, 100, 0, /*translation=*/""), MediaTime::Zero());
  feed.End();
  ASSERT_OK(h.RunUntilFinished());
  const std::vector<LiveLineRecord> records = monitor_.records();
  ASSERT_EQ(records.size(), 1u);
  EXPECT_FALSE(records[0].speech_start.has_value());
  EXPECT_FALSE(records[0].spoken);
  EXPECT_TRUE(std::filesystem::exists(path_));
}

TEST_F(PlayoutStageTest, ADrainFinishesTheLineBeingSaidAndDropsTheLinesNotStarted) {
  StageHarness<PlayoutStage> h(MakeStage());
  auto feed = h.Feed(h.stage().in);
  ASSERT_OK(h.Open());
  feed.Push(Spoken(0, 0, 0.5), MediaTime::Zero());
  feed.Push(Spoken(1, 0, 0.5), MediaTime::Zero());
  feed.End();
  // Two frames: the first line has started.
  ASSERT_OK(h.Step());
  ASSERT_OK(h.Step());
  ASSERT_TRUE(monitor_.counters().speaking);
  h.Drain();
  ASSERT_OK(h.RunUntilFinished());
  const std::vector<LiveLineRecord> records = monitor_.records();
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].speech_start, MediaTime::Zero());
  EXPECT_EQ(records[0].speech_end, MediaTime::Millis(500));  // said to its end
  EXPECT_FALSE(records[1].speech_start.has_value());         // never started
  EXPECT_TRUE(std::filesystem::exists(path_));               // the outputs were finished
}

TEST_F(PlayoutStageTest, TheOutputsAreCompleteOnlyWhenTheStageFinishes) {
  {
    StageHarness<PlayoutStage> h(MakeStage());
    auto feed = h.Feed(h.stage().in);
    ASSERT_OK(h.Open());
    feed.Push(Spoken(0, 0, 2.0), MediaTime::Zero());
    feed.End();
    for (int i = 0; i < 5; ++i) ASSERT_OK(h.Step());
  }
  outputs_.reset();  // the job went away mid-line (a crash, a cancel): its outputs with it
  EXPECT_FALSE(std::filesystem::exists(path_));
}

// The same two lines, whole or the first in parts: the same output, bytes and
// all (samples, mouth, subtitles: its end and the next line's start are known
// with the last part), and the same bytes run to run on the simulated clock.
TEST_F(PlayoutStageTest, ALineInPartsPlaysAsTheWholeLine) {
  auto run = [&](const std::string& name, bool in_parts) {
    const std::string path = dir_.File(name);
    StageHarness<PlayoutStage> h(MakeStage(/*simulated=*/true, path));
    auto feed = h.Feed(h.stage().in);
    EXPECT_OK(h.Open());
    const VoiceEvent first = Spoken(0, 250, 0.8);
    if (in_parts) {
      for (VoiceEvent& part : InParts(first, 0.1, 3)) feed.Push(std::move(part), MediaTime::Zero());
    } else {
      feed.Push(first, MediaTime::Zero());
    }
    feed.Push(Spoken(1, 300, 0.4), MediaTime::Zero());
    feed.End();
    EXPECT_OK(h.RunUntilFinished());
    outputs_.reset();
    return FileBytes(path);
  };
  const std::string whole = run("whole.mp4", false);
  const std::vector<LiveLineRecord> whole_records = monitor_.records();
  ASSERT_FALSE(whole.empty());
  EXPECT_EQ(run("whole_again.mp4", false), whole);
  // The parts run's records replace the whole run's (the same line ids).
  EXPECT_EQ(run("parts.mp4", true), whole);
  const std::vector<LiveLineRecord> records = monitor_.records();
  ASSERT_EQ(records.size(), 2u);
  ASSERT_EQ(whole_records.size(), 2u);
  EXPECT_EQ(records[0].speech_start, MediaTime::Millis(300));
  EXPECT_EQ(records[0].speech_end, MediaTime::Millis(1100));
  EXPECT_EQ(records[1].speech_start, whole_records[1].speech_start);  // after the gap: 1.35 s, the 1.4 s frame
  EXPECT_EQ(records[1].speech_start, MediaTime::Millis(1400));
  EXPECT_EQ(monitor_.counters().voice_underruns, 0);
}

// Realtime: a line starts on its first part; when its next part is late the
// playout writes silence (counted) and goes on, and the line resumes when it comes.
TEST_F(PlayoutStageTest, ALateLinePartIsSilenceCountedAndTheShowGoesOn) {
  StageHarness<PlayoutStage> h(MakeStage(/*simulated=*/false));
  auto feed = h.Feed(h.stage().in);
  ASSERT_OK(h.Open());
  int64_t tick = 0;
  std::vector<VoiceEvent> parts = InParts(Spoken(0, 0, 0.4), 0.2, 1);
  ASSERT_EQ(parts.size(), 3u);
  feed.Push(std::move(parts[0]), MediaTime::Zero());
  ASSERT_OK(RealtimeStep(h, tick));  // 0.0 s: starts on its first part
  ASSERT_TRUE(monitor_.counters().speaking);
  ASSERT_OK(RealtimeStep(h, tick));  // 0.1 s: the rest of the first part
  ASSERT_OK(RealtimeStep(h, tick));  // 0.2 s: nothing to play yet
  EXPECT_EQ(monitor_.counters().voice_underruns, kRate / kFps);
  EXPECT_EQ(monitor_.counters().output_time, MediaTime::Millis(300));  // audio never stopped
  feed.Push(std::move(parts[1]), MediaTime::Zero());
  feed.Push(std::move(parts[2]), MediaTime::Zero());
  feed.Push(Spoken(1, 0, 0.3), MediaTime::Zero());
  feed.End();
  ASSERT_OK(RealtimeRunUntilFinished(h, tick));
  const std::vector<LiveLineRecord> records = monitor_.records();
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].speech_start, MediaTime::Zero());
  EXPECT_EQ(records[0].speech_end, MediaTime::Millis(500));  // 0.4 s of speech and 0.1 s of waiting
  EXPECT_EQ(records[1].speech_start, MediaTime::Millis(800));  // after 0.5 s + the gap
  EXPECT_EQ(monitor_.counters().voice_underruns, kRate / kFps);
  EXPECT_EQ(monitor_.counters().audio_drops, 0);
}

TEST_F(PlayoutStageTest, ADrainFinishesTheLineBeingSaidWithThePartsStillComing) {
  StageHarness<PlayoutStage> h(MakeStage(/*simulated=*/false));
  auto feed = h.Feed(h.stage().in);
  ASSERT_OK(h.Open());
  int64_t tick = 0;
  std::vector<VoiceEvent> parts = InParts(Spoken(0, 0, 0.6), 0.3, 1);
  feed.Push(std::move(parts[0]), MediaTime::Zero());
  ASSERT_OK(RealtimeStep(h, tick));
  ASSERT_OK(RealtimeStep(h, tick));
  ASSERT_TRUE(monitor_.counters().speaking);
  h.Drain();
  feed.Push(std::move(parts[1]), MediaTime::Zero());
  feed.Push(std::move(parts[2]), MediaTime::Zero());
  feed.Push(Spoken(1, 0, 0.5), MediaTime::Zero());
  feed.End();
  ASSERT_OK(RealtimeRunUntilFinished(h, tick));
  const std::vector<LiveLineRecord> records = monitor_.records();
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].speech_end, MediaTime::Millis(600));  // said to its end, the late part too
  EXPECT_FALSE(records[1].speech_start.has_value());         // never started
  EXPECT_EQ(monitor_.counters().voice_underruns, 0);
  EXPECT_TRUE(std::filesystem::exists(path_));
}

std::vector<BusMessage> Warnings(Bus& bus) {
  std::vector<BusMessage> warnings;
  for (BusMessage& message : bus.Drain()) {
    if (message.kind == BusMessage::Kind::kWarning) warnings.push_back(std::move(message));
  }
  return warnings;
}

// `video 320x180@20` half a second in, while the avatar speaks: from the next
// frame the picture is the new size at the new cadence, its first frame a
// keyframe, and the audio runs on sample for sample.
TEST_F(PlayoutStageTest, AVideoSwitchTakesEffectAtTheNextFrameWithoutAnAudioGap) {
  StageHarness<PlayoutStage> h(MakeStage(/*simulated=*/true, "hls:" + dir_.File("hls"), /*switchable=*/true));
  auto feed = h.Feed(h.stage().in);
  ASSERT_OK(h.Open());
  feed.Push(Spoken(0, 0, 1.0), MediaTime::Zero());
  feed.End();
  for (int i = 0; i < 5; ++i) ASSERT_OK(h.Step());  // frames 0 .. 0.4 s at 10 fps
  video_changes_.push_back(VideoChange{320, 180, 0});
  video_changes_.push_back(VideoChange{0, 0, 20});  // applied together: one switch
  ASSERT_OK(h.RunUntilFinished());
  EXPECT_TRUE(Warnings(h.bus()).empty());
  const LiveCounters counters = monitor_.counters();
  EXPECT_EQ(counters.video_switches, 1);
  // 0.5 s at 10 fps, then 1.2 s (the rest of the line and the tail) at 20 fps.
  EXPECT_EQ(counters.output_time, MediaTime::Millis(1200));
  EXPECT_EQ(counters.frames, 5 + 14);
  EXPECT_EQ(outputs_->video_options().width, 320);
  EXPECT_EQ(outputs_->video_options().fps_num, 20);
  const std::vector<LiveLineRecord> records = monitor_.records();
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].speech_end, MediaTime::Millis(1000));  // said through the switch, to the sample

  auto read = testing_util::ReadBackAll(dir_.File("hls/video.m3u8"), {}, INT64_MAX, nullptr, nullptr,
                                        /*decode=*/true);
  ASSERT_OK(read);
  const testing_util::ReadStream* video = read->Find(AVMEDIA_TYPE_VIDEO);
  const testing_util::ReadStream* audio = read->Find(AVMEDIA_TYPE_AUDIO);
  ASSERT_NE(video, nullptr);
  ASSERT_NE(audio, nullptr);
  // The live timeline starts after AAC's priming: 1024 samples at 48 kHz, 21 ms.
  testing_util::ExpectPictures(*video, 500 + 21, {160, 90}, {320, 180}, 5, 14, "hls");
  for (size_t i = 6; i < video->pictures.size(); ++i) {
    EXPECT_EQ(video->pictures[i].pts_ms - video->pictures[i - 1].pts_ms, 50) << "picture " << i;
  }
  testing_util::ExpectContinuousAudio(*audio, "hls");
  // A/V in step at the end: the audio's last packet within one frame of the last picture.
  EXPECT_NEAR(static_cast<double>(audio->packets.back().pts_ms - video->pictures.back().pts_ms), 0, 50);
}

// Drawn by the CUDA renderer, the playout writes the CPU's show byte for byte:
// the frames reach the encoder as the GPU's yuv420p planes, through a live
// switch to another size and rate (a new GPU compositor for the new picture),
// without and with a picture-in-picture of the host's video.
// (An MP4 keeps its size through a switch by scaling, which scales the GPU's
// planes where the CPU's RGBA is scaled: OutputSetVideoSwitchTest has that.)
TEST_F(PlayoutStageTest, TheCudaRendererWritesTheCpusShowThroughASwitch) {
  if (absl::Status usable = compose::ChooseRenderer("cuda").status(); !usable.ok()) {
    GTEST_SKIP() << "no CUDA renderer here: " << usable.message();
  }
  auto show = [&](bool gpu, const std::string& name) {
    draw_on_gpu_ = gpu;
    StageHarness<PlayoutStage> h(MakeStage(/*simulated=*/true, "hls:" + dir_.File(name), /*switchable=*/true));
    auto feed = h.Feed(h.stage().in);
    EXPECT_OK(h.Open());
    feed.Push(Spoken(0, 100, 0.8, "欢迎来到直播间"), MediaTime::Zero());
    feed.Push(Spoken(1, 200, 0.6, "第二件半价"), MediaTime::Zero());
    feed.End();
    for (int i = 0; i < 6; ++i) EXPECT_OK(h.Step());
    video_changes_.push_back(VideoChange{320, 180, 20});
    EXPECT_OK(h.RunUntilFinished());
    EXPECT_TRUE(Warnings(h.bus()).empty());
    EXPECT_EQ(monitor_.counters().video_switches, 1);
    // Every segment and the playlist, in name order.
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(dir_.File(name))) files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    std::string bytes;
    for (const auto& file : files) bytes += file.filename().string() + "\n" + FileBytes(file.string());
    return bytes;
  };
  const std::string drawn_on_cpu = show(false, "cpu");
  ASSERT_GT(drawn_on_cpu.size(), 1000u);
  EXPECT_TRUE(show(true, "cuda") == drawn_on_cpu) << "the CUDA renderer's HLS stream differs from the CPU's";

  // The host's video: 3 s at 10 fps, a square moving across it.
  inset_path_ = dir_.File("host.mp4");
  {
    SystemClock clock;
    auto host = testing_util::OpenOutputs({inset_path_}, testing_util::QuickVideo(64, 36, 10),
                                          testing_util::SpeechAudio(), OutputSetOptions{}, clock);
    ASSERT_OK(host);
    for (int i = 0; i < 30; ++i) ASSERT_OK((*host)->WriteVideo(testing_util::MakeFrame(64, 36, i), i));
    ASSERT_OK((*host)->WriteAudio(testing_util::MakeTone(3.0, 22050)));
    ASSERT_OK((*host)->Finish());
  }
  const std::string inset_on_cpu = show(false, "cpu-pip");
  EXPECT_FALSE(inset_on_cpu == drawn_on_cpu) << "the picture-in-picture changed no byte";
  EXPECT_TRUE(show(true, "cuda-pip") == inset_on_cpu)
      << "with picture-in-picture, the CUDA renderer's HLS stream differs from the CPU's";
}

// A switch whose picture cannot be made is a warning: the picture, the cadence
// and the outputs stay as they were. Asking for what is on air changes nothing.
TEST_F(PlayoutStageTest, AVideoSwitchThatCannotApplyChangesNothing) {
  std::unique_ptr<StageHarness<PlayoutStage>> show = SwitchableShowAfterOneFrame();
  StageHarness<PlayoutStage>& h = *show;
  refuse_pictures_ = true;
  video_changes_.push_back(VideoChange{320, 180, 20});
  ASSERT_OK(h.Step());
  const std::vector<BusMessage> warnings = Warnings(h.bus());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_THAT(std::string(warnings[0].status.message()),
              ::testing::HasSubstr("video 320x180@20 not applied: no picture today"));
  video_changes_.push_back(VideoChange{160, 90, kFps});  // what is on air already
  ASSERT_OK(h.RunUntilFinished());
  EXPECT_TRUE(Warnings(h.bus()).empty());
  EXPECT_EQ(monitor_.counters().video_switches, 0);
  EXPECT_EQ(monitor_.counters().output_time, MediaTime::FromFrameIndex(monitor_.counters().frames, kFps));
  EXPECT_EQ(outputs_->video_options().width, 160);
  auto read = testing_util::ReadBackAll(path_, {}, INT64_MAX, nullptr, nullptr, /*decode=*/true);
  ASSERT_OK(read);
  testing_util::ExpectPictures(*read->Find(AVMEDIA_TYPE_VIDEO), INT64_MAX, {160, 90}, {160, 90},
                               static_cast<size_t>(monitor_.counters().frames), 0, "mp4");
}

// A `video` control line that was no valid command reaches the playout as
// its reason: a warning naming it, while a good change beside it applies.
TEST_F(PlayoutStageTest, ABadVideoCommandIsAWarningAndTheChangesBesideItApply) {
  std::unique_ptr<StageHarness<PlayoutStage>> show = SwitchableShowAfterOneFrame();
  StageHarness<PlayoutStage>& h = *show;
  video_changes_.push_back(absl::InvalidArgumentError("bad video command at ctl:3: \"video 1281x720\": odd"));
  video_changes_.push_back(VideoChange{320, 180, 0});
  ASSERT_OK(h.Step());
  const std::vector<BusMessage> warnings = Warnings(h.bus());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(warnings[0].status.message(), "bad video command at ctl:3: \"video 1281x720\": odd");
  EXPECT_EQ(monitor_.counters().video_switches, 1);
  EXPECT_EQ(outputs_->video_options().width, 320);

  video_changes_.push_back(absl::InvalidArgumentError("bad video command at ctl:4: \"video @0\": no"));
  ASSERT_OK(h.RunUntilFinished());
  ASSERT_EQ(Warnings(h.bus()).size(), 1u);
  EXPECT_EQ(monitor_.counters().video_switches, 1) << "a bad command alone changes nothing";
  EXPECT_EQ(outputs_->video_options().width, 320);
}

}  // namespace
}  // namespace lingcast
