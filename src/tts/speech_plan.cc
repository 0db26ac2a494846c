#include "tts/speech_plan.h"

#include <algorithm>

#include "text/normalize_en.h"
#include "text/normalize_zh.h"
#include "text/tone_sandhi.h"
#include "text/utf8.h"

namespace lingcast {
namespace {

// What the pinyin voice should read for a punctuation mark ("" = a word gap).
std::string_view PausePunctuation(char32_t c) {
  switch (c) {
    case U'，': case U'、': case U'；': case U'：': case ',': case ';': case ':':
      return ",";
    case U'。': case U'．': case '.': case U'…':
      return ".";
    case U'！': case '!':
      return "!";
    case U'？': case '?':
      return "?";
    default:
      return "";
  }
}

// Joins Latin words inside one English chunk ("iPhone Pro", "T-shirt", "don't").
bool IsEnglishJoiner(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return c == ' ' || c == '-' || c == '\'' || c == '.' || c == '&';
  });
}

class ChunkBuilder {
 public:
  explicit ChunkBuilder(std::vector<SpeechChunk>& out) : out_(out) {}

  // Appends `spoken` for source range [begin, end), in a chunk of `language`.
  void Add(Language language, std::string_view spoken, int begin, int end) {
    if (out_.empty() || out_.back().language != language) {
      out_.push_back(SpeechChunk{language, {}, {}, {}});
    }
    SpeechChunk& chunk = out_.back();
    chunk.text.append(spoken);
    chunk.source_begin.insert(chunk.source_begin.end(), spoken.size(), begin);
    chunk.source_end.insert(chunk.source_end.end(), spoken.size(), end);
  }
  // A separator with no source text of its own (spaces between pinyin syllables).
  void AddGap(std::string_view gap) {
    if (out_.empty()) return;
    SpeechChunk& chunk = out_.back();
    chunk.text.append(gap);
    chunk.source_begin.insert(chunk.source_begin.end(), gap.size(), -1);
    chunk.source_end.insert(chunk.source_end.end(), gap.size(), -1);
  }
  bool InEnglish() const { return !out_.empty() && out_.back().language == Language::kEn; }

 private:
  std::vector<SpeechChunk>& out_;
};

bool HasLetters(const SpeechChunk& chunk) {
  return std::any_of(chunk.text.begin(), chunk.text.end(),
                     [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                                         static_cast<unsigned char>(c) >= 0x80; });
}

}  // namespace

std::pair<int, int> SpeechChunk::SourceRange(int begin, int end) const {
  int lo = -1;
  int hi = -1;
  for (int i = std::max(begin, 0); i < std::min<int>(end, static_cast<int>(text.size())); ++i) {
    if (source_begin[i] < 0) continue;
    lo = lo < 0 ? source_begin[i] : std::min(lo, source_begin[i]);
    hi = std::max(hi, source_end[i]);
  }
  return {lo, hi};
}

