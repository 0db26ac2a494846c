// Helpers shared by this module's tests (and bench/network_faults): a scratch
// directory, synthetic media, encoder settings quick to run, and output sets
// opened from --out texts.
#pragma once

#include <stdlib.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/clock.h"
#include "core/scratch_dir.h"
#include "gtest/gtest.h"
#include "media/audio_buffer.h"
#include "media/video_frame.h"
#include "output/encoder_options.h"
#include "output/output_set.h"
#include "output/output_spec.h"
#include "output/rgba_to_yuv.h"

namespace lingcast::testing_util {

// The whole file (empty when it cannot be read).
inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// H.264 settings quick to encode: x264 ultrafast on one thread, a keyframe
// each second. A test changes what it is about (the tune, the GOP, a bitrate).
inline VideoEncoderOptions QuickVideo(int width = 160, int height = 90, int fps = 30) {
  VideoEncoderOptions video;
  video.width = width;
  video.height = height;
  video.fps_num = fps;
  video.preset = "ultrafast";
  video.keyframe_interval_s = 1.0;
  video.threads = 1;
  return video;
}

// The live network tests' picture: 320x180, as a live show encodes it
// (zerolatency), at `bitrate` bit/s; fed noise frames, it costs what it says.
inline VideoEncoderOptions NoiseVideo(int64_t bitrate) {
  VideoEncoderOptions video = QuickVideo(320, 180);
  video.tune = "zerolatency";
  video.bitrate = bitrate;
  return video;
}

// AAC from mono speech at `input_rate` (espeak-ng's 22050 Hz by default: the
// resampler runs).
inline AudioEncoderOptions SpeechAudio(int input_rate = 22050) {
  AudioEncoderOptions audio;
  audio.input_sample_rate = input_rate;
  return audio;
}

// One encode into the outputs `outs` (--out texts: FILE.mp4, hls:DIR,
// rtmp://..., srt://...); a text that does not parse is the error.
inline absl::StatusOr<std::unique_ptr<OutputSet>> OpenOutputs(const std::vector<std::string>& outs,
                                                              const VideoEncoderOptions& video,
                                                              const AudioEncoderOptions& audio,
                                                              const OutputSetOptions& options, Clock& clock) {
  std::vector<OutputSpec> specs;
  for (const std::string& out : outs) {
    absl::StatusOr<OutputSpec> spec = ParseOutputSpec(out);
    if (!spec.ok()) return spec.status();
    specs.push_back(*std::move(spec));
  }
  return OutputSet::Open(specs, video, audio, options, clock);
}


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

// The CPU converter's planes of `frame`, as a picture (what the CUDA renderer
// hands the encoder, made without a GPU).
inline std::shared_ptr<const Yuv420Picture> CpuPlanes(const VideoFrame& frame) {
  auto bytes = std::make_shared<std::vector<uint8_t>>(static_cast<size_t>(frame.width) * frame.height * 3 / 2);
  uint8_t* y = bytes->data();
  uint8_t* u = y + static_cast<size_t>(frame.width) * frame.height;
  uint8_t* v = u + static_cast<size_t>(frame.width) * frame.height / 4;
  RgbaToYuv420Bt709(frame.rgba.data(), frame.stride, frame.width, frame.height,
                    {y, frame.width, u, frame.width / 2, v, frame.width / 2});
  auto picture = std::make_shared<Yuv420Picture>();
  *picture = Yuv420Picture{frame.width, frame.height, y, frame.width, u, frame.width / 2, v, frame.width / 2, bytes};
  return picture;
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
