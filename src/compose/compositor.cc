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
  for (const LowerThird& title : options.titles) {
    if (title.end <= title.start) {
      return absl::InvalidArgumentError(absl::StrCat("title \"", title.name, "\" ends (", title.end.ToString(),
                                                     ") before it starts (", title.start.ToString(), ")"));
    }
  }
  LC_ASSIGN_OR_RETURN(auto subtitles,
                      SubtitleRenderer::Create(options.fonts, options.subtitles, options.width,
                                               options.height, options.glyph_cache_capacity));
  const BackgroundSource& source = options.background_source;
  VideoFrame background;
  std::unique_ptr<VideoBackground> video;
  switch (source.kind) {
    case BackgroundKind::kStudio:
      background = MakeStudioBackground(options.width, options.height, options.background);
      break;
    case BackgroundKind::kColor:
      background = MakeSolidBackground(options.width, options.height, source.color);
      break;
    case BackgroundKind::kImage: {
      LC_ASSIGN_OR_RETURN(background, LoadImageBackground(source.path, options.width, options.height, source.fit));
      break;
    }
    case BackgroundKind::kVideo: {
      LC_ASSIGN_OR_RETURN(video, VideoBackground::Open(source.path, options.width, options.height, source.fit,
                                                       source.video_queue_frames));
      break;
    }
  }
  return std::unique_ptr<Compositor>(
      new Compositor(options, std::move(subtitles), std::move(background), std::move(video)));
}

Compositor::Compositor(CompositorOptions options, std::unique_ptr<SubtitleRenderer> subtitles,
                       VideoFrame background, std::unique_ptr<VideoBackground> video)
    : options_(std::move(options)), subtitles_(std::move(subtitles)), background_(std::move(background)),
      video_(std::move(video)),
      avatar_area_(AvatarArea(options_.width, options_.height, options_.avatar)),
      // ~16 bands: enough for two to eight threads to balance (the avatar makes
      // some bands far costlier than others), few enough that per-band setup
      // (the avatar's paths are flattened once per band) stays small.
      band_height_(std::max(32, (options_.height + 15) / 16)),
      pool_(std::make_unique<TilePool>(options_.threads)) {}

absl::StatusOr<Compositor::CachedSubtitle*> Compositor::CachedFor(const SubtitleCue& cue) {
  // Keyed by content, not address: the same line repeated later reuses its layout.
  std::string key = absl::StrCat(static_cast<int>(cue.primary.language), "\x1f", cue.primary.text,
                                 "\x1f", static_cast<int>(cue.secondary.language), "\x1f",
                                 cue.secondary.text);
  auto it = std::find_if(subtitle_cache_.begin(), subtitle_cache_.end(),
                         [&](const CachedSubtitle& c) { return c.key == key; });
  if (it == subtitle_cache_.end()) {
    CachedSubtitle entry;
    entry.key = std::move(key);
    LC_ASSIGN_OR_RETURN(entry.layout, subtitles_->Layout(cue.primary, cue.secondary));
    if (entry.layout != nullptr) {
      LC_ASSIGN_OR_RETURN(entry.sprite, subtitles_->Draw(*entry.layout));
    }
    ++subtitle_layouts_built_;
    ++subtitle_changes_;  // a freed sprite's address may come back with other pixels
    subtitle_cache_.push_front(std::move(entry));
    while (subtitle_cache_.size() > std::max<size_t>(1, options_.subtitle_cache_size)) {
      const CachedSubtitle& evicted = subtitle_cache_.back();
      if (subtitled_for_ != nullptr &&
          (evicted.sprite.get() == subtitled_for_ || evicted.highlighted.get() == subtitled_for_)) {
        subtitled_for_ = nullptr;  // freed next: its address may be reused
      }
      subtitle_cache_.pop_back();
    }
    it = subtitle_cache_.begin();
  } else if (it != subtitle_cache_.begin()) {
    CachedSubtitle hit = std::move(*it);
    subtitle_cache_.erase(it);
    subtitle_cache_.push_front(std::move(hit));
    it = subtitle_cache_.begin();
  }
  return &*it;
}

absl::StatusOr<const SubtitleSprite*> Compositor::SubtitleFor(const SubtitleCue& cue) {
  LC_ASSIGN_OR_RETURN(CachedSubtitle * cached, CachedFor(cue));
  return cached->sprite.get();
}

