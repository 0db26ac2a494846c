#include "avatar/path.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace lingcast {
namespace {

constexpr float kPi = std::numbers::pi_v<float>;
// Cubic Bézier handle length that makes a quarter circle (4/3 * tan(pi/8)).
constexpr float kKappa = 0.5522847498f;

float Length(Vec2 v) { return std::sqrt(v.x * v.x + v.y * v.y); }

// Segments needed so a curve with second differences of size `dd` deviates at
// most `tolerance` from its chords (the deviation of a parabola falls with n^2).
int SegmentsFor(float dd, float tolerance) {
  const float n = std::ceil(std::sqrt(dd / (4.0f * tolerance)));
  return std::clamp(static_cast<int>(n), 1, 256);
}

}  // namespace

Path& Path::MoveTo(Vec2 p) {
  commands_.push_back({Verb::kMove, {p}});
  return *this;
}
Path& Path::LineTo(Vec2 p) {
  commands_.push_back({Verb::kLine, {p}});
  return *this;
}
Path& Path::QuadTo(Vec2 control, Vec2 p) {
  commands_.push_back({Verb::kQuad, {control, p}});
  return *this;
}
Path& Path::CubicTo(Vec2 c1, Vec2 c2, Vec2 p) {
  commands_.push_back({Verb::kCubic, {c1, c2, p}});
  return *this;
}
Path& Path::Close() {
  commands_.push_back({Verb::kClose, {}});
  return *this;
}

Path& Path::AddEllipse(Vec2 c, float rx, float ry) {
  const float kx = rx * kKappa, ky = ry * kKappa;
  MoveTo({c.x + rx, c.y});
  CubicTo({c.x + rx, c.y + ky}, {c.x + kx, c.y + ry}, {c.x, c.y + ry});
  CubicTo({c.x - kx, c.y + ry}, {c.x - rx, c.y + ky}, {c.x - rx, c.y});
  CubicTo({c.x - rx, c.y - ky}, {c.x - kx, c.y - ry}, {c.x, c.y - ry});
  CubicTo({c.x + kx, c.y - ry}, {c.x + rx, c.y - ky}, {c.x + rx, c.y});
  return Close();
}

Path& Path::AddRoundedRect(float x, float y, float w, float h, float r) {
  r = std::clamp(r, 0.0f, std::min(w, h) * 0.5f);
  const float k = r * (1 - kKappa);
  MoveTo({x + r, y});
  LineTo({x + w - r, y});
  CubicTo({x + w - k, y}, {x + w, y + k}, {x + w, y + r});
  LineTo({x + w, y + h - r});
  CubicTo({x + w, y + h - k}, {x + w - k, y + h}, {x + w - r, y + h});
  LineTo({x + r, y + h});
  CubicTo({x + k, y + h}, {x, y + h - k}, {x, y + h - r});
  LineTo({x, y + r});
  CubicTo({x, y + k}, {x + k, y}, {x + r, y});
  return Close();
}

Path& Path::AddPolygon(const std::vector<Vec2>& points) {
  if (points.empty()) return *this;
  MoveTo(points[0]);
  for (size_t i = 1; i < points.size(); ++i) LineTo(points[i]);
  return Close();
}

bool Path::SameVerbsAs(const Path& other) const {
  if (commands_.size() != other.commands_.size()) return false;
  for (size_t i = 0; i < commands_.size(); ++i) {
    if (commands_[i].verb != other.commands_[i].verb) return false;
  }
  return true;
}

std::string Path::VerbLetters() const {
  std::string letters;
  for (const Command& c : commands_) letters += "MLQCZ"[static_cast<int>(c.verb)];
  return letters;
}

void Path::AddWeightedDifference(const Path& from, const Path& to, float weight) {
  if (!SameVerbsAs(from) || !SameVerbsAs(to)) return;
  for (size_t i = 0; i < commands_.size(); ++i) {
    for (int k = 0; k < 3; ++k) {
      commands_[i].p[k] = commands_[i].p[k] + (to.commands_[i].p[k] - from.commands_[i].p[k]) * weight;
    }
  }
}

Path::Box Path::ControlBounds(const Affine& m) const {
  Box box;
  for (const Command& cmd : commands_) {
    const int points = cmd.verb == Verb::kClose ? 0 : cmd.verb == Verb::kQuad ? 2 : cmd.verb == Verb::kCubic ? 3 : 1;
    for (int i = 0; i < points; ++i) {
      const Vec2 p = m.Apply(cmd.p[i]);
      box.x0 = std::min(box.x0, p.x);
      box.y0 = std::min(box.y0, p.y);
      box.x1 = std::max(box.x1, p.x);
      box.y1 = std::max(box.y1, p.y);
    }
  }
  return box;
}

