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

// Edit distances from one fixed sequence (a lookup's query) to many others: a
// machine word holds a whole column of the distance table (Myers' bit-parallel
// algorithm, global form), so a line costs a few word operations per token instead
// of a row of cells. Queries longer than 64 tokens fall back to TokenEditDistance.
// Exact: Distance equals TokenEditDistance for every input.
class QueryEditDistance {
 public:
  explicit QueryEditDistance(const std::vector<uint32_t>& query);

  // The distance from the query to `line` (`length` tokens); some value >
  // `max_distance` as soon as the distance is known to exceed it.
  int Distance(const uint32_t* line, int length, int max_distance) const;

 private:
  uint64_t Match(uint32_t token) const;  // the query positions holding `token`

  std::vector<uint32_t> query_;
  // A small open-addressed table: token -> bit mask of its positions in the query.
  static constexpr uint32_t kEmptySlot = 0xFFFFFFFFu;
  std::vector<uint32_t> slot_token_;
  std::vector<uint64_t> slot_mask_;
  uint32_t slot_bits_ = 0;
  uint64_t reserved_token_mask_ = 0;  // the positions of token kEmptySlot, which the table cannot hold
};

// 1 - distance / max(|a|, |b|), in [0, 1]; 1 for two empty sequences.
double TokenSimilarity(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b);

}  // namespace lingcast
