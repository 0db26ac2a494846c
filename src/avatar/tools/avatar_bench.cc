// Prints how long the built-in avatar takes to render (no assertions): the
// avatar region alone and inside a full frame, over a speaking animation.
//   avatar_bench [frames]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <cstdlib>
#include <vector>

#include "avatar/animator.h"
#include "avatar/avatar_renderer.h"

namespace {

// CPU time of this thread: on a shared, loaded machine it excludes the time the
// scheduler gave to others, which wall time does not.
double ThreadCpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace lingcast;
  const int frames = argc > 1 ? std::max(1, std::atoi(argv[1])) : 300;
  VisemeTrack track;
  const Viseme cycle[] = {Viseme::kB, Viseme::kD, Viseme::kA, Viseme::kC, Viseme::kF,
                          Viseme::kE, Viseme::kG, Viseme::kH, Viseme::kX};
  for (int i = 0; i < 200; ++i) {
    track.cues.push_back({MediaTime::Millis(i * 90), MediaTime::Millis(i * 90 + 90), cycle[i % 9]});
  }
  const Animator animator(track);
  AvatarRenderer renderer;
  struct Case {
    const char* name;
    int frame_w, frame_h;
    Rect area;
  };
  const Case cases[] = {
      {"avatar 500x650 region", 500, 650, {0, 0, 500, 650}},
      {"1280x720 frame, avatar 480x624", 1280, 720, {400, 96, 480, 624}},
      {"1920x1080 frame, avatar 720x936", 1920, 1080, {600, 144, 720, 936}},
      {"3840x2160 frame, avatar 1440x1872", 3840, 2160, {1200, 288, 1440, 1872}},
  };
  for (const Case& c : cases) {
    VideoFrame frame;
    frame.Allocate(c.frame_w, c.frame_h);
    std::vector<double> ms, cpu;
    int64_t shaded = 0;
    for (int i = 0; i < frames; ++i) {
      const AvatarState state = animator.StateAt(MediaTime::FromFrameIndex(i, 30));
      const double c0 = ThreadCpuMs();
      const auto t0 = std::chrono::steady_clock::now();
      renderer.Render(state, frame, c.area);
      const auto t1 = std::chrono::steady_clock::now();
      cpu.push_back(ThreadCpuMs() - c0);
      ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
      shaded += renderer.last_pixels_shaded();
    }
    std::sort(ms.begin(), ms.end());
    std::sort(cpu.begin(), cpu.end());
    std::printf("%-36s wall p50 %6.2f p99 %6.2f ms | cpu p50 %6.2f p99 %6.2f ms | %.0f px shaded/frame\n",
                c.name, ms[ms.size() / 2], ms[ms.size() * 99 / 100], cpu[cpu.size() / 2],
                cpu[cpu.size() * 99 / 100], static_cast<double>(shaded) / frames);
  }
  return 0;
}
