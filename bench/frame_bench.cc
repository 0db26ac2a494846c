// Per-frame render time of what `lingcast render` draws: the studio background,
// the built-in avatar (mouth shapes, blinks and idle motion varying) and two
// subtitle lines (zh over en), through the Compositor, at 640x360 ... 3840x2160.
// For each size it renders the same frames with the default thread count and
// with one thread, then with the optional layers (word highlight + a
// lower-third title), then over a looping H.264 video background, in the same
// run, and prints p50/p99 and each case's p99 against the first.
// Beside wall time it prints the process CPU time per frame (all threads): on a
// shared machine wall time includes waiting for cores others are using, and
// the load average printed before and after says how busy the machine was.
// Prints figures; never fails on time.
//   frame_bench [FRAMES] [THREADS] [WxH]   (WxH: only that size, e.g. 1920x1080)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

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
  double p50 = 0, p99 = 0, mean = 0, cpu_per_frame = 0;
  double cpu_p50 = 0, cpu_p99 = 0;  // process CPU (all threads) per frame
};

double ProcessCpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

std::string LoadAverage() {
  std::ifstream in("/proc/loadavg");
  std::string one, five;
  in >> one >> five;
  return one + " " + five;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace lingcast;
  using namespace lingcast::compose;
  const int frames = argc > 1 ? std::max(100, std::atoi(argv[1])) : 200;
  const int threads = argc > 2 ? std::max(0, std::atoi(argv[2])) : 0;
  int only_width = 0, only_height = 0;
  if (argc > 3 && std::sscanf(argv[3], "%dx%d", &only_width, &only_height) != 2) {
    std::fprintf(stderr, "frame_bench: size '%s' is not WIDTHxHEIGHT (e.g. 1920x1080)\n", argv[3]);
    return 2;
  }

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

  // Word timing for the highlight case: the spoken line's characters in
  // pairs (6 bytes of UTF-8 Chinese), one pair every 250 ms.
  std::vector<SubtitleCue> timed(std::begin(cues), std::end(cues));
  for (SubtitleCue& cue : timed) {
    for (int at = 0, i = 0; at < static_cast<int>(cue.primary.text.size()); at += 6, ++i) {
      const int length = std::min(6, static_cast<int>(cue.primary.text.size()) - at);
      cue.words.push_back({at, length, cue.start + MediaTime::Millis(250 * i), cue.start + MediaTime::Millis(250 * i + 250)});
    }
  }

  // The looping video background: a 2 s H.264 clip made with the ffmpeg CLI
  // (the usual source of such clips); the case is skipped without it.
  const std::string video_path = "/tmp/frame_bench_loop_" + std::to_string(getpid()) + ".mp4";
  const std::string make_video = "ffmpeg -v error -y -f lavfi -i testsrc2=size=1280x720:rate=30 -t 2 -c:v libx264 "
                                 "-preset veryfast -pix_fmt yuv420p " + video_path + " </dev/null";
  const bool have_video = std::system(make_video.c_str()) == 0;

  enum class Case { kBase, kBaseOneThread, kAllLayers, kVideo };
  struct CaseInfo {
    Case kind;
    const char* name;
  };
  const CaseInfo cases[] = {{Case::kBase, "avatar+subs"},
                            {Case::kBaseOneThread, "avatar+subs 1t"},
                            {Case::kAllLayers, "+highlight+title"},
                            {Case::kVideo, "+video bg"}};

  std::printf("frame_bench: %d frames per size at 30 fps (avatar speaking, blinking; zh + en subtitles, outline "
              "look); load average %s\n", frames, LoadAverage().c_str());
  // On a loaded machine wall time includes waiting for a core; the CPU time a
  // frame took (all threads) is the steadier figure, and on an idle machine
  // with N cores the wall time is about cpu / N.
  std::printf("%-10s %-17s %7s | %8s %8s %8s | %8s %8s %8s | %12s\n", "size", "case", "threads", "p50 ms",
              "p99 ms", "mean ms", "cpu mean", "cpu p50", "cpu p99", "p99 vs base");
  for (auto [w, h] : {std::pair{640, 360}, std::pair{1280, 720}, std::pair{1920, 1080}, std::pair{3840, 2160}}) {
    if (only_width != 0 && (w != only_width || h != only_height)) continue;
    auto run = [&](Case kind, int* used_threads) -> Figures {
      CompositorOptions options;
      options.width = w;
      options.height = h;
      options.threads = kind == Case::kBaseOneThread ? 1 : threads;
      if (kind == Case::kAllLayers) {
        options.highlight_words = true;
        options.titles = {{"李娜 Li Na", "主播 · Host, Lingcast Live", MediaTime::Zero(), MediaTime::Seconds(1000)}};
      }
      if (kind == Case::kVideo) {
        options.background_source.kind = BackgroundKind::kVideo;
        options.background_source.path = video_path;
      }
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
      for (const SubtitleCue& cue : timed) (void)(*compositor)->SubtitleFor(cue);  // laid out ahead, as the app does
      VideoFrame frame;
      std::vector<double> ms, cpu_ms;
      const double cpu_start = ProcessCpuMs();
      for (int f = 0; f < frames; ++f) {
        const MediaTime t = MediaTime::FromFrameIndex(f, 30);
        const SubtitleCue& cue = timed[t < timed[0].end ? 0 : 1];
        const double frame_cpu_start = ProcessCpuMs();
        const auto start = Clock::now();
        state = animator.StateAt(t);
        if (auto status = (*compositor)->Compose(t, &cue, frame); !status.ok()) {
          std::fprintf(stderr, "frame_bench: %s\n", std::string(status.message()).c_str());
          std::exit(1);
        }
        ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
        cpu_ms.push_back(ProcessCpuMs() - frame_cpu_start);
      }
      Figures fig{Percentile(ms, 0.5), Percentile(ms, 0.99), 0, (ProcessCpuMs() - cpu_start) / frames,
                  Percentile(cpu_ms, 0.5), Percentile(cpu_ms, 0.99)};
      for (double v : ms) fig.mean += v / static_cast<double>(ms.size());
      return fig;
    };
    double base_p99 = 0;
    for (const CaseInfo& c : cases) {
      if (c.kind == Case::kVideo && !have_video) {
        std::printf("%4dx%-5d %-17s (skipped: no ffmpeg CLI to make the test clip)\n", w, h, c.name);
        continue;
      }
      int used = 0;
      const Figures fig = run(c.kind, &used);
      if (c.kind == Case::kBase) base_p99 = fig.p99;
      std::printf("%4dx%-5d %-17s %7d | %8.2f %8.2f %8.2f | %8.2f %8.2f %8.2f | %11.2fx\n", w, h, c.name, used,
                  fig.p50, fig.p99, fig.mean, fig.cpu_per_frame, fig.cpu_p50, fig.cpu_p99, fig.p99 / base_p99);
    }
  }
  if (have_video) std::remove(video_path.c_str());
  std::printf("load average after: %s\n", LoadAverage().c_str());
  return 0;
}
