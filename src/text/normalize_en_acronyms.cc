#include "text/normalize_en_acronyms.h"

namespace lingcast::normalize_en {

// All-capital words that are read as words, not spelled: shouted commerce copy and
// acronyms said as words.
bool IsCapitalWordSaidAsWord(const std::string& lower) {
  return IsOneOf(lower, {"a",    "i",    "am",   "an",   "and",  "are",  "as",   "at",   "be",   "buy",  "by",
                         "can",  "do",   "for",  "get",  "go",   "he",   "hi",   "hot",  "if",   "in",   "is",
                         "it",   "me",   "my",   "new",  "no",   "not",  "now",  "of",   "off",  "oh",   "on",
                         "one",  "or",   "our",  "out",  "so",   "the",  "to",   "top",  "two",  "up",   "us",
                         "we",   "wow",  "yes",  "you",  "all",  "big",  "day",  "fun",  "hey",  "max",  "pro",
                         "air",  "mini", "plus", "lite", "sale", "free", "deal", "best", "only", "live", "shop",
                         "gift", "last", "just", "more", "less", "save", "fast", "now", "this", "that", "with",
                         "your", "from", "will", "have", "here", "what", "when", "love", "cool", "easy", "good",
                         "nasa", "nato", "ram",  "rom",  "sim",  "pin",  "lan",  "wan",  "lego", "ikea", "asus",
                         "sony", "jpeg", "gif",  "oled", "qled", "laser", "radar", "covid", "opec", "fifa",
                         "unesco", "edge", "neo", "ultra", "note", "wifi"});
}

std::string Spell(std::string_view letters) {
  std::string out;
  for (const char c : letters) {
    if (!out.empty()) out += ' ';
    out += static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  }
  return out;
}

}  // namespace lingcast::normalize_en
