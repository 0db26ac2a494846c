// RigRenderer: bindings move, turn, hide, fade and morph layers; parents carry
// children; clips hold; image layers draw their PNGs; tiles on several threads
// give the bytes of one render; the PNGtuber example loads and moves.
#include "avatar/rig_renderer.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "avatar/png_image.h"
#include "avatar/rig.h"
#include "core/scratch_dir.h"
#include "core/status_matchers.h"

namespace lingcast {
namespace {

using testing_util::ScratchDir;

// A 100x100 rig drawn 1:1 into a 100x100 frame.
std::shared_ptr<const rig::Rig> Parse(const std::string& layers, const std::string& base_dir = "") {
  auto rig = rig::ParseRig(
      R"({"lingcast_rig": 1, "canvas": {"width": 100, "height": 100}, "layers": [)" + layers + "]}", "test.json",
      base_dir);
  EXPECT_OK(rig);
  return rig.ok() ? *rig : nullptr;
}

VideoFrame Draw(const std::shared_ptr<const rig::Rig>& rig, const AvatarState& state, int size = 100) {
  VideoFrame frame;
  frame.Allocate(size, size);
  RigRenderer renderer(rig);
  renderer.Render(state, frame, Rect{0, 0, size, size});
  return frame;
}

uint8_t Red(const VideoFrame& f, int x, int y) { return f.Row(y)[x * 4]; }
uint8_t Alpha(const VideoFrame& f, int x, int y) { return f.Row(y)[x * 4 + 3]; }

const char kBox[] = R"({"id": "box", "shape": {"rect": {"x": 10, "y": 10, "width": 20, "height": 20}}, "fill": "#FF0000")";

TEST(RigRendererTest, DrawsAShapeWhereTheRigPutsIt) {
  const VideoFrame f = Draw(Parse(std::string(kBox) + "}"), AvatarState{});
  EXPECT_EQ(Red(f, 20, 20), 255);
  EXPECT_EQ(Alpha(f, 20, 20), 255);
  EXPECT_EQ(Alpha(f, 50, 50), 0);
}

TEST(RigRendererTest, TranslateFollowsItsParameterWithinTheRange) {
  auto rig = Parse(std::string(kBox) + R"(, "bindings": [{"param": "mouth.open", "translate": [[0, 0], [40, 0]]}]})");
  AvatarState closed, open;
  closed.mouth.open = 0;
  open.mouth.open = 1;
  EXPECT_EQ(Alpha(Draw(rig, closed), 20, 20), 255);
  EXPECT_EQ(Alpha(Draw(rig, closed), 60, 20), 0);
  EXPECT_EQ(Alpha(Draw(rig, open), 20, 20), 0);
  EXPECT_EQ(Alpha(Draw(rig, open), 60, 20), 255);
  AvatarState beyond;
  beyond.mouth.open = 5;  // clamped to the range's end
  EXPECT_EQ(Alpha(Draw(rig, beyond), 60, 20), 255);
}

TEST(RigRendererTest, VisibilityAndOpacityBindings) {
  auto rig = Parse(std::string(kBox) + R"(, "bindings": [{"param": "blink", "visible": [0, 0.5]}]},
                   {"id": "ghost", "shape": {"rect": {"x": 50, "y": 50, "width": 20, "height": 20}}, "fill": "#FFFFFF",
                    "bindings": [{"param": "emotion.smile", "opacity": [0, 1]}]})");
  AvatarState open, shut;
  shut.eye_open = 0;
  EXPECT_EQ(Alpha(Draw(rig, open), 20, 20), 255);
  EXPECT_EQ(Alpha(Draw(rig, shut), 20, 20), 0);
  EXPECT_EQ(Alpha(Draw(rig, open), 60, 60), 0);  // no smile: transparent
  AvatarState half_smile;
  half_smile.expression.smile = 0.5f;
  EXPECT_NEAR(Alpha(Draw(rig, half_smile), 60, 60), 128, 1);
}

TEST(RigRendererTest, OneLayerPerMouthShape) {
  auto rig = Parse(R"({"id": "closed", "shape": {"rect": {"x": 0, "y": 0, "width": 10, "height": 10}}, "fill": "#FF0000",
                       "bindings": [{"param": "mouth.shape", "shapes": "AX"}]},
                      {"id": "open", "shape": {"rect": {"x": 20, "y": 0, "width": 10, "height": 10}}, "fill": "#FF0000",
                       "bindings": [{"param": "mouth.shape", "shapes": "CD"}]})");
  AvatarState rest, wide;
  wide.mouth = MouthParamsOf(Viseme::kD);
  EXPECT_EQ(Alpha(Draw(rig, rest), 5, 5), 255);
  EXPECT_EQ(Alpha(Draw(rig, rest), 25, 5), 0);
  EXPECT_EQ(Alpha(Draw(rig, wide), 5, 5), 0);
  EXPECT_EQ(Alpha(Draw(rig, wide), 25, 5), 255);
}

TEST(RigRendererTest, PathMorphInterpolatesControlPoints) {
  // A bar that grows from 10 to 90 wide with the D weight.
  auto rig = Parse(R"({"id": "bar", "shape": {"path": "M 10 40 L 20 40 L 20 60 L 10 60 Z"}, "fill": "#FF0000",
                       "bindings": [{"param": "mouth.D", "morph": {"path": "M 10 40 L 90 40 L 90 60 L 10 60 Z"}}]})");
  AvatarState rest, wide, half;
  wide.mouth = MouthParamsOf(Viseme::kD);
  half.mouth = Mix(MouthParamsOf(Viseme::kX), MouthParamsOf(Viseme::kD), 0.5f);
  EXPECT_EQ(Alpha(Draw(rig, rest), 50, 50), 0);
  EXPECT_EQ(Alpha(Draw(rig, wide), 85, 50), 255);
  EXPECT_EQ(Alpha(Draw(rig, half), 45, 50), 255);  // right edge at 55
  EXPECT_EQ(Alpha(Draw(rig, half), 60, 50), 0);
}

