#include "compose/picture_in_picture.h"

#include <algorithm>
#include <cmath>

#include "compose/blend.h"
#include "core/status.h"

namespace lingcast::compose {

absl::StatusOr<std::unique_ptr<PictureInPicture>> PictureInPicture::Open(const std::string& path, int frame_width,
                                                                          int frame_height,
                                                                          PictureInPictureOptions options) {
  LC_ASSIGN_OR_RETURN(MediaProbe probe, ProbeBackgroundFile(path));
  // The inset keeps the source's shape; even sizes suit the scaler's chroma.
  const double aspect = probe.source_width > 0 && probe.source_height > 0
                            ? static_cast<double>(probe.source_height) / probe.source_width
                            : 9.0 / 16.0;
  const int width = std::max(16, static_cast<int>(std::lround(frame_width * options.width_fraction / 2)) * 2);
  const int height = std::max(16, static_cast<int>(std::lround(width * aspect / 2)) * 2);
  const int margin = static_cast<int>(std::lround(frame_height * options.margin_fraction));
  const int border = std::max(1, frame_height / 360);
  const Rect area{frame_width - margin - width, margin, width, height};
  std::unique_ptr<VideoBackground> video;
  std::optional<VideoFrame> still;
  if (probe.frame_count > 1) {
    LC_ASSIGN_OR_RETURN(video, VideoBackground::Open(path, width, height, BackgroundFit::kCover));
  } else {
    LC_ASSIGN_OR_RETURN(still, LoadImageBackground(path, width, height, BackgroundFit::kCover));
  }
  return std::unique_ptr<PictureInPicture>(
      new PictureInPicture(area, border, options, std::move(probe), std::move(video), std::move(still)));
}

PictureInPicture::PictureInPicture(Rect area, int border, PictureInPictureOptions options, MediaProbe probe,
                                   std::unique_ptr<VideoBackground> video, std::optional<VideoFrame> still)
    : area_(area),
      border_(border),
      options_(options),
      probe_(std::move(probe)),
      video_(std::move(video)),
      still_(std::move(still)) {
  // The rounded rectangle on a transparent sprite holds, premultiplied, the
  // colour and coverage DrawOver blends into a frame, so a blit of it is the same.
  const Rect frame = border_area();
  border_sprite_.Allocate(frame.width, frame.height);  // transparent
  DrawBorder(border_sprite_, 0, 0);
}

void PictureInPicture::DrawBorder(VideoFrame& out, int x, int y) const {
  const Rect frame = border_area();
  FillRoundedRect(out, static_cast<float>(x), static_cast<float>(y), static_cast<float>(frame.width),
                  static_cast<float>(frame.height), static_cast<float>(border_), options_.border);
}

absl::StatusOr<const VideoFrame*> PictureInPicture::PictureAt(MediaTime t) {
  if (!video_) return &*still_;
  // A live source plays once: held on its first and last frames, never looped.
  const MediaTime last = probe_.frame_times.empty() ? MediaTime::Zero() : probe_.frame_times.back();
  const MediaTime source_t = std::clamp(t - options_.delay, MediaTime::Zero(), last);
  return video_->FrameAt(source_t);
}

absl::Status PictureInPicture::DrawOver(MediaTime t, VideoFrame& out) {
  LC_ASSIGN_OR_RETURN(const VideoFrame* picture, PictureAt(t));
  DrawBorder(out, area_.x - border_, area_.y - border_);
  BlitOver(out, *picture, area_.x, area_.y);
  return absl::OkStatus();
}

}  // namespace lingcast::compose
