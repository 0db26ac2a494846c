// The CUDA compositor against the CPU one on the golden scenes (studio, colour
// and video backgrounds, the avatar speaking, subtitle looks and fades, word
// highlight, a sliding lower third, 4K): the same RGBA bytes, and yuv420p
// planes equal to media/bt709.h's conversion of the CPU frame. Skips without a
// CUDA GPU; the first test runs everywhere.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "avatar/animator.h"
#include "avatar/avatar_renderer.h"
#include "avatar/cuda_support.h"
#include "compose/compositor.h"
#include "compose/gpu_compositor.h"
#include "compose/picture_in_picture.h"
#include "compose/test_media.h"
#include "core/scratch_dir.h"
#include "core/status_matchers.h"
#include "media/bt709.h"

namespace lingcast::compose {
namespace {

TEST(GpuCompositorTest, SaysWhyItCannotRunHere) {
  CompositorOptions options;
  options.width = 320;
  options.height = 180;
  auto compositor = Compositor::Create(options);
  ASSERT_OK(compositor);
  auto gpu = CreateGpuCompositor(**compositor);
  if (CudaDeviceUsable().ok()) {
    EXPECT_OK(gpu);
  } else {
    EXPECT_EQ(gpu.status(), CudaDeviceUsable());
  }
}

TEST(ChooseRendererTest, AutoTakesTheGpuOnlyWhereItCanRun) {
  ASSERT_OK(ChooseRenderer("cpu"));
  EXPECT_EQ(*ChooseRenderer("cpu"), RendererKind::kCpu);
  const bool usable = CudaDeviceUsable().ok();
  ASSERT_OK(ChooseRenderer("auto"));
  EXPECT_EQ(*ChooseRenderer("auto"), usable ? RendererKind::kCuda : RendererKind::kCpu);
  EXPECT_EQ(ChooseRenderer("cuda").ok(), usable);
  if (!usable) {
    const absl::Status status = ChooseRenderer("cuda").status();
    EXPECT_EQ(status.code(), CudaDeviceUsable().code());
    EXPECT_EQ(status.message().substr(0, 16), "--renderer cuda:") << status;
    EXPECT_NE(status.message().find(CudaDeviceUsable().message()), std::string::npos) << status;
    EXPECT_NE(DescribeRendererChoice().find("auto: cpu ("), std::string::npos) << DescribeRendererChoice();
  } else {
    EXPECT_NE(DescribeRendererChoice().find("auto: cuda on "), std::string::npos) << DescribeRendererChoice();
  }
  EXPECT_EQ(ChooseRenderer("metal").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ChooseRenderer("metal").status().message(), "--renderer metal: must be auto, cpu or cuda");
  EXPECT_STREQ(RendererName(RendererKind::kCuda), "cuda");
  EXPECT_STREQ(RendererName(RendererKind::kCpu), "cpu");
}

#define SKIP_WITHOUT_GPU()                                           \
  if (const absl::Status usable = CudaDeviceUsable(); !usable.ok()) { \
    GTEST_SKIP() << usable.message();                                \
  }

constexpr char kZh[] = "大家好，欢迎来到直播间！今天给大家介绍一款新产品：这款耳机的续航时间长达三十个小时，支持快速充电。";
constexpr char kEn[] = "Today we have a new product for you: earphones that last thirty hours.";

// A cue from 1 s to 5 s whose English words are timed 0.4 s apart.
SubtitleCue TimedCue() {
  SubtitleCue cue{MediaTime::Seconds(1), MediaTime::Seconds(5), {kEn, Language::kEn}, {kZh, Language::kZh}};
  const std::string text = kEn;
  int i = 0;
  for (size_t at = 0; at < text.size(); ++i) {
    size_t end = text.find(' ', at);
    if (end == std::string::npos) end = text.size();
    cue.words.push_back({static_cast<int>(at), static_cast<int>(end - at), cue.start + MediaTime::Millis(400 * i),
                         cue.start + MediaTime::Millis(400 * i + 400)});
    at = end + 1;
  }
  return cue;
}

struct Difference {
  int64_t differing = 0, total = 0;
  int worst = 0;
};

Difference Compare(const uint8_t* a, int a_stride, const uint8_t* b, int b_stride, int row_bytes, int rows) {
  Difference d;
  for (int y = 0; y < rows; ++y) {
    for (int x = 0; x < row_bytes; ++x) {
      const int diff = std::abs(a[static_cast<size_t>(y) * a_stride + x] - b[static_cast<size_t>(y) * b_stride + x]);
      d.differing += diff != 0;
      d.total += diff;
      d.worst = std::max(d.worst, diff);
    }
  }
  return d;
}

void ExpectSame(const Difference& d, int64_t samples, const std::string& what) {
  EXPECT_EQ(d.differing, 0) << what << ": " << d.differing << " samples differ, max abs diff " << d.worst
                            << "/255, mean " << static_cast<double>(d.total) / static_cast<double>(samples) << "/255";
}

// CPU and GPU frames of one compositor at `times`, with a speaking avatar
// (and the picture-in-picture of `inset_path`, when given).
void ExpectGpuMatchesCpu(const CompositorOptions& options, const SubtitleCue* cue, const std::vector<int>& times_ms,
                         const std::string& inset_path = "") {
  auto compositor = Compositor::Create(options);
  ASSERT_OK(compositor);
  AvatarRenderer avatar;
  AvatarState state;
  (*compositor)->SetAvatarRenderer(
      [&](VideoFrame& frame, const Rect& area, const Rect& clip) { avatar.Render(state, frame, area, clip); });
  auto gpu = CreateGpuCompositor(**compositor, GpuCompositorOptions{.download_rgba = true});
  ASSERT_OK(gpu);
  (*gpu)->SetAvatarRenderer([&](VectorSurface& surface, const Rect& area) { avatar.Draw(state, area, surface); });
  // Each renderer reads its own copy of the source, as each reads a file once.
  std::unique_ptr<PictureInPicture> cpu_inset, gpu_inset;
  if (!inset_path.empty()) {
    for (std::unique_ptr<PictureInPicture>* inset : {&cpu_inset, &gpu_inset}) {
      auto opened = PictureInPicture::Open(inset_path, options.width, options.height, PictureInPictureOptions{});
      ASSERT_OK(opened);
      *inset = *std::move(opened);
    }
    (*gpu)->SetPictureInPicture(gpu_inset.get());
  }

  VisemeTrack track;
  for (int i = 0; i < 80; ++i) {
    track.cues.push_back({MediaTime::Millis(i * 70), MediaTime::Millis(i * 70 + 70), static_cast<Viseme>(i % 9)});
  }
  const Animator animator(track, AnimatorOptions{});
  for (int ms : times_ms) {
    const MediaTime t = MediaTime::Millis(ms);
    const std::string what = std::to_string(options.width) + "x" + std::to_string(options.height) + " at " +
                             std::to_string(ms) + " ms";
    state = animator.StateAt(t);
    VideoFrame cpu, on_gpu;
    ASSERT_OK((*compositor)->Compose(t, cue, cpu));
    if (cpu_inset) {
      ASSERT_OK(cpu_inset->DrawOver(t, cpu));
    }
    ASSERT_OK((*gpu)->Compose(t, cue, on_gpu));
    ExpectSame(Compare(cpu.rgba.data(), cpu.stride, on_gpu.rgba.data(), on_gpu.stride, cpu.width * 4, cpu.height),
               static_cast<int64_t>(cpu.rgba.size()), what + ", RGBA");
    ASSERT_NE(on_gpu.yuv420, nullptr) << what;
    const Yuv420Picture& p = *on_gpu.yuv420;
    ASSERT_EQ(p.width, cpu.width);
    ASSERT_EQ(p.height, cpu.height);
    // The reference planes: media/bt709.h, as the encoder's converter computes them.
    const int w = cpu.width, h = cpu.height;
    std::vector<uint8_t> y(static_cast<size_t>(w) * h), u(static_cast<size_t>(w / 2) * (h / 2)), v(u.size());
    for (int row = 0; row < h; ++row) {
      for (int x = 0; x < w; ++x) {
        const uint8_t* px = cpu.Row(row) + x * 4;
        y[static_cast<size_t>(row) * w + x] = bt709::Luma(px[0], px[1], px[2]);
      }
    }
    for (int cy = 0; cy < h / 2; ++cy) {
      for (int cx = 0; cx < w / 2; ++cx) {
        int sum[3] = {0, 0, 0};
        for (int c = 0; c < 3; ++c) {
          sum[c] = cpu.Row(2 * cy)[8 * cx + c] + cpu.Row(2 * cy)[8 * cx + 4 + c] + cpu.Row(2 * cy + 1)[8 * cx + c] +
                   cpu.Row(2 * cy + 1)[8 * cx + 4 + c];
        }
        u[static_cast<size_t>(cy) * (w / 2) + cx] = bt709::Cb(sum[0], sum[1], sum[2]);
        v[static_cast<size_t>(cy) * (w / 2) + cx] = bt709::Cr(sum[0], sum[1], sum[2]);
      }
    }
    ExpectSame(Compare(y.data(), w, p.y, p.y_stride, w, h), static_cast<int64_t>(y.size()), what + ", Y");
    ExpectSame(Compare(u.data(), w / 2, p.u, p.u_stride, w / 2, h / 2), static_cast<int64_t>(u.size()), what + ", Cb");
    ExpectSame(Compare(v.data(), w / 2, p.v, p.v_stride, w / 2, h / 2), static_cast<int64_t>(v.size()), what + ", Cr");
  }
}

CompositorOptions Options(int width, int height, SubtitleLook look) {
  CompositorOptions options;
  options.width = width;
  options.height = height;
  options.subtitles.look = look;
  return options;
}

// Fading in, fully shown with words highlighted one after another, fading out, gone.
const std::vector<int> kCueTimes = {0, 1050, 1500, 2210, 2500, 3000, 4700, 4950, 5200};

TEST(GpuCompositorTest, StudioBackgroundsAndEverySubtitleLookMatchTheCpu) {
  SKIP_WITHOUT_GPU();
  const SubtitleCue cue = TimedCue();
  for (SubtitleLook look : {SubtitleLook::kOutline, SubtitleLook::kBox, SubtitleLook::kShadow}) {
    SCOPED_TRACE(SubtitleLookName(look));
    ExpectGpuMatchesCpu(Options(320, 180, look), &cue, kCueTimes);
  }
}

TEST(GpuCompositorTest, WordHighlightAndALowerThirdMatchTheCpu) {
  SKIP_WITHOUT_GPU();
  CompositorOptions options = Options(480, 270, SubtitleLook::kOutline);
  options.highlight_words = true;
  options.titles = {{"李娜 Li Na", "主播 · Host, Lingcast Live", MediaTime::Zero(), MediaTime::Seconds(4)}};
  const SubtitleCue cue = TimedCue();
  ExpectGpuMatchesCpu(options, &cue, {0, 100, 300, 1050, 2210, 2500, 3000, 3900, 4100, 4950});
}

TEST(GpuCompositorTest, ColourAndVideoBackgroundsMatchTheCpu) {
  SKIP_WITHOUT_GPU();
  testing_util::ScratchDir dir;
  const std::string path = dir.File("loop.mkv");
  ASSERT_OK(testing_media::WriteSolidVideo(path, 48, 27, 7, 10, testing_media::FrameColor));
  const SubtitleCue cue = TimedCue();
  CompositorOptions video = Options(640, 360, SubtitleLook::kBox);
  video.highlight_words = true;
  video.background_source.kind = BackgroundKind::kVideo;
  video.background_source.path = path;
  ExpectGpuMatchesCpu(video, &cue, kCueTimes);
  CompositorOptions colour = Options(640, 360, SubtitleLook::kOutline);
  colour.background_source.kind = BackgroundKind::kColor;
  colour.background_source.color = Rgba{30, 90, 60, 255};
  ExpectGpuMatchesCpu(colour, &cue, {0, 1500, 3000});
}

TEST(GpuCompositorTest, PictureInPictureOfAVideoAndOfAStillMatchesTheCpu) {
  SKIP_WITHOUT_GPU();
  testing_util::ScratchDir dir;
  const std::string video = dir.File("host.mkv"), still = dir.File("host.jpg");
  // 10 fps, one colour a frame: the inset shows another each 100 ms.
  ASSERT_OK(testing_media::WriteSolidVideo(video, 64, 36, 10, 10, testing_media::FrameColor));
  ASSERT_OK(testing_media::WriteSolidJpeg(still, 64, 48, Rgba{200, 30, 30, 255}));
  const SubtitleCue cue = TimedCue();
  CompositorOptions options = Options(640, 360, SubtitleLook::kBox);
  options.highlight_words = true;
  ExpectGpuMatchesCpu(options, &cue, {0, 120, 350, 1050, 2210, 4950}, video);
  ExpectGpuMatchesCpu(Options(480, 270, SubtitleLook::kOutline), &cue, {0, 1500, 3000}, still);
  // A frame size whose border is more than a pixel wide (1080 / 360 = 3).
  ExpectGpuMatchesCpu(Options(1920, 1080, SubtitleLook::kShadow), &cue, {250, 2500}, video);
}

TEST(GpuCompositorTest, A4kFrameMatchesTheCpu) {
  SKIP_WITHOUT_GPU();
  CompositorOptions options = Options(3840, 2160, SubtitleLook::kOutline);
  options.highlight_words = true;
  options.titles = {{"李娜 Li Na", "Host", MediaTime::Zero(), MediaTime::Seconds(10)}};
  const SubtitleCue cue = TimedCue();
  ExpectGpuMatchesCpu(options, &cue, {2500, 4900});
}

// Two frames in flight give the frames Compose gives, in the order started.
TEST(GpuCompositorTest, PipelinedFramesEqualComposedOnes) {
  SKIP_WITHOUT_GPU();
  CompositorOptions options = Options(480, 270, SubtitleLook::kOutline);
  options.highlight_words = true;
  auto compositor = Compositor::Create(options);
  ASSERT_OK(compositor);
  AvatarRenderer avatar;
  AvatarState state;
  auto gpu = CreateGpuCompositor(**compositor, GpuCompositorOptions{.download_rgba = true});
  ASSERT_OK(gpu);
  (*gpu)->SetAvatarRenderer([&](VectorSurface& surface, const Rect& area) { avatar.Draw(state, area, surface); });
  // A moving picture-in-picture: the source's next frame may not overwrite
  // the one a frame in flight still has to draw. One copy of the source for
  // each pass, as each reads it from the start.
  testing_util::ScratchDir dir;
  ASSERT_OK(testing_media::WriteSolidVideo(dir.File("host.mkv"), 64, 36, 10, 30, testing_media::FrameColor));
  std::vector<std::unique_ptr<PictureInPicture>> insets;
  for (int pass = 0; pass < 2; ++pass) {
    auto opened =
        PictureInPicture::Open(dir.File("host.mkv"), options.width, options.height, PictureInPictureOptions{});
    ASSERT_OK(opened);
    insets.push_back(*std::move(opened));
  }
  (*gpu)->SetPictureInPicture(insets[0].get());
  const SubtitleCue cue = TimedCue();
  const std::vector<int> times = {1000, 1400, 1800, 2200, 2600};
  std::vector<VideoFrame> composed;
  for (int ms : times) {
    state.mouth = MouthParamsOf(static_cast<Viseme>(ms / 400 % kVisemeCount));
    VideoFrame frame;
    ASSERT_OK((*gpu)->Compose(MediaTime::Millis(ms), &cue, frame));
    composed.push_back(frame);
  }
  (*gpu)->SetPictureInPicture(insets[1].get());
  std::vector<std::shared_ptr<VideoFrame>> finished;
  for (int ms : times) {
    if ((*gpu)->in_flight() == GpuCompositor::kFramesInFlight) {
      EXPECT_EQ((*gpu)->Start(MediaTime::Millis(ms), &cue, std::make_shared<VideoFrame>()).code(),
                absl::StatusCode::kFailedPrecondition);
      auto done = (*gpu)->Finish();
      ASSERT_OK(done);
      finished.push_back(*done);
    }
    state.mouth = MouthParamsOf(static_cast<Viseme>(ms / 400 % kVisemeCount));  // taken at Start
    ASSERT_OK((*gpu)->Start(MediaTime::Millis(ms), &cue, std::make_shared<VideoFrame>()));
  }
  VideoFrame busy;
  EXPECT_EQ((*gpu)->Compose(MediaTime::Zero(), nullptr, busy).code(), absl::StatusCode::kFailedPrecondition);
  while ((*gpu)->in_flight() > 0) {
    auto done = (*gpu)->Finish();
    ASSERT_OK(done);
    finished.push_back(*done);
  }
  EXPECT_EQ((*gpu)->Finish().status().code(), absl::StatusCode::kFailedPrecondition);
  ASSERT_EQ(finished.size(), composed.size());
  for (size_t i = 0; i < composed.size(); ++i) {
    EXPECT_EQ(finished[i]->rgba, composed[i].rgba) << "frame at " << times[i] << " ms";
    ASSERT_NE(finished[i]->yuv420, nullptr);
    const Yuv420Picture& a = *finished[i]->yuv420;
    const Yuv420Picture& b = *composed[i].yuv420;
    ExpectSame(Compare(a.y, a.y_stride, b.y, b.y_stride, a.width, a.height), int64_t{a.width} * a.height,
               "Y of frame " + std::to_string(i));
  }
}

TEST(GpuCompositorTest, AFrameOfAnotherSizeIsRefused) {
  SKIP_WITHOUT_GPU();
  auto compositor = Compositor::Create(Options(320, 180, SubtitleLook::kOutline));
  ASSERT_OK(compositor);
  auto gpu = CreateGpuCompositor(**compositor);
  ASSERT_OK(gpu);
  VideoFrame wrong;
  wrong.Allocate(160, 90);
  const absl::Status status = (*gpu)->Compose(MediaTime::Zero(), nullptr, wrong);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(wrong.yuv420, nullptr);
}

}  // namespace
}  // namespace lingcast::compose
