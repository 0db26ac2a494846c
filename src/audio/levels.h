// Levels of a buffer in dBFS (decibels relative to digital full scale, 1.0).
//
// RMS is 20*log10(rms) of the raw samples, so a full-scale sine reads -3.01 dBFS
// and full-scale square 0 dBFS. Silence (and an empty buffer) reads kSilenceDbfs
// rather than -infinity, so the values are safe to print, average and put in JSON.
#pragma once

#include <span>

namespace lingcast {

inline constexpr double kSilenceDbfs = -120.0;

struct AudioLevels {
  double rms_dbfs = kSilenceDbfs;
  double peak_dbfs = kSilenceDbfs;
};

double RmsDbfs(std::span<const float> samples);
double PeakDbfs(std::span<const float> samples);
AudioLevels MeasureLevels(std::span<const float> samples);

}  // namespace lingcast
