// Helpers shared by this module's tests: a scratch directory and synthetic media.
#pragma once

#include <stdlib.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/scratch_dir.h"
#include "gtest/gtest.h"
#include "media/audio_buffer.h"
#include "media/video_frame.h"

namespace lingcast::testing_util {


// An opaque frame of one colour with a square that moves with `index`.
inline VideoFrame MakeFrame(int width, int height, int64_t index, uint8_t r = 40, uint8_t g = 90,
                            uint8_t b = 160) {
  VideoFrame frame;
  frame.Allocate(width, height);
  for (int y = 0; y < height; ++y) {
    uint8_t* row = frame.Row(y);
    for (int x = 0; x < width; ++x) {
      const bool in_square = x >= (index * 3) % width && x < (index * 3) % width + 16 && y >= height / 4 &&
                             y < height / 4 + 16;
      row[4 * x + 0] = in_square ? 250 : r;
      row[4 * x + 1] = in_square ? 250 : g;
      row[4 * x + 2] = in_square ? 250 : b;
      row[4 * x + 3] = 255;
    }
  }
  return frame;
}

// An opaque frame of noise: as costly to encode as a picture gets, so a few
// frames make megabytes (for congestion tests). Deterministic per index.
inline VideoFrame MakeNoiseFrame(int width, int height, int64_t index) {
  VideoFrame frame;
  frame.Allocate(width, height);
  uint32_t state = static_cast<uint32_t>(index) * 2654435761u + 1;
  for (int y = 0; y < height; ++y) {
    uint8_t* row = frame.Row(y);
    for (int x = 0; x < width; ++x) {
      state = state * 1664525u + 1013904223u;
      row[4 * x + 0] = static_cast<uint8_t>(state >> 24);
      row[4 * x + 1] = static_cast<uint8_t>(state >> 16);
      row[4 * x + 2] = static_cast<uint8_t>(state >> 8);
      row[4 * x + 3] = 255;
    }
  }
  return frame;
}

// A mono sine tone.
inline AudioBuffer MakeTone(double seconds, int sample_rate, double hz = 440, float amplitude = 0.5f) {
  AudioBuffer buffer;
  buffer.sample_rate = sample_rate;
  buffer.channels = 1;
  const auto count = static_cast<size_t>(std::llround(seconds * sample_rate));
  buffer.samples.resize(count);
  for (size_t i = 0; i < count; ++i) {
    buffer.samples[i] = amplitude * static_cast<float>(std::sin(2 * M_PI * hz * static_cast<double>(i) / sample_rate));
  }
  return buffer;
}

}  // namespace lingcast::testing_util
