// Draws the layer images of the PNGtuber example rig (examples/avatars/pngtuber/)
// with our own Canvas and writes them as PNGs with libpng:
//   make_pngtuber OUT_DIR
// The committed PNGs were made by this tool; rerun it after changing the art.
// Each image is cropped to its part (body, head, eyes open/closed, one mouth per
// shape A-H and X); pngtuber.json places them on a 400x480 canvas.
#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>

#include "avatar/canvas.h"
#include "avatar/png_image.h"

namespace lingcast {
namespace {

const Color kFur = Color::Hex(0xF2A65A);
const Color kFurDark = Color::Hex(0xC9773A);
const Color kCream = Color::Hex(0xFFF1DC);
const Color kInk = Color::Hex(0x3A2418);
const Color kHoodie = Color::Hex(0x4C8C6A);
const Color kHoodieDark = Color::Hex(0x2F6249);
const Color kMouth = Color::Hex(0x5A1E24);
const Color kTongue = Color::Hex(0xE47C86);
const Color kTeeth = Color::Hex(0xFFFFFF);

// Draws `art` (in image pixels) into a transparent width x height image and writes it.
bool Write(const std::string& dir, const std::string& name, int width, int height,
           const std::function<void(Canvas&)>& art) {
  VideoFrame image;
  image.Allocate(width, height);
  Canvas canvas(image);
  art(canvas);
  const std::string path = (std::filesystem::path(dir) / name).string();
  if (absl::Status st = EncodePngFile(image, path); !st.ok()) {
    std::fprintf(stderr, "make_pngtuber: %s\n", std::string(st.message()).c_str());
    return false;
  }
  std::printf("wrote %s (%dx%d)\n", path.c_str(), width, height);
  return true;
}

// A mouth in a 100x70 image: an outline of `top` above and `bottom` below the
// centre line, `half_width` wide, with optional teeth and tongue.
void Mouth(Canvas& c, float half_width, float top, float bottom, bool teeth, bool tongue_up, float roundness) {
  const float cx = 50, cy = 30;
  if (top + bottom < 2) {  // closed: a line
    c.Stroke(Path().MoveTo({cx - half_width, cy - 2}).QuadTo({cx, cy + 6}, {cx + half_width, cy - 2}), 5,
             Paint::Solid(kInk));
    return;
  }
  const float k = 0.55f + 0.4f * roundness;
  Path opening;
  opening.MoveTo({cx - half_width, cy})
      .CubicTo({cx - half_width, cy - top * k}, {cx - half_width * k, cy - top}, {cx, cy - top})
      .CubicTo({cx + half_width * k, cy - top}, {cx + half_width, cy - top * k}, {cx + half_width, cy})
      .CubicTo({cx + half_width, cy + bottom * k}, {cx + half_width * k, cy + bottom}, {cx, cy + bottom})
      .CubicTo({cx - half_width * k, cy + bottom}, {cx - half_width, cy + bottom * k}, {cx - half_width, cy})
      .Close();
  c.Fill(opening, Paint::Solid(kMouth));
  c.PushClip(opening);
  if (tongue_up) {
    c.Fill(Path::Ellipse({cx, cy + bottom * 0.2f}, half_width * 0.5f, bottom * 0.8f), Paint::Solid(kTongue));
  } else {
    c.Fill(Path::Ellipse({cx, cy + bottom}, half_width * 0.7f, bottom * 0.6f), Paint::Solid(kTongue));
  }
  if (teeth) c.Fill(Path::RoundedRect(cx - half_width, cy - top - 1, 2 * half_width, top * 0.45f + 1, 2),
                    Paint::Solid(kTeeth));
  c.PopClip();
  c.Stroke(opening, 4, Paint::Solid(kInk));
}

int Run(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  bool ok = true;
  ok &= Write(dir, "body.png", 400, 200, [](Canvas& c) {
    Path hoodie;
    hoodie.MoveTo({20, 200}).CubicTo({20, 90}, {90, 30}, {200, 30}).CubicTo({310, 30}, {380, 90}, {380, 200}).Close();
    c.Fill(hoodie, Paint::Linear({0, 30}, {0, 200}, {{0, kHoodie}, {1, kHoodieDark}}));
    c.Stroke(hoodie, 5, Paint::Solid(kInk));
    c.Stroke(Path().MoveTo({170, 40}).QuadTo({165, 90}, {160, 120}), 4, Paint::Solid(kCream));
    c.Stroke(Path().MoveTo({230, 40}).QuadTo({235, 90}, {240, 120}), 4, Paint::Solid(kCream));
    c.Fill(Path::Ellipse({160, 124}, 6, 6), Paint::Solid(kCream));
    c.Fill(Path::Ellipse({240, 124}, 6, 6), Paint::Solid(kCream));
  });
  ok &= Write(dir, "head.png", 360, 330, [](Canvas& c) {
    for (float side : {-1.0f, 1.0f}) {  // ears
      const float x = 180 + side * 110;
      Path ear;
      ear.MoveTo({x - side * 60, 120}).LineTo({x + side * 20, 10}).LineTo({x + side * 45, 140}).Close();
      c.Fill(ear, Paint::Solid(kFur));
      c.Stroke(ear, 5, Paint::Solid(kInk));
      Path inner;
      inner.MoveTo({x - side * 30, 110}).LineTo({x + side * 16, 40}).LineTo({x + side * 30, 120}).Close();
      c.Fill(inner, Paint::Solid(Color::Hex(0xF7C4C0)));
    }
    const Path head = Path::Ellipse({180, 190}, 150, 130);
    c.Fill(head, Paint::Radial({160, 160}, {170, 150}, {{0, Color::Hex(0xF8B86E)}, {0.7f, kFur}, {1, kFurDark}}));
    c.Stroke(head, 5, Paint::Solid(kInk));
    c.Fill(Path::Ellipse({180, 250}, 85, 62), Paint::Solid(kCream));  // muzzle
    c.Fill(Path::Ellipse({180, 212}, 13, 9), Paint::Solid(Color::Hex(0xD2555F)));  // nose
    for (float side : {-1.0f, 1.0f}) {  // whiskers
      for (int i = 0; i < 2; ++i) {
        const float y = 238 + 12.0f * static_cast<float>(i);
        c.Stroke(Path().MoveTo({180 + side * 70, y}).LineTo({180 + side * 125, y - 8 + 12.0f * static_cast<float>(i)}),
                 3, Paint::Solid(kInk.WithAlpha(0.7f)));
      }
    }
  });
  ok &= Write(dir, "eyes_open.png", 200, 70, [](Canvas& c) {
    for (float x : {45.0f, 155.0f}) {
      c.Fill(Path::Ellipse({x, 35}, 26, 30), Paint::Solid(Color::Hex(0xFFFFFF)));
      c.Stroke(Path::Ellipse({x, 35}, 26, 30), 4, Paint::Solid(kInk));
      c.Fill(Path::Ellipse({x + 2, 38}, 15, 19), Paint::Solid(Color::Hex(0x2B1A12)));
      c.Fill(Path::Ellipse({x + 8, 29}, 6, 6), Paint::Solid(Color::Hex(0xFFFFFF)));
    }
  });
  ok &= Write(dir, "eyes_closed.png", 200, 70, [](Canvas& c) {
    for (float x : {45.0f, 155.0f}) {
      c.Stroke(Path().MoveTo({x - 26, 32}).QuadTo({x, 56}, {x + 26, 32}), 6, Paint::Solid(kInk));
    }
  });
  struct MouthArt {
    const char* name;
    float half_width, top, bottom;
    bool teeth, tongue_up;
    float roundness;
  };
  const MouthArt mouths[] = {
      {"mouth_X.png", 20, 0, 0, false, false, 0},   {"mouth_A.png", 16, 0, 0, false, false, 0},
      {"mouth_B.png", 28, 6, 7, true, false, 0},    {"mouth_C.png", 30, 12, 18, true, false, 0.1f},
      {"mouth_D.png", 32, 16, 30, true, false, 0.2f}, {"mouth_E.png", 22, 14, 20, false, false, 0.7f},
      {"mouth_F.png", 13, 10, 12, false, false, 1},  {"mouth_G.png", 26, 5, 4, true, false, 0},
      {"mouth_H.png", 26, 12, 18, true, true, 0.2f},
  };
  for (const MouthArt& m : mouths) {
    ok &= Write(dir, m.name, 100, 70,
                [&m](Canvas& c) { Mouth(c, m.half_width, m.top, m.bottom, m.teeth, m.tongue_up, m.roundness); });
  }
  return ok ? 0 : 1;
}

}  // namespace
}  // namespace lingcast

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_pngtuber OUT_DIR\n");
    return 2;
  }
  return lingcast::Run(argv[1]);
}