int Compositor::HighlightEnd(const SubtitleCue& cue, MediaTime t) const {
  if (!options_.highlight_words || cue.words.empty()) return 0;
  // Words said so far: those that have started by t (the word being said is
  // coloured from its first sound, as karaoke does).
  const auto said = std::upper_bound(cue.words.begin(), cue.words.end(), t,
                                     [](MediaTime at, const CueWord& w) { return at < w.start; });
  if (said == cue.words.begin()) return 0;
  const CueWord& last = *std::prev(said);
  return std::clamp(last.text_offset + last.text_length, 0, static_cast<int>(cue.primary.text.size()));
}

absl::Status Compositor::AddTitle(const LowerThird& title) {
  if (title.end <= title.start) {
    return absl::InvalidArgumentError(absl::StrCat("title \"", title.name, "\" ends (", title.end.ToString(),
                                                   ") before it starts (", title.start.ToString(), ")"));
  }
  options_.titles.push_back(title);
  return absl::OkStatus();
}

MediaTime Compositor::EndTitles(MediaTime t) {
  MediaTime gone = t;
  std::erase_if(options_.titles, [&](const LowerThird& title) { return title.start > t; });
  for (LowerThird& title : options_.titles) {
    if (t < title.start || t >= title.end) continue;
    title.end = std::min(title.end, t + options_.title_style.slide_out);
    gone = std::max(gone, title.end);
  }
  return gone;
}

