// Mp4Output: the MP4 file output of an OutputSet (faststart, written
// atomically), with the subtitles as an SRT sidecar beside it (FILE.srt).
//
// Files start at 0 whatever the set's start offset: a file that began 24 days
// into its timeline would play as 24 days of nothing.
//
// Rotation (a segment length above 0): instead of one file, complete files
// FILE-0001.mp4, FILE-0002.mp4, ... each with its FILE-000N.srt, cut at the
// first video keyframe at or after each segment boundary and committed
// (temp file, then rename) as soon as its audio has reached the cut. Each file
// starts with that keyframe at 0; audio packets go whole to the file whose
// time range holds their start, so the files' audio adds up to the whole.
#pragma once

#include <memory>
#include <string>

#include "core/media_time.h"
#include "output/output_sink.h"

extern "C" {
#include <libavcodec/avcodec.h>
}

namespace lingcast {

// Never null: a sink that could not open is returned failed, with the reason
// in its stats, so the caller treats every output the same way.
// `segment_length` zero: one file; above zero: rotation (see above).
std::unique_ptr<OutputSink> OpenMp4Output(const OutputSpec& spec, const AVCodecContext& video,
                                          const AVCodecContext& audio, MediaTime segment_length = MediaTime::Zero());

// "talk.mp4" -> "talk.srt".
std::string SrtSidecarPath(const std::string& mp4_path);

// The rotated files' names: ("show.mp4", 1) -> "show-0001.mp4"; more than
// 9999 files just take more digits.
std::string Mp4SegmentPath(const std::string& mp4_path, int index);

}  // namespace lingcast