// The syllables of a run of Han characters as they are spoken: the lexical
// readings with tone sandhi applied (不/一 change tone; 3-3 becomes 2-3), so the
// voice says 一个 yi2 ge4 and 不是 bu2 shi4. The run is one sandhi group: runs end
// at punctuation and non-Han text, where sandhi stops too.
namespace {
std::vector<PinyinSyllable> SpokenSyllables(std::string_view run, const PinyinConverter& pinyin) {
  const std::vector<PinyinWord> words = pinyin.Segment(run);
  const std::vector<std::string> surface = ApplyToneSandhi(words, run, pinyin);
  std::vector<PinyinSyllable> syllables;
  for (const PinyinWord& word : words) {
    for (const PinyinSyllable& s : word.syllables) {
      syllables.push_back(s);
      if (syllables.size() <= surface.size()) syllables.back().pinyin = surface[syllables.size() - 1];
    }
  }
  return syllables;
}

// --- Where each language's voice takes over ------------------------------------

bool IsLatinAt(const std::vector<CodePoint>& cps, size_t i) { return i < cps.size() && IsLatinLetter(cps[i].value); }
bool IsDigitAt(const std::vector<CodePoint>& cps, size_t i) { return i < cps.size() && IsAsciiDigit(cps[i].value); }
bool IsHanAt(const std::vector<CodePoint>& cps, size_t i) { return i < cps.size() && IsHan(cps[i].value); }

size_t EndOfLatinWord(const std::vector<CodePoint>& cps, size_t i) {
  while (IsLatinAt(cps, i)) ++i;
  return i;
}

// End of the number at i: digits, with one decimal point or thousands commas inside.
size_t EndOfNumber(const std::vector<CodePoint>& cps, size_t i) {
  while (true) {
    while (IsDigitAt(cps, i)) ++i;
    if (i < cps.size() && (cps[i].value == '.' || cps[i].value == ',') && IsDigitAt(cps, i + 1)) {
      ++i;
      continue;
    }
    return i;
  }
}

// Units that normalize_zh reads in Chinese after a number ("256GB" -> 二百五十六吉字节),
// so a number before one belongs to the Chinese reading, not to a model name.
bool IsUnitAt(std::string_view text, const std::vector<CodePoint>& cps, size_t i) {
  if (i < cps.size() && (cps[i].value == '%' || cps[i].value == U'％' || cps[i].value == U'℃' ||
                         cps[i].value == U'°')) {
    return true;
  }
  const size_t end = EndOfLatinWord(cps, i);
  if (end == i) return false;
  const int from = cps[i].offset;
  const int to = end < cps.size() ? cps[end].offset : static_cast<int>(text.size());
  static constexpr std::string_view kUnits[] = {"GB", "TB", "MB", "KB", "mAh", "m",  "cm", "mm", "km",
                                                "kg", "g",  "ml", "mL", "W",   "Hz", "L",  "G"};
  const std::string_view word = text.substr(from, to - from);
  return std::find(std::begin(kUnits), std::end(kUnits), word) != std::end(kUnits);
}

bool IsEnglishJoinerChar(char32_t c) { return c == ' ' || c == '-' || c == '\'' || c == '.' || c == '&' || c == '+'; }

// In Chinese text: the end of the English run that starts with the Latin word at i.
// It goes on over joiners between Latin words ("T-shirt", "iPhone Pro") and over a
// number right after a Latin word, with or without one space ("iPhone 15 Pro",
// "RTX 4090", "S24"), unless a unit follows the number ("Pro 256GB": a capacity,
// read in Chinese).
size_t EndOfEnglishRun(std::string_view text, const std::vector<CodePoint>& cps, size_t i) {
  size_t end = EndOfLatinWord(cps, i);
  while (true) {
    size_t k = end;
    while (k < cps.size() && k - end < 3 && IsEnglishJoinerChar(cps[k].value)) ++k;
    if (k > end && IsLatinAt(cps, k)) {
      end = EndOfLatinWord(cps, k);
      continue;
    }
    k = end;
    if (k < cps.size() && cps[k].value == ' ') ++k;
    if (IsDigitAt(cps, k)) {
      const size_t number_end = EndOfNumber(cps, k);
      size_t after = number_end;
      if (after < cps.size() && cps[after].value == ' ') ++after;
      if (!IsUnitAt(text, cps, after)) {
        end = number_end;
        continue;
      }
    }
    return end;
  }
}

// In English text: the end of the Chinese run that starts at i (a Han character, or
// a number written right before one: "99元"). It goes on over Han characters,
// numbers touching them and Chinese punctuation.
bool IsChinesePunctuation(char32_t c) { return (c >= 0x3000 && c <= 0x303F) || (c >= 0xFF01 && c <= 0xFF0F) ||
                                               (c >= 0xFF1A && c <= 0xFF20) || c == U'￥'; }

// 元, 块 and 折 right after a number: read in English ("yuan", "percent off").
bool IsEnglishCurrencyAt(const std::vector<CodePoint>& cps, size_t i) {
  return i < cps.size() && (cps[i].value == U'元' || cps[i].value == U'块' || cps[i].value == U'折');
}

size_t EndOfChineseRun(const std::vector<CodePoint>& cps, size_t i) {
  while (i < cps.size()) {
    if (IsHanAt(cps, i) || IsChinesePunctuation(cps[i].value)) {
      ++i;
    } else if (IsDigitAt(cps, i)) {
      const size_t number_end = EndOfNumber(cps, i);
      if (!IsHanAt(cps, number_end) && !(i > 0 && IsHan(cps[i - 1].value))) return i;
      i = number_end;
    } else {
      return i;
    }
  }
  return i;
}

}  // namespace

