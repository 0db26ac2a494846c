#include "text/sanitize.h"

#include <unicode/uchar.h>

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "text/utf8.h"

namespace lingcast {
namespace {

constexpr char32_t kZeroWidthJoiner = 0x200D;
constexpr char32_t kKeycap = 0x20E3;

bool IsVariationSelector(char32_t c) { return c >= 0xFE00 && c <= 0xFE0F; }
bool IsRegionalIndicator(char32_t c) { return c >= 0x1F1E6 && c <= 0x1F1FF; }
bool IsSkinTone(char32_t c) { return c >= 0x1F3FB && c <= 0x1F3FF; }
bool IsTag(char32_t c) { return c >= 0xE0020 && c <= 0xE007F; }

// Pictographs spoken as nothing. © ® ™ ‼ ⁉ are pictographic too, but they are
// ordinary text symbols in product copy and stay.
bool IsEmojiPictograph(char32_t c) {
  if (c == 0xA9 || c == 0xAE || c == 0x2122 || c == 0x203C || c == 0x2049) return false;
  return u_hasBinaryProperty(static_cast<UChar32>(c), UCHAR_EXTENDED_PICTOGRAPHIC);
}

// Full-width forms the normalizers read as ASCII wherever they appear.
char32_t AsciiFromFullWidth(char32_t c) {
  if ((c >= U'０' && c <= U'９') || (c >= U'Ａ' && c <= U'Ｚ') || (c >= U'ａ' && c <= U'ｚ')) {
    return c - 0xFEE0;
  }
  switch (c) {
    case U'＄': case U'％': case U'＋': case U'＠': case U'＃': case U'＆': case U'＝':
      return c - 0xFEE0;
    default:
      return c;
  }
}

// Full-width signs that are ASCII only between two digits (３．５, ２０２４－０５, １０：３０);
// elsewhere ： and － are Chinese punctuation and stay.
bool IsFullWidthNumberJoiner(char32_t c) { return c == U'．' || c == U'－' || c == U'／' || c == U'：'; }

std::string Plural(int n, std::string_view one, std::string_view many) {
  return absl::StrCat(n, " ", std::string(n == 1 ? one : many));
}

}  // namespace

SanitizeCounts& SanitizeCounts::operator+=(const SanitizeCounts& other) {
  emoji += other.emoji;
  control += other.control;
  unassigned += other.unassigned;
  private_use += other.private_use;
  invalid_utf8 += other.invalid_utf8;
  return *this;
}

std::string DescribeRemovals(const SanitizeCounts& removed) {
  std::vector<std::string> parts;
  if (removed.emoji > 0) parts.push_back(absl::StrCat(removed.emoji, " emoji"));
  if (removed.control > 0) parts.push_back(Plural(removed.control, "control character", "control characters"));
  if (removed.unassigned > 0) {
    parts.push_back(Plural(removed.unassigned, "unassigned code point", "unassigned code points"));
  }
  if (removed.private_use > 0) {
    parts.push_back(Plural(removed.private_use, "private-use character", "private-use characters"));
  }
  if (removed.invalid_utf8 > 0) {
    parts.push_back(Plural(removed.invalid_utf8, "invalid UTF-8 byte", "invalid UTF-8 bytes"));
  }
  if (parts.empty()) return "";
  std::string last = parts.back();
  parts.pop_back();
  if (parts.empty()) return absl::StrCat("removed ", last);
  return absl::StrCat("removed ", absl::StrJoin(parts, ", "), " and ", last);
}

SanitizedText SanitizeText(std::string_view text) {
  TextSanitizer sanitizer;
  SanitizedText out = sanitizer.Push(text);
  SanitizedText rest = sanitizer.Flush();
  out.text += rest.text;
  out.source_offset.insert(out.source_offset.end(), rest.source_offset.begin(), rest.source_offset.end());
  out.removed += rest.removed;
  return out;
}

SanitizedText TextSanitizer::Push(std::string_view piece) {
  pending_.append(piece);
  return Process(/*end_of_stream=*/false);
}

SanitizedText TextSanitizer::Flush() { return Process(/*end_of_stream=*/true); }

SanitizedText TextSanitizer::Process(bool end_of_stream) {
  SanitizedText out;
  SanitizeCounts& removed = out.removed;
  const size_t complete = pending_.size() - (end_of_stream ? 0 : IncompleteUtf8Tail(pending_));
  const std::vector<CodePoint> cps = DecodeUtf8(std::string_view(pending_).substr(0, complete));
  size_t consumed = complete;
  for (size_t i = 0; i < cps.size(); ++i) {
    const char32_t c = cps[i].value;
    const int source = static_cast<int>(pending_offset_ + cps[i].offset);
    const auto keep = [&](char32_t kept) {
      AppendUtf8(kept, out.text);
      out.source_offset.resize(out.text.size(), source);
      last_kept_ = kept;
    };

    // Emoji: pictographs, flags, and the joiners, selectors and modifiers that bind
    // them into one emoji. Only earlier code points decide, so pieces cannot matter.
    if (IsRegionalIndicator(c)) {
      if (!regional_pair_open_) ++removed.emoji;
      regional_pair_open_ = !regional_pair_open_;
      in_emoji_ = true;
      after_emoji_joiner_ = false;
      continue;
    }
    regional_pair_open_ = false;
    if (IsEmojiPictograph(c)) {
      if (!(in_emoji_ && after_emoji_joiner_)) ++removed.emoji;
      in_emoji_ = true;
      after_emoji_joiner_ = false;
      continue;
    }
    const bool binds_emoji =
        c == kZeroWidthJoiner || IsVariationSelector(c) || IsSkinTone(c) || IsTag(c) || c == kKeycap;
    if (binds_emoji && in_emoji_) {
      after_emoji_joiner_ = c == kZeroWidthJoiner;
      continue;
    }
    if (IsSkinTone(c) || c == kKeycap) {  // a lone swatch, or the keycap of 1️⃣ (the digit stays)
      ++removed.emoji;
      in_emoji_ = true;
      after_emoji_joiner_ = false;
      continue;
    }
    if (IsVariationSelector(c) && (IsAsciiDigit(last_kept_) || last_kept_ == '#' || last_kept_ == '*')) {
      continue;  // the text/emoji style of a keycap digit: invisible, nothing lost
    }
    in_emoji_ = false;
    after_emoji_joiner_ = false;

    const bool was_carriage_return = after_carriage_return_;
    after_carriage_return_ = c == '\r';
    if (c == 0xFFFD) {  // a malformed byte, or a replacement character standing for one
      ++removed.invalid_utf8;
      continue;
    }
    switch (u_charType(static_cast<UChar32>(c))) {
      case U_CONTROL_CHAR:
        if (c == '\n') {
          if (!was_carriage_return) keep('\n');
        } else if (c == '\r') {
          keep('\n');
        } else if (c == '\t' || c == '\v' || c == '\f') {
          keep(' ');
        } else {
          ++removed.control;
        }
        continue;
      case U_FORMAT_CHAR:
        ++removed.control;
        continue;
      case U_UNASSIGNED:
        ++removed.unassigned;
        continue;
      case U_PRIVATE_USE_CHAR:
        ++removed.private_use;
        continue;
      case U_SURROGATE:  // cannot decode from UTF-8; here for completeness
        ++removed.invalid_utf8;
        continue;
      default:
        break;
    }
    if (IsFullWidthNumberJoiner(c) && IsAsciiDigit(last_kept_)) {
      if (i + 1 == cps.size() && !end_of_stream) {  // the next code point decides: wait for it
        consumed = cps[i].offset;
        break;
      }
      const bool between_digits = i + 1 < cps.size() && IsAsciiDigit(AsciiFromFullWidth(cps[i + 1].value));
      keep(between_digits ? c - 0xFEE0 : c);
      continue;
    }
    keep(AsciiFromFullWidth(c));
  }
  pending_.erase(0, consumed);
  pending_offset_ += static_cast<int64_t>(consumed);
  total_ += removed;
  return out;
}

}  // namespace lingcast
