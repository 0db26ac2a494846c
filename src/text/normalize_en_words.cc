#include "text/normalize_en_words.h"

#include <algorithm>

#include "text/english_numbers.h"
#include "text/normalize_en_abbreviations.h"
#include "text/normalize_en_acronyms.h"
#include "text/normalize_en_dates.h"
#include "text/normalize_en_units.h"
#include "text/normalize_en_web.h"

namespace lingcast::normalize_en {

namespace {

// The hyphen at k (USB-C, GPT-4) becomes a space; returns where to go on.
size_t HyphenToSpace(EnglishRewriter& r, size_t k) {
  if (r.At(k) == '-' && IsAsciiAlnum(r.At(k + 1))) {
    r.Emit(" ", r.OffsetOf(k));
    r.set_last_spoken(false);
    return k + 1;
  }
  return k;
}

// Letters and digits run together: S24, PS5, A17, RTX4090, iPhone15, i7, v2.0, H2O.
size_t RewriteModelToken(EnglishRewriter& r, size_t i) {
  size_t k = i;
  while (k < r.size() && IsAsciiAlnum(r.At(k))) {
    const size_t start = k;
    if (IsAsciiLetter(r.At(k))) {
      k = r.WordEnd(k);
      const std::string letters = r.Slice(start, k);
      const bool capitals = std::all_of(letters.begin(), letters.end(), [](char ch) { return IsUpper(ch); });
      if (capitals && letters.size() >= 2 && letters.size() <= 4 && !IsCapitalWordSaidAsWord(Lower(letters))) {
        r.Say(Spell(letters), start);
      } else if (capitals && letters.size() >= 2) {
        r.Say(Lower(letters), start);  // SAVE20 -> save twenty
      } else {
        r.Say(letters, start);
      }
    } else {
      const Number n = r.ParseNumber(k);
      k = n.end;
      if (size_t unit_end = 0; const Unit* unit = UnitAt(r, k, unit_end)) {
        if (unit_end > k && r.At(k) != ' ') {
          r.Say(ReadNumber(n) + " " + std::string(n.IsOne() ? unit->singular : unit->plural), start);
          k = unit_end;
          continue;
        }
      }
      r.Say(n.has_fraction || n.integer.size() > 4 ? ReadNumber(n) : EnglishPairs(n.integer), start);
    }
  }
  return HyphenToSpace(r, k);
}

}  // namespace

size_t RewriteWord(EnglishRewriter& r, size_t i) {
  if (size_t k = RewriteWebAddress(r, i); k > i) return k;
  const size_t end = r.WordEnd(i);
  const std::string word = r.Slice(i, end);
  const std::string lower = Lower(word);
  if (size_t k = RewriteDottedAbbreviation(r, i); k > i) return k;
  if (size_t k = RewriteAbbreviation(r, i, end, word, lower); k > i) return k;
  if (size_t k = RewriteMonthDate(r, i, end, word); k > i) return k;
  if (r.DigitAt(end)) return RewriteModelToken(r, i);
  if (word == "OK") {
    r.Say("okay", i);
    return end;
  }
  if (word == "w" && r.At(end) == '/' && !IsAsciiAlnum(r.At(end + 1))) {
    r.Say("with", i);
    return end + 1;
  }
  const bool all_capitals = std::all_of(word.begin(), word.end(), [](char ch) { return IsUpper(ch); });
  if (all_capitals && word.size() >= 2 && !IsLower(r.At(end))) {
    const bool joined = r.At(end) == '&' || (i > 0 && r.At(i - 1) == '&');  // AT&T
    if (word.size() <= 4 && (joined || !IsCapitalWordSaidAsWord(lower))) {
      r.Say(Spell(word), i);
    } else {
      r.Say(lower, i);  // a shouted word (SALE, HURRY) is an ordinary word
    }
    return HyphenToSpace(r, end);
  }
  // Type-C, GPT-4 (after the acronym above), COVID-19: the hyphen is a space.
  if (r.last_spoken() && r.EndsWithAlnum()) r.Emit(" ", r.OffsetOf(i));
  r.Emit(word, r.OffsetOf(i));
  r.set_last_spoken(false);
  if (r.At(end) == '-' && (r.DigitAt(end + 1) || (IsUpper(r.At(end + 1)) && !IsAsciiLetter(r.At(end + 2))))) {
    return HyphenToSpace(r, end);
  }
  return end;
}

}  // namespace lingcast::normalize_en
