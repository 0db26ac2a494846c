// Matching keys for translation memory and script following: what two spoken
// lines have in common once case, width, punctuation and spacing are set aside.
//
// Chinese is compared character by character and English word by word, so an edit
// distance counts what a listener would count as a difference: one wrong 字, one
// wrong word. Digits form one token per run ("99" is one token in both languages).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace lingcast {

// Tokens of `text` for matching: each Han character is a token, each run of Latin
// letters or of digits is a token (lowercased; full-width forms folded to ASCII);
// punctuation, symbols and spaces separate tokens and are dropped.
std::vector<std::string> MatchTokens(std::string_view text);

// The tokens joined by single spaces: two texts with the same key are the same line
// for an exact match ("iPhone 15，只要99元！" and "iphone 15 只要 99 元" share one).
std::string MatchKey(std::string_view text);

// Levenshtein distance between two token sequences. When the distance exceeds
// `max_distance`, returns some value > max_distance without finishing (a banded
// computation), which is all a thresholded lookup needs.
int TokenEditDistance(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b,
                      int max_distance = 1 << 30);

// 1 - distance / max(|a|, |b|), in [0, 1]; 1 for two empty sequences.
double TokenSimilarity(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b);

}  // namespace lingcast
