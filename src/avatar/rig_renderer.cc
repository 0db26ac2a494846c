#include "avatar/rig_renderer.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace lingcast {
namespace {

constexpr float kDegrees = std::numbers::pi_v<float> / 180.0f;

// One layer's pose for one state: where it is, how opaque, and its outline
// (the layer's own path, or `morphed` when a morph binding moved it).
struct Posed {
  Affine world;
  float opacity = 1;
  bool visible = true;
  const Path* path = nullptr;
  Path morphed;
};

}  // namespace

RigRenderer::RigRenderer(std::shared_ptr<const rig::Rig> rig) : rig_(std::move(rig)) {}

Affine RigRenderer::Placement(const Rect& area) const {
  const float w = static_cast<float>(area.width), h = static_cast<float>(area.height);
  const float s = std::min(w / rig_->width, h / rig_->height);
  const float x = static_cast<float>(area.x) + (w - s * rig_->width) * 0.5f;
  const float y = rig_->anchor == rig::Rig::Anchor::kBottom
                      ? static_cast<float>(area.y) + h - s * rig_->height
                      : static_cast<float>(area.y) + (h - s * rig_->height) * 0.5f;
  return Affine::Translate(x, y) * Affine::Scale(s, s);
}

Rect RigRenderer::RegionOf(const Rect& area, const std::string& name) const {
  for (const rig::Rig::Region& r : rig_->regions) {
    if (r.name != name) continue;
    const Affine m = Placement(area);
    const Vec2 a = m.Apply(r.top_left), b = m.Apply(r.bottom_right);
    const int l = static_cast<int>(std::floor(std::min(a.x, b.x))), t = static_cast<int>(std::floor(std::min(a.y, b.y)));
    const int rr = static_cast<int>(std::ceil(std::max(a.x, b.x))), bt = static_cast<int>(std::ceil(std::max(a.y, b.y)));
    return Rect{l, t, rr - l, bt - t}.Intersect(area);
  }
  return {};
}

std::unique_ptr<Canvas> RigRenderer::BorrowCanvas() {
  std::lock_guard<std::mutex> lock(canvases_mu_);
  if (idle_canvases_.empty()) return std::make_unique<Canvas>();
  std::unique_ptr<Canvas> canvas = std::move(idle_canvases_.back());
  idle_canvases_.pop_back();
  return canvas;
}

void RigRenderer::ReturnCanvas(std::unique_ptr<Canvas> canvas) {
  std::lock_guard<std::mutex> lock(canvases_mu_);
  idle_canvases_.push_back(std::move(canvas));
}

void RigRenderer::Render(const AvatarState& state, VideoFrame& target, const Rect& area, const Rect& clip) {
  std::unique_ptr<Canvas> canvas = BorrowCanvas();
  canvas->Reset(target, area.Intersect(clip));
  const int64_t before = canvas->pixels_shaded();
  Draw(state, area, *canvas);
  last_pixels_shaded_.store(canvas->pixels_shaded() - before, std::memory_order_relaxed);
  ReturnCanvas(std::move(canvas));
}

void RigRenderer::Draw(const AvatarState& state, const Rect& area, VectorSurface& c) const {
  const rig::Rig& r = *rig_;
  const rig::ParamValues params = rig::ParamValuesOf(state);
  const Affine place = Placement(area);

  std::vector<Posed> posed(r.layers.size());
  for (int i : r.transform_order) {
    const rig::Layer& layer = r.layers[i];
    Vec2 translate = layer.translate;
    float degrees = layer.rotate_degrees;
    Vec2 scale = layer.scale;
    float opacity = layer.opacity;
    bool visible = layer.visible;
    Posed& p = posed[i];
    bool morphed = false;
    for (const rig::Binding& b : layer.bindings) {
      const float value = params[static_cast<int>(b.param)];
      if (b.kind == rig::Binding::Kind::kVisible) {
        visible = visible && (b.shapes != 0 ? ((b.shapes >> static_cast<int>(value)) & 1) != 0
                                            : value >= b.min && value <= b.max);
        continue;
      }
      const float f = b.Fraction(value);
      switch (b.kind) {
        case rig::Binding::Kind::kTranslate:
          translate = translate + Lerp(b.from, b.to, f);
          break;
        case rig::Binding::Kind::kRotate:
          degrees += b.from_value + (b.to_value - b.from_value) * f;
          break;
        case rig::Binding::Kind::kScale: {
          const Vec2 k = Lerp(b.from, b.to, f);
          scale = {scale.x * k.x, scale.y * k.y};
          break;
        }
        case rig::Binding::Kind::kOpacity:
          opacity *= b.from_value + (b.to_value - b.from_value) * f;
          break;
        case rig::Binding::Kind::kMorph:
          if (f > 0) {
            if (!morphed) p.morphed = layer.path;
            morphed = true;
            p.morphed.AddWeightedDifference(layer.path, b.target, f);
          }
          break;
        case rig::Binding::Kind::kVisible:
          break;
      }
    }
    p.path = morphed ? &p.morphed : &layer.path;
    const Affine local = Affine::Translate(translate.x, translate.y) *
                         Affine::Translate(layer.pivot.x, layer.pivot.y) * Affine::Rotate(degrees * kDegrees) *
                         Affine::Scale(scale.x, scale.y) * Affine::Translate(-layer.pivot.x, -layer.pivot.y);
    if (layer.parent >= 0) {
      const Posed& parent = posed[layer.parent];
      p.world = parent.world * local;
      p.opacity = parent.opacity * opacity;
      p.visible = parent.visible && visible;
    } else {
      p.world = place * local;
      p.opacity = opacity;
      p.visible = visible;
    }
  }

  // Layers drawn one after another inside the same clip share one clip mask
  // (the clip layer's pose is fixed for the whole call).
  int active_clip = -1;
  for (int i : r.draw_order) {
    const rig::Layer& layer = r.layers[i];
    const Posed& p = posed[i];
    if (layer.kind == rig::Layer::Kind::kGroup || !p.visible || p.opacity <= 0) continue;
    if (layer.clip != active_clip) {
      if (active_clip >= 0) c.PopClip();
      if (layer.clip >= 0) c.PushClip(*posed[layer.clip].path, posed[layer.clip].world);
      active_clip = layer.clip;
    }
    if (layer.fill) {
      c.Fill(*p.path, p.opacity < 1 ? layer.fill->WithOpacity(layer.fill->opacity * p.opacity) : *layer.fill,
             p.world);
    }
    if (layer.stroke && layer.stroke_width > 0) {
      c.Stroke(*p.path, layer.stroke_width,
               p.opacity < 1 ? layer.stroke->WithOpacity(layer.stroke->opacity * p.opacity) : *layer.stroke, p.world);
    }
  }
  if (active_clip >= 0) c.PopClip();
}

}  // namespace lingcast