TEST(RigRendererTest, ChildrenFollowTheirParentAndClipsHold) {
  auto rig = Parse(R"({"id": "arm", "pivot": [50, 50], "bindings": [{"param": "head.roll", "in": [0, 1.5707963], "rotate": [0, 90]}]},
                      {"id": "hand", "parent": "arm", "shape": {"rect": {"x": 70, "y": 45, "width": 20, "height": 10}}, "fill": "#FF0000"},
                      {"id": "window", "shape": {"rect": {"x": 0, "y": 0, "width": 100, "height": 50}}, "fill": "#00000000"},
                      {"id": "clipped", "clip": "window", "shape": {"rect": {"x": 0, "y": 40, "width": 10, "height": 20}}, "fill": "#FF0000"})");
  AvatarState straight, turned;
  turned.head_roll = 1.5707963f;  // a quarter turn (clockwise on screen: y points down)
  EXPECT_EQ(Alpha(Draw(rig, straight), 80, 50), 255);
  EXPECT_EQ(Alpha(Draw(rig, turned), 80, 50), 0);
  EXPECT_EQ(Alpha(Draw(rig, turned), 50, 80), 255);
  EXPECT_EQ(Alpha(Draw(rig, straight), 5, 45), 255);  // inside the window
  EXPECT_EQ(Alpha(Draw(rig, straight), 5, 55), 0);    // below it: clipped
}

TEST(RigRendererTest, ImageLayersDrawTheirPng) {
  ScratchDir dir;
  VideoFrame image;
  image.Allocate(10, 10);
  for (int y = 0; y < 10; ++y) {
    for (int x = 0; x < 10; ++x) {
      uint8_t* p = image.Row(y) + x * 4;
      // Left half opaque blue, right half half-transparent green (premultiplied).
      if (x < 5) {
        p[2] = 255, p[3] = 255;
      } else {
        p[1] = 128, p[3] = 128;
      }
    }
  }
  ASSERT_OK(EncodePngFile(image, dir.File("part.png")));
  auto rig = Parse(R"({"id": "part", "image": {"src": "part.png", "x": 20, "y": 20, "width": 40, "height": 40}})", dir.path());
  ASSERT_NE(rig, nullptr);
  const VideoFrame f = Draw(rig, AvatarState{});
  const uint8_t* blue = f.Row(40) + 25 * 4;
  EXPECT_EQ(blue[2], 255);
  EXPECT_EQ(blue[3], 255);
  const uint8_t* green = f.Row(40) + 55 * 4;
  EXPECT_NEAR(green[1], 128, 1);
  EXPECT_NEAR(green[3], 128, 1);
  EXPECT_EQ(Alpha(f, 10, 10), 0);  // outside the image
  EXPECT_EQ(Alpha(f, 70, 40), 0);
}

TEST(RigRendererTest, CentreAnchorCentresTheRig) {
  auto rig = rig::ParseRig(R"({"lingcast_rig": 1, "canvas": {"width": 100, "height": 100, "anchor": "center"},
                               "layers": [{"id": "dot", "shape": {"ellipse": {"center": [50, 50], "radius": 5}}, "fill": "#FF0000"}]})",
                           "c.json", "");
  ASSERT_OK(rig);
  VideoFrame frame;
  frame.Allocate(100, 300);
  RigRenderer(*rig).Render(AvatarState{}, frame, Rect{0, 0, 100, 300});
  EXPECT_EQ(Alpha(frame, 50, 150), 255);
  EXPECT_EQ(Alpha(frame, 50, 250), 0);
}

