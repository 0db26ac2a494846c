// RawPcmReader: headerless interleaved PCM from a stream (a pipe, stdin for "-"),
// converted to mono float (equal-weight channel average) at the output rate with
// the soxr Resampler.
//
// A trailing partial frame (fewer bytes than one sample of every channel at the
// end of the stream) is dropped and counted in dropped_trailing_bytes(): a pipe
// cut mid-frame is normal at the end of a live capture and the audio before it is
// good. Non-finite f32 samples (NaN, inf) become 0 and are counted; finite f32
// samples beyond [-1, 1] are clipped.
#pragma once

#include <cstdint>
#include <istream>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "audio/resampler.h"
#include "core/media_time.h"
#include "media/audio_buffer.h"

namespace lingcast {

enum class PcmFormat { kS16LE, kF32LE };

// "s16le" or "f32le" (case-insensitive); InvalidArgument naming the value otherwise.
absl::StatusOr<PcmFormat> ParsePcmFormat(const std::string& name);
const char* PcmFormatName(PcmFormat format);

struct RawPcmConfig {
  PcmFormat format = PcmFormat::kS16LE;
  int sample_rate = 16000;  // of the input
  int channels = 1;         // of the input, interleaved
  int output_rate = 16000;
  ResampleQuality quality = ResampleQuality::kHigh;
};

class RawPcmReader {
 public:
  // `in` must outlive the reader. `name` names the source in errors ("-" for stdin).
  // InvalidArgument for a rate outside 1..1'000'000 Hz or channels outside 1..64.
  static absl::StatusOr<RawPcmReader> Create(std::istream& in, const RawPcmConfig& config,
                                             std::string name = "-");

  // Replaces `chunk` with the next mono audio at the output rate, at most
  // `max_chunk` long. Blocks until that much input arrives or the stream ends.
  // Returns false, with `chunk` empty, at the end. A read error on the stream
  // (other than its end) is DataLoss naming the source.
  absl::StatusOr<bool> Read(AudioBuffer& chunk, MediaTime max_chunk = MediaTime::Millis(100));

  int64_t dropped_trailing_bytes() const { return dropped_trailing_bytes_; }
  int64_t nonfinite_samples() const { return nonfinite_samples_; }
  MediaTime position() const;  // start time of the next chunk Read() returns

 private:
  RawPcmReader(std::istream& in, const RawPcmConfig& config, std::string name, Resampler resampler);

  std::istream* in_;  // not owned
  RawPcmConfig config_;
  std::string name_;
  Resampler resampler_;
  std::vector<char> bytes_;    // read buffer
  std::vector<float> mono_;    // downmixed input
  std::vector<float> ready_;   // resampled output not yet returned
  int64_t delivered_samples_ = 0;
  int64_t dropped_trailing_bytes_ = 0;
  int64_t nonfinite_samples_ = 0;
  bool input_ended_ = false;
};

}  // namespace lingcast
