// Cleans text before it is segmented, normalized and spoken: what a voice cannot say
// (emoji, control and format characters, unassigned and private-use code points,
// malformed UTF-8) is removed and counted per kind, so the caller can warn once
// ("removed 3 emoji, 1 invalid UTF-8 byte") instead of failing or reading gibberish.
//
// Kept: everything else, in particular Han, Latin, digits, punctuation, symbols and
// combining marks. White space: '\t', '\v', '\f' become ' '; "\r\n" and a lone '\r'
// become '\n' (a line break still ends a sentence for the segmenter).
// Full-width forms that the normalizers read as ASCII become ASCII: letters and
// digits (Ａ１ -> A1), ＄ ％ ＋ ＠ ＃ ＆ ＝, and ． ／ － ： between two digits (３．５ -> 3.5).
// Full-width Chinese punctuation (，！？：；（）) stays as it is.
//
// Character properties come from ICU (Unicode 15 in Debian 12's libicu72), so
// "unassigned" follows the Unicode version ICU knows.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace lingcast {

struct SanitizeCounts {
  int emoji = 0;            // emoji, counted once per emoji (a ZWJ sequence or a flag is one)
  int control = 0;          // control and format characters (NUL, ESC, zero-width joiner ...)
  int unassigned = 0;       // code points with no character assigned (incl. noncharacters)
  int private_use = 0;      // private-use code points (vendor icons, custom fonts)
  int invalid_utf8 = 0;     // malformed UTF-8 bytes

  int total() const { return emoji + control + unassigned + private_use + invalid_utf8; }
  SanitizeCounts& operator+=(const SanitizeCounts& other);
  bool operator==(const SanitizeCounts&) const = default;
};

// "removed 2 emoji, 1 control character and 3 invalid UTF-8 bytes"; "" when nothing was.
std::string DescribeRemovals(const SanitizeCounts& removed);

// Cleaned text plus, for every byte of it, the byte offset of the source character it
// came from (as NormalizedText in normalize_zh.h does), so clause offsets map back.
struct SanitizedText {
  std::string text;
  std::vector<int> source_offset;  // size() == text.size(); offsets into the input
  SanitizeCounts removed;
};

// Sanitizes a whole text.
SanitizedText SanitizeText(std::string_view text);

// Sanitizes a stream that arrives in pieces (a piece may end inside a UTF-8 sequence,
// a "\r\n" or an emoji sequence); the concatenated outputs equal SanitizeText() of the
// whole stream, and offsets count from the start of the stream.
class TextSanitizer {
 public:
  SanitizedText Push(std::string_view piece);
  // The end of the stream: a trailing incomplete UTF-8 sequence counts as invalid.
  SanitizedText Flush();
  // Everything removed so far.
  const SanitizeCounts& removed() const { return total_; }

 private:
  SanitizedText Process(bool end_of_stream);

  // Bytes not yet decided: an incomplete UTF-8 sequence, or a trailing '\r' or
  // full-width point whose meaning depends on what comes next.
  std::string pending_;
  int64_t pending_offset_ = 0;  // stream offset of pending_[0]
  SanitizeCounts total_;
  // Emoji sequences and "\r\n" span code points; this is what the last ones were.
  bool in_emoji_ = false;             // the last code point belonged to an emoji
  bool after_emoji_joiner_ = false;   // ... and it was a zero-width joiner
  bool regional_pair_open_ = false;   // the first regional indicator of a flag was seen
  bool after_carriage_return_ = false;
  char32_t last_kept_ = 0;
};

}  // namespace lingcast
