// The CUDA renderer against the CPU one, in the same process, on what
// `lingcast render` draws (studio background, the speaking built-in avatar,
// zh/en subtitles with word highlight, a lower-third title) at 1920x1080 and
// 3840x2160. Per frame it times
//   cpu:  Compositor::Compose (all cores) + the encoder's RGBA -> yuv420p
//         conversion (RowBandConverter, as VideoEncoder runs it);
//   cuda: GpuCompositor::Compose: drawing, conversion and the download of the
//         yuv420p planes into pinned memory, synchronized (then, pipelined as
//         the render stage runs it, the mean time a frame);
// and prints p50/p99 and their ratio. Without a CUDA GPU (or a build without
// the CUDA renderer) it prints the CPU figures and why CUDA was skipped.
// After the pipelined run it names its slowest frame starts and whether a word's
// highlight changed at each, to tell what the tail is made of.
// Prints figures; never fails on time.
//   cuda_render_bench [FRAMES] [WxH|all] [no-highlight]
#include <algorithm>
#include <chrono>
#include <memory>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "avatar/animator.h"
#include "avatar/avatar_renderer.h"
#include "avatar/cuda_support.h"
#include "compose/compositor.h"
#include "compose/gpu_compositor.h"
#include "media/video_frame.h"
#include "output/rgba_to_yuv.h"

namespace {

using Clock = std::chrono::steady_clock;

double Percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())))];
}

double MsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// The cue below lights up a word every 300 ms: whether the frame at `t` (60 fps)
// is the first of a new word.
bool NewWordAt(lingcast::MediaTime t) {
  return t.millis() / 300 != (t - lingcast::MediaTime::FromFrameIndex(1, 60)).millis() / 300;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace lingcast;
  using namespace lingcast::compose;
  const int frames = argc > 1 ? std::max(50, std::atoi(argv[1])) : 300;
  std::vector<std::pair<int, int>> sizes = {{1920, 1080}, {3840, 2160}};
  if (argc > 2 && std::sscanf(argv[2], "%dx%d", &sizes[0].first, &sizes[0].second) == 2) sizes.resize(1);
  const bool highlight = !(argc > 3 && std::string(argv[3]) == "no-highlight");
  const int cores = static_cast<int>(std::thread::hardware_concurrency());
  const absl::Status cuda = CudaDeviceUsable();
  absl::StatusOr<std::string> device = CudaDeviceDescription();
  std::printf("cuda_render_bench: %d frames per case, %d cores, GPU: %s\n", frames, cores,
              device.ok() ? device->c_str() : std::string(cuda.message()).c_str());

  VisemeTrack track;
  for (int i = 0; i < 2000; ++i) {
    track.cues.push_back({MediaTime::Millis(i * 70), MediaTime::Millis(i * 70 + 70), static_cast<Viseme>(i % 9)});
  }
  const Animator animator(track, AnimatorOptions{});
  // A long cue with a word every 0.3 s, so the highlight changes as it would.
  const std::string text =
      "Today we have a new product for you: these earphones last up to thirty hours and support fast charging.";
  SubtitleCue cue{MediaTime::Zero(), MediaTime::Seconds(3600), {text, Language::kEn},
                  {"今天给大家介绍一款新产品：这款耳机的续航时间长达三十个小时，支持快速充电。", Language::kZh}};
  int word = 0;
  for (size_t at = 0; at < text.size(); ++word) {
    size_t end = text.find(' ', at);
    if (end == std::string::npos) end = text.size();
    cue.words.push_back({static_cast<int>(at), static_cast<int>(end - at), MediaTime::Millis(300 * word),
                         MediaTime::Millis(300 * word + 300)});
    at = end + 1;
  }

  for (const auto& [width, height] : sizes) {
    CompositorOptions options;
    options.width = width;
    options.height = height;
    options.highlight_words = highlight;
    options.titles = {{"李娜 Li Na", "主播 · Host", MediaTime::Zero(), MediaTime::Seconds(3600)}};
    auto compositor = Compositor::Create(options);
    if (!compositor.ok()) {
      std::fprintf(stderr, "compositor: %s\n", std::string(compositor.status().message()).c_str());
      return 1;
    }
    AvatarRenderer avatar;
    AvatarState state;
    (*compositor)->SetAvatarRenderer(
        [&](VideoFrame& frame, const Rect& area, const Rect& clip) { avatar.Render(state, frame, area, clip); });

    // What each renderer's frame start asks of the compositor on the CPU: the
    // layers, where a new word's highlight re-colours its glyphs in the sprite.
    {
      auto layers_only = Compositor::Create(options);
      if (!layers_only.ok()) return 1;
      std::vector<double> changed, unchanged;
      for (int i = -10; i < frames; ++i) {
        const MediaTime t = MediaTime::FromFrameIndex(std::max(0, i) + 10, 60);
        const auto start = Clock::now();
        if (!(*layers_only)->LayersAt(t, &cue).ok()) return 1;
        const double ms = MsSince(start);
        if (i >= 0) (highlight && NewWordAt(t) ? changed : unchanged).push_back(ms);
      }
      std::printf("%dx%d layers (cpu): with a new word highlighted %zu frames, p50 %.3f ms max %.3f ms; the rest p50 "
                  "%.3f ms p99 %.3f ms\n",
                  width, height, changed.size(), changed.empty() ? 0.0 : Percentile(changed, 0.5),
                  changed.empty() ? 0.0 : Percentile(changed, 1.0), Percentile(unchanged, 0.5),
                  Percentile(unchanged, 0.99));
    }

    // CPU: drawing, then the encoder's conversion.
    RowBandConverter converter(ConversionThreadsFor(width, height, cores));
    std::vector<uint8_t> planes(static_cast<size_t>(width) * height * 3 / 2);
    const Yuv420Planes out{planes.data(), width, planes.data() + static_cast<size_t>(width) * height, width / 2,
                           planes.data() + static_cast<size_t>(width) * height * 5 / 4, width / 2};
    std::vector<double> cpu_draw, cpu_total;
    VideoFrame frame;
    for (int i = -10; i < frames; ++i) {  // 10 frames of warm-up
      const MediaTime t = MediaTime::FromFrameIndex(std::max(0, i) + 10, 60);
      state = animator.StateAt(t);
      const auto start = Clock::now();
      if (!(*compositor)->Compose(t, &cue, frame).ok()) return 1;
      const double draw = MsSince(start);
      converter.Convert(frame.rgba.data(), frame.stride, width, height, out);
      if (i >= 0) {
        cpu_draw.push_back(draw);
        cpu_total.push_back(MsSince(start));
      }
    }
    std::printf("%dx%d cpu  draw p50 %6.2f ms p99 %6.2f ms | draw+yuv p50 %6.2f ms p99 %6.2f ms (%d conversion bands)\n",
                width, height, Percentile(cpu_draw, 0.5), Percentile(cpu_draw, 0.99), Percentile(cpu_total, 0.5),
                Percentile(cpu_total, 0.99), converter.bands());

    if (!cuda.ok()) {
      std::printf("%dx%d cuda skipped: %s\n", width, height, std::string(cuda.message()).c_str());
      continue;
    }
    auto gpu = CreateGpuCompositor(**compositor);
    if (!gpu.ok()) {
      std::fprintf(stderr, "cuda compositor: %s\n", std::string(gpu.status().message()).c_str());
      return 1;
    }
    (*gpu)->SetAvatarRenderer([&](VectorSurface& surface, const Rect& area) { avatar.Draw(state, area, surface); });
    std::vector<double> gpu_total;
    VideoFrame gpu_frame;
    for (int i = -10; i < frames; ++i) {
      const MediaTime t = MediaTime::FromFrameIndex(std::max(0, i) + 10, 60);
      state = animator.StateAt(t);
      const auto start = Clock::now();
      const absl::Status drawn = (*gpu)->Compose(t, &cue, gpu_frame);
      if (!drawn.ok()) {
        std::fprintf(stderr, "cuda compose: %s\n", std::string(drawn.message()).c_str());
        return 1;
      }
      if (i >= 0) gpu_total.push_back(MsSince(start));
    }
    std::printf("%dx%d cuda draw+yuv+download p50 %6.2f ms p99 %6.2f ms | cpu/cuda p99 %.1fx\n", width, height,
                Percentile(gpu_total, 0.5), Percentile(gpu_total, 0.99),
                Percentile(cpu_total, 0.99) / Percentile(gpu_total, 0.99));
    // Pipelined, as the render stage runs it: two frames in flight, the
    // output frames from a pool. Per frame: finishing the oldest frame in
    // flight and starting the next (what the render stage waits for).
    const std::shared_ptr<VideoFramePool> pool =
        VideoFramePool::Create(width, height, GpuCompositor::kFramesInFlight + 1);
    std::vector<double> pipelined, starts;
    std::vector<bool> highlight_changed;  // at that frame, a new word highlighted
    const auto pipelined_start = Clock::now();
    for (int i = -10; i < frames; ++i) {
      const auto frame_start = Clock::now();
      if ((*gpu)->in_flight() == GpuCompositor::kFramesInFlight && !(*gpu)->Finish().ok()) return 1;
      const MediaTime t = MediaTime::FromFrameIndex(std::max(0, i) + 10, 60);
      state = animator.StateAt(t);
      const auto start = Clock::now();
      if (!(*gpu)->Start(t, &cue, pool->Acquire()).ok()) return 1;
      if (i >= 0) {
        starts.push_back(MsSince(start));
        pipelined.push_back(MsSince(frame_start));
        highlight_changed.push_back(highlight && NewWordAt(t));
      }
    }
    while ((*gpu)->in_flight() > 0) {
      if (!(*gpu)->Finish().ok()) return 1;
    }
    std::printf("%dx%d cuda pipelined (%d frames in flight): %6.2f ms a frame over the run; per frame p50 %6.2f ms "
                "p99 %6.2f ms, of which starting it (recording, uploads) p50 %6.2f ms p99 %6.2f ms\n",
                width, height, GpuCompositor::kFramesInFlight, MsSince(pipelined_start) / (frames + 10),
                Percentile(pipelined, 0.5), Percentile(pipelined, 0.99), Percentile(starts, 0.5),
                Percentile(starts, 0.99));
    std::vector<size_t> order(starts.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return starts[a] > starts[b]; });
    std::printf("%dx%d slowest starts (frame: ms, * = a new word highlighted):", width, height);
    for (size_t i = 0; i < std::min<size_t>(order.size(), 12); ++i) {
      std::printf(" %zu: %.2f%s", order[i], starts[order[i]], highlight_changed[order[i]] ? "*" : "");
    }
    std::vector<double> with_change, without_change;
    for (size_t i = 0; i < starts.size(); ++i) (highlight_changed[i] ? with_change : without_change).push_back(starts[i]);
    std::printf("\n%dx%d starts with a new word highlighted: %zu, p50 %.2f ms p99 %.2f ms; the rest: %zu, p50 %.2f ms "
                "p99 %.2f ms\n",
                width, height, with_change.size(), with_change.empty() ? 0.0 : Percentile(with_change, 0.5),
                with_change.empty() ? 0.0 : Percentile(with_change, 0.99), without_change.size(),
                Percentile(without_change, 0.5), Percentile(without_change, 0.99));
  }
  return 0;
}
