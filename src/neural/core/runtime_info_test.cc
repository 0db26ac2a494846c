// runtime_info.h: which BLAS a library path is, and the description of this
// process's libtorch (whatever machine the test runs on).
#include "neural/core/runtime_info.h"

#include <torch/torch.h>

#include "gtest/gtest.h"

namespace lingcast::neural {
namespace {

TEST(RuntimeInfoTest, DebianAlternativesTellTheReferenceBlasFromOptimizedOnes) {
  EXPECT_EQ(BlasKindOfLibrary("/usr/lib/x86_64-linux-gnu/blas/libblas.so.3.11.0"), BlasKind::kReference);
  EXPECT_EQ(BlasKindOfLibrary("/usr/lib/aarch64-linux-gnu/blas/libblas.so.3"), BlasKind::kReference);
  EXPECT_EQ(BlasKindOfLibrary("/usr/lib/x86_64-linux-gnu/openblas-openmp/libblas.so.3"), BlasKind::kOptimized);
  EXPECT_EQ(BlasKindOfLibrary("/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3"), BlasKind::kOptimized);
  EXPECT_EQ(BlasKindOfLibrary("/usr/lib/x86_64-linux-gnu/blis-openmp/libblas.so.3"), BlasKind::kOptimized);
  EXPECT_EQ(BlasKindOfLibrary("/opt/vendor/libblas.so.3"), BlasKind::kUnknown);
  EXPECT_EQ(BlasKindOfLibrary(""), BlasKind::kUnknown);
}

TEST(RuntimeInfoTest, DescribesThisProcess) {
  const RuntimeInfo info = DescribeRuntime();
  EXPECT_FALSE(info.libtorch_version.empty());
  EXPECT_EQ(info.gpus.size(),
            torch::cuda::is_available() ? static_cast<std::size_t>(torch::cuda::device_count()) : std::size_t{0});
  EXPECT_GE(info.cpu_threads, 1);
  // Debian's libtorch links libblas.so.3; PyPI's carries MKL: either way the BLAS is known.
  if (info.blas != BlasKind::kMkl) {
    EXPECT_FALSE(info.blas_library.empty());
  }
  const std::string summary = RuntimeSummary(info);
  EXPECT_EQ(summary.rfind("libtorch " + info.libtorch_version, 0), 0u) << summary;
  EXPECT_NE(summary.find(info.gpus.empty() ? "CPU only" : "CUDA GPU"), std::string::npos) << summary;
  EXPECT_NE(summary.find("BLAS: "), std::string::npos) << summary;
}

TEST(RuntimeInfoTest, TheReferenceBlasIsCalledSlow) {
  RuntimeInfo info;
  info.libtorch_version = "1.13.0";
  info.cpu_threads = 2;
  info.blas = BlasKind::kReference;
  info.blas_library = "/usr/lib/x86_64-linux-gnu/blas/libblas.so.3.11.0";
  EXPECT_EQ(RuntimeSummary(info),
            "libtorch 1.13.0, CPU only (no CUDA device: --device auto runs on the CPU), 2 CPU threads, BLAS: netlib's "
            "reference BLAS (/usr/lib/x86_64-linux-gnu/blas/libblas.so.3.11.0), 10-70x slower on the CPU");
  info.gpus = {"cuda:0"};
  info.blas = BlasKind::kMkl;
  EXPECT_EQ(RuntimeSummary(info), "libtorch 1.13.0, 1 CUDA GPU (--device auto takes cuda:0), 2 CPU threads, BLAS: MKL");
}

}  // namespace
}  // namespace lingcast::neural
