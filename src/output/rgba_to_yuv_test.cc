#include "output/rgba_to_yuv.h"

#include <cmath>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace lingcast {
namespace {

// The BT.709 limited-range definition in floating point.
double ExactY(double r, double g, double b) { return 16 + (0.2126 * r + 0.7152 * g + 0.0722 * b) * 219 / 255; }
double ExactU(double r, double g, double b) {
  return 128 + (b - (0.2126 * r + 0.7152 * g + 0.0722 * b)) / 1.8556 * 224 / 255;
}
double ExactV(double r, double g, double b) {
  return 128 + (r - (0.2126 * r + 0.7152 * g + 0.0722 * b)) / 1.5748 * 224 / 255;
}

struct Converted {
  std::vector<uint8_t> y, u, v;
};

Converted Convert(const std::vector<uint8_t>& rgba, int stride, int width, int height) {
  Converted c{std::vector<uint8_t>(static_cast<size_t>(width * height)),
              std::vector<uint8_t>(static_cast<size_t>(width * height / 4)),
              std::vector<uint8_t>(static_cast<size_t>(width * height / 4))};
  RgbaToYuv420Bt709(rgba.data(), stride, width, height,
                    {c.y.data(), width, c.u.data(), width / 2, c.v.data(), width / 2});
  return c;
}

Converted ConvertSolid(uint8_t r, uint8_t g, uint8_t b) {
  std::vector<uint8_t> rgba(16, 255);
  for (size_t i = 0; i < rgba.size(); i += 4) {
    rgba[i] = r;
    rgba[i + 1] = g;
    rgba[i + 2] = b;
  }
  return Convert(rgba, 8, 2, 2);
}

TEST(RgbaToYuvTest, MapsReferenceColoursToBt709LimitedRange) {
  Converted white = ConvertSolid(255, 255, 255);
  EXPECT_EQ(white.y[0], 235);
  EXPECT_EQ(white.u[0], 128);
  EXPECT_EQ(white.v[0], 128);
  Converted black = ConvertSolid(0, 0, 0);
  EXPECT_EQ(black.y[3], 16);
  EXPECT_EQ(black.u[0], 128);
  Converted red = ConvertSolid(255, 0, 0);  // BT.601 would give Y 81, Cb 90
  EXPECT_EQ(red.y[0], 63);
  EXPECT_EQ(red.u[0], 102);
  EXPECT_EQ(red.v[0], 240);
  Converted blue = ConvertSolid(0, 0, 255);
  EXPECT_EQ(blue.y[0], 32);
  EXPECT_EQ(blue.u[0], 240);
  EXPECT_EQ(blue.v[0], 118);
}

TEST(RgbaToYuvTest, StaysWithinOneCodeValueOfTheExactConversion) {
  // A wide frame with a padded stride, so the vectorised body and its tail both run.
  constexpr int kWidth = 70, kHeight = 6, kStride = kWidth * 4 + 24;
  std::mt19937 random(7);
  std::vector<uint8_t> rgba(static_cast<size_t>(kStride * kHeight), 0xEE);
  for (int y = 0; y < kHeight; ++y) {
    for (int x = 0; x < kWidth * 4; ++x) rgba[static_cast<size_t>(y * kStride + x)] = static_cast<uint8_t>(random());
  }
  const Converted c = Convert(rgba, kStride, kWidth, kHeight);
  auto px = [&](int x, int y, int channel) { return rgba[static_cast<size_t>(y * kStride + 4 * x + channel)]; };
  for (int y = 0; y < kHeight; ++y) {
    for (int x = 0; x < kWidth; ++x) {
      EXPECT_NEAR(c.y[static_cast<size_t>(y * kWidth + x)], ExactY(px(x, y, 0), px(x, y, 1), px(x, y, 2)), 1.0)
          << x << "," << y;
    }
  }
  for (int cy = 0; cy < kHeight / 2; ++cy) {
    for (int cx = 0; cx < kWidth / 2; ++cx) {
      double mean[3] = {};
      for (int ch = 0; ch < 3; ++ch) {
        mean[ch] = (px(2 * cx, 2 * cy, ch) + px(2 * cx + 1, 2 * cy, ch) + px(2 * cx, 2 * cy + 1, ch) +
                    px(2 * cx + 1, 2 * cy + 1, ch)) / 4.0;
      }
      const size_t i = static_cast<size_t>(cy * kWidth / 2 + cx);
      EXPECT_NEAR(c.u[i], ExactU(mean[0], mean[1], mean[2]), 1.0) << cx << "," << cy;
      EXPECT_NEAR(c.v[i], ExactV(mean[0], mean[1], mean[2]), 1.0) << cx << "," << cy;
    }
  }
}

TEST(RgbaToYuvTest, IgnoresAlpha) {
  std::vector<uint8_t> opaque = {10, 200, 30, 255, 10, 200, 30, 255, 10, 200, 30, 255, 10, 200, 30, 255};
  std::vector<uint8_t> clear = opaque;
  for (size_t i = 3; i < clear.size(); i += 4) clear[i] = 0;
  const Converted a = Convert(opaque, 8, 2, 2), b = Convert(clear, 8, 2, 2);
  EXPECT_EQ(a.y, b.y);
  EXPECT_EQ(a.u, b.u);
  EXPECT_EQ(a.v, b.v);
}

// Bands of rows on several threads give the very bytes one thread gives, for
// any band count, also where the rows do not divide evenly; one converter (its
// threads started once) takes frames of any size one after another.
TEST(RgbaToYuvTest, BandsOnThreadsGiveTheSameBytes) {
  for (int threads : {2, 3, 7, 64}) {
    RowBandConverter converter(threads);
    EXPECT_EQ(converter.bands(), threads);
    for (const auto& [width, height] : {std::pair{3840, 2160}, std::pair{66, 38}, std::pair{8, 2}, std::pair{640, 360}}) {
      std::mt19937 random(7);
      const int stride = width * 4 + 12;
      std::vector<uint8_t> rgba(static_cast<size_t>(stride * height));
      for (uint8_t& byte : rgba) byte = static_cast<uint8_t>(random());
      const Converted one = Convert(rgba, stride, width, height);
      for (int frame = 0; frame < 2; ++frame) {
        Converted many{std::vector<uint8_t>(one.y.size()), std::vector<uint8_t>(one.u.size()),
                       std::vector<uint8_t>(one.v.size())};
        converter.Convert(rgba.data(), stride, width, height,
                          {many.y.data(), width, many.u.data(), width / 2, many.v.data(), width / 2});
        EXPECT_EQ(many.y, one.y) << width << "x" << height << " in " << threads;
        EXPECT_EQ(many.u, one.u) << width << "x" << height << " in " << threads;
        EXPECT_EQ(many.v, one.v) << width << "x" << height << " in " << threads;
      }
    }
  }
}

TEST(RgbaToYuvTest, OnlyBigFramesOnManyCoresAreCutIntoBands) {
  EXPECT_EQ(ConversionThreadsFor(1280, 720, 16), 1);
  EXPECT_EQ(ConversionThreadsFor(3840, 2160, 2), 1);   // the default 2-core machine
  EXPECT_EQ(ConversionThreadsFor(1920, 1080, 16), 1);
  EXPECT_EQ(ConversionThreadsFor(3840, 2160, 16), 4);
  EXPECT_EQ(ConversionThreadsFor(7680, 4320, 16), 8);
  EXPECT_EQ(ConversionThreadsFor(7680, 4320, 4), 2);
}

}  // namespace
}  // namespace lingcast
