// UTF-8 validation and decoding, and the character classes the Mandarin/English
// front-end needs (Han ideographs vs Latin letters vs everything else).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"

namespace lingcast {

// OK if `text` is well-formed UTF-8 (no overlongs, no surrogates, <= U+10FFFF).
// Otherwise InvalidArgument "invalid UTF-8 at byte N (line L, column C)".
absl::Status ValidateUtf8(std::string_view text);

// Byte offset of the first malformed sequence, or -1 when `text` is valid UTF-8.
int64_t FindInvalidUtf8(std::string_view text);

// 1-based line and column of byte `offset` in `text`; columns count characters
// (code points), so a column points at what an editor shows. Lines end at '\n'.
struct LineColumn {
  int line = 1;
  int column = 1;
};
LineColumn LineColumnAt(std::string_view text, int64_t offset);

// One decoded character and where it sits in the UTF-8 text.
struct CodePoint {
  char32_t value = 0;
  int offset = 0;  // byte offset in the source text
  int length = 0;  // bytes
};

// Decodes `text`; a malformed byte decodes as U+FFFD of length 1, so offsets always
// cover the input (validate first where malformed input must be an error).
std::vector<CodePoint> DecodeUtf8(std::string_view text);

// Bytes at the end of `text` that begin a UTF-8 sequence whose remaining bytes are
// missing (0-3). Streaming code holds them back until the next piece arrives, so where
// a piece ends never changes how the text decodes.
size_t IncompleteUtf8Tail(std::string_view text);

// Appends `c` encoded as UTF-8.
void AppendUtf8(char32_t c, std::string& out);
std::string EncodeUtf8(const std::u32string& text);

// CJK Unified Ideographs (U+4E00–9FFF), Extension A (U+3400–4DBF), Extensions B–H
// (U+20000–323AF) and the compatibility ideographs (U+F900–FAFF, U+2F800–2FA1F).
bool IsHan(char32_t c);
// Letters of the Latin script: ASCII, Latin-1 and Latin Extended letters, and
// full-width Latin letters.
bool IsLatinLetter(char32_t c);
bool IsAsciiDigit(char32_t c);
// Unicode white space that may separate words (ASCII, NBSP, ideographic space ...).
bool IsSpace(char32_t c);

// Runs of one character class, for splitting mixed Chinese/English text.
enum class CharClass { kHan, kLatin, kOther };

struct TextRun {
  CharClass kind = CharClass::kOther;
  int offset = 0;  // bytes into the source text
  int length = 0;  // bytes
};

CharClass ClassOf(char32_t c);
// Splits `text` into maximal runs of Han characters, Latin letters and everything
// else (digits, punctuation, spaces, symbols). Concatenated they cover `text`.
std::vector<TextRun> SplitRuns(std::string_view text);

}  // namespace lingcast
