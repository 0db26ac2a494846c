// AudioBuffer: a run of PCM samples. Float in [-1, 1], interleaved by channel.
// lingcast's internal audio is mono float; outputs convert and resample.
#pragma once

#include <cstdint>
#include <vector>

#include "core/media_time.h"

namespace lingcast {

struct AudioBuffer {
  int sample_rate = 0;
  int channels = 1;
  std::vector<float> samples;  // interleaved: frames() * channels values

  int64_t frames() const { return channels ? static_cast<int64_t>(samples.size()) / channels : 0; }
  MediaTime duration() const {
    return sample_rate ? MediaTime::FromSamples(frames(), sample_rate) : MediaTime::Zero();
  }
  bool empty() const { return samples.empty(); }

  // A buffer of silence lasting `duration` (rounded down to whole samples).
  static AudioBuffer Silence(MediaTime duration, int sample_rate, int channels = 1);
};

}  // namespace lingcast
