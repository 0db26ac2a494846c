// GpuCanvas against Canvas: the same drawing calls give the same bytes (the
// coverage and the shading are integer or the same float expressions without
// fused multiply-add, so nothing less than equality is expected). The GPU
// tests skip on a machine without a CUDA GPU; the first test runs everywhere.
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "avatar/avatar_renderer.h"
#include "avatar/canvas.h"
#include "avatar/cuda_support.h"
#include "avatar/rig.h"
#include "avatar/rig_renderer.h"
#include "core/status_matchers.h"
#include "gtest/gtest.h"

#if LINGCAST_HAVE_CUDA_RENDERER
#include "avatar/gpu_canvas.h"
#endif

namespace lingcast {
namespace {

TEST(CudaSupportTest, SaysWhyThereIsNoGpu) {
  const absl::Status usable = CudaDeviceUsable();
  if (usable.ok()) {
    EXPECT_TRUE(CudaRendererBuilt());
    ASSERT_OK(CudaDeviceDescription());
    EXPECT_FALSE(CudaDeviceDescription()->empty());
  } else if (CudaRendererBuilt()) {
    EXPECT_EQ(usable.code(), absl::StatusCode::kUnavailable);
    EXPECT_EQ(usable.message().substr(0, 12), "no CUDA GPU:") << usable;
  } else {
    EXPECT_EQ(usable.code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_NE(usable.message().find("no CUDA renderer"), std::string::npos) << usable;
  }
}

// The watchdogs' GPU reading: the device's memory in use, within its size, and
// more of it once this process holds a buffer; the same reason as
// CudaDeviceUsable where there is no GPU.
TEST(CudaSupportTest, TheDeviceMemoryInUseGrowsWithABuffer) {
  const absl::Status usable = CudaDeviceUsable();
  const absl::StatusOr<CudaMemory> before = CudaDeviceMemory();
  if (!usable.ok()) {
    EXPECT_EQ(before.status(), usable);
    GTEST_SKIP() << usable.message();
  }
#if LINGCAST_HAVE_CUDA_RENDERER
  ASSERT_OK(before);
  EXPECT_GT(before->total_mb, 0);
  EXPECT_GT(before->used_mb, 0);  // this process's context at least
  EXPECT_LE(before->used_mb, before->total_mb);
  absl::StatusOr<DeviceBuffer> buffer = DeviceBuffer::Allocate(size_t{256} << 20);
  ASSERT_OK(buffer);
  const absl::StatusOr<CudaMemory> after = CudaDeviceMemory();
  ASSERT_OK(after);
  // 256 MB more, give or take what other processes did meanwhile.
  EXPECT_GE(after->used_mb - before->used_mb, 200) << before->used_mb << " -> " << after->used_mb;
#endif
}

#if LINGCAST_HAVE_CUDA_RENDERER

#define SKIP_WITHOUT_GPU()                                                         \
  if (const absl::Status usable = CudaDeviceUsable(); !usable.ok()) {               \
    GTEST_SKIP() << usable.message();                                              \
  }

// A backdrop that is not flat, so blending errors show.
VideoFrame Backdrop(int width, int height) {
  VideoFrame frame;
  frame.Allocate(width, height);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      uint8_t* p = frame.Row(y) + static_cast<size_t>(x) * 4;
      p[0] = static_cast<uint8_t>(x * 7), p[1] = static_cast<uint8_t>(y * 3), p[2] = 96, p[3] = 255;
    }
  }
  return frame;
}

struct Drawn {
  VideoFrame cpu, gpu;
};

Drawn DrawBoth(const VideoFrame& backdrop, const Rect& clip, const std::function<void(VectorSurface&)>& draw) {
  Drawn out{backdrop, backdrop};
  Canvas canvas(out.cpu, clip);
  draw(canvas);

  GpuCanvas gpu_canvas;
  gpu_canvas.Begin(backdrop.width, backdrop.height, clip);
  draw(gpu_canvas);
  absl::StatusOr<CudaStream> stream = CudaStream::Create();
  EXPECT_OK(stream);
  absl::StatusOr<DeviceFrame> frame = DeviceFrame::Allocate(backdrop.width, backdrop.height);
  EXPECT_OK(frame);
  if (!stream.ok() || !frame.ok()) return out;
  EXPECT_OK(frame->Upload(backdrop, stream->get()));
  EXPECT_OK(gpu_canvas.Execute(*frame, stream->get()));
  EXPECT_OK(frame->Download(out.gpu, stream->get()));
  EXPECT_OK(stream->Synchronize());
  return out;
}

// Equal bytes; on a difference, where the first one is and how large they get.
void ExpectSameBytes(const VideoFrame& cpu, const VideoFrame& gpu) {
  ASSERT_EQ(cpu.rgba.size(), gpu.rgba.size());
  int64_t differing = 0, total = 0, worst = 0, first = -1;
  for (size_t i = 0; i < cpu.rgba.size(); ++i) {
    const int d = std::abs(static_cast<int>(cpu.rgba[i]) - static_cast<int>(gpu.rgba[i]));
    if (d == 0) continue;
    if (first < 0) first = static_cast<int64_t>(i);
    ++differing;
    total += d;
    worst = std::max<int64_t>(worst, d);
  }
  EXPECT_EQ(differing, 0) << "first at pixel (" << (first / 4) % cpu.width << ", " << first / 4 / cpu.width
                          << ") channel " << first % 4 << "; max abs diff " << worst << "/255, mean "
                          << static_cast<double>(total) / static_cast<double>(cpu.rgba.size()) << "/255";
}

const std::vector<GradientStop> kStops = {{0, Color::Hex(0x204080)}, {0.4f, Color::Hex(0xf0c020, 0.5f)},
                                          {1, Color::Hex(0xffffff, 0.9f)}};

TEST(GpuCanvasTest, SolidShapesMatchTheCpu) {
  SKIP_WITHOUT_GPU();
  const Drawn d = DrawBoth(Backdrop(97, 61), Rect{0, 0, 97, 61}, [](VectorSurface& s) {
    s.Fill(Path::Ellipse({40.3f, 30.7f}, 25.2f, 17.9f), Paint::Solid(Color::Hex(0xff8040)), {});
    s.Fill(Path().AddPolygon({{10, 5}, {90, 50}, {5, 55}, {60, 2}, {70, 58}}), Paint::Solid(Color::Hex(0x30c0ff, 0.6f)),
           {});  // self-intersecting: non-zero winding
    s.Fill(Path::RoundedRect(-20, 40, 60, 40, 8), Paint::Solid(Color::Hex(0x00ff00)).WithOpacity(0.7f),
           {});  // off the left and bottom edges
    s.Fill(Path().AddPolygon({{50, 10}, {50.5f, 10}, {50.5f, 40}, {50, 40}}), Paint::Solid(Color::Hex(0xffffff)),
           {});  // a half-pixel sliver
  });
  ExpectSameBytes(d.cpu, d.gpu);
}

TEST(GpuCanvasTest, StrokesAndTransformsMatchTheCpu) {
  SKIP_WITHOUT_GPU();
  const Drawn d = DrawBoth(Backdrop(120, 90), Rect{0, 0, 120, 90}, [](VectorSurface& s) {
    const Path wave = Path().MoveTo({10, 40}).CubicTo({30, 0}, {60, 80}, {110, 30});
    s.Stroke(wave, 6.5f, Paint::Solid(Color::Hex(0x202020, 0.8f)), {});
    s.Stroke(Path::Ellipse({0, 0}, 20, 10), 3, Paint::Solid(Color::Hex(0xe0e0ff)),
             Affine::Translate(60, 45) * Affine::Rotate(0.6f) * Affine::Scale(1.3f, 0.8f));
    s.Stroke(Path().MoveTo({5, 85}).LineTo({5, 85}), 4, Paint::Solid(Color::Hex(0xff0000)), {});  // a dot
  });
  ExpectSameBytes(d.cpu, d.gpu);
}

TEST(GpuCanvasTest, GradientsMatchTheCpu) {
  SKIP_WITHOUT_GPU();
  const Drawn d = DrawBoth(Backdrop(128, 96), Rect{0, 0, 128, 96}, [](VectorSurface& s) {
    const Path square = Path().AddPolygon({{4, 4}, {124, 4}, {124, 92}, {4, 92}});
    s.Fill(square, Paint::Linear({0, 0}, {0, 96}, kStops), {});            // one colour per row on the CPU
    s.Fill(Path::Ellipse({64, 48}, 50, 30), Paint::Linear({10, 5}, {110, 80}, kStops).WithOpacity(0.8f),
           Affine::RotateAbout(0.3f, {64, 48}));
    s.Fill(Path::Ellipse({70, 40}, 30, 30), Paint::Radial({70, 40}, {30, 20}, kStops), {});
  });
  ExpectSameBytes(d.cpu, d.gpu);
}

TEST(GpuCanvasTest, ImagePaintsMatchTheCpu) {
  SKIP_WITHOUT_GPU();
  auto image = std::make_shared<VideoFrame>();
  image->Allocate(23, 17);
  for (int y = 0; y < 17; ++y) {
    for (int x = 0; x < 23; ++x) {
      uint8_t* p = image->Row(y) + x * 4;
      const uint8_t a = static_cast<uint8_t>(128 + (x * 5 + y * 3) % 128);
      p[0] = static_cast<uint8_t>(a * x / 23), p[1] = static_cast<uint8_t>(a * y / 17), p[2] = a / 2, p[3] = a;
    }
  }
  std::shared_ptr<const VideoFrame> shared = image;
  const Drawn d = DrawBoth(Backdrop(100, 80), Rect{0, 0, 100, 80}, [&](VectorSurface& s) {
    s.Fill(Path::RoundedRect(5, 5, 90, 70, 12), Paint::Image(shared, {5, 5}, {90, 70}), {});
    s.Fill(Path::Ellipse({50, 40}, 30, 20), Paint::Image(shared, {20, 20}, {60, 40}).WithOpacity(0.5f),
           Affine::RotateAbout(-0.4f, {50, 40}));
  });
  ExpectSameBytes(d.cpu, d.gpu);
}

TEST(GpuCanvasTest, NestedClipsAndACanvasClipMatchTheCpu) {
  SKIP_WITHOUT_GPU();
  const Drawn d = DrawBoth(Backdrop(90, 90), Rect{7, 11, 70, 60}, [](VectorSurface& s) {
    s.PushClip(Path::Ellipse({45, 45}, 35, 30), {});
    s.Fill(Path().AddPolygon({{0, 0}, {90, 0}, {90, 90}, {0, 90}}), Paint::Radial({45, 45}, {40, 40}, kStops), {});
    s.PushClip(Path().AddPolygon({{20, 10}, {80, 50}, {10, 80}}), {});
    s.Fill(Path::Ellipse({50, 50}, 30, 30), Paint::Solid(Color::Hex(0x10ff10, 0.75f)), {});
    s.PopClip();
    s.PushClip(Path::Ellipse({500, 500}, 3, 3), {});  // outside everything: draws nothing
    s.Fill(Path::Ellipse({45, 45}, 40, 40), Paint::Solid(Color::Hex(0xff0000)), {});
    s.PopClip();
    s.Stroke(Path::Ellipse({45, 45}, 20, 20), 5, Paint::Solid(Color::Hex(0x000000, 0.5f)), {});
    s.PopClip();
    s.Fill(Path::Ellipse({10, 10}, 9, 9), Paint::Solid(Color::Hex(0xffff00)), {});  // cut by the canvas clip
  });
  ExpectSameBytes(d.cpu, d.gpu);
}

TEST(GpuCanvasTest, AbsurdCoordinatesMatchTheCpu) {
  SKIP_WITHOUT_GPU();
  const Drawn d = DrawBoth(Backdrop(16, 16), Rect{4, 4, 8, 8}, [](VectorSurface& s) {
    s.Fill(Path().AddPolygon({{-1e30f, 5}, {1e30f, 6}, {8, 1e30f}}), Paint::Solid(Color::Hex(0xffffff)), {});
    s.Fill(Path().AddPolygon({{NAN, 5}, {10, NAN}, {8, 9}}), Paint::Solid(Color::Hex(0xffffff)), {});
  });
  ExpectSameBytes(d.cpu, d.gpu);
}

// The rigs as the compositor draws them: every mouth shape and expression of
// the built-in presenter (the golden scenes, at their size and at 1080p) and
// the PNG-layer example rig.
void ExpectRigMatches(const RigRenderer& renderer, const AvatarState& state, int width, int height) {
  const Rect area{width / 8, height / 10, width * 3 / 4, height * 9 / 10};
  const Drawn d =
      DrawBoth(Backdrop(width, height), Rect{0, 0, width, height},
               [&](VectorSurface& s) { renderer.Draw(state, area, s); });
  ExpectSameBytes(d.cpu, d.gpu);
}

TEST(GpuCanvasTest, ThePresenterMatchesTheCpuInEveryMouthShape) {
  SKIP_WITHOUT_GPU();
  const RigRenderer renderer(rig::BuiltInPresenter());
  for (int v = 0; v < kVisemeCount; ++v) {
    SCOPED_TRACE(VisemeLetter(static_cast<Viseme>(v)));
    AvatarState state;
    state.mouth = MouthParamsOf(static_cast<Viseme>(v));
    ExpectRigMatches(renderer, state, 160, 208);
  }
}

TEST(GpuCanvasTest, ThePresenterMatchesTheCpuInEveryExpressionAt1080p) {
  SKIP_WITHOUT_GPU();
  const RigRenderer renderer(rig::BuiltInPresenter());
  for (Expression e : {Expression::kNeutral, Expression::kSmile, Expression::kSurprised, Expression::kThinking}) {
    SCOPED_TRACE(ExpressionName(e));
    AvatarState state;
    state.expression = ExpressionWeights::Of(e);
    state.head_roll = 0.05f;
    ExpectRigMatches(renderer, state, 1920, 1080);
  }
}

TEST(GpuCanvasTest, ThePngtuberExampleMatchesTheCpu) {
  SKIP_WITHOUT_GPU();
  auto rig = rig::LoadRig(LINGCAST_SOURCE_DIR "/examples/avatars/pngtuber/pngtuber.json");
  ASSERT_OK(rig);
  const RigRenderer renderer(*rig);
  AvatarState state;
  state.mouth = MouthParamsOf(Viseme::kD);
  ExpectRigMatches(renderer, state, 640, 360);
}

TEST(GpuCanvasTest, AListForAnotherSizeIsRefused) {
  SKIP_WITHOUT_GPU();
  GpuCanvas canvas;
  canvas.Begin(64, 64, Rect{0, 0, 64, 64});
  canvas.Fill(Path::Ellipse({32, 32}, 10, 10), Paint::Solid(Color::Hex(0xffffff)), {});
  absl::StatusOr<CudaStream> stream = CudaStream::Create();
  ASSERT_OK(stream);
  absl::StatusOr<DeviceFrame> frame = DeviceFrame::Allocate(32, 32);
  ASSERT_OK(frame);
  const absl::Status status = canvas.Execute(*frame, stream->get());
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("recorded for 64x64"), std::string::npos) << status;
}

#endif  // LINGCAST_HAVE_CUDA_RENDERER

}  // namespace
}  // namespace lingcast
