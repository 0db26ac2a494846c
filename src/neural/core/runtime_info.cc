#include "neural/core/runtime_info.h"

#include <dlfcn.h>

#include <climits>
#include <cstdlib>

#include <torch/torch.h>
#include <torch/version.h>

namespace lingcast::neural {
namespace {

// The file libblas.so.3 was loaded from (libtorch_cpu links it on Debian), with
// the alternatives symlinks resolved; empty when no such library is loaded.
std::string LoadedBlasLibrary() {
  void* handle = dlopen("libblas.so.3", RTLD_LAZY | RTLD_NOLOAD);
  if (handle == nullptr) return "";
  std::string resolved;
  if (void* gemm = dlsym(handle, "sgemm_"); gemm != nullptr) {
    Dl_info info{};
    if (dladdr(gemm, &info) != 0 && info.dli_fname != nullptr) {
      char buffer[PATH_MAX];
      resolved = realpath(info.dli_fname, buffer) != nullptr ? buffer : info.dli_fname;
    }
  }
  dlclose(handle);  // drops only the reference NOLOAD took
  return resolved;
}

}  // namespace

BlasKind BlasKindOfLibrary(const std::string& resolved_path) {
  if (resolved_path.empty()) return BlasKind::kUnknown;
  const std::size_t slash = resolved_path.rfind('/');
  const std::string folder = slash == std::string::npos ? "" : resolved_path.substr(0, slash);
  const std::string parent = folder.substr(folder.rfind('/') + 1);
  if (parent == "blas") return BlasKind::kReference;
  for (const char* optimized : {"openblas", "blis", "atlas", "mkl"}) {
    if (resolved_path.find(optimized) != std::string::npos) return BlasKind::kOptimized;
  }
  return BlasKind::kUnknown;
}

RuntimeInfo DescribeRuntime() {
  RuntimeInfo info;
  info.libtorch_version = TORCH_VERSION;
  if (torch::cuda::is_available()) {
    // device_count() is size_t in libtorch 1.13 and DeviceIndex in 2.x.
    const int count = static_cast<int>(torch::cuda::device_count());
    for (int i = 0; i < count; ++i) {
      info.gpus.push_back(std::string("cuda:") + std::to_string(i));
    }
  }
  info.cpu_threads = at::get_num_threads();
  if (at::hasMKL()) {
    info.blas = BlasKind::kMkl;
  } else {
    info.blas_library = LoadedBlasLibrary();
    info.blas = BlasKindOfLibrary(info.blas_library);
  }
  return info;
}

std::string RuntimeSummary(const RuntimeInfo& info) {
  std::string line = "libtorch " + info.libtorch_version + ", ";
  if (info.gpus.empty()) {
    line += "CPU only (no CUDA device: --device auto runs on the CPU)";
  } else {
    line += std::to_string(info.gpus.size()) + (info.gpus.size() == 1 ? " CUDA GPU" : " CUDA GPUs") +
            " (--device auto takes " + info.gpus.front() + ")";
  }
  line += ", " + std::to_string(info.cpu_threads) + (info.cpu_threads == 1 ? " CPU thread" : " CPU threads") + ", BLAS: ";
  switch (info.blas) {
    case BlasKind::kMkl:
      line += "MKL";
      break;
    case BlasKind::kOptimized:
      line += info.blas_library;
      break;
    case BlasKind::kReference:
      line += "netlib's reference BLAS (" + info.blas_library + "), 10-70x slower on the CPU";
      break;
    case BlasKind::kUnknown:
      line += info.blas_library.empty() ? "not found" : info.blas_library;
      break;
  }
  return line;
}

}  // namespace lingcast::neural
