#include "text/normalize_en_symbols.h"

#include "text/normalize_en_phones.h"

namespace lingcast::normalize_en {

size_t RewriteSymbol(EnglishRewriter& r, size_t i) {
  const char32_t c = r.At(i);
  const char32_t prev = i > 0 ? r.At(i - 1) : 0;
  if (c == '#' && r.DigitAt(i + 1) && !IsAsciiAlnum(prev)) {
    r.Say("number", i);
    return i + 1;
  }
  if ((c == '-' || c == U'−') && r.DigitAt(i + 1) && (i == 0 || IsSpace(prev) || prev == '(')) {
    r.Say("minus", i);
    return i + 1;
  }
  if (c == '(' && r.DigitAt(i + 1)) return RewriteParenthesizedPhone(r, i);
  if (c == '/' && r.last_spoken() && IsAsciiLetter(r.At(i + 1))) {  // $49.99/month, 5kg/box
    r.Say("per", i);
    return i + 1;
  }
  if (c == '+') {
    if (size_t k = RewriteInternationalPhone(r, i); k > i) return k;
    if (IsAsciiAlnum(prev) || prev == '+' || r.DigitAt(i + 1) || (prev == ' ' && r.At(i + 1) == ' ')) {
      r.Say("plus", i);
      return i + 1;
    }
    return i;
  }
  if (c == '&' && (IsAsciiAlnum(prev) || prev == ' ') && (IsAsciiAlnum(r.At(i + 1)) || r.At(i + 1) == ' ')) {
    r.Say("and", i);
    return i + 1;
  }
  return i;
}

}  // namespace lingcast::normalize_en
