#include "neural/whisper/whisper_tokenizer.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <limits>
#include <regex>

#include <nlohmann/json.hpp>

#include "neural/core/neural_error.h"

namespace lingcast::neural {
namespace {

struct CodePointRange {
  char32_t first, last;
};
#include "neural/whisper/whisper_unicode_ranges.inc"

template <std::size_t N>
bool InRanges(const CodePointRange (&ranges)[N], char32_t cp) {
  const auto* it = std::upper_bound(std::begin(ranges), std::end(ranges), cp,
                                    [](char32_t c, const CodePointRange& r) { return c < r.first; });
  return it != std::begin(ranges) && cp <= (it - 1)->last;
}

bool IsLetter(char32_t cp) { return InRanges(kLetterRanges, cp); }
bool IsNumber(char32_t cp) { return InRanges(kNumberRanges, cp); }
bool IsSpace(char32_t cp) {  // Unicode White_Space, as the pattern's \s
  return (cp >= 9 && cp <= 13) || cp == 32 || cp == 0x85 || cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) ||
         cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000;
}
bool IsOther(char32_t cp) { return !IsSpace(cp) && !IsLetter(cp) && !IsNumber(cp); }

void AppendUtf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// UTF-8 -> code points with their byte offsets; an invalid byte stands for itself
// (as U+FFFD would lose it), so every input byte still reaches the BPE.
struct CodePoints {
  std::vector<char32_t> cps;
  std::vector<std::size_t> offsets;  // byte offset of each code point; one more at the end
};

CodePoints DecodeUtf8(const std::string& s) {
  CodePoints out;
  std::size_t i = 0;
  while (i < s.size()) {
    const auto b = static_cast<unsigned char>(s[i]);
    int extra = b < 0x80 ? 0 : (b >> 5) == 6 ? 1 : (b >> 4) == 14 ? 2 : (b >> 3) == 30 ? 3 : -1;
    char32_t cp = extra == 0 ? b : extra == 1 ? (b & 0x1F) : extra == 2 ? (b & 0x0F) : (b & 0x07);
    bool valid = extra >= 0;
    for (int k = 1; valid && k <= extra; ++k) {
      if (i + static_cast<std::size_t>(k) >= s.size()) {
        valid = false;
        break;
      }
      const auto c = static_cast<unsigned char>(s[i + static_cast<std::size_t>(k)]);
      if ((c >> 6) != 2) valid = false;
      cp = (cp << 6) | (c & 0x3F);
    }
    out.offsets.push_back(i);
    if (!valid) {
      out.cps.push_back(b);
      i += 1;
    } else {
      out.cps.push_back(cp);
      i += static_cast<std::size_t>(extra) + 1;
    }
  }
  out.offsets.push_back(s.size());
  return out;
}

// Replaces each maximal invalid UTF-8 subsequence with U+FFFD, as Python's
// decode(errors="replace") and Rust's from_utf8_lossy do: a token boundary may
// split a character, and a sequence may end inside one.
std::string ReplaceInvalidUtf8(const std::string& in) {
  std::string out;
  std::size_t i = 0;
  const std::size_t n = in.size();
  while (i < n) {
    const auto b = static_cast<unsigned char>(in[i]);
    int need = 0;
    unsigned char low = 0x80, high = 0xBF;  // the second byte's range
    if (b < 0x80) {
      out += static_cast<char>(b);
      ++i;
      continue;
    } else if (b >= 0xC2 && b <= 0xDF) {
      need = 1;
    } else if (b >= 0xE0 && b <= 0xEF) {
      need = 2;
      if (b == 0xE0) low = 0xA0;
      if (b == 0xED) high = 0x9F;
    } else if (b >= 0xF0 && b <= 0xF4) {
      need = 3;
      if (b == 0xF0) low = 0x90;
      if (b == 0xF4) high = 0x8F;
    }
    std::size_t j = i + 1;
    int got = 0;
    while (got < need && j < n) {
      const auto c = static_cast<unsigned char>(in[j]);
      const bool ok = got == 0 ? (c >= low && c <= high) : (c >= 0x80 && c <= 0xBF);
      if (!ok) break;
      ++j;
      ++got;
    }
    if (need > 0 && got == need) {
      out.append(in, i, j - i);
    } else {
      out += "\xEF\xBF\xBD";
    }
    i = j;
  }
  return out;
}

// GPT-2's bytes_to_unicode: every byte as a printable character, bytes that are
// printable themselves unchanged.
std::array<char32_t, 256> ByteToUnicode() {
  std::array<char32_t, 256> table{};
  std::array<bool, 256> printable{};
  for (int b = '!'; b <= '~'; ++b) printable[static_cast<std::size_t>(b)] = true;
  for (int b = 0xA1; b <= 0xAC; ++b) printable[static_cast<std::size_t>(b)] = true;
  for (int b = 0xAE; b <= 0xFF; ++b) printable[static_cast<std::size_t>(b)] = true;
  char32_t next = 256;
  for (std::size_t b = 0; b < 256; ++b) table[b] = printable[b] ? static_cast<char32_t>(b) : next++;
  return table;
}

// GPT-2's pre-tokenizer pattern, hand-written:
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
std::vector<std::string> PreTokenize(const std::string& text) {
  const CodePoints cp = DecodeUtf8(text);
  const std::size_t n = cp.cps.size();
  std::vector<std::string> pieces;
  auto at = [&](std::size_t i) { return i < n ? cp.cps[i] : char32_t{0}; };
  std::size_t i = 0;
  while (i < n) {
    std::size_t end = i;
    const char32_t c = cp.cps[i];
    if (c == U'\'' && i + 1 < n) {
      const char32_t a = at(i + 1), b = at(i + 2);
      if (a == U's' || a == U't' || a == U'm' || a == U'd') {
        end = i + 2;
      } else if ((a == U'r' && b == U'e') || (a == U'v' && b == U'e') || (a == U'l' && b == U'l')) {
        end = i + 3;
      }
    }
    if (end == i) {
      const std::size_t body = (c == U' ' && i + 1 < n) ? i + 1 : i;
      for (auto* cls : {&IsLetter, &IsNumber, &IsOther}) {
        if (body < n && (*cls)(cp.cps[body])) {
          end = body;
          while (end < n && (*cls)(cp.cps[end])) ++end;
          break;
        }
      }
    }
    if (end == i) {  // whitespace: a run, leaving its last character to the next piece
      end = i;
      while (end < n && IsSpace(cp.cps[end])) ++end;
      if (end == i) end = i + 1;  // unreachable: every code point is in one class
      if (end < n && end - i >= 2) --end;
    }
    pieces.push_back(text.substr(cp.offsets[i], cp.offsets[end] - cp.offsets[i]));
    i = end;
  }
  return pieces;
}

nlohmann::json ReadJson(const std::string& path) {
  std::ifstream in(path);
  if (!in) Fail(ErrorCode::kNotFound, path + ": cannot open");
  nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) Fail(ErrorCode::kInvalidArgument, path + ": not valid JSON");
  return j;
}

