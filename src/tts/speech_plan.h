// Turns request text into the pieces a voice actually reads.
//
// Mandarin goes to espeak-ng's pinyin voice, so Chinese text is normalized (numbers
// -> words), converted to tone-digit pinyin by our lexicon, and Chinese punctuation
// becomes ASCII punctuation the voice pauses on. Latin-script words inside Chinese
// are cut out as English chunks for the English voice (first step of
// code-switching). Every byte of a chunk remembers which source bytes it speaks for,
// so word timings map back to the caller's text.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "media/language.h"
#include "text/pinyin.h"

namespace lingcast {

struct SpeechChunk {
  Language language = Language::kEn;  // the voice that reads it
  std::string text;                   // "ni3 hao3 , " for zh; the words themselves for en
  // Per byte of `text`: the source byte range [begin, end) it stands for, or -1.
  std::vector<int> source_begin;
  std::vector<int> source_end;

  // The source range covered by chunk bytes [begin, end); {-1, -1} if none.
  std::pair<int, int> SourceRange(int begin, int end) const;
};

// Which voice reads which part of a text written mainly in `base`:
//   in Chinese, an English run is a Latin word, with further Latin words joined by
//   spaces, - ' . & + ("T-shirt", "iPhone Pro"), and numbers right after a Latin word
//   with or without one space ("iPhone 15 Pro", "RTX 4090", "S24"), which the
//   English voice reads (a four-digit one in pairs: forty ninety); a number followed
//   by a unit stays Chinese ("Pro 256GB" -> 二百五十六吉字节);
//   in English, a Chinese run is Han characters with the Chinese punctuation and
//   the numbers touching them ("Try our 小笼包 today", "only 99元").
// Spans cover the text, in order; neighbours differ in language.
struct LanguageSpan {
  Language language = Language::kZh;
  int begin = 0;  // bytes
  int end = 0;
};
std::vector<LanguageSpan> SplitLanguageSpans(std::string_view text, Language base);

// Chunks for a Chinese request, in speaking order. Text with nothing to say
// (only punctuation or spaces) gives no chunks.
std::vector<SpeechChunk> PlanMandarinSpeech(std::string_view text, const PinyinConverter& pinyin);

// Chunks for an English request: the text as is for the English voice (espeak-ng
// reads English numbers itself), with Chinese runs (SplitLanguageSpans) cut out as
// Mandarin chunks, normalized as Chinese ("Buy it on 淘宝 today").
std::vector<SpeechChunk> PlanEnglishSpeech(std::string_view text, const PinyinConverter& pinyin);

}  // namespace lingcast
