#include "media/audio_buffer.h"

namespace lingcast {

AudioBuffer AudioBuffer::Silence(MediaTime duration, int sample_rate, int channels) {
  AudioBuffer b;
  b.sample_rate = sample_rate;
  b.channels = channels;
  b.samples.assign(static_cast<size_t>(duration.ToSamples(sample_rate) * channels), 0.0f);
  return b;
}

}  // namespace lingcast