bool IsTimestampToken(const std::string& content) {
  static const std::regex kTimestamp(R"(<\|\d+\.\d+\|>)");
  return std::regex_match(content, kTimestamp);
}

}  // namespace

WhisperTokenizer WhisperTokenizer::Load(const std::string& dir) {
  namespace fs = std::filesystem;
  WhisperTokenizer t;
  t.dir_ = dir;
  const fs::path root(dir);
  const std::string vocab_path = (root / "vocab.json").string();
  const std::string merges_path = (root / "merges.txt").string();
  const std::string tokenizer_json = (root / "tokenizer.json").string();

  std::vector<std::pair<std::string, std::string>> merges;
  nlohmann::json vocab;
  nlohmann::json tokenizer;  // tokenizer.json, when present
  if (fs::exists(tokenizer_json)) tokenizer = ReadJson(tokenizer_json);
  if (fs::exists(vocab_path) && fs::exists(merges_path)) {
    vocab = ReadJson(vocab_path);
    if (!vocab.is_object()) Fail(ErrorCode::kInvalidArgument, vocab_path + ": not a token -> id map");
    std::ifstream in(merges_path);
    std::string line;
    int line_no = 0;
    while (std::getline(in, line)) {
      ++line_no;
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (line.empty() || (line_no == 1 && line.rfind("#version", 0) == 0)) continue;
      const auto space = line.find(' ');
      if (space == std::string::npos || space == 0 || space + 1 == line.size()) {
        Fail(ErrorCode::kInvalidArgument, merges_path + ": line " + std::to_string(line_no) + " is not a merge \"a b\"");
      }
      merges.emplace_back(line.substr(0, space), line.substr(space + 1));
    }
  } else if (tokenizer.is_object()) {
    const nlohmann::json& model = tokenizer.value("model", nlohmann::json());
    if (!model.is_object() || model.value("type", std::string()) != "BPE" || !model.contains("vocab") ||
        !model.contains("merges")) {
      Fail(ErrorCode::kInvalidArgument, tokenizer_json + ": model is not a BPE model with vocab and merges");
    }
    vocab = model["vocab"];
    for (const auto& m : model["merges"]) {
      if (m.is_string()) {
        const std::string s = m.get<std::string>();
        const auto space = s.find(' ');
        if (space == std::string::npos) Fail(ErrorCode::kInvalidArgument, tokenizer_json + ": merge \"" + s + "\" is not \"a b\"");
        merges.emplace_back(s.substr(0, space), s.substr(space + 1));
      } else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {
        merges.emplace_back(m[0].get<std::string>(), m[1].get<std::string>());
      } else {
        Fail(ErrorCode::kInvalidArgument, tokenizer_json + ": a merge is neither \"a b\" nor [a, b]");
      }
    }
  } else {
    Fail(ErrorCode::kNotFound, dir + ": no Whisper tokenizer: need vocab.json + merges.txt, or tokenizer.json");
  }

  auto add = [&](const std::string& content, std::int64_t id, const std::string& source) {
    if (id < 0 || id > std::numeric_limits<std::int32_t>::max()) {
      Fail(ErrorCode::kInvalidArgument, source + ": token \"" + content + "\" has id " + std::to_string(id));
    }
    if (static_cast<std::size_t>(id) >= t.id_to_token_.size()) t.id_to_token_.resize(static_cast<std::size_t>(id) + 1);
    t.id_to_token_[static_cast<std::size_t>(id)] = content;
    t.token_to_id_[content] = id;
  };
  for (const auto& [content, id] : vocab.items()) {
    if (!id.is_number_integer()) Fail(ErrorCode::kInvalidArgument, vocab_path + ": the id of \"" + content + "\" is not an integer");
    add(content, id.get<std::int64_t>(), vocab_path);
  }
  auto add_special = [&](const std::string& content, std::int64_t id, bool special, const std::string& source) {
    add(content, id, source);
    t.added_by_text_[content] = id;
    // Timestamps are added tokens that are not "special"; text decoding drops them too.
    if (special || IsTimestampToken(content)) t.special_[id] = content;
  };
  if (tokenizer.is_object() && tokenizer.contains("added_tokens")) {
    for (const auto& a : tokenizer["added_tokens"]) {
      add_special(a.value("content", std::string()), a.value("id", std::int64_t{-1}), a.value("special", true), tokenizer_json);
    }
  }
  const std::string added_path = (root / "added_tokens.json").string();
  if (fs::exists(added_path)) {
    const nlohmann::json added = ReadJson(added_path);
    for (const auto& [content, id] : added.items()) {
      if (!id.is_number_integer()) Fail(ErrorCode::kInvalidArgument, added_path + ": the id of \"" + content + "\" is not an integer");
      add_special(content, id.get<std::int64_t>(), true, added_path);
    }
  }
  const std::string config_path = (root / "tokenizer_config.json").string();
  if (fs::exists(config_path)) {
    const nlohmann::json config = ReadJson(config_path);
    if (config.contains("added_tokens_decoder") && config["added_tokens_decoder"].is_object()) {
      for (const auto& [id, entry] : config["added_tokens_decoder"].items()) {
        add_special(entry.value("content", std::string()), std::stoll(id), entry.value("special", true), config_path);
      }
    }
    t.clean_up_spaces_ = config.value("clean_up_tokenization_spaces", false);
  }
  if (t.token_to_id_.empty()) Fail(ErrorCode::kInvalidArgument, dir + ": the tokenizer's vocabulary is empty");
  for (std::size_t rank = 0; rank < merges.size(); ++rank) {
    t.merge_rank_.emplace(merges[rank].first + " " + merges[rank].second, static_cast<int>(rank));
  }
  return t;
}

