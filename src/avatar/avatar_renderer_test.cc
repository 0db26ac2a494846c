#include "avatar/avatar_renderer.h"

#include <gtest/gtest.h>

#include "avatar/animator.h"

namespace lingcast {
namespace {

VideoFrame Blank(int w, int h) {
  VideoFrame f;
  f.Allocate(w, h);
  return f;
}

// Number of pixels in `region` whose RGBA differs between two frames.
int DifferingPixels(const VideoFrame& a, const VideoFrame& b, const Rect& region) {
  int n = 0;
  for (int y = region.y; y < region.bottom(); ++y) {
    for (int x = region.x; x < region.right(); ++x) {
      for (int c = 0; c < 4; ++c) {
        if (a.Row(y)[x * 4 + c] != b.Row(y)[x * 4 + c]) {
          ++n;
          break;
        }
      }
    }
  }
  return n;
}

const Rect kArea{20, 10, 200, 260};

VideoFrame RenderWith(const AvatarState& s) {
  VideoFrame f = Blank(240, 280);
  AvatarRenderer r;
  r.Render(s, f, kArea);
  return f;
}

TEST(AvatarRendererTest, SameStateSamePixels) {
  const AvatarState s = Animator().StateAt(MediaTime::Millis(1234));
  EXPECT_EQ(RenderWith(s).rgba, RenderWith(s).rgba);
  // Rendering into a used renderer gives the same pixels as a fresh one.
  AvatarRenderer r;
  VideoFrame a = Blank(240, 280), b = Blank(240, 280);
  r.Render(AvatarState{}, a, kArea);
  r.Render(s, b, kArea);
  EXPECT_EQ(b.rgba, RenderWith(s).rgba);
}

TEST(AvatarRendererTest, DrawsOnlyInsideItsArea) {
  const VideoFrame f = RenderWith(AvatarState{});
  int inside = 0;
  for (int y = 0; y < f.height; ++y) {
    for (int x = 0; x < f.width; ++x) {
      const bool in = x >= kArea.x && x < kArea.right() && y >= kArea.y && y < kArea.bottom();
      const uint8_t a = f.Row(y)[x * 4 + 3];
      if (!in) {
        ASSERT_EQ(a, 0) << x << "," << y;
      }
      inside += a > 0;
    }
  }
  EXPECT_GT(inside, kArea.width * kArea.height / 3);  // a bust, not a speck
}

TEST(AvatarRendererTest, MouthShapesLookDifferent) {
  AvatarState closed, open;
  closed.mouth = MouthParamsOf(Viseme::kA);
  open.mouth = MouthParamsOf(Viseme::kD);
  const VideoFrame a = RenderWith(closed), d = RenderWith(open);
  const Rect mouth = AvatarRenderer::MouthRegion(kArea);
  EXPECT_GT(DifferingPixels(a, d, mouth), mouth.width * mouth.height / 10);
  // Every pair of shapes is distinguishable in the mouth region.
  const Viseme all[] = {Viseme::kA, Viseme::kB, Viseme::kC, Viseme::kD, Viseme::kE,
                        Viseme::kF, Viseme::kG, Viseme::kH, Viseme::kX};
  std::vector<VideoFrame> frames;
  for (Viseme v : all) {
    AvatarState s;
    s.mouth = MouthParamsOf(v);
    frames.push_back(RenderWith(s));
  }
  for (size_t i = 0; i < frames.size(); ++i) {
    for (size_t j = i + 1; j < frames.size(); ++j) {
      EXPECT_GT(DifferingPixels(frames[i], frames[j], mouth), 20)
          << VisemeLetter(all[i]) << " vs " << VisemeLetter(all[j]);
    }
  }
}

TEST(AvatarRendererTest, BlinkChangesOnlyTheEyes) {
  AvatarState open, shut;
  shut.eye_open = 0;
  const VideoFrame a = RenderWith(open), b = RenderWith(shut);
  const Rect eyes = AvatarRenderer::EyesRegion(kArea);
  EXPECT_GT(DifferingPixels(a, b, eyes), 100);
  EXPECT_EQ(DifferingPixels(a, b, AvatarRenderer::MouthRegion(kArea)), 0);
}

TEST(AvatarRendererTest, ScalesToAnyArea) {
  for (const Rect area : {Rect{0, 0, 64, 80}, Rect{0, 0, 400, 300}, Rect{5, 7, 90, 400}}) {
    VideoFrame f = Blank(area.right(), area.bottom());
    AvatarRenderer r;
    r.Render(AvatarState{}, f, area);
    int covered = 0;
    for (int y = area.y; y < area.bottom(); ++y) {
      for (int x = area.x; x < area.right(); ++x) covered += f.Row(y)[x * 4 + 3] == 255;
    }
    EXPECT_GT(covered, 0) << area.width << "x" << area.height;
    // The last row is the jacket: the bust stands on the area's bottom edge.
    EXPECT_EQ(f.Row(area.bottom() - 1)[(area.x + area.width / 2) * 4 + 3], 255);
  }
}

}  // namespace
}  // namespace lingcast

namespace lingcast {
namespace {

TEST(AvatarRendererTest, TilesAddUpToTheWholePicture) {
  const AvatarState s = Animator().StateAt(MediaTime::Millis(777));
  const VideoFrame whole = RenderWith(s);
  VideoFrame tiled = Blank(240, 280);
  AvatarRenderer r;
  // Uneven tiles, rendered bottom-up.
  for (int ty = 3; ty >= 0; --ty) {
    for (int tx = 0; tx < 3; ++tx) {
      r.Render(s, tiled, kArea, Rect{tx * 83, ty * 71, 83, 71});
    }
  }
  EXPECT_EQ(tiled.rgba, whole.rgba);
}

}  // namespace
}  // namespace lingcast

namespace lingcast {
namespace {

TEST(AvatarRendererTest, DegenerateAreasDrawNothingAndDoNotCrash) {
  VideoFrame f = Blank(8, 8);
  AvatarRenderer r;
  r.Render(AvatarState{}, f, Rect{2, 2, 0, 0});
  r.Render(AvatarState{}, f, Rect{20, 20, 5, 5});  // outside the frame
  r.Render(AvatarState{}, f, Rect{-3, -3, 0, 9});
  for (uint8_t b : f.rgba) ASSERT_EQ(b, 0);
  r.Render(AvatarState{}, f, Rect{3, 3, 1, 1});  // one pixel: fine, anything goes
}

}  // namespace
}  // namespace lingcast
