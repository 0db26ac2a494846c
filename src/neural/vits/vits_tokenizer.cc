#include "neural/vits/vits_tokenizer.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "neural/core/neural_error.h"

namespace lingcast::neural {
namespace {

struct Char {
  char32_t code;
  int begin, end;  // bytes of the source text
};

// UTF-8 -> code points with their byte spans; kInvalidArgument naming `what`.
std::vector<Char> Decode(const std::string& text, const std::string& what) {
  std::vector<Char> out;
  std::size_t i = 0;
  while (i < text.size()) {
    const auto lead = static_cast<unsigned char>(text[i]);
    int extra = lead < 0x80 ? 0 : (lead >> 5) == 0x6 ? 1 : (lead >> 4) == 0xE ? 2 : (lead >> 3) == 0x1E ? 3 : -1;
    if (extra < 0 || (extra > 0 && i + static_cast<std::size_t>(extra) >= text.size())) {
      Fail(ErrorCode::kInvalidArgument, what + " is not valid UTF-8 (byte " + std::to_string(i) + ")");
    }
    char32_t code = extra == 0 ? lead : lead & (0x3F >> extra);
    for (int k = 1; k <= extra; ++k) {
      const auto next = static_cast<unsigned char>(text[i + static_cast<std::size_t>(k)]);
      if ((next & 0xC0) != 0x80) Fail(ErrorCode::kInvalidArgument, what + " is not valid UTF-8 (byte " + std::to_string(i) + ")");
      code = (code << 6) | (next & 0x3F);
    }
    out.push_back({code, static_cast<int>(i), static_cast<int>(i) + extra + 1});
    i += static_cast<std::size_t>(extra) + 1;
  }
  return out;
}

std::u32string Utf32(const std::string& text, const std::string& what) {
  std::u32string out;
  for (const Char& c : Decode(text, what)) out.push_back(c.code);
  return out;
}

// Python's str.lower() for one character, for the scripts MMS-TTS vocabularies
// use: ASCII, Latin-1, Latin Extended-A, Greek and Cyrillic capitals. Others are
// returned as they are.
char32_t Lower(char32_t c) {
  if (c >= U'A' && c <= U'Z') return c + 32;
  if (c < 0x80) return c;
  if ((c >= 0xC0 && c <= 0xDE && c != 0xD7)) return c + 32;
  if (c >= 0x100 && c <= 0x137 && c % 2 == 0) return c + 1;
  if (c >= 0x139 && c <= 0x148 && c % 2 == 1) return c + 1;
  if (c >= 0x14A && c <= 0x177 && c % 2 == 0) return c + 1;
  if (c == 0x178) return 0xFF;
  if (c == 0x179 || c == 0x17B || c == 0x17D) return c + 1;
  if (c >= 0x391 && c <= 0x3AB && c != 0x3A2) return c + 32;
  if (c >= 0x410 && c <= 0x42F) return c + 32;
  if (c >= 0x400 && c <= 0x40F) return c + 80;
  return c;
}

// Python's str.isspace() characters.
bool IsSpace(char32_t c) {
  return (c >= 0x9 && c <= 0xD) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

nlohmann::ordered_json ReadJson(const std::string& path, const std::string& missing_hint) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) Fail(ErrorCode::kNotFound, path + ": missing" + missing_hint);
  std::ifstream in(path);
  if (!in) Fail(ErrorCode::kNotFound, path + ": cannot open");
  try {
    nlohmann::ordered_json json = nlohmann::ordered_json::parse(in);
    if (!json.is_object()) Fail(ErrorCode::kInvalidArgument, path + ": not a JSON object");
    return json;
  } catch (const nlohmann::json::exception& e) {
    Fail(ErrorCode::kInvalidArgument, path + ": not valid JSON (" + e.what() + ")");
  }
}

// A special token as tokenizer_config.json spells it: "k" or {"content": "k", ...}.
std::string TokenContent(const nlohmann::ordered_json& config, const char* key, const char* fallback,
                         const std::string& path) {
  if (!config.contains(key) || config[key].is_null()) return fallback;
  const auto& v = config[key];
  if (v.is_string()) return v.get<std::string>();
  if (v.is_object() && v.contains("content") && v["content"].is_string()) return v["content"].get<std::string>();
  Fail(ErrorCode::kInvalidArgument, path + ": field \"" + key + "\" is " + v.dump() + ", expected a token");
}

bool Flag(const nlohmann::ordered_json& config, const char* key, bool fallback, const std::string& path) {
  if (!config.contains(key) || config[key].is_null()) return fallback;
  if (!config[key].is_boolean()) {
    Fail(ErrorCode::kInvalidArgument, path + ": field \"" + key + "\" is " + config[key].dump() + ", expected true or false");
  }
  return config[key].get<bool>();
}

}  // namespace