absl::StatusOr<const LowerThirdSprite*> Compositor::TitleSprite(const LowerThird& title) {
  std::string key = absl::StrCat(title.name, "\x1f", title.subtitle);
  for (const CachedTitle& cached : title_cache_) {
    if (cached.key == key) return cached.sprite.get();
  }
  LC_ASSIGN_OR_RETURN(auto sprite, RenderLowerThird(*subtitles_, title, options_.title_style));
  title_cache_.push_back({std::move(key), std::move(sprite)});
  ++title_changes_;
  // Titles are few (one per segment of a show); keep the last handful.
  if (title_cache_.size() > 8) title_cache_.erase(title_cache_.begin());
  return title_cache_.back().sprite.get();
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

absl::StatusOr<Compositor::Layers> Compositor::LayersAt(MediaTime t, const SubtitleCue* cue) {
  Layers layers;
  layers.background = &background_;
  if (video_) {
    LC_ASSIGN_OR_RETURN(layers.background, video_->FrameAt(t));
    layers.background_is_video = true;
  }
  if (cue != nullptr && cue->start <= t && t < cue->end) {
    LC_ASSIGN_OR_RETURN(CachedSubtitle * cached, CachedFor(*cue));
    layers.subtitle = cached->sprite.get();
    if (const int highlight_end = HighlightEnd(*cue, t); highlight_end > 0 && cached->layout != nullptr) {
      // The layout is kept: a new word re-colours its own glyphs in the sprite
      // (no shaping, no full redraw), and the cached composite is patched there.
      if (cached->highlighted == nullptr) {
        LC_ASSIGN_OR_RETURN(cached->highlighted, subtitles_->Draw(*cached->layout, highlight_end));
        cached->highlight_end = highlight_end;
        ++highlight_redraws_;
        ++subtitle_changes_;
      } else if (cached->highlight_end != highlight_end) {
        SubtitleSprite& sprite = *cached->highlighted;
        LC_ASSIGN_OR_RETURN(const Rect changed, subtitles_->Rehighlight(*cached->layout, cached->highlight_end,
                                                                        highlight_end, sprite));
        cached->highlight_end = highlight_end;
        ++highlight_redraws_;
        ++subtitle_changes_;
        if (!subtitle_patches_.empty() && subtitle_patches_.back().version != subtitle_changes_ - 1) {
          subtitle_patches_.clear();  // another change came between: older patches no longer chain
        }
        subtitle_patches_.push_back({subtitle_changes_, changed});
        if (subtitle_patches_.size() > kSubtitlePatchHistory) subtitle_patches_.erase(subtitle_patches_.begin());
        if (subtitled_for_ == &sprite && !changed.empty()) {
          const Rect in_frame = Rect{sprite.area.x + changed.x, sprite.area.y + changed.y, changed.width,
                                     changed.height}.Intersect(subtitled_rect_);
          CopyRect(subtitled_background_, background_, in_frame);
          BlitOver(subtitled_background_, sprite.image, sprite.area.x, sprite.area.y, 255, in_frame);
        }
      }
      layers.subtitle = cached->highlighted.get();
      layers.subtitle_patches = subtitle_patches_;
    }
    layers.subtitle_opacity = FadeOpacity(t, *cue);
    if (layers.subtitle == nullptr || layers.subtitle_opacity == 0) layers.subtitle = nullptr;
  }
  for (const LowerThird& title : options_.titles) {
    if (t < title.start || t >= title.end) continue;
    LC_ASSIGN_OR_RETURN(layers.title, TitleSprite(title));
    if (layers.title != nullptr) layers.title_pose = LowerThirdPoseAt(title, options_.title_style, t, layers.title->area.width);
    if (layers.title_pose.opacity == 0) layers.title = nullptr;
    break;  // one title at a time: the first whose time it is
  }
  // Last: making this frame's sprites counts.
  layers.subtitle_version = subtitle_changes_;
  layers.title_version = title_changes_;
  return layers;
}

absl::Status Compositor::Compose(MediaTime t, const SubtitleCue* cue, VideoFrame& out) {
  if (out.width == 0 && out.height == 0) out.Allocate(options_.width, options_.height);
  if (out.width != options_.width || out.height != options_.height || out.stride < out.width * 4) {
    return absl::InvalidArgumentError(absl::StrCat("output frame is ", out.width, "x", out.height,
                                                   ", the compositor draws ", options_.width, "x",
                                                   options_.height));
  }
  LC_ASSIGN_OR_RETURN(const Layers at, LayersAt(t, cue));
  FrameLayers layers;
  layers.background = at.background;
  layers.sprite = at.subtitle;
  layers.opacity = at.subtitle_opacity;
  layers.title = at.title;
  layers.title_pose = at.title_pose;
  out.yuv420.reset();  // drawn here: only the RGBA is this frame's picture
  // The cached background + subtitle composite needs a still background.
  layers.use_subtitled_background = layers.sprite != nullptr && layers.opacity == 255 && !video_;
  if (layers.use_subtitled_background) PrepareSubtitledBackground(*layers.sprite);
  const int bands = (options_.height + band_height_ - 1) / band_height_;
  pool_->Run(bands, [&](int band) {
    const int y = band * band_height_;
    DrawBand(Rect{0, y, options_.width, std::min(band_height_, options_.height - y)}, layers, out);
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

// Background, avatar, title, subtitle, in this order, for the pixels of one band.
void Compositor::DrawBand(const Rect& band, const FrameLayers& layers, VideoFrame& out) const {
  CopyRect(out, *layers.background, band);
  const Rect avatar_clip = draw_avatar_ ? avatar_area_.Intersect(band) : Rect{};
  const SubtitleSprite* sprite = layers.sprite;
  Rect title_rect;
  if (layers.title != nullptr) {
    const Rect& area = layers.title->area;
    title_rect = Rect{area.x + layers.title_pose.dx, area.y, area.width, area.height};
  }
  auto draw_title = [&] {
    if (layers.title == nullptr) return;
    BlitOver(out, layers.title->image, title_rect.x, title_rect.y, layers.title_pose.opacity, band);
  };
  if (layers.use_subtitled_background) {
    // Where nothing is drawn under the subtitle, background + sprite is the
    // cached composite; under the avatar (or a title) the sprite goes over
    // their pixels. The title never meets the subtitle zone, but its rectangle
    // joins the avatar's here so no layout change can make that wrong.
    const Rect sub = subtitled_rect_.Intersect(band);
    Rect under = sub.Intersect(avatar_clip);
    if (const Rect title_under = sub.Intersect(title_rect); !title_under.empty()) {
      under = under.empty() ? title_under : sub;  // rare: take the whole strip
    }
    if (under.empty()) {
      CopyRect(out, subtitled_background_, sub);
    } else {  // sub minus under: the rows above and below, the columns left and right
      CopyRect(out, subtitled_background_, Rect{sub.x, sub.y, sub.width, under.y - sub.y});
      CopyRect(out, subtitled_background_, Rect{sub.x, under.bottom(), sub.width, sub.bottom() - under.bottom()});
      CopyRect(out, subtitled_background_, Rect{sub.x, under.y, under.x - sub.x, under.height});
      CopyRect(out, subtitled_background_, Rect{under.right(), under.y, sub.right() - under.right(), under.height});
    }
    if (!avatar_clip.empty()) draw_avatar_(out, avatar_area_, avatar_clip);
    draw_title();
    if (!under.empty()) BlitOver(out, sprite->image, sprite->area.x, sprite->area.y, 255, under);
    return;
  }
  if (!avatar_clip.empty()) draw_avatar_(out, avatar_area_, avatar_clip);
  draw_title();
  if (sprite != nullptr) BlitOver(out, sprite->image, sprite->area.x, sprite->area.y, layers.opacity, band);
}

}  // namespace lingcast::compose
