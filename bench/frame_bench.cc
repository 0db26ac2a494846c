// Per-frame render time of what `lingcast render` draws: the studio background,
// the built-in avatar (mouth shapes, blinks and idle motion varying) and two
// subtitle lines (zh over en), through the Compositor, at 640x360 ... 3840x2160.
// For each size it renders the same frames with the default thread count and
// with one thread, in the same run, and prints p50/p99 and the ratio.
// Prints figures; never fails on time.
//   frame_bench [FRAMES] [THREADS]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "avatar/animator.h"
#include "avatar/avatar_renderer.h"
#include "compose/compositor.h"

namespace {

using Clock = std::chrono::steady_clock;

double Percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())))];
}

struct Figures {
  double p50 = 0, p99 = 0, mean = 0;
};

}  // namespace

int main(int argc, char** argv) {
  using namespace lingcast;
  using namespace lingcast::compose;
  const int frames = argc > 1 ? std::max(100, std::atoi(argv[1])) : 200;
  const int threads = argc > 2 ? std::max(0, std::atoi(argv[2])) : 0;

  // Speech: every shape in turn, 90 ms each, so each frame differs from the last;
  // blinks every 0.5-1.5 s so a 200-frame run has several.
  VisemeTrack track;
  const Viseme cycle[] = {Viseme::kB, Viseme::kD, Viseme::kA, Viseme::kC, Viseme::kF,
                          Viseme::kE, Viseme::kG, Viseme::kH, Viseme::kX};
  for (int i = 0; i < 400; ++i) {
    track.cues.push_back({MediaTime::Millis(i * 90), MediaTime::Millis(i * 90 + 90), cycle[i % 9]});
  }
  AnimatorOptions animation;
  animation.blink_min_gap = MediaTime::Millis(500);
  animation.blink_max_gap = MediaTime::Millis(1500);
  const Animator animator(track, animation);
  // Two cues of long lines; a new cue every 4 s.
  const SubtitleCue cues[] = {
      {MediaTime::Zero(), MediaTime::Seconds(4),
       {"大家好，欢迎来到直播间！今天给大家介绍一款新产品，续航时间长达三十个小时。", Language::kZh},
       {"Hello everyone, welcome to the live stream! Today we have a new product whose battery lasts thirty hours.",
        Language::kEn}},
      {MediaTime::Seconds(4), MediaTime::Seconds(1000),
       {"现在下单还可以享受八折优惠，数量有限，先到先得。", Language::kZh},
       {"Order now for 20% off; stock is limited, first come, first served.", Language::kEn}},
  };

  std::printf("frame_bench: %d frames per size at 30 fps (avatar speaking, blinking; zh + en subtitles)\n", frames);
  std::printf("%-10s %8s | %9s %9s %9s | %9s %9s | %7s\n", "size", "threads", "p50 ms", "p99 ms", "mean ms",
              "1t p50", "1t p99", "ratio");
  for (auto [w, h] : {std::pair{640, 360}, std::pair{1280, 720}, std::pair{1920, 1080}, std::pair{3840, 2160}}) {
    auto run = [&](int thread_count, int* used_threads) -> Figures {
      CompositorOptions options;
      options.width = w;
      options.height = h;
      options.threads = thread_count;
      auto compositor = Compositor::Create(options);
      if (!compositor.ok()) {
        std::fprintf(stderr, "frame_bench: %s\n", std::string(compositor.status().message()).c_str());
        std::exit(2);
      }
      if (used_threads) *used_threads = (*compositor)->threads();
      AvatarRenderer avatar;
      AvatarState state;
      (*compositor)->SetAvatarRenderer([&](VideoFrame& frame, const Rect& area, const Rect& clip) {
        avatar.Render(state, frame, area, clip);
      });
      for (const SubtitleCue& cue : cues) (void)(*compositor)->SubtitleFor(cue);  // laid out ahead, as the app does
      VideoFrame frame;
      std::vector<double> ms;
      for (int f = 0; f < frames; ++f) {
        const MediaTime t = MediaTime::FromFrameIndex(f, 30);
        const SubtitleCue& cue = cues[t < cues[0].end ? 0 : 1];
        const auto start = Clock::now();
        state = animator.StateAt(t);
        if (auto status = (*compositor)->Compose(t, &cue, frame); !status.ok()) {
          std::fprintf(stderr, "frame_bench: %s\n", std::string(status.message()).c_str());
          std::exit(1);
        }
        ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
      }
      Figures fig{Percentile(ms, 0.5), Percentile(ms, 0.99), 0};
      for (double v : ms) fig.mean += v / static_cast<double>(ms.size());
      return fig;
    };
    int used = 0;
    const Figures multi = run(threads, &used);
    const Figures single = run(1, nullptr);
    std::printf("%4dx%-5d %8d | %9.2f %9.2f %9.2f | %9.2f %9.2f | %6.2fx\n", w, h, used, multi.p50, multi.p99,
                multi.mean, single.p50, single.p99, single.p99 / multi.p99);
  }
  return 0;
}
