// Writes PNG contact sheets of the built-in avatar: every mouth shape A-H, X
// and a blink, so a person can look at them.
//   avatar_preview OUT.png [cell_width cell_height [faces]]
// With "faces", each cell shows a close-up of the face (rendered 2.5x larger).
#include <cstdio>
#include <cstdlib>
#include <string>

#include "avatar/animator.h"
#include "avatar/avatar_renderer.h"
#include "avatar/canvas.h"
#include "avatar/tools/png_writer.h"

int main(int argc, char** argv) {
  using namespace lingcast;
  if (argc < 2) {
    std::fprintf(stderr, "usage: avatar_preview OUT.png [cell_width cell_height]\n");
    return 2;
  }
  const int cw = argc > 3 ? std::atoi(argv[2]) : 300;
  const int ch = argc > 3 ? std::atoi(argv[3]) : 390;
  if (cw <= 0 || ch <= 0 || cw > 4000 || ch > 4000) {
    std::fprintf(stderr, "avatar_preview: cell size must be 1..4000 pixels, got %dx%d\n", cw, ch);
    return 2;
  }
  const Viseme shapes[] = {Viseme::kX, Viseme::kA, Viseme::kB, Viseme::kC, Viseme::kD,
                           Viseme::kE, Viseme::kF, Viseme::kG, Viseme::kH};
  const int cols = 5, rows = 2;
  VideoFrame sheet;
  sheet.Allocate(cw * cols, ch * rows);
  Canvas bg(sheet);
  bg.Fill(Path().AddPolygon({{0, 0}, {static_cast<float>(sheet.width), 0},
                             {static_cast<float>(sheet.width), static_cast<float>(sheet.height)},
                             {0, static_cast<float>(sheet.height)}}),
          Paint::Linear({0, 0}, {0, static_cast<float>(sheet.height)},
                        {{0, Color::Hex(0xDCE6F0)}, {1, Color::Hex(0xAFC3D6)}}));
  AvatarRenderer renderer;
  for (int i = 0; i < 10; ++i) {
    AvatarState state;
    if (i < 9) {
      state.mouth = MouthParamsOf(shapes[i]);
    } else {
      state.eye_open = 0;  // the last cell blinks
    }
    const Rect cell{(i % cols) * cw, (i / cols) * ch, cw, ch};
    if (argc > 4 && std::string(argv[4]) == "faces") {
      // Render big on a copy of the cell's background, then copy the face out.
      const int bw = cw * 5 / 2, bh = ch * 5 / 2;
      VideoFrame big;
      big.Allocate(bw, bh);
      for (int y = 0; y < bh; ++y) {
        for (int x = 0; x < bw; ++x) {
          for (int k = 0; k < 4; ++k) big.Row(y)[x * 4 + k] = sheet.Row(cell.y + y * ch / bh)[(cell.x + x * cw / bw) * 4 + k];
        }
      }
      renderer.Render(state, big, Rect{0, 0, bw, bh});
      const Rect face = AvatarRenderer::EyesRegion(Rect{0, 0, bw, bh});
      const int ox = face.x + face.width / 2 - cw / 2, oy = face.y - ch / 6;
      for (int y = 0; y < ch; ++y) {
        for (int x = 0; x < cw; ++x) {
          for (int k = 0; k < 4; ++k) sheet.Row(cell.y + y)[(cell.x + x) * 4 + k] = big.Row(oy + y)[(ox + x) * 4 + k];
        }
      }
    } else {
      renderer.Render(state, sheet, cell);
    }
  }
  if (absl::Status st = WritePng(sheet, argv[1]); !st.ok()) {
    std::fprintf(stderr, "avatar_preview: %s\n", std::string(st.message()).c_str());
    return 1;
  }
  std::printf("wrote %s (X A B C D / E F G H blink)\n", argv[1]);
  return 0;
}
