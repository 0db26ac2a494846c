#include "app/pinyin_command.h"

#include <iostream>
#include <memory>
#include <sstream>
#include <vector>

#include "CLI/CLI.hpp"
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

namespace {

struct PinyinFlags {
  std::vector<std::string> text;
  PinyinCommandOptions options;
};

int RunFromFlags(const PinyinFlags& flags) {
  absl::StatusOr<PinyinConverter> lexicon = PinyinConverter::LoadDefault();
  if (!lexicon.ok()) return ReportCommandStatus(lexicon.status());
  if (flags.text.empty()) {
    return ReportCommandStatus(RunPinyinCommand(*lexicon, flags.options, std::cin, "stdin", std::cout));
  }
  std::string joined;
  for (const std::string& piece : flags.text) joined += (joined.empty() ? "" : " ") + piece;
  std::istringstream text(joined);
  return ReportCommandStatus(RunPinyinCommand(*lexicon, flags.options, text, "argument", std::cout));
}

}  // namespace

Command AddPinyinCommand(CLI::App& app) {
  CLI::App* pinyin_cmd =
      app.add_subcommand("pinyin", "Print the pinyin (tone digits, 5 = neutral) of Chinese text, line by line");
  auto flags = std::make_shared<PinyinFlags>();
  std::vector<std::string>& pinyin_text = flags->text;
  PinyinCommandOptions& pinyin_options = flags->options;
  pinyin_cmd->add_option("text", pinyin_text, "Text to convert (joined by spaces); stdin when absent");
  pinyin_cmd->add_flag("--sandhi", pinyin_options.sandhi, "Print spoken tones after tone sandhi (3-3, 一, 不)");
  pinyin_cmd->add_flag("--json", pinyin_options.json, "Print one JSON object per line: words, readings, sources");
  return {pinyin_cmd, [flags](Logger&) { return RunFromFlags(*flags); }};
}

}  // namespace lingcast
