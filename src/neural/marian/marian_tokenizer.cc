#include "neural/marian/marian_tokenizer.h"

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "neural/core/neural_error.h"

namespace lingcast::neural {
namespace {

namespace fs = std::filesystem;

std::unique_ptr<SentencePieceModel> LoadSpm(const std::string& dir, const char* name) {
  const std::string path = (fs::path(dir) / name).string();
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    Fail(ErrorCode::kNotFound, dir + ": no " + name + ": a Marian tokenizer needs source.spm, target.spm and vocab.json");
  }
  return SentencePieceModel::Load(path);
}

std::unordered_map<std::string, std::int64_t> LoadVocab(const std::string& dir, const char* name) {
  const std::string path = (fs::path(dir) / name).string();
  std::ifstream in(path);
  if (!in) Fail(ErrorCode::kNotFound, dir + ": no " + name + ": a Marian tokenizer needs source.spm, target.spm and vocab.json");
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    Fail(ErrorCode::kInvalidArgument, path + ": not valid JSON (" + e.what() + ")");
  }
  if (!json.is_object()) Fail(ErrorCode::kInvalidArgument, path + ": not a JSON object of token -> id");
  std::unordered_map<std::string, std::int64_t> vocab;
  for (const auto& [token, id] : json.items()) {
    if (!id.is_number_integer() || id.get<std::int64_t>() < 0) {
      Fail(ErrorCode::kInvalidArgument, path + ": token \"" + token + "\" has id " + id.dump() + ", not a non-negative integer");
    }
    vocab[token] = id.get<std::int64_t>();
  }
  for (const char* special : {"</s>", "<unk>", "<pad>"}) {
    if (vocab.count(special) == 0) Fail(ErrorCode::kInvalidArgument, path + ": no \"" + special + "\" token");
  }
  return vocab;
}

bool SeparateVocabs(const std::string& dir) {
  std::ifstream in(fs::path(dir) / "tokenizer_config.json");
  if (!in) return false;
  const nlohmann::json config = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  return config.is_object() && config.value("separate_vocabs", false);
}

}  // namespace

MarianTokenizer::MarianTokenizer() = default;
MarianTokenizer::MarianTokenizer(MarianTokenizer&&) noexcept = default;
MarianTokenizer& MarianTokenizer::operator=(MarianTokenizer&&) noexcept = default;
MarianTokenizer::~MarianTokenizer() = default;

MarianTokenizer MarianTokenizer::Load(const std::string& dir) {
  MarianTokenizer t;
  t.source_spm_ = LoadSpm(dir, "source.spm");
  t.target_spm_ = LoadSpm(dir, "target.spm");
  t.source_vocab_ = LoadVocab(dir, "vocab.json");
  t.target_vocab_ = SeparateVocabs(dir) ? LoadVocab(dir, "target_vocab.json") : t.source_vocab_;
  for (const auto& [piece, id] : t.target_vocab_) t.target_pieces_[id] = piece;
  t.eos_id_ = t.source_vocab_.at("</s>");
  t.unk_id_ = t.source_vocab_.at("<unk>");
  t.pad_id_ = t.source_vocab_.at("<pad>");
  return t;
}

std::vector<std::int64_t> MarianTokenizer::EncodeWith(const SentencePieceModel& spm,
                                                      const std::unordered_map<std::string, std::int64_t>& vocab,
                                                      const std::string& text) const {
  std::vector<std::int64_t> ids;
  std::string rest = text;
  // A language code such as ">>fra<<" at the start is a token of its own.
  if (rest.rfind(">>", 0) == 0) {
    const auto close = rest.find("<<");
    if (close != std::string::npos) {
      const std::string code = rest.substr(0, close + 2);
      auto it = vocab.find(code);
      ids.push_back(it == vocab.end() ? unk_id_ : it->second);
      rest = rest.substr(close + 2);
    }
  }
  for (const auto& piece : spm.Encode(rest)) {
    auto it = vocab.find(piece);
    ids.push_back(it == vocab.end() ? unk_id_ : it->second);
  }
  ids.push_back(eos_id_);
  return ids;
}

std::vector<std::int64_t> MarianTokenizer::Encode(const std::string& text) const {
  return EncodeWith(*source_spm_, source_vocab_, text);
}

std::vector<std::int64_t> MarianTokenizer::EncodeTarget(const std::string& text) const {
  return EncodeWith(*target_spm_, target_vocab_, text);
}

std::string MarianTokenizer::Decode(const std::vector<std::int64_t>& ids) const {
  std::vector<std::string> pieces;
  for (std::int64_t id : ids) {
    if (id == eos_id_ || id == pad_id_ || id == unk_id_) continue;
    auto it = target_pieces_.find(id);
    if (it != target_pieces_.end()) pieces.push_back(it->second);
  }
  std::string text = target_spm_->Decode(pieces);
  // As transformers does: any "▁" the model left becomes a space; trim the ends.
  // (Built anew rather than with std::string::replace, which GCC 12 at -O3
  // reports as a possible overlapping memcpy: a known false positive.)
  const std::string kSpieceUnderline = "\xE2\x96\x81";
  std::string spaced;
  spaced.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    if (text.compare(i, kSpieceUnderline.size(), kSpieceUnderline) == 0) {
      spaced.push_back(' ');
      i += kSpieceUnderline.size();
    } else {
      spaced.push_back(text[i++]);
    }
  }
  text = std::move(spaced);
  const auto first = text.find_first_not_of(" \t\n");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\n") - first + 1);
}

}  // namespace lingcast::neural
