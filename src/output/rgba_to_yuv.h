// RGBA8 -> yuv420p with the BT.709 matrix in limited (16..235 / 16..240) range.
//
// Our own converter because it sits on the hot path of every render: at 720p
// libswscale 5.1 (bilinear, BT.709) takes about 3.7 ms a frame on this machine,
// a large share of a 2-core encode budget in which x264 veryfast itself needs
// about 7 ms of CPU a frame; this plain loop, auto-vectorised (AVX2 where the
// CPU has it, chosen at run time), takes about 1.4 ms. Chroma is the mean of each 2x2
// block, so its samples sit at the block centre (AVCHROMA_LOC_CENTER).
#pragma once

#include <cstdint>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "core/sync.h"

namespace lingcast {

struct Yuv420Planes {
  uint8_t* y;
  int y_stride;
  uint8_t* u;  // Cb
  int u_stride;
  uint8_t* v;  // Cr
  int v_stride;
};

// `rgba`: width x height pixels, `rgba_stride` bytes a row, R G B A bytes; the
// alpha byte is ignored (opaque frames; premultiplied pixels come out as if
// over black). Width and height must be even.
void RgbaToYuv420Bt709(const uint8_t* rgba, int rgba_stride, int width, int height, const Yuv420Planes& out);

// The same in bands of rows at once, on a small pool of threads that lives as
// long as its owner (a VideoEncoder): identical output. At 4K a frame takes
// about 10 ms on one core, 60% of a core at 60 fps and most of the encode
// thread's time, so big frames on many cores are cut into bands
// (ConversionThreadsFor). The threads are started once, not per frame.
class RowBandConverter {
 public:
  // `bands` - 1 helper threads; the calling thread converts the first band.
  explicit RowBandConverter(int bands);
  ~RowBandConverter();  // stops and joins the helpers
  RowBandConverter(const RowBandConverter&) = delete;
  RowBandConverter& operator=(const RowBandConverter&) = delete;

  int bands() const { return bands_; }
  // Returns once every band is written. One caller at a time.
  void Convert(const uint8_t* rgba, int rgba_stride, int width, int height, const Yuv420Planes& out);

 private:
  struct Job {
    const uint8_t* rgba = nullptr;
    int rgba_stride = 0;
    int width = 0;
    int height = 0;
    Yuv420Planes out{};
    int bands = 1;  // those this frame is cut into (fewer than bands_ for a frame of few rows)
  };
  void HelperLoop(int band);

  const int bands_;
  Mutex mu_;
  Job job_ ABSL_GUARDED_BY(mu_);
  int64_t generation_ ABSL_GUARDED_BY(mu_) = 0;  // bumped per frame: wakes the helpers
  int unfinished_ ABSL_GUARDED_BY(mu_) = 0;      // helper bands of this frame not yet written
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::thread> helpers_;  // last: started once everything above exists
};

// How many bands the encoder converts a width x height frame in on a machine of
// `cores`: one below 1920x1080 or under 4 cores (the 2-core default machine keeps
// its cores for x264), else a band per 1920x1080 worth of pixels, at most cores / 2.
int ConversionThreadsFor(int width, int height, int cores);

}  // namespace lingcast
