#include "neural/core/ctranslate2_checkpoint.h"

#include <dirent.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <limits>
#include <set>

#include "neural/core/neural_error.h"
#include "neural/core/safetensors.h"  // ShapeString

namespace lingcast::neural {
namespace {

constexpr std::uint32_t kNewestBinaryVersion = 6;
// A first word above this is not a version CTranslate2 could have written soon:
// the file is something else (a safetensors header length, a zip, a pickle).
constexpr std::uint32_t kPlausibleBinaryVersion = 99;
// CTranslate2's variables are at most 4-D; a larger rank is a damaged byte.
constexpr std::uint8_t kMaxRank = 8;
// CTranslate2's scale for int16 weights saved without one (ops::Quantize).
constexpr float kDefaultInt16Scale = 1000.0f;

torch::ScalarType TorchType(Ct2DType dtype) {
  switch (dtype) {
    case Ct2DType::kFloat32: return torch::kFloat;
    case Ct2DType::kInt8: return torch::kChar;
    case Ct2DType::kInt16: return torch::kShort;
    case Ct2DType::kInt32: return torch::kInt;
    case Ct2DType::kFloat16: return torch::kHalf;
    case Ct2DType::kBFloat16: return torch::kBFloat16;
  }
  return torch::kFloat;  // unreachable: every code is checked when the table is read
}

bool IsFloat(Ct2DType dtype) {
  return dtype == Ct2DType::kFloat32 || dtype == Ct2DType::kFloat16 || dtype == Ct2DType::kBFloat16;
}

std::string Describe(const Ct2Variable& v) { return Ct2DTypeName(v.dtype) + " " + ShapeString(v.shape); }

// Names in CTranslate2's specs are attribute paths ("decoder/layer_0/ffn/linear_0/weight"):
// printable ASCII. Anything else is a length that pointed into the wrong bytes.
bool IsPrintableName(const std::string& s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c > ' ' && c < 0x7f; });
}

}  // namespace

std::string Ct2DTypeName(Ct2DType dtype) {
  switch (dtype) {
    case Ct2DType::kFloat32: return "float32";
    case Ct2DType::kInt8: return "int8";
    case Ct2DType::kInt16: return "int16";
    case Ct2DType::kInt32: return "int32";
    case Ct2DType::kFloat16: return "float16";
    case Ct2DType::kBFloat16: return "bfloat16";
  }
  return "dtype " + std::to_string(static_cast<int>(dtype));
}

std::size_t Ct2DTypeBytes(Ct2DType dtype) {
  switch (dtype) {
    case Ct2DType::kInt8: return 1;
    case Ct2DType::kInt16:
    case Ct2DType::kFloat16:
    case Ct2DType::kBFloat16: return 2;
    case Ct2DType::kFloat32:
    case Ct2DType::kInt32: return 4;
  }
  return 0;
}

bool Ct2Checkpoint::IsCheckpointDir(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  return fs::exists(fs::path(dir) / "model.bin", ec) || fs::exists(fs::path(dir) / "model.bin.part1", ec);
}

