#include "neural/vits/piper_phonemes.h"

#include <algorithm>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "neural/core/json_file.h"
#include "neural/core/neural_error.h"
#include "text/utf8.h"

namespace lingcast::neural {
namespace {

// Marks that shape the phoneme before or after them rather than being one: the
// mouth keeps the shape it has through them.
bool IsModifier(char32_t c) {
  return c == U'ˈ' || c == U'ˌ' || c == U'ː' || c == U'ˑ' || c == U'̃' || c == U'̩' || c == U'͡';
}

std::string Utf8Of(char32_t c) {
  std::string out;
  AppendUtf8(c, out);
  return out;
}

}  // namespace

PiperPhonemes PiperPhonemes::Load(const std::string& dir) {
  const std::string path = (std::filesystem::path(dir) / "piper.json").string();
  if (!std::filesystem::exists(path)) Fail(ErrorCode::kNotFound, path + ": no such file (not a Piper voice)");
  const nlohmann::json json = ReadJsonObject(path);
  auto bad = [&](const std::string& what) { Fail(ErrorCode::kInvalidArgument, path + ": " + what); };
  if (json.value("phoneme_type", std::string("espeak")) != "espeak") {
    bad("phoneme_type is " + json.at("phoneme_type").dump() + "; lingcast speaks espeak-ng phonemes only");
  }
  if (!json.contains("phoneme_id_map") || !json.at("phoneme_id_map").is_object()) bad("no phoneme_id_map object");
  PiperPhonemes out;
  for (const auto& [symbol, ids] : json.at("phoneme_id_map").items()) {
    const std::vector<CodePoint> points = DecodeUtf8(symbol);
    if (points.size() != 1) bad("phoneme_id_map key \"" + symbol + "\" is not one character");
    if (!ids.is_array() || ids.empty()) bad("phoneme_id_map[\"" + symbol + "\"] is not a list of ids");
    std::vector<std::int64_t> list;
    for (const auto& id : ids) {
      if (!id.is_number_integer() || id.get<std::int64_t>() < 0) bad("phoneme_id_map[\"" + symbol + "\"] has a bad id");
      list.push_back(id.get<std::int64_t>());
      out.max_id_ = std::max(out.max_id_, list.back());
    }
    out.ids_[points[0].value] = std::move(list);
  }
  auto special = [&](char32_t c, const char* name) {
    const auto it = out.ids_.find(c);
    if (it == out.ids_.end()) bad(std::string("phoneme_id_map has no ") + name + " symbol \"" + Utf8Of(c) + "\"");
    return it->second;
  };
  out.pad_ = special(U'_', "pad");
  out.begin_ = special(U'^', "begin");
  out.end_ = special(U'$', "end");
  if (json.contains("espeak") && json.at("espeak").is_object()) {
    out.espeak_voice_ = json.at("espeak").value("voice", std::string());
  }
  if (out.espeak_voice_.empty()) bad("no espeak.voice (the espeak-ng voice it was trained on)");
  if (json.contains("language") && json.at("language").is_object()) {
    out.language_ = json.at("language").value("family", std::string());
  }
  if (out.language_.empty()) out.language_ = out.espeak_voice_.substr(0, out.espeak_voice_.find('-'));
  return out;
}

void PiperPhonemes::AppendOne(std::int64_t id, int offset, int length, const std::string& phoneme,
                              VitsEncoding& out) const {
  out.ids.push_back(id);
  out.source_offset.push_back(offset);
  out.source_length.push_back(length);
  out.phonemes.push_back(phoneme);
}

bool PiperPhonemes::Append(char32_t symbol, int offset, int length, const std::string& phoneme,
                           VitsEncoding& out) const {
  const auto it = ids_.find(symbol);
  if (it == ids_.end()) return false;
  for (const std::int64_t id : it->second) AppendOne(id, offset, length, phoneme, out);
  for (const std::int64_t id : pad_) AppendOne(id, -1, 0, "", out);
  return true;
}

VitsEncoding PiperPhonemes::Encode(const std::vector<IpaClause>& clauses) const {
  VitsEncoding out;
  if (clauses.empty()) return out;
  for (const std::int64_t id : begin_) AppendOne(id, -1, 0, "", out);
  for (const std::int64_t id : pad_) AppendOne(id, -1, 0, "", out);
  for (std::size_t c = 0; c < clauses.size(); ++c) {
    const IpaClause& clause = clauses[c];
    for (std::size_t w = 0; w < clause.words.size(); ++w) {
      const IpaWord& word = clause.words[w];
      if (w > 0) Append(U' ', -1, 0, "_", out);
      for (const CodePoint& point : DecodeUtf8(word.ipa)) {
        if (point.value == U' ') {  // a word espeak-ng reads as several ("$89")
          Append(U' ', -1, 0, "_", out);
          continue;
        }
        Append(point.value, word.text_offset, word.text_length, IsModifier(point.value) ? "" : Utf8Of(point.value),
               out);
      }
    }
    if (clause.terminator != 0) Append(static_cast<char32_t>(clause.terminator), -1, 0, "_", out);
    // Piper puts a space after a comma, colon or semicolon; between sentences of
    // one call too, so they do not run together.
    if (c + 1 < clauses.size()) Append(U' ', -1, 0, "_", out);
  }
  for (const std::int64_t id : end_) AppendOne(id, -1, 0, "", out);
  return out;
}

}  // namespace lingcast::neural
