// Audio ingest: any file libavformat reads (WAV of any sample format, FLAC, MP3,
// Ogg Vorbis/Opus, the audio track of a video file) decoded, downmixed to mono
// (equal-weight average of the channels) and resampled with soxr to one rate as
// float in [-1, 1].
//
// The output timeline starts at 0 with the first decoded sample (a container's
// start offset, e.g. a video whose audio starts at 0.2 s, is not applied) and
// advances by sample count only.
//
// Errors, each one line naming the path:
//   missing file                      -> NotFound
//   unreadable (permissions)          -> PermissionDenied
//   directory, empty file, garbage or text (not a media file), no audio stream,
//   no decodable audio at all         -> InvalidArgument
// Damaged but partly decodable files are decoded as far as possible and the damage
// is counted in DecodeReport: packets the decoder rejects are skipped (each counts
// as a corrupt packet), and a file that ends before the duration its header
// declares or mid-packet (a truncated WAV or FLAC) yields the samples before the cut with
// `truncated` set. Callers decide whether to warn; this module logs nothing itself
// (libav* prints its own diagnostics through av_log, whose level is the app's to set).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "audio/resampler.h"
#include "core/media_time.h"
#include "media/audio_buffer.h"

namespace lingcast {

// What the source is, as the container and decoder describe it.
struct AudioSourceInfo {
  std::string path;
  std::string container;      // libavformat's short name: "wav", "flac", "mp3", "ogg", "mov,mp4,..."
  std::string codec;          // libavcodec's name: "pcm_s16le", "flac", "mp3", "vorbis", "aac"
  std::string sample_format;  // the decoder's sample format: "s16", "s32", "fltp", "u8"
  int sample_rate = 0;        // source rate in Hz
  int channels = 0;           // source channel count
  std::optional<MediaTime> duration;  // as the container declares it, when it does
};

// Damage seen while decoding (all zero for a clean file).
struct DecodeReport {
  int64_t corrupt_packets = 0;  // packets the decoder rejected and that were skipped
  bool truncated = false;       // the data ended well before the declared duration
};

// Reads one file, from one thread at a time.
class AudioFileReader {
 public:
  static constexpr int kDefaultSampleRate = 16000;

  // Opens `path` and its best audio stream; the errors listed at the top of this file.
  static absl::StatusOr<AudioFileReader> Open(const std::string& path,
                                              int sample_rate = kDefaultSampleRate,
                                              ResampleQuality quality = ResampleQuality::kHigh);

  // Pulls the audio of a network stream (rtmp://, srt://, http(s)://, ...
  // anything libavformat reads by URL). `timeout` bounds the connection (no
  // answer: DeadlineExceeded naming the URL, "no answer within N s") and every
  // later read (no data for that long: DeadlineExceeded); a refused or
  // unreachable server is Unavailable.
  static absl::StatusOr<AudioFileReader> OpenUrl(const std::string& url, int sample_rate = kDefaultSampleRate,
                                                 MediaTime timeout = MediaTime::Seconds(10));
  // Whether `path` names a network stream for OpenUrl ("scheme://...").
  static bool IsUrl(const std::string& path);

  AudioFileReader(AudioFileReader&&) noexcept;
  AudioFileReader& operator=(AudioFileReader&&) noexcept;
  ~AudioFileReader();

  // Replaces `chunk` with the next mono audio at sample_rate(), at most `max_chunk`
  // long (and at least one sample). Returns false, with `chunk` empty, at the end.
  // InvalidArgument when the file holds no decodable audio at all.
  absl::StatusOr<bool> Read(AudioBuffer& chunk, MediaTime max_chunk = MediaTime::Millis(100));

  const AudioSourceInfo& info() const;
  const DecodeReport& report() const;  // complete once Read() has returned false
  int sample_rate() const;             // the output rate
  MediaTime position() const;          // start time of the next chunk Read() returns

 private:
  static absl::StatusOr<AudioFileReader> OpenSource(const std::string& path, int sample_rate, ResampleQuality quality,
                                                    std::optional<MediaTime> network_timeout);
  struct State;
  explicit AudioFileReader(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

// Decodes the whole file at once. `report`, when given, receives the damage count.
absl::StatusOr<AudioBuffer> DecodeAudioFile(const std::string& path,
                                            int sample_rate = AudioFileReader::kDefaultSampleRate,
                                            DecodeReport* report = nullptr);

}  // namespace lingcast