std::shared_ptr<const Ct2Checkpoint> Ct2Checkpoint::Open(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path single = fs::path(dir) / "model.bin";
  if (fs::exists(single, ec)) return OpenFiles({single.string()});
  // The parts present, by number; they must run 1 .. N without a gap. Listed
  // with POSIX calls: pip's libtorch (the GPU machine's) exports broken copies
  // of some of libstdc++'s std::filesystem (src/neural/README.md).
  std::set<std::uint64_t> numbers;
  const std::string prefix = "model.bin.part";
  const std::unique_ptr<DIR, int (*)(DIR*)> listing(::opendir(dir.c_str()), &::closedir);
  for (const dirent* entry = listing ? ::readdir(listing.get()) : nullptr; entry != nullptr; entry = ::readdir(listing.get())) {
    const std::string file = entry->d_name;
    if (file.size() <= prefix.size() || file.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string digits = file.substr(prefix.size());
    if (digits.size() > 6 || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) continue;
    numbers.insert(std::stoull(digits));
  }
  if (numbers.empty()) {
    Fail(ErrorCode::kNotFound, dir + ": no model.bin or model.bin.part1: not a CTranslate2 checkpoint directory");
  }
  std::vector<std::string> paths;
  for (std::uint64_t n = 1; n <= *numbers.rbegin(); ++n) {
    if (numbers.count(n) == 0) {
      Fail(ErrorCode::kNotFound, dir + ": has model.bin.part" + std::to_string(*numbers.rbegin()) + " but no model.bin.part" +
                                     std::to_string(n) + ": a split checkpoint needs every part");
    }
    paths.push_back((fs::path(dir) / (prefix + std::to_string(n))).string());
  }
  return OpenFiles(paths);
}

std::shared_ptr<const Ct2Checkpoint> Ct2Checkpoint::OpenFiles(const std::vector<std::string>& paths) {
  if (paths.empty()) Fail(ErrorCode::kInvalidArgument, "a CTranslate2 checkpoint needs at least one file");
  std::shared_ptr<Ct2Checkpoint> checkpoint(new Ct2Checkpoint());
  for (const std::string& path : paths) {
    checkpoint->parts_.push_back(MappedFile::Open(path));
    checkpoint->part_begin_.push_back(checkpoint->size_);
    checkpoint->size_ += checkpoint->parts_.back()->size();
  }
  const std::string& last = paths.back();
  checkpoint->name_ = paths.size() == 1 ? paths.front() : paths.front() + " .. " + last.substr(last.rfind('/') + 1);
  checkpoint->Parse();
  return checkpoint;
}

std::size_t Ct2Checkpoint::PartOf(std::uint64_t offset) const {
  // The last part beginning at or before `offset`: an empty part begins where
  // the next one does, so it is never the one chosen.
  const auto it = std::upper_bound(part_begin_.begin(), part_begin_.end(), offset);
  return static_cast<std::size_t>(it - part_begin_.begin()) - 1;
}

void Ct2Checkpoint::Copy(std::uint64_t offset, std::uint64_t bytes, void* out) const {
  auto* to = static_cast<std::uint8_t*>(out);
  while (bytes > 0) {
    const std::size_t part = PartOf(offset);
    const std::uint64_t within = offset - part_begin_[part];
    const std::uint64_t n = std::min<std::uint64_t>(bytes, parts_[part]->size() - within);
    std::memcpy(to, parts_[part]->data() + within, n);
    to += n;
    offset += n;
    bytes -= n;
  }
}

void Ct2Checkpoint::ReleasePages(std::uint64_t offset, std::uint64_t bytes) const {
  static const auto page = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  const std::uint64_t end = offset + bytes;
  for (std::size_t part = 0; part < parts_.size(); ++part) {
    const std::uint64_t part_end = part_begin_[part] + parts_[part]->size();
    if (parts_[part]->size() == 0 || end <= part_begin_[part] || offset >= part_end) continue;
    // The whole pages of this part inside [offset, end): a page shared with a
    // neighbouring variable stays (the mapping is page-aligned).
    const std::uint64_t from = (std::max(offset, part_begin_[part]) - part_begin_[part] + page - 1) / page * page;
    const std::uint64_t to = (std::min(end, part_end) - part_begin_[part]) / page * page;
    if (to > from) ::madvise(parts_[part]->data() + from, to - from, MADV_DONTNEED);
  }
}

void Ct2Checkpoint::Parse() {
  std::uint64_t at = 0;  // the read position in the byte stream
  const std::string& last_file = parts_.back()->path();
  // The file that holds stream byte `offset` (the last one past the end).
  auto file_at = [&](std::uint64_t offset) -> const std::string& {
    return offset < size_ ? parts_[PartOf(offset)]->path() : last_file;
  };
  const std::string where_end = parts_.size() == 1 ? "the file ends at byte " + std::to_string(size_)
                                                   : "its " + std::to_string(parts_.size()) + " parts end at byte " +
                                                         std::to_string(size_) + " together";
  auto need = [&](std::uint64_t bytes, const std::string& what) {
    if (bytes > size_ - at) {
      Fail(ErrorCode::kDataLoss, last_file + ": truncated: " + what + " needs " + std::to_string(bytes) + " bytes from byte " +
                                     std::to_string(at) + ", but " + where_end +
                                     ": the checkpoint is truncated or corrupt");
    }
  };
  auto read_le = [&](std::size_t bytes, const std::string& what) {
    need(bytes, what);
    std::uint8_t raw[4] = {};
    Copy(at, bytes, raw);
    at += bytes;
    std::uint32_t v = 0;
    for (std::size_t i = bytes; i-- > 0;) v = (v << 8) | raw[i];
    return v;
  };
  auto read_u8 = [&](const std::string& what) { return static_cast<std::uint8_t>(read_le(1, what)); };
  auto read_u32 = [&](const std::string& what) { return read_le(4, what); };
  auto read_string = [&](const std::string& what) {
    const std::uint64_t begin = at;
    const auto length = static_cast<std::uint16_t>(read_le(2, what + "'s length"));
    if (length == 0) Fail(ErrorCode::kDataLoss, file_at(begin) + ": " + what + " has length 0 (byte " + std::to_string(begin) + "): the checkpoint is corrupt");
    need(length, what);
    std::string s(length, '\0');
    Copy(at, length, s.data());
    at += length;
    if (s.back() != '\0' || !IsPrintableName(s.substr(0, s.size() - 1))) {
      Fail(ErrorCode::kDataLoss, file_at(begin) + ": " + what + " (byte " + std::to_string(begin) +
                                     ") is not a NUL-terminated name of " + std::to_string(length) +
                                     " bytes: the checkpoint is corrupt");
    }
    s.pop_back();
    return s;
  };

  if (size_ < 4) {
    Fail(ErrorCode::kDataLoss, name_ + ": " + std::to_string(size_) +
                                   " bytes, too short for a CTranslate2 model.bin: truncated or not a CTranslate2 checkpoint");
  }
  binary_version_ = read_u32("the binary version");
  if (binary_version_ == 0 || binary_version_ > kPlausibleBinaryVersion) {
    Fail(ErrorCode::kInvalidArgument, parts_.front()->path() + ": starts with " + std::to_string(binary_version_) +
                                          ", not a CTranslate2 binary version (1 .. " + std::to_string(kNewestBinaryVersion) +
                                          "): not a CTranslate2 model.bin");
  }
  if (binary_version_ > kNewestBinaryVersion) {
    Fail(ErrorCode::kUnimplemented, parts_.front()->path() + ": CTranslate2 binary version " + std::to_string(binary_version_) +
                                        ", newer than this reader's 1 .. " + std::to_string(kNewestBinaryVersion));
  }
  if (binary_version_ >= 2) {
    spec_name_ = read_string("the spec name");
    spec_revision_ = read_u32("the spec revision");
  } else {
    spec_revision_ = 1;
  }

  // A count larger than the file can hold (a damaged one) fails at the first
  // entry past the end, naming it; nothing is reserved for it beforehand.
  const std::uint32_t count = read_u32("the variable count");
  for (std::uint32_t i = 0; i < count; ++i) {
    const std::uint64_t entry = at;
    const std::string name = read_string("variable " + std::to_string(i + 1) + " of " + std::to_string(count) + "'s name");
    const std::string what = "variable '" + name + "'";
    Ct2Variable v;
    const std::uint8_t rank = read_u8(what + "'s rank");
    if (rank > kMaxRank) {
      Fail(ErrorCode::kDataLoss, file_at(entry) + ": " + what + " has rank " + std::to_string(rank) +
                                     " (at most " + std::to_string(kMaxRank) + "): the checkpoint is corrupt");
    }
    std::uint64_t elements = 1;
    bool overflows = false;
    for (std::uint8_t d = 0; d < rank; ++d) {
      const std::uint32_t dim = read_u32(what + "'s dimensions");
      v.shape.push_back(dim);
      if (dim != 0 && elements > std::numeric_limits<std::uint64_t>::max() / 8 / dim) overflows = true;
      elements *= dim;
    }
    if (overflows) {
      Fail(ErrorCode::kDataLoss, file_at(entry) + ": " + what + " has shape " + ShapeString(v.shape) +
                                     ", too large for any file: the checkpoint is corrupt");
    }
    std::uint64_t stored_bytes = 0;
    if (binary_version_ >= 4) {
      const std::uint8_t code = read_u8(what + "'s dtype");
      if (code > static_cast<std::uint8_t>(Ct2DType::kBFloat16)) {
        Fail(ErrorCode::kUnimplemented, file_at(entry) + ": " + what + " has dtype code " + std::to_string(code) +
                                            ", which this reader does not know (float32 0, int8 1, int16 2, int32 3, "
                                            "float16 4, bfloat16 5)");
      }
      v.dtype = static_cast<Ct2DType>(code);
      stored_bytes = read_u32(what + "'s byte count");
    } else {
      // Before version 4 the file said only how wide an item is.
      const std::uint8_t item = read_u8(what + "'s item size");
      if (item != 4 && item != 2 && item != 1) {
        Fail(ErrorCode::kDataLoss, file_at(entry) + ": " + what + " has item size " + std::to_string(item) +
                                       " (1, 2 or 4 in binary version " + std::to_string(binary_version_) +
                                       "): the checkpoint is corrupt");
      }
      v.dtype = item == 4 ? Ct2DType::kFloat32 : item == 2 ? Ct2DType::kInt16 : Ct2DType::kInt8;
      stored_bytes = std::uint64_t{read_u32(what + "'s element count")} * item;
    }
    v.bytes = elements * Ct2DTypeBytes(v.dtype);
    if (stored_bytes != v.bytes) {
      Fail(ErrorCode::kDataLoss, file_at(entry) + ": " + what + " is " + Describe(v) + ", " + std::to_string(v.bytes) +
                                     " bytes, but its byte count says " + std::to_string(stored_bytes) +
                                     ": the checkpoint is corrupt");
    }
    need(v.bytes, what + "'s data (" + Describe(v) + ")");
    v.offset = at;
    at += v.bytes;
    if (!variables_.emplace(name, std::move(v)).second) {
      Fail(ErrorCode::kDataLoss, file_at(entry) + ": " + what + " is stored twice: the checkpoint is corrupt");
    }
  }

  if (binary_version_ >= 3) {
    const std::uint32_t alias_count = read_u32("the alias count");
    for (std::uint32_t i = 0; i < alias_count; ++i) {
      const std::uint64_t entry = at;
      const std::string alias = read_string("alias " + std::to_string(i + 1) + " of " + std::to_string(alias_count));
      const std::string target = read_string("the target of alias '" + alias + "'");
      if (Contains(alias)) {
        Fail(ErrorCode::kDataLoss, file_at(entry) + ": alias '" + alias + "' names a variable that is already there: "
                                                                          "the checkpoint is corrupt");
      }
      // CTranslate2 registers an alias of a name it already knows, an earlier
      // alias included; so chains resolve in order and cannot loop.
      std::string resolved = target;
      if (variables_.count(target) == 0) {
        auto earlier = aliases_.find(target);
        if (earlier == aliases_.end()) {
          Fail(ErrorCode::kDataLoss, file_at(entry) + ": alias '" + alias + "' stands for variable '" + target +
                                         "', which the checkpoint does not hold: the checkpoint is corrupt");
        }
        resolved = earlier->second;
      }
      aliases_.emplace(alias, std::move(resolved));
    }
  }
  if (at != size_) {
    Fail(ErrorCode::kDataLoss, file_at(at) + ": " + std::to_string(size_ - at) + " bytes after the " +
                                   (binary_version_ >= 3 ? "alias table" : "variables") + " (from byte " +
                                   std::to_string(at) + "): the checkpoint is corrupt, or these files are not one checkpoint");
  }
}

const std::string& Ct2Checkpoint::Resolve(const std::string& name) const {
  if (auto v = variables_.find(name); v != variables_.end()) return v->first;
  if (auto a = aliases_.find(name); a != aliases_.end()) return a->second;
  Fail(ErrorCode::kNotFound, name_ + ": no variable '" + name + "'");
}

const Ct2Variable& Ct2Checkpoint::Info(const std::string& name) const { return variables_.at(Resolve(name)); }

std::vector<std::string> Ct2Checkpoint::Names() const {
  std::vector<std::string> names;
  for (const auto& [name, variable] : variables_) names.push_back(name);
  return names;
}

const std::string& Ct2Checkpoint::FileOf(const std::string& name) const {
  const Ct2Variable& v = Info(name);
  // An empty variable names the file its entry ends in.
  return parts_[PartOf(std::min(v.offset, size_ - 1))]->path();
}

torch::Tensor Ct2Checkpoint::LoadRange(const std::string& resolved, std::int64_t first_row, std::int64_t rows) const {
  const Ct2Variable& v = variables_.at(resolved);
  std::vector<std::int64_t> shape = v.shape;
  std::uint64_t offset = v.offset;
  std::uint64_t bytes = v.bytes;
  if (!shape.empty() && (first_row != 0 || rows != shape[0])) {
    const std::uint64_t row_bytes = shape[0] == 0 ? 0 : v.bytes / static_cast<std::uint64_t>(shape[0]);
    offset += static_cast<std::uint64_t>(first_row) * row_bytes;
    bytes = static_cast<std::uint64_t>(rows) * row_bytes;
    shape[0] = rows;
  }
  torch::Tensor out = torch::empty(shape, torch::TensorOptions().dtype(TorchType(v.dtype)));
  Copy(offset, bytes, out.data_ptr());
  ReleasePages(offset, bytes);
  return out;
}

torch::Tensor Ct2Checkpoint::Load(const std::string& name) const {
  const std::string& resolved = Resolve(name);
  const Ct2Variable& v = variables_.at(resolved);
  return LoadRange(resolved, 0, v.shape.empty() ? 1 : v.shape[0]);
}

std::int64_t Ct2Checkpoint::LoadInt(const std::string& name) const {
  const Ct2Variable& v = Info(name);
  if (!v.shape.empty() || IsFloat(v.dtype)) {
    Fail(ErrorCode::kInvalidArgument, FileOf(name) + ": variable '" + name + "' is " + Describe(v) +
                                          ", expected an integer scalar");
  }
  return Load(name).item<std::int64_t>();
}

torch::Tensor Ct2Checkpoint::LoadWeight(const std::string& name, const std::vector<std::int64_t>& shape,
                                        const torch::TensorOptions& options) const {
  return LoadWeightRows(name, shape, 0, shape.empty() ? 1 : shape[0], options);
}

torch::Tensor Ct2Checkpoint::LoadWeightRows(const std::string& name, const std::vector<std::int64_t>& shape,
                                            std::int64_t first_row, std::int64_t rows,
                                            const torch::TensorOptions& options) const {
  const std::string& resolved = Resolve(name);
  const Ct2Variable& v = variables_.at(resolved);
  const std::string what = FileOf(name) + ": variable '" + name + "'" + (resolved != name ? " (alias of '" + resolved + "')" : "");
  if (v.shape != shape) Fail(ErrorCode::kInvalidArgument, what + " is " + Describe(v) + ", expected shape " + ShapeString(shape));
  const std::int64_t all_rows = shape.empty() ? 1 : shape[0];
  if (first_row < 0 || rows < 0 || first_row + rows > all_rows) {
    Fail(ErrorCode::kInternal, what + ": rows " + std::to_string(first_row) + " + " + std::to_string(rows) +
                                   " asked of " + std::to_string(all_rows));
  }
  torch::Tensor stored = LoadRange(resolved, first_row, rows);
  if (IsFloat(v.dtype)) return stored.to(options);
  if (v.dtype == Ct2DType::kInt32) Fail(ErrorCode::kInvalidArgument, what + " is " + Describe(v) + ", not a weight");

  // int8 or int16: dequantized with the scale stored beside it (an alias's is its target's).
  const std::string scale_name = resolved + "_scale";
  torch::Tensor scale;
  if (variables_.count(scale_name) != 0) {
    const Ct2Variable& s = variables_.at(scale_name);
    const std::string scale_what = FileOf(scale_name) + ": variable '" + scale_name + "'";
    const bool per_row = s.shape == std::vector<std::int64_t>{all_rows};
    if (!IsFloat(s.dtype) || !(per_row || s.shape.empty())) {
      Fail(ErrorCode::kInvalidArgument, scale_what + " is " + Describe(s) + ", expected the float scale of " + Describe(v) +
                                            " '" + resolved + "': [" + std::to_string(all_rows) + "] (one per row) or a scalar");
    }
    scale = Load(scale_name).to(torch::kFloat);
    if (per_row) scale = scale.narrow(0, first_row, rows);
    if (!(scale > 0).all().item<bool>() || !torch::isfinite(scale).all().item<bool>()) {
      Fail(ErrorCode::kInvalidArgument, scale_what + " holds a scale that is not a positive number: the checkpoint is corrupt");
    }
  } else if (v.dtype == Ct2DType::kInt16) {
    scale = torch::tensor(kDefaultInt16Scale);  // what CTranslate2 assumes for old int16 files
  } else {
    Fail(ErrorCode::kInvalidArgument, what + " is " + Describe(v) + " without its scale '" + scale_name + "'");
  }
  if (scale.dim() == 1) {
    std::vector<std::int64_t> per_row_shape(shape.size(), 1);
    per_row_shape[0] = rows;
    scale = scale.view(per_row_shape);
  }
  // As CTranslate2 dequantizes: q times the reciprocal of the scale, in float32.
  return (stored.to(torch::kFloat) * scale.reciprocal()).to(options);
}

}  // namespace lingcast::neural
