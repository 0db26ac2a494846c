// The encoder's yuv420p entry (VideoFrame::yuv420: planes converted already)
// and the CUDA converter that fills it (compose/gpu_yuv.h), held to the CPU
// converter's exact bytes. The CUDA tests skip without a CUDA GPU.
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "avatar/cuda_support.h"
#include "core/status_matchers.h"
#include "gtest/gtest.h"
#include "output/rgba_to_yuv.h"
#include "output/test_util.h"
#include "output/video_encoder.h"

#if LINGCAST_HAVE_CUDA_RENDERER
#include "avatar/gpu_canvas.h"
#include "compose/gpu_yuv.h"
#endif

namespace lingcast {
namespace {

using testing_util::CpuPlanes;
using testing_util::MakeNoiseFrame;

std::vector<std::string> EncodePackets(const std::vector<VideoFrame>& frames) {
  VideoEncoderOptions options;
  options.width = frames[0].width;
  options.height = frames[0].height;
  options.preset = "ultrafast";
  options.threads = 1;
  auto encoder = VideoEncoder::Create(options);
  EXPECT_OK(encoder);
  std::vector<std::string> packets;
  if (!encoder.ok()) return packets;
  auto sink = [&](AVPacket& p) {
    packets.emplace_back(reinterpret_cast<const char*>(p.data), static_cast<size_t>(p.size));
    return absl::OkStatus();
  };
  for (size_t i = 0; i < frames.size(); ++i) EXPECT_OK((*encoder)->Encode(frames[i], static_cast<int64_t>(i), sink));
  EXPECT_OK((*encoder)->Flush(sink));
  return packets;
}

TEST(EncoderYuvEntryTest, PlanesGiveTheBytesOfTheRgbaFrame) {
  ScopedLibavLogLevel quiet(AV_LOG_ERROR);
  std::vector<VideoFrame> rgba, planes;
  for (int i = 0; i < 5; ++i) {
    rgba.push_back(MakeNoiseFrame(96, 64, i));
    VideoFrame only_planes;  // no RGBA at all: the encoder must not read it
    only_planes.width = 96;
    only_planes.height = 64;
    only_planes.yuv420 = CpuPlanes(rgba.back());
    planes.push_back(std::move(only_planes));
  }
  const std::vector<std::string> from_rgba = EncodePackets(rgba);
  ASSERT_FALSE(from_rgba.empty());
  EXPECT_EQ(EncodePackets(planes), from_rgba);
}

TEST(EncoderYuvEntryTest, PlanesOfAnotherSizeAreRefused) {
  ScopedLibavLogLevel quiet(AV_LOG_ERROR);
  VideoEncoderOptions options;
  options.width = 96;
  options.height = 64;
  options.preset = "ultrafast";
  options.threads = 1;
  auto encoder = VideoEncoder::Create(options);
  ASSERT_OK(encoder);
  VideoFrame frame = MakeNoiseFrame(96, 64, 0);
  frame.yuv420 = CpuPlanes(MakeNoiseFrame(64, 48, 0));
  int packets = 0;
  const absl::Status status = (*encoder)->Encode(frame, 0, [&](AVPacket&) {
    ++packets;
    return absl::OkStatus();
  });
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
  EXPECT_NE(status.message().find("carries a 64x48 yuv420p picture"), std::string::npos) << status;
  EXPECT_EQ((*encoder)->frames_encoded(), 0);
  EXPECT_EQ(packets, 0);
}

#if LINGCAST_HAVE_CUDA_RENDERER

#define SKIP_WITHOUT_GPU()                                           \
  if (const absl::Status usable = CudaDeviceUsable(); !usable.ok()) { \
    GTEST_SKIP() << usable.message();                                \
  }

// Random premultiplied pixels (every value of every channel shows up).
VideoFrame RandomFrame(int width, int height, uint32_t seed) {
  std::mt19937 rng(seed);
  VideoFrame frame;
  frame.Allocate(width, height);
  for (size_t i = 0; i < frame.rgba.size(); i += 4) {
    const uint32_t bits = rng();
    frame.rgba[i + 3] = static_cast<uint8_t>(bits >> 24);
    for (int c = 0; c < 3; ++c) frame.rgba[i + c] = static_cast<uint8_t>(((bits >> (8 * c)) & 0xFF) % (frame.rgba[i + 3] + 1u));
  }
  return frame;
}

void ExpectGpuPlanesEqualCpu(int width, int height, uint32_t seed) {
  const VideoFrame frame = RandomFrame(width, height, seed);
  absl::StatusOr<CudaStream> stream = CudaStream::Create();
  ASSERT_OK(stream);
  absl::StatusOr<DeviceFrame> device = DeviceFrame::Allocate(width, height);
  ASSERT_OK(device);
  ASSERT_OK(device->Upload(frame, stream->get()));
  absl::StatusOr<std::unique_ptr<GpuYuvConverter>> converter = GpuYuvConverter::Create(width, height);
  ASSERT_OK(converter);
  absl::StatusOr<std::shared_ptr<const Yuv420Picture>> gpu = (*converter)->Enqueue(*device, stream->get());
  ASSERT_OK(gpu);
  ASSERT_OK(stream->Synchronize());
  const std::shared_ptr<const Yuv420Picture> cpu = CpuPlanes(frame);
  auto plane_equal = [](const uint8_t* a, int a_stride, const uint8_t* b, int b_stride, int w, int h) {
    for (int y = 0; y < h; ++y) {
      for (int x = 0; x < w; ++x) {
        if (a[static_cast<size_t>(y) * a_stride + x] != b[static_cast<size_t>(y) * b_stride + x]) {
          ADD_FAILURE() << "first difference at (" << x << ", " << y << ")";
          return false;
        }
      }
    }
    return true;
  };
  EXPECT_TRUE(plane_equal((*gpu)->y, (*gpu)->y_stride, cpu->y, cpu->y_stride, width, height)) << "Y";
  EXPECT_TRUE(plane_equal((*gpu)->u, (*gpu)->u_stride, cpu->u, cpu->u_stride, width / 2, height / 2)) << "Cb";
  EXPECT_TRUE(plane_equal((*gpu)->v, (*gpu)->v_stride, cpu->v, cpu->v_stride, width / 2, height / 2)) << "Cr";
}

TEST(GpuYuvTest, PlanesAreBitIdenticalToTheCpuConverter) {
  SKIP_WITHOUT_GPU();
  ExpectGpuPlanesEqualCpu(64, 48, 1);
  ExpectGpuPlanesEqualCpu(1922, 1082, 2);  // not a multiple of the kernel's block
  ExpectGpuPlanesEqualCpu(3840, 2160, 3);
}

TEST(GpuYuvTest, PicturesInFlightHaveTheirOwnBuffers) {
  SKIP_WITHOUT_GPU();
  absl::StatusOr<CudaStream> stream = CudaStream::Create();
  ASSERT_OK(stream);
  absl::StatusOr<DeviceFrame> device = DeviceFrame::Allocate(64, 32);
  ASSERT_OK(device);
  absl::StatusOr<std::unique_ptr<GpuYuvConverter>> converter = GpuYuvConverter::Create(64, 32);
  ASSERT_OK(converter);
  ASSERT_OK(device->Upload(RandomFrame(64, 32, 7), stream->get()));
  auto first = (*converter)->Enqueue(*device, stream->get());
  ASSERT_OK(first);
  auto second = (*converter)->Enqueue(*device, stream->get());
  ASSERT_OK(second);
  EXPECT_NE((*first)->y, (*second)->y);
  EXPECT_EQ((*converter)->buffers_allocated(), 2);
  ASSERT_OK(stream->Synchronize());
  first->reset();  // its buffer goes back to the pool and is used again
  auto third = (*converter)->Enqueue(*device, stream->get());
  ASSERT_OK(third);
  ASSERT_OK(stream->Synchronize());
  EXPECT_EQ((*converter)->buffers_allocated(), 2);
}

TEST(GpuYuvTest, OddSizesAndOtherFramesAreRefused) {
  SKIP_WITHOUT_GPU();
  EXPECT_EQ(GpuYuvConverter::Create(65, 48).status().code(), absl::StatusCode::kInvalidArgument);
  absl::StatusOr<std::unique_ptr<GpuYuvConverter>> converter = GpuYuvConverter::Create(64, 48);
  ASSERT_OK(converter);
  absl::StatusOr<CudaStream> stream = CudaStream::Create();
  ASSERT_OK(stream);
  absl::StatusOr<DeviceFrame> device = DeviceFrame::Allocate(32, 32);
  ASSERT_OK(device);
  const absl::Status status = (*converter)->Enqueue(*device, stream->get()).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ((*converter)->buffers_allocated(), 0);
}

#endif  // LINGCAST_HAVE_CUDA_RENDERER

}  // namespace
}  // namespace lingcast
