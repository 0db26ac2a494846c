#include "audio/levels.h"

#include <algorithm>
#include <cmath>

namespace lingcast {
namespace {

double ToDbfs(double amplitude) {
  if (!(amplitude > 0.0)) return kSilenceDbfs;
  return std::max(kSilenceDbfs, 20.0 * std::log10(amplitude));
}

}  // namespace

double RmsDbfs(std::span<const float> samples) {
  if (samples.empty()) return kSilenceDbfs;
  double sum_squares = 0.0;
  for (float s : samples) sum_squares += static_cast<double>(s) * s;
  return ToDbfs(std::sqrt(sum_squares / static_cast<double>(samples.size())));
}

double PeakDbfs(std::span<const float> samples) {
  double peak = 0.0;
  for (float s : samples) peak = std::max(peak, static_cast<double>(std::fabs(s)));
  return ToDbfs(peak);
}

AudioLevels MeasureLevels(std::span<const float> samples) {
  return AudioLevels{RmsDbfs(samples), PeakDbfs(samples)};
}

}  // namespace lingcast
