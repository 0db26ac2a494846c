#include "text/script.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/status.h"
#include "text/language_detect.h"
#include "text/utf8.h"

namespace lingcast {
namespace {

constexpr std::string_view kBom = "\xEF\xBB\xBF";
constexpr std::string_view kSegmentSeparator = " | ";

// Builds "FILE:LINE:COL: message" errors for one line of the script.
class LineContext {
 public:
  LineContext(std::string_view filename, int line_number, std::string_view line)
      : filename_(filename), line_number_(line_number), line_(line) {}

  // `byte_in_line` is converted to a 1-based character column.
  absl::Status Error(size_t byte_in_line, const std::string& message) const {
    const int column = static_cast<int>(DecodeUtf8(line_.substr(0, byte_in_line)).size()) + 1;
    return absl::InvalidArgumentError(
        absl::StrCat(std::string(filename_), ":", line_number_, ":", column, ": ", message));
  }
  std::string_view line() const { return line_; }
  int line_number() const { return line_number_; }

 private:
  std::string_view filename_;
  int line_number_;
  std::string_view line_;
};

bool IsBlankChar(char c) { return c == ' ' || c == '\t'; }

// [begin, end) of `s` without ASCII blanks at either side.
std::pair<size_t, size_t> TrimRange(std::string_view s, size_t begin, size_t end) {
  while (begin < end && IsBlankChar(s[begin])) ++begin;
  while (end > begin && IsBlankChar(s[end - 1])) --end;
  return {begin, end};
}

// Parses "@name args" at `start` (the '@').
absl::StatusOr<ScriptItem> ParseDirective(const LineContext& ctx, size_t start) {
  const std::string_view line = ctx.line();
  size_t name_end = start + 1;
  while (name_end < line.size() && !IsBlankChar(line[name_end])) ++name_end;
  const std::string name(line.substr(start + 1, name_end - start - 1));
  const auto [arg_begin, arg_end] = TrimRange(line, name_end, line.size());
  const std::string arg(line.substr(arg_begin, arg_end - arg_begin));
  if (name == "emotion") {
    const std::string known = absl::StrJoin(kScriptEmotions, ", ");
    if (arg.empty()) {
      return ctx.Error(name_end, absl::StrCat("@emotion needs an expression, one of ", known));
    }
    for (const char* emotion : kScriptEmotions) {
      if (arg == emotion) return ScriptEmotion{ctx.line_number(), arg};
    }
    return ctx.Error(arg_begin, absl::StrCat("unknown emotion '", arg, "' (known: ", known, ")"));
  }
  if (name == "title") {
    if (arg.empty()) {
      return ctx.Error(name_end, "@title needs a title, e.g. '@title Li Na|Host, Lingcast Live' (or '@title off')");
    }
    if (arg == "off") return ScriptTitle{ctx.line_number(), ""};
    const size_t bar = arg.find('|');
    if (bar != std::string::npos && arg.find('|', bar + 1) != std::string::npos) {
      const size_t second = arg.find('|', bar + 1);
      return ctx.Error(arg_begin + second, "@title has more than one '|' (expected NAME|SUBTITLE)");
    }
    const auto [name_begin, name_stop] = TrimRange(arg, 0, bar == std::string::npos ? arg.size() : bar);
    if (name_begin == name_stop) return ctx.Error(arg_begin, "@title has an empty name before '|'");
    return ScriptTitle{ctx.line_number(), arg};
  }
  if (name != "pause") {
    return ctx.Error(start, absl::StrCat("unknown directive '@", name,
                                         "' (known: @pause SECONDS, @emotion NAME, @title TEXT)"));
  }
  if (arg.empty()) {
    return ctx.Error(name_end, "@pause needs a duration in seconds, e.g. '@pause 1.5'");
  }
  double seconds = 0;
  if (!absl::SimpleAtod(arg, &seconds) || !std::isfinite(seconds)) {
    return ctx.Error(arg_begin, absl::StrCat("@pause duration '", arg, "' is not a number of seconds"));
  }
  if (seconds <= 0 || seconds > kMaxScriptPauseSeconds) {
    return ctx.Error(arg_begin, absl::StrCat("@pause duration ", arg, " is out of range (0 < SECONDS <= ",
                                             kMaxScriptPauseSeconds, ")"));
  }
  return ScriptPause{ctx.line_number(), MediaTime::Seconds(seconds)};
}

// Parses one segment in line bytes [begin, end): an optional "zh:"/"en:" tag, then text.
absl::StatusOr<TextSegment> ParseSegment(const LineContext& ctx, size_t begin, size_t end) {
  const std::string_view line = ctx.line();
  std::tie(begin, end) = TrimRange(line, begin, end);
  std::optional<Language> tagged;
  // A tag is 2-3 lower-case ASCII letters followed by ':' at the start of the segment.
  size_t letters = 0;
  while (begin + letters < end && letters < 4 && line[begin + letters] >= 'a' &&
         line[begin + letters] <= 'z') {
    ++letters;
  }
  if (letters >= 2 && letters <= 3 && begin + letters < end && line[begin + letters] == ':') {
    const std::string tag(line.substr(begin, letters));
    if (tag == "zh") {
      tagged = Language::kZh;
    } else if (tag == "en") {
      tagged = Language::kEn;
    } else {
      return ctx.Error(begin, absl::StrCat("unknown language tag '", tag, ":' (use zh: or en:)"));
    }
    std::tie(begin, end) = TrimRange(line, begin + letters + 1, end);
  }
  if (begin == end) {
    return ctx.Error(begin, "empty segment (nothing to say between the ' | ' separators)");
  }
  TextSegment segment;
  segment.text = std::string(line.substr(begin, end - begin));
  segment.language = tagged ? *tagged : DetectLanguage(segment.text);
  return segment;
}

absl::StatusOr<ScriptLine> ParseItem(const LineContext& ctx, size_t begin, size_t end) {
  ScriptLine item;
  item.line_number = ctx.line_number();
  const std::string_view line = ctx.line();
  while (true) {
    const size_t sep = line.substr(0, end).find(kSegmentSeparator, begin);
    const size_t seg_end = sep == std::string_view::npos ? end : sep;
    LC_ASSIGN_OR_RETURN(TextSegment segment, ParseSegment(ctx, begin, seg_end));
    item.segments.push_back(std::move(segment));
    if (sep == std::string_view::npos) break;
    begin = sep + kSegmentSeparator.size();
  }
  return item;
}

}  // namespace

int Script::spoken_line_count() const {
  int n = 0;
  for (const ScriptItem& item : items) n += std::holds_alternative<ScriptLine>(item) ? 1 : 0;
  return n;
}

absl::StatusOr<Script> ParseScriptText(std::string_view text, std::string_view filename) {
  if (text.substr(0, kBom.size()) == kBom) text.remove_prefix(kBom.size());
  if (const int64_t bad = FindInvalidUtf8(text); bad >= 0) {
    const LineColumn lc = LineColumnAt(text, bad);
    return absl::InvalidArgumentError(absl::StrCat(std::string(filename), ":", lc.line, ":", lc.column,
                                                   ": invalid UTF-8 (byte offset ", bad, ")"));
  }
  // Items are built in place (std::in_place_type): moving a temporary variant trips
  // a false -Wmaybe-uninitialized in GCC 12 at -O2.
  Script script;
  script.filename = std::string(filename);
  bool in_blank_run = false;
  int line_number = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view line = text.substr(pos, eol - pos);
    pos = eol + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);

