// PNG files <-> premultiplied RGBA frames, with libpng: rig image layers are
// read with DecodePngFile; tools write their images with EncodePngFile.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "media/video_frame.h"

namespace lingcast {

// Any PNG (palette, grey, 16-bit, with or without alpha or tRNS) as
// premultiplied RGBA8. Errors name the file and what libpng said.
absl::StatusOr<VideoFrame> DecodePngFile(const std::string& path);

// Writes a premultiplied frame as an 8-bit RGBA PNG (straight alpha, as PNG
// stores it), atomically (temp file, then rename).
absl::Status EncodePngFile(const VideoFrame& frame, const std::string& path);

}  // namespace lingcast
