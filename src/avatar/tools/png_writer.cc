#include "avatar/tools/png_writer.h"

#include <zlib.h>

#include <cstdio>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"

namespace lingcast {
namespace {

void PutU32(std::vector<uint8_t>& out, uint32_t v) {
  out.push_back(static_cast<uint8_t>(v >> 24));
  out.push_back(static_cast<uint8_t>(v >> 16));
  out.push_back(static_cast<uint8_t>(v >> 8));
  out.push_back(static_cast<uint8_t>(v));
}

void Chunk(std::vector<uint8_t>& out, const char* type, const std::vector<uint8_t>& data) {
  PutU32(out, static_cast<uint32_t>(data.size()));
  const size_t type_at = out.size();
  out.insert(out.end(), type, type + 4);
  out.insert(out.end(), data.begin(), data.end());
  const uLong crc = crc32(0, out.data() + type_at, static_cast<uInt>(4 + data.size()));
  PutU32(out, static_cast<uint32_t>(crc));
}

}  // namespace

absl::Status WritePng(const VideoFrame& frame, const std::string& path) {
  std::vector<uint8_t> raw;
  raw.reserve(static_cast<size_t>(frame.height) * (frame.width * 4 + 1));
  for (int y = 0; y < frame.height; ++y) {
    raw.push_back(0);  // filter: none
    const uint8_t* row = frame.Row(y);
    for (int x = 0; x < frame.width; ++x) {
      const uint8_t* p = row + x * 4;
      const unsigned a = p[3];
      for (int c = 0; c < 3; ++c) raw.push_back(a ? static_cast<uint8_t>((p[c] * 255u + a / 2) / a) : 0);
      raw.push_back(static_cast<uint8_t>(a));
    }
  }
  uLongf packed_size = compressBound(static_cast<uLong>(raw.size()));
  std::vector<uint8_t> packed(packed_size);
  if (compress2(packed.data(), &packed_size, raw.data(), static_cast<uLong>(raw.size()), 6) != Z_OK) {
    return absl::InternalError("zlib failed to compress the PNG image data");
  }
  packed.resize(packed_size);

  std::vector<uint8_t> png = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  std::vector<uint8_t> header;
  PutU32(header, static_cast<uint32_t>(frame.width));
  PutU32(header, static_cast<uint32_t>(frame.height));
  header.insert(header.end(), {8, 6, 0, 0, 0});  // 8-bit RGBA
  Chunk(png, "IHDR", header);
  Chunk(png, "IDAT", packed);
  Chunk(png, "IEND", {});

  std::unique_ptr<FILE, int (*)(FILE*)> file(std::fopen(path.c_str(), "wb"), &std::fclose);
  if (!file) return absl::PermissionDeniedError(absl::StrCat("cannot write PNG file ", path));
  if (std::fwrite(png.data(), 1, png.size(), file.get()) != png.size()) {
    return absl::InternalError(absl::StrCat("short write to PNG file ", path));
  }
  return absl::OkStatus();
}

}  // namespace lingcast
