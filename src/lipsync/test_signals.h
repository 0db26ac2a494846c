// Test support (not part of the library): synthetic signals with known timing
// for the voiced-onset reference and the audio-only tracker -- room noise, a
// mains hum, a breath, a hiss (fricative), a voiced vowel.
#pragma once

#include <cstdint>

#include "core/media_time.h"
#include "media/audio_buffer.h"

namespace lingcast {

class SignalBuilder {
 public:
  SignalBuilder();
  void Noise(MediaTime duration, float dbfs, uint32_t seed);  // white
  void Hum(MediaTime duration, float dbfs);                   // 60 Hz with 2nd-4th harmonics
  void Breath(MediaTime duration, float dbfs);                // noise low-passed around 1-3 kHz, swelling
  void Hiss(MediaTime duration, float dbfs);                  // noise high-passed (an /s/)
  // Harmonics of pitch_hz shaped by two formant bumps (default: an open /a/-like 700 and 1200 Hz).
  void Vowel(MediaTime duration, float pitch_hz, float dbfs, float f1_hz = 700, float f2_hz = 1200);

  MediaTime now() const { return audio_.duration(); }
  const AudioBuffer& audio() const { return audio_; }

 private:
  AudioBuffer audio_;
  uint32_t state_ = 12345;
  float NextNoise();
};

}  // namespace lingcast
