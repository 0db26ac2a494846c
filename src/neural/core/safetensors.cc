#include "neural/core/safetensors.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <set>

#include <nlohmann/json.hpp>

#include "neural/core/neural_error.h"

namespace lingcast::neural {
namespace {

// The safetensors format's own limit; a larger "header" is a corrupt length field.
constexpr std::uint64_t kMaxHeaderBytes = 100ull << 20;

struct DTypeDesc {
  const char* name;
  std::size_t bytes;
  std::optional<torch::ScalarType> torch_type;  // none: libtorch cannot hold it
};

// Every dtype the format defines, so that sizes are checked for all of them and an
// unsupported one fails only when that tensor is loaded.
constexpr std::size_t kDTypeCount = 15;
const DTypeDesc kDTypes[kDTypeCount] = {
    {"F64", 8, torch::kDouble}, {"F32", 4, torch::kFloat},     {"F16", 2, torch::kHalf},
    {"BF16", 2, torch::kBFloat16}, {"I64", 8, torch::kLong},   {"I32", 4, torch::kInt},
    {"I16", 2, torch::kShort},  {"I8", 1, torch::kChar},       {"U8", 1, torch::kByte},
    {"BOOL", 1, torch::kBool},  {"U16", 2, std::nullopt},      {"U32", 4, std::nullopt},
    {"U64", 8, std::nullopt},   {"F8_E4M3", 1, std::nullopt},  {"F8_E5M2", 1, std::nullopt},
};

const DTypeDesc* FindDType(const std::string& name) {
  for (const auto& d : kDTypes) {
    if (name == d.name) return &d;
  }
  return nullptr;
}

std::string SupportedDTypes() {
  std::string out;
  for (const auto& d : kDTypes) {
    if (!d.torch_type) continue;
    if (!out.empty()) out += ", ";
    out += d.name;
  }
  return out;
}

std::uint64_t ReadLittleEndian64(const std::uint8_t* p) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

// Parses one header entry; throws naming file and tensor.
TensorInfo ParseEntry(const std::string& path, const std::string& name, const nlohmann::json& entry) {
  const std::string where = path + ": tensor '" + name + "'";
  if (!entry.is_object()) Fail(ErrorCode::kDataLoss, where + ": header entry is not an object");
  TensorInfo info;
  auto dtype = entry.find("dtype");
  if (dtype == entry.end() || !dtype->is_string()) Fail(ErrorCode::kDataLoss, where + ": no \"dtype\" string");
  info.dtype = dtype->get<std::string>();
  auto shape = entry.find("shape");
  if (shape == entry.end() || !shape->is_array()) Fail(ErrorCode::kDataLoss, where + ": no \"shape\" array");
  for (const auto& dim : *shape) {
    if (!dim.is_number_unsigned()) Fail(ErrorCode::kDataLoss, where + ": shape " + shape->dump() + " is not a list of sizes");
    info.shape.push_back(dim.get<std::int64_t>());
  }
  auto offsets = entry.find("data_offsets");
  if (offsets == entry.end() || !offsets->is_array() || offsets->size() != 2 || !(*offsets)[0].is_number_unsigned() ||
      !(*offsets)[1].is_number_unsigned()) {
    Fail(ErrorCode::kDataLoss, where + ": no \"data_offsets\" [begin, end]");
  }
  info.begin = (*offsets)[0].get<std::size_t>();
  info.end = (*offsets)[1].get<std::size_t>();
  if (info.end < info.begin) {
    Fail(ErrorCode::kDataLoss, where + ": data_offsets " + offsets->dump() + " end before they begin");
  }
  return info;
}

}  // namespace

std::string ShapeString(const std::vector<std::int64_t>& shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(shape[i]);
  }
  return out + "]";
}

