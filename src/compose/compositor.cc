#include "compose/compositor.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "compose/blend.h"
#include "core/status.h"

namespace lingcast::compose {

Rect AvatarArea(int width, int height, const AvatarPlacement& placement) {
  const int area_height = static_cast<int>(std::lround(height * placement.height));
  const int area_width = static_cast<int>(std::lround(area_height * placement.aspect));
  Rect area{static_cast<int>(std::lround(width * placement.center_x - area_width / 2.0)),
            static_cast<int>(std::lround(height * placement.bottom)) - area_height, area_width,
            area_height};
  const int x0 = std::clamp(area.x, 0, width), y0 = std::clamp(area.y, 0, height);
  const int x1 = std::clamp(area.right(), 0, width), y1 = std::clamp(area.bottom(), 0, height);
  return {x0, y0, x1 - x0, y1 - y0};
}

absl::StatusOr<std::unique_ptr<Compositor>> Compositor::Create(const CompositorOptions& options) {
  if (options.width < kMinWidth || options.width > kMaxWidth || options.height < kMinHeight ||
      options.height > kMaxHeight) {
    return absl::InvalidArgumentError(absl::StrCat(
        "compositor size ", options.width, "x", options.height, " is outside ", kMinWidth, "x",
        kMinHeight, "..", kMaxWidth, "x", kMaxHeight));
  }
  LC_ASSIGN_OR_RETURN(auto subtitles,
                      SubtitleRenderer::Create(options.fonts, options.subtitles, options.width,
                                               options.height, options.glyph_cache_capacity));
  return std::unique_ptr<Compositor>(new Compositor(options, std::move(subtitles)));
}

Compositor::Compositor(CompositorOptions options, std::unique_ptr<SubtitleRenderer> subtitles)
    : options_(std::move(options)), subtitles_(std::move(subtitles)),
      background_(MakeStudioBackground(options_.width, options_.height, options_.background)),
      avatar_area_(AvatarArea(options_.width, options_.height, options_.avatar)) {}

absl::StatusOr<const SubtitleSprite*> Compositor::SubtitleFor(const SubtitleCue& cue) {
  // Keyed by content, not address: the same line repeated later reuses its sprite.
  std::string key = absl::StrCat(static_cast<int>(cue.primary.language), "\x1f", cue.primary.text,
                                 "\x1f", static_cast<int>(cue.secondary.language), "\x1f",
                                 cue.secondary.text);
  auto it = std::find_if(subtitle_cache_.begin(), subtitle_cache_.end(),
                         [&](const CachedSubtitle& c) { return c.key == key; });
  if (it == subtitle_cache_.end()) {
    LC_ASSIGN_OR_RETURN(auto sprite, subtitles_->Render(cue.primary, cue.secondary));
    ++subtitle_layouts_built_;
    subtitle_cache_.push_front({std::move(key), std::move(sprite)});
    while (subtitle_cache_.size() > std::max<size_t>(1, options_.subtitle_cache_size)) {
      subtitle_cache_.pop_back();
    }
    it = subtitle_cache_.begin();
  } else if (it != subtitle_cache_.begin()) {
    CachedSubtitle hit = std::move(*it);
    subtitle_cache_.erase(it);
    subtitle_cache_.push_front(std::move(hit));
    it = subtitle_cache_.begin();
  }
  return it->sprite.get();
}

int Compositor::FadeOpacity(MediaTime t, const SubtitleCue& cue) const {
  const int64_t fade = options_.fade.micros();
  if (fade <= 0) return 255;
  // A short cue fades over at most half its length each way.
  const int64_t span = std::max<int64_t>(1, std::min(fade, (cue.end - cue.start).micros() / 2));
  const int64_t since_start = (t - cue.start).micros(), until_end = (cue.end - t).micros();
  const double level = std::clamp(std::min(since_start, until_end) / static_cast<double>(span), 0.0, 1.0);
  return static_cast<int>(std::lround(255 * level));
}

absl::Status Compositor::Compose(MediaTime t, const SubtitleCue* cue, VideoFrame& out) {
  if (out.width == 0 && out.height == 0) out.Allocate(options_.width, options_.height);
  if (out.width != options_.width || out.height != options_.height || out.stride < out.width * 4) {
    return absl::InvalidArgumentError(absl::StrCat("output frame is ", out.width, "x", out.height,
                                                   ", the compositor draws ", options_.width, "x",
                                                   options_.height));
  }
  const size_t row_bytes = static_cast<size_t>(options_.width) * 4;
  if (out.stride == background_.stride) {
    std::memcpy(out.rgba.data(), background_.rgba.data(), background_.rgba.size());
  } else {
    for (int y = 0; y < options_.height; ++y) std::memcpy(out.Row(y), background_.Row(y), row_bytes);
  }
  if (draw_avatar_ && !avatar_area_.empty()) draw_avatar_(out, avatar_area_);

  if (cue != nullptr && cue->start <= t && t < cue->end) {
    LC_ASSIGN_OR_RETURN(const SubtitleSprite* sprite, SubtitleFor(*cue));
    const int opacity = FadeOpacity(t, *cue);
    if (sprite != nullptr && opacity > 0) {
      BlitOver(out, sprite->image, sprite->area.x, sprite->area.y, opacity);
    }
  }
  return absl::OkStatus();
}

}  // namespace lingcast::compose
