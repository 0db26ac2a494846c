#include "avatar/canvas.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

namespace lingcast {
namespace {

VideoFrame Blank(int w, int h) {
  VideoFrame f;
  f.Allocate(w, h);
  return f;
}

int64_t SumAlpha(const VideoFrame& f) {
  int64_t sum = 0;
  for (int y = 0; y < f.height; ++y) {
    for (int x = 0; x < f.width; ++x) sum += f.Row(y)[x * 4 + 3];
  }
  return sum;
}

uint8_t AlphaAt(const VideoFrame& f, int x, int y) { return f.Row(y)[x * 4 + 3]; }

const Paint kWhite = Paint::Solid(Color{1, 1, 1, 1});

TEST(CanvasTest, PixelAlignedRectangleFillsExactly) {
  VideoFrame f = Blank(20, 20);
  Canvas canvas(f);
  canvas.Fill(Path().AddPolygon({{3, 4}, {13, 4}, {13, 9}, {3, 9}}), kWhite);
  for (int y = 0; y < 20; ++y) {
    for (int x = 0; x < 20; ++x) {
      const bool inside = x >= 3 && x < 13 && y >= 4 && y < 9;
      ASSERT_EQ(AlphaAt(f, x, y), inside ? 255 : 0) << x << "," << y;
      if (inside) {
        ASSERT_EQ(f.Row(y)[x * 4], 255);
      }
    }
  }
}

TEST(CanvasTest, WindingDirectionDoesNotMatter) {
  VideoFrame a = Blank(16, 16), b = Blank(16, 16);
  Canvas(a).Fill(Path().AddPolygon({{2, 2}, {12, 3}, {7, 13}}), kWhite);
  Canvas(b).Fill(Path().AddPolygon({{7, 13}, {12, 3}, {2, 2}}), kWhite);
  EXPECT_EQ(a.rgba, b.rgba);
}

TEST(CanvasTest, HalfPixelEdgeGivesHalfAlpha) {
  VideoFrame f = Blank(10, 10);
  Canvas(f).Fill(Path().AddPolygon({{2, 2}, {5.5f, 2}, {5.5f, 6}, {2, 6}}), kWhite);
  EXPECT_EQ(AlphaAt(f, 4, 3), 255);
  EXPECT_NEAR(AlphaAt(f, 5, 3), 128, 1);
  EXPECT_EQ(AlphaAt(f, 6, 3), 0);
  // A horizontal half edge too.
  VideoFrame g = Blank(10, 10);
  Canvas(g).Fill(Path().AddPolygon({{2, 2.5f}, {6, 2.5f}, {6, 6}, {2, 6}}), kWhite);
  EXPECT_NEAR(AlphaAt(g, 3, 2), 128, 1);
}

TEST(CanvasTest, CircleAreaMatchesPiRSquared) {
  VideoFrame f = Blank(100, 100);
  const float r = 31.3f;
  Canvas(f).Fill(Path::Ellipse({50.2f, 49.7f}, r, r), kWhite);
  const double area = static_cast<double>(SumAlpha(f)) / 255.0;
  // Flattening inscribes the curve within 0.1 px: a few pixels of area at most.
  EXPECT_NEAR(area, std::numbers::pi * r * r, 2 * std::numbers::pi * r * Canvas::kTolerance * 0.7);
  EXPECT_LT(area, std::numbers::pi * r * r + 1.0);
}

TEST(CanvasTest, OverlappingContoursUseNonZero) {
  VideoFrame f = Blank(20, 20);
  Path p;
  p.AddPolygon({{2, 2}, {12, 2}, {12, 12}, {2, 12}});
  p.AddPolygon({{6, 6}, {16, 6}, {16, 16}, {6, 16}});
  Canvas(f).Fill(p, kWhite);
  EXPECT_EQ(AlphaAt(f, 8, 8), 255);  // winding 2 saturates, does not wrap
  // An opposite-wound inner square is a hole.
  VideoFrame g = Blank(20, 20);
  Path ring;
  ring.AddPolygon({{2, 2}, {18, 2}, {18, 18}, {2, 18}});
  ring.AddPolygon({{6, 6}, {6, 14}, {14, 14}, {14, 6}});
  Canvas(g).Fill(ring, kWhite);
  EXPECT_EQ(AlphaAt(g, 10, 10), 0);
  EXPECT_EQ(AlphaAt(g, 4, 10), 255);
}

TEST(CanvasTest, NeverWritesOutsideTheClip) {
  VideoFrame f = Blank(64, 64);
  const Rect clip{10, 12, 30, 20};
  Canvas canvas(f, clip);
  // Shapes that cross every side of the clip, and one far outside the frame.
  canvas.Fill(Path::Ellipse({25, 20}, 40, 30), kWhite);
  canvas.Stroke(Path().MoveTo({-100, -50}).LineTo({200, 150}), 9, kWhite);
  canvas.Fill(Path::Ellipse({-500, 3000}, 10, 10), kWhite);
  for (int y = 0; y < 64; ++y) {
    for (int x = 0; x < 64; ++x) {
      const bool inside = x >= clip.x && x < clip.right() && y >= clip.y && y < clip.bottom();
      if (!inside) {
        ASSERT_EQ(AlphaAt(f, x, y), 0) << x << "," << y;
      }
    }
  }
  // The big ellipse covers the whole clip: clipping does not change covered pixels.
  EXPECT_EQ(AlphaAt(f, clip.x, clip.y), 255);
  EXPECT_EQ(AlphaAt(f, clip.right() - 1, clip.bottom() - 1), 255);
}

TEST(CanvasTest, ClippedDrawingMatchesUnclippedPixels) {
  VideoFrame whole = Blank(48, 48), part = Blank(48, 48);
  const Path shape = Path().MoveTo({3, 40}).CubicTo({10, -10}, {40, 60}, {45, 5}).LineTo({30, 44}).Close();
  const Paint grad = Paint::Linear({0, 0}, {48, 48}, {{0, Color::Hex(0xff0000)}, {1, Color::Hex(0x0000ff, 0.5f)}});
  Canvas(whole).Fill(shape, grad);
  Canvas(part, Rect{17, 9, 13, 21}).Fill(shape, grad);
  for (int y = 9; y < 30; ++y) {
    for (int x = 17; x < 30; ++x) {
      for (int c = 0; c < 4; ++c) ASSERT_EQ(whole.Row(y)[x * 4 + c], part.Row(y)[x * 4 + c]);
    }
  }
}

TEST(CanvasTest, SameInputSamePixels) {
  auto draw = [] {
    VideoFrame f = Blank(80, 60);
    Canvas c(f);
    c.Fill(Path::RoundedRect(5.3f, 4.1f, 60, 40, 9), Paint::Radial({35, 25}, {30, 20}, {{0, Color::Hex(0xffcc99)}, {1, Color::Hex(0x553311)}}));
    c.Stroke(Path().MoveTo({10, 50}).QuadTo({40, 10}, {70, 50}), 3.5f, Paint::Solid(Color::Hex(0x202020, 0.8f)));
    return f.rgba;
  };
  EXPECT_EQ(draw(), draw());
}

TEST(CanvasTest, SourceOverBlendsPremultiplied) {
  VideoFrame f = Blank(4, 4);
  Canvas c(f);
  c.Fill(Path().AddPolygon({{0, 0}, {4, 0}, {4, 4}, {0, 4}}), Paint::Solid(Color::Hex(0x0000ff)));
  c.Fill(Path().AddPolygon({{0, 0}, {4, 0}, {4, 4}, {0, 4}}), Paint::Solid(Color::Hex(0xff0000, 0.5f)));
  const uint8_t* px = f.Row(1) + 4;
  EXPECT_EQ(px[0], 128);  // red 0.5 premultiplied
  EXPECT_EQ(px[1], 0);
  EXPECT_EQ(px[2], 127);  // blue * (1 - 0.5)
  EXPECT_EQ(px[3], 255);
}

TEST(CanvasTest, LinearGradientRunsFromStartToEnd) {
  VideoFrame f = Blank(256, 1);
  Canvas(f).Fill(Path().AddPolygon({{0, 0}, {256, 0}, {256, 1}, {0, 1}}),
                 Paint::Linear({0, 0}, {256, 0}, {{0, Color::Hex(0x000000)}, {1, Color::Hex(0xffffff)}}));
  EXPECT_LE(f.Row(0)[0], 1);
  EXPECT_GE(f.Row(0)[255 * 4], 254);
  EXPECT_NEAR(f.Row(0)[128 * 4], 128, 2);
  for (int x = 1; x < 256; ++x) EXPECT_GE(f.Row(0)[x * 4], f.Row(0)[(x - 1) * 4]);
}

TEST(CanvasTest, StrokeCoversItsWidth) {
  VideoFrame f = Blank(40, 20);
  Canvas(f).Stroke(Path().MoveTo({5, 10}).LineTo({35, 10}), 4, kWhite);
  EXPECT_EQ(AlphaAt(f, 20, 8), 255);
  EXPECT_EQ(AlphaAt(f, 20, 11), 255);
  EXPECT_EQ(AlphaAt(f, 20, 5), 0);
  EXPECT_EQ(AlphaAt(f, 20, 13), 0);
  // Area of a capsule: 30 x 4 plus a disc of radius 2.
  const double area = static_cast<double>(SumAlpha(f)) / 255.0;
  EXPECT_NEAR(area, 30 * 4 + std::numbers::pi * 4, 2.0);
}

TEST(CanvasTest, ClipPathLimitsDrawing) {
  VideoFrame f = Blank(30, 30);
  Canvas c(f);
  c.PushClip(Path::Ellipse({15, 15}, 6, 6));
  c.Fill(Path().AddPolygon({{0, 0}, {30, 0}, {30, 30}, {0, 30}}), kWhite);
  c.PopClip();
  EXPECT_EQ(AlphaAt(f, 15, 15), 255);
  EXPECT_EQ(AlphaAt(f, 2, 2), 0);
  EXPECT_NEAR(static_cast<double>(SumAlpha(f)) / 255.0, std::numbers::pi * 36, 2.0);
}

TEST(CanvasTest, TransformsMoveShapes) {
  VideoFrame f = Blank(40, 40);
  const Affine m = Affine::Translate(20, 20) * Affine::RotateAbout(std::numbers::pi_v<float> / 2, {0, 0});
  Canvas(f).Fill(Path().AddPolygon({{0, 0}, {10, 0}, {10, 2}, {0, 2}}), kWhite, m);
  // Rotated by 90 degrees: the bar now runs down from (20, 20), to the left of x = 20.
  EXPECT_EQ(AlphaAt(f, 19, 25), 255);
  EXPECT_EQ(AlphaAt(f, 25, 21), 0);
}

}  // namespace
}  // namespace lingcast