std::shared_ptr<const SafetensorsFile> SafetensorsFile::Open(const std::string& path) {
  auto file = MappedFile::Open(path);
  if (file->size() < 8) {
    Fail(ErrorCode::kDataLoss, path + ": " + std::to_string(file->size()) +
                                   " bytes, too short for a safetensors header: truncated or not a safetensors file");
  }
  const std::uint64_t header_bytes = ReadLittleEndian64(file->data());
  if (header_bytes > kMaxHeaderBytes || header_bytes > file->size() - 8) {
    Fail(ErrorCode::kDataLoss, path + ": header length " + std::to_string(header_bytes) + " does not fit the file's " +
                                   std::to_string(file->size()) +
                                   " bytes: truncated or not a safetensors file");
  }
  const char* header_text = reinterpret_cast<const char*>(file->data() + 8);
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(header_text, header_text + header_bytes);
  } catch (const nlohmann::json::exception& e) {
    Fail(ErrorCode::kDataLoss, path + ": header is not valid JSON (" + e.what() + "): corrupt or not a safetensors file");
  }
  if (!header.is_object()) Fail(ErrorCode::kDataLoss, path + ": header is not a JSON object: not a safetensors file");

  std::shared_ptr<SafetensorsFile> result(new SafetensorsFile(file, 8 + header_bytes));
  const std::size_t data_bytes = file->size() - result->data_offset_;
  for (const auto& [name, entry] : header.items()) {
    if (name == "__metadata__") {
      if (!entry.is_object()) Fail(ErrorCode::kDataLoss, path + ": \"__metadata__\" is not an object");
      for (const auto& [key, value] : entry.items()) {
        result->metadata_[key] = value.is_string() ? value.get<std::string>() : value.dump();
      }
      continue;
    }
    TensorInfo info = ParseEntry(path, name, entry);
    if (info.end > data_bytes) {
      Fail(ErrorCode::kDataLoss, path + ": tensor '" + name + "' ends at byte " + std::to_string(info.end) +
                                     " of the data, but the file holds " + std::to_string(data_bytes) +
                                     " data bytes: the file is truncated");
    }
    if (const DTypeDesc* dtype = FindDType(info.dtype)) {
      std::uint64_t numel = 1;
      for (auto dim : info.shape) {
        if (dim != 0 && numel > std::numeric_limits<std::uint64_t>::max() / static_cast<std::uint64_t>(dim)) {
          Fail(ErrorCode::kDataLoss, path + ": tensor '" + name + "' shape " + ShapeString(info.shape) + " overflows");
        }
        numel *= static_cast<std::uint64_t>(dim);
      }
      if (numel * dtype->bytes != info.end - info.begin) {
        Fail(ErrorCode::kDataLoss, path + ": tensor '" + name + "' of " + info.dtype + " " + ShapeString(info.shape) +
                                       " needs " + std::to_string(numel * dtype->bytes) + " bytes, but its data_offsets span " +
                                       std::to_string(info.end - info.begin));
      }
    }
    result->tensors_.emplace(name, std::move(info));
  }
  // Spans must not overlap: a tensor written over another is a corrupt file.
  std::vector<std::pair<std::size_t, std::string>> by_begin;
  for (const auto& [name, info] : result->tensors_) by_begin.emplace_back(info.begin, name);
  std::sort(by_begin.begin(), by_begin.end());
  for (std::size_t i = 1; i < by_begin.size(); ++i) {
    const TensorInfo& previous = result->tensors_.at(by_begin[i - 1].second);
    if (previous.end > by_begin[i].first) {
      Fail(ErrorCode::kDataLoss, path + ": tensors '" + by_begin[i - 1].second + "' and '" + by_begin[i].second +
                                     "' overlap in the data: the file is corrupt");
    }
  }
  return result;
}

const TensorInfo& SafetensorsFile::Info(const std::string& name) const {
  auto it = tensors_.find(name);
  if (it == tensors_.end()) Fail(ErrorCode::kNotFound, path() + ": no tensor '" + name + "'");
  return it->second;
}

std::vector<std::string> SafetensorsFile::Names() const {
  std::vector<std::string> names;
  for (const auto& [name, info] : tensors_) names.push_back(name);
  return names;
}

torch::Tensor SafetensorsFile::Load(const std::string& name) const {
  const TensorInfo& info = Info(name);
  const DTypeDesc* dtype = FindDType(info.dtype);
  if (dtype == nullptr || !dtype->torch_type) {
    Fail(ErrorCode::kUnimplemented, path() + ": tensor '" + name + "' has dtype " + info.dtype +
                                        ", which lingcast cannot load (supported: " + SupportedDTypes() + ")");
  }
  const auto options = torch::TensorOptions().dtype(*dtype->torch_type);
  std::uint8_t* bytes = file_->data() + data_offset_ + info.begin;
  if (info.end == info.begin) return torch::empty(info.shape, options);
  if (reinterpret_cast<std::uintptr_t>(bytes) % dtype->bytes == 0) {
    std::shared_ptr<MappedFile> keep_mapped = file_;
    return torch::from_blob(bytes, info.shape, [keep_mapped](void*) {}, options);
  }
  // The format does not promise alignment; a misaligned tensor is copied.
  torch::Tensor copy = torch::empty(info.shape, options);
  std::memcpy(copy.data_ptr(), bytes, info.end - info.begin);
  return copy;
}

