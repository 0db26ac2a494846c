// A minimal PNG writer (RGBA8, zlib-compressed) for the avatar tools.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "media/video_frame.h"

namespace lingcast {

// Writes `frame` (premultiplied) as a straight-alpha RGBA PNG.
absl::Status WritePng(const VideoFrame& frame, const std::string& path);

}  // namespace lingcast
