// A picture-in-picture of the host's own video in a corner of the frame, over
// everything else (`lingcast live --pip`): viewers see who is talking while the
// avatar interprets.
//
// The source is a media file read on its own decoder thread (VideoBackground,
// already scaled to the inset's size). The inset shows the source frame of host
// time t - delay (the delay matches the host voice pass-through); before the
// source starts it shows the first frame, after it ends the last one. A file
// whose only picture is a still (cover art) shows that picture.
//
// The CPU draws it with DrawOver; the CUDA compositor (gpu_compositor.h) blits
// the same two layers, border_sprite() and PictureAt(), which give the same bytes.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "compose/geometry.h"
#include "compose/media_background.h"
#include "core/media_time.h"
#include "media/rect.h"
#include "media/video_frame.h"

namespace lingcast::compose {

struct PictureInPictureOptions {
  double width_fraction = 0.28;   // of the frame's width
  double margin_fraction = 0.03;  // from the top and right edges, of the frame's height
  MediaTime delay = MediaTime::Zero();
  Rgba border{255, 255, 255, 255};  // a thin frame so the inset reads as one
};

class PictureInPicture {
 public:
  // InvalidArgument naming the file when it has no video stream or cannot be
  // decoded (ProbeBackgroundFile's errors); NotFound when it is missing.
  static absl::StatusOr<std::unique_ptr<PictureInPicture>> Open(const std::string& path, int frame_width,
                                                                int frame_height, PictureInPictureOptions options);

  // Draws the inset for host time `t` over `out` (the frame_width x frame_height
  // given to Open). A decoding failure mid-file is returned, naming the file.
  absl::Status DrawOver(MediaTime t, VideoFrame& out);

  // The picture DrawOver draws for host time `t`, of area()'s size. For a
  // moving source the pointer is valid until the next call (VideoBackground::FrameAt).
  absl::StatusOr<const VideoFrame*> PictureAt(MediaTime t);
  // Whether PictureAt gives another picture from call to call (a video) or
  // always the same one (a still).
  bool moving() const { return video_ != nullptr; }

  // Where the picture goes (the border is drawn around it).
  const Rect& area() const { return area_; }
  // The border as a premultiplied sprite of border_area()'s size, to go under
  // the picture there: blitted over a frame, it gives the bytes DrawOver's
  // rounded rectangle gives that frame.
  const VideoFrame& border_sprite() const { return border_sprite_; }
  Rect border_area() const {
    return Rect{area_.x - border_, area_.y - border_, area_.width + 2 * border_, area_.height + 2 * border_};
  }

 private:
  PictureInPicture(Rect area, int border, PictureInPictureOptions options, MediaProbe probe,
                   std::unique_ptr<VideoBackground> video, std::optional<VideoFrame> still);
  // The rounded rectangle around the picture, its top-left at (x, y).
  void DrawBorder(VideoFrame& out, int x, int y) const;

  const Rect area_;
  const int border_;
  const PictureInPictureOptions options_;
  const MediaProbe probe_;
  std::unique_ptr<VideoBackground> video_;  // a moving source
  std::optional<VideoFrame> still_;         // a source with one picture
  VideoFrame border_sprite_;
};

}  // namespace lingcast::compose
