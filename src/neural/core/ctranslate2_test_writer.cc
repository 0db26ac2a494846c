#include "neural/core/ctranslate2_test_writer.h"

#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>

namespace lingcast::neural::testing {
namespace {

void PutLittleEndian(std::string& out, std::uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out += static_cast<char>((value >> (8 * i)) & 0xFF);
}

void PutString(std::string& out, const std::string& s) {
  PutLittleEndian(out, s.size() + 1, 2);
  out += s;
  out += '\0';
}

std::uint8_t CodeOf(torch::ScalarType type) {
  switch (type) {
    case torch::kFloat: return static_cast<std::uint8_t>(Ct2DType::kFloat32);
    case torch::kChar: return static_cast<std::uint8_t>(Ct2DType::kInt8);
    case torch::kShort: return static_cast<std::uint8_t>(Ct2DType::kInt16);
    case torch::kInt: return static_cast<std::uint8_t>(Ct2DType::kInt32);
    case torch::kHalf: return static_cast<std::uint8_t>(Ct2DType::kFloat16);
    case torch::kBFloat16: return static_cast<std::uint8_t>(Ct2DType::kBFloat16);
    default: throw std::invalid_argument("Ct2VariableOf: no CTranslate2 dtype for this tensor");
  }
}

}  // namespace

Ct2TestVariable Ct2VariableOf(const std::string& name, const torch::Tensor& tensor) {
  const torch::Tensor t = tensor.contiguous().cpu();
  Ct2TestVariable v;
  v.name = name;
  v.dtype_code = CodeOf(t.scalar_type());
  for (auto dim : t.sizes()) v.shape.push_back(static_cast<std::uint32_t>(dim));
  v.data.assign(static_cast<const char*>(t.data_ptr()), t.numel() * t.element_size());
  return v;
}

std::string Ct2Bytes(const Ct2TestFile& file) {
  std::string out;
  PutLittleEndian(out, file.binary_version, 4);
  if (file.binary_version >= 2) {
    PutString(out, file.spec_name);
    PutLittleEndian(out, file.spec_revision, 4);
  }
  PutLittleEndian(out, file.variables.size(), 4);
  for (const Ct2TestVariable& v : file.variables) {
    PutString(out, v.name);
    PutLittleEndian(out, v.shape.size(), 1);
    for (auto dim : v.shape) PutLittleEndian(out, dim, 4);
    const std::uint64_t bytes = v.byte_count >= 0 ? static_cast<std::uint64_t>(v.byte_count) : v.data.size();
    if (file.binary_version >= 4) {
      PutLittleEndian(out, v.dtype_code, 1);
      PutLittleEndian(out, bytes, 4);
    } else {
      const std::size_t item = Ct2DTypeBytes(static_cast<Ct2DType>(v.dtype_code));
      PutLittleEndian(out, item, 1);
      PutLittleEndian(out, bytes / item, 4);
    }
    out += v.data;
  }
  if (file.binary_version >= 3) {
    PutLittleEndian(out, file.aliases.size(), 4);
    for (const auto& [alias, target] : file.aliases) {
      PutString(out, alias);
      PutString(out, target);
    }
  }
  return out;
}

Ct2TestFile Ct2Reencode(const Ct2Checkpoint& checkpoint, torch::ScalarType float_dtype) {
  Ct2TestFile file;
  file.binary_version = checkpoint.binary_version();
  file.spec_name = checkpoint.spec_name();
  file.spec_revision = checkpoint.spec_revision();
  for (const std::string& name : checkpoint.Names()) {
    torch::Tensor t = checkpoint.Load(name);
    const bool is_scale = name.size() > 6 && name.compare(name.size() - 6, 6, "_scale") == 0;
    if (t.is_floating_point() && t.dim() > 0 && !is_scale) t = t.to(float_dtype);
    file.variables.push_back(Ct2VariableOf(name, t));
  }
  for (const auto& [alias, target] : checkpoint.aliases()) file.aliases.emplace_back(alias, target);
  return file;
}

std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path);
}

}  // namespace lingcast::neural::testing
