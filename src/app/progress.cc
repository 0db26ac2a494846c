#include "app/progress.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>

#include "absl/strings/str_format.h"

namespace lingcast {

bool StderrIsTerminal() { return isatty(STDERR_FILENO) == 1; }

std::string ProgressBar::Format(int64_t done, int64_t total, bool total_known, double media_seconds,
                                double wall_seconds, const std::string& unit) {
  constexpr int kWidth = 24;
  const double fraction = total > 0 ? std::clamp(static_cast<double>(done) / total, 0.0, 1.0) : 0.0;
  const int filled = static_cast<int>(fraction * kWidth);
  std::string bar(filled, '#');
  bar.append(kWidth - filled, '-');
  const double speed = wall_seconds > 0 ? media_seconds / wall_seconds : 0.0;
  std::string eta = "--:--";
  if (total_known && done > 0 && done < total && wall_seconds > 0) {
    const int secs = static_cast<int>(std::lround(wall_seconds * (total - done) / done));
    eta = absl::StrFormat("%d:%02d", secs / 60, secs % 60);
  } else if (total_known && done >= total) {
    eta = "0:00";
  }
  return absl::StrFormat("[%s] %3d%%  %d/%s%d %s  %.1fx realtime  ETA %s", bar,
                         static_cast<int>(fraction * 100), done, total_known ? "" : "~", total, unit,
                         speed, eta);
}

void ProgressBar::Update(int64_t done, int64_t total, bool total_known, double media_seconds,
                         double wall_seconds) {
  if (!enabled_) return;
  std::fprintf(out_, "\r%s\033[K",
               Format(done, total, total_known, media_seconds, wall_seconds, "frames").c_str());
  std::fflush(out_);
  drawn_ = true;
}

void ProgressBar::Finish() {
  if (enabled_ && drawn_) {
    std::fprintf(out_, "\n");
    std::fflush(out_);
  }
  drawn_ = false;
}

}  // namespace lingcast
