// --device / --dtype words to a torch device and dtype (device_choice.h). The
// CUDA cases run where libtorch sees a GPU (the GPU machine) and the "no GPU"
// cases where it does not (Debian's CPU libtorch), so each machine checks the
// half that it can.
#include "neural/core/device_choice.h"

#include <torch/cuda.h>

#include "gtest/gtest.h"
#include "neural/core/test_util.h"

namespace lingcast::neural {
namespace {

using testing::ExpectError;

TEST(DeviceChoiceTest, CpuComputesInFloat32) {
  for (EngineKind kind : {EngineKind::kWhisper, EngineKind::kMarian, EngineKind::kVits}) {
    const DeviceChoice choice = ChooseDevice("cpu", "auto", kind);
    EXPECT_EQ(choice.device, torch::Device(torch::kCPU));
    EXPECT_EQ(choice.dtype, torch::kFloat);
    EXPECT_EQ(DescribeDevice(choice), "cpu float32");
  }
  EXPECT_EQ(ChooseDevice("cpu", "fp32", EngineKind::kMarian).dtype, torch::kFloat);
}

TEST(DeviceChoiceTest, AutoTakesTheGpuWhenThereIsOne) {
  const DeviceChoice whisper = ChooseDevice("auto", "auto", EngineKind::kWhisper);
  const DeviceChoice vits = ChooseDevice("auto", "auto", EngineKind::kVits);
  if (torch::cuda::is_available()) {
    EXPECT_EQ(whisper.device, torch::Device(torch::kCUDA, 0));
    EXPECT_EQ(whisper.dtype, torch::kFloat);  // Whisper too (device_choice.h says why)
    EXPECT_EQ(DescribeDevice(whisper), "cuda:0 float32");
    EXPECT_EQ(ChooseDevice("auto", "auto", EngineKind::kMarian).dtype, torch::kHalf);
    EXPECT_EQ(vits.device, torch::Device(torch::kCUDA, 0));
    EXPECT_EQ(vits.dtype, torch::kFloat);  // VITS stays in float32 on a GPU
  } else {
    EXPECT_EQ(whisper.device, torch::Device(torch::kCPU));
    EXPECT_EQ(whisper.dtype, torch::kFloat);
    EXPECT_EQ(vits.device, torch::Device(torch::kCPU));
  }
}

TEST(DeviceChoiceTest, UnknownWordsAreRefusedNamingTheFlag) {
  ExpectError([] { ChooseDevice("tpu", "auto", EngineKind::kMarian); }, ErrorCode::kInvalidArgument,
              {"--device \"tpu\" is not supported", "cuda:N"});
  ExpectError([] { ChooseDevice("cuda:", "auto", EngineKind::kMarian); }, ErrorCode::kInvalidArgument,
              {"--device \"cuda:\"", "GPU index must be a number"});
  ExpectError([] { ChooseDevice("cuda:one", "auto", EngineKind::kMarian); }, ErrorCode::kInvalidArgument,
              {"GPU index must be a number"});
  ExpectError([] { ChooseDevice("cpu", "int4", EngineKind::kMarian); }, ErrorCode::kInvalidArgument,
              {"--dtype \"int4\" is not supported", "bfloat16"});
}

TEST(DeviceChoiceTest, HalfPrecisionNeedsAGpu) {
  ExpectError([] { ChooseDevice("cpu", "float16", EngineKind::kWhisper); }, ErrorCode::kInvalidArgument,
              {"--dtype float16 needs a GPU"});
  ExpectError([] { ChooseDevice("cpu", "bf16", EngineKind::kMarian); }, ErrorCode::kInvalidArgument,
              {"--dtype bf16 needs a GPU"});
}

TEST(DeviceChoiceTest, ACudaDeviceLibtorchDoesNotSeeIsRefused) {
  if (torch::cuda::is_available()) {
    ExpectError([] { ChooseDevice("cuda:99", "auto", EngineKind::kWhisper); }, ErrorCode::kInvalidArgument,
                {"--device cuda:99: there", "cuda:0 to"});
    const DeviceChoice chosen = ChooseDevice("cuda", "bfloat16", EngineKind::kVits);
    EXPECT_EQ(chosen.device, torch::Device(torch::kCUDA, 0));
    EXPECT_EQ(chosen.dtype, torch::kBFloat16);
  } else {
    ExpectError([] { ChooseDevice("cuda", "auto", EngineKind::kWhisper); }, ErrorCode::kInvalidArgument,
                {"--device cuda: libtorch sees no CUDA device", "--device cpu"});
    ExpectError([] { ChooseDevice("cuda:1", "float16", EngineKind::kMarian); }, ErrorCode::kInvalidArgument,
                {"--device cuda:1: libtorch sees no CUDA device"});
  }
}

}  // namespace
}  // namespace lingcast::neural