std::vector<LanguageSpan> SplitLanguageSpans(std::string_view text, Language base) {
  const std::vector<CodePoint> cps = DecodeUtf8(text);
  const Language other = base == Language::kZh ? Language::kEn : Language::kZh;
  std::vector<LanguageSpan> spans;
  const auto add = [&](Language language, size_t from, size_t to) {
    if (from >= to) return;
    const int begin = cps[from].offset;
    const int end = to < cps.size() ? cps[to].offset : static_cast<int>(text.size());
    if (!spans.empty() && spans.back().language == language) {
      spans.back().end = end;
    } else {
      spans.push_back({language, begin, end});
    }
  };
  size_t i = 0;
  while (i < cps.size()) {
    size_t other_end = i;
    // A unit after a number ("256GB", "5G") is read with the number, in Chinese.
    const size_t before = i > 0 && cps[i - 1].value == ' ' ? i - 1 : i;
    const bool unit_after_number = before > 0 && IsDigitAt(cps, before - 1) && IsUnitAt(text, cps, i);
    if (base == Language::kZh && IsLatinAt(cps, i) && !unit_after_number) {
      other_end = EndOfEnglishRun(text, cps, i);
    } else if (base == Language::kEn && IsDigitAt(cps, i) && (i == 0 || !IsDigitAt(cps, i - 1)) &&
               IsEnglishCurrencyAt(cps, EndOfNumber(cps, i))) {
      // "99元", "5折": the English normalizer says ninety-nine yuan, fifty percent off.
      const size_t english_end = EndOfNumber(cps, i) + 1;
      add(base, i, english_end);
      i = english_end;
      continue;
    } else if (base == Language::kEn &&
               (IsHanAt(cps, i) || (IsDigitAt(cps, i) && (i == 0 || !IsDigitAt(cps, i - 1)) &&
                                    IsHanAt(cps, EndOfNumber(cps, i))))) {
      other_end = EndOfChineseRun(cps, i);
    }
    if (other_end > i) {
      add(other, i, other_end);
      i = other_end;
    } else if (unit_after_number) {
      const size_t unit_end = std::max(EndOfLatinWord(cps, i), i + 1);
      add(base, i, unit_end);
      i = unit_end;
    } else {
      add(base, i, i + 1);
      ++i;
    }
  }
  return spans;
}

