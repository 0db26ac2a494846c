// For tests: small media files made with libav, so background tests need no
// downloaded assets. Every picture is one solid colour per frame, which makes
// "which frame is shown" readable from any pixel.
#pragma once

#include <functional>
#include <string>

#include "absl/status/status.h"
#include "compose/geometry.h"

namespace lingcast::compose::testing_media {

// A lossless video (FFV1 in Matroska) of `frames` frames at `fps`, width x
// height, frame i filled with color_of(i).
absl::Status WriteSolidVideo(const std::string& path, int width, int height, int frames, int fps,
                             const std::function<Rgba(int)>& color_of);

// A baseline JPEG of one solid colour.
absl::Status WriteSolidJpeg(const std::string& path, int width, int height, Rgba color);

// A WAV file of a short tone: media with no video stream.
absl::Status WriteToneWav(const std::string& path);

// The colour of frame i in the videos the tests write: far apart per frame.
Rgba FrameColor(int i);

}  // namespace lingcast::compose::testing_media
