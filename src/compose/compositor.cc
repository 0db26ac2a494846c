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
      avatar_area_(AvatarArea(options_.width, options_.height, options_.avatar)),
      // ~16 bands: enough for two to eight threads to balance (the avatar makes
      // some bands far costlier than others), few enough that per-band setup
      // (the avatar's paths are flattened once per band) stays small.
      band_height_(std::max(32, (options_.height + 15) / 16)),
      pool_(std::make_unique<TilePool>(options_.threads)) {}

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
      if (subtitle_cache_.back().sprite.get() == subtitled_for_) subtitled_for_ = nullptr;  // freed next
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
  const SubtitleSprite* sprite = nullptr;
  int opacity = 0;
  if (cue != nullptr && cue->start <= t && t < cue->end) {
    LC_ASSIGN_OR_RETURN(sprite, SubtitleFor(*cue));
    opacity = FadeOpacity(t, *cue);
    if (sprite == nullptr || opacity == 0) sprite = nullptr;
  }
  if (sprite != nullptr && opacity == 255) PrepareSubtitledBackground(*sprite);
  const int bands = (options_.height + band_height_ - 1) / band_height_;
  pool_->Run(bands, [&](int band) {
    const int y = band * band_height_;
    DrawBand(Rect{0, y, options_.width, std::min(band_height_, options_.height - y)}, sprite, opacity, out);
  });
  return absl::OkStatus();
}

void Compositor::PrepareSubtitledBackground(const SubtitleSprite& sprite) {
  if (subtitled_for_ == &sprite) return;
  if (subtitled_background_.width != options_.width || subtitled_background_.height != options_.height) {
    subtitled_background_.Allocate(options_.width, options_.height);
  }
  subtitled_rect_ = Rect{sprite.area.x, sprite.area.y, sprite.image.width, sprite.image.height}.Intersect(
      Rect{0, 0, options_.width, options_.height});
  CopyRect(subtitled_background_, background_, subtitled_rect_);
  BlitOver(subtitled_background_, sprite.image, sprite.area.x, sprite.area.y, 255);
  subtitled_for_ = &sprite;
}

// Background, avatar, subtitle, in this order, for the pixels of one band.
void Compositor::DrawBand(const Rect& band, const SubtitleSprite* sprite, int opacity, VideoFrame& out) const {
  CopyRect(out, background_, band);
  const Rect avatar_clip = draw_avatar_ ? avatar_area_.Intersect(band) : Rect{};
  if (sprite != nullptr && opacity == 255) {
    // Where no avatar is drawn under the subtitle, background + sprite is the
    // cached composite; under the avatar the sprite goes over the avatar's pixels.
    const Rect sub = subtitled_rect_.Intersect(band);
    const Rect under = sub.Intersect(avatar_clip);
    if (under.empty()) {
      CopyRect(out, subtitled_background_, sub);
    } else {  // sub minus under: the rows above and below, the columns left and right
      CopyRect(out, subtitled_background_, Rect{sub.x, sub.y, sub.width, under.y - sub.y});
      CopyRect(out, subtitled_background_, Rect{sub.x, under.bottom(), sub.width, sub.bottom() - under.bottom()});
      CopyRect(out, subtitled_background_, Rect{sub.x, under.y, under.x - sub.x, under.height});
      CopyRect(out, subtitled_background_, Rect{under.right(), under.y, sub.right() - under.right(), under.height});
    }
    if (!avatar_clip.empty()) draw_avatar_(out, avatar_area_, avatar_clip);
    if (!under.empty()) BlitOver(out, sprite->image, sprite->area.x, sprite->area.y, 255, under);
    return;
  }
  if (!avatar_clip.empty()) draw_avatar_(out, avatar_area_, avatar_clip);
  if (sprite != nullptr) BlitOver(out, sprite->image, sprite->area.x, sprite->area.y, opacity, band);
}

}  // namespace lingcast::compose
