// HlsOutput: an HLS directory written as the stream goes.
//
//   DIR/index.m3u8       master playlist: the video variant + the subtitle rendition
//   DIR/video.m3u8       H.264 + AAC in MPEG-TS segments (libavformat's hls muxer),
//   DIR/video_NNNNN.ts   cut at the first keyframe after each segment length
//   DIR/subtitles.m3u8   WebVTT rendition (our own writer: one .vtt per segment length,
//   DIR/subs_NNNNN.vtt   each cue in every segment it overlaps, X-TIMESTAMP-MAP'd to the video)
//
// Window 0 is a VOD playlist (EXT-X-PLAYLIST-TYPE:VOD, every segment kept);
// a window of N keeps the newest N segments and deletes the older ones. A
// directory that already holds a stream is continued, not overwritten: the
// new segments follow the old ones after an EXT-X-DISCONTINUITY, as a player
// expects when a live source comes back after an interruption.
//
// Subtitles: in a rolling playlist a cue must be added before the media passes
// the end of its segment (it is written then); a VOD playlist takes cues
// until Finish.
//
// Timestamps are the media timeline plus the set's start offset (MPEG-TS
// wraps at 2^33 / 90 kHz, about 26.5 h, and players follow the wrap).
#pragma once

#include <memory>

#include "absl/status/status.h"

#include "output/output_sink.h"

extern "C" {
#include <libavcodec/avcodec.h>
}

namespace lingcast {

struct HlsOptions {
  double segment_seconds = 2.0;  // in [kMinHlsSegmentSeconds, kMaxHlsSegmentSeconds]
  int window_segments = 0;  // 0: VOD, keep all
  MediaTime start_offset;
};

// The segment lengths a stream may ask for. Below the minimum a segment
// rounds to (almost) nothing on the microsecond timeline; above the maximum
// a player waits that long for each segment.
inline constexpr double kMinHlsSegmentSeconds = 0.1;
inline constexpr double kMaxHlsSegmentSeconds = 3600;

// InvalidArgument naming `seconds` unless it is a finite number in the range
// above. Checked before the value is converted to anything: NaN, an infinity
// or 1e30 would overflow an integer.
absl::Status CheckHlsSegmentSeconds(double seconds);

// Never null: a directory that cannot be created or written gives a failed
// sink whose error names it.
std::unique_ptr<OutputSink> OpenHlsOutput(const OutputSpec& spec, const AVCodecContext& video,
                                          const AVCodecContext& audio, const HlsOptions& options);

// "avc1.64001f" from the SPS in an encoder's extradata ("avc1.42e01e" when absent).
std::string AvcCodecString(const AVCodecContext& video);

// "HH:MM:SS.mmm" for WebVTT.
std::string FormatVttTimestamp(MediaTime t);

}  // namespace lingcast