void WhisperTokenizer::AddTimestampTokens(std::int64_t first_id, std::int64_t vocab_size) {
  if (first_id < 0 || first_id > vocab_size || vocab_size > std::numeric_limits<std::int32_t>::max()) {
    Fail(ErrorCode::kInvalidArgument, dir_ + ": timestamp tokens from id " + std::to_string(first_id) + " to " +
                                          std::to_string(vocab_size));
  }
  if (static_cast<std::size_t>(vocab_size) > id_to_token_.size()) id_to_token_.resize(static_cast<std::size_t>(vocab_size));
  for (std::int64_t id = first_id; id < vocab_size; ++id) {
    // In centiseconds, so that the name is exact ("<|0.14|>", as Python's "%.2f" % (i * 0.02) spells it).
    const std::int64_t centiseconds = 2 * (id - first_id);
    const std::string hundredths = std::to_string(centiseconds % 100);
    const std::string content =
        "<|" + std::to_string(centiseconds / 100) + "." + (hundredths.size() == 1 ? "0" : "") + hundredths + "|>";
    std::string& existing = id_to_token_[static_cast<std::size_t>(id)];
    if (!existing.empty() && !IsTimestampToken(existing)) {
      Fail(ErrorCode::kInvalidArgument, dir_ + ": token " + std::to_string(id) + " is \"" + existing +
                                            "\", but the model's ids from " + std::to_string(first_id) +
                                            " (<|notimestamps|> + 1) are timestamps (" + content + " here)");
    }
    if (existing.empty()) {
      existing = content;
      token_to_id_[content] = id;
      added_by_text_[content] = id;
    }
    special_[id] = existing;
  }
}