    const LineContext ctx(filename, line_number, line);
    const auto [begin, end] = TrimRange(line, 0, line.size());
    if (begin == end) {
      // A run of blank lines (comments inside it do not break it) is one pause.
      if (!in_blank_run) {
        script.items.emplace_back(std::in_place_type<ScriptPause>,
                                  ScriptPause{line_number, kDefaultScriptPause});
      }
      in_blank_run = true;
      continue;
    }
    if (line[begin] == '#') continue;
    in_blank_run = false;
    if (line[begin] == '@') {
      LC_ASSIGN_OR_RETURN(ScriptItem directive, ParseDirective(ctx, begin));
      if (const auto* emotion = std::get_if<ScriptEmotion>(&directive)) {
        script.items.emplace_back(std::in_place_type<ScriptEmotion>, *emotion);
      } else if (const auto* title = std::get_if<ScriptTitle>(&directive)) {
        script.items.emplace_back(std::in_place_type<ScriptTitle>, *title);
      } else {
        script.items.emplace_back(std::in_place_type<ScriptPause>, std::get<ScriptPause>(directive));
      }
      continue;
    }
    LC_ASSIGN_OR_RETURN(ScriptLine item, ParseItem(ctx, begin, end));
    script.items.emplace_back(std::in_place_type<ScriptLine>, std::move(item));
  }
  if (script.spoken_line_count() == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(std::string(filename), ":1:1: script has no lines to speak (only blank lines, "
                     "comments or directives)"));
  }
  return script;
}

absl::StatusOr<Script> ParseScriptFile(const std::string& path) {
  struct FileCloser {
    void operator()(std::FILE* f) const { std::fclose(f); }
  };
  const std::unique_ptr<std::FILE, FileCloser> file(std::fopen(path.c_str(), "rb"));
  const auto open_error = [&](int err) -> absl::Status {
    const std::string message = absl::StrCat("cannot read script '", path, "': ", std::strerror(err));
    if (err == ENOENT || err == ENOTDIR) return absl::NotFoundError(message);
    if (err == EACCES || err == EPERM) return absl::PermissionDeniedError(message);
    return absl::InvalidArgumentError(message);
  };
  if (!file) return open_error(errno);
  std::string text;
  char buffer[1 << 16];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, file.get())) > 0) text.append(buffer, n);
  if (std::ferror(file.get())) return open_error(errno);  // e.g. EISDIR for a directory
  return ParseScriptText(text, path);
}

}  // namespace lingcast
