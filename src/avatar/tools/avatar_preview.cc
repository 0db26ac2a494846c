// Writes PNG contact sheets of the built-in avatar so a person can look at it.
//   avatar_preview OUT.png [cell_width cell_height [faces]] [--rig RIG.json]
//       every mouth shape X A B C D / E F G H and a blink / the expressions
//       neutral, smile, surprised, thinking and a nod; "faces": close-ups
//   avatar_preview OUT.png --phonemes FILE [fps]
//       close-ups of consecutive video frames of an utterance; FILE has one
//       phoneme per line: start_ms duration_ms ipa (as the TTS reports them)
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "avatar/animator.h"
#include "avatar/avatar_renderer.h"
#include "avatar/canvas.h"
#include "avatar/png_image.h"
#include "avatar/rig.h"
#include "lipsync/phonemes_to_visemes.h"

namespace lingcast {
namespace {

void FillBackground(VideoFrame& sheet) {
  const float w = static_cast<float>(sheet.width), h = static_cast<float>(sheet.height);
  Canvas(sheet).Fill(Path().AddPolygon({{0, 0}, {w, 0}, {w, h}, {0, h}}),
                     Paint::Linear({0, 0}, {0, h}, {{0, Color::Hex(0xDCE6F0)}, {1, Color::Hex(0xAFC3D6)}}));
}

// Renders the avatar 2.5x larger than `cell` and copies the face into it.
void RenderFace(AvatarRenderer& renderer, const AvatarState& state, VideoFrame& sheet, const Rect& cell) {
  const int bw = cell.width * 5 / 2, bh = cell.height * 5 / 2;
  VideoFrame big;
  big.Allocate(bw, bh);
  for (int y = 0; y < bh; ++y) {
    for (int x = 0; x < bw; ++x) {
      const uint8_t* src = sheet.Row(cell.y + y * cell.height / bh) + (cell.x + x * cell.width / bw) * 4;
      for (int k = 0; k < 4; ++k) big.Row(y)[x * 4 + k] = src[k];
    }
  }
  renderer.Render(state, big, Rect{0, 0, bw, bh});
  Rect eyes = renderer.RegionOf(Rect{0, 0, bw, bh}, "eyes");
  if (eyes.empty()) eyes = Rect{bw / 2, bh / 3, 0, 0};
  const int ox = eyes.x + eyes.width / 2 - cell.width / 2, oy = eyes.y - cell.height / 6;
  for (int y = 0; y < cell.height; ++y) {
    for (int x = 0; x < cell.width; ++x) {
      for (int k = 0; k < 4; ++k) sheet.Row(cell.y + y)[(cell.x + x) * 4 + k] = big.Row(oy + y)[(ox + x) * 4 + k];
    }
  }
}

int Phonemes(const char* out, const char* file, int fps, std::shared_ptr<const rig::Rig> rig) {
  std::ifstream in(file);
  if (!in) {
    std::fprintf(stderr, "avatar_preview: cannot read phoneme file %s\n", file);
    return 2;
  }
  PhonemeTrack track;
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    std::istringstream fields(line);
    int start = 0, duration = 0;
    std::string ipa;
    if (!(fields >> start >> duration)) {
      std::fprintf(stderr, "avatar_preview: %s:%d: expected 'start_ms duration_ms ipa'\n", file, line_no);
      return 2;
    }
    fields >> ipa;  // may be empty: a pause or marker
    track.phonemes.push_back({ipa, MediaTime::Millis(start), MediaTime::Millis(duration)});
  }
  const VisemeTrack visemes = PhonemesToVisemes(track);
  for (const VisemeCue& c : visemes.cues) {
    std::printf("%7.3f %7.3f %c\n", c.start.seconds(), c.end.seconds(), VisemeLetter(c.shape));
  }
  const Animator animator(visemes);
  const int cols = 8, rows = 4, cw = 180, ch = 150;
  VideoFrame sheet;
  sheet.Allocate(cols * cw, rows * ch);
  FillBackground(sheet);
  AvatarRenderer renderer(std::move(rig));
  const int64_t first = visemes.cues.empty() ? 0 : visemes.cues.front().start.micros() * fps / 1'000'000;
  for (int i = 0; i < cols * rows; ++i) {
    const MediaTime t = MediaTime::FromFrameIndex(first + i, fps);
    RenderFace(renderer, animator.StateAt(t), sheet, Rect{(i % cols) * cw, (i / cols) * ch, cw, ch});
  }
  if (absl::Status st = EncodePngFile(sheet, out); !st.ok()) {
    std::fprintf(stderr, "avatar_preview: %s\n", std::string(st.message()).c_str());
    return 1;
  }
  std::printf("wrote %s (%d frames from frame %lld at %d fps)\n", out, cols * rows, static_cast<long long>(first), fps);
  return 0;
}

int Shapes(int argc, char** argv, std::shared_ptr<const rig::Rig> rig) {
  const int cw = argc > 3 ? std::atoi(argv[2]) : 300;
  const int ch = argc > 3 ? std::atoi(argv[3]) : 390;
  if (cw <= 0 || ch <= 0 || cw > 4000 || ch > 4000) {
    std::fprintf(stderr, "avatar_preview: cell size must be 1..4000 pixels, got %dx%d\n", cw, ch);
    return 2;
  }
  const bool faces = argc > 4 && std::string(argv[4]) == "faces";
  const Viseme shapes[] = {Viseme::kX, Viseme::kA, Viseme::kB, Viseme::kC, Viseme::kD,
                           Viseme::kE, Viseme::kF, Viseme::kG, Viseme::kH};
  const int cols = 5, rows = 3;
  VideoFrame sheet;
  sheet.Allocate(cw * cols, ch * rows);
  FillBackground(sheet);
  AvatarRenderer renderer(std::move(rig));
  for (int i = 0; i < cols * rows; ++i) {
    AvatarState state;
    if (i < 9) {
      state.mouth = MouthParamsOf(shapes[i]);
    } else if (i == 9) {
      state.eye_open = 0;  // a blink
    } else if (i < 14) {
      state.expression = ExpressionWeights::Of(static_cast<Expression>(i - 10));
    } else {
      state.head_pitch = 0.07f;  // the bottom of a nod
    }
    const Rect cell{(i % cols) * cw, (i / cols) * ch, cw, ch};
    if (faces) {
      RenderFace(renderer, state, sheet, cell);
    } else {
      renderer.Render(state, sheet, cell);
    }
  }
  if (absl::Status st = EncodePngFile(sheet, argv[1]); !st.ok()) {
    std::fprintf(stderr, "avatar_preview: %s\n", std::string(st.message()).c_str());
    return 1;
  }
  std::printf("wrote %s (X A B C D / E F G H blink / neutral smile surprised thinking nod)\n", argv[1]);
  return 0;
}

}  // namespace
}  // namespace lingcast

