#include "avatar/avatar_renderer.h"

#include <algorithm>
#include <cmath>

namespace lingcast {
namespace {

// Palette: warm skin, dark brown hair, navy jacket.
const Color kSkin = Color::Hex(0xF6D2B8);
const Color kSkinEdge = Color::Hex(0xE9B896);
const Color kSkinShadow = Color::Hex(0xC98B6B);
const Color kHair = Color::Hex(0x3B2A22);
const Color kHairLight = Color::Hex(0x6A4A38);
const Color kJacket = Color::Hex(0x34496E);
const Color kJacketDark = Color::Hex(0x23324F);
const Color kShirt = Color::Hex(0xF5F7FA);
const Color kLip = Color::Hex(0xCC6E6E);
const Color kLipDark = Color::Hex(0xA44F55);
const Color kLipLine = Color::Hex(0x7E343B);
const Color kMouth = Color::Hex(0x4A1A22);
const Color kTeeth = Color::Hex(0xFBF8F1);
const Color kTongue = Color::Hex(0xD9727C);
const Color kSclera = Color::Hex(0xFCFBF8);
const Color kIris = Color::Hex(0x6B4428);
const Color kIrisDark = Color::Hex(0x3A2415);
const Color kLash = Color::Hex(0x2A1D18);

// Neutral head centre line and feature heights (avatar units).
constexpr float kMouthY = 0.655f;
constexpr float kEyeY = 0.475f;
constexpr float kEyeDx = 0.095f;

Paint Vertical(float y0, float y1, Color top, Color bottom) {
  return Paint::Linear({0, y0}, {0, y1}, {{0, top}, {1, bottom}});
}

// A lens-to-ellipse shape: corners at (cx -+ hw, cy - lift), top at cy - top,
// bottom at cy + bottom. roundness 0 gives pointed corners (lips at rest),
// 1 an ellipse (an "O").
Path MouthShape(float cx, float cy, float hw, float top, float bottom, float roundness, float lift,
                float bow = 0) {
  const float ky = 0.552f * roundness;
  const float kx = 0.62f - 0.07f * roundness;
  const Vec2 l{cx - hw, cy - lift}, r{cx + hw, cy - lift};
  Path p;
  p.MoveTo(l);
  if (bow > 0) {  // the upper lip's cupid's bow: two peaks and a dip
    const float peak = cy - top, dip = cy - top + bow;
    p.CubicTo({l.x, l.y - top * ky}, {cx - hw * 0.55f, peak}, {cx - hw * 0.22f, peak});
    p.QuadTo({cx - hw * 0.08f, peak}, {cx, dip});
    p.QuadTo({cx + hw * 0.08f, peak}, {cx + hw * 0.22f, peak});
    p.CubicTo({cx + hw * 0.55f, peak}, {r.x, r.y - top * ky}, r);
  } else {
    p.CubicTo({l.x, l.y - top * ky}, {cx - hw * kx, cy - top}, {cx, cy - top});
    p.CubicTo({cx + hw * kx, cy - top}, {r.x, r.y - top * ky}, r);
  }
  p.CubicTo({r.x, r.y + bottom * ky}, {cx + hw * kx, cy + bottom}, {cx, cy + bottom});
  p.CubicTo({cx - hw * kx, cy + bottom}, {l.x, l.y + bottom * ky}, l);
  return p.Close();
}

Path HeadShape(float jaw_drop) {
  const float chin = 0.785f + jaw_drop;
  Path p;
  p.MoveTo({0.5f, 0.145f});
  p.CubicTo({0.665f, 0.145f}, {0.738f, 0.27f}, {0.736f, 0.45f});
  p.CubicTo({0.735f, 0.60f}, {0.69f, 0.69f}, {0.61f, chin - 0.035f});
  p.CubicTo({0.565f, chin - 0.004f}, {0.435f, chin - 0.004f}, {0.39f, chin - 0.035f});
  p.CubicTo({0.31f, 0.69f}, {0.265f, 0.60f}, {0.264f, 0.45f});
  p.CubicTo({0.262f, 0.27f}, {0.335f, 0.145f}, {0.5f, 0.145f});
  return p.Close();
}

Path BackHair() {
  Path p;
  p.MoveTo({0.5f, 0.08f});
  p.CubicTo({0.745f, 0.08f}, {0.805f, 0.27f}, {0.79f, 0.5f});
  p.CubicTo({0.78f, 0.66f}, {0.805f, 0.74f}, {0.75f, 0.80f});
  p.CubicTo({0.63f, 0.84f}, {0.37f, 0.84f}, {0.25f, 0.80f});
  p.CubicTo({0.195f, 0.74f}, {0.22f, 0.66f}, {0.21f, 0.5f});
  p.CubicTo({0.195f, 0.27f}, {0.255f, 0.08f}, {0.5f, 0.08f});
  return p.Close();
}

Path Fringe() {
  Path p;
  p.MoveTo({0.256f, 0.52f});
  p.CubicTo({0.23f, 0.26f}, {0.33f, 0.095f}, {0.505f, 0.095f});
  p.CubicTo({0.69f, 0.095f}, {0.775f, 0.25f}, {0.748f, 0.50f});
  p.CubicTo({0.742f, 0.38f}, {0.70f, 0.29f}, {0.625f, 0.245f});
  p.CubicTo({0.54f, 0.31f}, {0.42f, 0.33f}, {0.315f, 0.36f});
  p.CubicTo({0.29f, 0.40f}, {0.272f, 0.45f}, {0.256f, 0.52f});
  return p.Close();
}

Path Neck() {
  Path p;
  p.MoveTo({0.432f, 0.62f});
  p.CubicTo({0.435f, 0.80f}, {0.43f, 0.90f}, {0.405f, 0.975f});
  p.LineTo({0.595f, 0.975f});
  p.CubicTo({0.57f, 0.90f}, {0.565f, 0.80f}, {0.568f, 0.62f});
  return p.Close();
}

Path Torso() {
  Path p;
  p.MoveTo({-0.02f, 1.36f});
  p.LineTo({-0.01f, 1.19f});
  p.CubicTo({0.0f, 1.07f}, {0.09f, 1.01f}, {0.24f, 0.985f});
  p.CubicTo({0.32f, 0.972f}, {0.38f, 0.955f}, {0.42f, 0.935f});
  p.LineTo({0.58f, 0.935f});
  p.CubicTo({0.62f, 0.955f}, {0.68f, 0.972f}, {0.76f, 0.985f});
  p.CubicTo({0.91f, 1.01f}, {1.0f, 1.07f}, {1.01f, 1.19f});
  p.LineTo({1.02f, 1.36f});
  return p.Close();
}

}  // namespace

Affine AvatarRenderer::Placement(const Rect& area) {
  const float w = static_cast<float>(area.width), h = static_cast<float>(area.height);
  const float s = std::min(w, h / kAspect);
  return Affine::Translate(static_cast<float>(area.x) + (w - s) * 0.5f,
                           static_cast<float>(area.y) + h - kAspect * s) *
         Affine::Scale(s, s);
}

Rect AvatarRenderer::RegionOf(const Rect& area, Vec2 top_left, Vec2 bottom_right) {
  const Affine m = Placement(area);
  const Vec2 a = m.Apply(top_left), b = m.Apply(bottom_right);
  const int l = static_cast<int>(std::floor(a.x)), t = static_cast<int>(std::floor(a.y));
  const int r = static_cast<int>(std::ceil(b.x)), btm = static_cast<int>(std::ceil(b.y));
  return Rect{l, t, r - l, btm - t}.Intersect(area);
}

Rect AvatarRenderer::MouthRegion(const Rect& area) { return RegionOf(area, {0.43f, 0.61f}, {0.57f, 0.73f}); }
Rect AvatarRenderer::EyesRegion(const Rect& area) { return RegionOf(area, {0.29f, 0.43f}, {0.71f, 0.52f}); }

std::unique_ptr<Canvas> AvatarRenderer::BorrowCanvas() {
  std::lock_guard<std::mutex> lock(canvases_mu_);
  if (idle_canvases_.empty()) return std::make_unique<Canvas>();
  std::unique_ptr<Canvas> canvas = std::move(idle_canvases_.back());
  idle_canvases_.pop_back();
  return canvas;
}

void AvatarRenderer::ReturnCanvas(std::unique_ptr<Canvas> canvas) {
  std::lock_guard<std::mutex> lock(canvases_mu_);
  idle_canvases_.push_back(std::move(canvas));
}

void AvatarRenderer::Render(const AvatarState& state, VideoFrame& target, const Rect& area, const Rect& clip) {
  std::unique_ptr<Canvas> canvas = BorrowCanvas();
  Canvas& c = *canvas;
  c.Reset(target, area.Intersect(clip));
  const int64_t before = c.pixels_shaded();
  const Affine place = Placement(area);
  const Affine body = place * Affine::Translate(0, -0.004f * state.breath);
  const Affine head = place * Affine::Translate(state.head_offset.x, state.head_offset.y) *
                      Affine::RotateAbout(state.head_roll, {0.5f, 0.9f});

  c.Fill(BackHair(), Paint::Solid(Color::Hex(0x33251E)), head);  // mostly hidden: solid is cheaper
  DrawBody(c, state, body);
  // The neck's shadow under the jaw moves with the head but stays on the neck.
  c.PushClip(Neck(), body);
  c.Fill(Path::Ellipse({0.5f, 0.745f + 0.02f * state.mouth.open}, 0.11f, 0.07f),
         Paint::Solid(kSkinShadow.WithAlpha(0.55f)), head);
  c.PopClip();
  DrawHead(c, state, head);
  last_pixels_shaded_.store(c.pixels_shaded() - before, std::memory_order_relaxed);
  ReturnCanvas(std::move(canvas));
}

void AvatarRenderer::DrawBody(Canvas& c, const AvatarState&, const Affine& neck_transform) {
  c.Fill(Neck(), Paint::Linear({0.43f, 0}, {0.57f, 0}, {{0, kSkinEdge}, {0.5f, kSkin}, {1, kSkinEdge}}),
         neck_transform);
  // The shoulders sit a little higher than the neck's drawing runs: a shorter neck.
  const Affine m = neck_transform * Affine::Translate(0, -0.03f);
  c.Fill(Torso(), Vertical(0.94f, 1.3f, kJacket, kJacketDark), m);
  // Open shirt collar in the V of the jacket.
  c.Fill(Path().AddPolygon({{0.40f, 0.925f}, {0.60f, 0.925f}, {0.5f, 1.17f}}),
         Vertical(0.94f, 1.17f, kShirt, Color::Hex(0xDDE2E8)), m);
  c.Fill(Path().AddPolygon({{0.425f, 0.92f}, {0.575f, 0.92f}, {0.5f, 1.04f}}), Paint::Solid(kSkinEdge), m);
  c.Fill(Path().MoveTo({0.40f, 0.93f}).LineTo({0.5f, 1.05f}).LineTo({0.45f, 1.07f}).LineTo({0.385f, 0.975f}).Close(),
         Paint::Solid(kShirt), m);
  c.Fill(Path().MoveTo({0.60f, 0.93f}).LineTo({0.5f, 1.05f}).LineTo({0.55f, 1.07f}).LineTo({0.615f, 0.975f}).Close(),
         Paint::Solid(kShirt), m);
  // Lapels: lighter folds along the V, with a crisp edge.
  const Color lapel = Color::Hex(0x3D5480);
  c.Fill(Path().MoveTo({0.395f, 0.955f}).LineTo({0.5f, 1.18f}).LineTo({0.47f, 1.36f}).LineTo({0.345f, 1.08f}).Close(),
         Paint::Solid(lapel), m);
  c.Fill(Path().MoveTo({0.605f, 0.955f}).LineTo({0.5f, 1.18f}).LineTo({0.53f, 1.36f}).LineTo({0.655f, 1.08f}).Close(),
         Paint::Solid(lapel), m);
  const Paint seam = Paint::Solid(kJacketDark.WithAlpha(0.8f));
  c.Stroke(Path().MoveTo({0.345f, 1.08f}).LineTo({0.47f, 1.36f}), 0.006f, seam, m);
  c.Stroke(Path().MoveTo({0.655f, 1.08f}).LineTo({0.53f, 1.36f}), 0.006f, seam, m);
  // A small lapel microphone: she is a presenter.
  c.Fill(Path::RoundedRect(0.395f, 1.095f, 0.022f, 0.03f, 0.008f), Paint::Solid(Color::Hex(0x15181D)), m);
  c.Fill(Path::Ellipse({0.403f, 1.103f}, 0.004f, 0.004f), Paint::Solid(Color::Hex(0x5A6270)), m);
}

void AvatarRenderer::DrawHead(Canvas& c, const AvatarState& s, const Affine& m) {
  // Ears, then the face over them.
  for (float side : {-1.0f, 1.0f}) {
    const Vec2 ear{0.5f + side * 0.238f, 0.49f};
    c.Fill(Path::Ellipse(ear, 0.03f, 0.052f), Paint::Solid(kSkinEdge), m);
    c.Fill(Path::Ellipse({ear.x + side * 0.004f, ear.y}, 0.014f, 0.03f), Paint::Solid(kSkinShadow.WithAlpha(0.45f)), m);
  }
  const float jaw_drop = 0.03f * s.mouth.open;
  c.Fill(HeadShape(jaw_drop),
         Paint::Radial({0.48f, 0.42f}, {0.30f, 0.42f}, {{0, kSkin}, {0.65f, kSkin}, {1, kSkinEdge}}), m);
  // Cheeks.
  for (float side : {-1.0f, 1.0f}) {
    const Vec2 cheek{0.5f + side * 0.14f, 0.585f};
    c.Fill(Path::Ellipse(cheek, 0.055f, 0.035f),
           Paint::Radial(cheek, {0.055f, 0.035f}, {{0, Color::Hex(0xF08C8C, 0.32f)}, {1, Color::Hex(0xF08C8C, 0)}}), m);
  }
  // Nose: a soft shade down one side and a hint of the nostrils.
  c.Stroke(Path().MoveTo({0.517f, 0.50f}).QuadTo({0.532f, 0.565f}, {0.512f, 0.586f}), 0.006f,
           Paint::Solid(kSkinShadow.WithAlpha(0.45f)), m);
  c.Stroke(Path().MoveTo({0.481f, 0.587f}).QuadTo({0.5f, 0.6f}, {0.519f, 0.587f}), 0.0055f,
           Paint::Solid(kSkinShadow.WithAlpha(0.6f)), m);
  c.Fill(Path::Ellipse({0.503f, 0.572f}, 0.011f, 0.007f), Paint::Solid(Color::Hex(0xFFFFFF, 0.22f)), m);

  DrawEye(c, s, m, 0.5f - kEyeDx, true);
  DrawEye(c, s, m, 0.5f + kEyeDx, false);
  DrawMouth(c, s, m);

  c.Fill(Fringe(), Paint::Linear({0.3f, 0.1f}, {0.6f, 0.45f}, {{0, kHairLight}, {0.45f, kHair}, {1, Color::Hex(0x2C1F19)}}), m);
  c.Stroke(Path().MoveTo({0.36f, 0.17f}).QuadTo({0.47f, 0.115f}, {0.6f, 0.14f}), 0.016f,
           Paint::Solid(Color::Hex(0x8A6650, 0.35f)), m);
  // A few strands following the sweep of the fringe give the hair texture.
  const Paint strand = Paint::Solid(Color::Hex(0x1F1511, 0.55f));
  c.Stroke(Path().MoveTo({0.62f, 0.15f}).QuadTo({0.55f, 0.25f}, {0.40f, 0.33f}), 0.004f, strand, m);
  c.Stroke(Path().MoveTo({0.53f, 0.13f}).QuadTo({0.45f, 0.23f}, {0.33f, 0.31f}), 0.0035f, strand, m);
  c.Stroke(Path().MoveTo({0.66f, 0.20f}).QuadTo({0.72f, 0.30f}, {0.735f, 0.42f}), 0.0035f, strand, m);
  c.Stroke(Path().MoveTo({0.42f, 0.14f}).QuadTo({0.31f, 0.22f}, {0.28f, 0.38f}), 0.0035f, strand, m);
  // Small gold earrings.
  for (float side : {-1.0f, 1.0f}) {
    const Vec2 at{0.5f + side * 0.237f, 0.545f};
    c.Fill(Path::Ellipse(at, 0.0085f, 0.0085f),
           Paint::Radial({at.x - 0.003f, at.y - 0.003f}, {0.011f, 0.011f},
                         {{0, Color::Hex(0xFFF1B8)}, {0.5f, Color::Hex(0xE2B64A)}, {1, Color::Hex(0x9C7424)}}),
           m);
  }
}

void AvatarRenderer::DrawEye(Canvas& c, const AvatarState& s, const Affine& m, float cx, bool left) {
  const float out = left ? -1.0f : 1.0f;  // towards the outer corner
  const float cy = kEyeY;
  const float w = 0.046f;
  const float open = std::clamp(s.eye_open, 0.0f, 1.0f);
  const float upper = 0.036f * open - 0.004f * (1 - open);
  const float lower = 0.016f * (0.7f + 0.3f * open);
  const Vec2 inner{cx - out * w, cy + 0.003f}, outer{cx + out * w, cy - 0.004f};
  const Vec2 u1{cx - out * w * 0.45f, cy - upper * 1.3f}, u2{cx + out * w * 0.5f, cy - upper * 1.25f};
  const Vec2 l1{cx + out * w * 0.45f, cy + lower * 1.3f}, l2{cx - out * w * 0.5f, cy + lower * 1.3f};
  const float brow_lift = 0.014f * s.brow_raise;

  if (open > 0.12f) {
    Path opening;
    opening.MoveTo(inner).CubicTo(u1, u2, outer).CubicTo(l1, l2, inner).Close();
    c.Fill(opening, Paint::Solid(kSclera), m);
    c.PushClip(opening, m);
    const Vec2 iris{cx + s.gaze.x * 0.016f, cy - 0.002f + s.gaze.y * 0.008f};
    c.Fill(Path::Ellipse(iris, 0.024f, 0.024f),
           Paint::Radial(iris, {0.024f, 0.024f}, {{0, Color::Hex(0x8F6238)}, {0.7f, kIris}, {1, kIrisDark}}), m);
    c.Fill(Path::Ellipse(iris, 0.011f, 0.011f), Paint::Solid(Color::Hex(0x140E0A)), m);
    c.Fill(Path::Ellipse({iris.x + 0.008f, iris.y - 0.009f}, 0.0055f, 0.0055f), Paint::Solid(Color::Hex(0xFFFFFF, 0.95f)), m);
    c.Fill(Path::Ellipse({iris.x - 0.007f, iris.y + 0.008f}, 0.0025f, 0.0025f), Paint::Solid(Color::Hex(0xFFFFFF, 0.6f)), m);
    // The upper lid's shadow on the eyeball.
    c.Fill(Path::RoundedRect(cx - w, cy - 0.06f, 2 * w, 0.06f, 0),
           Paint::Linear({0, cy - upper * 1.0f}, {0, cy - upper * 0.2f},
                         {{0, Color::Hex(0x5A3A2A, 0.35f)}, {1, Color::Hex(0x5A3A2A, 0)}}), m);
    c.PopClip();
    // Lid crease.
    c.Stroke(Path().MoveTo({cx - out * w * 0.7f, cy - upper - 0.008f}).QuadTo({cx + out * w * 0.1f, cy - upper * 1.45f - 0.012f},
                                                                            {cx + out * w * 0.95f, cy - upper * 0.6f - 0.01f}),
             0.0035f, Paint::Solid(kSkinShadow.WithAlpha(0.5f)), m);
  }
  // Lash line along the upper lid: an arc when open, a downward curve when shut.
  Path lid;
  if (open > 0.12f) {
    lid.MoveTo(inner).CubicTo(u1, u2, outer);
  } else {
    lid.MoveTo(inner).CubicTo({cx - out * w * 0.45f, cy + 0.012f}, {cx + out * w * 0.5f, cy + 0.012f}, outer);
  }
  c.Stroke(lid, 0.0075f, Paint::Solid(kLash), m);
  c.Stroke(Path().MoveTo(outer).QuadTo({outer.x + out * 0.01f, outer.y - 0.002f}, {outer.x + out * 0.016f, outer.y - 0.01f}),
           0.005f, Paint::Solid(kLash), m);
  // Brow: a tapered arc made of a thick and a thin stroke.
  Path brow;
  brow.MoveTo({cx - out * 0.046f, cy - 0.056f - brow_lift})
      .QuadTo({cx + out * 0.004f, cy - 0.083f - brow_lift}, {cx + out * 0.056f, cy - 0.062f - brow_lift * 0.8f});
  c.Stroke(brow, 0.0105f, Paint::Solid(kHair), m);
  c.Stroke(Path().MoveTo({cx - out * 0.046f, cy - 0.056f - brow_lift}).QuadTo({cx - out * 0.02f, cy - 0.07f - brow_lift},
                                                                                {cx + out * 0.005f, cy - 0.074f - brow_lift}),
           0.015f, Paint::Solid(kHair), m);
}

void AvatarRenderer::DrawMouth(Canvas& c, const AvatarState& s, const Affine& m) {
  const MouthParams& p = s.mouth;
  const float open = std::clamp(p.open, 0.0f, 1.0f);
  const float round = std::clamp(p.round, 0.0f, 1.0f);
  const float spread = std::clamp(p.spread, 0.0f, 1.0f);
  const float cx = 0.5f, cy = kMouthY + 0.006f * open;
  const float hw = 0.05f * (1 + 0.28f * spread - 0.42f * round);
  const float gap = 0.085f * open;
  const float up = gap * 0.3f, down = gap * 0.7f;
  const float lift = 0.006f * (1 - round) + 0.004f * spread;  // a friendly upturn
  const float upper_lip = 0.013f + 0.009f * round - 0.004f * p.press;
  const float lower_lip = 0.017f + 0.009f * round - 0.005f * p.press - 0.006f * p.lip_bite;

  const Path lips = MouthShape(cx, cy, hw + 0.009f + 0.004f * round, up + upper_lip, down + lower_lip,
                               0.2f + 0.8f * round, lift, 0.0045f);
  c.Fill(lips, Vertical(cy - up - upper_lip, cy + down + lower_lip, kLipDark, kLip), m);

  if (gap > 0.003f) {
    const Path opening = MouthShape(cx, cy, hw, up, down, 0.12f + 0.88f * round, lift * 0.8f);
    c.Fill(opening, Paint::Solid(kMouth), m);
    c.PushClip(opening, m);
    // Tongue: resting low; for L its tip rises to the upper teeth.
    c.Fill(Path::Ellipse({cx, cy + down + 0.008f}, hw * 0.62f, 0.02f), Paint::Solid(kTongue), m);
    if (p.tongue > 0.01f) {
      const float tip_y = cy + down - p.tongue * gap * 0.75f;
      c.Fill(Path().MoveTo({cx - hw * 0.5f, cy + down + 0.01f})
                 .CubicTo({cx - hw * 0.45f, tip_y}, {cx - hw * 0.25f, tip_y - 0.006f}, {cx, tip_y - 0.006f})
                 .CubicTo({cx + hw * 0.25f, tip_y - 0.006f}, {cx + hw * 0.45f, tip_y}, {cx + hw * 0.5f, cy + down + 0.01f})
                 .Close(),
             Paint::Linear({0, tip_y}, {0, cy + down}, {{0, Color::Hex(0xE98C94)}, {1, kTongue}}).WithOpacity(p.tongue), m);
      c.Stroke(Path().MoveTo({cx, tip_y + 0.002f}).LineTo({cx, cy + down}), 0.0025f,
               Paint::Solid(Color::Hex(0xB85560, 0.6f * p.tongue)), m);
    }
    // Teeth: the upper row shows for B, C, G (and a little whenever the mouth is open).
    const float upper_teeth = std::min(gap * 0.5f, 0.016f) * std::clamp(0.35f + p.teeth, 0.0f, 1.0f);
    c.Fill(Path::RoundedRect(cx - hw * 0.78f, cy - up - 0.01f, hw * 1.56f, 0.01f + upper_teeth, 0.006f),
           Paint::Solid(kTeeth), m);
    const float lower_teeth = std::min(gap * 0.25f, 0.01f) * p.teeth * (open > 0.3f ? 1.0f : 0.4f);
    if (lower_teeth > 0.0005f) {
      c.Fill(Path::RoundedRect(cx - hw * 0.6f, cy + down - lower_teeth, hw * 1.2f, lower_teeth + 0.01f, 0.005f),
             Paint::Solid(Color::Hex(0xEDE8DF)), m);
    }
    c.PopClip();
  } else {
    // Closed: the line between the lips, firmer when pressed (m, b, p).
    Path line;
    line.MoveTo({cx - hw - 0.004f, cy - lift}).QuadTo({cx, cy + 0.004f}, {cx + hw + 0.004f, cy - lift});
    c.Stroke(line, 0.0042f + 0.0015f * p.press, Paint::Solid(kLipLine), m);
  }
  if (p.lip_bite > 0.05f) {  // f, v: the upper teeth rest on the tucked lower lip
    c.PushClip(lips, m);
    c.Fill(Path::RoundedRect(cx - hw * 0.72f, cy - up - 0.002f, hw * 1.44f, 0.012f * p.lip_bite, 0.004f),
           Paint::Solid(kTeeth), m);
    c.PopClip();
  }
  // Corners and a highlight on the lower lip.
  for (float side : {-1.0f, 1.0f}) {
    const float x = cx + side * (hw + 0.01f);
    c.Stroke(Path().MoveTo({x, cy - lift - 0.004f}).QuadTo({x + side * 0.004f, cy - lift}, {x, cy - lift + 0.005f}), 0.003f,
             Paint::Solid(kSkinShadow.WithAlpha(0.5f)), m);
  }
  c.Fill(Path::Ellipse({cx, cy + down + lower_lip * 0.55f}, hw * 0.42f, lower_lip * 0.22f),
         Paint::Solid(Color::Hex(0xFFFFFF, 0.2f)), m);
}

}  // namespace lingcast
