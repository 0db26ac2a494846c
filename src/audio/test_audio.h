// Test helpers for the audio module and the modules above it (the
// lingcast_audio_testing library): signals, hand-written WAV files, files
// encoded with libavcodec, and signal measurements. Test-only code.
#pragma once

#include <cstdint>
#include <filesystem>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "core/media_time.h"

namespace lingcast {
// GoogleTest prints MediaTime as "1.234000s" in failure messages (found by ADL).
inline void PrintTo(const MediaTime& time, std::ostream* os) { *os << time.ToString(); }
}  // namespace lingcast

namespace lingcast::testing {

// A fresh directory under the system temp dir, removed with its contents at scope end.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string File(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

// `frames` samples of amplitude * sin(2 pi f t).
std::vector<float> Sine(double frequency, double amplitude, int sample_rate, int64_t frames);

// Interleaves channel signals of equal length.
std::vector<float> Interleave(const std::vector<std::vector<float>>& channels);

enum class WavEncoding { kU8, kS16, kS24, kS32, kF32 };

// A canonical RIFF/WAVE file written byte by byte (WAVE_FORMAT_PCM, or
// WAVE_FORMAT_IEEE_FLOAT for kF32) from interleaved float samples.
std::string WavBytes(WavEncoding encoding, int sample_rate, int channels,
                     std::span<const float> interleaved);
// The same 44-byte header around `data` as it is: any format tag (1 PCM,
// 3 IEEE float, or one no decoder knows), rate, channels and sample width.
std::string RawWavBytes(int format_tag, int sample_rate, int channels, int bits_per_sample, std::string_view data);
void WriteFile(const std::string& path, const std::string& bytes);
std::string ReadFile(const std::string& path);

// Encodes interleaved float audio with the libavcodec encoder `encoder_name`
// ("flac", "libmp3lame", "libvorbis", ...) into `path` (container from the
// extension). With `with_video`, a short 64x64 mpeg4 video stream is muxed in
// too; with channels == 0 the file has only that video. Unavailable when this
// libavcodec has no such encoder (the caller skips).
absl::Status EncodeFile(const std::string& path, const std::string& encoder_name, int sample_rate,
                        int channels, std::span<const float> interleaved, bool with_video = false);

// The frequency of a clean tone, from the spacing of its rising zero crossings.
double ToneFrequency(std::span<const float> samples, int sample_rate);
double Rms(std::span<const float> samples);

// A recording of ../shared/data/speech, or "" when the data set is absent.
std::string SpeechFile(const std::string& name);

}  // namespace lingcast::testing
