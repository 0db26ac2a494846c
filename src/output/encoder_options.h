// Settings for the H.264 and AAC encoders, and their validation.
//
// Validation runs before anything is opened so that `lingcast render --size 101x100`
// fails at once with one line naming the option, not after TTS has run.
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "core/media_time.h"

namespace lingcast {

// H.264 through libx264, 4:2:0, BT.709 limited range.
struct VideoEncoderOptions {
  int width = 1280;
  int height = 720;
  int fps_num = 30;
  int fps_den = 1;
  // x264 speed/quality trade-off. "veryfast" keeps a 720p30 render well above
  // real time on two cores while staying far better than "ultrafast" per bit.
  std::string preset = "veryfast";
  // Constant quality (x264 CRF, 0..51) when bitrate == 0.
  int crf = 23;
  // Average bitrate in bit/s; when > 0 it replaces CRF, constrained by a VBV of
  // max rate = bitrate and buffer = 2 s worth, which is what live ingest expects.
  int64_t bitrate = 0;
  // A keyframe at least this often (the GOP length), in seconds of media time.
  double keyframe_interval_s = 2.0;
  // x264 tune ("", "zerolatency", "film", "animation", ...).
  std::string tune;
  // Encoder threads; 0 lets x264 choose from the core count.
  int threads = 0;
};

// AAC-LC through libavcodec's native encoder.
struct AudioEncoderOptions {
  // What the caller passes to WriteAudio: lingcast's internal audio is mono float.
  int input_sample_rate = 0;
  int input_channels = 1;
  int output_sample_rate = 48000;
  // Mono by default: the speech is mono, every player plays mono AAC on both
  // speakers, and a stereo AAC encode of the same signal costs twice the CPU
  // (about 4% of a 4x-real-time render budget on two cores). 2 duplicates mono
  // to both channels at full level, for ingest servers that insist on stereo.
  int output_channels = 1;
  int64_t bitrate = 128000;
  // libavcodec's fast AAC quantizer search (aac_coder=fast) instead of twoloop.
  bool fast_coder = true;
};

// Sane limits: 16..7680 x 16..4320, even sizes (4:2:0 halves chroma), 1..240 fps.
inline constexpr int kMinVideoDimension = 16;
inline constexpr int kMaxVideoWidth = 7680;
inline constexpr int kMaxVideoHeight = 4320;
inline constexpr double kMaxFramesPerSecond = 240;

// InvalidArgument naming the offending option (as the CLI spells it) and value.
absl::Status ValidateVideoOptions(const VideoEncoderOptions& options);
absl::Status ValidateAudioOptions(const AudioEncoderOptions& options);

// How many frames cover `duration` at the options' frame rate (rounded up), so
// the video lasts as long as the audio, which is the master clock.
int64_t FrameCountFor(MediaTime duration, const VideoEncoderOptions& options);

// The GOP length in frames for the options' keyframe interval (at least 1).
int KeyframeIntervalFrames(const VideoEncoderOptions& options);

}  // namespace lingcast
