#include "lipsync/voiced_onsets.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "absl/strings/str_cat.h"

namespace lingcast {
namespace {

constexpr int kHop = 160;      // 10 ms
constexpr int kWindow = 480;   // 30 ms
constexpr int kMinLag = 40;    // 400 Hz
constexpr int kMaxLag = 256;   // 62.5 Hz

float Percentile(std::vector<float> values, double share) {
  if (values.empty()) return -120.0f;
  const auto k = static_cast<size_t>(share * static_cast<double>(values.size() - 1));
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(k), values.end());
  return values[k];
}

int Frames(MediaTime t) { return static_cast<int>((t.micros() + 9999) / 10000); }

}  // namespace

bool VoicedSpeech::InSpeech(MediaTime t) const {
  for (const auto& [start, end] : segments) {
    if (t >= start && t < end) return true;
  }
  return false;
}

absl::StatusOr<VoicedSpeech> FindVoicedSpeech(const AudioBuffer& pcm16k, const VoicedOnsetOptions& options) {
  if (pcm16k.sample_rate != VoicedOnsetOptions::kSampleRate || pcm16k.channels != 1) {
    return absl::InvalidArgumentError(absl::StrCat("voiced-speech onsets take 16000 Hz mono, got ", pcm16k.sample_rate,
                                                   " Hz with ", pcm16k.channels, " channels (resample first)"));
  }
  const std::vector<float>& x = pcm16k.samples;
  const auto n = static_cast<int64_t>(x.size());
  auto sample = [&](int64_t i) { return i < 0 || i >= n ? 0.0f : x[static_cast<size_t>(i)]; };

  VoicedSpeech result;
  const int frame_count = static_cast<int>((n + kHop - 1) / kHop);
  result.frames.resize(static_cast<size_t>(frame_count));
  std::vector<float> levels;
  for (int k = 0; k < frame_count; ++k) {
    VoicingFrame& f = result.frames[static_cast<size_t>(k)];
    const int64_t first = int64_t{k} * kHop + kHop / 2 - kWindow / 2;
    double energy = 0;
    for (int i = 0; i < kWindow; ++i) energy += static_cast<double>(sample(first + i)) * sample(first + i);
    f.level_db = static_cast<float>(10.0 * std::log10(std::max(energy / kWindow, 1e-12)));
    if (f.level_db >= -85.0f) levels.push_back(f.level_db);
    // Normalized cross-correlation: 1 for a perfectly periodic signal at that
    // lag whatever its level, near 0 for noise.
    for (int lag = kMinLag; lag <= kMaxLag; ++lag) {
      double xy = 0, yy = 0;
      for (int i = 0; i < kWindow; ++i) {
        const float a = sample(first + i), b = sample(first + i + lag);
        xy += static_cast<double>(a) * b;
        yy += static_cast<double>(b) * b;
      }
      const double r = energy > 0 && yy > 0 ? xy / std::sqrt(energy * yy) : 0.0;
      if (r > f.periodicity) {
        f.periodicity = static_cast<float>(r);
        f.pitch_hz = static_cast<float>(VoicedOnsetOptions::kSampleRate) / static_cast<float>(lag);
      }
    }
  }
  result.floor_db = Percentile(levels, 0.10);
  result.loud_db = Percentile(levels, 0.95);
  for (VoicingFrame& f : result.frames) {
    f.voiced = f.periodicity >= options.min_periodicity &&
               f.level_db >= result.floor_db + options.voiced_over_floor_db &&
               f.level_db >= result.loud_db - options.voiced_under_loud_db;
  }

  // Groups: runs of frames loud enough to be speech, joined across pauses
  // shorter than min_pause.
  const float active_db = std::max(result.floor_db + options.active_over_floor_db,
                                   result.loud_db - options.active_under_loud_db);
  const int min_pause = Frames(options.min_pause);
  std::vector<std::pair<int, int>> groups;  // [first, last + 1) frames
  auto active = [&](const VoicingFrame& f) {
    return f.level_db >= active_db ||
           (f.periodicity >= options.min_periodicity && f.level_db >= result.floor_db + options.onset_over_floor_db);
  };
  for (int k = 0; k < frame_count; ++k) {
    if (!active(result.frames[static_cast<size_t>(k)])) continue;
    if (!groups.empty() && k - groups.back().second < min_pause) {
      groups.back().second = k + 1;
    } else {
      groups.push_back({k, k + 1});
    }
  }
  // Speech: a group holding a voiced nucleus (a run of voiced frames, gaps of
  // one or two frames bridged, at least min_nucleus long). A breath, a click or
  // a hum loud enough to be active but never voiced is not speech.
  const int min_nucleus = Frames(options.min_nucleus);
  std::vector<std::pair<int, int>> merged;
  for (const auto& [first, end] : groups) {
    int run = 0, gap = 0;
    bool nucleus = false;
    for (int k = first; k < end && !nucleus; ++k) {
      if (result.frames[static_cast<size_t>(k)].voiced) {
        run += 1 + gap;
        gap = 0;
      } else if (run > 0 && ++gap > 2) {
        run = 0;
        gap = 0;
      }
      nucleus = run >= min_nucleus;
    }
    if (!nucleus) continue;
    // A quiet onset consonant (an /s/ a few dB over the floor) starts the speech.
    const int limit = std::max(merged.empty() ? 0 : merged.back().second, first - Frames(options.max_onset_growth));
    int start = first;
    while (start > limit &&
           result.frames[static_cast<size_t>(start - 1)].level_db >= result.floor_db + options.onset_over_floor_db) {
      --start;
    }
    merged.push_back({start, end});
  }
  const MediaTime end_of_audio = pcm16k.duration();
  for (const auto& [first, end] : merged) {
    const MediaTime start = MediaTime::Millis(int64_t{first} * 10);
    const MediaTime stop = std::min(end_of_audio, MediaTime::Millis(int64_t{end} * 10));
    result.segments.push_back({start, stop});
    result.onsets.push_back(start);
  }
  return result;
}

}  // namespace lingcast