std::optional<std::int64_t> WhisperTokenizer::Find(const std::string& content) const {
  auto it = token_to_id_.find(content);
  if (it == token_to_id_.end()) return std::nullopt;
  return it->second;
}

std::int64_t WhisperTokenizer::Require(const std::string& content) const {
  auto id = Find(content);
  if (!id) Fail(ErrorCode::kNotFound, dir_ + ": the tokenizer has no token " + content);
  return *id;
}

const std::string& WhisperTokenizer::TokenText(std::int64_t id) const {
  if (id < 0 || id >= size()) {
    Fail(ErrorCode::kInvalidArgument, "token id " + std::to_string(id) + " is outside the vocabulary of " + std::to_string(size()));
  }
  return id_to_token_[static_cast<std::size_t>(id)];
}

std::vector<std::int64_t> WhisperTokenizer::EncodePiece(const std::string& piece) const {
  static const std::array<char32_t, 256> kByteToUnicode = ByteToUnicode();
  std::vector<std::string> symbols;
  for (unsigned char b : piece) {
    std::string s;
    AppendUtf8(s, kByteToUnicode[b]);
    symbols.push_back(std::move(s));
  }
  while (symbols.size() > 1) {
    int best = std::numeric_limits<int>::max();
    std::size_t best_at = 0;
    for (std::size_t i = 0; i + 1 < symbols.size(); ++i) {
      auto it = merge_rank_.find(symbols[i] + " " + symbols[i + 1]);
      if (it != merge_rank_.end() && it->second < best) {
        best = it->second;
        best_at = i;
      }
    }
    if (best == std::numeric_limits<int>::max()) break;
    const std::string left = symbols[best_at], right = symbols[best_at + 1];
    std::vector<std::string> merged;
    for (std::size_t i = 0; i < symbols.size(); ++i) {
      if (i + 1 < symbols.size() && symbols[i] == left && symbols[i + 1] == right) {
        merged.push_back(left + right);
        ++i;
      } else {
        merged.push_back(symbols[i]);
      }
    }
    symbols = std::move(merged);
  }
  std::vector<std::int64_t> ids;
  for (const auto& s : symbols) {
    auto it = token_to_id_.find(s);
    if (it == token_to_id_.end()) Fail(ErrorCode::kInvalidArgument, dir_ + ": the vocabulary has no token for \"" + s + "\"");
    ids.push_back(it->second);
  }
  return ids;
}

