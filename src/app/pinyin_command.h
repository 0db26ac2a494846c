// `lingcast pinyin`: Hanzi -> pinyin with tone digits, one output line per input
// line, after Chinese normalization (digits are read as Chinese words first).
#pragma once

#include <istream>
#include <ostream>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "app/command.h"
#include "text/pinyin.h"

namespace lingcast {

struct PinyinCommandOptions {
  bool sandhi = false;  // surface tones (text/tone_sandhi.h) instead of lexical ones
  bool json = false;    // one JSON object per line: words, readings, sources
};

// Converts every line of `input` and writes one line per input line to `out`:
//   plain: the readings of the line's Han characters, space-separated ("?" for a
//          character the lexicon does not know); an empty line when it has none;
//   json:  {"line":N,"text":...,"normalized":...,"words":[{"text":"银行",
//          "pinyin":["yin2","hang2"],"surface":[...] (with sandhi),
//          "source":"phrase"|"character", "rule":... (only when a context rule
//          changed the reading, naming it)}]}.
// Lines are converted as they are read, so a pipe gets answers line by line.
// InvalidArgument "invalid UTF-8 in <input_name> at line L, column C" for malformed
// input (the lines before it are already written).
absl::Status RunPinyinCommand(const PinyinConverter& lexicon, const PinyinCommandOptions& options,
                              std::istream& input, const std::string& input_name, std::ostream& out);

// `lingcast pinyin [TEXT...] [--sandhi] [--json]`: its flags, and the run on the
// words given (joined by spaces) or, without any, on stdin.
Command AddPinyinCommand(CLI::App& app);

}  // namespace lingcast
