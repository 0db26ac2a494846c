// Safetensors checkpoints, read with our own memory-mapped reader.
//
// A .safetensors file is an 8-byte little-endian header length, a JSON header
// ({name: {dtype, shape, data_offsets}, "__metadata__": {...}}) and the tensor
// bytes. SafetensorsFile checks the whole header when it opens a file (dtype and
// shape against the byte span, spans inside the file and not overlapping), so a
// truncated or corrupt file fails at once with the file and tensor named, not
// later in the middle of a model. Tensors are views on the mapping (no copy)
// where the bytes are aligned for their dtype; a view keeps the mapping alive.
//
// Checkpoint is a Hugging Face checkpoint directory's weights: model.safetensors,
// or shards listed by model.safetensors.index.json.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <torch/types.h>
#include <torch/utils.h>

#include "neural/core/mapped_file.h"

namespace lingcast::neural {

struct TensorInfo {
  std::string dtype;  // as the file names it: "F32", "F16", "BF16", "I64", ...
  std::vector<std::int64_t> shape;
  std::size_t begin = 0;  // byte span in the data section
  std::size_t end = 0;
};

// "[2, 3]": shapes in error messages.
std::string ShapeString(const std::vector<std::int64_t>& shape);

class SafetensorsFile {
 public:
  // Throws NeuralError: kNotFound (no file), kDataLoss (truncated, bad header),
  // kInvalidArgument (a header entry that contradicts itself).
  static std::shared_ptr<const SafetensorsFile> Open(const std::string& path);

  const std::string& path() const { return file_->path(); }
  bool Contains(const std::string& name) const { return tensors_.count(name) != 0; }
  const TensorInfo& Info(const std::string& name) const;  // kNotFound naming the file
  std::vector<std::string> Names() const;                  // sorted
  const std::map<std::string, std::string>& metadata() const { return metadata_; }

  // The tensor as stored (its own dtype, on the CPU). kUnimplemented for a dtype
  // libtorch has no type for (F8_*, U16, U32, U64).
  torch::Tensor Load(const std::string& name) const;

 private:
  SafetensorsFile(std::shared_ptr<MappedFile> file, std::size_t data_offset)
      : file_(std::move(file)), data_offset_(data_offset) {}

  std::shared_ptr<MappedFile> file_;
  std::size_t data_offset_;  // 8 + header length
  std::map<std::string, TensorInfo> tensors_;
  std::map<std::string, std::string> metadata_;
};

class Checkpoint {
 public:
  // `dir` holds model.safetensors or model.safetensors.index.json + its shards.
  // Throws NeuralError naming the directory and what is missing or wrong.
  static Checkpoint Open(const std::string& dir);

  const std::string& dir() const { return dir_; }
  bool Contains(const std::string& name) const { return shard_of_.count(name) != 0; }
  std::vector<std::string> Names() const;  // sorted
  const std::string& FileOf(const std::string& name) const;  // the shard's path

  // The tensor as stored; kNotFound naming the checkpoint and tensor.
  torch::Tensor Load(const std::string& name) const;
  // A weight of the given shape, converted to `options` (dtype, device). A shape
  // other than `shape` is kInvalidArgument naming file, tensor and both shapes; a
  // non-floating-point weight is kInvalidArgument too.
  torch::Tensor LoadWeight(const std::string& name, const std::vector<std::int64_t>& shape,
                           const torch::TensorOptions& options) const;

 private:
  std::string dir_;
  std::vector<std::shared_ptr<const SafetensorsFile>> files_;
  std::map<std::string, std::size_t> shard_of_;  // tensor name -> index in files_
};

}  // namespace lingcast::neural
