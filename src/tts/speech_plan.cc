#include "tts/speech_plan.h"

#include <algorithm>

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
}  // namespace

std::vector<SpeechChunk> PlanMandarinSpeech(std::string_view text, const PinyinConverter& pinyin) {
  const NormalizedText norm = NormalizeChinese(text);
  const int source_size = static_cast<int>(text.size());
  // Source range of normalized bytes [begin, end): an expansion such as 九十九 for "99"
  // covers the whole number.
  const auto source_range = [&](int begin, int end) {
    const int lo = norm.source_offset[begin];
    int hi = source_size;
    for (size_t k = end; k < norm.source_offset.size(); ++k) {
      if (norm.source_offset[k] > lo) {
        hi = norm.source_offset[k];
        break;
      }
    }
    return std::pair<int, int>{lo, hi};
  };

  std::vector<SpeechChunk> chunks;
  ChunkBuilder builder(chunks);
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
  std::erase_if(chunks, [](const SpeechChunk& c) { return !HasLetters(c); });
  return chunks;
}

std::vector<SpeechChunk> PlanEnglishSpeech(std::string_view text, const PinyinConverter& pinyin) {
  std::vector<SpeechChunk> chunks;
  ChunkBuilder builder(chunks);
  for (const TextRun& run : SplitRuns(text)) {
    const std::string_view piece = text.substr(run.offset, run.length);
    if (run.kind == CharClass::kHan) {
      for (const PinyinSyllable& s : SpokenSyllables(piece, pinyin)) {
        if (s.pinyin.empty()) continue;
        const int at = run.offset + s.text_offset;
        builder.Add(Language::kZh, s.pinyin, at, at + s.text_length);
        builder.AddGap(" ");
      }
      continue;
    }
    for (const CodePoint& cp : DecodeUtf8(piece)) {
      const int at = run.offset + cp.offset;
      builder.Add(Language::kEn, piece.substr(cp.offset, cp.length), at, at + cp.length);
    }
  }
  std::erase_if(chunks, [](const SpeechChunk& c) {
    return !HasLetters(c) && std::none_of(c.text.begin(), c.text.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
  });
  return chunks;
}

}  // namespace lingcast
