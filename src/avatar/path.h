// Vector paths: lines, quadratic and cubic Béziers, ellipses, rounded
// rectangles; flattening to polygons and stroking to fillable outlines.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "avatar/geometry.h"

namespace lingcast {

// A closed polygon in device space, as the rasterizer fills it.
using Polygon = std::vector<Vec2>;

class Path {
 public:
  Path& MoveTo(Vec2 p);
  Path& LineTo(Vec2 p);
  Path& QuadTo(Vec2 control, Vec2 p);
  Path& CubicTo(Vec2 c1, Vec2 c2, Vec2 p);
  Path& Close();  // marks the current contour closed (fills close every contour anyway)

  // Closed shapes, each appended as its own contour.
  Path& AddEllipse(Vec2 center, float rx, float ry);
  Path& AddRoundedRect(float x, float y, float width, float height, float radius);
  Path& AddPolygon(const std::vector<Vec2>& points);

  static Path Ellipse(Vec2 center, float rx, float ry) { return Path().AddEllipse(center, rx, ry); }
  static Path RoundedRect(float x, float y, float w, float h, float r) {
    return Path().AddRoundedRect(x, y, w, h, r);
  }

  bool empty() const { return commands_.empty(); }

  // Morphing (rig path morphs): two paths morph into each other when they have
  // the same verbs in the same order; then every point moves on its own.
  bool SameVerbsAs(const Path& other) const;
  size_t verb_count() const { return commands_.size(); }
  // The verbs as letters, e.g. "MLCZ" (for messages).
  std::string VerbLetters() const;
  // this += weight * (to - from), point by point. All three must have the same
  // verbs (check with SameVerbsAs first; a mismatch leaves this path unchanged).
  void AddWeightedDifference(const Path& from, const Path& to, float weight);

  // A box holding every point the path can reach under `m`: Bézier curves lie
  // inside their control points' hull, so the points themselves bound it. Lets a
  // renderer skip a shape outside its tile before flattening it.
  struct Box {
    float x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
  };
  Box ControlBounds(const Affine& m) const;

  // Contours transformed by `m` and flattened so that no point of a curve is
  // further than `tolerance` (device pixels) from its polygon. `closed` (optional)
  // receives whether each contour was closed with Close().
  std::vector<Polygon> Flatten(const Affine& m, float tolerance,
                               std::vector<bool>* closed = nullptr) const;

 private:
  enum class Verb { kMove, kLine, kQuad, kCubic, kClose };
  struct Command {
    Verb verb;
    Vec2 p[3];
  };
  std::vector<Command> commands_;
};

// The outline of a stroke of width 2 * half_width along `polyline` (device
// space): round joins and round caps; a closed polyline gives a ring. The result
// fills correctly with the non-zero rule.
std::vector<Polygon> StrokeOutline(const Polygon& polyline, bool closed, float half_width,
                                   float tolerance);

}  // namespace lingcast