std::vector<Polygon> Path::Flatten(const Affine& m, float tolerance, std::vector<bool>* closed) const {
  std::vector<Polygon> out;
  if (closed) closed->clear();
  Vec2 current{};
  auto begin_contour = [&](Vec2 p) {
    out.emplace_back();
    out.back().push_back(p);
    if (closed) closed->push_back(false);
  };
  for (const Command& cmd : commands_) {
    switch (cmd.verb) {
      case Verb::kMove:
        current = m.Apply(cmd.p[0]);
        begin_contour(current);
        break;
      case Verb::kLine:
        if (out.empty()) begin_contour(current);
        current = m.Apply(cmd.p[0]);
        out.back().push_back(current);
        break;
      case Verb::kQuad: {
        if (out.empty()) begin_contour(current);
        // Affine maps preserve Béziers: transform the control points, then flatten.
        const Vec2 p0 = current, p1 = m.Apply(cmd.p[0]), p2 = m.Apply(cmd.p[1]);
        const int n = SegmentsFor(Length(p0 - p1 * 2 + p2), tolerance);
        for (int i = 1; i <= n; ++i) {
          const float t = static_cast<float>(i) / static_cast<float>(n), s = 1 - t;
          out.back().push_back(p0 * (s * s) + p1 * (2 * s * t) + p2 * (t * t));
        }
        current = p2;
        break;
      }
      case Verb::kCubic: {
        if (out.empty()) begin_contour(current);
        const Vec2 p0 = current, p1 = m.Apply(cmd.p[0]), p2 = m.Apply(cmd.p[1]), p3 = m.Apply(cmd.p[2]);
        // A cubic's second derivative is at most 6 * dd, a quadratic's 2 * dd.
        const float dd = std::max(Length(p0 - p1 * 2 + p2), Length(p1 - p2 * 2 + p3)) * 3.0f;
        const int n = SegmentsFor(dd, tolerance);
        for (int i = 1; i <= n; ++i) {
          const float t = static_cast<float>(i) / static_cast<float>(n), s = 1 - t;
          out.back().push_back(p0 * (s * s * s) + p1 * (3 * s * s * t) + p2 * (3 * s * t * t) +
                               p3 * (t * t * t));
        }
        current = p3;
        break;
      }
      case Verb::kClose:
        if (closed && !closed->empty()) closed->back() = true;
        if (!out.empty()) current = out.back().front();
        break;
    }
  }
  return out;
}

namespace {

// Appends the arc around `center` from angle a0 sweeping `sweep` radians.
void AppendArc(Polygon& out, Vec2 center, float r, float a0, float sweep, float tolerance) {
  const float step = 2 * std::acos(std::clamp(1 - tolerance / std::max(r, tolerance), -1.0f, 1.0f));
  const int n = std::clamp(static_cast<int>(std::ceil(std::abs(sweep) / std::max(step, 1e-3f))), 1, 128);
  for (int i = 0; i <= n; ++i) {
    const float a = a0 + sweep * static_cast<float>(i) / static_cast<float>(n);
    out.push_back({center.x + r * std::cos(a), center.y + r * std::sin(a)});
  }
}

float AngleOf(Vec2 v) { return std::atan2(v.y, v.x); }

// One side of the stroke: offset to the left of travel (in device coordinates,
// rot90 = (-y, x)), with round arcs on the outer side of turns. On the inner
// side it passes through the vertex itself; the small loops this makes are
// covered by the non-zero rule.
void AppendSide(Polygon& out, const Polygon& pts, bool closed, float h, float tolerance) {
  const size_t n = pts.size();
  const size_t segments = closed ? n : n - 1;
  for (size_t i = 0; i < segments; ++i) {
    const Vec2 a = pts[i], b = pts[(i + 1) % n];
    const Vec2 d = b - a;
    const float len = Length(d);
    const Vec2 normal{-d.y / len * h, d.x / len * h};
    out.push_back(a + normal);
    out.push_back(b + normal);
    if (!closed && i + 1 == segments) break;
    const Vec2 c = pts[(i + 2) % n];
    const Vec2 e = c - b;
    const float cross = d.x * e.y - d.y * e.x;
    const float len_e = Length(e);
    const Vec2 next_normal{-e.y / len_e * h, e.x / len_e * h};
    if (cross < 0) {  // turning towards the normal's opposite: our side is the outer one
      float a0 = AngleOf(normal), a1 = AngleOf(next_normal);
      float sweep = a1 - a0;
      while (sweep > 0) sweep -= 2 * kPi;
      while (sweep < -2 * kPi) sweep += 2 * kPi;
      AppendArc(out, b, h, a0, sweep, tolerance);
    } else {
      out.push_back(b);
    }
  }
}

}  // namespace

std::vector<Polygon> StrokeOutline(const Polygon& polyline, bool closed, float half_width,
                                   float tolerance) {
  Polygon pts;
  for (const Vec2& p : polyline) {
    if (pts.empty() || Length(p - pts.back()) > 1e-4f) pts.push_back(p);
  }
  if (closed && pts.size() > 1 && Length(pts.front() - pts.back()) <= 1e-4f) pts.pop_back();
  std::vector<Polygon> out;
  if (half_width <= 0) return out;
  if (pts.size() == 1) {  // a dot
    out.emplace_back();
    AppendArc(out.back(), pts[0], half_width, 0, -2 * kPi, tolerance);
    return out;
  }
  if (pts.empty()) return out;
  Polygon reversed(pts.rbegin(), pts.rend());
  if (closed && pts.size() >= 3) {
    out.emplace_back();
    AppendSide(out.back(), pts, true, half_width, tolerance);
    out.emplace_back();
    AppendSide(out.back(), reversed, true, half_width, tolerance);
    return out;
  }
  // Open: forward side, end cap, backward side, start cap, as one contour.
  out.emplace_back();
  Polygon& o = out.back();
  AppendSide(o, pts, false, half_width, tolerance);
  const Vec2 d_end = pts.back() - pts[pts.size() - 2];
  AppendArc(o, pts.back(), half_width, AngleOf({-d_end.y, d_end.x}), -kPi, tolerance);
  AppendSide(o, reversed, false, half_width, tolerance);
  const Vec2 d_start = pts[0] - pts[1];
  AppendArc(o, pts[0], half_width, AngleOf({-d_start.y, d_start.x}), -kPi, tolerance);
  return out;
}

}  // namespace lingcast
