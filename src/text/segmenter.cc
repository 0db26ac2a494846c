#include "text/segmenter.h"

#include <algorithm>
#include <array>
#include <optional>

#include "absl/strings/str_cat.h"
#include "text/language_detect.h"
#include "text/utf8.h"

namespace lingcast {
namespace {

constexpr int kMinClauseBytes = 16;
// How far past a '.' or an ellipsis the scanner looks for the next word before it
// decides that the white space alone ends the sentence (bounds pending memory).
constexpr size_t kMaxSpaceLookahead = 16;

bool IsAlnum(char32_t c) {
  return IsLatinLetter(c) || IsAsciiDigit(c) || (c >= U'０' && c <= U'９');
}
bool IsLowerLatin(char32_t c) {
  return (c >= 'a' && c <= 'z') || (c >= 0xDF && c <= 0xFF && c != 0xF7) ||
         (c >= U'ａ' && c <= U'ｚ');
}
bool IsUpperAscii(char32_t c) { return c >= 'A' && c <= 'Z'; }
bool IsLineBreak(char32_t c) { return c == '\n' || c == '\r' || c == 0x2028 || c == 0x2029; }

bool IsCloser(char32_t c) {
  static constexpr std::u32string_view kClosers = U"”’\"')）]］}｝】」』》〉〕〗〙»›";
  return kClosers.find(c) != std::u32string_view::npos;
}
// Sentence ends that never sit inside a word.
bool IsWideSentenceEnd(char32_t c) { return c == U'。' || c == U'！' || c == U'？' || c == U'｡'; }
bool IsEllipsis(char32_t c) { return c == U'…' || c == U'⋯'; }
bool IsDot(char32_t c) { return c == '.' || c == U'．'; }
bool IsWideClauseEnd(char32_t c) {
  static constexpr std::u32string_view kWide = U"，、；：﹐﹑﹔﹕";
  return kWide.find(c) != std::u32string_view::npos;
}
bool IsAsciiClauseEnd(char32_t c) { return c == ',' || c == ';' || c == ':'; }
bool IsDash(char32_t c) { return c == U'—' || c == U'―'; }
// Punctuation that ends a clause somewhere (possibly only in context).
bool IsBreakPunctuation(char32_t c) {
  return IsWideSentenceEnd(c) || c == '!' || c == '?' || IsEllipsis(c) || IsDot(c) ||
         IsWideClauseEnd(c) || IsAsciiClauseEnd(c) || IsDash(c);
}

std::string AsciiLower(const std::u32string& word) {
  std::string out;
  for (const char32_t c : word) {
    out.push_back(c < 0x80 ? static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c) : '?');
  }
  return out;
}

bool IsOneOf(const std::string& word, std::initializer_list<std::string_view> list) {
  return std::find(list.begin(), list.end(), word) != list.end();
}

struct Cut {
  bool found = false;  // false: the end of the clause is not known yet
  size_t end = 0;      // code points in the clause
  bool ends_sentence = false;
};

// Finds where the clause starting at cps[0] ends. Every decision reads only code
// points that are present; one that needs more sets starved_, and the scan waits.
class ClauseScanner {
 public:
  ClauseScanner(const std::vector<CodePoint>& cps, bool end_of_stream, const SegmenterConfig& config)
      : cps_(cps), end_of_stream_(end_of_stream), config_(config) {}

  Cut Next() {
    const int64_t limit = static_cast<int64_t>(config_.max_han_characters) * config_.max_words;
    int64_t units = 0;
    int64_t bytes = 0;
    bool over_limit = false;
    std::optional<size_t> last_space_or_punct;  // break before cps[p]
    int64_t units_at_space_or_punct = 0;
    std::optional<size_t> last_han_boundary;
    for (size_t i = 0; i < cps_.size(); ++i) {
      const char32_t c = cps_[i].value;
      if (i > 0) {
        const int quality = BreakQuality(cps_[i - 1].value, c);
        if (quality == 2) {
          last_space_or_punct = i;
          units_at_space_or_punct = units;
        } else if (quality == 1) {
          last_han_boundary = i;
        }
      }
      int64_t cost = 0;
      if (IsHan(c)) {
        cost = config_.max_words;
      } else if (IsAlnum(c) && (i == 0 || !IsAlnum(cps_[i - 1].value)) && !ContinuesNumber(i)) {
        cost = config_.max_han_characters;
      }
      const bool over_bytes = bytes + cps_[i].length > config_.max_clause_bytes;
      over_limit = over_limit || units + cost > limit || over_bytes;
      if (over_limit && i > 0) {
        std::optional<size_t> at;
        if (last_space_or_punct && units_at_space_or_punct * 2 >= limit) {
          at = last_space_or_punct;
        } else if (last_han_boundary) {
          at = last_han_boundary;
        } else {
          at = last_space_or_punct;
        }
        if (at) return {true, *at, false};
        if (over_bytes) return {true, i, false};
      }
      units += cost;
      bytes += cps_[i].length;

      if (IsLineBreak(c) && config_.newline_ends_sentence) return {true, i + 1, true};
      if (!IsBreakPunctuation(c) && c != U'–') continue;
      const Cut cut = DecideAt(i);
      if (starved_) return {};
      if (cut.found) return cut;
    }
    if (end_of_stream_) return {true, cps_.size(), true};
    return {};
  }

