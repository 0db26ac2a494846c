#include "text/utf8.h"

#include "absl/strings/str_cat.h"

namespace lingcast {
namespace {

// Decodes one sequence at `i`. Returns its length, or 0 if malformed.
int DecodeOne(std::string_view text, size_t i, char32_t& out) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char b0 = byte(i);
  if (b0 < 0x80) {
    out = b0;
    return 1;
  }
  int length = 0;
  char32_t min_value = 0;
  if ((b0 & 0xE0) == 0xC0) {
    length = 2;
    out = b0 & 0x1F;
    min_value = 0x80;
  } else if ((b0 & 0xF0) == 0xE0) {
    length = 3;
    out = b0 & 0x0F;
    min_value = 0x800;
  } else if ((b0 & 0xF8) == 0xF0) {
    length = 4;
    out = b0 & 0x07;
    min_value = 0x10000;
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  for (int k = 1; k < length; ++k) {
    const unsigned char b = byte(i + k);
    if ((b & 0xC0) != 0x80) return 0;
    out = (out << 6) | (b & 0x3F);
  }
  if (out < min_value || out > 0x10FFFF || (out >= 0xD800 && out <= 0xDFFF)) return 0;
  return length;
}

}  // namespace

int64_t FindInvalidUtf8(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    char32_t c;
    const int n = DecodeOne(text, i, c);
    if (n == 0) return static_cast<int64_t>(i);
    i += n;
  }
  return -1;
}

LineColumn LineColumnAt(std::string_view text, int64_t offset) {
  LineColumn lc;
  for (const CodePoint& cp : DecodeUtf8(text.substr(0, static_cast<size_t>(offset)))) {
    if (cp.value == '\n') {
      ++lc.line;
      lc.column = 1;
    } else {
      ++lc.column;
    }
  }
  return lc;
}

absl::Status ValidateUtf8(std::string_view text) {
  const int64_t bad = FindInvalidUtf8(text);
  if (bad < 0) return absl::OkStatus();
  const LineColumn lc = LineColumnAt(text, bad);
  return absl::InvalidArgumentError(absl::StrCat("invalid UTF-8 at byte ", bad, " (line ", lc.line,
                                                 ", column ", lc.column, ")"));
}

std::vector<CodePoint> DecodeUtf8(std::string_view text) {
  std::vector<CodePoint> out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    char32_t c;
    int n = DecodeOne(text, i, c);
    if (n == 0) {
      c = 0xFFFD;
      n = 1;
    }
    out.push_back({c, static_cast<int>(i), n});
    i += n;
  }
  return out;
}

size_t IncompleteUtf8Tail(std::string_view text) {
  const size_t n = text.size();
  for (size_t back = 1; back <= 3 && back <= n; ++back) {
    const auto b = static_cast<unsigned char>(text[n - back]);
    if ((b & 0xC0) == 0x80) continue;  // a continuation byte: look further back for the lead
    const size_t expected = (b & 0xE0) == 0xC0 ? 2 : (b & 0xF0) == 0xE0 ? 3 : (b & 0xF8) == 0xF0 ? 4 : 1;
    return expected > back ? back : 0;
  }
  return 0;
}

void AppendUtf8(char32_t c, std::string& out) {
  if (c < 0x80) {
    out.push_back(static_cast<char>(c));
  } else if (c < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (c >> 6)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else if (c < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (c >> 12)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (c >> 18)));
    out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  }
}

std::string EncodeUtf8(const std::u32string& text) {
  std::string out;
  for (char32_t c : text) AppendUtf8(c, out);
  return out;
}

bool IsHan(char32_t c) {
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) ||
         (c >= 0x20000 && c <= 0x323AF) || (c >= 0xF900 && c <= 0xFAFF) ||
         (c >= 0x2F800 && c <= 0x2FA1F) || c == 0x3007;  // 〇 reads líng
}

bool IsLatinLetter(char32_t c) {
  if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z')) return true;
  if (c >= 0xC0 && c <= 0x24F) return c != 0xD7 && c != 0xF7;  // Latin-1 letters, Extended-A/B
  if (c >= 0x1E00 && c <= 0x1EFF) return true;                  // Latin Extended Additional
  return (c >= 0xFF21 && c <= 0xFF3A) || (c >= 0xFF41 && c <= 0xFF5A);  // full-width
}

bool IsAsciiDigit(char32_t c) { return c >= '0' && c <= '9'; }

bool IsSpace(char32_t c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' || c == 0xA0 ||
         c == 0x3000 || (c >= 0x2000 && c <= 0x200A) || c == 0x202F || c == 0x205F;
}

CharClass ClassOf(char32_t c) {
  if (IsHan(c)) return CharClass::kHan;
  if (IsLatinLetter(c)) return CharClass::kLatin;
  return CharClass::kOther;
}

std::vector<TextRun> SplitRuns(std::string_view text) {
  std::vector<TextRun> runs;
  for (const CodePoint& cp : DecodeUtf8(text)) {
    const CharClass kind = ClassOf(cp.value);
    if (!runs.empty() && runs.back().kind == kind) {
      runs.back().length += cp.length;
    } else {
      runs.push_back({kind, cp.offset, cp.length});
    }
  }
  return runs;
}

}  // namespace lingcast
