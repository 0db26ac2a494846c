#include "avatar/golden_image.h"

#include <png.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"

namespace lingcast::golden {
namespace {

using File = std::unique_ptr<FILE, int (*)(FILE*)>;

File Open(const std::string& path, const char* mode) { return File(std::fopen(path.c_str(), mode), &std::fclose); }

}  // namespace

bool UpdatingGoldens() {
  const char* v = std::getenv("LINGCAST_UPDATE_GOLDEN");
  return v != nullptr && std::strcmp(v, "1") == 0;
}

absl::Status WritePng(const VideoFrame& frame, const std::string& path) {
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  File file = Open(path, "wb");
  if (!file) return absl::UnavailableError(absl::StrCat("cannot write ", path, ": ", std::strerror(errno)));
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  if (info == nullptr) {
    png_destroy_write_struct(&png, nullptr);
    return absl::ResourceExhaustedError("libpng could not start a writer");
  }
  // libpng reports errors by longjmp: nothing with a destructor lives between
  // here and the end of the writing below.
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    return absl::DataLossError(absl::StrCat("libpng failed writing ", path));
  }
  png_init_io(png, file.get());
  png_set_IHDR(png, info, frame.width, frame.height, 8, PNG_COLOR_TYPE_RGBA, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  for (int y = 0; y < frame.height; ++y) png_write_row(png, frame.Row(y));
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  return absl::OkStatus();
}

absl::StatusOr<VideoFrame> ReadPng(const std::string& path) {
  File file = Open(path, "rb");
  if (!file) {
    return absl::NotFoundError(absl::StrCat("cannot open golden image ", path, " (", std::strerror(errno),
                                            "); run the test with LINGCAST_UPDATE_GOLDEN=1 to create it"));
  }
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png ? png_create_info_struct(png) : nullptr;
  if (info == nullptr) {
    png_destroy_read_struct(&png, nullptr, nullptr);
    return absl::ResourceExhaustedError("libpng could not start a reader");
  }
  VideoFrame frame;
  // The frame is declared before setjmp, so a longjmp leaves it valid (and freed on return).
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_read_struct(&png, &info, nullptr);
    return absl::DataLossError(absl::StrCat(path, " is not a readable PNG"));
  }
  png_init_io(png, file.get());
  png_read_info(png, info);
  if (png_get_bit_depth(png, info) != 8 || png_get_color_type(png, info) != PNG_COLOR_TYPE_RGBA) {
    png_destroy_read_struct(&png, &info, nullptr);
    return absl::InvalidArgumentError(absl::StrCat(path, " is not an 8-bit RGBA PNG"));
  }
  frame.Allocate(static_cast<int>(png_get_image_width(png, info)), static_cast<int>(png_get_image_height(png, info)));
  for (int y = 0; y < frame.height; ++y) png_read_row(png, frame.Row(y), nullptr);
  png_read_end(png, nullptr);
  png_destroy_read_struct(&png, &info, nullptr);
  return frame;
}

absl::Status CompareWithGolden(const VideoFrame& frame, const std::string& golden_path, const Tolerance& tolerance,
                               const std::string& diff_dir) {
  if (UpdatingGoldens()) return WritePng(frame, golden_path);
  absl::StatusOr<VideoFrame> golden = ReadPng(golden_path);
  if (!golden.ok()) return golden.status();
  if (golden->width != frame.width || golden->height != frame.height) {
    return absl::FailedPreconditionError(absl::StrCat(golden_path, " is ", golden->width, "x", golden->height,
                                                      ", the frame is ", frame.width, "x", frame.height));
  }
  int64_t outliers = 0;
  int worst = 0, worst_x = 0, worst_y = 0;
  for (int y = 0; y < frame.height; ++y) {
    const uint8_t* a = frame.Row(y);
    const uint8_t* b = golden->Row(y);
    for (int x = 0; x < frame.width; ++x) {
      int diff = 0;
      for (int c = 0; c < 4; ++c) diff = std::max(diff, std::abs(a[x * 4 + c] - b[x * 4 + c]));
      if (diff > tolerance.max_channel_diff) ++outliers;
      if (diff > worst) worst = diff, worst_x = x, worst_y = y;
    }
  }
  const int64_t allowed =
      static_cast<int64_t>(tolerance.max_outlier_fraction * static_cast<double>(frame.width) * frame.height);
  if (outliers <= allowed) return absl::OkStatus();
  const std::string actual =
      (std::filesystem::path(diff_dir) / std::filesystem::path(golden_path).filename()).string();
  const absl::Status written = WritePng(frame, actual);
  return absl::FailedPreconditionError(absl::StrCat(
      golden_path, ": ", outliers, " pixels differ by more than ", tolerance.max_channel_diff, " (", allowed,
      " allowed); largest difference ", worst, " at (", worst_x, ", ", worst_y, "); the frame ",
      written.ok() ? "is in " + actual : "could not be written: " + std::string(written.message()),
      "; if the change is intended, rerun with LINGCAST_UPDATE_GOLDEN=1"));
}

}  // namespace lingcast::golden