 private:
  // 2: after white space or punctuation; 1: at a Han character's edge; 0: never.
  static int BreakQuality(char32_t prev, char32_t cur) {
    if (IsCloser(cur) || IsBreakPunctuation(cur)) return 0;
    if (IsSpace(prev) || IsSpace(cur)) return 2;
    if (IsBreakPunctuation(prev) || IsCloser(prev)) return prev < 0x80 && IsAlnum(cur) ? 0 : 2;
    if (IsHan(prev) && (IsHan(cur) || IsLatinLetter(cur))) return 1;
    if (IsLatinLetter(prev) && IsHan(cur)) return 1;
    return 0;
  }

  // 1,299 and 3.5 are one word each.
  bool ContinuesNumber(size_t i) const {
    return i >= 2 && IsAsciiDigit(cps_[i].value) && IsAsciiDigit(cps_[i - 2].value) &&
           (cps_[i - 1].value == ',' || IsDot(cps_[i - 1].value) || cps_[i - 1].value == ':');
  }

  // The code point at `k`; nullopt at the end of the stream, or (setting starved_)
  // when it has not arrived yet.
  std::optional<char32_t> At(size_t k) {
    if (k < cps_.size()) return cps_[k].value;
    if (!end_of_stream_) starved_ = true;
    return std::nullopt;
  }

  // The first non-space code point at or after `k`, within kMaxSpaceLookahead.
  std::optional<char32_t> NextWordStart(size_t k) {
    for (size_t j = k; j < k + kMaxSpaceLookahead; ++j) {
      const std::optional<char32_t> c = At(j);
      if (!c || !IsSpace(*c)) return c;
    }
    return std::nullopt;
  }

  // Takes closing quotes and brackets, and punctuation that follows them, into the clause.
  size_t Absorb(size_t end, bool& ends_sentence) {
    while (true) {
      const std::optional<char32_t> c = At(end);
      if (!c) return end;
      if (IsWideSentenceEnd(*c) || *c == '!' || *c == '?' || IsEllipsis(*c)) {
        ends_sentence = true;
      } else if (IsDot(*c) || IsAsciiClauseEnd(*c)) {
        const std::optional<char32_t> after = At(end + 1);
        if (starved_ || (after && IsAlnum(*after))) return end;
        ends_sentence = ends_sentence || IsDot(*c);
      } else if (!IsCloser(*c) && !IsWideClauseEnd(*c)) {
        return end;
      }
      ++end;
    }
  }

  Cut Break(size_t end, bool ends_sentence) {
    const size_t absorbed = Absorb(end, ends_sentence);
    return {true, absorbed, ends_sentence};
  }

  Cut DecideAt(size_t i) {
    const char32_t c = cps_[i].value;
    if (IsWideSentenceEnd(c)) return Break(i + 1, true);
    if (IsWideClauseEnd(c)) return Break(i + 1, false);
    if (IsDash(c)) {
      size_t end = i + 1;
      while (At(end) && IsDash(*At(end))) ++end;
      return Break(end, false);
    }
    const std::optional<char32_t> next = At(i + 1);
    if (starved_) return {};
    if (c == U'–') {  // an en dash is a range (3–5) unless spaced like a dash
      const bool spaced = i > 0 && IsSpace(cps_[i - 1].value) && next && IsSpace(*next);
      return spaced ? Break(i + 1, false) : Cut{};
    }
    if (c == '!' || c == '?') {
      // Inside a URL (?id=3) or a word (Yahoo!Japan) they do not end anything.
      if (next && (IsAlnum(*next) || *next == '=' || *next == '&' || *next == '/')) return {};
      size_t end = i + 1;
      while (At(end) && (*At(end) == '!' || *At(end) == '?')) ++end;
      return Break(end, true);
    }
    if (IsAsciiClauseEnd(c)) {
      // 1,299 / 10:30 / http://
      if (next && !IsSpace(*next) && !IsHan(*next) && !IsCloser(*next)) return {};
      return Break(i + 1, false);
    }
    if (IsEllipsis(c) || (IsDot(c) && next && IsDot(*next))) return Ellipsis(i);
    return Period(i, next);
  }

  Cut Ellipsis(size_t i) {
    size_t end = i;
    while (At(end) && (IsEllipsis(*At(end)) || IsDot(*At(end)))) ++end;
    if (starved_) return {};
    const std::optional<char32_t> word = NextWordStart(end);
    if (starved_) return {};
    const bool trails_into_lower_case = word && IsLowerLatin(*word);
    return Break(end, !trails_into_lower_case);
  }

