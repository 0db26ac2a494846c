// Helpers for src/neural's tests: the committed fixtures and a small safetensors
// writer for the files the tests make themselves.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <torch/types.h>
#include <torch/utils.h>

#include "gtest/gtest.h"
#include "neural/core/neural_error.h"

namespace lingcast::neural::testing {

// src/neural/testdata/NAME
std::string TestdataDir(const std::string& name);

nlohmann::json ReadJsonFile(const std::string& path);

// [[...], [...]] of integers -> (rows, cols) int64 tensor.
torch::Tensor IdsTensor(const nlohmann::json& rows);
std::vector<std::vector<std::int64_t>> IdLists(const nlohmann::json& rows);

// Writes `tensors` (contiguous CPU tensors of F32/F16/BF16/I64/I32/U8/BOOL) as a
// safetensors file, in name order.
void WriteSafetensors(const std::string& path, const std::map<std::string, torch::Tensor>& tensors);
// Writes a file from a raw header (any text) and raw data bytes.
void WriteRawSafetensors(const std::string& path, const std::string& header, const std::string& data);

// File helpers on POSIX calls rather than std::filesystem: pip's libtorch (the GPU
// machine's) exports broken copies of some libstdc++ std::filesystem functions, and
// tests that called them segfaulted there. Each one throws std::runtime_error naming
// the path on failure.
void CopyFile(const std::string& from, const std::string& to);
// Copies every regular file of `from` into `to` (which exists).
void CopyDir(const std::string& from, const std::string& to);
void RemoveFile(const std::string& path);
std::int64_t FileSize(const std::string& path);
void TruncateFile(const std::string& path, std::int64_t size);
// The last component of `path`.
std::string BaseName(const std::string& path);

// A fresh directory under GoogleTest's temp dir, removed with its contents; the
// POSIX twin of core/scratch_dir.h (which uses std::filesystem, see above).
class ScratchDir {
 public:
  ScratchDir();
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  std::string File(const std::string& name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The installed model NAME: $LINGCAST_MODELS_DIR/NAME when that is set, else the
// source tree's models/NAME (where scripts/install-deps.sh puts them).
std::string InstalledModelDir(const std::string& name);
// Whether InstalledModelDir(name) holds model.safetensors; if not, `skip` says
// which directory is missing and `how` gets it (for GTEST_SKIP).
bool HaveInstalledModel(const std::string& name, const std::string& how, std::string& skip);

// max |a - b| / max(max |b|, 1): the tensor-wide relative error the parity tests bound.
double RelativeError(const torch::Tensor& actual, const torch::Tensor& expected);

// Share of positions where two greedy runs picked the same token (compared up to
// the shorter of the two).
double TokenAgreement(const std::vector<std::vector<std::int64_t>>& a, const std::vector<std::vector<std::int64_t>>& b);

// Expects each token of `chosen` (T) to be within `tolerance` (relative to the
// largest |logit|) of the best of its row of `logits` (T, V): what a lower-
// precision decode may pick instead of the exact argmax. Rows already masked.
void ExpectNearArgmax(const torch::Tensor& logits, const std::vector<std::int64_t>& chosen, double tolerance,
                      const std::string& what);

// Runs `f`; expects a NeuralError of `code` whose message holds every one of `parts`.
template <typename F>
void ExpectError(F&& f, ErrorCode code, const std::vector<std::string>& parts) {
  try {
    f();
    ADD_FAILURE() << "expected an error";
  } catch (const NeuralError& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    for (const auto& part : parts) EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

}  // namespace lingcast::neural::testing
