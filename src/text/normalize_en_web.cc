#include "text/normalize_en_web.h"

#include "text/english_numbers.h"

namespace lingcast::normalize_en {

// www.shop.com, https://shop.com/sale, sales@shop.com: read out piece by piece.
size_t RewriteWebAddress(EnglishRewriter& r, size_t i) {
  size_t end = i;
  while (end < r.size() && !IsSpace(r.At(end)) && r.At(end) < 0x80 && r.At(end) != ',' && r.At(end) != '"' &&
         r.At(end) != ')' && r.At(end) != '!' && r.At(end) != '?') {
    ++end;
  }
  while (end > i && (r.At(end - 1) == '.' || r.At(end - 1) == ':' || r.At(end - 1) == ';')) --end;
  const std::string token = r.Slice(i, end);
  const size_t at = token.find('@');
  const bool email = at != std::string::npos && at > 0 && token.find('.', at) != std::string::npos;
  const bool url = token.starts_with("www.") || token.starts_with("http://") || token.starts_with("https://");
  if (!email && !url) return i;
  size_t k = i;
  if (token.starts_with("http")) k += token.find("//") + 2;  // the scheme is not said
  while (k < end) {
    const char32_t c = r.At(k);
    if (IsAsciiLetter(c)) {
      const size_t e = r.WordEnd(k);
      const std::string word = r.Slice(k, e);
      r.Say(word == "www" ? "w w w" : Lower(word), k);
      k = e;
      continue;
    }
    if (IsAsciiDigit(c)) {
      size_t e = k;
      while (r.DigitAt(e)) ++e;
      r.Say(EnglishDigits(r.Slice(k, e)), k);
      k = e;
      continue;
    }
    const std::string_view word = c == '.' ? "dot" : c == '@' ? "at" : c == '/' ? "slash" : c == '-' ? "dash"
                                  : c == '_' ? "underscore" : "";
    if (!word.empty()) {
      r.Emit(" ", r.OffsetOf(k));
      r.Emit(word, r.OffsetOf(k));
      r.Emit(" ", r.OffsetOf(k));
      r.set_last_spoken(false);
    }
    ++k;
  }
  if (!r.written().empty() && r.written().back() == ' ' && r.At(end) != ' ') {
    r.Truncate(r.written().size() - 1);
  }
  r.set_last_spoken(true);
  return end;
}

}  // namespace lingcast::normalize_en
