#include "compose/lower_third.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "compose/blend.h"
#include "compose/text_layout.h"
#include "core/status.h"

namespace lingcast::compose {
namespace {

std::string Trimmed(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

double Clamp01(double v) { return std::clamp(v, 0.0, 1.0); }

}  // namespace

absl::StatusOr<LowerThird> ParseLowerThird(const std::string& text, MediaTime start, MediaTime end) {
  const size_t bar = text.find('|');
  if (bar != std::string::npos && text.find('|', bar + 1) != std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat("title \"", text, "\": expected NAME|SUBTITLE with one '|'"));
  }
  LowerThird title;
  title.name = Trimmed(text.substr(0, bar));
  title.subtitle = bar == std::string::npos ? "" : Trimmed(text.substr(bar + 1));
  if (title.name.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("title \"", text, "\": the name (before '|') is empty"));
  }
  title.start = start;
  title.end = end;
  return title;
}

absl::StatusOr<std::unique_ptr<LowerThirdSprite>> RenderLowerThird(SubtitleRenderer& fonts, const LowerThird& title,
                                                                   const LowerThirdStyle& style) {
  if (Trimmed(title.name).empty()) return nullptr;
  const int w = fonts.frame_width(), h = fonts.frame_height();
  const int min_px = fonts.style().min_pixel_size;
  const int name_px = std::max(min_px, static_cast<int>(std::lround(h * style.name_size)));
  const int sub_px = std::max(std::min(min_px, name_px), static_cast<int>(std::lround(h * style.subtitle_size)));
  LC_ASSIGN_OR_RETURN(const SizedFont* name_font, fonts.Font(FontWeight::kBold, name_px));
  LC_ASSIGN_OR_RETURN(const SizedFont* sub_font, fonts.Font(FontWeight::kRegular, sub_px));

  const int accent_w = std::max(2, static_cast<int>(std::lround(name_px * 0.14)));
  const double pad_x = std::round(name_px * 0.55), pad_y = std::round(name_px * 0.32);
  const double max_text = std::max(1.0, w * style.max_width - accent_w - 2 * pad_x);
  const TextBlock name = LayoutText(*name_font, title.name, max_text, 1);
  const bool has_sub = !Trimmed(title.subtitle).empty();
  const TextBlock sub = has_sub ? LayoutText(*sub_font, title.subtitle, max_text, 1) : TextBlock{};
  const double name_pitch = std::round(name_px * 1.3), sub_pitch = has_sub ? std::round(sub_px * 1.3) : 0;
  const int width = static_cast<int>(std::ceil(accent_w + 2 * pad_x + std::max(name.width(), sub.width())));
  const int height = static_cast<int>(std::ceil(2 * pad_y + name_pitch + sub_pitch));

  auto sprite = std::make_unique<LowerThirdSprite>();
  const int x = static_cast<int>(std::lround(w * style.left_margin));
  const int bottom = fonts.SubtitleZoneTop() - static_cast<int>(std::lround(h * style.gap_above_subtitles));
  sprite->area = {x, std::max(0, bottom - height), std::min(width, w - x), height};
  sprite->image.Allocate(sprite->area.width, height);
  const float radius = static_cast<float>(name_px * 0.12);
  FillRoundedRect(sprite->image, 0, 0, static_cast<float>(sprite->area.width), static_cast<float>(height), radius,
                  style.panel);
  FillRoundedRect(sprite->image, 0, 0, static_cast<float>(accent_w), static_cast<float>(height), radius,
                  style.accent);

  // Baselines centre each line's em box (Noto CJK: 0.88 em up, 0.12 em down) in its pitch.
  TextPaint paint;
  paint.outline_px = 0;
  paint.shadow.a = 0;
  const int text_x = static_cast<int>(accent_w + pad_x);
  if (!name.lines.empty()) {
    paint.fill = style.name_color;
    const int baseline = static_cast<int>(std::lround(pad_y + name_pitch / 2 + 0.38 * name_px));
    LC_RETURN_IF_ERROR(
        DrawTextLine(sprite->image, name.lines[0], *name_font, fonts.mutable_glyph_cache(), text_x, baseline, paint));
  }
  if (!sub.lines.empty()) {
    paint.fill = style.subtitle_color;
    const int baseline = static_cast<int>(std::lround(pad_y + name_pitch + sub_pitch / 2 + 0.38 * sub_px));
    LC_RETURN_IF_ERROR(
        DrawTextLine(sprite->image, sub.lines[0], *sub_font, fonts.mutable_glyph_cache(), text_x, baseline, paint));
  }
  return sprite;
}

LowerThirdPose LowerThirdPoseAt(const LowerThird& title, const LowerThirdStyle& style, MediaTime t, int bar_width) {
  if (t < title.start || t >= title.end) return {};
  const double span = static_cast<double>((title.end - title.start).micros());
  const double in = std::max(1.0, std::min<double>(style.slide_in.micros(), span / 3));
  const double out = std::max(1.0, std::min<double>(style.slide_out.micros(), span / 3));
  const double p_in = Clamp01((t - title.start).micros() / in);
  const double p_out = Clamp01((title.end - t).micros() / out);
  const double e_in = 1 - std::pow(1 - p_in, 3);   // ease-out: arrives softly
  const double e_out = 1 - std::pow(1 - p_out, 3);
  const double e = std::min(e_in, e_out);
  LowerThirdPose pose;
  pose.opacity = static_cast<int>(std::lround(255 * e));
  pose.dx = -static_cast<int>(std::lround((1 - e) * style.slide_distance * bar_width));
  return pose;
}

}  // namespace lingcast::compose
