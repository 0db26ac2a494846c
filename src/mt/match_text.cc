#include "mt/match_text.h"

#include "absl/container/inlined_vector.h"

#include <algorithm>
#include <utility>

#include "core/status.h"
#include "text/normalize_en.h"
#include "text/normalize_zh.h"
#include "text/sanitize.h"
#include "text/utf8.h"

namespace lingcast {
namespace {

// Full-width ASCII (U+FF01–FF5E) to ASCII, the ideographic space to a space.
char32_t FoldWidth(char32_t c) {
  if (c >= 0xFF01 && c <= 0xFF5E) return c - 0xFF01 + 0x21;
  if (c == 0x3000) return U' ';
  return c;
}

char32_t FoldCase(char32_t c) {
  if (c >= U'A' && c <= U'Z') return c - U'A' + U'a';
  // Latin-1 capitals (except × at U+00D7).
  if (c >= 0xC0 && c <= 0xDE && c != 0xD7) return c + 0x20;
  return c;
}

enum class TokenKind { kNone, kLetters, kDigits };

// Chinese numerals that say the same number, as one: 两 and 二 (两百 / 二百, and
// NormalizeChinese reads 2 as 两 before a measure word, 200 as 二百), 〇 and 零
// (二〇二四 / 二零二四; 〇 is not a Han character to MatchTokens, so it would be
// dropped), 幺 and 一 (phone numbers).
char32_t FoldChineseNumeral(char32_t c) {
  switch (c) {
    case U'两': return U'二';
    case U'〇': return U'零';
    case U'幺': return U'一';
    default: return c;
  }
}

bool IsChineseNumeral(std::string_view token) {
  static constexpr std::string_view kNumerals[] = {"零", "一", "二", "三", "四", "五", "六", "七",
                                                   "八", "九", "十", "百", "千", "万", "亿"};
  return std::find(std::begin(kNumerals), std::end(kNumerals), token) != std::end(kNumerals);
}

bool IsEnglishNumberWord(std::string_view token) {
  static constexpr std::string_view kWords[] = {
      "zero",    "one",       "two",      "three",    "four",     "five",    "six",     "seven",
      "eight",   "nine",      "ten",      "eleven",   "twelve",   "thirteen", "fourteen", "fifteen",
      "sixteen", "seventeen", "eighteen", "nineteen", "twenty",   "thirty",  "forty",   "fifty",
      "sixty",   "seventy",   "eighty",   "ninety",   "hundred",  "thousand", "million", "billion"};
  return std::find(std::begin(kWords), std::end(kWords), token) != std::end(kWords);
}

bool HasHan(std::string_view text) {
  for (const CodePoint& cp : DecodeUtf8(text)) {
    if (IsHan(cp.value)) return true;
  }
  return false;
}

}  // namespace

MatchSpelling::MatchSpelling(Language language, std::shared_ptr<const ZhScriptConverter> to_simplified)
    : language_(language), to_simplified_(std::move(to_simplified)) {}

absl::StatusOr<MatchSpelling> MatchSpelling::Load(Language language) {
  if (language != Language::kZh) return MatchSpelling(language);
  LC_ASSIGN_OR_RETURN(ZhScriptConverter converter, ZhScriptConverter::Load(ZhScript::kSimplified));
  return MatchSpelling(language, std::make_shared<const ZhScriptConverter>(std::move(converter)));
}

std::string MatchSpelling::Spell(std::string_view text) const {
  if (!language_) return std::string(text);
  std::string spelled = SanitizeText(text).text;
  // Character by character, not by phrase: a line and the start of it heard
  // must fold alike, whatever follows (乾 is 干 alone, and in 乾隆 too).
  if (to_simplified_ != nullptr && HasHan(spelled)) spelled = to_simplified_->ConvertCharacters(spelled);
  if (*language_ == Language::kEn) return NormalizeEnglish(spelled).text;
  std::string folded;
  for (const CodePoint& cp : DecodeUtf8(NormalizeChinese(spelled).text)) AppendUtf8(FoldChineseNumeral(cp.value), folded);
  return folded;
}

std::vector<std::string> MatchSpelling::Tokens(std::string_view text) const { return MatchTokens(Spell(text)); }

std::string MatchSpelling::Key(std::string_view text) const { return MatchKey(Spell(text)); }

std::vector<std::string> MatchSpelling::TokensWithWholeNumbers(std::string_view text) const {
  std::vector<std::string> tokens = Tokens(text);
  std::vector<std::string> joined;
  joined.reserve(tokens.size());
  // The kind of number the last token is part of, if any.
  enum class Number { kNone, kChinese, kEnglish } open = Number::kNone;
  for (size_t i = 0; i < tokens.size(); ++i) {
    std::string& token = tokens[i];
    const Number kind = IsChineseNumeral(token)   ? Number::kChinese
                        : IsEnglishNumberWord(token) ? Number::kEnglish
                                                     : Number::kNone;
    // A decimal point said between two numerals (三点五, "three point five") is
    // part of the number.
    const bool point = open != Number::kNone && i + 1 < tokens.size() &&
                       ((open == Number::kChinese && token == "点" && IsChineseNumeral(tokens[i + 1])) ||
                        (open == Number::kEnglish && token == "point" && IsEnglishNumberWord(tokens[i + 1])));
    if ((kind != Number::kNone && kind == open) || point) {
      if (open == Number::kEnglish) joined.back().push_back(' ');
      joined.back() += token;
      continue;
    }
    joined.push_back(std::move(token));
    open = kind;
  }
  return joined;
}

std::vector<std::string> MatchTokens(std::string_view text) {
  std::vector<std::string> tokens;
  std::string current;
  TokenKind kind = TokenKind::kNone;
  auto finish = [&] {
    if (!current.empty()) tokens.push_back(std::move(current));
    current.clear();
    kind = TokenKind::kNone;
  };
  for (const CodePoint& cp : DecodeUtf8(text)) {
    const char32_t c = FoldCase(FoldWidth(cp.value));
    if (IsHan(c)) {
      finish();
      std::string han;
      AppendUtf8(c, han);
      tokens.push_back(std::move(han));
    } else if (IsAsciiDigit(c)) {
      if (kind != TokenKind::kDigits) finish();
      kind = TokenKind::kDigits;
      current.push_back(static_cast<char>(c));
    } else if (IsLatinLetter(c) || (c == U'\'' && kind == TokenKind::kLetters)) {
      // An apostrophe inside a word keeps "don't" one token.
      if (kind != TokenKind::kLetters) finish();
      kind = TokenKind::kLetters;
      AppendUtf8(c, current);
    } else {
      finish();
    }
  }
  finish();
  // A trailing apostrophe ("dogs'") is punctuation, not part of the word.
  for (std::string& token : tokens) {
    while (token.size() > 1 && token.back() == '\'') token.pop_back();
  }
  return tokens;
}

std::string MatchKey(std::string_view text) {
  std::string key;
  for (const std::string& token : MatchTokens(text)) {
    if (!key.empty()) key.push_back(' ');
    key += token;
  }
  return key;
}

int TokenEditDistance(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b, int max_distance) {
  const int n = static_cast<int>(a.size());
  const int m = static_cast<int>(b.size());
  if (std::abs(n - m) > max_distance) return max_distance + 1;
  if (n == 0) return m;
  if (m == 0) return n;
  // Only cells within `band` of the diagonal can lie on a path of cost <=
  // band (Ukkonen): the rest count as band + 1. A lookup's bound is a few
  // tokens, so a row costs a few cells instead of the whole line.
  const int band = std::min(max_distance, std::max(n, m));
  const int beyond = band + 1;
  // On the stack for lines up to 128 tokens: a lookup verifies thousands of candidates.
  absl::InlinedVector<int, 129> previous(static_cast<size_t>(m) + 1, beyond), current(static_cast<size_t>(m) + 1, beyond);
  for (int j = 0; j <= std::min(m, band); ++j) previous[static_cast<size_t>(j)] = j;
  for (int i = 1; i <= n; ++i) {
    const int from = std::max(1, i - band), to = std::min(m, i + band);
    current[static_cast<size_t>(from - 1)] = from == 1 && i <= band ? i : beyond;
    int row_min = current[static_cast<size_t>(from - 1)];
    for (int j = from; j <= to; ++j) {
      const size_t jj = static_cast<size_t>(j);
      const int substitute = previous[jj - 1] + (a[static_cast<size_t>(i - 1)] == b[jj - 1] ? 0 : 1);
      current[jj] = std::min({substitute, previous[jj] + 1, current[jj - 1] + 1, beyond});
      row_min = std::min(row_min, current[jj]);
    }
    if (to < m) current[static_cast<size_t>(to) + 1] = beyond;
    // Every later row is at least this row's minimum: stop once it is too far.
    if (row_min > max_distance) return max_distance + 1;
    std::swap(previous, current);
  }
  return std::min(previous[static_cast<size_t>(m)], beyond);
}

QueryEditDistance::QueryEditDistance(const std::vector<uint32_t>& query) : query_(query) {
  if (query_.empty() || query_.size() > 64) return;
  // At most half full, so a probe ends after a slot or two.
  slot_bits_ = 7;
  const size_t slots = size_t{1} << slot_bits_;
  slot_token_.assign(slots, kEmptySlot);
  slot_mask_.assign(slots, 0);
  for (size_t i = 0; i < query_.size(); ++i) {
    if (query_[i] == kEmptySlot) {
      reserved_token_mask_ |= uint64_t{1} << i;
      continue;
    }
    uint32_t slot = (query_[i] * 0x9E3779B1u) >> (32 - slot_bits_);
    while (slot_token_[slot] != kEmptySlot && slot_token_[slot] != query_[i]) slot = (slot + 1) & (slots - 1);
    slot_token_[slot] = query_[i];
    slot_mask_[slot] |= uint64_t{1} << i;
  }
}

uint64_t QueryEditDistance::Match(uint32_t token) const {
  if (token == kEmptySlot) return reserved_token_mask_;
  const uint32_t mask = (uint32_t{1} << slot_bits_) - 1;
  for (uint32_t slot = (token * 0x9E3779B1u) >> (32 - slot_bits_);; slot = (slot + 1) & mask) {
    if (slot_token_[slot] == token) return slot_mask_[slot];
    if (slot_token_[slot] == kEmptySlot) return 0;
  }
}

int QueryEditDistance::Distance(const uint32_t* line, int length, int max_distance) const {
  const int n = static_cast<int>(query_.size());
  if (std::abs(n - length) > max_distance) return max_distance + 1;
  if (n == 0) return length;
  if (n > 64) return TokenEditDistance(query_, std::vector<uint32_t>(line, line + length), max_distance);
  // Column j of the table, as the differences down it: bit i of `plus` / `minus`
  // says D[i+1][j] - D[i][j] is +1 / -1. The first column is 0..n (all +1).
  const uint64_t all = n == 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1;
  const uint64_t last = uint64_t{1} << (n - 1);
  uint64_t plus = all, minus = 0;
  int score = n;  // D[n][j]
  for (int j = 0; j < length; ++j) {
    const uint64_t equal = Match(line[j]);
    const uint64_t vertical = equal | minus;
    const uint64_t diagonal = (((equal & plus) + plus) ^ plus) | equal;
    uint64_t horizontal_plus = minus | ~(diagonal | plus);
    uint64_t horizontal_minus = plus & diagonal;
    if (horizontal_plus & last) ++score;
    if (horizontal_minus & last) --score;
    // The top row is 0, 1, 2 ...: a +1 enters from above every column.
    horizontal_plus = (horizontal_plus << 1) | 1;
    horizontal_minus <<= 1;
    plus = (horizontal_minus | ~(vertical | horizontal_plus)) & all;
    minus = horizontal_plus & vertical & all;
    // Each remaining token lowers the last row by at most one.
    if (score - (length - 1 - j) > max_distance) return max_distance + 1;
  }
  return score;
}

double TokenSimilarity(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b) {
  const size_t longest = std::max(a.size(), b.size());
  if (longest == 0) return 1.0;
  return 1.0 - static_cast<double>(TokenEditDistance(a, b)) / static_cast<double>(longest);
}

}  // namespace lingcast
