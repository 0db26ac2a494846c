// CTranslate2 checkpoints (model.bin), read with our own reader.
//
// The layout, as CTranslate2's converter writes it (python/ctranslate2/specs/
// model_spec.py) and its runtime reads it (src/models/model.cc); little endian,
// no padding or alignment anywhere:
//
//   u32 binary version                       1 .. 6
//   string spec name, u32 spec revision      version >= 2 ("WhisperSpec", 3)
//   u32 variable count, then per variable, in name order:
//     string name, u8 rank, u32 dims[rank]
//     u8 dtype code, u32 byte count          version >= 4 (codes: float32 0, int8 1,
//                                            int16 2, int32 3, float16 4, bfloat16 5)
//     u8 item size, u32 element count        version <= 3 (4 float32, 2 int16, 1 int8)
//     the variable's bytes
//   u32 alias count, then (alias, target)    version >= 3 (a variable stored once
//                                            under two names: a tied output projection)
//
// A string is a u16 length that counts a final NUL, then that many bytes.
// Versions 5 and 6 changed nothing here (5: the converter rounds before it casts
// when it quantizes; 6: config.json beside model.bin). Scalars (rank 0) are
// settings: num_heads (int16), activation and flags (int8).
//
// Quantized weights carry their scale in a variable of their name + "_scale":
// int8 one float per row (a convolution's row is its flattened (in, width)),
// scale = 127 / max|row|, so the weight is q / scale; int16 one scalar for the
// whole weight (1000 where an old file has none, as CTranslate2 assumes). An
// alias's scale is its target's.
//
// A checkpoint may come split: model.bin.part1 .. model.bin.partN (how packages
// ship one larger than their registry takes in one file), which are one byte
// stream in order; a variable may straddle a boundary. Ct2Checkpoint checks the whole header and variable
// table when it opens (every read against the end, every byte count against
// shape x dtype, the alias targets, nothing after the alias table), so a
// truncated or corrupt checkpoint fails at once with one line naming the file
// and the variable, and no read ever goes past the end. Weights are copied out
// of the mapping (the format does not align them), each one's pages given back
// once copied, and the mapping goes with the Ct2Checkpoint once the model is built.
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

// CTranslate2's DataType enum, by the codes the file stores.
enum class Ct2DType : std::uint8_t { kFloat32 = 0, kInt8 = 1, kInt16 = 2, kInt32 = 3, kFloat16 = 4, kBFloat16 = 5 };

std::string Ct2DTypeName(Ct2DType dtype);  // "float16"
std::size_t Ct2DTypeBytes(Ct2DType dtype);

struct Ct2Variable {
  Ct2DType dtype = Ct2DType::kFloat32;
  std::vector<std::int64_t> shape;
  std::uint64_t offset = 0;  // first byte in the checkpoint's byte stream (its parts in order)
  std::uint64_t bytes = 0;
};

class Ct2Checkpoint {
 public:
  // Whether `dir` holds model.bin or model.bin.part1 (a CTranslate2 checkpoint
  // directory, not necessarily a sound one).
  static bool IsCheckpointDir(const std::string& dir);

  // DIR/model.bin, or DIR/model.bin.part1 .. partN when there is no model.bin.
  // Throws NeuralError: kNotFound (no such files, a part missing in the
  // sequence), kDataLoss (truncated or corrupt: the file and variable named),
  // kInvalidArgument (not a CTranslate2 checkpoint), kUnimplemented (a binary
  // version newer than this reader).
  static std::shared_ptr<const Ct2Checkpoint> Open(const std::string& dir);
  // These files, in order, as one checkpoint.
  static std::shared_ptr<const Ct2Checkpoint> OpenFiles(const std::vector<std::string>& paths);

  // "DIR/model.bin", or "DIR/model.bin.part1 .. part2" for a split one.
  const std::string& name() const { return name_; }
  std::uint32_t binary_version() const { return binary_version_; }
  const std::string& spec_name() const { return spec_name_; }  // empty for binary version 1
  std::uint32_t spec_revision() const { return spec_revision_; }

  bool Contains(const std::string& name) const { return variables_.count(name) != 0 || aliases_.count(name) != 0; }
  // The variable an alias stands for (the name itself for a variable);
  // kNotFound naming the checkpoint for neither.
  const std::string& Resolve(const std::string& name) const;
  const Ct2Variable& Info(const std::string& name) const;  // aliases resolved
  std::vector<std::string> Names() const;                  // the variables, sorted; no aliases
  const std::map<std::string, std::string>& aliases() const { return aliases_; }
  // The file that holds the variable's first byte: what errors about it name.
  const std::string& FileOf(const std::string& name) const;

  // The variable as stored, on the CPU, in the dtype it has.
  torch::Tensor Load(const std::string& name) const;
  // An integer setting (a rank-0 int8, int16 or int32 variable).
  std::int64_t LoadInt(const std::string& name) const;
  // A weight of `shape` in `options`' floating-point dtype and device: stored
  // floats converted, int8 and int16 dequantized with their scale. A weight of
  // another shape, an integer variable that is not quantized, or a scale that is
  // missing, of the wrong shape or not positive is kInvalidArgument naming the
  // file and variable.
  torch::Tensor LoadWeight(const std::string& name, const std::vector<std::int64_t>& shape,
                           const torch::TensorOptions& options) const;
  // Rows [first_row, first_row + rows) of such a weight (of `shape`, rows along
  // dimension 0), reading only their bytes: one projection of a fused one.
  torch::Tensor LoadWeightRows(const std::string& name, const std::vector<std::int64_t>& shape, std::int64_t first_row,
                               std::int64_t rows, const torch::TensorOptions& options) const;

 private:
  Ct2Checkpoint() = default;
  void Parse();
  // The part and offset in it of stream byte `offset` (< size_).
  std::size_t PartOf(std::uint64_t offset) const;
  // Copies `bytes` from stream offset `offset`, across parts; the range was checked.
  void Copy(std::uint64_t offset, std::uint64_t bytes, void* out) const;
  // Gives the mapping's whole pages inside the range back to the kernel (they
  // are clean: read again from the file if touched again), so that a model
  // being built holds the file's bytes once, as its weights, not twice.
  void ReleasePages(std::uint64_t offset, std::uint64_t bytes) const;
  torch::Tensor LoadRange(const std::string& resolved, std::int64_t first_row, std::int64_t rows) const;

  std::string name_;
  std::vector<std::shared_ptr<MappedFile>> parts_;
  std::vector<std::uint64_t> part_begin_;  // stream offset of each part's first byte
  std::uint64_t size_ = 0;
  std::uint32_t binary_version_ = 0;
  std::string spec_name_;
  std::uint32_t spec_revision_ = 0;
  std::map<std::string, Ct2Variable> variables_;
  std::map<std::string, std::string> aliases_;  // alias -> variable (chains resolved)
};

}  // namespace lingcast::neural
