#include "neural/core/test_util.h"

#include <cstdlib>

#include <dirent.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <memory>
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

[[noreturn]] void FailOn(const std::string& what, const std::string& path) {
  throw std::runtime_error(what + " " + path + ": " + ::strerror(errno));
}

}  // namespace

std::string TestdataDir(const std::string& name) {
  return std::string(LINGCAST_SOURCE_DIR) + "/src/neural/testdata/" + name;
}

std::string InstalledModelDir(const std::string& name) {
  const char* from_env = std::getenv("LINGCAST_MODELS_DIR");
  const std::string root = from_env != nullptr && *from_env != '\0' ? from_env : std::string(LINGCAST_SOURCE_DIR) + "/models";
  return root + "/" + name;
}

bool HaveInstalledModel(const std::string& name, const std::string& how, std::string& skip) {
  std::ifstream probe(InstalledModelDir(name) + "/model.safetensors");
  if (probe) return true;
  skip = InstalledModelDir(name) + " is not installed (" + how + "; LINGCAST_MODELS_DIR points elsewhere)";
  return false;
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

void CopyFile(const std::string& from, const std::string& to) {
  std::ifstream in(from, std::ios::binary);
  if (!in) FailOn("cannot open", from);
  std::ofstream out(to, std::ios::binary | std::ios::trunc);
  if (!out) FailOn("cannot create", to);
  out << in.rdbuf();
  if (!out.flush()) FailOn("cannot write", to);
}

void CopyDir(const std::string& from, const std::string& to) {
  const std::unique_ptr<DIR, int (*)(DIR*)> dir(::opendir(from.c_str()), &::closedir);
  if (!dir) FailOn("cannot list", from);
  while (const dirent* entry = ::readdir(dir.get())) {
    const std::string name = entry->d_name;
    struct stat info {};
    if (::stat((from + "/" + name).c_str(), &info) != 0) FailOn("cannot stat", from + "/" + name);
    if (S_ISREG(info.st_mode)) CopyFile(from + "/" + name, to + "/" + name);
  }
}

void RemoveFile(const std::string& path) {
  if (::unlink(path.c_str()) != 0) FailOn("cannot remove", path);
}

std::int64_t FileSize(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) FailOn("cannot stat", path);
  return info.st_size;
}

void TruncateFile(const std::string& path, std::int64_t size) {
  if (::truncate(path.c_str(), size) != 0) FailOn("cannot truncate", path);
}

std::string BaseName(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

ScratchDir::ScratchDir() {
  std::string pattern = ::testing::TempDir();
  if (pattern.empty() || pattern.back() != '/') pattern += '/';
  pattern += "lingcast_XXXXXX";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  const char* made = ::mkdtemp(buffer.data());
  EXPECT_NE(made, nullptr) << "mkdtemp " << pattern << ": " << ::strerror(errno);
  path_ = made ? made : "";
}

ScratchDir::~ScratchDir() {
  if (path_.empty()) return;
  // Depth-first, so a directory is empty when its turn comes.
  ::nftw(path_.c_str(), [](const char* path, const struct stat*, int, struct FTW*) { return ::remove(path); }, 16,
         FTW_DEPTH | FTW_PHYS);
}

double RelativeError(const torch::Tensor& actual, const torch::Tensor& expected) {
  const torch::Tensor a = actual.to(torch::kCPU, torch::kDouble);
  const torch::Tensor b = expected.to(torch::kCPU, torch::kDouble);
  const double scale = std::max(b.abs().max().item<double>(), 1.0);
  return (a - b).abs().max().item<double>() / scale;
}

double TokenAgreement(const std::vector<std::vector<std::int64_t>>& a, const std::vector<std::vector<std::int64_t>>& b) {
  std::int64_t same = 0, total = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    for (std::size_t t = 0; t < std::min(a[i].size(), b[i].size()); ++t, ++total) same += a[i][t] == b[i][t];
  }
  return total == 0 ? 0.0 : static_cast<double>(same) / static_cast<double>(total);
}

void ExpectNearArgmax(const torch::Tensor& logits, const std::vector<std::int64_t>& chosen, double tolerance,
                      const std::string& what) {
  const torch::Tensor cpu = logits.to(torch::kCPU).to(torch::kFloat);
  ASSERT_EQ(cpu.size(0), static_cast<std::int64_t>(chosen.size())) << what;
  // Masked entries are -inf: the scale is that of the finite logits.
  const double scale = std::max(cpu.masked_fill(cpu.isinf(), 0).abs().max().item<double>(), 1.0);
  for (std::size_t t = 0; t < chosen.size(); ++t) {
    const torch::Tensor row = cpu[static_cast<std::int64_t>(t)];
    const double best = row.max().item<double>();
    const double picked = row[chosen[t]].item<double>();
    EXPECT_LE(best - picked, tolerance * scale) << what << ": position " << t << " picked " << chosen[t] << " ("
                                                << picked << ") where the best is " << row.argmax().item<std::int64_t>()
                                                << " (" << best << ")";
  }
}

}  // namespace lingcast::neural::testing