int main(int argc, char** argv) {
  // --rig RIG.json (anywhere): preview that rig instead of the built-in presenter.
  std::shared_ptr<const lingcast::rig::Rig> rig = lingcast::rig::BuiltInPresenter();
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::string(argv[i]) != "--rig") continue;
    auto loaded = lingcast::rig::LoadRig(argv[i + 1]);
    if (!loaded.ok()) {
      std::fprintf(stderr, "avatar_preview: %s\n", std::string(loaded.status().message()).c_str());
      return 2;
    }
    rig = *loaded;
    for (int k = i; k + 2 < argc; ++k) argv[k] = argv[k + 2];
    argc -= 2;
    break;
  }
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: avatar_preview OUT.png [cell_width cell_height [faces]] [--rig RIG.json]\n"
                 "       avatar_preview OUT.png --phonemes FILE [fps] [--rig RIG.json]\n");
    return 2;
  }
  if (argc >= 4 && std::string(argv[2]) == "--phonemes") {
    const int fps = argc > 4 ? std::atoi(argv[4]) : 30;
    if (fps < 1 || fps > 240) {
      std::fprintf(stderr, "avatar_preview: fps must be 1..240, got %s\n", argv[4]);
      return 2;
    }
    return lingcast::Phonemes(argv[1], argv[3], fps, rig);
  }
  return lingcast::Shapes(argc, argv, rig);
}