namespace {

// Chinese text [begin, end) of `text`: normalized (digits -> words), Han runs to
// surface-tone pinyin, punctuation to the pauses the pinyin voice knows. Latin
// letters the normalizer leaves ("5G" -> 五G) are read by the English voice.
void AddMandarin(ChunkBuilder& builder, std::string_view text, int begin, int end, const PinyinConverter& pinyin) {
  const NormalizedText norm = NormalizeChinese(text.substr(begin, end - begin));
  // Source range of normalized bytes [from, to): an expansion such as 九十九 for "99"
  // covers the whole number.
  const auto source_range = [&](int from, int to) {
    const int lo = norm.source_offset[from];
    int hi = end - begin;
    for (size_t k = to; k < norm.source_offset.size(); ++k) {
      if (norm.source_offset[k] > lo) {
        hi = norm.source_offset[k];
        break;
      }
    }
    return std::pair<int, int>{begin + lo, begin + hi};
  };
  const std::vector<TextRun> runs = SplitRuns(norm.text);
  for (size_t r = 0; r < runs.size(); ++r) {
    const TextRun& run = runs[r];
    const std::string_view piece = std::string_view(norm.text).substr(run.offset, run.length);
    if (run.kind == CharClass::kHan) {
      for (const PinyinSyllable& s : SpokenSyllables(piece, pinyin)) {
        if (s.pinyin.empty()) continue;  // a rare character the lexicon lacks
        const auto [lo, hi] = source_range(run.offset + s.text_offset, run.offset + s.text_offset + s.text_length);
        builder.Add(Language::kZh, s.pinyin, lo, hi);
        builder.AddGap(" ");
      }
    } else if (run.kind == CharClass::kLatin) {
      const auto [lo, hi] = source_range(run.offset, run.offset + run.length);
      builder.Add(Language::kEn, piece, lo, hi);
    } else if (builder.InEnglish() && IsEnglishJoiner(piece) && r + 1 < runs.size() &&
               runs[r + 1].kind == CharClass::kLatin) {
      builder.AddGap(piece);
    } else {
      for (const CodePoint& cp : DecodeUtf8(piece)) {
        const std::string_view mark = PausePunctuation(cp.value);
        if (mark.empty()) continue;
        const auto [lo, hi] = source_range(run.offset + cp.offset, run.offset + cp.offset + cp.length);
        builder.Add(builder.InEnglish() ? Language::kEn : Language::kZh, mark, lo, hi);
        builder.AddGap(" ");
      }
      if (builder.InEnglish()) builder.AddGap(" ");
    }
  }
}

// English text [begin, end) of `text` for the English voice, normalized as English
// (text/normalize_en.h: numbers, prices, units, model numbers in pairs, acronyms
// spelled), each spoken character mapped to the source characters it stands for.
void AddEnglish(ChunkBuilder& builder, std::string_view text, int begin, int end) {
  const NormalizedText norm = NormalizeEnglish(text.substr(begin, end - begin));
  const std::vector<CodePoint> cps = DecodeUtf8(norm.text);
  for (size_t i = 0; i < cps.size(); ++i) {
    const int lo = norm.source_offset[cps[i].offset];
    // Up to the next source character that later text stands for ("forty ninety"
    // all maps to "4090").
    int hi = end - begin;
    for (size_t k = cps[i].offset + cps[i].length; k < norm.source_offset.size(); ++k) {
      if (norm.source_offset[k] > lo) {
        hi = norm.source_offset[k];
        break;
      }
    }
    builder.Add(Language::kEn, std::string_view(norm.text).substr(cps[i].offset, cps[i].length), begin + lo,
                begin + hi);
  }
}

}  // namespace

std::vector<SpeechChunk> PlanMandarinSpeech(std::string_view text, const PinyinConverter& pinyin) {
  std::vector<SpeechChunk> chunks;
  ChunkBuilder builder(chunks);
  for (const LanguageSpan& span : SplitLanguageSpans(text, Language::kZh)) {
    if (span.language == Language::kZh) {
      AddMandarin(builder, text, span.begin, span.end, pinyin);
    } else {
      AddEnglish(builder, text, span.begin, span.end);
    }
  }
  std::erase_if(chunks, [](const SpeechChunk& c) { return !HasLetters(c); });
  return chunks;
}

std::vector<SpeechChunk> PlanEnglishSpeech(std::string_view text, const PinyinConverter& pinyin) {
  std::vector<SpeechChunk> chunks;
  ChunkBuilder builder(chunks);
  for (const LanguageSpan& span : SplitLanguageSpans(text, Language::kEn)) {
    if (span.language == Language::kZh) {
      AddMandarin(builder, text, span.begin, span.end, pinyin);
    } else {
      AddEnglish(builder, text, span.begin, span.end);
    }
  }
  std::erase_if(chunks, [](const SpeechChunk& c) {
    return !HasLetters(c) && std::none_of(c.text.begin(), c.text.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
  });
  return chunks;
}

}  // namespace lingcast
