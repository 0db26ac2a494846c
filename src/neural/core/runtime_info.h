// What the neural engines will run on in this process: libtorch's version, the
// CUDA devices it sees (where `--device auto` goes), and the BLAS under its CPU
// matrix products. `lingcast doctor` prints it, because two of these decide
// whether the engines are fast at all: no GPU means the CPU path, and on the CPU
// Debian's libtorch multiplies through whatever libblas.so.3 is installed, which
// is netlib's reference BLAS (10-70x slower, src/neural/README.md) unless an
// optimized one such as OpenBLAS is.
#pragma once

#include <string>
#include <vector>

namespace lingcast::neural {

enum class BlasKind {
  kMkl,        // libtorch carries MKL (PyPI's torch)
  kOptimized,  // libblas.so.3 is OpenBLAS, BLIS, ATLAS, ...
  kReference,  // libblas.so.3 is netlib's reference implementation
  kUnknown,    // none of the above could be told
};

struct RuntimeInfo {
  std::string libtorch_version;       // "1.13.0"
  std::vector<std::string> gpus;      // the CUDA devices libtorch sees, by name
  int cpu_threads = 0;                // libtorch's intra-op threads
  BlasKind blas = BlasKind::kUnknown;
  std::string blas_library;           // the libblas.so.3 in use, symlinks resolved; empty for MKL
};

RuntimeInfo DescribeRuntime();

// Which BLAS a resolved libblas.so.3 path is, from Debian's alternatives layout
// (/usr/lib/<triplet>/blas/ is the reference one; openblas-*, blis-*, atlas/ are not).
BlasKind BlasKindOfLibrary(const std::string& resolved_path);

// One line for people: "libtorch 1.13.0, CPU only (no CUDA device), 2 threads,
// OpenBLAS (/usr/lib/.../libblas.so.3)".
std::string RuntimeSummary(const RuntimeInfo& info);

}  // namespace lingcast::neural