// The whole frame, and the same frame drawn as horizontal bands on threads.
void ExpectTilesMatch(const std::shared_ptr<const rig::Rig>& rig, const AvatarState& state, int w, int h) {
  VideoFrame whole, tiled;
  whole.Allocate(w, h);
  tiled.Allocate(w, h);
  RigRenderer one(rig), shared(rig);
  one.Render(state, whole, Rect{0, 0, w, h});
  std::vector<std::thread> threads;
  const int bands = 7;
  for (int b = 0; b < bands; ++b) {
    threads.emplace_back([&, b] {
      const int y0 = h * b / bands, y1 = h * (b + 1) / bands;
      shared.Render(state, tiled, Rect{0, 0, w, h}, Rect{0, y0, w, y1 - y0});
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(whole.rgba, tiled.rgba);
}

TEST(RigRendererTest, ThreadedTilesGiveTheBytesOfOneRender) {
  AvatarState state;
  state.mouth = MouthParamsOf(Viseme::kH);
  state.expression.smile = 0.6f;
  state.head_roll = 0.05f;
  ExpectTilesMatch(rig::BuiltInPresenter(), state, 240, 312);
}

TEST(RigRendererTest, ThePngtuberExampleLoadsAndMoves) {
  auto rig = rig::LoadRig(LINGCAST_SOURCE_DIR "/examples/avatars/pngtuber/pngtuber.json");
  ASSERT_OK(rig);
  RigRenderer renderer(*rig);
  const Rect area{0, 0, 200, 240};
  const Rect mouth = renderer.RegionOf(area, "mouth");
  const Rect eyes = renderer.RegionOf(area, "eyes");
  ASSERT_FALSE(mouth.empty());
  ASSERT_FALSE(eyes.empty());
  auto render = [&](const AvatarState& s) {
    VideoFrame f;
    f.Allocate(area.width, area.height);
    renderer.Render(s, f, area);
    return f;
  };
  auto region_differs = [](const VideoFrame& a, const VideoFrame& b, const Rect& r) {
    for (int y = r.y; y < r.bottom(); ++y) {
      for (int x = r.x * 4; x < r.right() * 4; ++x) {
        if (a.Row(y)[x] != b.Row(y)[x]) return true;
      }
    }
    return false;
  };
  AvatarState rest, wide, blink;
  wide.mouth = MouthParamsOf(Viseme::kD);
  blink.eye_open = 0;
  const VideoFrame f_rest = render(rest), f_wide = render(wide), f_blink = render(blink);
  EXPECT_GT(Alpha(f_rest, 100, 200), 0);  // the character is there
  EXPECT_TRUE(region_differs(f_rest, f_wide, mouth));
  EXPECT_FALSE(region_differs(f_rest, f_wide, eyes));
  EXPECT_TRUE(region_differs(f_rest, f_blink, eyes));
  EXPECT_FALSE(region_differs(f_rest, f_blink, mouth));
  ExpectTilesMatch(*rig, wide, 200, 240);
}

// The committed PNGs are what tools/make_pngtuber draws today (compared as
// pixels: zlib versions may compress the same pixels to other bytes).
TEST(RigRendererTest, ThePngtuberImagesAreWhatTheToolMakes) {
  const std::string tool = LINGCAST_BINARY_DIR "/src/avatar/make_pngtuber";
  if (!std::filesystem::exists(tool)) GTEST_SKIP() << "make_pngtuber is not built in " << LINGCAST_BINARY_DIR;
  ScratchDir dir;
  ASSERT_EQ(std::system((tool + " " + dir.path() + " > /dev/null").c_str()), 0);
  const std::string committed = LINGCAST_SOURCE_DIR "/examples/avatars/pngtuber/";
  int compared = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    const std::string name = entry.path().filename().string();
    auto made = DecodePngFile(entry.path().string());
    auto kept = DecodePngFile(committed + name);
    ASSERT_OK(made);
    ASSERT_OK(kept) << name << " is made by the tool but not committed: " << kept.status();
    EXPECT_EQ(made->rgba, kept->rgba) << name << " differs: rerun make_pngtuber examples/avatars/pngtuber";
    ++compared;
  }
  EXPECT_EQ(compared, 13);
}

}  // namespace
}  // namespace lingcast
