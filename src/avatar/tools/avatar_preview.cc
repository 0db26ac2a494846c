// Writes PNG contact sheets of the built-in avatar: every mouth shape A-H, X
// and a blink, so a person can look at them.
//   avatar_preview OUT.png [cell_width cell_height]
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
    renderer.Render(state, sheet, cell);
  }
  if (absl::Status st = WritePng(sheet, argv[1]); !st.ok()) {
    std::fprintf(stderr, "avatar_preview: %s\n", std::string(st.message()).c_str());
    return 1;
  }
  std::printf("wrote %s (X A B C D / E F G H blink)\n", argv[1]);
  return 0;
}