VitsTokenizer VitsTokenizer::Load(const std::string& dir) {
  namespace fs = std::filesystem;
  const std::string vocab_path = (fs::path(dir) / "vocab.json").string();
  const std::string config_path = (fs::path(dir) / "tokenizer_config.json").string();
  const auto vocab = ReadJson(vocab_path, " (the VITS tokenizer's character vocabulary)");
  auto config = ReadJson(config_path, " (the VITS tokenizer's settings)");
  // Older exports keep the special tokens in special_tokens_map.json.
  const std::string map_path = (fs::path(dir) / "special_tokens_map.json").string();
  std::error_code ec;
  if (fs::exists(map_path, ec)) {
    const auto map = ReadJson(map_path, "");
    for (const char* key : {"pad_token", "unk_token"}) {
      if ((!config.contains(key) || config[key].is_null()) && map.contains(key)) config[key] = map[key];
    }
  }
  VitsTokenizer t;
  for (const auto& [token, id] : vocab.items()) {
    if (!id.is_number_integer() || id.get<std::int64_t>() < 0) {
      Fail(ErrorCode::kInvalidArgument, vocab_path + ": \"" + token + "\" has id " + id.dump() + ", expected an integer >= 0");
    }
    const std::u32string key = Utf32(token, vocab_path);
    t.vocab_.push_back(key);
    t.ids_[key] = id.get<std::int64_t>();
  }
  if (t.vocab_.empty()) Fail(ErrorCode::kInvalidArgument, vocab_path + ": empty vocabulary");

  if (Flag(config, "phonemize", true, config_path)) {
    Fail(ErrorCode::kUnimplemented, config_path + ": phonemize is true: this checkpoint reads espeak phonemes "
                                                  "(the phonemizer package), which lingcast does not produce");
  }
  t.add_blank_ = Flag(config, "add_blank", true, config_path);
  t.normalize_ = Flag(config, "normalize", true, config_path);
  t.uroman_ = Flag(config, "is_uroman", false, config_path);
  if (config.contains("language") && config["language"].is_string()) t.language_ = config["language"].get<std::string>();

  // Special tokens: those tokenizer_config.json lists with their ids, else pad and
  // unk, taking the next free ids when they are not in the vocabulary (unk first,
  // in transformers' order of special tokens).
  std::int64_t next_id = static_cast<std::int64_t>(t.vocab_.size());
  if (config.contains("added_tokens_decoder") && config["added_tokens_decoder"].is_object()) {
    for (const auto& [id, token] : config["added_tokens_decoder"].items()) {
      if (!token.is_object() || !token.contains("content") || !token["content"].is_string()) continue;
      const std::int64_t number = std::stoll(id);
      t.special_[Utf32(token["content"].get<std::string>(), config_path)] = number;
      next_id = std::max(next_id, number + 1);
    }
  }
  for (const char* key : {"unk_token", "pad_token"}) {
    const std::u32string token = Utf32(TokenContent(config, key, key[0] == 'u' ? "<unk>" : "<pad>", config_path), config_path);
    if (t.special_.count(token)) continue;
    const auto known = t.ids_.find(token);
    t.special_[token] = known != t.ids_.end() ? known->second : next_id++;
  }
  t.unk_id_ = t.special_.at(Utf32(TokenContent(config, "unk_token", "<unk>", config_path), config_path));
  return t;
}