  Cut Period(size_t i, std::optional<char32_t> next) {
    if (!next || IsCloser(*next) || IsHan(*next)) return Break(i + 1, true);
    if (!IsSpace(*next)) return {};  // 3.5, example.com, e.g, a.m
    const std::optional<char32_t> following = NextWordStart(i + 1);
    if (starved_) return {};
    // The word before the period: letters and inner dots ("U.S", "Dr", "e.g").
    size_t start = i;
    while (start > 0 && (IsLatinLetter(cps_[start - 1].value) || IsDot(cps_[start - 1].value))) --start;
    std::u32string word;
    for (size_t k = start; k < i; ++k) word.push_back(cps_[k].value);
    const std::string lower = AsciiLower(word);
    const bool before_number = following && IsAsciiDigit(*following);
    const bool before_lower = following && (IsLowerLatin(*following) || IsAsciiDigit(*following));
    if (IsOneOf(lower, {"mr", "mrs", "ms", "dr", "prof", "st", "jr", "sr", "vs", "e.g", "i.e", "cf"})) {
      return {};
    }
    if (before_number && IsOneOf(lower, {"no", "nos", "fig", "vol", "p", "pp", "approx", "ca"})) return {};
    if (word.size() == 1 && IsUpperAscii(word[0])) return {};  // an initial: J. K. Rowling
    const bool dotted = word.find(U'.') != std::u32string::npos;
    const bool abbreviation =
        dotted || IsOneOf(lower, {"etc", "inc", "ltd", "co", "corp", "jan", "feb", "mar", "apr", "jun",
                                  "jul", "aug", "sep", "sept", "oct", "nov", "dec", "approx"});
    if (abbreviation && before_lower) return {};
    return Break(i + 1, true);
  }

  const std::vector<CodePoint>& cps_;
  const bool end_of_stream_;
  const SegmenterConfig& config_;
  bool starved_ = false;
};

}  // namespace

absl::Status ValidateSegmenterConfig(const SegmenterConfig& config) {
  if (config.max_han_characters < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_han_characters must be at least 1, got ", config.max_han_characters));
  }
  if (config.max_words < 1) {
    return absl::InvalidArgumentError(absl::StrCat("max_words must be at least 1, got ", config.max_words));
  }
  if (config.max_clause_bytes < kMinClauseBytes) {
    return absl::InvalidArgumentError(absl::StrCat("max_clause_bytes must be at least ", kMinClauseBytes,
                                                   ", got ", config.max_clause_bytes));
  }
  return absl::OkStatus();
}

ClauseSegmenter::ClauseSegmenter(SegmenterConfig config)
    : config_(config), last_language_(config.default_language) {
  config_.max_han_characters = std::max(config_.max_han_characters, 1);
  config_.max_words = std::max(config_.max_words, 1);
  config_.max_clause_bytes = std::max(config_.max_clause_bytes, kMinClauseBytes);
}

std::vector<Clause> ClauseSegmenter::Push(std::string_view utf8_piece) {
  pending_.append(utf8_piece);
  return Drain(/*end_of_stream=*/false);
}

std::vector<Clause> ClauseSegmenter::Flush() { return Drain(/*end_of_stream=*/true); }

std::vector<Clause> ClauseSegmenter::Drain(bool end_of_stream) {
  std::vector<Clause> out;
  while (true) {
    const size_t complete = pending_.size() - (end_of_stream ? 0 : IncompleteUtf8Tail(pending_));
    const std::vector<CodePoint> cps = DecodeUtf8(std::string_view(pending_).substr(0, complete));
    size_t blank = 0;
    while (blank < cps.size() && IsSpace(cps[blank].value)) ++blank;
    if (blank > 0) {
      const size_t bytes = blank < cps.size() ? cps[blank].offset : complete;
      pending_.erase(0, bytes);
      pending_offset_ += static_cast<int64_t>(bytes);
      continue;
    }
    if (cps.empty()) break;
    const Cut cut = ClauseScanner(cps, end_of_stream, config_).Next();
    if (!cut.found) break;
    const size_t bytes = cut.end < cps.size() ? cps[cut.end].offset : complete;
    Emit(std::string_view(pending_).substr(0, bytes), pending_offset_, cut.ends_sentence, out);
    pending_.erase(0, bytes);
    pending_offset_ += static_cast<int64_t>(bytes);
  }
  return out;
}

void ClauseSegmenter::Emit(std::string_view text, int64_t offset, bool ends_sentence,
                           std::vector<Clause>& out) {
  const std::vector<CodePoint> cps = DecodeUtf8(text);
  size_t last = cps.size();
  while (last > 0 && IsSpace(cps[last - 1].value)) --last;
  if (last == 0) return;
  Clause clause;
  clause.text = std::string(text.substr(0, cps[last - 1].offset + cps[last - 1].length));
  clause.source_offset = static_cast<int>(offset);
  clause.ends_sentence = ends_sentence;
  if (HasLanguageEvidence(clause.text)) last_language_ = DetectLanguage(clause.text, last_language_);
  clause.language = last_language_;
  out.push_back(std::move(clause));
}

}  // namespace lingcast