namespace lingcast {
namespace {

TEST(CanvasTest, AbsurdCoordinatesAreSafe) {
  VideoFrame f = Blank(16, 16);
  Canvas c(f, Rect{4, 4, 8, 8});
  c.Fill(Path().AddPolygon({{-1e30f, 5}, {1e30f, 6}, {8, 1e30f}}), kWhite);
  c.Fill(Path().AddPolygon({{NAN, 5}, {10, NAN}, {8, 9}}), kWhite);
  c.Stroke(Path().MoveTo({3, 3}).LineTo({3, 3}), 2, kWhite);  // a dot
  for (int y = 0; y < 16; ++y) {
    for (int x = 0; x < 16; ++x) {
      if (x < 4 || x >= 12 || y < 4 || y >= 12) {
        ASSERT_EQ(AlphaAt(f, x, y), 0) << x << "," << y;
      }
    }
  }
}

}  // namespace
}  // namespace lingcast

namespace lingcast {
namespace {

TEST(CanvasTest, VerticalGradientRowShortcutMatchesSlantedEvaluation) {
  // The same vertical gradient, once with an exactly vertical axis (one colour
  // per row) and once with a negligible slant (evaluated per pixel): equal rows.
  VideoFrame a = Blank(64, 64), b = Blank(64, 64);
  const std::vector<GradientStop> stops = {{0, Color::Hex(0x112233)}, {1, Color::Hex(0xffeedd)}};
  const Path square = Path().AddPolygon({{0, 0}, {64, 0}, {64, 64}, {0, 64}});
  Canvas(a).Fill(square, Paint::Linear({0, 0}, {0, 64}, stops));
  Canvas(b).Fill(square, Paint::Linear({0, 0}, {1e-7f, 64}, stops));
  int differing = 0;
  for (size_t i = 0; i < a.rgba.size(); ++i) differing += a.rgba[i] != b.rgba[i];
  EXPECT_LE(differing, 64);  // at most rounding at a band edge
  for (int y = 0; y < 64; ++y) EXPECT_EQ(a.Row(y)[0], a.Row(y)[63 * 4]);
}

}  // namespace
}  // namespace lingcast
