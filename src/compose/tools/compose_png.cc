// Writes one composed frame as a PNG, to look at the layout:
//   compose_png OUT.png [WIDTH HEIGHT] [PRIMARY] [SECONDARY] [X Y W H [ZOOM]]
// The optional rectangle crops the frame (and ZOOM enlarges it, nearest pixel)
// to inspect glyph edges closely.
// The avatar is the built-in one at rest (src/avatar).
#include <png.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "avatar/avatar_renderer.h"
#include "compose/compositor.h"

namespace {

bool WritePng(const std::string& path, const lingcast::VideoFrame& frame) {
  std::unique_ptr<FILE, int (*)(FILE*)> file(std::fopen(path.c_str(), "wb"), &std::fclose);
  if (!file) return false;
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png_create_info_struct(png);
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    return false;
  }
  png_init_io(png, file.get());
  png_set_IHDR(png, info, frame.width, frame.height, 8, PNG_COLOR_TYPE_RGBA, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  for (int y = 0; y < frame.height; ++y) png_write_row(png, frame.Row(y));  // opaque: premultiplied == straight
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace lingcast;
  using namespace lingcast::compose;
  if (argc < 2) {
    std::fprintf(stderr, "usage: compose_png OUT.png [WIDTH HEIGHT] [PRIMARY] [SECONDARY] [X Y W H [ZOOM]]\n");
    return 2;
  }
  CompositorOptions options;
  if (argc >= 4) {
    options.width = std::atoi(argv[2]);
    options.height = std::atoi(argv[3]);
  }
  SubtitleCue cue;
  cue.start = MediaTime::Zero();
  cue.end = MediaTime::Seconds(3);
  cue.primary = {argc >= 5 ? argv[4] : "大家好，欢迎来到直播间！今天给大家介绍一款新产品。", Language::kZh};
  cue.secondary = {argc >= 6 ? argv[5] : "Hello everyone, welcome to the live stream! Today we have a new product for you.",
                   Language::kEn};

  auto compositor = Compositor::Create(options);
  if (!compositor.ok()) {
    std::fprintf(stderr, "compose_png: %s\n", std::string(compositor.status().message()).c_str());
    return 2;
  }
  lingcast::AvatarRenderer avatar;
  const lingcast::AvatarState state;
  (*compositor)->SetAvatarRenderer([&](VideoFrame& frame, const Rect& area, const Rect& clip) {
    avatar.Render(state, frame, area, clip);
  });
  VideoFrame frame;
  if (auto status = (*compositor)->Compose(MediaTime::Seconds(1), &cue, frame); !status.ok()) {
    std::fprintf(stderr, "compose_png: %s\n", std::string(status.message()).c_str());
    return 1;
  }
  if (argc >= 10) {
    const Rect crop{std::atoi(argv[6]), std::atoi(argv[7]), std::atoi(argv[8]), std::atoi(argv[9])};
    const int zoom = argc >= 11 ? std::max(1, std::atoi(argv[10])) : 1;
    if (crop.x < 0 || crop.y < 0 || crop.empty() || crop.right() > frame.width || crop.bottom() > frame.height) {
      std::fprintf(stderr, "compose_png: crop rectangle is outside the %dx%d frame\n", frame.width, frame.height);
      return 2;
    }
    VideoFrame cropped;
    cropped.Allocate(crop.width * zoom, crop.height * zoom);
    for (int y = 0; y < cropped.height; ++y) {
      for (int x = 0; x < cropped.width; ++x) {
        std::memcpy(cropped.Row(y) + x * 4, frame.Row(crop.y + y / zoom) + (crop.x + x / zoom) * 4, 4);
      }
    }
    frame = std::move(cropped);
  }
  if (!WritePng(argv[1], frame)) {
    std::fprintf(stderr, "compose_png: cannot write %s\n", argv[1]);
    return 1;
  }
  std::printf("wrote %s (%dx%d)\n", argv[1], frame.width, frame.height);
  return 0;
}
