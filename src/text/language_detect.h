// Which of lingcast's two languages a piece of text is written in.
#pragma once

#include <string_view>

#include "media/language.h"

namespace lingcast {

// Majority rule with a first-strong tie-break:
//   * every Han character is one vote for Chinese;
//   * every Latin word (a run of Latin letters) is one vote for English
//     (words, not letters: "iPhone 15 Pro 只要99元" is Chinese);
//   * the side with more votes wins; on a tie the first Han character or Latin
//     letter in the text decides;
//   * text with neither (digits, punctuation, empty) gets `fallback`.
Language DetectLanguage(std::string_view text, Language fallback = Language::kEn);

// True when `text` holds at least one Han character or Latin letter.
bool HasLanguageEvidence(std::string_view text);

}  // namespace lingcast
