#include "avatar/png_image.h"

#include <png.h>

#include <cstdio>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/atomic_file.h"
#include "core/status.h"

namespace lingcast {
namespace {

// libpng's simplified API keeps its state in a png_image; png_image_free
// releases it on every path out.
struct PngImageFree {
  void operator()(png_image* image) const { png_image_free(image); }
};

constexpr int kMaxSide = 16384;

uint8_t Premultiply(uint8_t c, uint8_t a) {
  const uint32_t t = uint32_t{c} * a + 128;
  return static_cast<uint8_t>((t + (t >> 8)) >> 8);
}

}  // namespace

absl::StatusOr<VideoFrame> DecodePngFile(const std::string& path) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  std::unique_ptr<png_image, PngImageFree> guard(&image);
  if (!png_image_begin_read_from_file(&image, path.c_str())) {
    return absl::InvalidArgumentError(absl::StrCat("cannot read PNG \"", path, "\": ", image.message));
  }
  if (image.width == 0 || image.height == 0 || image.width > kMaxSide || image.height > kMaxSide) {
    return absl::InvalidArgumentError(absl::StrCat("PNG \"", path, "\" is ", image.width, "x", image.height,
                                                   " pixels; images must be 1..", kMaxSide, " on each side"));
  }
  image.format = PNG_FORMAT_RGBA;
  VideoFrame frame;
  frame.Allocate(static_cast<int>(image.width), static_cast<int>(image.height));
  if (!png_image_finish_read(&image, nullptr, frame.rgba.data(), frame.stride, nullptr)) {
    return absl::InvalidArgumentError(absl::StrCat("cannot decode PNG \"", path, "\": ", image.message));
  }
  for (int y = 0; y < frame.height; ++y) {
    uint8_t* p = frame.Row(y);
    for (int x = 0; x < frame.width; ++x, p += 4) {
      p[0] = Premultiply(p[0], p[3]);
      p[1] = Premultiply(p[1], p[3]);
      p[2] = Premultiply(p[2], p[3]);
    }
  }
  return frame;
}

absl::Status EncodePngFile(const VideoFrame& frame, const std::string& path) {
  if (frame.width <= 0 || frame.height <= 0) {
    return absl::InvalidArgumentError(absl::StrCat("cannot write PNG \"", path, "\": the image is empty"));
  }
  std::vector<uint8_t> straight(static_cast<size_t>(frame.width) * frame.height * 4);
  for (int y = 0; y < frame.height; ++y) {
    const uint8_t* src = frame.Row(y);
    uint8_t* dst = &straight[static_cast<size_t>(y) * frame.width * 4];
    for (int x = 0; x < frame.width; ++x, src += 4, dst += 4) {
      const uint32_t a = src[3];
      for (int c = 0; c < 3; ++c) {
        dst[c] = a == 0 ? 0 : static_cast<uint8_t>(std::min<uint32_t>(255, (src[c] * 255u + a / 2) / a));
      }
      dst[3] = src[3];
    }
  }
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  image.width = static_cast<png_uint_32>(frame.width);
  image.height = static_cast<png_uint_32>(frame.height);
  image.format = PNG_FORMAT_RGBA;
  std::unique_ptr<png_image, PngImageFree> guard(&image);
  png_alloc_size_t size = 0;
  if (!png_image_write_to_memory(&image, nullptr, &size, 0, straight.data(), 0, nullptr)) {
    return absl::InternalError(absl::StrCat("cannot encode PNG \"", path, "\": ", image.message));
  }
  std::string bytes(size, '\0');
  if (!png_image_write_to_memory(&image, bytes.data(), &size, 0, straight.data(), 0, nullptr)) {
    return absl::InternalError(absl::StrCat("cannot encode PNG \"", path, "\": ", image.message));
  }
  bytes.resize(size);
  return WriteFileAtomically(path, bytes);
}

}  // namespace lingcast
