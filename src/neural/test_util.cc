#include "neural/test_util.h"

#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace lingcast::neural::testing {
namespace {

std::string DTypeName(torch::ScalarType type) {
  switch (type) {
    case torch::kFloat: return "F32";
    case torch::kHalf: return "F16";
    case torch::kBFloat16: return "BF16";
    case torch::kLong: return "I64";
    case torch::kInt: return "I32";
    case torch::kByte: return "U8";
    case torch::kBool: return "BOOL";
    default: throw std::invalid_argument("WriteSafetensors: unsupported dtype");
  }
}

}  // namespace

std::string TestdataDir(const std::string& name) {
  return (std::filesystem::path(LINGCAST_SOURCE_DIR) / "src" / "neural" / "testdata" / name).string();
}

nlohmann::json ReadJsonFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  return nlohmann::json::parse(in);
}

torch::Tensor IdsTensor(const nlohmann::json& rows) {
  std::vector<std::int64_t> flat;
  for (const auto& row : rows) {
    for (const auto& id : row) flat.push_back(id.get<std::int64_t>());
  }
  const auto count = static_cast<std::int64_t>(rows.size());
  return torch::tensor(flat, torch::kLong).view({count, static_cast<std::int64_t>(flat.size()) / count});
}

std::vector<std::vector<std::int64_t>> IdLists(const nlohmann::json& rows) {
  return rows.get<std::vector<std::vector<std::int64_t>>>();
}

void WriteRawSafetensors(const std::string& path, const std::string& header, const std::string& data) {
  std::ofstream out(path, std::ios::binary);
  std::uint64_t length = header.size();
  for (int i = 0; i < 8; ++i) out.put(static_cast<char>((length >> (8 * i)) & 0xff));
  out << header << data;
}

void WriteSafetensors(const std::string& path, const std::map<std::string, torch::Tensor>& tensors) {
  nlohmann::json header = nlohmann::json::object();
  std::string data;
  for (const auto& [name, tensor] : tensors) {
    const torch::Tensor t = tensor.contiguous().cpu();
    const std::size_t begin = data.size();
    data.append(static_cast<const char*>(t.data_ptr()), t.numel() * t.element_size());
    header[name] = {{"dtype", DTypeName(t.scalar_type())}, {"shape", t.sizes().vec()}, {"data_offsets", {begin, data.size()}}};
  }
  std::string text = header.dump();
  while ((text.size() + 8) % 8 != 0) text += ' ';  // keep the data 8-byte aligned, as the format's writers do
  WriteRawSafetensors(path, text, data);
}

void CopyDir(const std::string& from, const std::string& to) {
  for (const auto& entry : std::filesystem::directory_iterator(from)) {
    std::filesystem::copy_file(entry.path(), std::filesystem::path(to) / entry.path().filename());
  }
}

double RelativeError(const torch::Tensor& actual, const torch::Tensor& expected) {
  const torch::Tensor a = actual.to(torch::kCPU, torch::kDouble);
  const torch::Tensor b = expected.to(torch::kCPU, torch::kDouble);
  const double scale = std::max(b.abs().max().item<double>(), 1.0);
  return (a - b).abs().max().item<double>() / scale;
}

}  // namespace lingcast::neural::testing