std::vector<std::int64_t> WhisperTokenizer::Encode(const std::string& text) const {
  std::vector<std::int64_t> ids;
  std::size_t start = 0;
  // Added tokens spelled in the text are cut out first (the longest at a position).
  auto encode_plain = [&](const std::string& plain) {
    for (const auto& piece : PreTokenize(plain)) {
      for (auto id : EncodePiece(piece)) ids.push_back(id);
    }
  };
  std::size_t i = 0;
  while (i < text.size()) {
    std::size_t best_len = 0;
    std::int64_t best_id = -1;
    if (text[i] == '<') {
      for (const auto& [content, id] : added_by_text_) {
        if (content.size() > best_len && text.compare(i, content.size(), content) == 0) {
          best_len = content.size();
          best_id = id;
        }
      }
    }
    if (best_len == 0) {
      ++i;
      continue;
    }
    encode_plain(text.substr(start, i - start));
    ids.push_back(best_id);
    i += best_len;
    start = i;
  }
  encode_plain(text.substr(start));
  return ids;
}

std::string WhisperTokenizer::Decode(const std::vector<std::int64_t>& ids, bool skip_special) const {
  static const std::array<char32_t, 256> kByteToUnicode = ByteToUnicode();
  static const std::map<char32_t, unsigned char> kUnicodeToByte = [] {
    std::map<char32_t, unsigned char> m;
    for (std::size_t b = 0; b < 256; ++b) m[kByteToUnicode[b]] = static_cast<unsigned char>(b);
    return m;
  }();
  std::string out;
  for (std::int64_t id : ids) {
    const std::string& token = TokenText(id);
    if (added_by_text_.count(token) != 0 && added_by_text_.at(token) == id) {
      if (!skip_special || special_.count(id) == 0) out += token;
      continue;
    }
    const CodePoints cps = DecodeUtf8(token);
    for (char32_t c : cps.cps) {
      auto it = kUnicodeToByte.find(c);
      if (it == kUnicodeToByte.end()) {
        AppendUtf8(out, c);  // not a byte symbol: kept as written
      } else {
        out += static_cast<char>(it->second);
      }
    }
  }
  out = ReplaceInvalidUtf8(out);
  if (clean_up_spaces_) {
    static const std::array<std::pair<const char*, const char*>, 10> kCleanUps = {{{" .", "."},
                                                                                   {" ?", "?"},
                                                                                   {" !", "!"},
                                                                                   {" ,", ","},
                                                                                   {" ' ", "'"},
                                                                                   {" n't", "n't"},
                                                                                   {" 'm", "'m"},
                                                                                   {" 's", "'s"},
                                                                                   {" 've", "'ve"},
                                                                                   {" 're", "'re"}}};
    for (const auto& [from, to] : kCleanUps) {
      const std::string f(from), r(to);
      for (std::size_t at = out.find(f); at != std::string::npos; at = out.find(f, at + r.size())) out.replace(at, f.size(), r);
    }
  }
  return out;
}

}  // namespace lingcast::neural