std::int64_t VitsTokenizer::max_id() const {
  std::int64_t high = 0;
  for (const auto& [token, id] : ids_) high = std::max(high, id);
  for (const auto& [token, id] : special_) high = std::max(high, id);
  return high;
}

VitsEncoding VitsTokenizer::Encode(const std::string& text) const {
  const std::vector<Char> source = Decode(text, "the text");
  // 1. Lower-case what does not begin a vocabulary entry (or special token); the
  //    entries are tried in vocab.json's order, as the reference iterates its dict.
  std::vector<Char> chars;
  if (normalize_) {
    std::vector<const std::u32string*> words;
    for (const auto& w : vocab_) words.push_back(&w);
    for (const auto& [w, id] : special_) words.push_back(&w);
    std::size_t i = 0;
    while (i < source.size()) {
      const std::u32string* match = nullptr;
      for (const std::u32string* w : words) {
        if (w->empty() || i + w->size() > source.size()) continue;
        bool equal = true;
        for (std::size_t k = 0; k < w->size() && equal; ++k) equal = source[i + k].code == (*w)[k];
        if (equal) {
          match = w;
          break;
        }
      }
      if (match != nullptr) {
        const int begin = source[i].begin, end = source[i + match->size() - 1].end;
        for (const char32_t c : *match) chars.push_back({c, begin, end});
        i += match->size();
      } else {
        chars.push_back({Lower(source[i].code), source[i].begin, source[i].end});
        ++i;
      }
    }
  } else {
    chars = source;
  }
  if (language_ == "ron") {
    for (Char& c : chars) {
      if (c.code == 0x21B) c.code = 0x163;  // ț -> ţ, as the reference does
    }
  }
  if (uroman_) {
    for (const Char& c : chars) {
      if (c.code >= 0x80) {
        Fail(ErrorCode::kUnimplemented, "the text has non-Latin characters and this checkpoint expects them romanized "
                                        "with uroman, which lingcast does not do: romanize the text first");
      }
    }
  }
  // 2. Drop characters outside the vocabulary; strip whitespace at both ends.
  if (normalize_) {
    std::vector<Char> kept;
    for (const Char& c : chars) {
      if (ids_.count(std::u32string(1, c.code))) kept.push_back(c);
    }
    std::size_t first = 0, last = kept.size();
    while (first < last && IsSpace(kept[first].code)) ++first;
    while (last > first && IsSpace(kept[last - 1].code)) --last;
    chars.assign(kept.begin() + static_cast<std::ptrdiff_t>(first), kept.begin() + static_cast<std::ptrdiff_t>(last));
  }
  // 3. Special tokens stand alone; the pieces between them get blanks around and
  //    between their characters.
  VitsEncoding out;
  auto emit = [&](std::int64_t id, int offset, int length) {
    out.ids.push_back(id);
    out.source_offset.push_back(offset);
    out.source_length.push_back(length);
  };
  std::vector<Char> piece;
  auto flush = [&] {
    if (piece.empty()) return;
    if (add_blank_) emit(0, -1, 0);
    for (const Char& c : piece) {
      const auto found = ids_.find(std::u32string(1, c.code));
      emit(found != ids_.end() ? found->second : unk_id_, c.begin, c.end - c.begin);
      if (add_blank_) emit(0, -1, 0);
    }
    piece.clear();
  };
  std::size_t i = 0;
  while (i < chars.size()) {
    const std::u32string* longest = nullptr;
    std::int64_t longest_id = 0;
    for (const auto& [w, id] : special_) {
      if (w.empty() || i + w.size() > chars.size() || (longest != nullptr && w.size() <= longest->size())) continue;
      bool equal = true;
      for (std::size_t k = 0; k < w.size() && equal; ++k) equal = chars[i + k].code == w[k];
      if (equal) {
        longest = &w;
        longest_id = id;
      }
    }
    if (longest == nullptr) {
      piece.push_back(chars[i++]);
      continue;
    }
    flush();
    const int begin = chars[i].begin, end = chars[i + longest->size() - 1].end;
    emit(longest_id, begin, end - begin);
    i += longest->size();
  }
  flush();
  return out;
}

}  // namespace lingcast::neural