Checkpoint Checkpoint::Open(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) Fail(ErrorCode::kNotFound, dir + ": no such checkpoint directory");
  Checkpoint checkpoint;
  checkpoint.dir_ = dir;
  const fs::path index_path = fs::path(dir) / "model.safetensors.index.json";
  const fs::path single_path = fs::path(dir) / "model.safetensors";
  if (fs::exists(index_path, ec)) {
    nlohmann::json index;
    try {
      std::ifstream in(index_path);
      index = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception& e) {
      Fail(ErrorCode::kInvalidArgument, index_path.string() + ": not valid JSON (" + e.what() + ")");
    }
    auto weight_map = index.find("weight_map");
    if (!index.is_object() || weight_map == index.end() || !weight_map->is_object()) {
      Fail(ErrorCode::kInvalidArgument, index_path.string() + ": no \"weight_map\" object");
    }
    std::map<std::string, std::size_t> file_index;
    for (const auto& [name, shard] : weight_map->items()) {
      if (!shard.is_string()) Fail(ErrorCode::kInvalidArgument, index_path.string() + ": weight_map[\"" + name + "\"] is not a file name");
      const std::string shard_name = shard.get<std::string>();
      auto it = file_index.find(shard_name);
      if (it == file_index.end()) {
        const fs::path shard_path = fs::path(dir) / shard_name;
        if (!fs::exists(shard_path, ec)) {
          Fail(ErrorCode::kNotFound, index_path.string() + " lists shard " + shard_name + " (for tensor '" + name +
                                         "'), which is missing from " + dir);
        }
        checkpoint.files_.push_back(SafetensorsFile::Open(shard_path.string()));
        it = file_index.emplace(shard_name, checkpoint.files_.size() - 1).first;
      }
      if (!checkpoint.files_[it->second]->Contains(name)) {
        Fail(ErrorCode::kDataLoss, index_path.string() + " puts tensor '" + name + "' in " + shard_name +
                                       ", which does not hold it");
      }
      checkpoint.shard_of_[name] = it->second;
    }
    return checkpoint;
  }
  if (fs::exists(single_path, ec)) {
    checkpoint.files_.push_back(SafetensorsFile::Open(single_path.string()));
    for (const auto& name : checkpoint.files_[0]->Names()) checkpoint.shard_of_[name] = 0;
    return checkpoint;
  }
  if (fs::exists(fs::path(dir) / "pytorch_model.bin", ec)) {
    Fail(ErrorCode::kUnimplemented,
         dir + ": has only pytorch_model.bin (a Python pickle); lingcast reads model.safetensors: download the "
               "safetensors weights, or convert with transformers: model.save_pretrained(dir, safe_serialization=True)");
  }
  Fail(ErrorCode::kNotFound,
       dir + ": no model.safetensors or model.safetensors.index.json: not a Hugging Face checkpoint directory");
}

std::vector<std::string> Checkpoint::Names() const {
  std::vector<std::string> names;
  for (const auto& [name, shard] : shard_of_) names.push_back(name);
  return names;
}

const std::string& Checkpoint::FileOf(const std::string& name) const {
  auto it = shard_of_.find(name);
  if (it == shard_of_.end()) Fail(ErrorCode::kNotFound, dir_ + ": the checkpoint has no tensor '" + name + "'");
  return files_[it->second]->path();
}

torch::Tensor Checkpoint::Load(const std::string& name) const {
  auto it = shard_of_.find(name);
  if (it == shard_of_.end()) Fail(ErrorCode::kNotFound, dir_ + ": the checkpoint has no tensor '" + name + "'");
  return files_[it->second]->Load(name);
}

torch::Tensor Checkpoint::LoadWeight(const std::string& name, const std::vector<std::int64_t>& shape,
                                     const torch::TensorOptions& options) const {
  torch::Tensor stored = Load(name);
  if (!stored.is_floating_point()) {
    Fail(ErrorCode::kInvalidArgument, FileOf(name) + ": tensor '" + name + "' is " + files_[shard_of_.at(name)]->Info(name).dtype +
                                          "; a weight must be floating point (F32, F16, BF16, F64)");
  }
  if (stored.sizes().vec() != shape) {
    Fail(ErrorCode::kInvalidArgument, FileOf(name) + ": tensor '" + name + "' has shape " +
                                          ShapeString(stored.sizes().vec()) + ", expected " + ShapeString(shape) +
                                          " from config.json");
  }
  return stored.to(options);
}

}  // namespace lingcast::neural
