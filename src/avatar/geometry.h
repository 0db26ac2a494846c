// Points, pixel rectangles and 2D affine transforms for the vector renderer.
#pragma once

#include <algorithm>
#include <cmath>

#include "media/rect.h"

namespace lingcast {

struct Vec2 {
  float x = 0;
  float y = 0;
};
inline Vec2 operator+(Vec2 a, Vec2 b) { return {a.x + b.x, a.y + b.y}; }
inline Vec2 operator-(Vec2 a, Vec2 b) { return {a.x - b.x, a.y - b.y}; }
inline Vec2 operator*(Vec2 a, float k) { return {a.x * k, a.y * k}; }
inline Vec2 Lerp(Vec2 a, Vec2 b, float t) { return {a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t}; }

// x' = a x + c y + e,  y' = b x + d y + f.  (A * B) applies B first, then A.
struct Affine {
  float a = 1, b = 0, c = 0, d = 1, e = 0, f = 0;

  static Affine Translate(float tx, float ty) { return {1, 0, 0, 1, tx, ty}; }
  static Affine Scale(float sx, float sy) { return {sx, 0, 0, sy, 0, 0}; }
  static Affine Rotate(float radians) {
    const float cs = std::cos(radians), sn = std::sin(radians);
    return {cs, sn, -sn, cs, 0, 0};
  }
  static Affine RotateAbout(float radians, Vec2 pivot) {
    return Translate(pivot.x, pivot.y) * Rotate(radians) * Translate(-pivot.x, -pivot.y);
  }
  static Affine ScaleAbout(float sx, float sy, Vec2 pivot) {
    return Translate(pivot.x, pivot.y) * Scale(sx, sy) * Translate(-pivot.x, -pivot.y);
  }

  friend Affine operator*(const Affine& m, const Affine& n) {
    return {m.a * n.a + m.c * n.b, m.b * n.a + m.d * n.b, m.a * n.c + m.c * n.d,
            m.b * n.c + m.d * n.d, m.a * n.e + m.c * n.f + m.e, m.b * n.e + m.d * n.f + m.f};
  }
  Vec2 Apply(Vec2 p) const { return {a * p.x + c * p.y + e, b * p.x + d * p.y + f}; }
  float Determinant() const { return a * d - b * c; }
  // Geometric mean scale: how much a length grows on average (stroke widths, tolerances).
  float MeanScale() const { return std::sqrt(std::abs(Determinant())); }
  // Inverse; a singular transform gives the zero transform (everything collapses).
  Affine Inverse() const {
    const float det = Determinant();
    if (det == 0) return {0, 0, 0, 0, 0, 0};
    const float id = 1.0f / det;
    return {d * id, -b * id, -c * id, a * id, (c * f - d * e) * id, (b * e - a * f) * id};
  }
};

}  // namespace lingcast
