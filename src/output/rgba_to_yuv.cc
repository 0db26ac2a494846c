#include "output/rgba_to_yuv.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "media/bt709.h"

namespace lingcast {
namespace {

// The coefficients, shared with the CUDA converter (media/bt709.h). The loops
// below spell the arithmetic out rather than call bt709::Luma() so that GCC's
// vectoriser sees plain 16-bit lanes; the parity test holds both to the same bytes.
using bt709::kCOffset;
using bt709::kShift;
using bt709::kUB;
using bt709::kUG;
using bt709::kUR;
using bt709::kVB;
using bt709::kVG;
using bt709::kVR;
using bt709::kYB8;
using bt709::kYG8;
using bt709::kYOffset8;
using bt709::kYR8;

// Two source rows -> two luma rows and one chroma row. Kept free of aliasing
// doubts (__restrict) and branches so GCC vectorises both loops.
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
__attribute__((target_clones("avx2", "default")))
#endif
void ConvertRowPair(const uint8_t* __restrict row0, const uint8_t* __restrict row1, int width,
                    uint8_t* __restrict y0, uint8_t* __restrict y1, uint8_t* __restrict u, uint8_t* __restrict v) {
  // Luma in 16-bit lanes (twice the pixels per vector of 32-bit math) with
  // 8-bit coefficients: within one code value of the exact result.
  for (int x = 0; x < width; ++x) {
    y0[x] = static_cast<uint8_t>(
        static_cast<uint16_t>(kYR8 * row0[4 * x] + kYG8 * row0[4 * x + 1] + kYB8 * row0[4 * x + 2] + kYOffset8) >> 8);
    y1[x] = static_cast<uint8_t>(
        static_cast<uint16_t>(kYR8 * row1[4 * x] + kYG8 * row1[4 * x + 1] + kYB8 * row1[4 * x + 2] + kYOffset8) >> 8);
  }
  for (int cx = 0; cx < width / 2; ++cx) {
    const int i = 8 * cx;
    const int r = row0[i] + row0[i + 4] + row1[i] + row1[i + 4];
    const int g = row0[i + 1] + row0[i + 5] + row1[i + 1] + row1[i + 5];
    const int b = row0[i + 2] + row0[i + 6] + row1[i + 2] + row1[i + 6];
    u[cx] = static_cast<uint8_t>((kUR * r + kUG * g + kUB * b + kCOffset) >> (kShift + 2));
    v[cx] = static_cast<uint8_t>((kVR * r + kVG * g + kVB * b + kCOffset) >> (kShift + 2));
  }
}

void ConvertRows(const uint8_t* rgba, int rgba_stride, int width, int first_row, int end_row,
                 const Yuv420Planes& out) {
  for (int y = first_row; y + 1 < end_row; y += 2) {
    const uint8_t* row0 = rgba + static_cast<std::ptrdiff_t>(y) * rgba_stride;
    ConvertRowPair(row0, row0 + rgba_stride, width, out.y + static_cast<std::ptrdiff_t>(y) * out.y_stride,
                   out.y + static_cast<std::ptrdiff_t>(y + 1) * out.y_stride,
                   out.u + static_cast<std::ptrdiff_t>(y / 2) * out.u_stride,
                   out.v + static_cast<std::ptrdiff_t>(y / 2) * out.v_stride);
  }
}

}  // namespace

void RgbaToYuv420Bt709(const uint8_t* rgba, int rgba_stride, int width, int height, const Yuv420Planes& out) {
  ConvertRows(rgba, rgba_stride, width, 0, height, out);
}

namespace {

// Band `band` of `bands` starts on an even row, so each band writes its own chroma rows.
int BandStart(int row_pairs, int band, int bands) {
  return 2 * static_cast<int>(static_cast<int64_t>(row_pairs) * band / bands);
}

}  // namespace

RowBandConverter::RowBandConverter(int bands) : bands_(std::max(1, bands)) {
  helpers_.reserve(static_cast<size_t>(bands_ - 1));
  for (int band = 1; band < bands_; ++band) helpers_.emplace_back([this, band] { HelperLoop(band); });
}

RowBandConverter::~RowBandConverter() {
  {
    MutexLock lock(&mu_);
    stopping_ = true;
  }
  for (std::thread& helper : helpers_) helper.join();
}

void RowBandConverter::HelperLoop(int band) {
  int64_t seen = 0;
  while (true) {
    Job job;
    {
      MutexLock lock(&mu_);
      const auto woken = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stopping_ || generation_ != seen; };
      mu_.Await(woken);
      if (stopping_) return;
      seen = generation_;
      job = job_;
    }
    if (band < job.bands) {
      const int row_pairs = job.height / 2;
      ConvertRows(job.rgba, job.rgba_stride, job.width, BandStart(row_pairs, band, job.bands),
                  BandStart(row_pairs, band + 1, job.bands), job.out);
    }
    MutexLock lock(&mu_);
    --unfinished_;
  }
}

void RowBandConverter::Convert(const uint8_t* rgba, int rgba_stride, int width, int height,
                               const Yuv420Planes& out) {
  const int row_pairs = height / 2;
  const int bands = std::clamp(bands_, 1, std::max(1, row_pairs));
  if (bands_ == 1) {
    ConvertRows(rgba, rgba_stride, width, 0, height, out);
    return;
  }
  {
    MutexLock lock(&mu_);
    job_ = Job{rgba, rgba_stride, width, height, out, bands};
    unfinished_ = bands_ - 1;  // every helper wakes and reports, with a band or without
    ++generation_;
  }
  ConvertRows(rgba, rgba_stride, width, 0, BandStart(row_pairs, 1, bands), out);
  MutexLock lock(&mu_);
  const auto done = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return unfinished_ == 0; };
  mu_.Await(done);
}

int ConversionThreadsFor(int width, int height, int cores) {
  constexpr int64_t kFullHd = 1920 * 1080;
  const int64_t pixels = static_cast<int64_t>(width) * height;
  if (pixels < kFullHd || cores < 4) return 1;
  return static_cast<int>(std::clamp<int64_t>(pixels / kFullHd, 1, cores / 2));
}

}  // namespace lingcast
