// OutputSpec: one `--out` argument, parsed. lingcast writes one encode to
// several of these at once (OutputSet).
//
//   FILE.mp4          an MP4 file (faststart), with FILE.srt beside it for subtitles
//   hls:DIR           an HLS directory: DIR/index.m3u8 (master), DIR/video.m3u8, segments,
//                     DIR/subtitles.m3u8 + WebVTT segments
//   rtmp://… rtmps:// an RTMP push (FLV), e.g. rtmp://host/app/stream_key
//   srt://host:port   an SRT push in caller mode (MPEG-TS inside)
#pragma once

#include <string>

#include "absl/status/statusor.h"

namespace lingcast {

struct OutputSpec {
  enum Kind { kMp4, kHls, kRtmp, kSrt };
  Kind kind = kMp4;
  // The path (kMp4), the directory (kHls) or the URL (kRtmp, kSrt).
  std::string target;

  bool is_network() const { return kind == kRtmp || kind == kSrt; }
  // What messages and stats call the output: the text the user gave, with an
  // RTMP stream key or SRT passphrase left out (they are secrets in logs).
  std::string DisplayName() const;
};

// InvalidArgument naming the text for an unknown scheme ("udp://…"), a file
// that is not .mp4, an empty HLS directory or a URL without a host.
absl::StatusOr<OutputSpec> ParseOutputSpec(const std::string& text);

const char* OutputKindName(OutputSpec::Kind kind);  // "mp4", "hls", "rtmp", "srt"

}  // namespace lingcast
