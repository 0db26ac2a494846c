// A CTranslate2 model.bin writer for src/neural's tests: the layout
// ctranslate2_checkpoint.h describes, any binary version, and bytes a real
// converter would never write (unknown dtype codes, byte counts that disagree
// with the shape) so that the reader's refusals can be tried one by one.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <torch/types.h>
#include <torch/utils.h>

#include "neural/core/ctranslate2_checkpoint.h"

namespace lingcast::neural::testing {

struct Ct2TestVariable {
  std::string name;
  std::uint8_t dtype_code = 0;        // as stored: Ct2DType's codes, or any other byte
  std::vector<std::uint32_t> shape;
  std::string data;                   // the raw bytes
  std::int64_t byte_count = -1;       // what the entry says; -1: data.size()
};

// `tensor` (contiguous, on the CPU: float32, float16, bfloat16, int8, int16 or
// int32) as a variable of its own dtype.
Ct2TestVariable Ct2VariableOf(const std::string& name, const torch::Tensor& tensor);

struct Ct2TestFile {
  std::uint32_t binary_version = 6;
  std::string spec_name = "WhisperSpec";  // written from version 2
  std::uint32_t spec_revision = 3;
  std::vector<Ct2TestVariable> variables;                   // written in this order
  std::vector<std::pair<std::string, std::string>> aliases;  // written from version 3
};

// The file's bytes. Before version 4 an entry holds the item size and element
// count (data.size() / item size) instead of the dtype code and byte count.
std::string Ct2Bytes(const Ct2TestFile& file);

// Every variable and alias of `checkpoint`, each stored variable converted to
// `float_dtype` where it is floating point (integers, quantized weights and
// their scales as they are): the same model in another precision or version.
Ct2TestFile Ct2Reencode(const Ct2Checkpoint& checkpoint, torch::ScalarType float_dtype);

std::string ReadBytes(const std::string& path);
void WriteBytes(const std::string& path, const std::string& bytes);

}  // namespace lingcast::neural::testing
