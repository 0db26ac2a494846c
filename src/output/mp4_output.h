// Mp4Output: the MP4 file output of an OutputSet (faststart, written
// atomically), with the subtitles as an SRT sidecar beside it (FILE.srt).
//
// Files start at 0 whatever the set's start offset: a file that began 24 days
// into its timeline would play as 24 days of nothing.
#pragma once

#include <memory>
#include <string>

#include "output/output_sink.h"

extern "C" {
#include <libavcodec/avcodec.h>
}

namespace lingcast {

// Never null: a sink that could not open is returned failed, with the reason
// in its stats, so the caller treats every output the same way.
std::unique_ptr<OutputSink> OpenMp4Output(const OutputSpec& spec, const AVCodecContext& video,
                                          const AVCodecContext& audio);

// "talk.mp4" -> "talk.srt".
std::string SrtSidecarPath(const std::string& mp4_path);

}  // namespace lingcast
