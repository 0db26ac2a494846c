// Capital words in English text for speech: which are spelled letter by letter
// ("USB" -> U S B) and which are said as words ("SALE", "NASA"). Used by the word,
// abbreviation and number rules of NormalizeEnglish (normalize_en.h).
#pragma once

#include <string>
#include <string_view>

#include "text/normalize_en_rewriter.h"

namespace lingcast::normalize_en {

// Whether an all-capital word, given in lower case, is said as a word: shouted
// commerce copy ("sale", "free", "off") and acronyms said as words ("nasa", "ram").
bool IsCapitalWordSaidAsWord(const std::string& lower);
// "usb" -> "U S B".
std::string Spell(std::string_view letters);

}  // namespace lingcast::normalize_en
