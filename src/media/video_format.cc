#include "media/video_format.h"

#include "absl/strings/str_cat.h"

namespace lingcast {

absl::Status CheckFrameSize(int width, int height) {
  if (width < kMinFrameWidth || height < kMinFrameHeight || width > kMaxFrameWidth || height > kMaxFrameHeight) {
    return absl::InvalidArgumentError(absl::StrCat("must be between ", kMinFrameWidth, "x", kMinFrameHeight, " and ",
                                                   kMaxFrameWidth, "x", kMaxFrameHeight));
  }
  if (width % 2 != 0 || height % 2 != 0) {
    return absl::InvalidArgumentError("width and height must be even (H.264 4:2:0 video)");
  }
  return absl::OkStatus();
}

absl::Status CheckLiveFps(int fps) {
  if (fps < kMinLiveFps || fps > kMaxLiveFps) {
    return absl::InvalidArgumentError(absl::StrCat("is outside ", kMinLiveFps, "..", kMaxLiveFps));
  }
  return absl::OkStatus();
}

std::string VideoFormatText(const VideoFormat& format) {
  return absl::StrCat(format.width, "x", format.height, "@", format.fps);
}

}  // namespace lingcast
