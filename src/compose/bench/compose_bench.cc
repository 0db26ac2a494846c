// Compositor timing: per-frame cost (background copy + cached subtitle blit)
// without the avatar, and the one-off cost of laying out a new cue, at
// 640x360 ... 3840x2160. Prints figures; never fails on time.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "compose/compositor.h"
#include "core/process_stats.h"

namespace {

using Clock = std::chrono::steady_clock;

double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

double Percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * v.size()))];
}

}  // namespace

int main(int argc, char** argv) {
  using namespace lingcast;
  using namespace lingcast::compose;
  const int frames = argc > 1 ? std::max(30, std::atoi(argv[1])) : 300;
  const std::vector<std::pair<std::string, std::string>> lines = {
      {"大家好，欢迎来到直播间！今天给大家介绍一款新产品。",
       "Hello everyone, welcome to the live stream! Today we have a new product for you."},
      {"这款耳机的续航时间长达三十个小时，支持快速充电。",
       "These earphones last up to thirty hours and support fast charging."},
      {"现在下单还可以享受八折优惠，数量有限，先到先得。",
       "Order now for 20% off; stock is limited, first come, first served."},
  };
  std::printf("compose_bench: %d frames per size, a new cue every 90 frames (3 s at 30 fps), no avatar\n", frames);
  std::printf("%-10s %9s %9s %9s %12s %12s\n", "size", "p50 ms", "p99 ms", "mean ms", "new cue ms", "bg build ms");
  for (auto [w, h] : {std::pair{640, 360}, std::pair{1280, 720}, std::pair{1920, 1080}, std::pair{3840, 2160}}) {
    CompositorOptions options;
    options.width = w;
    options.height = h;
    const auto build_start = Clock::now();
    auto compositor = Compositor::Create(options);
    const double build_ms = Ms(Clock::now() - build_start);
    if (!compositor.ok()) {
      std::fprintf(stderr, "compose_bench: %s\n", std::string(compositor.status().message()).c_str());
      return 2;
    }
    std::vector<SubtitleCue> cues;
    for (size_t i = 0; i < 1000; ++i) {
      const auto& [zh, en] = lines[i % lines.size()];
      // Distinct text per cue so every cue is laid out fresh, as in a real script.
      cues.push_back({MediaTime::Seconds(3.0 * i), MediaTime::Seconds(3.0 * (i + 1)),
                      {zh + std::to_string(i), Language::kZh}, {en, Language::kEn}});
    }
    VideoFrame frame;
    frame.Allocate(w, h);
    std::vector<double> steady, first;
    for (int f = 0; f < frames; ++f) {
      const MediaTime t = MediaTime::FromFrameIndex(f, 30);
      const SubtitleCue& cue = cues[static_cast<size_t>(t.micros() / 3'000'000)];
      const auto start = Clock::now();
      if (auto status = (*compositor)->Compose(t, &cue, frame); !status.ok()) {
        std::fprintf(stderr, "compose_bench: %s\n", std::string(status.message()).c_str());
        return 1;
      }
      (f % 90 == 0 ? first : steady).push_back(Ms(Clock::now() - start));
    }
    double mean = 0;
    for (double v : steady) mean += v;
    mean /= steady.size();
    std::printf("%4dx%-5d %9.3f %9.3f %9.3f %12.2f %12.1f\n", w, h, Percentile(steady, 0.5),
                Percentile(steady, 0.99), mean, Percentile(first, 0.5), build_ms);
  }
  std::printf("peak RSS %.1f MB (all sizes in one process)\n", lingcast::PeakRssMb());
  return 0;
}
