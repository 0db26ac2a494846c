#include "app/pinyin_command.h"

#include <vector>

#include "absl/strings/str_format.h"
#include "nlohmann/json.hpp"
#include "text/normalize_zh.h"
#include "text/tone_sandhi.h"
#include "text/utf8.h"

namespace lingcast {
namespace {

constexpr std::string_view kUnknownReading = "?";

std::string Shown(const std::string& reading) { return reading.empty() ? std::string(kUnknownReading) : reading; }

void WritePlain(const std::vector<PinyinWord>& words, const std::vector<std::string>& surface,
                bool sandhi, std::ostream& out) {
  size_t index = 0;
  for (const PinyinWord& word : words) {
    for (const PinyinSyllable& syllable : word.syllables) {
      if (index > 0) out << ' ';
      out << Shown(sandhi ? surface[index] : syllable.pinyin);
      ++index;
    }
  }
  out << '\n';
}

void WriteJson(int line_number, const std::string& line, const std::string& normalized,
               const std::vector<PinyinWord>& words, const std::vector<std::string>& surface, bool sandhi,
               std::ostream& out) {
  nlohmann::json words_json = nlohmann::json::array();
  size_t index = 0;
  for (const PinyinWord& word : words) {
    nlohmann::json lexical = nlohmann::json::array();
    nlohmann::json spoken = nlohmann::json::array();
    for (const PinyinSyllable& syllable : word.syllables) {
      lexical.push_back(Shown(syllable.pinyin));
      if (sandhi) spoken.push_back(Shown(surface[index]));
      ++index;
    }
    nlohmann::json entry = {
        {"text", normalized.substr(static_cast<size_t>(word.text_offset), static_cast<size_t>(word.text_length))},
        {"pinyin", std::move(lexical)}};
    if (sandhi) entry["surface"] = std::move(spoken);
    entry["source"] = word.from_phrase ? "phrase" : "character";
    if (!word.rule.empty()) entry["rule"] = word.rule;
    words_json.push_back(std::move(entry));
  }
  const nlohmann::json record = {
      {"line", line_number}, {"text", line}, {"normalized", normalized}, {"words", std::move(words_json)}};
  out << record.dump() << '\n';
}

}  // namespace

absl::Status RunPinyinCommand(const PinyinConverter& lexicon, const PinyinCommandOptions& options,
                              std::istream& input, const std::string& input_name, std::ostream& out) {
  std::string line;
  int line_number = 0;
  while (std::getline(input, line)) {
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const int64_t bad = FindInvalidUtf8(line);
    if (bad >= 0) {
      out.flush();
      return absl::InvalidArgumentError(absl::StrFormat(
          "invalid UTF-8 in %s at line %d, column %d (byte 0x%02X); lingcast pinyin reads UTF-8 text",
          input_name, line_number, LineColumnAt(line, bad).column,
          static_cast<unsigned char>(line[static_cast<size_t>(bad)])));
    }
    const std::string normalized = NormalizeChinese(line).text;
    const std::vector<PinyinWord> words = lexicon.Segment(normalized);
    std::vector<std::string> surface;
    if (options.sandhi) surface = ApplyToneSandhi(words, normalized, lexicon);
    if (options.json) {
      WriteJson(line_number, line, normalized, words, surface, options.sandhi, out);
    } else {
      WritePlain(words, surface, options.sandhi, out);
    }
    out.flush();
  }
  if (input.bad()) return absl::DataLossError(absl::StrFormat("could not read %s", input_name));
  return absl::OkStatus();
}

}  // namespace lingcast
