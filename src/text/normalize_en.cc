#include "text/normalize_en.h"

#include "text/normalize_en_money.h"
#include "text/normalize_en_numbers.h"
#include "text/normalize_en_rewriter.h"
#include "text/normalize_en_symbols.h"
#include "text/normalize_en_words.h"

namespace lingcast {
namespace {

using normalize_en::EnglishRewriter;
using normalize_en::IsAsciiAlnum;
using normalize_en::IsAsciiLetter;

// The rule for what starts at code point i: the index past what it rewrote, or i.
// Each rule looks further on its own (a word may be a web address, an abbreviation,
// a month date or a model name; a number a date, a phone, a time or a quantity).
size_t RewriteAt(EnglishRewriter& r, size_t i) {
  const char32_t c = r.At(i);
  const char32_t prev = i > 0 ? r.At(i - 1) : 0;
  if (normalize_en::CurrencyOfSymbol(c) != nullptr && r.DigitAt(i + 1)) return normalize_en::RewriteMoney(r, i);
  if (size_t k = normalize_en::RewriteSymbol(r, i); k > i) return k;
  if (IsAsciiLetter(c) && !IsAsciiAlnum(prev)) return normalize_en::RewriteWord(r, i);
  // Not inside a word ("S24" is the word rule's), nor digits after "3." that a rule left.
  if (r.DigitAt(i) && !IsAsciiAlnum(prev) && !(prev == '.' && r.DigitAt(i - 2))) {
    return normalize_en::RewriteNumber(r, i);
  }
  return i;
}

}  // namespace

NormalizedText NormalizeEnglish(std::string_view text) {
  EnglishRewriter r(text);
  size_t i = 0;
  while (i < r.size()) {
    const size_t next = RewriteAt(r, i);
    if (next > i) {
      i = next;
      continue;
    }
    // A word written against a spoken one ("5G" -> five G) gets a space.
    if (r.last_spoken() && IsAsciiAlnum(r.At(i)) && r.EndsWithAlnum()) r.Emit(" ", r.OffsetOf(i));
    r.set_last_spoken(false);
    r.Copy(i);
    ++i;
  }
  return std::move(r).Take();
}

}  // namespace lingcast
